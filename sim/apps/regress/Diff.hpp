#pragma once
// Compares two report.json files leaf by leaf, with a tolerance per metric: exact for integers (counts),
// booleans (SLO met) and strings, relative for real numbers (latencies, utilisation, slowdowns). Items
// of arrays are matched by their "name" (or "index") field, so a reordered list is not a difference.
// The provenance block (wall time, host, versions) is never compared.
#include <string>
#include <vector>

#include "ReportPath.hpp"

namespace gtw::regress {

/// Default relative tolerance of real-valued metrics (1%).
inline constexpr double DEFAULT_RELATIVE_TOLERANCE = 0.01;

struct ToleranceRule {
  std::string pattern;  // a full path glob (* matches anything), or a key name anywhere in the path
  double relative = 0;
};

struct DiffOptions {
  std::vector<ToleranceRule> tolerances;  // later rules win
  std::vector<std::string> ignore;        // same matching as tolerance patterns
  double default_relative = DEFAULT_RELATIVE_TOLERANCE;
};

/// Parses "PATTERN=REL" where REL is "5%" or a fraction such as 0.05.
bool parse_tolerance_rule(const std::string& text, ToleranceRule& out, std::string& error);

/// Whether `pattern` selects `path` (glob on the whole path, or equal to one of its keys).
bool pattern_matches(const std::string& pattern, const std::string& path);

struct DiffEntry {
  enum class Kind { CHANGED, ADDED, REMOVED };
  Kind kind = Kind::CHANGED;
  std::string path;
  Json before, after;
  double tolerance = 0;  // relative tolerance that applied (0: exact)
};

struct DiffResult {
  std::vector<DiffEntry> differences;  // beyond tolerance, in document order
  size_t compared = 0;                 // leaves present in both
  size_t within_tolerance = 0;         // leaves that moved but stayed within their tolerance
};

DiffResult diff_reports(const Json& base, const Json& fresh, const DiffOptions& options);

/// Problems that make a comparison meaningless, one message each: two items of one list with the same
/// name (two tenants "chat" would be matched with each other arbitrarily), and --ignore / --tolerance
/// patterns that select no metric of either report (a typo would silently compare everything).
std::vector<std::string> check_diff_inputs(const Json& base, const Json& fresh, const DiffOptions& options);

/// One line per difference: "~ path: old -> new (+delta, +pct%)", "+ path: value", "- path: value".
std::string format_diff(const DiffResult& result);

}  // namespace gtw::regress
