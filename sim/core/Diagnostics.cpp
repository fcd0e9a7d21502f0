#include "Diagnostics.hpp"

#include <algorithm>
#include <cctype>

namespace gtw {

std::string Diagnostic::format() const {
  std::string out = loc.file.empty() ? std::string("<input>") : loc.file;
  if (loc.line > 0) {
    out += ":" + std::to_string(loc.line);
    if (loc.column > 0) out += ":" + std::to_string(loc.column);
  }
  out += severity == Severity::ERROR ? ": error: " : ": warning: ";
  if (!path.empty()) out += path + ": ";
  out += message;
  return out;
}

// A finding is reported once however often it is reached (two tenants reading one Kueue file reach its cohorts
// twice); the same text at one location under another path (a YAML alias) is another finding.
bool Diagnostics::seen_before(const Diagnostic& d) {
  std::string key = d.severity == Severity::ERROR ? "E" : "W";
  key += d.loc.file + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) + ":" + d.path + ":";
  key += d.message;
  return !seen_.insert(std::move(key)).second;
}

void Diagnostics::error(const SourceLoc& loc, std::string path, std::string message) {
  // Counted always, kept only up to the limit: readers compare error_count() before and after a step
  // to learn whether it failed, which must hold after the limit too (a fuzzed trace read columns at -1),
  // and for a repeated finding.
  if (++error_count_ > MAX_ERRORS) return;
  Diagnostic d{Severity::ERROR, loc, std::move(path), std::move(message)};
  if (seen_before(d)) {
    ++repeated_errors_;
    return;
  }
  items_.push_back(std::move(d));
  if (error_count_ == MAX_ERRORS) {
    items_.push_back({Severity::ERROR, loc, "", "too many errors; stopping after " + std::to_string(MAX_ERRORS)});
  }
}

void Diagnostics::warning(const SourceLoc& loc, std::string path, std::string message) {
  Diagnostic d{Severity::WARNING, loc, std::move(path), std::move(message)};
  if (!seen_before(d)) items_.push_back(std::move(d));
}

std::string Diagnostics::format_all() const {
  std::string out;
  for (const auto& d : items_) out += d.format() + "\n";
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggest(std::string_view name, const std::vector<std::string>& valid) {
  std::string out = "; valid values: ";
  if (valid.empty()) out += "(none defined)";
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (size_t i = 0; i < valid.size(); ++i) {
    if (i > 0) out += ", ";
    out += valid[i];
    const size_t d = edit_distance(name, valid[i]);
    if (d < best_distance) {
      best_distance = d;
      best = valid[i];
    }
  }
  // Only suggest when the name is plausibly a typo of the candidate.
  const size_t limit = std::max<size_t>(2, std::min(name.size(), best.size()) / 3);
  if (!best.empty() && best_distance <= limit) out += "; did you mean '" + best + "'?";
  return out;
}

}  // namespace gtw
