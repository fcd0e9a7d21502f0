// CPU sockets and NUMA (docs/models/fabric.md, "CPU sockets"): a host-device copy from the far socket's
// memory crosses the inter-socket link (UPI / xGMI), is limited by it when it is the narrowest link on
// the path, and copies of several tenants from the far socket share it max-min. One engine per process.
#include <gtest/gtest.h>

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <memory>

#include "EngineRun.hpp"
#include "Platform.hpp"
#include "Setup.hpp"

namespace gtw {
namespace {

namespace sg4 = simgrid::s4u;
constexpr double GB = 1e9;

// One HGX H100 node's platform (fabric-hgx.yaml with overrides), a device host per GPU.
struct Node {
  PreparedScenario prepared;
  fabric::Topology topo;
  std::unique_ptr<sg4::Engine> engine;
  std::unique_ptr<fabric::Platform> platform;
  std::vector<sg4::Host*> gpus;

  explicit Node(const std::vector<Override>& overrides) {
    Diagnostics diags;
    prepared =
        prepare_scenario(std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/fabric-hgx.yaml", overrides, diags);
    EXPECT_FALSE(diags.has_errors()) << diags.format_all();
    EXPECT_TRUE(fabric::build_topology(prepared.spec, prepared.profiles, topo, diags)) << diags.format_all();
    int argc = 1;
    char arg0[] = "numa-test";
    char* argv[] = {arg0, nullptr};
    engine = std::make_unique<sg4::Engine>(&argc, argv);
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    auto* root = sg4::create_full_zone("cluster");
    platform = std::make_unique<fabric::Platform>(topo, prepared.spec, root);
    auto& parts = platform->begin_node(0);
    for (int g = 0; g < 8; ++g) {
      auto* host = parts.zone->create_host("hgx-0-gpu" + std::to_string(g), 1e12);
      platform->add_device(0, g, host, true);
      gpus.push_back(host);
    }
    platform->end_node(0);
    platform->finish();
    root->seal();
  }
  sg4::Host* socket(int s) const { return platform->node(0).sockets.at(static_cast<size_t>(s)); }

  // Per-transfer rates (bytes / end time) of transfers started together.
  std::vector<double> rates(const std::vector<std::pair<sg4::Host*, sg4::Host*>>& pairs, double bytes) {
    std::vector<double> out(pairs.size());
    sg4::Actor::create("copies", socket(0), [&] {
      std::vector<sg4::CommPtr> comms;
      for (const auto& [a, b] : pairs) comms.push_back(sg4::Comm::sendto_async(a, b, static_cast<uint64_t>(bytes)));
      for (size_t i = 0; i < comms.size(); ++i) {
        comms[i]->wait();
        out[i] = bytes / sg4::Engine::get_clock();
      }
    });
    engine->run();
    return out;
  }
};

bool has(const std::vector<std::string>& links, const std::string& name) {
  return std::find(links.begin(), links.end(), name) != links.end();
}

// GPU 0 hangs off socket 0. With a 20 GB/s inter-socket link (below the 35 GB/s host-to-device rate)
// the copy from socket 1's memory runs at the link's rate; the NUMA-local one keeps 35 GB/s.
TEST(Numa, FarSocketCopyIsLimitedByTheSocketLinkWhenItIsNarrowest) {
  Node n(std::vector<Override>{{"spec.cluster.nodePools[0].topology", "{template: hgx-h100, socketLink: 20GB/s}"}});
  ASSERT_EQ(n.topo.pools[0].sockets.size(), 2u);
  EXPECT_EQ(n.topo.pools[0].gpu_socket, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  const auto far_links = fabric::Platform::route_links(n.socket(1), n.gpus[0]);
  const auto near_links = fabric::Platform::route_links(n.socket(0), n.gpus[0]);
  EXPECT_TRUE(has(far_links, "hgx-0-upi_DOWN")) << ::testing::PrintToString(far_links);
  EXPECT_FALSE(has(near_links, "hgx-0-upi_DOWN")) << ::testing::PrintToString(near_links);
  // The NUMA-local host (`cpu`) reaches a socket-1 GPU without the link as well.
  EXPECT_FALSE(has(fabric::Platform::route_links(n.platform->node(0).cpu, n.gpus[5]), "hgx-0-upi_UP"));
  const auto r = n.rates({{n.socket(1), n.gpus[0]}}, 10 * GB);
  EXPECT_NEAR(r[0], 20 * GB, 0.001 * 20 * GB);
  std::printf("far-socket H2D with a 20 GB/s socket link: %.1f GB/s\n", r[0] / GB);
}

// Two far copies into GPUs on different PCIe switches (no shared uplink) share a 50 GB/s socket link:
// 25 GB/s each instead of 35.
TEST(Numa, TwoFarCopiesShareTheSocketLink) {
  Node n(std::vector<Override>{{"spec.cluster.nodePools[0].topology", "{template: hgx-h100, socketLink: 50GB/s}"}});
  const auto r = n.rates({{n.socket(1), n.gpus[0]}, {n.socket(1), n.gpus[2]}}, 10 * GB);
  EXPECT_NEAR(r[0], 25 * GB, 0.001 * 25 * GB);
  EXPECT_NEAR(r[1], 25 * GB, 0.001 * 25 * GB);
}

// With the template's 4 UPI 2.0 links (128 GB/s) one far copy is PCIe-bound, like a local one.
TEST(Numa, OneFarCopyIsPcieBoundWithTheTemplateLink) {
  Node n(std::vector<Override>{});
  EXPECT_NEAR(n.topo.pools[0].link(n.topo.pools[0].socket_link).up, 128 * GB, 1);
  const auto r = n.rates({{n.socket(1), n.gpus[0]}}, 10 * GB);
  EXPECT_NEAR(r[0], 35 * GB, 0.001 * 35 * GB);
}

// Read rates of a tenant's dataset loads (bytes / duration), from the data events.
std::vector<double> load_rates(const test::Outcome& o, const std::string& tenant) {
  std::vector<double> rates;
  const int t = o.prepared.spec.tenant_index(tenant);
  for (const auto& m : o.run.data_movements)
    if (m.tenant == t && m.operation == "read") rates.push_back(m.bytes / (m.end - m.start));
  return rates;
}

// Two tenants load their datasets from socket 1's memory into GPUs on socket 0 at the same time: the
// 20 GB/s inter-socket link is the narrowest link, and max-min gives each half of it.
TEST(Numa, TwoTenantsFarSocketLoadsShareTheSocketLink) {
  const auto o = test::run_file("tests/fixtures/scenarios/fabric-numa.yaml");
  const auto a = load_rates(o, "a"), b = load_rates(o, "b");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (double r : a) EXPECT_NEAR(r, 10 * GB, 0.01 * 10 * GB);
  for (double r : b) EXPECT_NEAR(r, 10 * GB, 0.01 * 10 * GB);
  for (const auto& m : o.run.data_movements) {
    EXPECT_EQ(m.from, "host:n-0:socket1");
    EXPECT_TRUE(has(m.links, "n-0-upi_DOWN")) << ::testing::PrintToString(m.links);
  }
}

// Tenant b's dataset moved to socket 0 (NUMA-local to its GPU): b loads at the PCIe rate without the
// link, and tenant a has the whole link.
TEST(Numa, NumaLocalLoadLeavesTheSocketLinkToTheOther) {
  const auto o = test::run_file("tests/fixtures/scenarios/fabric-numa.yaml", {{"spec.data[1].socket", "0"}});
  const auto a = load_rates(o, "a"), b = load_rates(o, "b");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (double r : a) EXPECT_NEAR(r, 20 * GB, 0.01 * 20 * GB);
  for (double r : b) EXPECT_NEAR(r, 35 * GB, 0.01 * 35 * GB);
  const int tb = o.prepared.spec.tenant_index("b");
  for (const auto& m : o.run.data_movements)
    if (m.tenant == tb) {
      EXPECT_FALSE(has(m.links, "n-0-upi_DOWN")) << ::testing::PrintToString(m.links);
    }
}

}  // namespace
}  // namespace gtw
