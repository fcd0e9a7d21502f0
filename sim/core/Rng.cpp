#include "Rng.hpp"

#include <cmath>

namespace gtw {

uint64_t RngStream::next_u64() {
  // splitmix64: small state, passes BigCrush, fully reproducible.
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double RngStream::uniform() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double RngStream::exponential(double rate) {
  return -std::log1p(-uniform()) / rate;
}

double RngStream::normal(double mean, double stddev) {
  // Box-Muller; one draw per call keeps the stream position simple to reason about.
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double RngStream::lognormal(double median, double sigma) {
  return median * std::exp(normal(0.0, sigma));
}

RngStream make_stream(uint64_t seed, std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  RngStream mixer(seed ^ h);
  return RngStream(mixer.next_u64());
}

}  // namespace gtw
