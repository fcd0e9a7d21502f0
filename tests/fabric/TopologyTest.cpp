// Topology graphs (no SimGrid): node templates, nvidia-smi import, connectivity checks, routes.
#include <gtest/gtest.h>

#include <memory>

#include "FabricTestSupport.hpp"
#include "HardwareProfile.hpp"
#include "NvidiaSmi.hpp"
#include "Setup.hpp"
#include "Topology.hpp"

namespace gtw {
namespace {

using fabric_test::link_names;
using fabric_test::read;

PreparedScenario prepare(const std::string& relative, const std::vector<Override>& overrides, Diagnostics& diags) {
  return prepare_scenario(std::string(GTW_SOURCE_DIR) + "/" + relative, overrides, diags);
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
  EXPECT_EQ(fabric_test::pcie_switches(n), 4);
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
  // GPU0 and GPU2 are SYS apart: on two sockets, joined by the inter-socket link.
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.gpus[2])),
            "gpu0-pciev pcie0-uplinkv socket-link^ pcie1-uplink^ gpu2-pcie^");
}

// SYS means across sockets: the imported HGX H100 has two sockets (NUMA 0 and 1), GPUs 0-3 and their
// NICs on socket 0, GPUs 4-7 on socket 1; NODE stays on one socket.
TEST(NvidiaSmi, SysSplitsTheImportedNodeIntoTwoSockets) {
  Diagnostics diags;
  const auto topo = fabric::parse_topo(read("tests/fixtures/nvidia-smi/hgx-h100-topo-m.txt"), "hgx", diags);
  ASSERT_TRUE(topo);
  HardwareProfile profile;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "gpu", profile, diags)) << diags.format_all();
  fabric::NodeGraph n;
  NodeTopologySpec spec;
  spec.socket_link = BytesPerSecond(100e9);
  fabric::node_graph_from_topo(*topo, profile, spec, n);
  ASSERT_EQ(n.sockets.size(), 2u);
  EXPECT_EQ(n.gpu_socket, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_NEAR(n.link(n.socket_link).up, 100e9, 1);
  // Without NVLink (MIG), GPU 0 -> GPU 5 crosses the inter-socket link; GPU 0 -> GPU 2 (NODE) does not.
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.gpus[5], false)),
            "gpu0-pciev pcie0-uplinkv socket-link^ pcie2-uplink^ gpu5-pcie^");
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.gpus[2], false)), "gpu0-pciev pcie0-uplinkv pcie1-uplink^ gpu2-pcie^");
}

// Older and terminal-captured formats: NICs named by device, SOC for SYS, no NUMA column, underline
// escapes around the header and row labels, CRLF; and a single GPU without NICs.
TEST(NvidiaSmi, AcceptsOlderFormatsAndTerminalCaptures) {
  const std::string u = "\x1b[4m", e = "\x1b[0m";
  const std::string text = "\t" + u + "GPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tmlx5_1\tCPU Affinity" + e + "\r\n" + u + "GPU0" +
                           e + "\t X \tPHB\tSOC\tSOC\tPIX\tSOC\t0-9,20-29\r\n" + u + "GPU1" + e +
                           "\tPHB\t X \tSOC\tSOC\tPHB\tSOC\t0-9,20-29\r\n" + u + "GPU2" + e +
                           "\tSOC\tSOC\t X \tPHB\tSOC\tPIX\t10-19,30-39\r\n" + u + "GPU3" + e +
                           "\tSOC\tSOC\tPHB\t X \tSOC\tPHB\t10-19,30-39\r\n" + u + "mlx5_0" + e +
                           "\tPIX\tPHB\tSOC\tSOC\t X \tSOC\r\n" + u + "mlx5_1" + e +
                           "\tSOC\tSOC\tPIX\tPHB\tSOC\t X \r\n\r\nLegend:\r\n";
  Diagnostics diags;
  const auto topo = fabric::parse_topo(text, "old", diags);
  ASSERT_TRUE(topo) << diags.format_all();
  EXPECT_EQ(topo->devices, (std::vector<std::string>{"GPU0", "GPU1", "GPU2", "GPU3", "mlx5_0", "mlx5_1"}));
  EXPECT_EQ(topo->matrix[0][2], "SYS");
  EXPECT_EQ(topo->cpu_affinity[2], "10-19,30-39");
  HardwareProfile profile;
  ASSERT_TRUE(load_profile("A100-40GB", SourceLoc{}, "gpu", profile, diags));
  fabric::NodeGraph n;
  fabric::node_graph_from_topo(*topo, profile, NodeTopologySpec{}, n);
  EXPECT_EQ(n.sockets.size(), 2u);
  EXPECT_EQ(n.gpu_socket, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(n.gpu_nic, (std::vector<int>{0, 0, 1, 1}));
  // PHB: through the socket's host bridge; SOC/SYS: across the sockets.
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.gpus[1])), "gpu0-pciev pcie0-uplinkv gpu1-pcie^");
  EXPECT_EQ(link_names(n, n.path(n.gpus[1], n.gpus[3])), "gpu1-pciev socket-link^ gpu3-pcie^");

  const auto one = fabric::parse_topo("\tGPU0\tCPU Affinity\nGPU0\t X \t0-7\n", "one", diags);
  ASSERT_TRUE(one) << diags.format_all();
  fabric::NodeGraph single;
  fabric::node_graph_from_topo(*one, profile, NodeTopologySpec{}, single);
  EXPECT_EQ(single.gpus.size(), 1u);
  EXPECT_EQ(single.sockets.size(), 1u);
  EXPECT_TRUE(single.nics.empty());
}

// The templates: two sockets on the HGX (4 UPI 2.0 links) and PCIe (4 xGMI links) servers, one on flat.
TEST(Topology, TemplatesHaveTheirSocketsAndInterSocketLinks) {
  Diagnostics diags;
  auto p = prepare("tests/fixtures/scenarios/fabric-hgx.yaml", {}, diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  fabric::Topology topo;
  ASSERT_TRUE(fabric::build_topology(p.spec, p.profiles, topo, diags));
  EXPECT_EQ(topo.pools[0].sockets.size(), 2u);
  EXPECT_EQ(topo.pools[0].link(topo.pools[0].socket_link).name, "upi");
  EXPECT_NEAR(topo.pools[0].link(topo.pools[0].socket_link).up, 128e9, 1);
  auto q = prepare("tests/fixtures/scenarios/fabric-pcie.yaml", {}, diags);
  fabric::Topology pcie;
  ASSERT_TRUE(fabric::build_topology(q.spec, q.profiles, pcie, diags));
  EXPECT_EQ(pcie.pools[0].link(pcie.pools[0].socket_link).name, "xgmi");
  EXPECT_NEAR(pcie.pools[0].link(pcie.pools[0].socket_link).up, 256e9, 1);
  EXPECT_EQ(pcie.pools[0].gpu_socket.front(), 0);
  EXPECT_EQ(pcie.pools[0].gpu_socket.back(), 1);
  auto r = prepare("scenarios/examples/default.yaml", {}, diags);
  fabric::Topology flat;
  ASSERT_TRUE(fabric::build_topology(r.spec, r.profiles, flat, diags));
  EXPECT_EQ(flat.pools[0].sockets.size(), 1u);
  EXPECT_EQ(flat.pools[0].socket_link, -1);
}

// The flat template follows the product's nvlinkTopology: every GPU on an NVSwitch (SXM boards), bridges joining
// GPUs 0-1, 2-3, ... (H100 PCIe), or no NVLink at all (L40S), where a GPU-to-GPU path crosses the two GPUs' PCIe
// links and host memory. The NVLink domains say which GPUs have NVLink peer access.
TEST(Topology, TheFlatTemplateFollowsTheProductsNvlinkTopology) {
  const auto flat_node = [](const std::string& product, Diagnostics& diags) {
    auto p = prepare("scenarios/examples/default.yaml", {{"spec.cluster.nodePools[0].gpu", product}}, diags);
    auto topo = std::make_unique<fabric::Topology>();
    EXPECT_TRUE(fabric::build_topology(p.spec, p.profiles, *topo, diags)) << diags.format_all();
    return topo;
  };
  const auto nvlinks = [](const fabric::NodeGraph& n) {
    int count = 0;
    for (const auto& l : n.links) count += l.kind == fabric::LinkKind::NVLINK;
    return count;
  };
  Diagnostics diags;
  const auto sxm = flat_node("H100-80GB-SXM", diags);
  EXPECT_EQ(nvlinks(sxm->pools[0]), 8);
  EXPECT_EQ(sxm->pools[0].nvlink_domains(), std::vector<int>(8, 0));
  const auto pairs = flat_node("H100-80GB-PCIe", diags);
  EXPECT_EQ(nvlinks(pairs->pools[0]), 4);
  EXPECT_EQ(pairs->pools[0].nvlink_domains(), (std::vector<int>{0, 0, 2, 2, 4, 4, 6, 6}));
  const auto& pn = pairs->pools[0];
  EXPECT_EQ(link_names(pn, pn.path(pn.gpus[2], pn.gpus[3])), "gpu2-gpu3-nvlink^");
  EXPECT_EQ(link_names(pn, pn.path(pn.gpus[1], pn.gpus[2])), "gpu1-pciev gpu2-pcie^");  // another pair: PCIe
  const auto none = flat_node("L40S-48GB", diags);
  EXPECT_EQ(nvlinks(none->pools[0]), 0);
  EXPECT_EQ(none->pools[0].nvswitch, -1);
  EXPECT_EQ(none->pools[0].nvlink_domains(), std::vector<int>(8, -1));
  const auto& ln = none->pools[0];
  EXPECT_EQ(link_names(ln, ln.path(ln.gpus[0], ln.gpus[5])), "gpu0-pciev gpu5-pcie^");
  // The host link of a Grace superchip is NVLink-C2C.
  const auto gh = flat_node("GH200-96GB", diags);
  EXPECT_EQ(link_names(gh->pools[0], gh->pools[0].path(gh->pools[0].cpu, gh->pools[0].gpus[0])), "gpu0-c2c^");
  // The HGX templates put every GPU on an NVSwitch: a product without one is refused there.
  Diagnostics refused;
  auto p = prepare("scenarios/examples/default.yaml",
                   {{"spec.cluster.nodePools[0].gpu", "L40S-48GB"}, {"spec.cluster.nodePools[0].topology", "hgx-h100"}},
                   refused);
  fabric::Topology topo;
  EXPECT_FALSE(fabric::build_topology(p.spec, p.profiles, topo, refused));
  EXPECT_NE(refused.format_all().find("L40S-48GB has nvlinkTopology none"), std::string::npos) << refused.format_all();
}

// A pool can say its cards are not bridged (H100 PCIe without the bridges): the base's NVLink rates go with it. A
// product without NVLink cannot be given an NVSwitch without the rates, and the error points at the scenario.
TEST(Topology, APoolOverridesTheNvlinkTopologyOfItsProfile) {
  Diagnostics diags;
  auto p = prepare("scenarios/examples/default.yaml",
                   {{"spec.cluster.nodePools[0].gpu", "H100-80GB-PCIe"},
                    {"spec.cluster.nodePools[0].hardware", "{nvlinkTopology: none}"}},
                   diags);
  fabric::Topology topo;
  ASSERT_TRUE(fabric::build_topology(p.spec, p.profiles, topo, diags)) << diags.format_all();
  EXPECT_EQ(topo.pools[0].nvlink_domains(), std::vector<int>(8, -1));
  Diagnostics refused;
  prepare("scenarios/examples/default.yaml",
          {{"spec.cluster.nodePools[0].gpu", "L40S-48GB"},
           {"spec.cluster.nodePools[0].hardware", "{nvlinkTopology: nvswitch}"}},
          refused);
  EXPECT_NE(refused.format_all().find("nodePools[0].hardware.nvlinkAchievable: required profile field is missing"),
            std::string::npos)
      << refused.format_all();
}

// nvlinkTopology and hostLink are keywords with a source; a product without NVLink has no nvlink* fields.
TEST(Topology, NvlinkTopologyAndHostLinkAreCheckedInTheProfile) {
  std::string l40s = fabric_test::read("calibration/profiles/L40S-48GB.yaml");
  HardwareProfile profile;
  Diagnostics ok;
  ASSERT_TRUE(load_profile_text(l40s, "L40S-48GB.yaml", profile, ok)) << ok.format_all();
  EXPECT_EQ(profile.nvlink_topology, NvlinkTopology::NONE);
  EXPECT_DOUBLE_EQ(profile.peer_achievable(), 25.2e9);  // the PCIe path
  std::string with_nvlink = l40s;
  with_nvlink.replace(with_nvlink.find("  pciePerDirection:"), 0,
                      "  nvlinkAchievable:\n    value: 25GB/s\n    source: \"(assumed) x\"\n");
  Diagnostics extra;
  EXPECT_FALSE(load_profile_text(with_nvlink, "L40S-48GB.yaml", profile, extra));
  EXPECT_NE(extra.format_all().find("spec.nvlinkAchievable: the product has no NVLink"), std::string::npos)
      << extra.format_all();
  std::string typo = l40s;
  typo.replace(typo.find("value: none"), 11, "value: nvswich");
  Diagnostics bad;
  EXPECT_FALSE(load_profile_text(typo, "L40S-48GB.yaml", profile, bad));
  EXPECT_NE(bad.format_all().find("expected one of nvswitch, bridgedPairs, none, got 'nvswich'"), std::string::npos)
      << bad.format_all();
  EXPECT_NE(bad.format_all().find("L40S-48GB.yaml:"), std::string::npos) << "located: " << bad.format_all();
  EXPECT_EQ(bad.format_all().find("required profile field is missing"), std::string::npos)
      << "the bad value only, not the nvlink fields it would decide: " << bad.format_all();
  // A misspelled key would keep a default silently: it is refused with the name it resembles.
  std::string misspelt = fabric_test::read("calibration/profiles/GH200-96GB.yaml");
  misspelt.replace(misspelt.find("  hostLink:"), 11, "  hostlink:");
  Diagnostics key;
  EXPECT_FALSE(load_profile_text(misspelt, "GH200.yaml", profile, key));
  EXPECT_NE(key.format_all().find("spec.hostlink: not a hardware profile field"), std::string::npos)
      << key.format_all();
  EXPECT_NE(key.format_all().find("hostLink"), std::string::npos) << key.format_all();
  Diagnostics gh;
  HardwareProfile grace;
  ASSERT_TRUE(load_profile_text(fabric_test::read("calibration/profiles/GH200-96GB.yaml"), "GH200.yaml", grace, gh));
  EXPECT_EQ(grace.host_link, HostLink::NVLINK_C2C);
  EXPECT_EQ(grace.nvlink_topology, NvlinkTopology::NVSWITCH);
}

TEST(Topology, DataOnAMissingSocketIsReported) {
  Diagnostics diags;
  auto p = prepare("tests/fixtures/scenarios/fabric-numa.yaml",
                   {{"spec.cluster.nodePools[0].topology", "{template: hgx-h100, sockets: 1}"}}, diags);
  fabric::Topology topo;
  EXPECT_FALSE(fabric::build_topology(p.spec, p.profiles, topo, diags));
  EXPECT_NE(diags.format_all().find("socket 1 does not exist"), std::string::npos) << diags.format_all();
  Diagnostics d2;
  prepare("tests/fixtures/scenarios/fabric-checkpoint.yaml", {{"spec.data[0].socket", "1"}}, d2);
  EXPECT_NE(d2.format_all().find("only data in host memory"), std::string::npos) << d2.format_all();
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
