// Tenants contending on shared storage and fabric links (whole runs, one per process):
// - two tenants checkpointing to one parallel file system each get half of it (max-min), and moving
//   one to local NVMe gives the other the whole file system back;
// - a tenant's multi-node all-reduce slows when another tenant's job shares its leaf uplinks, and
//   not when the placement keeps the two on disjoint leaf switches.
#include <gtest/gtest.h>

#include <map>

#include "EngineRun.hpp"

namespace gtw {
namespace {

using test::run_file;

constexpr double GB = 1e9;

// Throughput of every checkpoint write of a tenant (bytes / duration), from the data events.
std::vector<double> checkpoint_rates(const test::Outcome& o, const std::string& tenant) {
  std::vector<double> rates;
  const int t = o.prepared.spec.tenant_index(tenant);
  for (const auto& e : o.run.log.events()) {
    if (e.type != EventType::DATA_MOVE) continue;
    const auto& m = o.run.data_movements.at(static_cast<size_t>(e.aux));
    if (m.tenant == t && m.operation == "write") rates.push_back(m.bytes / (m.end - m.start));
  }
  return rates;
}

TEST(FabricContention, TwoCheckpointsShareTheFileSystemMaxMin) {
  const auto o = run_file("tests/fixtures/scenarios/fabric-checkpoint.yaml");
  const auto a = checkpoint_rates(o, "a");
  const auto b = checkpoint_rates(o, "b");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  // 20 GB/s of writes over 4 servers, two writers at once: 10 GB/s each (100 us request latency aside).
  for (double r : a) EXPECT_NEAR(r, 10 * GB, 0.01 * 10 * GB);
  for (double r : b) EXPECT_NEAR(r, 10 * GB, 0.01 * 10 * GB);
  // Every write is tagged: owner, store, identity, the shared links it crossed.
  for (const auto& m : o.run.data_movements) {
    EXPECT_EQ(m.store, "lustre");
    EXPECT_EQ(m.owner, m.tenant);
    EXPECT_TRUE(m.gpu_direct);
    EXPECT_FALSE(m.links.empty());
  }
}

TEST(FabricContention, LocalNvmeRemovesTheInterference) {
  const auto o = run_file("tests/fixtures/scenarios/fabric-checkpoint.yaml", {{"spec.data[1].store", "localNvme"}});
  const auto a = checkpoint_rates(o, "a");
  const auto b = checkpoint_rates(o, "b");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  // Tenant a alone on the file system: all of its 20 GB/s.
  for (double r : a) EXPECT_NEAR(r, 20 * GB, 0.01 * 20 * GB);
  // Tenant b on its node's NVMe (hgx-h100: 8 drives x 3.5 GB/s of writes).
  for (double r : b) EXPECT_NEAR(r, 28 * GB, 0.01 * 28 * GB);
}

// Step times of a tenant's training job, with the time each step ended.
std::vector<std::pair<double, double>> steps(const test::Outcome& o, const std::string& workload) {
  std::vector<std::pair<double, double>> out;
  int w = -1;
  for (size_t i = 0; i < o.prepared.spec.workloads.size(); ++i)
    if (o.prepared.spec.workloads[i].name == workload) w = static_cast<int>(i);
  for (const auto& e : o.run.log.events())
    if (e.type == EventType::STEP_DONE && e.workload == w) out.emplace_back(e.time, e.value);
  return out;
}

double job_start(const test::Outcome& o, const std::string& workload) {
  for (size_t i = 0; i < o.prepared.spec.workloads.size(); ++i)
    if (o.prepared.spec.workloads[i].name == workload)
      for (const auto& e : o.run.log.events())
        if (e.type == EventType::JOB_START && e.workload == static_cast<int>(i)) return e.time;
  return -1;
}

TEST(FabricContention, AllReduceSlowsWhenLeafUplinksAreShared) {
  const auto o = run_file("tests/fixtures/scenarios/fabric-allreduce.yaml");
  const auto a = steps(o, "ring-a");
  const double b_start = job_start(o, "ring-b");
  ASSERT_EQ(a.size(), 40u);
  ASSERT_GT(b_start, 0);
  const double alone = a.front().second;
  double worst_shared = 0;
  for (const auto& [end, dt] : a)
    if (end - dt > b_start) worst_shared = std::max(worst_shared, dt);
  // While both all-reduce over leaf 0 -> leaf 1, each gets half of the oversubscribed uplink.
  EXPECT_GT(worst_shared, 1.5 * alone) << "alone " << alone << " s, shared " << worst_shared << " s";
}

TEST(FabricContention, AllReduceKeepsItsSpeedOnDisjointLeaves) {
  const auto o =
      run_file("tests/fixtures/scenarios/fabric-allreduce.yaml", {{"spec.workloads[1].placement.nodes", "[n-4, n-6]"}});
  const auto a = steps(o, "ring-a");
  ASSERT_EQ(a.size(), 40u);
  const double alone = a.front().second;
  for (const auto& [end, dt] : a) EXPECT_NEAR(dt, alone, 1e-6 * alone) << "step ending at " << end;
}

}  // namespace
}  // namespace gtw
