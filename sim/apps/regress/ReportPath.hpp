#pragma once
// Paths into report.json. Two spellings are accepted:
//   dotted:       tenants[name=chat].slos[name=p99-latency].met, gpus[0].utilisation, gpus[*].utilisation,
//                 leakage.pairs[observer=a,source=b].bound_bits
//   JSON pointer: /tenants/0/slos/0/met (RFC 6901, starts with '/')
// Selectors pick array items: [N] by position, [*] every item, [key=value,...] items whose fields equal
// the values. A path with [*] or a selector can match several values; a path that matches nothing is an
// error that names the nearest valid keys, never an empty pass.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gtw::regress {

using Json = nlohmann::ordered_json;

struct PathSegment {
  enum class Kind { KEY, INDEX, ALL, SELECT };
  Kind kind = Kind::KEY;
  std::string key;                                         // KEY
  size_t index = 0;                                        // INDEX
  std::vector<std::pair<std::string, std::string>> match;  // SELECT: field=value pairs, all must hold
};

struct ReportPath {
  std::string text;  // as written
  std::vector<PathSegment> segments;
  /// True when the path can match more than one value ([*] or a selector).
  bool may_match_many() const;
};

/// Parses a path; on a syntax error returns nullopt and sets `error` (with the offending column, 1-based,
/// in `error_column`).
std::optional<ReportPath> parse_report_path(const std::string& text, std::string& error, int& error_column);

struct PathMatch {
  std::string where;  // the concrete location, items named by their "name" (or "index") field where they have one
  const Json* value = nullptr;
};

struct Resolution {
  std::vector<PathMatch> matches;
  std::string error;  // why nothing matched (set only when matches is empty)
};

/// Every value the path selects in `root`, in document order.
Resolution resolve(const ReportPath& path, const Json& root);

/// "tenants[name=chat]" for an item of an array: by its "name" field, else its "index" field, else its position.
std::string item_label(const std::string& array_path, const Json& item, size_t position);

}  // namespace gtw::regress
