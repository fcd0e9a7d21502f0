// Placement policies: conformance of every registered policy plus the behaviour of each.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "CheckPolicyRef.hpp"
#include "Placement.hpp"

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

// The spread and tightest-fit rules as their documentation states them, written plainly (a map of nodes, a
// full stable sort per node): the oracle for the one-pass implementations the engine runs at 10,000 GPUs.
std::optional<std::vector<int>> reference_place(const std::string& policy, const PlacementRequest& request,
                                                const ClusterView& view) {
  std::map<std::pair<int, int>, int> physical;  // (node, local GPU) -> replicas on the physical GPU
  for (const auto& g : view.gpus) physical[{g.node, g.local}] += g.used_slots;
  std::map<int, std::vector<const GpuView*>> by_node;
  for (const auto& g : view.gpus)
    if (eligible(g, request)) by_node[g.node].push_back(&g);
  std::optional<std::vector<int>> best;
  double best_score = 0;
  for (auto& [node, gpus] : by_node) {
    if (static_cast<int>(gpus.size()) < request.gpus) continue;
    const auto score_of = [&](const GpuView* g) {
      return policy == "spread" ? static_cast<double>(g->used_slots)
                                : static_cast<double>(g->free_slots() - 1) / g->slots;
    };
    std::stable_sort(gpus.begin(), gpus.end(), [&](const GpuView* a, const GpuView* b) {
      if (score_of(a) != score_of(b)) return score_of(a) < score_of(b);
      return policy == "spread" && physical[{a->node, a->local}] < physical[{b->node, b->local}];
    });
    double score = 0;
    std::vector<int> chosen;
    for (int i = 0; i < request.gpus; ++i) {
      score += score_of(gpus[static_cast<size_t>(i)]);
      chosen.push_back(gpus[static_cast<size_t>(i)]->index);
    }
    if (!best || score < best_score) {
      best = chosen;
      best_score = score;
    }
  }
  return best;
}

TEST(Placement, SpreadAndTightestFitChooseAsTheirPlainDefinitionOnRandomClusters) {
  std::mt19937 rng(7);
  for (const std::string name : {"spread", "tightest-fit"}) {
    auto policy = builtin_placement_registry().create(name, {});
    for (int trial = 0; trial < 300; ++trial) {
      const int nodes = 1 + static_cast<int>(rng() % 5), per_node = 1 + static_cast<int>(rng() % 8);
      auto view = cluster(nodes, per_node, SharingMode::TIME_SLICING, 1 + static_cast<int>(rng() % 4));
      const bool mig_pairs = rng() % 2 == 0;  // two devices per physical GPU, as MIG instances
      const bool with_ids = rng() % 2 == 0;   // the engine's physical ids, or none (hand-built views)
      for (auto& g : view.gpus) {
        if (mig_pairs) g.local /= 2;
        g.physical = with_ids ? g.node * per_node + g.local : -1;
        g.used_slots = static_cast<int>(rng() % static_cast<unsigned>(g.slots + 1));
        g.available = rng() % 10 != 0;
      }
      if (rng() % 2 == 0) std::shuffle(view.gpus.begin(), view.gpus.end(), rng);  // any order of devices
      const auto req = request(1 + static_cast<int>(rng() % 3));
      EXPECT_EQ(policy->place(req, view), reference_place(name, req, view)) << name << ", trial " << trial;
    }
  }
}

TEST(Placement, BestFitFillsPartlyUsedGpusFirst) {
  auto p = builtin_placement_registry().create("tightest-fit", {});
  auto v = cluster(1, 4, SharingMode::TIME_SLICING, 4);
  take(v, {2});
  take(v, {2});
  take(v, {1});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{2});
  auto by_memory = builtin_placement_registry().create("tightest-fit", {{"metric", std::string("memory")}});
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

void take_for(ClusterView& v, const std::vector<int>& gpus, int tenant) {
  take(v, gpus);
  for (int g : gpus) v.gpus[static_cast<size_t>(g)].tenants.push_back(tenant);
}

PlacementRequest tenant_request(int tenant, int gpus = 1) {
  auto r = request(gpus);
  r.tenant = tenant;
  return r;
}

TEST(Placement, PackingFillsGpusInUseThenNodesInUseBeforeOpeningAnIdleNode) {
  auto p = builtin_placement_registry().create("packing", {});
  auto v = cluster(2, 2, SharingMode::TIME_SLICING, 2);
  take(v, {1});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{1}) << "GPU 1 is in use and has a free slot";
  take(v, {1});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{0}) << "an idle GPU on node 0, which is in use";
  take(v, {0, 0});
  EXPECT_EQ(*p->place(request(1), v), std::vector<int>{2}) << "node 0 is full: open node 1";
  // Spread does the opposite on the first step.
  auto fresh = cluster(2, 2, SharingMode::TIME_SLICING, 2);
  take(fresh, {1});
  EXPECT_EQ(*builtin_placement_registry().create("spread", {})->place(request(1), fresh), std::vector<int>{0});
}

TEST(Placement, FgdKeepsRoomForTheMultiGpuJobsOfTheDemandMix) {
  // Node 0 has 2 free GPUs, node 1 has 3. The demand is mostly 2-GPU jobs. A 1-GPU replica on node 0
  // would strand its last GPU; on node 1 it leaves 2, still a whole 2-GPU job. First-fit and tightest-fit
  // take node 0; FGD takes node 1.
  auto v = cluster(2, 4, SharingMode::EXCLUSIVE, 1);
  take(v, {0, 1, 4});
  v.demand = {{request(2), 0.8}, {request(1), 0.2}};
  auto fgd = builtin_placement_registry().create("fgd", {});
  const auto chosen = fgd->place(request(1), v);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(v.gpus[static_cast<size_t>((*chosen)[0])].node, 1);
  EXPECT_EQ(
      v.gpus[static_cast<size_t>((*builtin_placement_registry().create("tightest-fit", {})->place(request(1), v))[0])]
          .node,
      0);
  // A 2-GPU request fits either node exactly or leaves one free GPU: FGD takes node 0 (no stranding).
  EXPECT_EQ(v.gpus[static_cast<size_t>((*fgd->place(request(2), v))[0])].node, 0);
  // Both nodes keep one free GPU whatever the choice: equal gradients, the lowest node wins.
  take(v, {5});
  EXPECT_EQ(v.gpus[static_cast<size_t>((*fgd->place(request(1), v))[0])].node, 0);
}

TEST(Placement, TenantAntiAffinityNeverSharesAUnitWithAnotherTenant) {
  auto gpu_scope = builtin_placement_registry().create("tenant-anti-affinity", {});
  auto v = cluster(2, 2, SharingMode::TIME_SLICING, 4);
  take_for(v, {0}, 0);
  EXPECT_EQ(*gpu_scope->place(tenant_request(0), v), std::vector<int>{0}) << "its own GPU first";
  EXPECT_EQ(*gpu_scope->place(tenant_request(1), v), std::vector<int>{1}) << "never GPU 0, held by tenant 0";
  auto node_scope = builtin_placement_registry().create("tenant-anti-affinity", {{"scope", std::string("node")}});
  EXPECT_EQ(*node_scope->place(tenant_request(1), v), std::vector<int>{2}) << "never node 0";
  take_for(v, {2}, 2);
  EXPECT_FALSE(node_scope->place(tenant_request(1), v)) << "every node holds another tenant";
  // MIG: devices 0 and 1 are instances of one physical GPU.
  auto mig = cluster(1, 2, SharingMode::MIG, 1);
  for (auto& g : mig.gpus) {
    g.local = 0;
    g.mig_profile = "3g.40gb";
  }
  take_for(mig, {0}, 0);
  EXPECT_FALSE(gpu_scope->place(tenant_request(1), mig)) << "scope gpu: the physical GPU is shared";
  auto device_scope = builtin_placement_registry().create("tenant-anti-affinity", {{"scope", std::string("device")}});
  EXPECT_EQ(*device_scope->place(tenant_request(1), mig), std::vector<int>{1});
}

TEST(Placement, ClassificationAwareKeepsRegulatedTenantsApartButLetsLowerOnesShare) {
  auto p = builtin_placement_registry().create("classification-aware", {});
  auto v = cluster(1, 3, SharingMode::TIME_SLICING, 4);
  v.tenant_classification = {Classification::RESTRICTED, Classification::PUBLIC, Classification::INTERNAL,
                             Classification::RESTRICTED};
  take_for(v, {0}, 1);
  EXPECT_EQ(*p->place(tenant_request(2), v), std::vector<int>{0}) << "public and internal may share";
  EXPECT_EQ(*p->place(tenant_request(0), v), std::vector<int>{1}) << "restricted never joins public";
  take_for(v, {1}, 0);
  EXPECT_EQ(*p->place(tenant_request(3), v), std::vector<int>{1}) << "restricted joins restricted first";
  take_for(v, {2}, 2);
  auto strict =
      builtin_placement_registry().create("classification-aware", {{"minClassification", std::string("internal")}});
  EXPECT_EQ(*strict->place(tenant_request(2), v), std::vector<int>{2})
      << "from internal up, internal never joins public";
  // MIG instances of one GPU are separate units unless allowMig is off.
  auto mig = cluster(1, 2, SharingMode::MIG, 1);
  mig.tenant_classification = v.tenant_classification;
  for (auto& g : mig.gpus) {
    g.local = 0;
    g.mig_profile = "3g.40gb";
  }
  take_for(mig, {0}, 1);
  EXPECT_EQ(*p->place(tenant_request(0), mig), std::vector<int>{1});
  auto no_mig = builtin_placement_registry().create("classification-aware", {{"allowMig", false}});
  EXPECT_FALSE(no_mig->place(tenant_request(0), mig));
}

TEST(PolicyParams, UnknownNamesParametersAndValuesAreLocatedErrors) {
  const auto list = builtin_placement_registry().list();
  Diagnostics d;
  PolicyRef ref{"tightestfit", {}, SourceLoc{"s.yaml", 9, 13}, {}};
  check_policy_ref(ref, "spec.policies.placement", "placement", list, d);
  ASSERT_EQ(d.error_count(), 1u);
  EXPECT_NE(d.all()[0].format().find("s.yaml:9:13: error: spec.policies.placement.name: unknown placement policy "
                                     "'tightestfit'"),
            std::string::npos);
  EXPECT_NE(d.all()[0].message.find("did you mean 'tightest-fit'"), std::string::npos);
  Diagnostics d2;
  PolicyRef bad{"tightest-fit", {{"metrc", 1.0}, {"metric", std::string("memroy")}}, {}, {}};
  check_policy_ref(bad, "p", "placement", list, d2);
  EXPECT_EQ(d2.error_count(), 2u) << d2.format_all();
  EXPECT_NE(d2.format_all().find("no parameter 'metrc'"), std::string::npos);
  EXPECT_NE(d2.format_all().find("did you mean 'memory'"), std::string::npos);
  // The engine's former "best-fit" is named apart from the packing experiment's: the old name says so.
  Diagnostics d3;
  check_policy_ref(PolicyRef{"best-fit", {}, SourceLoc{"s.yaml", 4, 9}, {}}, "p", "placement", list, d3,
                   {{"best-fit", {"tightest-fit", "why"}}});
  EXPECT_NE(d3.format_all().find("placement policy 'best-fit' is now called 'tightest-fit' (why)"), std::string::npos)
      << d3.format_all();
}

}  // namespace
}  // namespace gtw::policy
