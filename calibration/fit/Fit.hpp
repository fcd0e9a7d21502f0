#pragma once
// Raw calibration samples -> model parameters, each with its goodness of fit (CPU only).
//
// Roofline ceilings (HBM bandwidth and FMA rates from size sweeps by least squares, GEMM rate),
// memory latency levels and the L2 size from the pointer-chase curve (three-level piecewise fit),
// host-device bandwidth and latency, launch overhead, the `l2Contention` coefficient of the MPS
// interference model (docs/models/partitions.md) from co-run pairs, the time-slice length and
// context-switch cost from two processes' timelines, and the L2 prime+probe channel's signal and
// noise (docs/models/leakage.md). docs/calibration.md describes each method.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "RawSamples.hpp"
#include "Stats.hpp"

namespace gtw::calib {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// One fitted parameter.
struct Estimate {
  double value = NaN;
  double spread = NaN;  // relative spread of the repeated samples behind it (IQR / median)
  double r2 = NaN;      // goodness of the fit that produced it, when it came from a fit
  double rms = NaN;     // root mean square residual of that fit, in the fit's y units
  size_t n = 0;         // samples or points used
  std::string method;
  bool ok() const { return std::isfinite(value); }
};

/// A kernel of a co-run pair: counted work and the measured times.
struct CorunKernel {
  std::string name;
  double flops = 0;
  double bytes = 0;
  Summary alone;  // seconds per launch
  Summary pair;
  double total_pair = NaN;  // process pairs: the whole loop of `iters` launches, seconds
};
struct CorunPair {
  std::string mode;  // stream | process
  CorunKernel a, b;
  double iters = 1;
};

struct LatencyCurve {
  std::vector<double> footprint;  // bytes
  std::vector<double> cycles;     // median cycles per load
  std::vector<double> ns;         // median ns per load
  std::vector<double> fitted;     // the level assigned to each point (cycles)
};

struct FitResult {
  Estimate sm_clock_hz;
  Estimate hbm_read, hbm_write, hbm_copy;  // bytes/s
  Estimate fp32, fp16_fma, bf16_fma;       // FLOP/s
  Estimate gemm_fp16, gemm_bf16;           // FLOP/s
  std::string gemm_impl;
  Estimate l1_cycles, l2_cycles, hbm_cycles;
  Estimate l1_ns, l2_ns, hbm_ns;
  Estimate l1_bytes, l2_bytes;  // capacities from the chase curve (midpoint crossings)
  LatencyCurve curve;
  Estimate h2d_pinned, d2h_pinned, h2d_pageable, d2h_pageable;  // bytes/s
  Estimate pcie_latency;                                        // s (intercept of pinned H2D)
  Estimate launch_overhead, launch_latency;                     // s
  Estimate p2p;                                                 // bytes/s
  Estimate l2_contention;                                       // coefficient
  Estimate time_slice, context_switch;                          // s
  Estimate probe_rate, probe_signal, probe_noise, probe_error;  // /s, s, s, probability
  std::vector<CorunPair> stream_pairs, process_pairs;
  std::vector<std::string> notes;
};

FitResult fit_recording(const RawRecording& r);

// ---- pieces, exposed for tests ----

/// The decoupled roofline of two kernels started together, shared max-min as the simulator shares
/// them under MPS with activeThreadPercentage 100 (compute rate R split between the kernels still
/// computing, bandwidth W / (1 + c x pressure) between those still moving bytes). Returns the two
/// completion times (seconds).
struct PairTimes {
  double a = 0, b = 0;
};
PairTimes roofline_pair(double fa, double ba, double fb, double bb, double rate, double bandwidth, double c);
/// Scales (flops, bytes) so that the kernel alone takes `alone_s` on the roofline (keeps its intensity).
void anchor_kernel(double& flops, double& bytes, double alone_s, double rate, double bandwidth);
/// Fits c >= 0 minimising the squared relative error of predicted against measured pair times.
Estimate fit_l2_contention(const std::vector<CorunPair>& pairs, double rate, double bandwidth);

/// Three-level piecewise-constant fit of a latency curve (sorted by footprint); returns the levels
/// and the capacities at the midpoint crossings.
struct LevelFit {
  double l1 = NaN, l2 = NaN, hbm = NaN;
  double l1_bytes = NaN, l2_bytes = NaN;
  double r2 = NaN, rms = NaN;
  std::vector<double> fitted;
};
LevelFit fit_levels(const std::vector<double>& footprint, const std::vector<double>& cycles);

/// Context-switch cost and slice length from two processes' gap lists (ns): inside each gap of A,
/// B ran for a while; the rest of the gap is two switches.
struct SwitchFit {
  Estimate slice, cost;
};
SwitchFit fit_context_switch(const std::vector<double>& a_gap_start, const std::vector<double>& a_gap_end,
                             const std::vector<double>& b_span, const std::vector<double>& b_gap_start,
                             const std::vector<double>& b_gap_end, double min_gap_ns);

}  // namespace gtw::calib
