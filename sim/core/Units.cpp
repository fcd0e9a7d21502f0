#include "Units.hpp"

#include "Text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace gtw {
namespace {

struct UnitFactor {
  std::string_view suffix;
  double factor;
};

// Splits "3.35TB/s" into 3.35 and "TB/s". Returns false when no number leads the text.
bool split_number(std::string_view text, double& number, std::string_view& unit) {
  text = trim(text);
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || ptr == begin) return false;
  unit = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  return std::isfinite(number);
}

std::string join_suffixes(const UnitFactor* table, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (table[i].suffix.empty()) continue;
    if (!out.empty()) out += ", ";
    out += table[i].suffix;
  }
  return out;
}

template <class Q, size_t N>
ParseResult<Q> parse_with(std::string_view text, const std::array<UnitFactor, N>& table, std::string_view what,
                          std::string_view example, bool unit_required) {
  ParseResult<Q> result;
  double number = 0;
  std::string_view unit;
  if (!split_number(text, number, unit)) {
    result.error = "expected " + std::string(what) + " such as \"" + std::string(example) + "\", got \"" +
                   std::string(text) + "\"";
    return result;
  }
  if (number < 0) {
    result.error = std::string(what) + " must not be negative, got \"" + std::string(text) + "\"";
    return result;
  }
  if (unit.empty() && unit_required) {
    result.error = std::string(what) + " needs a unit (one of " + join_suffixes(table.data(), N) + "), got \"" +
                   std::string(text) + "\"";
    return result;
  }
  for (const auto& entry : table) {
    if (entry.suffix == unit) {
      result.quantity = Q(number * entry.factor);
      return result;
    }
  }
  result.error = "unknown unit \"" + std::string(unit) + "\" for " + std::string(what) +
                 "; valid units: " + join_suffixes(table.data(), N);
  return result;
}

constexpr double KI = 1024.0;

}  // namespace

ParseResult<Bytes> parse_bytes(std::string_view text) {
  static constexpr std::array<UnitFactor, 16> table{{{"B", 1},
                                                     {"KiB", KI},
                                                     {"MiB", KI * KI},
                                                     {"GiB", KI * KI * KI},
                                                     {"TiB", KI * KI * KI * KI},
                                                     {"PiB", KI * KI * KI * KI * KI},
                                                     {"kB", 1e3},
                                                     {"KB", 1e3},
                                                     {"MB", 1e6},
                                                     {"GB", 1e9},
                                                     {"TB", 1e12},
                                                     {"PB", 1e15},
                                                     {"Ki", KI},
                                                     {"Mi", KI * KI},
                                                     {"Gi", KI * KI * KI},
                                                     {"Ti", KI * KI * KI * KI}}};
  return parse_with<Bytes>(text, table, "a size", "80GiB", true);
}

ParseResult<Seconds> parse_duration(std::string_view text) {
  static constexpr std::array<UnitFactor, 9> table{{{"ns", 1e-9},
                                                    {"us", 1e-6},
                                                    {"µs", 1e-6},
                                                    {"ms", 1e-3},
                                                    {"s", 1},
                                                    {"m", 60},
                                                    {"min", 60},
                                                    {"h", 3600},
                                                    {"d", 86400}}};
  return parse_with<Seconds>(text, table, "a duration", "2ms", true);
}

ParseResult<BytesPerSecond> parse_bandwidth(std::string_view text) {
  static constexpr std::array<UnitFactor, 18> table{{{"B/s", 1},
                                                     {"kB/s", 1e3},
                                                     {"MB/s", 1e6},
                                                     {"GB/s", 1e9},
                                                     {"TB/s", 1e12},
                                                     {"KiB/s", KI},
                                                     {"MiB/s", KI * KI},
                                                     {"GiB/s", KI * KI * KI},
                                                     {"TiB/s", KI * KI * KI * KI},
                                                     {"MBps", 1e6},
                                                     {"GBps", 1e9},
                                                     {"TBps", 1e12},
                                                     {"b/s", 0.125},
                                                     {"kb/s", 1e3 / 8},
                                                     {"Mb/s", 1e6 / 8},
                                                     {"Gb/s", 1e9 / 8},
                                                     {"Tb/s", 1e12 / 8},
                                                     {"Gbps", 1e9 / 8}}};
  return parse_with<BytesPerSecond>(text, table, "a bandwidth", "400Gb/s", true);
}

ParseResult<FlopsPerSecond> parse_flop_rate(std::string_view text) {
  static constexpr std::array<UnitFactor, 15> table{{{"FLOP/s", 1},
                                                     {"GFLOP/s", 1e9},
                                                     {"TFLOP/s", 1e12},
                                                     {"PFLOP/s", 1e15},
                                                     {"FLOPS", 1},
                                                     {"GFLOPS", 1e9},
                                                     {"TFLOPS", 1e12},
                                                     {"PFLOPS", 1e15},
                                                     {"f", 1},
                                                     {"Gf", 1e9},
                                                     {"Tf", 1e12},
                                                     {"Pf", 1e15},
                                                     {"GF/s", 1e9},
                                                     {"TF/s", 1e12},
                                                     {"PF/s", 1e15}}};
  return parse_with<FlopsPerSecond>(text, table, "a compute rate", "989TFLOP/s", true);
}

ParseResult<Flops> parse_flops(std::string_view text) {
  static constexpr std::array<UnitFactor, 9> table{{{"", 1},
                                                    {"FLOP", 1},
                                                    {"GFLOP", 1e9},
                                                    {"TFLOP", 1e12},
                                                    {"PFLOP", 1e15},
                                                    {"EFLOP", 1e18},
                                                    {"GF", 1e9},
                                                    {"TF", 1e12},
                                                    {"PF", 1e15}}};
  return parse_with<Flops>(text, table, "an amount of work in floating-point operations", "3.2TFLOP", false);
}

ParseResult<PerSecond> parse_rate(std::string_view text) {
  static constexpr std::array<UnitFactor, 7> table{{{"/s", 1},
                                                    {"/ms", 1e3},
                                                    {"/min", 1.0 / 60},
                                                    {"/m", 1.0 / 60},
                                                    {"/h", 1.0 / 3600},
                                                    {"/d", 1.0 / 86400},
                                                    {"Hz", 1}}};
  return parse_with<PerSecond>(text, table, "a rate", "200/s", true);
}

ParseResult<double> parse_count(std::string_view text) {
  static constexpr std::array<UnitFactor, 6> table{
      {{"", 1}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"T", 1e12}}};
  ParseResult<double> result;
  auto q = parse_with<Quantity<PerSecondTag>>(text, table, "a count", "7B", false);
  if (q.quantity) result.quantity = q.quantity->value;
  result.error = q.error;
  return result;
}

namespace {
std::string printf_string(const char* fmt, double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v, unit);
  return buf;
}
}  // namespace

std::string format_duration(Seconds s) {
  const double v = s.value;
  if (v == 0) return "0 s";
  if (v < 1e-6) return printf_string("%.1f %s", v * 1e9, "ns");
  if (v < 1e-3) return printf_string("%.1f %s", v * 1e6, "us");
  if (v < 1.0) return printf_string("%.2f %s", v * 1e3, "ms");
  if (v < 120) return printf_string("%.2f %s", v, "s");
  if (v < 7200) return printf_string("%.1f %s", v / 60, "min");
  return printf_string("%.2f %s", v / 3600, "h");
}

std::string format_bytes(Bytes b) {
  static constexpr std::array<const char*, 6> units{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = b.value;
  size_t i = 0;
  while (v >= 1024 && i + 1 < units.size()) {
    v /= 1024;
    ++i;
  }
  return printf_string(i == 0 ? "%.0f %s" : "%.1f %s", v, units[i]);
}

std::string format_bandwidth(BytesPerSecond bw) {
  static constexpr std::array<const char*, 5> units{"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  double v = bw.value;
  size_t i = 0;
  while (v >= 1000 && i + 1 < units.size()) {
    v /= 1000;
    ++i;
  }
  return printf_string("%.2f %s", v, units[i]);
}

}  // namespace gtw
