#pragma once
// Seeded, named random streams. Every stochastic model draws from its own stream, derived from the
// run seed and a stable name ("arrivals/chat-svc"), so adding a model never shifts another's draws.
// Distributions are implemented here (not std::*_distribution) so results do not depend on the
// standard library's implementation.
#include <cstdint>
#include <string_view>

namespace gtw {

class RngStream {
 public:
  explicit RngStream(uint64_t seed) : state_(seed) {}
  uint64_t next_u64();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Exponential with the given rate (mean 1/rate).
  double exponential(double rate);
  /// Log-normal with the given median and sigma of the underlying normal.
  double lognormal(double median, double sigma);
  double normal(double mean, double stddev);

 private:
  uint64_t state_;
};

/// Stream for (seed, name): splitmix64 over the seed mixed with the FNV-1a hash of the name.
RngStream make_stream(uint64_t seed, std::string_view name);

}  // namespace gtw
