#include "Arrivals.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace gtw {

ArrivalGenerator::ArrivalGenerator(const ArrivalSpec& spec, RngStream rng, double start)
    : spec_(spec), rng_(rng), now_(start), start_(start) {
  if (spec_.process == ArrivalProcess::TRACE && spec_.trace) {
    const auto& rows = spec_.trace->requests;
    trace_index_ = static_cast<size_t>(std::lower_bound(rows.begin(), rows.end(), spec_.trace_offset.value,
                                                        [](const TraceRequest& r, double t) { return r.time < t; }) -
                                       rows.begin());
  }
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
    case ArrivalProcess::DIURNAL: {
      // Lewis-Shedler thinning against the peak rate.
      const double peak = spec_.rate.value * (1.0 + spec_.amplitude);
      if (peak <= 0) return INF;
      for (;;) {
        now_ += rng_.exponential(peak);
        if (rng_.uniform() * peak <= diurnal_rate(spec_, now_)) return now_;
      }
    }
    case ArrivalProcess::TRACE: {
      if (!spec_.trace || trace_index_ >= spec_.trace->requests.size()) return INF;
      const TraceRequest& r = spec_.trace->requests[trace_index_++];
      trace_prompt_ = r.prompt_tokens;
      trace_output_ = r.output_tokens;
      // Never before the previous arrival (equal times stay in file order).
      now_ = std::max(now_, start_ + (r.time - spec_.trace_offset.value) / spec_.speedup);
      return now_;
    }
  }
  return INF;
}

double diurnal_rate(const ArrivalSpec& spec, double t) {
  const double phase = 2.0 * std::numbers::pi * (t - spec.peak_at.value) / spec.period.value;
  return spec.rate.value * (1.0 + spec.amplitude * std::cos(phase));
}

double mean_rate(const ArrivalSpec& spec) {
  if (spec.process == ArrivalProcess::TRACE) {
    if (!spec.trace || spec.trace->requests.size() < 2) return 0;
    const double span = spec.trace->span() - spec.trace_offset.value;
    const auto& rows = spec.trace->requests;
    const auto first = std::lower_bound(rows.begin(), rows.end(), spec.trace_offset.value,
                                        [](const TraceRequest& r, double t) { return r.time < t; });
    return span > 0 ? static_cast<double>(rows.end() - first) / span * spec.speedup : 0;
  }
  if (spec.process != ArrivalProcess::BURSTY) return spec.rate.value;
  const double on = spec.mean_burst.value, off = spec.mean_gap.value;
  return (spec.burst_rate.value * on + spec.rate.value * off) / (on + off);
}

}  // namespace gtw
