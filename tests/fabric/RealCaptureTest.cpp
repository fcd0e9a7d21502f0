// The nvidia-smi importer on samples of real machines (tests/fixtures/nvidia-smi/README.md, "Real
// machines"): what the twin of each node must be, from the facts of its published capture.
#include <gtest/gtest.h>

#include "FabricTestSupport.hpp"
#include "MigGeometry.hpp"
#include "NvidiaSmi.hpp"
#include "Setup.hpp"
#include "Topology.hpp"

namespace gtw {
namespace {

using fabric_test::link_names;
using fabric_test::pcie_switches;
using fabric_test::read;

size_t index_of(const fabric::SmiTopo& t, const std::string& device) {
  return static_cast<size_t>(std::find(t.devices.begin(), t.devices.end(), device) - t.devices.begin());
}

fabric::NodeGraph import(const fabric::SmiTopo& topo) {
  Diagnostics diags;
  HardwareProfile profile;
  // The H20 has the H100 SXM's NVLink 4 (18 links, 900 GB/s); its compute does not matter here.
  EXPECT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "gpu", profile, diags)) << diags.format_all();
  fabric::NodeGraph n;
  fabric::node_graph_from_topo(topo, profile, NodeTopologySpec{}, n);
  return n;
}

// sgl-project/sglang#14092: 8 x H20, 36 NICs. Two columns overflow their width in every row, so two
// entries touch ("NODENODE", "SYSSYS", "PIXNODE", " X PIX"); each must still land in its own column.
TEST(RealCapture, H20With36NicsReadsTouchingEntriesIntoTheirColumns) {
  Diagnostics diags;
  const auto topo = fabric::parse_topo(read("tests/fixtures/nvidia-smi/real-h20-36nic-topo-m.txt"), "h20", diags);
  ASSERT_TRUE(topo) << diags.format_all();
  ASSERT_EQ(topo->devices.size(), 44u);
  const auto at = [&](const std::string& a, const std::string& b) {
    return topo->matrix[index_of(*topo, a)][index_of(*topo, b)];
  };
  EXPECT_EQ(at("GPU0", "NIC12"), "NODE");
  EXPECT_EQ(at("GPU0", "NIC13"), "NODE");
  EXPECT_EQ(at("GPU0", "NIC14"), "NODE");
  EXPECT_EQ(at("GPU0", "NIC34"), "NODE");
  EXPECT_EQ(at("GPU0", "NIC35"), "PIX");
  EXPECT_EQ(at("GPU2", "NIC12"), "PIX");
  EXPECT_EQ(at("GPU4", "NIC13"), "SYS");
  EXPECT_EQ(at("GPU4", "NIC32"), "PIX");
  EXPECT_EQ(at("NIC12", "NIC12"), "X");
  EXPECT_EQ(at("NIC12", "NIC13"), "PIX");
  EXPECT_EQ(at("NIC35", "NIC34"), "NODE");
  EXPECT_EQ(at("NIC35", "NIC35"), "X");
  EXPECT_EQ(topo->cpu_affinity[index_of(*topo, "GPU4")], "70-99,102-107");
  EXPECT_EQ(topo->numa_affinity[index_of(*topo, "GPU4")], "1");
  // The NIC Legend names the devices: 32 RDMA NICs and four bonded ports.
  EXPECT_EQ(topo->device_name(index_of(*topo, "NIC0")), "mlx5_0");
  EXPECT_EQ(topo->device_name(index_of(*topo, "NIC35")), "mlx5_bond_3");
  EXPECT_EQ(topo->device_name(index_of(*topo, "GPU0")), "GPU0");
}

TEST(RealCapture, H20With36NicsIsTwoSocketsFourSwitchesAndAnNvswitch) {
  Diagnostics diags;
  const auto topo = fabric::parse_topo(read("tests/fixtures/nvidia-smi/real-h20-36nic-topo-m.txt"), "h20", diags);
  ASSERT_TRUE(topo) << diags.format_all();
  const auto n = import(*topo);
  EXPECT_EQ(n.gpus.size(), 8u);
  EXPECT_EQ(n.nics.size(), 36u);
  EXPECT_GE(n.nvswitch, 0);
  EXPECT_NEAR(n.link(n.path(n.gpus[0], n.gpus[7])[0].link).up, 380e9, 1e6);
  ASSERT_EQ(n.sockets.size(), 2u);
  EXPECT_EQ(n.gpu_socket, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  // One switch per PIX group: GPU0 + NIC0-7 + bond 3, GPU2 + NIC8-15 + bond 2, GPU4 + NIC16-23 + bond 0,
  // GPU6 + NIC24-31 + bond 1. The odd GPUs hang off their socket's host bridges (NODE to everything).
  EXPECT_EQ(pcie_switches(n), 4);
  EXPECT_EQ(n.gpu_nic, (std::vector<int>{0, 0, 8, 0, 16, 16, 24, 16}));
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.nics[0], false)), "gpu0-pciev nic0-pcie^");
  EXPECT_EQ(link_names(n, n.path(n.gpus[1], n.nics[0], false)), "gpu1-pciev pcie0-uplink^ nic0-pcie^");
  EXPECT_EQ(n.nic_devices[32], "mlx5_bond_0");
  EXPECT_NE(fabric::describe(n).find("nic35 (nic, mlx5_bond_3)"), std::string::npos);
}

// arthurchiao.art, "GPU advanced notes 1", 8 x H20: one dual-port NIC on socket 1, behind GPU6's host
// bridge (PHB). Every GPU of socket 0 reaches it across the inter-socket link.
TEST(RealCapture, H20WithOneNicReachesItAcrossTheSockets) {
  Diagnostics diags;
  const auto topo = fabric::parse_topo(read("tests/fixtures/nvidia-smi/real-h20-2nic-topo-m.txt"), "h20", diags);
  ASSERT_TRUE(topo) << diags.format_all();
  ASSERT_EQ(topo->devices.size(), 10u);
  EXPECT_EQ(topo->matrix[6][8], "PHB");
  EXPECT_EQ(topo->cpu_affinity[0], "0-95,192-287");
  const auto n = import(*topo);
  EXPECT_EQ(n.nics.size(), 2u);
  EXPECT_EQ(n.gpu_socket, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(pcie_switches(n), 1);  // the NIC's two ports (PIX)
  EXPECT_EQ(n.gpu_nic, (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(link_names(n, n.path(n.gpus[0], n.nics[0], false)), "gpu0-pciev socket-link^ pcie0-uplink^ nic0-pcie^");
  EXPECT_EQ(link_names(n, n.path(n.gpus[6], n.nics[0], false)), "gpu6-pciev pcie0-uplink^ nic0-pcie^");
}

// NVIDIA/DCGM#138: `nvidia-smi mig -lgi` of two 80 GB GPUs, listed in the driver's order. The layout
// in placement order is one the hardware accepts, on both 80 GB products whose profiles have these
// names and ids (A100 80GB and H100 80GB).
TEST(RealCapture, MigListingOfTwo80GbGpusIsAFeasibleLayoutPerGpu) {
  Diagnostics diags;
  const auto gis = fabric::parse_mig_lgi(read("tests/fixtures/nvidia-smi/mig-lgi.txt"), "lgi", diags);
  ASSERT_TRUE(gis) << diags.format_all();
  const auto layouts = fabric::mig_layouts_by_gpu(*gis);
  ASSERT_EQ(layouts.size(), 2u);
  const std::vector<std::string> expected{"2g.20gb", "1g.10gb", "1g.10gb", "3g.40gb"};
  EXPECT_EQ(layouts.at(0), expected);
  EXPECT_EQ(layouts.at(1), expected);
  for (const std::string product : {"H100-80GB-SXM", "A100-80GB"}) {
    HardwareProfile profile;
    ASSERT_TRUE(load_profile(product, SourceLoc{}, "gpu", profile, diags)) << diags.format_all();
    ASSERT_TRUE(profile.mig) << product;
    const auto check = check_mig_layout(*profile.mig, expected);
    EXPECT_TRUE(check.feasible) << product << ": " << check.reason;
  }
}

// A listing whose GPUs are laid out differently: GPU 0's layout is the pool's, GPU 1 gets its own
// gpuSharing entry, so the twin has both (before, GPU 1 silently took GPU 0's layout).
TEST(RealCapture, GpusLaidOutDifferentlyKeepTheirOwnLayouts) {
  Diagnostics diags;
  auto p = prepare_scenario(std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/fabric-import-mixed-mig.yaml", {},
                            diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  const auto& pool = p.spec.node_pools[0];
  EXPECT_EQ(pool.sharing_for(0).mig_layout, (std::vector<std::string>{"2g.20gb", "1g.10gb", "1g.10gb", "3g.40gb"}));
  EXPECT_EQ(pool.sharing_for(1).mig_layout, (std::vector<std::string>{"7g.80gb"}));
  EXPECT_EQ(pool.sharing_for(2).mig_layout, (std::vector<std::string>{"3g.40gb", "3g.40gb"}));
  // GPUs the listing does not name keep the pool's (GPU 0's) layout.
  EXPECT_EQ(pool.sharing_for(3).mig_layout, pool.sharing.mig_layout);
}

// `mig -lci` against `mig -lgi`: one whole compute instance per GPU instance is the default (`-C`)
// and passes silently; a GPU instance split into compute instances, or left without one, is noted; a
// compute instance in a GPU instance the listing does not have is an error.
TEST(RealCapture, ComputeInstancesAreCheckedAgainstTheirGpuInstances) {
  Diagnostics diags;
  const auto gis = fabric::parse_mig_lgi(read("tests/fixtures/nvidia-smi/mig-lgi.txt"), "lgi", diags);
  const auto whole = fabric::parse_mig_lci(read("tests/fixtures/nvidia-smi/mig-lci.txt"), "lci", diags);
  const auto split = fabric::parse_mig_lci(read("tests/fixtures/nvidia-smi/mig-lci-split.txt"), "split", diags);
  ASSERT_TRUE(gis && whole && split) << diags.format_all();
  HardwareProfile h100;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "gpu", h100, diags)) << diags.format_all();
  const MigGeometry& table = *h100.mig;  // compute slices per GPU-instance profile
  const auto ok = fabric::check_compute_instances(*gis, *whole, table);
  EXPECT_TRUE(ok.errors.empty());
  EXPECT_TRUE(ok.notes.empty()) << ok.notes.front();
  const auto s = fabric::check_compute_instances(*gis, *split, table);
  EXPECT_TRUE(s.errors.empty());
  ASSERT_EQ(s.notes.size(), 2u);
  // In the -lgi listing's order: instance 9 is listed before instance 2.
  EXPECT_NE(s.notes[0].find("GPU 0 GPU instance 9 (1g.10gb) has no compute instance"), std::string::npos) << s.notes[0];
  EXPECT_NE(s.notes[1].find("GPU 0 GPU instance 2 (3g.40gb) is split into 3 compute instance(s)"), std::string::npos)
      << s.notes[1];
  // GPU 1 is not in the -lci listing: its instances are not judged.
  auto stray = *whole;
  stray[0].gpu_instance = 7;
  stray[1].size = 5;
  const auto bad = fabric::check_compute_instances(*gis, stray, table);
  ASSERT_EQ(bad.errors.size(), 2u);
  EXPECT_EQ(bad.errors[0].line, 7);
  EXPECT_EQ(bad.errors[0].message,
            "compute instance 0 (3g.40gb) of GPU 0 GPU instance 7: the -lgi listing has no such GPU instance");
  EXPECT_EQ(bad.errors[1].line, 9);
  EXPECT_NE(bad.errors[1].message.find("do not fit its 2g.20gb (2 slices)"), std::string::npos)
      << bad.errors[1].message;
}

// A 2-socket AMD EPYC node in NPS4 (DGX A100: GPU pairs on NUMA nodes 3, 1, 7, 5): nvidia-smi shows SYS
// between NUMA nodes of one socket too. Four NUMA nodes are read as 2 sockets, with a warning; a declared
// socket count is taken without one; a 2-NUMA capture is read as before.
TEST(RealCapture, NpsNumaNodesAreReadAsTwoSocketsWithAWarning) {
  Diagnostics diags;
  const auto topo = fabric::parse_topo(read("tests/fixtures/nvidia-smi/dgx-a100-topo-m.txt"), "dgx", diags);
  ASSERT_TRUE(topo) << diags.format_all();
  HardwareProfile a100;
  ASSERT_TRUE(load_profile("A100-80GB", SourceLoc{}, "gpu", a100, diags)) << diags.format_all();
  fabric::NodeGraph n;
  const auto warnings = fabric::node_graph_from_topo(*topo, a100, NodeTopologySpec{}, n);
  EXPECT_EQ(n.sockets.size(), 2u);
  EXPECT_EQ(n.gpu_socket, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));  // NUMA 1, 3 | 5, 7
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("4 NUMA nodes (1, 3, 5, 7) joined by SYS: read as 2 sockets"), std::string::npos)
      << warnings[0];
  NodeTopologySpec declared;
  declared.sockets = 2;
  fabric::NodeGraph d;
  EXPECT_TRUE(fabric::node_graph_from_topo(*topo, a100, declared, d).empty());
  EXPECT_EQ(d.gpu_socket, n.gpu_socket);
  declared.sockets = 1;
  fabric::NodeGraph one;
  fabric::node_graph_from_topo(*topo, a100, declared, one);
  EXPECT_EQ(one.sockets.size(), 1u);
  // Printed without the NUMA Affinity column, the same machine reads the same from its CPU lists: the groups'
  // first CPUs (16, 48, 80, 112 of 0..255) split at the socket boundary, with a warning that says so.
  const auto no_numa =
      fabric::parse_topo(read("tests/fixtures/nvidia-smi/dgx-a100-topo-m-no-numa.txt"), "dgx-no-numa", diags);
  ASSERT_TRUE(no_numa) << diags.format_all();
  fabric::NodeGraph c;
  const auto cpu_warnings = fabric::node_graph_from_topo(*no_numa, a100, NodeTopologySpec{}, c);
  EXPECT_EQ(c.sockets.size(), 2u);
  EXPECT_EQ(c.gpu_socket, n.gpu_socket);
  ASSERT_EQ(cpu_warnings.size(), 1u);
  EXPECT_NE(cpu_warnings[0].find("4 CPU affinity groups (first CPUs 16, 48, 80, 112; no NUMA Affinity column)"),
            std::string::npos)
      << cpu_warnings[0];
  // Cores per socket need not be a power of two: 2 x 96-core parts, groups at first CPUs 0, 24 | 120, 168.
  const auto genoa =
      fabric::parse_topo(read("tests/fixtures/nvidia-smi/genoa-2x96-topo-m-no-numa.txt"), "genoa", diags);
  ASSERT_TRUE(genoa) << diags.format_all();
  fabric::NodeGraph g96;
  fabric::node_graph_from_topo(*genoa, a100, NodeTopologySpec{}, g96);
  EXPECT_EQ(g96.sockets.size(), 2u);
  EXPECT_EQ(std::count(g96.gpu_socket.begin(), g96.gpu_socket.end(), 0), 4);
  EXPECT_EQ(std::count(g96.gpu_socket.begin(), g96.gpu_socket.end(), 1), 4);
  // The HGX H100 capture has two NUMA nodes: two sockets, no warning.
  const auto hgx = fabric::parse_topo(read("tests/fixtures/nvidia-smi/hgx-h100-topo-m.txt"), "hgx", diags);
  ASSERT_TRUE(hgx);
  fabric::NodeGraph h;
  EXPECT_TRUE(fabric::node_graph_from_topo(*hgx, a100, NodeTopologySpec{}, h).empty());
  EXPECT_EQ(h.sockets.size(), 2u);
}

// Drivers before the Placement column: the compute slices come from the profile's name (1c.3g.40gb: one,
// 3g.40gb: the whole instance); without placements the instances of one GPU instance must add up.
TEST(RealCapture, ComputeInstancesWithoutPlacementAreReadFromTheirNames) {
  Diagnostics diags;
  const auto gis = fabric::parse_mig_lgi(read("tests/fixtures/nvidia-smi/mig-lgi.txt"), "lgi", diags);
  const auto cis = fabric::parse_mig_lci(read("tests/fixtures/nvidia-smi/mig-lci-noplacement.txt"), "lci", diags);
  ASSERT_TRUE(gis && cis) << diags.format_all();
  ASSERT_EQ(cis->size(), 6u);
  EXPECT_EQ((*cis)[0].start, -1);
  EXPECT_EQ((*cis)[0].size, 1);
  EXPECT_EQ((*cis)[3].size, -1);  // 2g.20gb: the whole GPU instance
  HardwareProfile h100;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "gpu", h100, diags)) << diags.format_all();
  const auto check = fabric::check_compute_instances(*gis, *cis, *h100.mig);
  EXPECT_TRUE(check.errors.empty()) << check.errors.front().message;
  ASSERT_EQ(check.notes.size(), 1u);
  EXPECT_NE(check.notes[0].find("GPU 0 GPU instance 2 (3g.40gb) is split into 3 compute instance(s)"),
            std::string::npos)
      << check.notes[0];
  // A fourth one-slice instance in the 3g.40gb (3 compute slices) cannot exist.
  auto extra = *cis;
  extra.push_back(extra[0]);
  extra.back().instance_id = 3;
  const auto bad = fabric::check_compute_instances(*gis, extra, *h100.mig);
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_NE(bad.errors[0].message.find("its compute instances take 4 compute slices of 3"), std::string::npos)
      << bad.errors[0].message;
  // A row of neither layout is named by its line.
  Diagnostics d2;
  EXPECT_FALSE(fabric::parse_mig_lci("| Compute instances: |\n|   0   2   MIG 1c.3g.40gb   0 |\n", "short", d2));
  EXPECT_NE(d2.format_all().find("short:2:1"), std::string::npos) << d2.format_all();
}

}  // namespace
}  // namespace gtw
