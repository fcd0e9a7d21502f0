#pragma once
// Strong unit types. Quantities are parsed once from strings such as "80GiB", "2ms", "400Gb/s",
// "3.35TB/s" or "989TFLOP/s" into SI base units (bytes, seconds, bytes/s, flop/s) and never
// re-parsed downstream.
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace gtw {

template <class Tag>
struct Quantity {
  double value = 0.0;
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value(v) {}
  constexpr auto operator<=>(const Quantity&) const = default;
  constexpr Quantity operator+(Quantity o) const { return Quantity(value + o.value); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value - o.value); }
  constexpr Quantity operator*(double k) const { return Quantity(value * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value / k); }
  constexpr Quantity& operator+=(Quantity o) {
    value += o.value;
    return *this;
  }
};

struct BytesTag {};
struct SecondsTag {};
struct BytesPerSecondTag {};
struct FlopsTag {};
struct FlopsPerSecondTag {};
struct PerSecondTag {};

using Bytes = Quantity<BytesTag>;
using Seconds = Quantity<SecondsTag>;
using BytesPerSecond = Quantity<BytesPerSecondTag>;
using Flops = Quantity<FlopsTag>;
using FlopsPerSecond = Quantity<FlopsPerSecondTag>;
using PerSecond = Quantity<PerSecondTag>;  // event rates (requests/s)

inline Seconds operator/(Bytes b, BytesPerSecond bw) {
  return Seconds(b.value / bw.value);
}
inline Seconds operator/(Flops f, FlopsPerSecond r) {
  return Seconds(f.value / r.value);
}

/// Result of parsing a quantity: the value, or a message saying what was expected.
template <class Q>
struct ParseResult {
  std::optional<Q> quantity;
  std::string error;  // empty on success
  explicit operator bool() const { return quantity.has_value(); }
};

// Each parser accepts a number followed by a unit. Units are case-sensitive where SI needs it
// (b = bit, B = byte; m = milli, M = mega). Negative values are refused; zero is allowed.
ParseResult<Bytes> parse_bytes(std::string_view text);               // 512, 4KiB, 80GiB, 1.5TB
ParseResult<Seconds> parse_duration(std::string_view text);          // 250ns, 2us, 3ms, 1.5s, 10m, 2h, 1d
ParseResult<BytesPerSecond> parse_bandwidth(std::string_view text);  // 400Gb/s, 3.35TB/s, 64GiB/s, 25GBps
ParseResult<FlopsPerSecond> parse_flop_rate(std::string_view text);  // 989TFLOP/s, 67TFLOPS, 1.2PF/s
ParseResult<Flops> parse_flops(std::string_view text);               // 3.2TFLOP, 1e12, 5GF
ParseResult<PerSecond> parse_rate(std::string_view text);            // 200/s, 30/min, 1000/h, 5Hz
/// Plain counts with optional SI suffix: "7B" = 7e9 (model parameters), "128k" = 128000, "1e6".
ParseResult<double> parse_count(std::string_view text);

/// Human-readable formatting used in reports ("2.50 ms", "80.0 GiB", "3.35 TB/s").
std::string format_duration(Seconds s);
std::string format_bytes(Bytes b);
std::string format_bandwidth(BytesPerSecond bw);

}  // namespace gtw
