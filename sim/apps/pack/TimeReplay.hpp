#pragma once
// Time-based replay of the openb trace: every pod arrives at its creation time and leaves at its
// deletion time. openb's intervals are a sample that never contends on the full cluster (peak demand
// about 66 GPUs of 6,212), so arrivals are compressed by `arrival_speedup` while each pod keeps its own
// lifetime: the arrival rate grows k-fold and the cluster fills. A pod that fits nowhere when it
// arrives fails (no queue, as in the packing experiment).
#include <cstdint>
#include <string>
#include <vector>

#include "PackingReplay.hpp"

namespace gtw::trace {

/// Points of the sampled series at most (a year of replayed time at one point a minute is ~525,600).
inline constexpr size_t MAX_SERIES_POINTS = 1'000'000;

struct TimeReplayOptions {
  ReplayOptions replay;
  double arrival_speedup = 1.0;  // k: arrival i at t0 + (creation_i - t0) / k; lifetimes unchanged
  double sample_every = 3600;    // seconds of replayed time between points of the series
};

struct TimePoint {
  double time = 0;  // seconds since the first arrival
  double allocated_pct = 0;
  double frag_pct = 0;
  int64_t running_pods = 0;
  int64_t arrived = 0;
  int64_t failed_pods = 0;
};

struct TimeReplayResult {
  std::string policy;
  double arrival_speedup = 1;
  int64_t arrivals = 0;
  int64_t departures = 0;
  int64_t failed_pods = 0;
  int64_t failed_gpu_pods = 0;
  double peak_allocated_pct = 0;
  double mean_allocated_pct = 0;  // time-weighted, from the first to the last arrival
  double mean_frag_pct = 0;       // likewise
  double span = 0;                // seconds from the first to the last arrival
  std::vector<TimePoint> series;
  std::vector<int> decisions;  // node of each pod (in input.arrivals order), -1 when it failed
  double wall_seconds = 0;
};

/// `pods` are the pod list the input was built from (their creation and deletion times); every pod of
/// input.arrivals must have a creation time (InputError otherwise).
TimeReplayResult run_time_replay(const PackingInput& input, const std::vector<OpenbPod>& pods,
                                 const std::string& policy, const TimeReplayOptions& options);

}  // namespace gtw::trace
