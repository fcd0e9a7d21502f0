// Engine-free model pieces: arrival processes, inference and training cost, hardware profiles.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "Arrivals.hpp"
#include "HardwareProfile.hpp"
#include "Workload.hpp"

namespace gtw {
namespace {

double empirical_rate(ArrivalSpec spec, double horizon) {
  ArrivalGenerator gen(spec, make_stream(9, "test"), 0);
  size_t n = 0;
  double last = 0;
  for (double t = gen.next(); t < horizon; t = gen.next()) {
    EXPECT_GT(t, last);
    last = t;
    ++n;
  }
  return static_cast<double>(n) / horizon;
}

TEST(Arrivals, PoissonAndConstantReachTheirRate) {
  ArrivalSpec p;
  p.process = ArrivalProcess::POISSON;
  p.rate = PerSecond(50);
  EXPECT_NEAR(empirical_rate(p, 20000), 50, 50 * 0.01);
  p.process = ArrivalProcess::CONSTANT;
  EXPECT_NEAR(empirical_rate(p, 100), 50, 0.02);
}

TEST(Arrivals, BurstyProcessHasTheTimeWeightedMeanRateAndIsBurstier) {
  ArrivalSpec b;
  b.process = ArrivalProcess::BURSTY;
  b.rate = PerSecond(1);
  b.burst_rate = PerSecond(21);
  b.mean_burst = Seconds(10);
  b.mean_gap = Seconds(30);
  EXPECT_DOUBLE_EQ(mean_rate(b), (21 * 10 + 1 * 30) / 40.0);
  EXPECT_NEAR(empirical_rate(b, 400000), mean_rate(b), mean_rate(b) * 0.03);
  // Index of dispersion of counts in 10 s bins: 1 for Poisson, well above 1 for bursts.
  ArrivalGenerator gen(b, make_stream(3, "disp"), 0);
  std::vector<double> bins(20000, 0);
  for (double t = gen.next(); t < 200000; t = gen.next()) bins[static_cast<size_t>(t / 10)] += 1;
  double mean = 0, var = 0;
  for (double c : bins) mean += c;
  mean /= static_cast<double>(bins.size());
  for (double c : bins) var += (c - mean) * (c - mean);
  var /= static_cast<double>(bins.size());
  EXPECT_GT(var / mean, 5.0);
}

HardwareProfile h100() {
  HardwareProfile p;
  Diagnostics d;
  EXPECT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "", p, d)) << d.format_all();
  return p;
}

TEST(HardwareProfile, H100ProfileCarriesEveryNumberWithItsSource) {
  const auto p = h100();
  EXPECT_EQ(p.sms, 132);
  EXPECT_DOUBLE_EQ(p.hbm_bandwidth.value, 3.35e12);
  EXPECT_DOUBLE_EQ(p.hbm_achievable.value, 2.57e12);  // NVIDIA/nccl#1264 local copy
  EXPECT_DOUBLE_EQ(p.nvlink_achievable.value, 380e9);
  EXPECT_DOUBLE_EQ(p.pcie_h2d_achievable.value, 35e9);
  EXPECT_DOUBLE_EQ(p.memory.value, 80e9);
  EXPECT_EQ(p.sources.size(),
            24u);  // 19 fields + nvlinkTopology + MIG reconfiguration + 3 confidential-computing costs
  EXPECT_DOUBLE_EQ(p.l2_contention, 0.43);
  for (const auto& [field, source] : p.sources) EXPECT_FALSE(source.empty()) << field;
  EXPECT_EQ(p.sha256.size(), 64u);
}

TEST(HardwareProfile, UnknownProductSuggestsTheKnownOnes) {
  HardwareProfile p;
  Diagnostics d;
  EXPECT_FALSE(load_profile("H100-80GB-SMX", SourceLoc{"s.yaml", 3, 9}, "spec.cluster.nodePools[0].gpu", p, d));
  EXPECT_NE(d.format_all().find("s.yaml:3:9: error: spec.cluster.nodePools[0].gpu: no hardware profile named "
                                "'H100-80GB-SMX'"),
            std::string::npos)
      << d.format_all();
  EXPECT_NE(d.format_all().find("did you mean 'H100-80GB-SXM'"), std::string::npos);
}

TEST(HardwareProfile, MissingInterferenceAndReconfigurationFieldsAreLocatedErrors) {
  const std::string file = std::string(GTW_SOURCE_DIR) + "/calibration/profiles/H100-80GB-SXM.yaml";
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Drop the l2Contention entry (three lines) and rename the MIG reconfiguration key.
  const auto l2 = text.find("  l2Contention:");
  ASSERT_NE(l2, std::string::npos);
  size_t end = l2;
  for (int line = 0; line < 3; ++line) end = text.find('\n', end) + 1;
  text.erase(l2, end - l2);
  const auto rc = text.find("    reconfiguration:");
  ASSERT_NE(rc, std::string::npos);
  text.replace(rc, 20, "    reconfiguraton: ");
  HardwareProfile p;
  Diagnostics diags;
  EXPECT_FALSE(load_profile_text(text, "edited.yaml", p, diags));
  const std::string all = diags.format_all();
  EXPECT_NE(all.find("l2Contention"), std::string::npos) << all;
  EXPECT_NE(all.find("spec.mig.reconfiguration"), std::string::npos) << all;
  EXPECT_NE(all.find("edited.yaml:"), std::string::npos) << all;
}

TEST(HardwareProfile, RooflineTimeIsTheSlowerOfComputeAndMemory) {
  const auto p = h100();
  const double rate = 989.4e12 * 0.7;
  EXPECT_DOUBLE_EQ(p.roofline_time(Flops(rate), Bytes(0)).value, 1.0);
  EXPECT_DOUBLE_EQ(p.roofline_time(Flops(1), Bytes(2.57e12)).value, 1.0);
  EXPECT_NEAR(p.roofline_time(Flops(rate), Bytes(0), DType::FP8).value, 989.4 / 1978.9, 1e-12);
}

TEST(InferenceCost, PrefillAndDecodeFollowTheParameterCount) {
  const auto p = h100();
  WorkloadSpec w;
  w.kind = WorkloadKind::INFERENCE;
  w.model.parameters = 8e9;
  w.model.dtype = DType::FP16;
  w.prompt_tokens = 512;
  w.output_tokens = 128;
  const auto c = inference_batch_cost(w, p, 16);
  EXPECT_DOUBLE_EQ(c.prefill_flops, 2 * 8e9 * 16 * 512);
  EXPECT_DOUBLE_EQ(c.prefill_bytes, 16e9);  // one read of the fp16 weights
  EXPECT_DOUBLE_EQ(c.decode_flops, 2 * 8e9 * 16 * 128);
  EXPECT_DOUBLE_EQ(c.decode_bytes, 16e9 * 128);  // weights read once per generated token
  EXPECT_DOUBLE_EQ(workload_memory(w), 16e9 * 1.3);
  w.model.dtype = DType::FP8;  // twice the tensor rate: half the FP16-equivalent work
  EXPECT_NEAR(inference_batch_cost(w, p, 16).prefill_flops, 2 * 8e9 * 16 * 512 * 989.4 / 1978.9, 1e3);
}

}  // namespace
}  // namespace gtw
