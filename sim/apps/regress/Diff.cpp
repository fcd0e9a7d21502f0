#include "Diff.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

#include "Expectation.hpp"

namespace gtw::regress {
namespace {

struct Leaf {
  std::string path;
  const Json* value;
};

bool is_keyed_array(const Json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& item : v)
    if (!item.is_object()) return false;
  return true;
}

void flatten(const Json& v, const std::string& path, std::vector<Leaf>& out) {
  if (v.is_object()) {
    for (const auto& [k, child] : v.items()) {
      if (path.empty() && k == "provenance") continue;
      flatten(child, path.empty() ? k : path + "." + k, out);
    }
    if (v.empty()) out.push_back({path, &v});
  } else if (is_keyed_array(v)) {
    for (size_t i = 0; i < v.size(); ++i) flatten(v[i], item_label(path, v[i], i), out);
  } else {
    out.push_back({path, &v});  // scalars, and arrays of scalars compared as a whole
  }
}

bool glob(const char* p, const char* s) {
  if (*p == '\0') return *s == '\0';
  if (*p == '*') return glob(p + 1, s) || (*s != '\0' && glob(p, s + 1));
  return *s != '\0' && *p == *s && glob(p + 1, s + 1);
}

std::string value_text(const Json& v) {
  if (v.is_number_float()) return format_number(v.get<double>());
  const std::string s = v.dump();
  return s.size() > 120 ? s.substr(0, 117) + "..." : s;
}

}  // namespace

bool pattern_matches(const std::string& pattern, const std::string& path) {
  if (glob(pattern.c_str(), path.c_str())) return true;
  // A key name anywhere in the path: "latency" selects ...workloads[name=x].latency.p99_s.
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('.', start);
    if (end == std::string::npos) end = path.size();
    std::string key = path.substr(start, end - start);
    if (const auto bracket = key.find('['); bracket != std::string::npos) key.resize(bracket);
    if (key == pattern) return true;
    start = end + 1;
  }
  return false;
}

bool parse_tolerance_rule(const std::string& text, ToleranceRule& out, std::string& error) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    error = "--tolerance expects METRIC=REL (e.g. p99_s=5% or latency=0.05), got '" + text + "'";
    return false;
  }
  out.pattern = text.substr(0, eq);
  std::string number = text.substr(eq + 1);
  const bool percent = number.back() == '%';
  if (percent) number.pop_back();
  double v = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || ptr != number.data() + number.size() || v < 0 || !std::isfinite(v)) {
    error = "--tolerance: '" + text.substr(eq + 1) + "' is not a non-negative fraction or percentage";
    return false;
  }
  out.relative = percent ? v / 100 : v;
  return true;
}

DiffResult diff_reports(const Json& base, const Json& fresh, const DiffOptions& options) {
  std::vector<Leaf> a, b;
  flatten(base, "", a);
  flatten(fresh, "", b);
  std::map<std::string, const Json*> in_fresh;  // lookup only; output follows document order
  for (const auto& l : b) in_fresh[l.path] = l.value;
  std::map<std::string, bool> in_base;
  for (const auto& l : a) in_base[l.path] = true;
  const auto ignored = [&](const std::string& path) {
    for (const auto& p : options.ignore)
      if (pattern_matches(p, path)) return true;
    return false;
  };

  DiffResult r;
  for (const auto& l : a) {
    if (ignored(l.path)) continue;
    const auto it = in_fresh.find(l.path);
    if (it == in_fresh.end()) {
      r.differences.push_back({DiffEntry::Kind::REMOVED, l.path, *l.value, Json(), 0});
      continue;
    }
    ++r.compared;
    const Json& before = *l.value;
    const Json& after = *it->second;
    if (before == after) continue;
    // Integers are counts and compare exactly; real numbers get a relative tolerance.
    if (before.is_number_float() || after.is_number_float()) {
      double tol = options.default_relative;
      for (const auto& rule : options.tolerances)
        if (pattern_matches(rule.pattern, l.path)) tol = rule.relative;
      if (before.is_number() && after.is_number()) {
        const double x = before.get<double>(), y = after.get<double>();
        if (std::fabs(y - x) <= tol * std::max(std::fabs(x), std::fabs(y))) {
          ++r.within_tolerance;
          continue;
        }
      }
      r.differences.push_back({DiffEntry::Kind::CHANGED, l.path, before, after, tol});
    } else {
      r.differences.push_back({DiffEntry::Kind::CHANGED, l.path, before, after, 0});
    }
  }
  for (const auto& l : b) {
    if (ignored(l.path) || in_base.count(l.path)) continue;
    r.differences.push_back({DiffEntry::Kind::ADDED, l.path, Json(), *l.value, 0});
  }
  return r;
}

std::vector<std::string> check_diff_inputs(const Json& base, const Json& fresh, const DiffOptions& options) {
  std::vector<std::string> problems;
  std::vector<Leaf> leaves[2];
  flatten(base, "", leaves[0]);
  flatten(fresh, "", leaves[1]);
  const char* names[2] = {"the base report", "the new report"};
  for (int k = 0; k < 2; ++k) {
    std::map<std::string, int> seen;
    for (const auto& l : leaves[k]) {
      if (++seen[l.path] == 2)
        problems.push_back(names[k] + std::string(" has two items at '") + l.path +
                           "' (a list holds two entries of one name)");
    }
  }
  const auto selects_something = [&](const std::string& pattern) {
    for (const auto& side : leaves)
      for (const auto& l : side)
        if (pattern_matches(pattern, l.path)) return true;
    return false;
  };
  for (const auto& p : options.ignore)
    if (!selects_something(p)) problems.push_back("--ignore '" + p + "' matches no metric of either report");
  for (const auto& rule : options.tolerances)
    if (!selects_something(rule.pattern))
      problems.push_back("--tolerance '" + rule.pattern + "' matches no metric of either report");
  return problems;
}

std::string format_diff(const DiffResult& result) {
  std::string out;
  for (const auto& d : result.differences) {
    switch (d.kind) {
      case DiffEntry::Kind::ADDED:
        out += "+ " + d.path + ": " + value_text(d.after) + "\n";
        break;
      case DiffEntry::Kind::REMOVED:
        out += "- " + d.path + ": " + value_text(d.before) + "\n";
        break;
      case DiffEntry::Kind::CHANGED: {
        out += "~ " + d.path + ": " + value_text(d.before) + " -> " + value_text(d.after);
        if (d.before.is_number() && d.after.is_number()) {
          const double x = d.before.get<double>(), y = d.after.get<double>();
          char buf[96];
          if (x != 0)
            std::snprintf(buf, sizeof buf, " (%+.6g, %+.1f%%)", y - x, 100.0 * (y - x) / std::fabs(x));
          else
            std::snprintf(buf, sizeof buf, " (%+.6g)", y - x);
          out += buf;
        }
        if (d.tolerance > 0) {
          char buf[48];
          std::snprintf(buf, sizeof buf, " [tolerance %.3g%%]", 100 * d.tolerance);
          out += buf;
        }
        out += "\n";
        break;
      }
    }
  }
  return out;
}

}  // namespace gtw::regress
