// The channel catalogue: the published channels it reproduces (validation targets V5, V6, V7), the
// capacity formula, which mode closes which channel, and calibration from a hardware profile.
#include <gtest/gtest.h>

#include <cmath>

#include "ChannelCatalogue.hpp"

namespace gtw::channel {
namespace {

const Catalogue& cat() {
  return Catalogue::defaults();
}

bool has_measurement(const Cell& c, const std::string& id) {
  for (const auto& m : c.measurements)
    if (m.id == id) return true;
  return false;
}

TEST(ChannelFormula, BinaryEntropyAndCapacity) {
  EXPECT_DOUBLE_EQ(binary_entropy(0), 0);
  EXPECT_DOUBLE_EQ(binary_entropy(1), 0);
  EXPECT_DOUBLE_EQ(binary_entropy(0.5), 1);
  // Independently computed: H(0.0322) = 0.2053075..., H(0.11) = 0.4999159...
  EXPECT_NEAR(binary_entropy(0.0322), 0.20530751, 1e-8);
  EXPECT_NEAR(binary_entropy(0.11), 0.49991596, 1e-8);
  EXPECT_DOUBLE_EQ(bsc_capacity(1000, 1, 0), 1000);
  EXPECT_DOUBLE_EQ(bsc_capacity(1000, 1, 0.5), 0);
  EXPECT_DOUBLE_EQ(bsc_capacity(1000, 4, 0), 4000);
  EXPECT_NEAR(bsc_capacity(45.5e3, 1, 0.0322), 36158.508, 1e-3);
  // Threshold detector halfway between two latency levels: Q(signal / (2 noise)).
  EXPECT_NEAR(threshold_error(3.6988e-6, 1e-6), 0.0322, 1e-4);
  EXPECT_DOUBLE_EQ(threshold_error(0, 1e-6), 0.5);
  EXPECT_DOUBLE_EQ(threshold_error(1e-6, 0), 0);
}

// V5: NVLink contention covert channel, 45.5 kbps at 3.22% (Beyond the Bridge) and > 70 kbps at
// 4.78% (NVBleed): capacity within 20 %, error within 2 percentage points.
TEST(PublishedChannels, V5NvlinkContentionBeyondTheBridgeAndNvbleed) {
  const Cell& nvlink = cat().cell(Resource::NVLINK, Mode::SEPARATE_GPUS);
  ASSERT_EQ(nvlink.state, State::OPEN);
  ASSERT_TRUE(has_measurement(nvlink, "A5"));
  ASSERT_TRUE(has_measurement(nvlink, "A6"));
  const Measurement& bridge = published("A5");
  EXPECT_NEAR(bridge.bit_rate(), 45.5e3, 0.2 * 45.5e3);
  EXPECT_NEAR(bridge.error_rate, 0.0322, 0.02);
  EXPECT_NE(bridge.source.find("2404.03877"), std::string::npos);
  const Measurement& nvbleed = published("A6");
  EXPECT_NEAR(nvbleed.bit_rate(), 70e3, 0.2 * 70e3);
  EXPECT_NEAR(nvbleed.error_rate, 0.0478, 0.02);
  EXPECT_NE(nvbleed.source.find("2503.17847"), std::string::npos);

  // The rate the analysis uses: the best published capacity (NVBleed), with its source.
  const ChannelRate rate = cat().rate(Resource::NVLINK, Mode::SEPARATE_GPUS, "V100", 0);
  EXPECT_EQ(rate.state, State::OPEN);
  EXPECT_NEAR(rate.bit_rate, 70e3, 0.2 * 70e3);
  EXPECT_NEAR(rate.error_rate, 0.0478, 0.02);
  EXPECT_NEAR(rate.capacity_bps, 70e3 * (1 - binary_entropy(0.0478)), 1e-6);
  EXPECT_LT(rate.capacity_bps, rate.bit_rate);  // errors cost capacity
  EXPECT_NE(rate.source.find("NVBleed"), std::string::npos);

  // The same channel calibrated from the probe's signal and noise reproduces Beyond the Bridge.
  Catalogue calibrated = cat();
  Diagnostics diags;
  load_profile_channels_text(
      "spec:\n  channels:\n    - {resource: nvlink, mode: separateGpus, probeRate: 45500/s, signal: 3.7us, noise: "
      "1us,\n"
      "       source: \"fit of Beyond the Bridge (A5) probe latencies\"}\n",
      "V100.yaml", "V100", calibrated, diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  const ChannelRate fit = calibrated.rate(Resource::NVLINK, Mode::SEPARATE_GPUS, "V100", 0);
  EXPECT_NEAR(fit.bit_rate, 45.5e3, 0.2 * 45.5e3);
  EXPECT_NEAR(fit.error_rate, 0.0322, 0.02);
  EXPECT_NEAR(fit.capacity_bps, bsc_capacity(45.5e3, 1, fit.error_rate), 1e-9);
  EXPECT_NE(fit.source.find("calibrated"), std::string::npos);
  // Calibration is per product: another product keeps the published default.
  EXPECT_NEAR(calibrated.rate(Resource::NVLINK, Mode::SEPARATE_GPUS, "H100-80GB-SXM", 0).bit_rate, 70e3, 1e-9);
}

// V6: the cross-GPU L2 channel over NVLink, 3.95 MB/s (Spy in the GPU-box).
TEST(PublishedChannels, V6CrossGpuL2OverNvlink) {
  const ChannelRate rate = cat().rate(Resource::L2, Mode::SEPARATE_GPUS, "V100", 0);
  ASSERT_EQ(rate.state, State::OPEN);
  EXPECT_NEAR(rate.bit_rate / 8, 3.95e6, 1);
  EXPECT_NE(rate.source.find("2203.15981"), std::string::npos);
}

// V7: LeftoverLocals leaks #CUs x LDS per invocation, 5.5 MB on an RX 7900 XT (84 CUs x 64 KiB).
TEST(PublishedChannels, V7LeftoverLocalsPerInvocation) {
  EXPECT_NEAR(leftover_local_bytes(84, 64 * 1024), 5.5e6, 0.05 * 5.5e6);
  EXPECT_DOUBLE_EQ(leftover_local_bytes(0, 64 * 1024), 0);
  // NVIDIA GPUs are not affected: the L1/shared-memory channel stays closed under time-slicing.
  EXPECT_EQ(cat().cell(Resource::L1, Mode::TIME_SLICING).state, State::CLOSED);
  EXPECT_NE(cat().cell(Resource::L1, Mode::TIME_SLICING).reason.find("LeftoverLocals"), std::string::npos);
}

TEST(ChannelClosure, MigClosesL2HbmSmButNotPcieOrHostPaths) {
  for (Resource r : {Resource::SM, Resource::L1, Resource::L2, Resource::HBM})
    EXPECT_EQ(cat().cell(r, Mode::MIG).state, State::CLOSED) << resource_name(r);
  EXPECT_EQ(cat().cell(Resource::PCIE, Mode::MIG).state, State::OPEN);
  EXPECT_NE(cat().cell(Resource::HOST_MEMORY, Mode::MIG).state, State::CLOSED);
  EXPECT_NE(cat().cell(Resource::POWER, Mode::MIG).state, State::CLOSED);
  // MPS, the mode MIG replaces, has them open.
  for (Resource r : {Resource::SM, Resource::L1, Resource::L2, Resource::HBM})
    EXPECT_EQ(cat().cell(r, Mode::MPS).state, State::OPEN) << resource_name(r);
  // NVLink between GPUs is closed at a MIG end (no P2P), open between two plain GPUs.
  EXPECT_FALSE(cat().endpoint_closure(Resource::NVLINK, Mode::MIG).empty());
  EXPECT_FALSE(cat().endpoint_closure(Resource::L2, Mode::MIG).empty());
  EXPECT_TRUE(cat().endpoint_closure(Resource::PCIE, Mode::MIG).empty());
  EXPECT_TRUE(cat().endpoint_closure(Resource::NVLINK, Mode::EXCLUSIVE).empty());
}

TEST(ChannelClosure, ConfidentialClosesRemanenceAndNvlinkButNotPcieTiming) {
  EXPECT_EQ(cat().cell(Resource::PCIE, Mode::CONFIDENTIAL).state, State::OPEN);
  EXPECT_GT(cat().rate(Resource::PCIE, Mode::CONFIDENTIAL, "H100-80GB-SXM", 0).capacity_bps, 0);
  EXPECT_EQ(cat().cell(Resource::NVLINK, Mode::CONFIDENTIAL).state, State::CLOSED);
  EXPECT_EQ(cat().cell(Resource::REMANENCE, Mode::CONFIDENTIAL).state, State::CLOSED);
  EXPECT_EQ(cat().cell(Resource::REMANENCE, Mode::EXCLUSIVE).state, State::OPEN);
  EXPECT_FALSE(cat().endpoint_closure(Resource::NVLINK, Mode::CONFIDENTIAL).empty());
}

TEST(ChannelClosure, ExclusiveAndSeparateGpusShareNoSmOrL1) {
  for (Mode m : {Mode::EXCLUSIVE, Mode::SEPARATE_GPUS, Mode::SEPARATE_NODES})
    for (Resource r : {Resource::SM, Resource::L1, Resource::HBM, Resource::TLB})
      EXPECT_EQ(cat().cell(r, m).state, State::CLOSED) << resource_name(r) << " " << mode_name(m);
  EXPECT_EQ(cat().cell(Resource::L2, Mode::EXCLUSIVE).state, State::CLOSED);
}

TEST(ChannelCatalogue, EveryCellSaysWhyAndEveryRateHasASource) {
  for (const auto& row : cat().cells())
    for (const Cell& c : row) {
      EXPECT_FALSE(c.reason.empty()) << resource_name(c.resource) << " " << mode_name(c.mode);
      if (c.state != State::CLOSED) {
        EXPECT_FALSE(c.closed_by.empty()) << resource_name(c.resource);
      }
      for (const auto& m : c.measurements) {
        EXPECT_FALSE(m.source.empty());
        EXPECT_GT(m.probe_rate, 0);
      }
      const auto r = cat().rate(c.resource, c.mode, "H100-80GB-SXM", 0.002);
      if (r.state == State::OPEN) {
        EXPECT_FALSE(r.source.empty()) << resource_name(c.resource);
      }
    }
}

// Every published number says where it was measured and how it carries over to the products the twin
// profiles (docs/models/leakage.md, "Transfer to other GPUs"); one that does not transfer is open but
// unquantified there, not a number.
TEST(ChannelCatalogue, EachMeasurementNamesItsPlatformAndItsTransferRule) {
  for (const auto& row : cat().cells())
    for (const Cell& c : row)
      for (const auto& m : c.measurements) {
        EXPECT_FALSE(m.hardware.empty()) << m.id;
        EXPECT_FALSE(m.transfer_rule.empty()) << m.id;
      }
  const auto a1 = cat().rate(Resource::L2, Mode::MPS, "H100-80GB-SXM", 0);
  EXPECT_EQ(a1.state, State::OPEN);
  EXPECT_EQ(a1.measured_on, "3 NVIDIA GPUs (Kepler, Maxwell, Pascal)");
  EXPECT_NE(a1.source.find("[measured on 3 NVIDIA GPUs (Kepler, Maxwell, Pascal); taken as is on H100-80GB-SXM]"),
            std::string::npos)
      << a1.source;
  EXPECT_NE(a1.transfer_rule.find("taken as is"), std::string::npos);

  Measurement v100{"X1", "a V100-only channel", "DGX-1 V100", 1000, 1, 0, true, false, "relies on V100's scheduler"};
  EXPECT_TRUE(v100.measured_on("V100-32GB"));
  EXPECT_FALSE(v100.measured_on("H100-80GB-SXM"));
  const auto same = measurement_rate(v100, "V100-32GB");
  EXPECT_EQ(same.state, State::OPEN);
  EXPECT_DOUBLE_EQ(same.probe_rate, 1000);
  const auto other = measurement_rate(v100, "H100-80GB-SXM");
  EXPECT_EQ(other.state, State::OPEN_UNQUANTIFIED);
  EXPECT_EQ(other.probe_rate, 0);
  EXPECT_NE(other.source.find("not transferable to H100-80GB-SXM]: relies on V100's scheduler"), std::string::npos)
      << other.source;
}

TEST(ChannelCatalogue, PerSliceChannelsFollowTheTimeSliceAndTimersCapTheRate) {
  // One observation per context switch: 2 ms quanta give 500 probes/s, 10 ms give 100.
  EXPECT_DOUBLE_EQ(cat().rate(Resource::L2, Mode::TIME_SLICING, "H100-80GB-SXM", 0.002).capacity_bps, 500);
  EXPECT_DOUBLE_EQ(cat().rate(Resource::L2, Mode::TIME_SLICING, "H100-80GB-SXM", 0.010).capacity_bps, 100);
  // A 1 ms timer caps a 4 Mbit/s MPS channel at 1000 probes/s.
  RateLimits coarse;
  coarse.timer_resolution_s = 1e-3;
  EXPECT_DOUBLE_EQ(cat().rate(Resource::SM, Mode::MPS, "H100-80GB-SXM", 0, coarse).capacity_bps, 1000);
  EXPECT_DOUBLE_EQ(cat().rate(Resource::SM, Mode::MPS, "H100-80GB-SXM", 0).capacity_bps, 4e6);
}

TEST(ChannelCalibration, ProfileErrorsAreLocatedAndAbsentSectionChangesNothing) {
  Catalogue c = cat();
  Diagnostics none;
  load_profile_channels_text("spec:\n  sms: {value: 132}\n", "P.yaml", "P", c, none);
  EXPECT_FALSE(none.has_errors());
  EXPECT_TRUE(c.calibrations().empty());

  Diagnostics diags;
  load_profile_channels_text(
      "spec:\n"
      "  channels:\n"
      "    - {resource: l9, mode: mps, probeRate: 10/s, errorRate: 0.1, source: x}\n"
      "    - {resource: l2, mode: mps, probeRate: 10/s, source: x}\n"
      "    - {resource: l2, mode: mps, probeRate: 10/s, errorRate: 0.1, colour: red, source: x}\n",
      "P.yaml", "P", c, diags);
  EXPECT_EQ(diags.error_count(), 3u) << diags.format_all();
  const std::string text = diags.format_all();
  EXPECT_NE(text.find("P.yaml:3:"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown resource 'l9'"), std::string::npos) << text;
  EXPECT_NE(text.find("needs errorRate, or signal and noise"), std::string::npos) << text;
  EXPECT_NE(text.find("spec.channels[2].colour"), std::string::npos) << text;
  EXPECT_TRUE(c.calibrations().empty());
}

}  // namespace
}  // namespace gtw::channel
