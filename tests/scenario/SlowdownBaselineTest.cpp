// A job's slowdown is its completion time over its time alone (docs/models/sla.md). For a job that spans nodes
// or reads and checkpoints over the fabric, "alone" must include the fabric it would use alone: the leaf
// uplinks of an oversubscribed fat tree, the rails, the store's servers and disks. A job alone must then meet
// a 1.05x slowdown SLO whatever the fabric; sharing the fabric must still show as slowdown.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;
const std::string SRC = GTW_SOURCE_DIR;

json run_json(const std::string& scenario, const std::vector<std::string>& sets) {
  TempDir dir;
  const auto r = run_process(run_argv(GTW_BINARY, SRC + "/" + scenario, dir.file("out"), "json", sets));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(dir.file("out") + "/report.json"));
}

const json& workload(const json& report, const std::string& name) {
  for (const auto& t : report["tenants"])
    for (const auto& w : t["workloads"])
      if (w["name"] == name) return w;
  static const json none;
  ADD_FAILURE() << "no workload " << name;
  return none;
}

const json& slo(const json& report, const std::string& tenant, const std::string& name) {
  for (const auto& t : report["tenants"])
    if (t["name"] == tenant)
      for (const auto& s : t["slos"])
        if (s["name"] == name) return s;
  static const json none;
  ADD_FAILURE() << "no SLO " << tenant << "/" << name;
  return none;
}

// The other job of each scenario is moved to the last second with one step: the job under test runs alone.
TEST(SlowdownBaseline, AMultiNodeJobAloneMeetsA105xSloOnEveryFabric) {
  const std::string slo_a = "spec.tenants[a].slos=[{name: alone, kind: slowdown, maxSlowdown: 1.05}]";
  for (const std::string file : {"tests/fixtures/scenarios/fabric-allreduce.yaml",  // fat tree, 4:1 uplinks
                                 "tests/fixtures/scenarios/fabric-rail.yaml"}) {    // rail-optimised
    SCOPED_TRACE(file);
    const json r = run_json(
        file, {slo_a, "spec.workloads[ring-b].start=59s", "spec.workloads[ring-b].iterations=1", "spec.duration=60s"});
    const double slowdown = workload(r, "ring-a")["mean_slowdown"].get<double>();
    EXPECT_NEAR(slowdown, 1.0, 0.05);
    EXPECT_TRUE(slo(r, "a", "alone")["met"].get<bool>()) << slo(r, "a", "alone").dump();
  }
  // Dataset reads and checkpoints on a parallel file system, all-reduce across two nodes of a 2:1 fat tree.
  const json s =
      run_json("scenarios/examples/fabric/shared-storage.yaml",
               {"spec.tenants[research].slos=[{name: alone, kind: slowdown, maxSlowdown: 1.05}]",
                "spec.workloads[finetune].start=59s", "spec.workloads[finetune].iterations=1", "spec.duration=10m"});
  EXPECT_NEAR(workload(s, "pretrain")["mean_slowdown"].get<double>(), 1.0, 0.05);
  EXPECT_TRUE(slo(s, "research", "alone")["met"].get<bool>());
}

TEST(SlowdownBaseline, SharingTheLeafUplinksStillShowsAsSlowdown) {
  // ring-b joins at 5 s on the same leaves: both all-reduces share the oversubscribed uplinks.
  const json r = run_json("tests/fixtures/scenarios/fabric-allreduce.yaml",
                          {"spec.tenants[a].slos=[{name: alone, kind: slowdown, maxSlowdown: 1.05}]"});
  EXPECT_GT(workload(r, "ring-a")["mean_slowdown"].get<double>(), 1.3);
  EXPECT_FALSE(slo(r, "a", "alone")["met"].get<bool>());
}

}  // namespace
}  // namespace gtw::test

namespace gtw::test {
namespace {

// A storage-bound victim beside a neighbour reading the same parallel file system: max-min sharing gives each
// half of the store, so the analytic slowdown is 2x and the neighbour moved half of the bytes on the victim's
// links; the blame is the neighbour's storage traffic, not "its own load". On another store: alone speed.
TEST(SlowdownBaseline, AStorageBoundVictimBlamesTheNeighboursStorageTraffic) {
  const json r = run_json("tests/fixtures/scenarios/storage-contention.yaml", {});
  EXPECT_NEAR(workload(r, "victim-reader")["mean_slowdown"].get<double>(), 2.0, 0.1);
  const json& s = slo(r, "victim", "slowdown");
  EXPECT_FALSE(s["met"].get<bool>());
  double neighbour = 0, io = 0;
  for (const auto& b : s["attribution"]) {
    if (b["via"] == "gpu") continue;
    io += b["share"].get<double>();
    if (b["who"] == "neighbour") {
      EXPECT_EQ(b["via"], "storage fs");
      neighbour += b["share"].get<double>();
    }
  }
  ASSERT_GT(io, 0.9) << "storage-bound: the I/O is most of what delayed it";
  EXPECT_NEAR(neighbour / io, 0.5, 0.05) << s["attribution"].dump();
  const std::string why = s["explanation"].get<std::string>();
  EXPECT_NE(why.find("neighbour"), std::string::npos) << why;
  EXPECT_NE(why.find("storage fs"), std::string::npos) << why;
  EXPECT_EQ(why.find("its own load"), std::string::npos) << why;

  const json apart = run_json("tests/fixtures/scenarios/storage-contention.yaml", {"spec.data[1].store=other"});
  EXPECT_NEAR(workload(apart, "victim-reader")["mean_slowdown"].get<double>(), 1.0, 0.05);
  EXPECT_TRUE(slo(apart, "victim", "slowdown")["met"].get<bool>());
}

}  // namespace
}  // namespace gtw::test

namespace gtw::test {
namespace {

// Confidential computing makes the chat service boot a VM, attest its GPU and load encrypted weights before it
// serves: the windows it misses are its start-up and the requests queued meanwhile, not "its own load".
TEST(SlowdownBaseline, AConfidentialColdStartIsBlamedAsACauseOfItsOwn) {
  const json r =
      run_json("scenarios/labs/03-model-ip.yaml", {"spec.cluster.nodePools[train].sharing={mode: confidential}",
                                                   "spec.cluster.nodePools[serve].sharing={mode: confidential}",
                                                   "spec.cluster.nodePools[serve].gpusPerNode=2"});
  const json& s = slo(r, "chat", "p99-latency");
  ASSERT_FALSE(s["met"].get<bool>());
  double cold = 0;
  for (const auto& b : s["attribution"])
    if (b["via"] == "cold start") cold += b["share"].get<double>();
  EXPECT_GT(cold, 0.2) << s["attribution"].dump();
  const std::string why = s["explanation"].get<std::string>();
  EXPECT_NE(why.find("VM boot and attestation"), std::string::npos) << why;
  EXPECT_EQ(why.find("its own load"), std::string::npos) << why;
  // As written (no CC) the same service starts within its first window and meets the SLO.
  const json plain = run_json("scenarios/labs/03-model-ip.yaml", {});
  EXPECT_TRUE(slo(plain, "chat", "p99-latency")["met"].get<bool>());
}

}  // namespace
}  // namespace gtw::test
