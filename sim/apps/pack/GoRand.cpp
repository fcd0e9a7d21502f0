#include "GoRand.hpp"

#include <stdexcept>

namespace gtw::trace {

namespace {

constexpr int LEN = 607;  // the long lag
constexpr int TAP = 273;  // the short lag
constexpr uint64_t MASK63 = (uint64_t{1} << 63) - 1;
constexpr int32_t LEHMER_M = 2147483647;  // 2^31 - 1

// x * 48271 mod (2^31 - 1) without overflow (Schrage's method), the seeding generator.
int32_t lehmer(int32_t x) {
  const int32_t hi = x / 44488;
  const int32_t lo = x % 44488;
  x = 48271 * lo - 3399 * hi;
  return x < 0 ? x + LEHMER_M : x;
}

using Poly = std::vector<uint64_t>;  // coefficients mod 2^64, lowest degree first

// a * b mod (z^607 - z^334 - 1): the characteristic polynomial of x[n] = x[n-273] + x[n-607] written forward
// (z^607 = z^334 + 1), so z^N mod it gives x[N + j] as a combination of x[j .. j + 606].
Poly mul_mod(const Poly& a, const Poly& b) {
  Poly r(2 * LEN - 1, 0);
  for (int i = 0; i < LEN; ++i) {
    if (a[static_cast<size_t>(i)] == 0) continue;
    for (int j = 0; j < LEN; ++j)
      r[static_cast<size_t>(i + j)] += a[static_cast<size_t>(i)] * b[static_cast<size_t>(j)];
  }
  for (int k = 2 * LEN - 2; k >= LEN; --k) {
    const uint64_t c = r[static_cast<size_t>(k)];
    r[static_cast<size_t>(k - LEN + (LEN - TAP))] += c;  // z^k = z^(k-607) * (z^334 + 1)
    r[static_cast<size_t>(k - LEN)] += c;
  }
  r.resize(LEN);
  return r;
}

// The register's seed words: after 20 discarded Lehmer steps, each word xors three successive Lehmer values
// shifted by `high`, `middle` and 0 bits (Go seeds with 40 and 20; its table was made with 20 and 10).
std::array<uint64_t, LEN> lehmer_words(int32_t x, int high, int middle) {
  std::array<uint64_t, LEN> words{};
  for (int i = -20; i < LEN; ++i) {
    x = lehmer(x);
    if (i < 0) continue;
    uint64_t u = static_cast<uint64_t>(x) << high;
    x = lehmer(x);
    u ^= static_cast<uint64_t>(x) << middle;
    x = lehmer(x);
    u ^= static_cast<uint64_t>(x);
    words[static_cast<size_t>(i)] = u;
  }
  return words;
}

// Go's table: the register of the unmixed generator (64-bit words, seeding shifts 20 and 10) seeded with 1,
// after 7.8e12 steps (math/rand's gen_cooked.go). Register cell p is rewritten at step n when
// p = (334 - n) mod 607, by x[n] = x[n - 607] + x[n - 273], x[n] for n in -606..0 being the initial cell
// (334 - n) mod 607; after N steps cell p holds the x[n] of the last step n <= N that wrote it.
std::array<uint64_t, LEN> derive_cooked() {
  constexpr uint64_t STEPS = 7800000000000ULL;
  const std::array<uint64_t, LEN> start = lehmer_words(1, 20, 10);
  // The sequence from x[-606] to x[606], stored at offset 606.
  std::vector<uint64_t> seq(2 * LEN - 1);
  const auto cell = [](int64_t n) { return static_cast<size_t>(((334 - n) % LEN + LEN) % LEN); };
  for (int n = -(LEN - 1); n <= 0; ++n) seq[static_cast<size_t>(n + LEN - 1)] = start[cell(n)];
  for (int n = 1; n < LEN; ++n)
    seq[static_cast<size_t>(n + LEN - 1)] =
        seq[static_cast<size_t>(n - LEN + LEN - 1)] + seq[static_cast<size_t>(n - TAP + LEN - 1)];
  // z^STEPS mod the characteristic polynomial, by squaring.
  Poly result(LEN, 0), base(LEN, 0);
  result[0] = 1;
  base[1] = 1;
  for (uint64_t e = STEPS; e > 0; e >>= 1) {
    if (e & 1) result = mul_mod(result, base);
    if (e > 1) base = mul_mod(base, base);
  }
  // x[STEPS - 606 + j] = sum_i result[i] * x[j - 606 + i], for j = 0..606: the last 607 values written.
  std::array<uint64_t, LEN> cooked{};
  for (int j = 0; j < LEN; ++j) {
    uint64_t v = 0;
    for (int i = 0; i < LEN; ++i) v += result[static_cast<size_t>(i)] * seq[static_cast<size_t>(j + i)];
    const int64_t n = static_cast<int64_t>(STEPS) - (LEN - 1) + j;
    cooked[cell(n)] = v & MASK63;
  }
  return cooked;
}

}  // namespace

const std::array<uint64_t, 607>& GoRand::cooked() {
  static const std::array<uint64_t, LEN> table = derive_cooked();
  return table;
}

GoRand::GoRand(int64_t seed) : tap_(0), feed_(LEN - TAP) {
  seed %= LEHMER_M;
  if (seed < 0) seed += LEHMER_M;
  if (seed == 0) seed = 89482311;
  const auto& table = cooked();
  const std::array<uint64_t, LEN> words = lehmer_words(static_cast<int32_t>(seed), 40, 20);
  for (size_t i = 0; i < LEN; ++i) vec_[i] = (words[i] ^ table[i]) & MASK63;
}

int64_t GoRand::int63() {
  if (--tap_ < 0) tap_ += LEN;
  if (--feed_ < 0) feed_ += LEN;
  const uint64_t v = (vec_[static_cast<size_t>(feed_)] + vec_[static_cast<size_t>(tap_)]) & MASK63;
  vec_[static_cast<size_t>(feed_)] = v;
  return static_cast<int64_t>(v);
}

int GoRand::intn(int n) {
  if (n <= 0) throw std::invalid_argument("GoRand::intn: n must be positive");
  if ((n & (n - 1)) == 0) return int31() & (n - 1);
  const auto limit =
      static_cast<int32_t>(2147483647 - static_cast<int32_t>((uint32_t{1} << 31) % static_cast<uint32_t>(n)));
  int32_t v = int31();
  while (v > limit) v = int31();
  return v % n;
}

double GoRand::float64() {
  for (;;) {
    const double f = static_cast<double>(int63()) / 9223372036854775808.0;
    if (f != 1.0) return f;
  }
}

uint32_t GoRand::lemire_int31n(uint32_t n) {
  auto draw = [this] { return static_cast<uint32_t>(int63() >> 31); };
  uint64_t prod = uint64_t{draw()} * n;
  auto low = static_cast<uint32_t>(prod);
  if (low < n) {
    const uint32_t thresh = (0U - n) % n;
    while (low < thresh) {
      prod = uint64_t{draw()} * n;
      low = static_cast<uint32_t>(prod);
    }
  }
  return static_cast<uint32_t>(prod >> 32);
}

std::vector<int> GoRand::perm(int n) {
  std::vector<int> m(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const int j = intn(i + 1);
    m[static_cast<size_t>(i)] = m[static_cast<size_t>(j)];
    m[static_cast<size_t>(j)] = i;
  }
  return m;
}

}  // namespace gtw::trace
