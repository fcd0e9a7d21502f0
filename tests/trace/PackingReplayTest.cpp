// The packing replay: failure accounting and curve sampling on a toy trace, then the published openb
// experiment (10,866 arrivals on 6,212 GPUs) with all six policies: the ranking of the paper's Fig. 9,
// incremental fragmentation equal to a full recomputation after every arrival, and determinism.
#include <gtest/gtest.h>

#include <map>

#include "GoRand.hpp"
#include "OpenbCsv.hpp"
#include "PackingReplay.hpp"
#include "Tuning.hpp"

using namespace gtw;
using namespace gtw::trace;

namespace {

const PackingInput& openb() {
  static const PackingInput input = [] {
    const std::string dir = std::string(GTW_SOURCE_DIR) + "/data/openb/";
    const auto nodes = read_openb_nodes(dir + "openb_node_list_gpu_node.csv");
    const auto pods = read_openb_pods(dir + "openb_pod_list_default.csv");
    const auto arrivals = read_openb_arrivals(dir + "arrivals_default_tune1.3_seed42.csv", pods);
    return build_packing_input(nodes, pods, arrivals);
  }();
  return input;
}

// The published run's tie-break: node ranks from tune seed 42's stream after the tuning.
ReplayOptions published_ties() {
  const std::string dir = std::string(GTW_SOURCE_DIR) + "/data/openb/";
  const auto nodes = read_openb_nodes(dir + "openb_node_list_gpu_node.csv");
  const auto pods = read_openb_pods(dir + "openb_pod_list_default.csv");
  GoRand rng(42);
  tune_arrivals(pods, 6212 * 1000, 1.3, rng);
  ReplayOptions options;
  options.tie_break = packing::TieBreak::RANK;
  options.node_rank = published_node_ranks(nodes, rng);
  return options;
}

OpenbPod toy_pod(const std::string& name, int64_t cpu, int num_gpu, int milli) {
  OpenbPod p;
  p.name = name;
  p.cpu_milli = cpu;
  p.memory_mib = 1024;
  p.num_gpu = num_gpu;
  p.gpu_milli = milli;
  return p;
}

const CurvePoint* at(const PackingResult& r, int x) {
  for (const auto& p : r.curve)
    if (p.arrived_pct == x) return &p;
  return nullptr;
}

}  // namespace

TEST(PackingReplay, PodThatFitsNowhereFailsAndCurvesFollowTheDemand) {
  // One node with two GPUs; demand: 1 GPU, 0.5, 0.5 (fits beside nothing but the second GPU), 1 GPU (fails).
  const std::vector<OpenbNode> nodes = {{"n0", 8000, 16384, 2, "T4"}};
  const std::vector<OpenbPod> pods = {toy_pod("whole", 1000, 1, 1000), toy_pod("half", 1000, 1, 500),
                                      toy_pod("cpu", 1000, 0, 0)};
  const auto input = build_packing_input(nodes, pods, {0, 1, 1, 0, 2});
  ReplayOptions options;
  const auto r = run_packing(input, "best-fit", options);
  EXPECT_EQ(r.arrivals, 5);
  EXPECT_EQ(r.failed_pods, 1);
  EXPECT_EQ(r.failed_gpu_pods, 1);
  EXPECT_EQ(r.decisions, (std::vector<int>{0, 0, 0, -1, 0}));
  EXPECT_DOUBLE_EQ(r.arrived_pct, 150.0);
  EXPECT_DOUBLE_EQ(r.allocated_pct, 100.0);
  EXPECT_DOUBLE_EQ(r.cpu_allocated_pct, 50.0);
  EXPECT_DOUBLE_EQ(r.frag_pct, 0.0);
  // Sample points: 0..50 after the first arrival, 51..75 after the second, 76..100 after the third,
  // 101..130 after the fourth (which failed).
  ASSERT_EQ(r.curve.size(), 131u);
  EXPECT_EQ(r.curve[50].arrivals, 1);
  EXPECT_DOUBLE_EQ(r.curve[50].allocated_pct, 50.0);
  EXPECT_EQ(r.curve[75].arrivals, 2);
  EXPECT_EQ(r.curve[100].arrivals, 3);
  EXPECT_EQ(r.curve[130].arrivals, 4);
  EXPECT_EQ(r.curve[130].failed_pods, 1);
}

TEST(PackingReplay, FragmentationOfHalfUsedGpuAgainstWholeGpuWorkload) {
  // Target workload: the pod list (not the arrivals, which repeat the whole pod), one 1-GPU pod and one
  // 0.5-GPU pod (weights 1 and 1).
  const std::vector<OpenbNode> nodes = {{"n0", 64000, 65536, 2, "T4"}};
  const std::vector<OpenbPod> pods = {toy_pod("whole", 1000, 1, 1000), toy_pod("half", 1000, 1, 500)};
  const auto input = build_packing_input(nodes, pods, {1, 0, 0});
  ReplayOptions options;
  options.popularity_percent = 100;
  PackingReplay replay(input, "best-fit", options);
  replay.step();  // the half pod on GPU 0: 500 + 1000 idle
  // Whole-GPU class: fits on GPU 1, GPU 0's 500 is fragment. Half class: fits, no fragment. (500 + 0) / 2.
  EXPECT_EQ(replay.weighted_frag(), 500);
  EXPECT_EQ(replay.distribution().total_weight, 2);
  replay.step();  // a whole pod on GPU 1: only 500 idle, unusable by whole pods, usable by half pods
  EXPECT_EQ(replay.weighted_frag(), 500);
  const auto r = replay.finish();  // the last whole pod fails
  EXPECT_EQ(r.failed_pods, 1);
  EXPECT_NEAR(r.frag_pct, 100.0 * (500.0 / 2) / 2000, 1e-9);
  EXPECT_NEAR(r.frag_idle_pct, 100.0 * (500.0 / 2) / 500, 1e-9);
}

TEST(PackingReplay, IncrementalFragEqualsFullRecomputationAfterEveryArrival) {
  // FGD: the policy whose own scores come from the same measure (checking one policy keeps this test short).
  for (const std::string policy : {"fgd"}) {
    ReplayOptions options;
    PackingReplay replay(openb(), policy, options);
    ASSERT_EQ(replay.weighted_frag(), replay.weighted_frag_full());
    size_t mismatches = 0, first_mismatch = 0;
    while (replay.has_next()) {
      replay.step();
      if (replay.weighted_frag() != replay.weighted_frag_full() && mismatches++ == 0)
        first_mismatch = replay.position();
    }
    EXPECT_EQ(mismatches, 0u) << policy << ": first after arrival " << first_mismatch;
    EXPECT_EQ(replay.position(), 10866u);
  }
}

TEST(PackingReplay, OpenbAllPoliciesRankAsInThePaper) {
  std::map<std::string, PackingResult> results;
  const ReplayOptions published_options = published_ties();
  for (const auto& policy : packing::packing_policy_order()) {
    const ReplayOptions& options = published_options;
    results[policy] = run_packing(openb(), policy, options);
    const auto& r = results[policy];
    EXPECT_EQ(r.arrivals, 10866) << policy;
    EXPECT_NEAR(r.arrived_pct, 129.99, 0.01) << policy;
    ASSERT_EQ(r.curve.size(), 131u) << policy;
    // Before any failure the allocation follows the demand exactly.
    EXPECT_NEAR(at(r, 50)->allocated_pct, at(r, 50)->arrived_exact_pct, 1e-9) << policy;
    EXPECT_EQ(at(r, 50)->failed_pods, 0) << policy;
    std::printf("%-15s allocated %.2f %%  at 100 %% demand %.2f %%  failed %lld  frag %.2f %% of capacity\n",
                policy.c_str(), r.allocated_pct, at(r, 100)->allocated_pct, static_cast<long long>(r.failed_pods),
                r.frag_pct);
  }
  const auto alloc = [&](const char* p) { return results.at(p).allocated_pct; };
  // Fig. 9 (seed 42, final): FGD 95.29 > best-fit 93.13 > GPU packing 91.57 > GPU clustering 91.53 >
  // dot-product 90.54 > random 87.26 (hkust-adsl/kubernetes-scheduler-simulator, expected_results).
  EXPECT_GT(alloc("fgd"), alloc("best-fit"));
  EXPECT_GT(alloc("best-fit"), alloc("gpu-packing"));
  EXPECT_GT(alloc("gpu-packing"), alloc("gpu-clustering"));
  EXPECT_GT(alloc("gpu-clustering"), alloc("dot-product"));
  EXPECT_GT(alloc("dot-product"), alloc("random-fit"));
  // FGD also fails the fewest pods and leaves the least fragment.
  for (const auto& [policy, r] : results) {
    if (policy == "fgd") continue;
    EXPECT_LT(results.at("fgd").failed_pods, r.failed_pods) << policy;
    EXPECT_LT(results.at("fgd").frag_pct, r.frag_pct) << policy;
  }
  // The published final allocation: to its printed precision for the deterministic policies; random-fit
  // draws differently (docs/validation/openb.md), within half a point.
  const std::map<std::string, double> published = {{"random-fit", 87.26},     {"dot-product", 90.54},
                                                   {"gpu-clustering", 91.53}, {"gpu-packing", 91.57},
                                                   {"best-fit", 93.13},       {"fgd", 95.29}};
  for (const auto& [policy, value] : published)
    EXPECT_NEAR(alloc(policy.c_str()), value, policy == "random-fit" ? 0.5 : 0.005) << policy;
}

TEST(PackingReplay, SameSeedSameDecisionsOtherSeedOtherRandomChoices) {
  ReplayOptions options;
  options.seed = 7;
  const auto a = run_packing(openb(), "random-fit", options);
  const auto b = run_packing(openb(), "random-fit", options);
  EXPECT_EQ(a.decisions, b.decisions);
  EXPECT_EQ(a.allocated_pct, b.allocated_pct);
  options.seed = 8;
  const auto c = run_packing(openb(), "random-fit", options);
  EXPECT_NE(a.decisions, c.decisions);
  // Random tie-breaks are seeded too.
  options.tie_break = packing::TieBreak::RANDOM;
  const auto d = run_packing(openb(), "fgd", options);
  const auto e = run_packing(openb(), "fgd", options);
  EXPECT_EQ(d.decisions, e.decisions);
}
