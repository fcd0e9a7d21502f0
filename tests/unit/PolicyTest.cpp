// Placement policies: conformance of every registered policy plus the behaviour of each.
#include <gtest/gtest.h>

#include "policies/api/CheckParams.hpp"
#include "policies/api/Placement.hpp"

namespace gtw::policy {
namespace {

ClusterView cluster(int nodes, int gpus_per_node, SharingMode mode, int slots) {
  ClusterView v;
  for (int n = 0; n < nodes; ++n)
    for (int g = 0; g < gpus_per_node; ++g) {
      GpuView gv;
      gv.index = n * gpus_per_node + g;
      gv.node = n;
      gv.local = g;
      gv.pool_name = "pool";
      gv.mode = mode;
      gv.slots = slots;
      gv.memory_total = 80e9;
      v.gpus.push_back(gv);
    }
  return v;
}

void take(ClusterView& v, const std::vector<int>& gpus, double memory = 0) {
  for (int g : gpus) {
    v.gpus[static_cast<size_t>(g)].used_slots++;
    v.gpus[static_cast<size_t>(g)].memory_committed += memory;
  }
}

PlacementRequest request(int gpus, double memory = 10e9) {
  PlacementRequest r;
  r.gpus = gpus;
  r.memory = memory;
  return r;
}

TEST(Placement, EveryRegisteredPolicyPlacesValidlyAndRefusesWhenFull) {
  const auto& reg = builtin_placement_registry();
  ASSERT_GE(reg.names().size(), 3u);
  for (const auto& name : reg.names()) {
    auto policy = reg.create(name, {});
    auto view = cluster(2, 4, SharingMode::EXCLUSIVE, 1);
    int placed = 0;
    for (;;) {
      auto chosen = policy->place(request(2), view);
      if (!chosen) break;
      ASSERT_EQ(chosen->size(), 2u) << name;
      const int node = view.gpus[static_cast<size_t>((*chosen)[0])].node;
      for (int g : *chosen) {
        EXPECT_TRUE(eligible(view.gpus[static_cast<size_t>(g)], request(2))) << name;
        EXPECT_EQ(view.gpus[static_cast<size_t>(g)].node, node) << name << ": a job's GPUs are on one node";
      }
      take(view, *chosen);
      ++placed;
    }
    EXPECT_EQ(placed, 4) << name << " must use all 8 GPUs for four 2-GPU requests";
  }
}

TEST(Placement, FirstFitTakesTheLowestIndices) {
  auto p = builtin_placement_registry().create("first-fit", {});
  auto v = cluster(1, 4, SharingMode::TIME_SLICING, 2);
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{0});
  take(v, {0});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{0}) << "GPU 0 still has a free slot";
}

TEST(Placement, SpreadTakesTheEmptiestGpus) {
  auto p = builtin_placement_registry().create("spread", {});
  auto v = cluster(1, 4, SharingMode::TIME_SLICING, 2);
  take(v, {0});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{1});
  take(v, {1, 2, 3});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{0});
}

TEST(Placement, SpreadPutsReplicasOnDifferentPhysicalGpusBeforeSharingOneThroughMig) {
  auto p = builtin_placement_registry().create("spread", {});
  // Two physical GPUs of one node, each split into two MIG instances (devices 0, 1 on GPU 0; 2, 3 on GPU 1).
  auto v = cluster(1, 4, SharingMode::MIG, 1);
  for (auto& g : v.gpus) g.local = g.index / 2;
  take(v, {0});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{2}) << "GPU 1 is still empty";
  take(v, {2});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{1});
  // An unavailable device (a MIG instance being re-partitioned) is never chosen.
  v.gpus[1].available = false;
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{3});
}

TEST(Placement, BestFitFillsPartlyUsedGpusFirst) {
  auto p = builtin_placement_registry().create("best-fit", {});
  auto v = cluster(1, 4, SharingMode::TIME_SLICING, 4);
  take(v, {2});
  take(v, {2});
  take(v, {1});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{2});
  auto by_memory = builtin_placement_registry().create("best-fit", {{"metric", std::string("memory")}});
  auto m = cluster(1, 3, SharingMode::TIME_SLICING, 4);
  take(m, {0}, 10e9);
  take(m, {1}, 60e9);
  EXPECT_EQ(*by_memory->place(request(1, 10e9), m), std::vector<int>{1});
}

TEST(Placement, ConstraintsOnSharingModePoolAndMemoryAreHonoured) {
  auto p = builtin_placement_registry().create("first-fit", {});
  auto v = cluster(1, 4, SharingMode::EXCLUSIVE, 1);
  v.gpus[3].mode = SharingMode::TIME_SLICING;
  v.gpus[3].slots = 2;
  auto r = request(1);
  r.allowed_sharing = {SharingMode::TIME_SLICING};
  EXPECT_EQ(*p->place(r, v), std::vector<int>{3});
  r.allowed_sharing.clear();
  r.node_pool = "other";
  EXPECT_FALSE(p->place(r, v));
  // An exclusive GPU refuses a replica larger than its memory; a time-sliced one accepts it and
  // the allocation fails at run time.
  auto big = request(1, 100e9);
  EXPECT_EQ(*p->place(big, v), std::vector<int>{3});
}

TEST(PolicyParams, UnknownNamesParametersAndValuesAreLocatedErrors) {
  const auto list = builtin_placement_registry().list();
  Diagnostics d;
  PolicyRef ref{"bestfit", {}, SourceLoc{"s.yaml", 9, 13}, {}};
  check_policy_ref(ref, "spec.policies.placement", "placement", list, d);
  ASSERT_EQ(d.error_count(), 1u);
  EXPECT_NE(d.all()[0].format().find("s.yaml:9:13: error: spec.policies.placement.name: unknown placement policy "
                                     "'bestfit'"),
            std::string::npos);
  EXPECT_NE(d.all()[0].message.find("did you mean 'best-fit'"), std::string::npos);
  Diagnostics d2;
  PolicyRef bad{"best-fit", {{"metrc", 1.0}, {"metric", std::string("memroy")}}, {}, {}};
  check_policy_ref(bad, "p", "placement", list, d2);
  EXPECT_EQ(d2.error_count(), 2u) << d2.format_all();
  EXPECT_NE(d2.format_all().find("no parameter 'metrc'"), std::string::npos);
  EXPECT_NE(d2.format_all().find("did you mean 'memory'"), std::string::npos);
}

}  // namespace
}  // namespace gtw::policy
