#pragma once
// Arrival processes: Poisson, bursty (two-state Markov-modulated Poisson) and constant.
#include "sim/core/Rng.hpp"
#include "sim/scenario/Scenario.hpp"

namespace gtw {

class ArrivalGenerator {
 public:
  ArrivalGenerator(const ArrivalSpec& spec, RngStream rng, double start);
  /// Time of the next arrival (strictly after the previous one); +inf when the process is silent forever.
  double next();

 private:
  ArrivalSpec spec_;
  RngStream rng_;
  double now_;
  bool in_burst_ = false;
  double state_end_ = 0;  // BURSTY: when the current state ends
};

/// Mean rate of the process (bursty: time-weighted mean of both states).
double mean_rate(const ArrivalSpec& spec);

}  // namespace gtw
