#include "Expectation.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "Text.hpp"
#include "Units.hpp"

namespace gtw::regress {
namespace {

constexpr double INF = std::numeric_limits<double>::infinity();

std::optional<double> plain_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double v = 0;
  const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
  const auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

// Leakage keys count bits: bound_bits, capacity_bps, bit_rate_bps.
bool names_bits(const std::string& key) {
  return key.find("bit") != std::string::npos || key.ends_with("bps");
}

// The dimension a report key implies from its name, or "" when it does not say.
std::string key_dimension(const std::string& key) {
  if (key.ends_with("_per_s") || key.ends_with("bps")) return names_bits(key) ? "bits/s" : "rate";
  if (key.ends_with("_s") || key == "seconds") return "duration";
  if (key.find("bytes") != std::string::npos) return "size";
  if (names_bits(key)) return "bits";
  return "";
}

// Bits written as 12b, 4kb, 2Mb, 1Gb, 3bit, 3bits.
std::optional<double> parse_bits(const std::string& text) {
  static const std::pair<const char*, double> units[] = {{"bits", 1}, {"bit", 1},  {"kb", 1e3},  {"Kb", 1e3},
                                                         {"Mb", 1e6}, {"Gb", 1e9}, {"Tb", 1e12}, {"b", 1}};
  for (const auto& [suffix, factor] : units) {
    if (!text.ends_with(suffix)) continue;
    auto v = plain_number(text.substr(0, text.size() - std::char_traits<char>::length(suffix)));
    if (v) return *v * factor;
    return std::nullopt;
  }
  return std::nullopt;
}

double aggregate_numbers(Aggregate a, const std::vector<double>& xs) {
  double acc = a == Aggregate::MAX ? -INF : a == Aggregate::MIN ? INF : 0;
  for (double x : xs) {
    if (a == Aggregate::MAX) acc = std::max(acc, x);
    if (a == Aggregate::MIN) acc = std::min(acc, x);
    if (a == Aggregate::SUM || a == Aggregate::MEAN) acc += x;
  }
  if (a == Aggregate::MEAN && !xs.empty()) acc /= static_cast<double>(xs.size());
  return acc;
}

std::string json_text(const Json& v) {
  if (v.is_number()) return format_number(v.get<double>());
  if (v.is_null()) return "null (unbounded)";
  if (v.is_array()) return "an array of " + std::to_string(v.size());
  if (v.is_object()) return "an object";
  return v.dump();
}

bool compare_numbers(double actual, Op op, double expected, double tol) {
  switch (op) {
    case Op::LE:
      return actual <= expected + tol;
    case Op::LT:
      return actual < expected + tol;
    case Op::GE:
      return actual >= expected - tol;
    case Op::GT:
      return actual > expected - tol;
    case Op::EQ:
      return std::fabs(actual - expected) <= tol || actual == expected;
    case Op::NE:
      return !(std::fabs(actual - expected) <= tol || actual == expected);
  }
  return false;
}

// Whether one report value satisfies the expectation; `why` says what made it impossible to compare.
bool satisfies(const Json& actual, const Expectation& e, std::string& why) {
  const auto& want = e.value;
  switch (want.kind) {
    case ExpectedValue::Kind::BOOLEAN:
      if (!actual.is_boolean()) {
        why = "is " + json_text(actual) + ", not a boolean";
        return false;
      }
      return (actual.get<bool>() == want.boolean) == (e.op == Op::EQ);
    case ExpectedValue::Kind::STRING:
      if (!actual.is_string()) {
        why = "is " + json_text(actual) + ", not a string";
        return false;
      }
      return (actual.get<std::string>() == want.text) == (e.op == Op::EQ);
    case ExpectedValue::Kind::NUL:
      return actual.is_null() == (e.op == Op::EQ);
    case ExpectedValue::Kind::NUMBER: {
      double x = 0;
      if (actual.is_number()) {
        x = actual.get<double>();
      } else if (actual.is_null()) {
        x = INF;  // the report writes unbounded values (a dropped request's latency) as null
      } else {
        why = "is " + json_text(actual) + ", not a number";
        return false;
      }
      const double tol = e.tolerance.relative ? e.tolerance.amount * std::fabs(want.number) : e.tolerance.amount;
      // Inclusive comparisons get a relative slack of 1e-12 for decimal rounding (2.45 - 2.4 is
      // 0.0500000000000003); strict ones must not, or equal values would pass '<'.
      const double slack = 1e-12 * std::max(std::fabs(want.number), std::isfinite(x) ? std::fabs(x) : 0.0);
      const bool strict = e.op == Op::LT || e.op == Op::GT;
      return compare_numbers(x, e.op, want.number, strict ? tol : tol + slack);
    }
  }
  return false;
}

}  // namespace

std::string format_number(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return format_printf("%.6g", v);  // six significant digits: enough to read, short to print
}

const char* op_text(Op op) {
  switch (op) {
    case Op::LE:
      return "<=";
    case Op::LT:
      return "<";
    case Op::GE:
      return ">=";
    case Op::GT:
      return ">";
    case Op::EQ:
      return "==";
    case Op::NE:
      return "!=";
  }
  return "?";
}

std::optional<Op> parse_op(const std::string& text) {
  // Words too, because an unquoted '>=' starts a YAML block scalar.
  static const std::pair<const char*, Op> words[] = {{"le", Op::LE}, {"lt", Op::LT}, {"ge", Op::GE},
                                                     {"gt", Op::GT}, {"eq", Op::EQ}, {"ne", Op::NE}};
  for (Op op : {Op::LE, Op::LT, Op::GE, Op::GT, Op::EQ, Op::NE})
    if (text == op_text(op)) return op;
  for (const auto& [word, op] : words)
    if (text == word) return op;
  return std::nullopt;
}

const char* aggregate_text(Aggregate a) {
  switch (a) {
    case Aggregate::ALL:
      return "all";
    case Aggregate::ANY:
      return "any";
    case Aggregate::MAX:
      return "max";
    case Aggregate::MIN:
      return "min";
    case Aggregate::SUM:
      return "sum";
    case Aggregate::MEAN:
      return "mean";
    case Aggregate::COUNT:
      return "count";
  }
  return "?";
}

std::optional<Aggregate> parse_aggregate(const std::string& text) {
  for (Aggregate a : {Aggregate::ALL, Aggregate::ANY, Aggregate::MAX, Aggregate::MIN, Aggregate::SUM, Aggregate::MEAN,
                      Aggregate::COUNT})
    if (text == aggregate_text(a)) return a;
  return std::nullopt;
}

std::optional<ExpectedValue> parse_expected_value(const std::string& text, bool quoted, const std::string& metric_key,
                                                  std::string& error) {
  ExpectedValue v;
  v.written = text;
  if (!quoted) {
    if (text == "true" || text == "false") {
      v.kind = ExpectedValue::Kind::BOOLEAN;
      v.boolean = text == "true";
      return v;
    }
    if (text == "null" || text == "~") {
      v.kind = ExpectedValue::Kind::NUL;
      return v;
    }
  }
  if (auto n = plain_number(text)) {
    v.number = *n;
    return v;
  }
  if (quoted) {
    v.kind = ExpectedValue::Kind::STRING;
    v.text = text;
    return v;
  }
  if (text.ends_with("%")) {
    if (auto n = plain_number(text.substr(0, text.size() - 1))) {
      v.number = *n / 100;
      return v;
    }
  }
  const std::string want = key_dimension(metric_key);
  const auto check = [&](const std::string& dimension, double value) -> std::optional<ExpectedValue> {
    if (!want.empty() && want != dimension && !(want == "bits/s" && dimension == "bandwidth") &&
        !(want == "rate" && dimension == "bandwidth")) {
      error = "'" + text + "' is a " + dimension + " but '" + metric_key + "' holds a " + want;
      return std::nullopt;
    }
    v.number = value;
    return v;
  };
  if (auto d = parse_duration(text)) return check("duration", d.quantity->value);
  if (auto b = parse_bytes(text)) return check("size", b.quantity->value);
  if (auto bw = parse_bandwidth(text)) {
    // parse_bandwidth gives bytes/s; leakage capacities are in bits/s.
    return check("bandwidth", bw.quantity->value * (names_bits(metric_key) ? 8.0 : 1.0));
  }
  if (auto bits = parse_bits(text)) return check("bits", *bits);
  if (auto r = parse_rate(text)) return check("rate", r.quantity->value);
  if (auto c = parse_count(text)) {
    v.number = *c.quantity;
    return v;
  }
  // A word starting like a number is a mistyped quantity, not a string.
  if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' || text[0] == '-')) {
    error = "'" + text +
            "' is not a number or a quantity with a known unit (e.g. 2.5s, 250ms, 80GiB, 10Gb/s, 200/s, 1kb, 90%)";
    return std::nullopt;
  }
  v.kind = ExpectedValue::Kind::STRING;
  v.text = text;
  return v;
}

std::optional<Tolerance> parse_tolerance(const std::string& text, std::string& error) {
  Tolerance t;
  t.written = text;
  if (text.ends_with("%")) {
    auto n = plain_number(text.substr(0, text.size() - 1));
    if (n && *n >= 0) {
      t.amount = *n / 100;
      t.relative = true;
      return t;
    }
  } else if (auto n = plain_number(text); n && *n >= 0) {
    t.amount = *n;
    return t;
  } else {
    std::string ignored;
    if (auto v = parse_expected_value(text, false, "", ignored); v && v->kind == ExpectedValue::Kind::NUMBER) {
      t.amount = v->number;
      return t;
    }
  }
  error = "tolerance '" + text + "' must be a percentage (5%), a non-negative number or a quantity (10ms)";
  return std::nullopt;
}

std::string Expectation::describe() const {
  std::string out = metric.text;
  if (aggregate != Aggregate::ALL) out = std::string(aggregate_text(aggregate)) + "(" + out + ")";
  out += std::string(" ") + op_text(op) + " " + value.written;
  if (!tolerance.written.empty()) out += " (tolerance " + tolerance.written + ")";
  return out;
}

Outcome evaluate(const Expectation& e, const Json& report) {
  Outcome out;
  const Resolution r = resolve(e.metric, report);
  if (r.matches.empty() && e.aggregate != Aggregate::COUNT) {
    out.metric_found = false;
    out.measured = "(not found)";
    out.message = "metric not found: " + e.metric.text + ": " + r.error;
    return out;
  }
  if (e.aggregate == Aggregate::COUNT) {
    // A count of what matched; a single array or object counts its elements (faults -> number of faults).
    size_t n = r.matches.size();
    if (n == 1 && (r.matches[0].value->is_array() || r.matches[0].value->is_object()) && !e.metric.may_match_many())
      n = r.matches[0].value->size();
    if (r.matches.empty() && !e.metric.may_match_many()) {
      out.metric_found = false;
      out.measured = "(not found)";
      out.message = "metric not found: " + e.metric.text + ": " + r.error;
      return out;
    }
    const Json count = n;
    std::string why;
    out.passed = satisfies(count, e, why);
    out.measured = std::to_string(n);
  } else if (e.aggregate == Aggregate::ALL || e.aggregate == Aggregate::ANY) {
    std::vector<std::string> failing;
    size_t passing = 0;
    for (const auto& m : r.matches) {
      std::string why;
      if (satisfies(*m.value, e, why)) {
        ++passing;
      } else {
        failing.push_back((r.matches.size() > 1 ? m.where + " = " : "") + json_text(*m.value) +
                          (why.empty() ? "" : " (" + why + ")"));
      }
    }
    out.passed = e.aggregate == Aggregate::ALL ? failing.empty() : passing > 0;
    if (r.matches.size() == 1) {
      out.measured = json_text(*r.matches[0].value);
      if (!failing.empty() && failing[0] != out.measured) out.measured = failing[0];
    } else if (!failing.empty()) {
      out.measured = std::to_string(failing.size()) + " of " + std::to_string(r.matches.size()) + " fail: ";
      for (size_t i = 0; i < failing.size() && i < 5; ++i) out.measured += (i ? "; " : "") + failing[i];
      if (failing.size() > 5) out.measured += "; ...";
    } else {
      out.measured = std::to_string(r.matches.size()) + " values, all pass";
    }
  } else {
    std::vector<double> xs;
    for (const auto& m : r.matches) {
      if (m.value->is_number()) {
        xs.push_back(m.value->get<double>());
      } else if (m.value->is_null()) {
        xs.push_back(INF);
      } else {
        out.measured = m.where + " = " + json_text(*m.value);
        out.message = e.describe() + ": " + m.where + " is not a number";
        return out;
      }
    }
    const double agg = aggregate_numbers(e.aggregate, xs);
    std::string why;
    out.passed = satisfies(Json(agg), e, why);
    out.measured = format_number(agg);
  }
  if (!out.passed) out.message = e.describe() + ": measured " + out.measured;
  return out;
}

}  // namespace gtw::regress
