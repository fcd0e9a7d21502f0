#pragma once
// Synthetic recordings: raw samples generated from known parameters plus noise, in the format the
// kernels write, marked `synthetic: true`. The fitter's tests check that it recovers the parameters
// within the noise; tests/calibration/fixtures holds one such recording (labelled synthetic) for the
// tests that want a file. Never a substitute for a measurement.
#include <cstdint>

#include "RawSamples.hpp"

namespace gtw::calib {

struct TrueParams {
  double sm_clock_hz = 1.98e9;
  int sms = 132;
  double memory_bytes = 150e9;
  double l2_device_bytes = 60.0 * 1024 * 1024;
  double hbm_copy_bps = 4.3e12;
  double hbm_read_bps = 4.5e12;
  double hbm_write_bps = 4.2e12;
  double launch_t0 = 4e-6;  // fixed time of every launch, seconds
  double fp32 = 60e12, fp16_fma = 120e12, bf16_fma = 120e12;
  double gemm_fp16 = 750e12, gemm_bf16 = 760e12;
  double l1_cycles = 40, l2_cycles = 280, hbm_cycles = 690;
  double l1_bytes = 256.0 * 1024, l2_bytes = 50.0 * 1024 * 1024;
  double h2d_pinned = 50e9, d2h_pinned = 52e9, h2d_pageable = 20e9, d2h_pageable = 18e9, pcie_latency = 8e-6;
  double launch_overhead = 2.5e-6, launch_latency = 9e-6;
  double l2_contention = 0.25;
  double time_slice = 2e-3, context_switch = 40e-6;
  double probe_cycles_idle = 40000, probe_signal_cycles = 6000, probe_noise_cycles = 2500;
  double noise = 0.01;  // relative noise of every timed sample (Gaussian, 1 sigma)
  uint64_t seed = 1;
};

/// A recording of every suite the kernels run (the quick sizes), generated from `p`.
RawRecording synthesize(const TrueParams& p);

}  // namespace gtw::calib
