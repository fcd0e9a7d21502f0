#include "models/workload/Arrivals.hpp"

#include <limits>

namespace gtw {

ArrivalGenerator::ArrivalGenerator(const ArrivalSpec& spec, RngStream rng, double start)
    : spec_(spec), rng_(rng), now_(start) {
  if (spec_.process == ArrivalProcess::BURSTY) {
    // Start in the stationary state distribution so the first seconds are not biased.
    const double p_burst = spec_.mean_burst.value / (spec_.mean_burst.value + spec_.mean_gap.value);
    in_burst_ = rng_.uniform() < p_burst;
    state_end_ = now_ + rng_.exponential(1.0 / (in_burst_ ? spec_.mean_burst.value : spec_.mean_gap.value));
  }
}

double ArrivalGenerator::next() {
  constexpr double INF = std::numeric_limits<double>::infinity();
  switch (spec_.process) {
    case ArrivalProcess::POISSON:
      if (spec_.rate.value <= 0) return INF;
      now_ += rng_.exponential(spec_.rate.value);
      return now_;
    case ArrivalProcess::CONSTANT:
      if (spec_.rate.value <= 0) return INF;
      now_ += 1.0 / spec_.rate.value;
      return now_;
    case ArrivalProcess::BURSTY:
      if (spec_.rate.value <= 0 && spec_.burst_rate.value <= 0) return INF;
      for (;;) {
        const double rate = in_burst_ ? spec_.burst_rate.value : spec_.rate.value;
        // Memorylessness: a candidate past the end of the state is discarded and redrawn there.
        const double candidate = rate > 0 ? now_ + rng_.exponential(rate) : INF;
        if (candidate <= state_end_) {
          now_ = candidate;
          return now_;
        }
        now_ = state_end_;
        in_burst_ = !in_burst_;
        state_end_ = now_ + rng_.exponential(1.0 / (in_burst_ ? spec_.mean_burst.value : spec_.mean_gap.value));
      }
  }
  return INF;
}

double mean_rate(const ArrivalSpec& spec) {
  if (spec.process != ArrivalProcess::BURSTY) return spec.rate.value;
  const double on = spec.mean_burst.value, off = spec.mean_gap.value;
  return (spec.burst_rate.value * on + spec.rate.value * off) / (on + off);
}

}  // namespace gtw
