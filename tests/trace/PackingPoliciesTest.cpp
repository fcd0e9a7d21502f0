// Packing policies and the fragmentation measure on clusters small enough to score by hand. Scores quoted
// in comments are the integer node scores of the reference rules (policies/packing/PackingPolicies.cpp).
#include <gtest/gtest.h>

#include <set>

#include "Errors.hpp"
#include "PackingApi.hpp"

using namespace gtw;
using namespace gtw::packing;

namespace {

PodRequest pod(int64_t cpu, int num_gpu, int gpu_milli, int64_t memory = 1024) {
  PodRequest p;
  p.cpu_milli = cpu;
  p.memory_mib = memory;
  p.num_gpu = num_gpu;
  p.gpu_milli = gpu_milli;
  return p;
}

// Uses `gpus[g]` milli of GPU g of the node (as if pods were placed there).
void use_gpus(ClusterState& state, int node, const std::vector<int>& used) {
  for (size_t g = 0; g < used.size(); ++g)
    state.gpu_free[static_cast<size_t>(state.gpu_begin[static_cast<size_t>(node)]) + g] -= used[g];
  ++state.version[static_cast<size_t>(node)];
}

std::unique_ptr<PackingPolicy> make(const std::string& name, const FragDistribution* dist = nullptr,
                                    TieBreak tie_break = TieBreak::FIRST) {
  PackingContext context;
  context.distribution = dist;
  context.tie_break = tie_break;
  return make_packing_policy(name, {}, context);
}

Placement place(PackingPolicy& policy, const ClusterState& state, const PodRequest& request, uint64_t seed = 1) {
  RngStream rng(seed);
  auto where = policy.place(state, request, rng);
  EXPECT_TRUE(where.has_value());
  return where.value_or(Placement{});
}

}  // namespace

TEST(PackingFit, CpuMemoryModelAndGpuShares) {
  ClusterState s;
  s.add_node("a", 8000, 2000, 2, 0);
  use_gpus(s, 0, {700, 0});                           // free: 300, 1000
  EXPECT_TRUE(fits(s, 0, pod(4000, 1, 500)));         // GPU 1 has the share
  EXPECT_FALSE(fits(s, 0, pod(4000, 2, 1000)));       // only one GPU fully free
  EXPECT_TRUE(fits(s, 0, pod(4000, 1, 1000)));        // one whole GPU
  EXPECT_FALSE(fits(s, 0, pod(9000, 1, 100)));        // CPU
  EXPECT_FALSE(fits(s, 0, pod(1000, 1, 100, 3000)));  // memory
  PodRequest other_model = pod(1000, 1, 100);
  other_model.model_mask = 1U << 1;
  EXPECT_FALSE(fits(s, 0, other_model));
  other_model.model_mask |= 1U;
  EXPECT_TRUE(fits(s, 0, other_model));
  EXPECT_TRUE(fits(s, 0, pod(8000, 0, 0, 2000)));  // CPU-only pod uses exactly what is left
}

TEST(PackingFit, DefaultGpuChoiceIsBestFitThenLowestFreeGpus) {
  ClusterState s;
  s.add_node("a", 8000, 1000, 4, 0);
  use_gpus(s, 0, {300, 600, 0, 600});                                        // free: 700, 400, 1000, 400
  EXPECT_EQ(default_gpu_choice(s, 0, pod(0, 1, 300)), std::vector<int>{1});  // least free that fits, lowest index
  EXPECT_EQ(default_gpu_choice(s, 0, pod(0, 1, 500)), std::vector<int>{0});
  ClusterState t;
  t.add_node("b", 8000, 1000, 3, 0);
  use_gpus(t, 0, {0, 600, 0});
  EXPECT_EQ(default_gpu_choice(t, 0, pod(0, 2, 1000)), (std::vector<int>{0, 2}));
}

TEST(PackingFrag, WeightedFragByHand) {
  FragDistribution dist;
  dist.classes = {{1000, 500, 1, 0, 2}, {0, 0, 0, 0, 1}, {1000, 1000, 2, 0, 1}};
  dist.total_weight = 4;
  dist.prepare();
  const int free[] = {300, 1000};
  // Class A (0.5 GPU): fits on GPU 1, GPU 0's 300 is fragment -> 2 x 300. CPU-only class: all 1300 idle
  // milli -> 1 x 1300. Class C (2 whole GPUs): does not fit -> 1 x 1300. Sum 3200 (frag 800 milli).
  EXPECT_EQ(weighted_frag(dist, 0, 4000, free, 2), 3200);
  // Without the CPU for class A, all its idle GPU is fragment too.
  EXPECT_EQ(weighted_frag(dist, 0, 500, free, 2), 2 * 1300 + 1300 + 1300);
  // A class limited to another GPU model sees the whole node as fragment.
  dist.classes[0].model_mask = 1U << 1;
  dist.prepare();
  EXPECT_EQ(weighted_frag(dist, 0, 4000, free, 2), 2 * 1300 + 1300 + 1300);
  const int full[] = {0, 0};
  EXPECT_EQ(weighted_frag(dist, 0, 4000, full, 2), 0);
}

TEST(PackingFrag, DistributionKeepsPopularClassesStepByStep) {
  std::vector<PodRequest> pods;
  // 12 classes: class k occurs 12 - k times (k = 0..11): 78 pods.
  for (int k = 0; k < 12; ++k)
    for (int i = 0; i < 12 - k; ++i) pods.push_back(pod(1000 * (k + 1), 1, 100));
  const auto all = FragDistribution::from_pods(pods, 100);
  EXPECT_EQ(all.classes.size(), 12u);
  EXPECT_EQ(all.total_weight, 78);
  EXPECT_EQ(all.classes.front().weight, 12);
  EXPECT_EQ(all.classes.front().cpu_milli, 1000);
  // 50 % of 78 pods = 39: one class at a time (the published experiments' step), 12 + 11 + 10 + 9 = 42 after
  // four classes; ten at a time (the example configuration's step), the first ten (75 pods).
  const auto half = FragDistribution::from_pods(pods, 50);
  EXPECT_EQ(half.classes.size(), 4u);
  EXPECT_EQ(half.total_weight, 42);
  const auto tens = FragDistribution::from_pods(pods, 50, 10);
  EXPECT_EQ(tens.classes.size(), 10u);
  EXPECT_EQ(tens.total_weight, 75);
}

TEST(PackingPolicies, RegisteredWithHelpInThePapersOrder) {
  const auto& registry = packing_registry();
  EXPECT_EQ(registry.names().size(), 6u);
  for (const auto& name : packing_policy_order()) {
    const PluginInfo* info = registry.find(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_FALSE(info->summary.empty()) << name;
  }
  EXPECT_EQ(registry.find("best-fit")->params.size(), 2u);
}

TEST(PackingPolicies, UnknownNamesAndParametersAreInputErrors) {
  try {
    make("bestfit");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'best-fit'"), std::string::npos) << e.what();
  }
  PackingContext context;
  EXPECT_THROW(make_packing_policy("fgd", {{"max_cpu_milli", 1.0}}, context), InputError);
  EXPECT_THROW(make_packing_policy("best-fit", {{"max_cpu_milli", -3.0}}, context), InputError);
  EXPECT_THROW(make_packing_policy("best-fit", {{"max_cpu_milli", std::string("x")}}, context), InputError);
}

TEST(PackingPolicies, BestFitPicksTheNodeLeftEmptiest) {
  ClusterState s;
  s.add_node("big", 32000, 100000, 8, 0);    // (1 - (0.5*28/128 + 0.5*7/8)) * 100 = 45
  s.add_node("small", 32000, 100000, 2, 0);  // (1 - (0.5*28/128 + 0.5*1/8)) * 100 = 82
  auto policy = make("best-fit");
  const auto where = place(*policy, s, pod(4000, 1, 1000));
  EXPECT_EQ(where.node, 1);
  EXPECT_EQ(where.gpus, std::vector<int>{0});
}

TEST(PackingPolicies, DotProductPicksTheSmallestDotProduct) {
  ClusterState s;
  s.add_node("gpu-rich", 32000, 100000, 8, 0);  // node (0.25, 1.0) . pod (1/32, 1/8) / 2 = 0.066 -> 93
  s.add_node("small", 32000, 100000, 2, 0);     // (0.25, 0.25) -> 0.0195 -> 98
  s.add_node("cpu-rich", 96000, 100000, 2, 0);  // (0.75, 0.25) -> 0.0273 -> 97
  auto policy = make("dot-product");
  EXPECT_EQ(place(*policy, s, pod(4000, 1, 1000)).node, 1);
}

TEST(PackingPolicies, GpuPackingPrefersSharedGpusThenUsedNodesThenSmallIdleNodes) {
  ClusterState s;
  s.add_node("idle8", 96000, 100000, 8, 0);  // idle: 33 - 8 = 25
  s.add_node("two", 96000, 100000, 2, 0);
  s.add_node("four", 96000, 100000, 4, 0);
  use_gpus(s, 1, {700, 0});  // free 300, 1000
  use_gpus(s, 2, {400});     // free 600, 1000, 1000, 1000
  auto policy = make("gpu-packing");
  // 0.25 GPU: node "two" uses its 300-free GPU (100 - 30/10 = 97), "four" its 600-free GPU (94).
  auto where = place(*policy, s, pod(1000, 1, 250));
  EXPECT_EQ(where.node, 1);
  EXPECT_EQ(where.gpus, std::vector<int>{0});
  // Two whole GPUs: "two" cannot, "four" uses two free GPUs of a used node (50 - 2 = 48) over idle8 (25).
  where = place(*policy, s, pod(1000, 2, 1000));
  EXPECT_EQ(where.node, 2);
  EXPECT_EQ(where.gpus, (std::vector<int>{1, 2}));
  // On an idle cluster the smaller idle node wins (33 - 2 = 31 over 25).
  ClusterState idle;
  idle.add_node("idle8", 96000, 100000, 8, 0);
  idle.add_node("idle2", 96000, 100000, 2, 0);
  EXPECT_EQ(place(*policy, idle, pod(1000, 1, 500)).node, 1);
}

TEST(PackingPolicies, GpuClusteringKeepsRequestKindsTogether) {
  ClusterState s;
  for (int n = 0; n < 3; ++n) s.add_node("n" + std::to_string(n), 96000, 100000, 8, 0);
  auto policy = make("gpu-clustering");
  // Node 1 hosts a shared-GPU pod, node 2 a one-GPU pod; node 0 is idle.
  const Placement shared{1, {0}};
  apply(s, pod(1000, 1, 500), shared);
  policy->placed(s, pod(1000, 1, 500), shared);
  const Placement whole{2, {0}};
  apply(s, pod(1000, 1, 1000), whole);
  policy->placed(s, pod(1000, 1, 1000), whole);
  // Another shared-GPU pod (a different share is the same kind): node 1 hosts only this kind:
  // 25 * 500 / 8000 + 75 = 76; idle node 0: 25; node 2 (other kind): 25 * 1000 / 8000 = 3.
  auto where = place(*policy, s, pod(1000, 1, 300));
  EXPECT_EQ(where.node, 1);
  EXPECT_EQ(where.gpus, std::vector<int>{0});  // best fit: the GPU with 500 free
  // A two-GPU pod is a new kind: the idle node (25) beats both used ones (1 and 3).
  EXPECT_EQ(place(*policy, s, pod(1000, 2, 1000)).node, 0);
}

TEST(PackingPolicies, FgdAvoidsTheNodeAndGpuThatFragmentMost) {
  FragDistribution dist;
  dist.classes = {{0, 500, 1, 0, 1}};  // the target workload: half-GPU pods
  dist.total_weight = 1;
  dist.prepare();
  ClusterState s;
  s.add_node("fresh", 96000, 100000, 1, 0);
  s.add_node("used", 96000, 100000, 1, 0);
  use_gpus(s, 1, {300});  // free 700
  auto policy = make("fgd", &dist);
  // 0.3 GPU: on "fresh" 700 stay free (no fragment, sigmoid(0) = 50); on "used" 400 stay free, too
  // little for a half-GPU pod: +400 milli of fragment, sigmoid(-0.4) = 0.401 -> 40.
  EXPECT_EQ(place(*policy, s, pod(1000, 1, 300)).node, 0);

  ClusterState two;
  two.add_node("n", 96000, 100000, 2, 0);
  use_gpus(two, 0, {300, 0});  // free 700, 1000
  // GPU 0 would leave 400 (fragment, score 40), GPU 1 leaves 700 (score 50): FGD takes GPU 1 where
  // best fit would take GPU 0.
  auto where = place(*policy, two, pod(1000, 1, 300));
  EXPECT_EQ(where.gpus, std::vector<int>{1});
  EXPECT_EQ(default_gpu_choice(two, 0, pod(1000, 1, 300)), std::vector<int>{0});
}

TEST(PackingPolicies, FgdCacheFollowsNodeChanges) {
  FragDistribution dist;
  dist.classes = {{0, 500, 1, 0, 1}};
  dist.total_weight = 1;
  dist.prepare();
  ClusterState s;
  s.add_node("a", 96000, 100000, 1, 0);
  s.add_node("b", 96000, 100000, 1, 0);
  auto policy = make("fgd", &dist);
  const auto request = pod(1000, 1, 300);
  EXPECT_EQ(place(*policy, s, request).node, 0);  // tie (50, 50): the first node
  // After node 0 changes, its cached score must be recomputed: 0.3 more would leave 400 there (40).
  apply(s, request, Placement{0, {0}});
  policy->placed(s, request, Placement{0, {0}});
  EXPECT_EQ(place(*policy, s, request).node, 1);
}

TEST(PackingPolicies, TiesFollowTheTieBreakRule) {
  ClusterState s;
  for (int n = 0; n < 4; ++n) s.add_node("n" + std::to_string(n), 96000, 100000, 8, 0);
  for (const auto& name : {"best-fit", "dot-product", "gpu-packing", "gpu-clustering"}) {
    auto first = make(name, nullptr, TieBreak::FIRST);
    auto random = make(name, nullptr, TieBreak::RANDOM);
    std::set<int> chosen;
    RngStream rng(7);
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(first->place(s, pod(1000, 1, 500), rng)->node, 0) << name;
      chosen.insert(random->place(s, pod(1000, 1, 500), rng)->node);
    }
    EXPECT_EQ(chosen.size(), 4u) << name << ": random ties should reach every equal node";
  }
}

TEST(PackingPolicies, RandomFitOnlyPicksFeasibleNodesAndReachesThemAll) {
  ClusterState s;
  s.add_node("a", 8000, 100000, 2, 0);
  s.add_node("too-small", 500, 100000, 2, 0);  // not enough CPU
  s.add_node("c", 8000, 100000, 2, 0);
  use_gpus(s, 2, {800, 0});
  auto policy = make("random-fit");
  std::set<std::pair<int, int>> chosen;
  RngStream rng(3);
  for (int i = 0; i < 200; ++i) {
    const auto where = policy->place(s, pod(1000, 1, 200), rng);
    ASSERT_TRUE(where.has_value());
    ASSERT_EQ(where->gpus.size(), 1u);
    chosen.insert({where->node, where->gpus[0]});
  }
  // Every fitting (node, GPU) pair is reached, never the node without CPU.
  EXPECT_EQ(chosen, (std::set<std::pair<int, int>>{{0, 0}, {0, 1}, {2, 0}, {2, 1}}));
  EXPECT_FALSE(policy->place(s, pod(9000, 0, 0), rng).has_value());
}
