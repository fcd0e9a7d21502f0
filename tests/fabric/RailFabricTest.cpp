// Rail-optimised fabric (docs/models/fabric.md): NIC i of every node on rail i's leaf switch. A
// rail-aligned multi-node all-reduce never climbs to a spine, and two tenants on different rails do not
// slow each other down; on a fat tree with oversubscribed leaf uplinks the same two jobs do.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "EngineRun.hpp"
#include "Topology.hpp"

namespace gtw {
namespace {

using test::run_file;

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

// Links crossed by a tenant's GPU-to-GPU transfers between nodes.
std::vector<std::string> transfer_links(const test::Outcome& o, const std::string& tenant) {
  std::vector<std::string> links;
  const int t = o.prepared.spec.tenant_index(tenant);
  for (const auto& m : o.run.data_movements)
    if (m.tenant == t && m.operation == "transfer") links.insert(links.end(), m.links.begin(), m.links.end());
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return links;
}

bool any_contains(const std::vector<std::string>& links, const std::string& part) {
  return std::any_of(links.begin(), links.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

TEST(Topology, RailOptimizedFabricCablesNicIToRailLeafI) {
  Diagnostics diags;
  auto p = prepare_scenario(std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/fabric-rail.yaml",
                            {{"spec.cluster.nodePools[0].count", "4"}, {"spec.cluster.fabric.spines", "2"}}, diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  fabric::Topology topo;
  ASSERT_TRUE(fabric::build_topology(p.spec, p.profiles, topo, diags)) << diags.format_all();
  const auto& f = topo.fabric;
  ASSERT_TRUE(f.rails);
  ASSERT_EQ(f.rail_leaf.size(), 2u);  // 4 nodes, 2 per rail group
  ASSERT_EQ(f.rail_leaf[0].size(), 2u);
  const auto names = [&](const fabric::Path& path) {
    std::string out;
    for (const auto& h : path) out += (out.empty() ? "" : " ") + f.link(h.link).name;
    return out;
  };
  // Same group, same rail: through the rail leaf only.
  EXPECT_EQ(names(f.path(f.rail_port[0][1], f.rail_port[1][1], 1)), "n-0-rail1 n-1-rail1");
  // Other group: up to a spine (destination mod 2) and down to the same rail's leaf there.
  EXPECT_EQ(names(f.path(f.rail_port[0][1], f.rail_port[2][1], 2)),
            "n-0-rail1 g0-rail1-spine0 g1-rail1-spine0 n-2-rail1");
  // Leaf uplinks: 2 nodes x 50 GB/s / oversubscription 4 / 2 spines.
  EXPECT_NEAR(f.link(f.path(f.rail_port[0][1], f.rail_port[2][1], 2)[1].link).up, 12.5e9, 1);
}

TEST(RailFabric, RingAllReduceStaysOnTheRailLeavesAndTenantsOnOtherRailsDoNotContend) {
  const auto o = run_file("tests/fixtures/scenarios/fabric-rail.yaml");
  const auto a = steps(o, "ring-a");
  const double b_start = job_start(o, "ring-b");
  ASSERT_EQ(a.size(), 30u);
  ASSERT_GT(b_start, 0);
  ASSERT_LT(b_start, a.back().first - a.back().second);  // b runs while a still does
  const auto la = transfer_links(o, "a"), lb = transfer_links(o, "b");
  ASSERT_FALSE(la.empty());
  ASSERT_FALSE(lb.empty());
  EXPECT_FALSE(any_contains(la, "spine")) << ::testing::PrintToString(la);
  EXPECT_FALSE(any_contains(lb, "spine")) << ::testing::PrintToString(lb);
  EXPECT_TRUE(any_contains(la, "n-0-rail0")) << ::testing::PrintToString(la);
  EXPECT_FALSE(any_contains(la, "rail1")) << ::testing::PrintToString(la);
  EXPECT_TRUE(any_contains(lb, "n-0-rail1")) << ::testing::PrintToString(lb);
  // Disjoint rails: every one of a's steps keeps its time alone.
  const double alone = a.front().second;
  for (const auto& [end, dt] : a) EXPECT_NEAR(dt, alone, 1e-6 * alone) << "step ending at " << end;
  std::printf("rail fabric: every step %.3f s, b started at %.1f s\n", alone, b_start);
}

TEST(RailFabric, FatTreeWithOversubscriptionMakesTheSameJobsContend) {
  const auto o = run_file("tests/fixtures/scenarios/fabric-rail.yaml",
                          {{"spec.cluster.fabric.kind", "fatTree"}, {"spec.cluster.fabric.nodesPerLeaf", "1"}});
  const auto a = steps(o, "ring-a");
  const double b_start = job_start(o, "ring-b");
  ASSERT_EQ(a.size(), 30u);
  ASSERT_GT(b_start, 0);
  const double alone = a.front().second;
  double worst_shared = 0;
  for (const auto& [end, dt] : a)
    if (end - dt > b_start) worst_shared = std::max(worst_shared, dt);
  // Both jobs cross n-0's leaf uplink (100 GB/s / 4): each gets half of it while both run.
  EXPECT_GT(worst_shared, 1.5 * alone) << "alone " << alone << " s, shared " << worst_shared << " s";
  EXPECT_TRUE(any_contains(transfer_links(o, "a"), "spine"));
  std::printf("fat tree: step alone %.3f s, shared %.3f s (%.2fx)\n", alone, worst_shared, worst_shared / alone);
}

}  // namespace
}  // namespace gtw
