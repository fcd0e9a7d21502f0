#pragma once
// Arrival processes: Poisson, bursty (two-state Markov-modulated Poisson), constant, diurnal
// (sinusoidally modulated Poisson, by thinning) and replayed request traces.
#include "Rng.hpp"
#include "Scenario.hpp"

namespace gtw {

class ArrivalGenerator {
 public:
  ArrivalGenerator(const ArrivalSpec& spec, RngStream rng, double start);
  /// Time of the next arrival (strictly after the previous one); +inf when the process is silent forever.
  double next();
  /// Tokens of the request `next()` last returned: the trace's for TRACE, else the workload's.
  int prompt_tokens(int fallback) const { return trace_prompt_ >= 0 ? trace_prompt_ : fallback; }
  int output_tokens(int fallback) const { return trace_output_ >= 0 ? trace_output_ : fallback; }

 private:
  ArrivalSpec spec_;
  RngStream rng_;
  double now_;
  bool in_burst_ = false;
  double state_end_ = 0;  // BURSTY: when the current state ends
  double start_ = 0;
  size_t trace_index_ = 0;  // TRACE: the next row
  int trace_prompt_ = -1, trace_output_ = -1;
};

/// DIURNAL: the instantaneous rate at time t.
double diurnal_rate(const ArrivalSpec& spec, double t);

/// Mean rate of the process (bursty: time-weighted mean of both states).
double mean_rate(const ArrivalSpec& spec);

}  // namespace gtw
