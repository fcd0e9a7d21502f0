#pragma once
// A token bucket (a per-client rate limit at a service's front end): `rate` tokens per second accrue up to
// `capacity`; a request takes one token or is refused. Used for spec.policies.isolation.queryRateLimit
// (docs/models/leakage.md, "Query extraction").
#include <algorithm>

namespace gtw {

class TokenBucket {
 public:
  /// capacity <= 0: one second of tokens (at least one).
  TokenBucket(double rate, double capacity, double now)
      : rate_(rate), capacity_(capacity > 0 ? capacity : std::max(1.0, rate)), tokens_(capacity_), last_(now) {}

  /// Takes a token at time `now` (non-decreasing); false when none is left.
  bool take(double now) {
    tokens_ = std::min(capacity_, tokens_ + (now - last_) * rate_);
    last_ = std::max(last_, now);
    if (tokens_ < 1 - 1e-9) return false;  // a token that accrued up to rounding counts
    tokens_ -= 1;
    return true;
  }

  double capacity() const { return capacity_; }

 private:
  double rate_;
  double capacity_;
  double tokens_;
  double last_;
};

}  // namespace gtw
