// NVLink and PCIe bandwidths of the node templates against the published measurements of
// validation-targets.md (V2: NVLink4 P2P on HGX H100 within 5%; V2b: PCIe within 10%). Each test
// builds the platform from the topology graph (models/fabric) in its own SimGrid engine and times
// transfers between the devices. One engine per process: one simulation per test.
#include <gtest/gtest.h>

#include <simgrid/s4u.hpp>

#include <cmath>
#include <functional>
#include <memory>

#include "Platform.hpp"
#include "ServingStep.hpp"
#include "Setup.hpp"

namespace gtw {
namespace {

namespace sg4 = simgrid::s4u;

// One node's platform with a device host per GPU (no MIG), built as the engine does.
struct Bench {
  PreparedScenario prepared;
  fabric::Topology topo;
  std::unique_ptr<sg4::Engine> engine;
  std::unique_ptr<fabric::Platform> platform;
  std::vector<sg4::Host*> gpus;

  explicit Bench(const std::string& relative) {
    Diagnostics diags;
    prepared = prepare_scenario(std::string(GTW_SOURCE_DIR) + "/" + relative, {}, diags);
    EXPECT_FALSE(diags.has_errors()) << diags.format_all();
    EXPECT_TRUE(fabric::build_topology(prepared.spec, prepared.profiles, topo, diags)) << diags.format_all();
    int argc = 1;
    char arg0[] = "fabric-test";
    char* argv[] = {arg0, nullptr};
    engine = std::make_unique<sg4::Engine>(&argc, argv);
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    auto* root = sg4::create_full_zone("cluster");
    platform = std::make_unique<fabric::Platform>(topo, prepared.spec, root);
    for (size_t n = 0; n < topo.nodes.size(); ++n) {
      auto& parts = platform->begin_node(static_cast<int>(n));
      const auto& pool = prepared.spec.node_pools[static_cast<size_t>(topo.nodes[n].pool)];
      for (int g = 0; g < pool.gpus_per_node; ++g) {
        auto* host = parts.zone->create_host(topo.nodes[n].name + "-gpu" + std::to_string(g), 1e12);
        platform->add_device(static_cast<int>(n), g, host, true);
        gpus.push_back(host);
      }
      platform->end_node(static_cast<int>(n));
    }
    platform->finish();
    root->seal();
  }

  sg4::Host* cpu() const { return platform->node(0).cpu; }

  // Runs the transfers (a, b, bytes) at once; returns the time the last one ends.
  double run(const std::vector<std::tuple<sg4::Host*, sg4::Host*, double>>& transfers) {
    double end = 0;
    sg4::Actor::create("bench", cpu(), [&] {
      std::vector<sg4::CommPtr> comms;
      for (const auto& [a, b, bytes] : transfers)
        comms.push_back(sg4::Comm::sendto_async(a, b, static_cast<uint64_t>(bytes)));
      for (auto& c : comms) c->wait();
      end = sg4::Engine::get_clock();
    });
    engine->run();
    return end;
  }
};

constexpr double GB = 1e9;

// V2: 376-380 GB/s unidirectional P2P on HGX H100 (NVIDIA/nccl#1264), within 5% of 380.
TEST(FabricBandwidth, NvlinkP2PUnidirectionalHgxH100) {
  Bench b("tests/fixtures/scenarios/fabric-hgx.yaml");
  const double bytes = 38 * GB;
  const double t = b.run({{b.gpus[0], b.gpus[1], bytes}});
  const double bw = bytes / t;
  EXPECT_NEAR(bw, 380 * GB, 0.05 * 380 * GB) << bw / GB << " GB/s";
  std::printf("NVLink4 P2P unidirectional: %.1f GB/s (published 376-380)\n", bw / GB);
}

// V2: 740-749 GB/s bidirectional P2P, within 5% of 749.
TEST(FabricBandwidth, NvlinkP2PBidirectionalHgxH100) {
  Bench b("tests/fixtures/scenarios/fabric-hgx.yaml");
  const double bytes = 38 * GB;
  const double t = b.run({{b.gpus[0], b.gpus[1], bytes}, {b.gpus[1], b.gpus[0], bytes}});
  const double bw = 2 * bytes / t;
  EXPECT_NEAR(bw, 749 * GB, 0.05 * 749 * GB) << bw / GB << " GB/s";
  std::printf("NVLink4 P2P bidirectional: %.1f GB/s (published 740-749)\n", bw / GB);
}

// All-to-all through the NVSwitch: every GPU sends to the 7 others at once. The switch is
// non-blocking, so each GPU's egress is its NVLink's measured unidirectional rate (within 5% of 380).
TEST(FabricBandwidth, NvlinkAllToAllHgxH100) {
  Bench b("tests/fixtures/scenarios/fabric-hgx.yaml");
  const double per_pair = 7 * GB;
  std::vector<std::tuple<sg4::Host*, sg4::Host*, double>> transfers;
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 8; ++j)
      if (i != j) transfers.emplace_back(b.gpus[i], b.gpus[j], per_pair);
  const double t = b.run(transfers);
  const double egress = 7 * per_pair / t;
  EXPECT_NEAR(egress, 380 * GB, 0.05 * 380 * GB) << egress / GB << " GB/s per GPU";
  std::printf("NVLink4 all-to-all: %.1f GB/s egress per GPU, %.1f GB/s aggregate\n", egress / GB, 8 * egress / GB);
}

// V2b: H100 host-to-device 35 GB/s and device-to-host 52.8 GB/s (SM copy, NVIDIA/nvbandwidth#24), within 10%.
TEST(FabricBandwidth, PcieHostDeviceHgxH100) {
  Bench b("tests/fixtures/scenarios/fabric-hgx.yaml");
  const double bytes = 10 * GB;
  // Host to GPU 0, and GPU 2 (another PCIe switch) to host, at once: independent paths.
  double h2d_end = 0, d2h_end = 0;
  sg4::Actor::create("h2d", b.cpu(), [&] {
    sg4::Comm::sendto(b.cpu(), b.gpus[0], static_cast<uint64_t>(bytes));
    h2d_end = sg4::Engine::get_clock();
  });
  sg4::Actor::create("d2h", b.cpu(), [&] {
    sg4::Comm::sendto(b.gpus[2], b.cpu(), static_cast<uint64_t>(bytes));
    d2h_end = sg4::Engine::get_clock();
  });
  b.engine->run();
  EXPECT_NEAR(bytes / h2d_end, 35 * GB, 0.10 * 35 * GB);
  EXPECT_NEAR(bytes / d2h_end, 52.8 * GB, 0.10 * 52.8 * GB);
  std::printf("PCIe H2D %.1f GB/s (published 35), D2H %.1f GB/s (published 52.8)\n", bytes / h2d_end / GB,
              bytes / d2h_end / GB);
}

// Two GPUs behind one PCIe switch load from the host at once: they share the switch's x16 uplink
// only when its bandwidth is below the sum (here 64 GB/s < 2 x 35 GB/s).
TEST(FabricBandwidth, PcieSwitchUplinkIsShared) {
  Bench b("tests/fixtures/scenarios/fabric-hgx.yaml");
  const double bytes = 10 * GB;
  const double t = b.run({{b.cpu(), b.gpus[0], bytes}, {b.cpu(), b.gpus[1], bytes}});
  EXPECT_NEAR(2 * bytes / t, 64 * GB, 0.01 * 64 * GB);
}

// V2b: PCIe Gen4 device-to-device 26.3 GB/s (RTX A6000, copy engine, NVIDIA/nvbandwidth#50), within 10%,
// on the PCIe server template with a Gen4 GPU: GPU 0 -> GPU 1 through their PCIe switch.
TEST(FabricBandwidth, PcieP2PThroughSwitchGen4) {
  Bench b("tests/fixtures/scenarios/fabric-pcie.yaml");
  const double bytes = 10 * GB;
  const double t = b.run({{b.gpus[0], b.gpus[1], bytes}});
  EXPECT_NEAR(bytes / t, 26.3 * GB, 0.10 * 26.3 * GB) << bytes / t / GB;
  // No NVLink in this template: the route is PCIe only.
  for (const auto& l : fabric::Platform::route_links(b.gpus[0], b.gpus[1]))
    EXPECT_EQ(l.find("nvlink"), std::string::npos) << l;
  std::printf("PCIe Gen4 P2P via switch: %.1f GB/s (published 26.3)\n", bytes / t / GB);
}

// Across the two switches of the PCIe server the copy crosses the host (both uplinks).
TEST(FabricBandwidth, PcieP2PAcrossSwitchesCrossesTheHost) {
  Bench b("tests/fixtures/scenarios/fabric-pcie.yaml");
  std::vector<std::string> links;
  sg4::Actor::create("route", b.cpu(), [&] { links = fabric::Platform::route_links(b.gpus[0], b.gpus[2]); });
  b.engine->run();
  EXPECT_NE(std::find(links.begin(), links.end(), "pcie-0-pcie0-uplink_DOWN"), links.end())
      << ::testing::PrintToString(links);
  EXPECT_NE(std::find(links.begin(), links.end(), "pcie-0-pcie1-uplink_UP"), links.end());
}

// ---- Predictions on a second platform (label validation; docs/validation/fabric.md). The A100 profile's
// NVLink rate is derived, not measured: NVLink3's 300 GB/s per direction times the achievable share measured
// on HGX H100 (0.84, NVIDIA/nccl#1264). No A100 measurement went into it; these tests compare the twin's
// prediction with published A100 measurements and hold the error the page reports.

// Relative error of a prediction against a published value.
double error_of(double predicted, double published) {
  return (predicted - published) / published;
}

// p2pBandwidthLatencyTest on 8 x A100-SXM4-80GB (HPE Apollo 6500), NVIDIA/nccl-tests#149: bidirectional
// GPU-GPU 430-520 GB/s. Predicted: 2 x 252 = 504 GB/s, inside the range.
TEST(FabricPrediction, A100NvlinkP2PBidirectionalIsInsideThePublishedRange) {
  Bench b("tests/fixtures/scenarios/fabric-hgx-a100.yaml");
  const double bytes = 25 * GB;
  const double t = b.run({{b.gpus[0], b.gpus[1], bytes}, {b.gpus[1], b.gpus[0], bytes}});
  const double bw = 2 * bytes / t;
  EXPECT_GE(bw, 430 * GB) << bw / GB;
  EXPECT_LE(bw, 520 * GB) << bw / GB;
  std::printf("A100 NVLink3 P2P bidirectional: predicted %.1f GB/s, published 430-520 (error vs 475: %+.1f %%)\n",
              bw / GB, 100 * error_of(bw, 475 * GB));
}

// The training all-reduce as the twin runs it (models/workload: every GPU sends 2 (n-1)/n of the buffer to
// its ring successor at once), bus bandwidth = 2 (n-1)/n x buffer / time, against all_reduce_perf on the
// same 8 x A100 (nccl-tests#149, NCCL 2.18, large sizes: busbw ~200 GB/s). A bad row: the twin is 26 % fast
// (it has no NCCL protocol or kernel overhead beyond the H100-derived link share). The bound holds the
// documented error; a model change that moves it must update docs/validation/fabric.md.
TEST(FabricPrediction, A100RingAllReduceBusBandwidthIsTheDocumentedBadRow) {
  Bench b("tests/fixtures/scenarios/fabric-hgx-a100.yaml");
  const double buffer = 8 * GB;
  const double per_gpu = 2.0 * 7 / 8 * buffer;
  std::vector<std::tuple<sg4::Host*, sg4::Host*, double>> ring;
  for (size_t g = 0; g < 8; ++g) ring.emplace_back(b.gpus[g], b.gpus[(g + 1) % 8], per_gpu);
  const double t = b.run(ring);
  const double busbw = per_gpu / t;
  const double err = error_of(busbw, 200 * GB);
  EXPECT_GT(err, 0.20) << busbw / GB;
  EXPECT_LT(err, 0.30) << busbw / GB;
  // The serving model's NCCL ring model (ServingStep) at 1 GiB on 8 GPUs predicts the same within 1 %.
  const double gib = 1 << 30;
  const double nccl_busbw =
      2.0 * 7 / 8 * gib / all_reduce_time(gib, 8, b.prepared.profiles.at("A100-80GB").nvlink_achievable.value);
  EXPECT_NEAR(nccl_busbw, busbw, 0.01 * busbw);
  std::printf(
      "A100 8-GPU ring all-reduce busbw: predicted %.1f GB/s (NCCL ring model %.1f), published ~200: %+.1f %%\n",
      busbw / GB, nccl_busbw / GB, 100 * err);
}

// The same on a pair (nccl-tests#178: two A100 with 12 direct NVLinks, all_reduce busbw 208 GB/s; the twin's
// pair goes through the switch at the same per-GPU rate). Predicted 252 GB/s: +21 %.
TEST(FabricPrediction, A100PairAllReduceBusBandwidthIsTheDocumentedBadRow) {
  Bench b("tests/fixtures/scenarios/fabric-hgx-a100.yaml");
  const double buffer = 8 * GB;  // 2 (n-1)/n = 1 on two GPUs
  const double t = b.run({{b.gpus[0], b.gpus[1], buffer}, {b.gpus[1], b.gpus[0], buffer}});
  const double busbw = buffer / t;
  const double err = error_of(busbw, 208 * GB);
  EXPECT_GT(err, 0.15) << busbw / GB;
  EXPECT_LT(err, 0.25) << busbw / GB;
  std::printf("A100 2-GPU all-reduce busbw: predicted %.1f GB/s, published 208: %+.1f %%\n", busbw / GB, 100 * err);
}

}  // namespace
}  // namespace gtw
