#pragma once
// Go's math/rand generator (the pre-1.22 default Source, still what rand.New(rand.NewSource(seed)) and the
// global functions after rand.Seed give): an additive lagged Fibonacci generator x[n] = x[n-607] + x[n-273]
// mod 2^64 (Mitchell and Reeds), seeded from a Lehmer generator xored with a fixed table. The ATC'23 packing
// simulator draws its workload tuning and node order from it, so a run's arrivals and tie-breaks can only be
// reproduced with the same stream. The table is derived here, not copied: Go defines it as the generator's
// state after 7.8e12 steps from seed 1, which a jump-ahead by polynomial powers computes in milliseconds.
// Only the methods the simulator calls are given, each drawing exactly as Go's does (same rejection rules).
#include <array>
#include <cstdint>
#include <vector>

namespace gtw::trace {

class GoRand {
 public:
  explicit GoRand(int64_t seed);

  /// rand.Int63 (and rand.Int on 64-bit): a non-negative 63-bit value.
  int64_t int63();
  /// rand.Int31: the top 31 bits of int63.
  int32_t int31() { return static_cast<int32_t>(int63() >> 32); }
  /// rand.Intn for 0 < n < 2^31 (Int31n: a power of two masks; otherwise rejection above the last full range).
  int intn(int n);
  /// rand.Float64: int63 / 2^63, drawn again in the (unreachable in practice) case of exactly 1.
  double float64();
  /// rand.Shuffle's index draws (Lemire's multiply-shift with rejection) over 0..n-1, swapping as Go does.
  template <class Swap>
  void shuffle(int n, Swap&& swap) {
    for (int i = n - 1; i > 0; --i) swap(i, static_cast<int>(lemire_int31n(static_cast<uint32_t>(i) + 1)));
  }
  /// rand.Perm: a permutation of 0..n-1 built by inside-out insertion with intn(i + 1).
  std::vector<int> perm(int n);

  /// The 607 seeding constants (Go's rngCooked, low 63 bits), as derived.
  static const std::array<uint64_t, 607>& cooked();

 private:
  uint32_t lemire_int31n(uint32_t n);

  std::array<uint64_t, 607> vec_{};
  int tap_ = 0;
  int feed_ = 0;
};

}  // namespace gtw::trace
