#pragma once
// One expectation on report.json: a metric (a path into the report), a comparison, an expected value
// (units parsed by sim/core/Units.hpp into the report's SI base units), a tolerance, and how several
// matched values combine. Evaluation never passes on a missing metric.
#include <optional>
#include <string>

#include "Diagnostics.hpp"
#include "ReportPath.hpp"

namespace gtw::regress {

enum class Op { LE, LT, GE, GT, EQ, NE };
enum class Aggregate { ALL, ANY, MAX, MIN, SUM, MEAN, COUNT };

const char* op_text(Op op);
std::optional<Op> parse_op(const std::string& text);
const char* aggregate_text(Aggregate a);
std::optional<Aggregate> parse_aggregate(const std::string& text);

struct ExpectedValue {
  enum class Kind { NUMBER, BOOLEAN, STRING, NUL };
  Kind kind = Kind::NUMBER;
  double number = 0;
  bool boolean = false;
  std::string text;     // STRING
  std::string written;  // as in the test file, for messages
};

/// Parses an expected value: true/false, null, a plain number, a percentage ("90%" = 0.9), or a
/// quantity with a unit (duration -> s, size -> bytes, bandwidth -> bytes/s or bits/s when the metric's
/// key names bits, bits -> bits, rate -> 1/s, count suffix k/M). Anything else is a string.
/// `metric_key` (the path's last key) lets a unit of the wrong dimension be refused: a size against a
/// key ending in _s. Returns nullopt with `error` set on such a mismatch or an invalid quantity.
std::optional<ExpectedValue> parse_expected_value(const std::string& text, bool quoted, const std::string& metric_key,
                                                  std::string& error);

struct Tolerance {
  double amount = 0;
  bool relative = false;  // amount is a fraction of |expected|
  std::string written;
};

/// "5%" (relative), "0.01" (absolute, in the metric's unit) or "10ms" (absolute with a unit).
std::optional<Tolerance> parse_tolerance(const std::string& text, std::string& error);

struct Expectation {
  std::string name;       // optional label from the test file
  std::string shorthand;  // "slo chat/p99-latency", empty for the general form
  ReportPath metric;
  Op op = Op::EQ;
  ExpectedValue value;
  Tolerance tolerance;
  Aggregate aggregate = Aggregate::ALL;
  SourceLoc loc;  // the expectation's entry in the test file

  /// "tenants[name=chat].slos[name=p99-latency].met == true", with tolerance and aggregate when given.
  std::string describe() const;
};

struct Outcome {
  bool passed = false;
  bool metric_found = true;
  std::string measured;  // the value(s) compared, as text
  std::string message;   // why it failed (empty when it passed)
};

Outcome evaluate(const Expectation& expectation, const Json& report);

/// A number with six significant digits ("2.5", "0.996094").
std::string format_number(double v);

}  // namespace gtw::regress
