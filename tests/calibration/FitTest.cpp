// The fitter recovers known parameters from synthetic samples generated with them plus noise.
#include <gtest/gtest.h>

#include <cmath>

#include "Fit.hpp"
#include "Stats.hpp"
#include "Synthetic.hpp"

using namespace gtw::calib;

namespace {

// |got - want| / want within `tol`.
::testing::AssertionResult Near(const char* what, double got, double want, double tol) {
  const double rel = std::fabs(got - want) / std::fabs(want);
  if (std::isfinite(got) && rel <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": got " << got << ", want " << want << " (relative error " << rel
                                       << " > " << tol << ")";
}

}  // namespace

TEST(CalibrationStats, LinearFitOfAnExactLine) {
  const std::vector<double> x{1, 2, 3, 4}, y{3, 5, 7, 9};
  const LinearFit f = fit_linear(x, y);
  ASSERT_TRUE(f.ok);
  EXPECT_DOUBLE_EQ(f.slope, 2);
  EXPECT_DOUBLE_EQ(f.intercept, 1);
  EXPECT_DOUBLE_EQ(f.r2, 1);
  EXPECT_NEAR(f.rms_residual, 0, 1e-12);
  EXPECT_FALSE(fit_linear({1, 1}, {2, 3}).ok);  // no spread in x
}

TEST(CalibrationStats, RobustSpread) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(quantile({0, 10}, 0.25), 2.5);
  EXPECT_NEAR(mad_sigma({1, 2, 3, 4, 100}), 1.4826, 1e-9);  // one outlier does not move it
  EXPECT_NEAR(normal_q(0), 0.5, 1e-12);
  EXPECT_NEAR(normal_q(1.8497), 0.0322, 1e-4);
}

// The same analytic check the engine test reproduces (validation-targets.md section 4): P = 100
// TFLOP/s, 2 TB/s, KC = 1e14 flop + 0.5e12 B, KM = 1e13 flop + 2e12 B; together 1.1 s and 1.25 s.
TEST(CalibrationFit, RooflinePairMatchesTheDecoupledAnalyticCheck) {
  const PairTimes t = roofline_pair(1e14, 0.5e12, 1e13, 2e12, 100e12, 2e12, 0.0);
  EXPECT_NEAR(t.a, 1.1, 1e-9);
  EXPECT_NEAR(t.b, 1.25, 1e-9);
  // Two pure memory kernels with l2Contention c: 2 x alone x (1 + c).
  const PairTimes m = roofline_pair(0, 1e12, 0, 1e12, 100e12, 2e12, 0.43);
  EXPECT_NEAR(m.a, 2 * 0.5 * 1.43, 1e-9);
  EXPECT_NEAR(m.b, 2 * 0.5 * 1.43, 1e-9);
}

TEST(CalibrationFit, LevelsAndCapacitiesOfACleanChaseCurve) {
  std::vector<double> fp, cyc;
  for (double f = 4096; f <= 512.0 * 1048576; f *= 2) {
    fp.push_back(f);
    cyc.push_back(f <= 128 * 1024 ? 40 : (f <= 32.0 * 1048576 ? 280 : 690));
  }
  const LevelFit lv = fit_levels(fp, cyc);
  EXPECT_DOUBLE_EQ(lv.l1, 40);
  EXPECT_DOUBLE_EQ(lv.l2, 280);
  EXPECT_DOUBLE_EQ(lv.hbm, 690);
  EXPECT_DOUBLE_EQ(lv.r2, 1);
  // The midpoint crossing lies between the last point of a level and the first of the next.
  EXPECT_GT(lv.l1_bytes, 128 * 1024);
  EXPECT_LT(lv.l1_bytes, 256 * 1024);
  EXPECT_GT(lv.l2_bytes, 32.0 * 1048576);
  EXPECT_LT(lv.l2_bytes, 64.0 * 1048576);
}

TEST(CalibrationFit, RecoversExactParametersWithoutNoise) {
  TrueParams p;
  p.noise = 0;
  p.probe_noise_cycles = 2500;  // the channel noise is a parameter, not measurement noise
  const FitResult f = fit_recording(synthesize(p));
  EXPECT_TRUE(Near("hbm copy", f.hbm_copy.value, p.hbm_copy_bps, 1e-9));
  EXPECT_TRUE(Near("hbm read", f.hbm_read.value, p.hbm_read_bps, 1e-9));
  EXPECT_TRUE(Near("fp32", f.fp32.value, p.fp32, 1e-9));
  EXPECT_TRUE(Near("gemm fp16", f.gemm_fp16.value, p.gemm_fp16, 1e-9));
  EXPECT_TRUE(Near("h2d pinned", f.h2d_pinned.value, p.h2d_pinned, 1e-9));
  EXPECT_TRUE(Near("pcie latency", f.pcie_latency.value, p.pcie_latency, 1e-6));
  EXPECT_TRUE(Near("l2Contention", f.l2_contention.value, p.l2_contention, 1e-4));
  EXPECT_NEAR(f.l2_contention.r2, 1, 1e-9);
  EXPECT_TRUE(Near("context switch", f.context_switch.value, p.context_switch, 1e-6));
  EXPECT_DOUBLE_EQ(f.hbm_copy.r2, 1);
}

// With 1% noise on every timed sample, every parameter comes back within a few times the noise
// (the regressions and medians average it down; the tolerances are loose on purpose: the test must
// not depend on the seed).
TEST(CalibrationFit, RecoversParametersWithinTheNoise) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    TrueParams p;
    p.seed = seed;
    p.noise = 0.01;
    const FitResult f = fit_recording(synthesize(p));
    const double tol = 3 * p.noise;
    EXPECT_TRUE(Near("hbm copy", f.hbm_copy.value, p.hbm_copy_bps, tol));
    EXPECT_TRUE(Near("hbm read", f.hbm_read.value, p.hbm_read_bps, tol));
    EXPECT_TRUE(Near("hbm write", f.hbm_write.value, p.hbm_write_bps, tol));
    EXPECT_GT(f.hbm_copy.r2, 0.99);
    EXPECT_TRUE(Near("fp32", f.fp32.value, p.fp32, tol));
    EXPECT_TRUE(Near("fp16 fma", f.fp16_fma.value, p.fp16_fma, tol));
    EXPECT_TRUE(Near("bf16 fma", f.bf16_fma.value, p.bf16_fma, tol));
    EXPECT_TRUE(Near("gemm fp16", f.gemm_fp16.value, p.gemm_fp16, tol));
    EXPECT_TRUE(Near("gemm bf16", f.gemm_bf16.value, p.gemm_bf16, tol));
    EXPECT_TRUE(Near("clock", f.sm_clock_hz.value, p.sm_clock_hz, tol));
    EXPECT_TRUE(Near("L1 latency", f.l1_cycles.value, p.l1_cycles, tol));
    EXPECT_TRUE(Near("L2 latency", f.l2_cycles.value, p.l2_cycles, tol));
    EXPECT_TRUE(Near("HBM latency", f.hbm_cycles.value, p.hbm_cycles, tol));
    EXPECT_TRUE(Near("L2 capacity", f.l2_bytes.value, p.l2_bytes, 0.08));
    EXPECT_TRUE(Near("L1 capacity", f.l1_bytes.value, p.l1_bytes, 0.15));
    EXPECT_GT(f.l2_cycles.r2, 0.95);  // the points on the steps between levels cost a little
    EXPECT_TRUE(Near("h2d pinned", f.h2d_pinned.value, p.h2d_pinned, tol));
    EXPECT_TRUE(Near("d2h pinned", f.d2h_pinned.value, p.d2h_pinned, tol));
    EXPECT_TRUE(Near("launch overhead", f.launch_overhead.value, p.launch_overhead, tol));
    // l2Contention: pair times carry 1% noise each; c enters as (1 + c), so its error is about
    // noise x (1 + c) / c.
    EXPECT_NEAR(f.l2_contention.value, p.l2_contention, 3 * p.noise * (1 + p.l2_contention));
    EXPECT_TRUE(Near("context switch", f.context_switch.value, p.context_switch, tol));
    EXPECT_TRUE(Near("time slice", f.time_slice.value, p.time_slice, 0.05));
    // The probe distributions are Gaussian: signal and noise from 1800 samples each.
    EXPECT_TRUE(Near("probe signal", f.probe_signal.value, p.probe_signal_cycles / p.sm_clock_hz, 0.05));
    EXPECT_TRUE(Near("probe noise", f.probe_noise.value, p.probe_noise_cycles / p.sm_clock_hz, 0.08));
    const double q = normal_q(p.probe_signal_cycles / (2 * p.probe_noise_cycles));
    EXPECT_NEAR(f.probe_error.value, q, 0.03);
  }
}

TEST(CalibrationFit, MissingExperimentsAreNotInvented) {
  RawRecording r;
  r.metadata["device"] = "empty";
  const FitResult f = fit_recording(r);
  EXPECT_FALSE(f.hbm_copy.ok());
  EXPECT_FALSE(f.l2_contention.ok());
  EXPECT_FALSE(f.context_switch.ok());
  EXPECT_FALSE(f.probe_signal.ok());
}
