#pragma once
// Collected input problems. Loading and validation never stop at the first error: every problem
// is recorded with its source location and YAML path, and the caller reports them all at once.
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gtw {

struct SourceLoc {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
};

enum class Severity { ERROR, WARNING };

struct Diagnostic {
  Severity severity = Severity::ERROR;
  SourceLoc loc;
  std::string path;  // YAML path such as spec.tenants[2].slos[0].threshold
  std::string message;
  /// "file:line:col: error: path: message"
  std::string format() const;
};

class Diagnostics {
 public:
  void error(const SourceLoc& loc, std::string path, std::string message);
  void warning(const SourceLoc& loc, std::string path, std::string message);
  bool has_errors() const { return error_count_ > 0; }
  /// Every error reported, also those beyond MAX_ERRORS that were not kept.
  size_t error_count() const { return error_count_; }
  /// Errors as reported: each finding once, however often it was reached (for the summary line).
  size_t distinct_error_count() const { return error_count_ - repeated_errors_; }
  const std::vector<Diagnostic>& all() const { return items_; }
  /// All diagnostics, one per line, in the order they were found.
  std::string format_all() const;
  /// Stops collecting beyond this many errors (a garbage file must not print a million lines).
  static constexpr size_t MAX_ERRORS = 200;

 private:
  bool seen_before(const Diagnostic& d);

  std::vector<Diagnostic> items_;
  std::set<std::string> seen_;  // one report of a finding that several readers reach (a file shared by tenants)
  size_t error_count_ = 0;
  size_t repeated_errors_ = 0;
};

/// Levenshtein edit distance, for "did you mean" suggestions.
size_t edit_distance(std::string_view a, std::string_view b);

/// "; valid values: a, b, c; did you mean 'b'?" for an unknown name among the valid ones.
std::string suggest(std::string_view name, const std::vector<std::string>& valid);

}  // namespace gtw
