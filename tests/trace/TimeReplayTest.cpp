// Time-based replay of the openb trace: arrivals at their (compressed) creation times, departures after
// each pod's lifetime. Uncompressed, the sample never contends (peak demand 65.59 GPUs of 6,212, counted
// from the CSV); compressed, the cluster fills and the policies separate.
#include <gtest/gtest.h>

#include "Errors.hpp"
#include "OpenbCsv.hpp"
#include "TimeReplay.hpp"

using namespace gtw;
using namespace gtw::trace;

namespace {

struct Openb {
  std::vector<OpenbPod> pods;
  PackingInput input;
};

const Openb& openb() {
  static const Openb data = [] {
    const std::string dir = std::string(GTW_SOURCE_DIR) + "/data/openb/";
    Openb d;
    d.pods = read_openb_pods(dir + "openb_pod_list_default.csv");
    d.input = build_packing_input(read_openb_nodes(dir + "openb_node_list_gpu_node.csv"), d.pods, {});
    return d;
  }();
  return data;
}

TimeReplayResult replay(const std::string& policy, double speedup) {
  TimeReplayOptions o;
  o.arrival_speedup = speedup;
  return run_time_replay(openb().input, openb().pods, policy, o);
}

TEST(TimeReplay, UncompressedTheSampleNeverContends) {
  const auto r = replay("best-fit", 1);
  EXPECT_EQ(r.arrivals, 8152);
  EXPECT_EQ(r.failed_pods, 0);
  EXPECT_NEAR(r.peak_allocated_pct, 100.0 * 65.59 / 6212, 1e-3) << "peak concurrent demand, as the CSV says";
  EXPECT_GT(r.departures, 8000);
}

TEST(TimeReplay, CompressingArrivalsFillsTheClusterAndFgdFragmentsLeast) {
  const auto slow = replay("best-fit", 1000);
  const auto fast = replay("best-fit", 3000);
  EXPECT_GT(slow.peak_allocated_pct, 40);
  EXPECT_GT(fast.peak_allocated_pct, slow.peak_allocated_pct);
  EXPECT_LT(fast.departures, slow.departures)
      << "same lifetimes, shorter span: fewer pods leave before the last arrival";
  const auto fgd = replay("fgd", 3000);
  const auto random = replay("random-fit", 3000);
  EXPECT_LT(fgd.mean_frag_pct, fast.mean_frag_pct);
  EXPECT_LT(fast.mean_frag_pct, random.mean_frag_pct);
  // The series is sampled every hour of replayed time and ends at the last arrival.
  ASSERT_GE(fast.series.size(), 2u);
  EXPECT_DOUBLE_EQ(fast.series.back().time, fast.span);
  EXPECT_EQ(fast.series.back().arrived, 8152);
}

TEST(TimeReplay, DeparturesGiveBackExactlyWhatArrivalsTook) {
  // Two nodes of one GPU; three fractional pods, the first leaving before the third arrives.
  std::vector<OpenbNode> nodes(2);
  for (int i = 0; i < 2; ++i) {
    nodes[static_cast<size_t>(i)].name = "n" + std::to_string(i);
    nodes[static_cast<size_t>(i)].cpu_milli = 8000;
    nodes[static_cast<size_t>(i)].memory_mib = 8192;
    nodes[static_cast<size_t>(i)].gpus = 1;
    nodes[static_cast<size_t>(i)].model = "T4";
  }
  std::vector<OpenbPod> pods(3);
  const int64_t created[] = {0, 10, 30}, deleted[] = {20, 100, 100};
  for (size_t i = 0; i < 3; ++i) {
    pods[i].name = "p" + std::to_string(i);
    pods[i].cpu_milli = 1000;
    pods[i].memory_mib = 1024;
    pods[i].num_gpu = 1;
    pods[i].gpu_milli = 1000;
    pods[i].creation_time = created[i];
    pods[i].deletion_time = deleted[i];
  }
  const auto input = build_packing_input(nodes, pods, {});
  TimeReplayOptions o;
  o.sample_every = 5;
  const auto r = run_time_replay(input, pods, "best-fit", o);
  EXPECT_EQ(r.failed_pods, 0) << "p0 left at 20 s: p2 takes its GPU at 30 s";
  EXPECT_EQ(r.departures, 1);
  EXPECT_EQ(r.decisions[2], r.decisions[0]);
  EXPECT_DOUBLE_EQ(r.peak_allocated_pct, 100.0);
  // Allocation over [0, 30] s: 1 GPU for 10 s, 2 for 10 s, 1 for 10 s, of a capacity of 2.
  EXPECT_NEAR(r.mean_allocated_pct, 100.0 * (10 * 1 + 10 * 2 + 10 * 1) / 30.0 / 2.0, 1e-9);
  // Compressed 10x, p2 arrives at 3 s while p0 and p1 still run: it fails.
  o.arrival_speedup = 10;
  EXPECT_EQ(run_time_replay(input, pods, "best-fit", o).failed_pods, 1);
  // A pod list without times is refused.
  auto untimed = pods;
  untimed[1].creation_time = -1;
  EXPECT_THROW(run_time_replay(input, untimed, "best-fit", TimeReplayOptions{}), InputError);
}

}  // namespace
