// Topology graphs (no SimGrid): node templates, nvidia-smi import, connectivity checks, routes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "models/fabric/NvidiaSmi.hpp"
#include "models/fabric/Topology.hpp"
#include "sim/engine/Setup.hpp"

namespace gtw {
namespace {

std::string read(const std::string& relative) {
  std::ifstream in(std::string(GTW_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

PreparedScenario prepare(const std::string& relative, const std::vector<Override>& overrides, Diagnostics& diags) {
  return prepare_scenario(std::string(GTW_SOURCE_DIR) + "/" + relative, overrides, diags);
}

std::string link_names(const fabric::NodeGraph& n, const fabric::Path& p) {
  std::string out;
  for (const auto& h : p) out += (out.empty() ? "" : " ") + n.link(h.link).name + (h.up ? "^" : "v");
  return out;
}

TEST(NvidiaSmi, ParsesTopoMatrixOfAnHgxH100) {
  Diagnostics diags;
  const auto topo = fabric::parse_topo(read("tests/fixtures/nvidia-smi/hgx-h100-topo-m.txt"), "hgx", diags);
  ASSERT_TRUE(topo) << diags.format_all();
  ASSERT_EQ(topo->devices.size(), 16u);
  EXPECT_EQ(topo->devices[8], "NIC0");
  EXPECT_EQ(topo->nvlinks(0, 7), 18);
  EXPECT_EQ(topo->matrix[0][8], "PIX");
  EXPECT_EQ(topo->matrix[0][9], "PXB");
  EXPECT_EQ(topo->matrix[0][12], "SYS");
  EXPECT_EQ(topo->cpu_affinity[4], "56-111,168-223");
  EXPECT_EQ(topo->numa_affinity[4], "1");
}

TEST(NvidiaSmi, ImportedHgxH100IsAnNvswitchNodeWithFourPcieSwitches) {
  Diagnostics diags;
  const auto topo = fabric::parse_topo(read("tests/fixtures/nvidia-smi/hgx-h100-topo-m.txt"), "hgx", diags);
  ASSERT_TRUE(topo);
  HardwareProfile profile;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "gpu", profile, diags)) << diags.format_all();
  fabric::NodeGraph n;
  fabric::node_graph_from_topo(*topo, profile, NodeTopologySpec{}, n);
  EXPECT_EQ(n.gpus.size(), 8u);
  EXPECT_EQ(n.nics.size(), 8u);
  EXPECT_GE(n.nvswitch, 0);
  int switches = 0;
  for (auto [v, end] = boost::vertices(n.g); v != end; ++v) switches += n.g[*v].kind == fabric::VertexKind::PCIE_SWITCH;
  EXPECT_EQ(switches, 4);
  // NV18 at 25 GB/s per link, scaled to the measured 380/450: 380 GB/s per direction.
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.gpus[5])), "gpu0-nvlink^ gpu5-nvlinkv");
  EXPECT_NEAR(n.link(n.path(n.gpus[0], n.gpus[5])[0].link).up, 380e9, 1e6);
  // Each GPU uses the NIC on its own PCIe switch.
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(n.gpu_nic[i], static_cast<int>(i));
}

TEST(NvidiaSmi, ImportedPcieServerHasNoNvlinkAndTwoSwitches) {
  Diagnostics diags;
  const auto topo = fabric::parse_topo(read("tests/fixtures/nvidia-smi/pcie-l40s-topo-m.txt"), "pcie", diags);
  ASSERT_TRUE(topo) << diags.format_all();
  HardwareProfile profile;
  ASSERT_TRUE(load_profile("A100-40GB", SourceLoc{}, "gpu", profile, diags));
  fabric::NodeGraph n;
  fabric::node_graph_from_topo(*topo, profile, NodeTopologySpec{}, n);
  EXPECT_EQ(n.nvswitch, -1);
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.gpus[1])), "gpu0-pciev gpu1-pcie^");
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.gpus[2])), "gpu0-pciev pcie0-uplinkv pcie1-uplink^ gpu2-pcie^");
}

TEST(NvidiaSmi, ReportsBadEntriesWithFileLineColumn) {
  std::string text = read("tests/fixtures/nvidia-smi/pcie-l40s-topo-m.txt");
  text.replace(text.find("PIX"), 3, "PIY");
  Diagnostics diags;
  EXPECT_FALSE(fabric::parse_topo(text, "bad.txt", diags));
  EXPECT_NE(diags.format_all().find("bad.txt:2:"), std::string::npos) << diags.format_all();
  EXPECT_NE(diags.format_all().find("unknown connection 'PIY'"), std::string::npos);
  Diagnostics d2;
  EXPECT_FALSE(fabric::parse_topo("hello\n", "x.txt", d2));
  EXPECT_NE(d2.format_all().find("not an `nvidia-smi topo -m` output"), std::string::npos);
}

TEST(NvidiaSmi, ParsesMigGpuAndComputeInstances) {
  Diagnostics diags;
  const auto gis = fabric::parse_mig_lgi(read("tests/fixtures/nvidia-smi/mig-lgi.txt"), "lgi", diags);
  ASSERT_TRUE(gis) << diags.format_all();
  EXPECT_EQ(gis->size(), 8u);
  EXPECT_EQ(fabric::mig_layout_of_gpu(*gis, 0), (std::vector<std::string>{"2g.20gb", "1g.10gb", "1g.10gb", "3g.40gb"}));
  const auto cis = fabric::parse_mig_lci(read("tests/fixtures/nvidia-smi/mig-lci.txt"), "lci", diags);
  ASSERT_TRUE(cis) << diags.format_all();
  ASSERT_EQ(cis->size(), 4u);
  EXPECT_EQ((*cis)[0].gpu_instance, 2);
  EXPECT_EQ((*cis)[0].profile, "3g.40gb");
  EXPECT_EQ((*cis)[0].size, 3);
  Diagnostics d2;
  EXPECT_FALSE(fabric::parse_mig_lgi(read("tests/fixtures/nvidia-smi/mig-lci.txt"), "lci", d2));
}

TEST(Topology, ScenarioImportsNodeAndMigLayoutFromNvidiaSmi) {
  Diagnostics diags;
  auto p = prepare("tests/fixtures/scenarios/fabric-import.yaml", {}, diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  EXPECT_EQ(p.spec.node_pools[0].sharing.mig_layout,
            (std::vector<std::string>{"2g.20gb", "1g.10gb", "1g.10gb", "3g.40gb"}));
  fabric::Topology topo;
  ASSERT_TRUE(fabric::build_topology(p.spec, p.profiles, topo, diags));
  EXPECT_EQ(topo.pools[0].template_name, "nvidia-smi");
}

// The default (flat) node is the platform of earlier releases: host -> GPU over the GPU's PCIe link,
// GPU -> GPU over the two NVLinks through the NVSwitch, and through host memory without NVLink (MIG).
TEST(Topology, FlatTemplateKeepsTheEarlierRoutes) {
  Diagnostics diags;
  auto p = prepare("scenarios/examples/default.yaml", {}, diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  fabric::Topology topo;
  ASSERT_TRUE(fabric::build_topology(p.spec, p.profiles, topo, diags));
  const auto& n = topo.pools[0];
  EXPECT_EQ(n.template_name, "flat");
  EXPECT_EQ(link_names(n, n.path(n.cpu, n.gpus[3])), "gpu3-pcie^");
  EXPECT_EQ(link_names(n, n.path(n.gpus[3], n.cpu)), "gpu3-pciev");
  EXPECT_EQ(link_names(n, n.path(n.gpus[1], n.gpus[6])), "gpu1-nvlink^ gpu6-nvlinkv");
  EXPECT_EQ(link_names(n, n.path(n.gpus[1], n.gpus[6], false)), "gpu1-pciev gpu6-pcie^");
  EXPECT_FALSE(topo.inter_node);
  EXPECT_FALSE(topo.storage);
}

TEST(Topology, UnknownTemplateIsReportedWithLocation) {
  Diagnostics diags;
  prepare("tests/fixtures/scenarios/fabric-hgx.yaml", {{"spec.cluster.nodePools[0].topology", "hgx-h10"}}, diags);
  EXPECT_NE(diags.format_all().find("unknown node template 'hgx-h10'"), std::string::npos) << diags.format_all();
  EXPECT_NE(diags.format_all().find("did you mean 'hgx-h100'"), std::string::npos) << diags.format_all();
}

TEST(Topology, NodeWithoutNicCannotReachStorage) {
  Diagnostics diags;
  prepare("tests/fixtures/scenarios/fabric-checkpoint.yaml",
          {{"spec.cluster.nodePools[0].topology", "{template: pcie-l40s, nics: 0}"}}, diags);
  EXPECT_NE(diags.format_all().find("has no NIC"), std::string::npos) << diags.format_all();
}

TEST(Topology, FatTreeRoutesPickTheSpineByDestination) {
  Diagnostics diags;
  auto p = prepare("tests/fixtures/scenarios/fabric-allreduce.yaml", {{"spec.cluster.fabric.spines", "2"}}, diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  fabric::Topology topo;
  ASSERT_TRUE(fabric::build_topology(p.spec, p.profiles, topo, diags));
  const auto& f = topo.fabric;
  const auto names = [&](const fabric::Path& path) {
    std::string out;
    for (const auto& h : path) out += (out.empty() ? "" : " ") + f.link(h.link).name;
    return out;
  };
  // Same leaf: no spine. Other leaf: spine (destination mod 2).
  EXPECT_EQ(names(f.path(f.node_port[0], f.node_port[1], 1)), "n-0-uplink n-1-uplink");
  EXPECT_EQ(names(f.path(f.node_port[0], f.node_port[2], 2)), "n-0-uplink leaf0-spine0 leaf1-spine0 n-2-uplink");
  EXPECT_EQ(names(f.path(f.node_port[0], f.node_port[3], 3)), "n-0-uplink leaf0-spine1 leaf1-spine1 n-3-uplink");
  // Oversubscription 4, 2 spines: each leaf uplink carries 2 nodes x 100 GB/s / 4 / 2.
  EXPECT_NEAR(f.link(f.path(f.node_port[0], f.node_port[2], 2)[1].link).up, 25e9, 1);
}

TEST(Topology, DataReferencesAreChecked) {
  Diagnostics diags;
  prepare("tests/fixtures/scenarios/fabric-checkpoint.yaml", {{"spec.data[0].store", "lustr"}}, diags);
  EXPECT_NE(diags.format_all().find("unknown store 'lustr'"), std::string::npos) << diags.format_all();
  Diagnostics d2;
  prepare("tests/fixtures/scenarios/fabric-checkpoint.yaml", {{"spec.workloads[0].io.checkpoint.data", "ckpt-b"}}, d2);
  EXPECT_NE(d2.format_all().find("only to its own tenant's data items"), std::string::npos) << d2.format_all();
}

}  // namespace
}  // namespace gtw
