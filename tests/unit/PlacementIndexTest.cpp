// The device index (policies/placement/DeviceIndex.hpp) must not change a single decision: first-fit, spread,
// tightest-fit (by slots and by memory), packing, fgd, tenant-anti-affinity (each scope) and classification-aware
// (scopes, allowMig, thresholds; tenants of three classifications) on a view with the index choose what they choose by
// a pass over every device, for one- and multi-GPU requests, through random clusters (pools, sharing modes, MIG
// instances sharing a physical GPU, unavailable devices) and random sequences of placements, releases and availability
// changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "DeviceIndex.hpp"
#include "Placement.hpp"

namespace gtw {
namespace {

using policy::ClusterView;
using policy::GpuView;
using policy::PlacementRequest;

ClusterView random_cluster(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  ClusterView view;
  const int nodes = 1 + pick(12);
  int physical = 0;
  for (int n = 0, node = 0; n < nodes; ++n, node += 1 + (pick(4) == 0 ? 1 + pick(3) : 0)) {  // node ids with gaps
    const std::string pool = pick(2) == 0 ? "a" : "b";
    const int gpus = 1 + pick(8);
    for (int local = 0; local < gpus; ++local, ++physical) {
      const int kind = pick(4);  // exclusive, time-sliced, MPS, or MIG instances
      const int devices = kind == 3 ? 2 + pick(2) : 1;
      for (int d = 0; d < devices; ++d) {
        GpuView g;
        g.index = static_cast<int>(view.gpus.size());
        g.node = node;
        g.local = local;
        g.pool_name = pool;
        g.physical = physical;
        g.mode = kind == 1 ? SharingMode::TIME_SLICING : kind == 2 ? SharingMode::MPS : SharingMode::EXCLUSIVE;
        g.slots = kind == 1 || kind == 2 ? 2 + pick(3) : 1;
        g.memory_total = pick(2) == 0 ? 40e9 : 80e9;
        if (kind == 3) {
          g.mig_profile = d == 0 ? "3g.40gb" : "1g.10gb";
          g.memory_total = d == 0 ? 40e9 : 10e9;
          g.resource = "nvidia.com/mig-" + g.mig_profile;
        } else {
          g.resource = "nvidia.com/gpu";
        }
        g.available = pick(10) != 0;
        g.used_slots = pick(g.slots + 1);
        view.gpus.push_back(g);
      }
    }
  }
  return view;
}

PlacementRequest random_request(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  PlacementRequest r;
  r.gpus = pick(3) == 0 ? 2 + pick(3) : 1;
  r.tenant = pick(3);
  // Intervals between device sizes (10, 40, 80 GB) share rankings; the sizes themselves are their upper bounds.
  const double memories[] = {0, 5e9, 10e9, 20e9, 30e9, 40e9, 60e9, 70e9, 80e9, 100e9};
  r.memory = memories[pick(10)];
  const char* pools[] = {"", "", "a", "b"};
  r.node_pool = pools[pick(4)];
  if (pick(3) == 0)
    r.allowed_sharing = {pick(2) == 0 ? SharingMode::TIME_SLICING : SharingMode::EXCLUSIVE, SharingMode::MPS};
  if (pick(4) == 0) r.mig_profile = pick(2) == 0 ? "3g.40gb" : "1g.10gb";
  if (pick(6) == 0) r.resource = "nvidia.com/gpu";
  return r;
}

TEST(PlacementIndex, DecisionsEqualTheFullPassThroughRandomChanges) {
  const auto& registry = policy::builtin_placement_registry();
  std::vector<std::unique_ptr<policy::PlacementPolicy>> policies;
  for (const char* name : {"first-fit", "spread", "tightest-fit"}) policies.push_back(registry.create(name, {}));
  policies.push_back(registry.create("tightest-fit", {{"metric", std::string("memory")}}));
  for (const char* name : {"packing", "fgd"}) policies.push_back(registry.create(name, {}));
  for (const char* scope : {"device", "gpu", "node"})
    policies.push_back(registry.create("tenant-anti-affinity", {{"scope", std::string(scope)}}));
  policies.push_back(registry.create("classification-aware", {{"scope", std::string("gpu")}}));
  policies.push_back(registry.create(
      "classification-aware",
      {{"scope", std::string("gpu")}, {"allowMig", false}, {"minClassification", std::string("internal")}}));
  policies.push_back(registry.create("classification-aware", {{"scope", std::string("node")}}));
  const size_t policy_count = policies.size();
  std::mt19937 rng(2026);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  int placed = 0, compared = 0;
  size_t max_rankings = 0;  // the request shapes exceed the cap, so the least recently used rankings go
  for (int cluster = 0; cluster < 60; ++cluster) {
    ClusterView indexed = random_cluster(rng);
    // Tenants 0-2 of three classifications, and the replicas already placed, by tenant.
    indexed.tenant_classification = {Classification::PUBLIC, Classification::CONFIDENTIAL, Classification::RESTRICTED};
    if (cluster % 3 == 2) indexed.tenant_classification[0] = Classification::RESTRICTED;
    for (auto& g : indexed.gpus)
      for (int k = 0; k < g.used_slots; ++k) g.tenants.push_back(pick(3));
    if (cluster % 2 == 1)  // fgd's expected demand: a few request shapes (else fgd takes the request's own)
      for (int c = 0; c < 3; ++c) indexed.demand.push_back({random_request(rng), 1.0 / 3});
    ASSERT_TRUE(indexed.build_index());
    ClusterView full = indexed;  // a copy carries no index: every decision is the pass over all devices
    ASSERT_EQ(full.index(), nullptr);
    for (int step = 0; step < 400; ++step) {
      const PlacementRequest request = random_request(rng);
      std::optional<std::vector<int>> chosen;
      for (auto& p : policies) {
        const auto a = p->place(request, indexed);
        const auto b = p->place(request, full);
        ASSERT_EQ(a, b) << "cluster " << cluster << " step " << step;
        ++compared;
        if (a && !chosen) chosen = a;
      }
      // Change the cluster as the engine does: a placement, a release, or a device going or coming back.
      const int what = pick(4);
      size_t g = static_cast<size_t>(pick(static_cast<int>(indexed.gpus.size())));
      if (what <= 1 && chosen) {
        ++placed;
        for (int d : *chosen) {
          for (ClusterView* v : {&indexed, &full}) {
            v->gpus[static_cast<size_t>(d)].used_slots += 1;
            v->gpus[static_cast<size_t>(d)].memory_committed += request.memory;
            v->gpus[static_cast<size_t>(d)].tenants.push_back(request.tenant);
          }
          indexed.changed(static_cast<size_t>(d));
        }
        continue;
      } else if (what == 2) {
        for (ClusterView* v : {&indexed, &full}) {
          v->gpus[g].used_slots = std::max(0, v->gpus[g].used_slots - 1);
          v->gpus[g].memory_committed = std::max(0.0, v->gpus[g].memory_committed - 20e9);
          if (!v->gpus[g].tenants.empty()) v->gpus[g].tenants.erase(v->gpus[g].tenants.begin());
        }
      } else if (pick(20) == 0) {  // a device size never seen: the rankings keyed by memory start again
        const double size = pick(2) == 0 ? 48e9 + step : 40e9;
        for (ClusterView* v : {&indexed, &full}) v->gpus[g].memory_total = size;
      } else {
        for (ClusterView* v : {&indexed, &full}) v->gpus[g].available = !v->gpus[g].available;
      }
      indexed.changed(g);
      full.changed(g);  // no index: nothing to do
      ASSERT_LE(indexed.index()->rankings(), policy::DeviceIndex::MAX_RANKINGS);
      max_rankings = std::max(max_rankings, indexed.index()->rankings());
    }
  }
  EXPECT_GT(placed, 3000);
  EXPECT_EQ(max_rankings, policy::DeviceIndex::MAX_RANKINGS);
  EXPECT_EQ(compared, 60 * 400 * static_cast<int>(policy_count));
}

TEST(PlacementIndex, AMovedViewKeepsItsIndexAndACopyHasNone) {
  std::mt19937 rng(7);
  ClusterView view = random_cluster(rng);
  ASSERT_TRUE(view.build_index());
  const ClusterView copy = view;
  EXPECT_EQ(copy.index(), nullptr);
  ClusterView moved = std::move(view);
  EXPECT_NE(moved.index(), nullptr);
}

TEST(PlacementIndex, NoIndexWhenDevicesAreNotListedNodeByNode) {
  ClusterView view;
  for (int node : {1, 0}) {
    GpuView g;
    g.index = static_cast<int>(view.gpus.size());
    g.node = node;
    g.physical = g.index;
    view.gpus.push_back(g);
  }
  EXPECT_FALSE(view.build_index());
  EXPECT_EQ(view.index(), nullptr);
  // Without physical ids, or with a physical GPU in two nodes, its load could not be counted on one node.
  view.gpus[0].node = 0;
  view.gpus[1].node = 1;
  view.gpus[1].physical = -1;
  EXPECT_FALSE(view.build_index());
  view.gpus[0].node = 0;
  view.gpus[1].node = 1;
  view.gpus[1].physical = 0;
  EXPECT_FALSE(view.build_index());
  view.gpus[1].physical = 1;
  EXPECT_TRUE(view.build_index());
}

}  // namespace
}  // namespace gtw
