#include "ReportPath.hpp"

#include <algorithm>
#include <charconv>

#include "Diagnostics.hpp"
#include "Text.hpp"

namespace gtw::regress {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<size_t> to_index(const std::string& s) {
  if (!all_digits(s) || s.size() > 9) return std::nullopt;
  size_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

std::optional<ReportPath> parse_pointer(const std::string& text, std::string& error, int& column) {
  ReportPath path{text, {}};
  size_t pos = 1;
  while (pos <= text.size()) {
    const size_t slash = text.find('/', pos);
    const size_t end = slash == std::string::npos ? text.size() : slash;
    std::string token;
    for (size_t i = pos; i < end; ++i) {
      if (text[i] == '~' && i + 1 < end && (text[i + 1] == '0' || text[i + 1] == '1')) {
        token += text[i + 1] == '0' ? '~' : '/';
        ++i;
      } else if (text[i] == '~') {
        error = "'~' in a JSON pointer must be followed by 0 or 1";
        column = static_cast<int>(i) + 1;
        return std::nullopt;
      } else {
        token += text[i];
      }
    }
    PathSegment seg;
    // A numeric token is an array position or an object key; which one is decided when resolving.
    seg.key = token;
    path.segments.push_back(seg);
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return path;
}

// Reads a selector value: bare up to ',' or ']', or quoted with ' or ".
bool read_value(const std::string& text, size_t& i, std::string& out) {
  if (i < text.size() && (text[i] == '"' || text[i] == '\'')) {
    const char quote = text[i++];
    while (i < text.size() && text[i] != quote) out += text[i++];
    if (i >= text.size()) return false;
    ++i;
    return true;
  }
  while (i < text.size() && text[i] != ',' && text[i] != ']') out += text[i++];
  return true;
}

std::optional<ReportPath> parse_dotted(const std::string& text, std::string& error, int& column) {
  ReportPath path{text, {}};
  size_t i = 0;
  const auto fail = [&](size_t at, std::string message) {
    error = std::move(message);
    column = static_cast<int>(at) + 1;
    return std::nullopt;
  };
  bool expect_key = true;
  while (i < text.size()) {
    if (text[i] == '[') {
      const size_t open = i++;
      PathSegment seg;
      const size_t close = text.find(']', i);
      if (close == std::string::npos) return fail(open, "unclosed '[' in the metric path");
      const std::string inner = text.substr(i, close - i);
      if (inner == "*") {
        seg.kind = PathSegment::Kind::ALL;
        i = close + 1;
      } else if (auto index = to_index(inner)) {
        seg.kind = PathSegment::Kind::INDEX;
        seg.index = *index;
        i = close + 1;
      } else {
        seg.kind = PathSegment::Kind::SELECT;
        while (true) {
          std::string field, value;
          while (i < text.size() && text[i] != '=' && text[i] != ']' && text[i] != ',') field += text[i++];
          if (i >= text.size() || text[i] != '=' || field.empty())
            return fail(open, "expected [N], [*] or [field=value] in the metric path, got [" + inner + "]");
          ++i;
          if (!read_value(text, i, value)) return fail(open, "unterminated quote in the selector");
          seg.match.emplace_back(field, value);
          if (i < text.size() && text[i] == ',') {
            ++i;
            continue;
          }
          if (i < text.size() && text[i] == ']') {
            ++i;
            break;
          }
          return fail(open, "unclosed '[' in the metric path");
        }
      }
      path.segments.push_back(seg);
      expect_key = false;
      continue;
    }
    if (text[i] == '.') {
      if (expect_key) return fail(i, "empty key in the metric path");
      ++i;
      expect_key = true;
      if (i >= text.size()) return fail(i - 1, "the metric path ends with '.'");
      continue;
    }
    if (!expect_key) return fail(i, "expected '.' or '[' after ']' in the metric path");
    PathSegment seg;
    while (i < text.size() && text[i] != '.' && text[i] != '[') {
      if (text[i] == ']' || text[i] == ' ')
        return fail(i, std::string("unexpected '") + text[i] + "' in the metric path");
      seg.key += text[i++];
    }
    path.segments.push_back(seg);
    expect_key = false;
  }
  if (path.segments.empty()) return fail(0, "empty metric path");
  return path;
}

std::string scalar_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

bool field_equals(const Json& item, const std::string& field, const std::string& value) {
  if (!item.is_object()) return false;
  const auto it = item.find(field);
  if (it == item.end()) return false;
  if (it->is_string()) return it->get<std::string>() == value;
  if (it->is_number()) {
    double want = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), want);
    return ec == std::errc() && ptr == value.data() + value.size() && it->get<double>() == want;
  }
  return scalar_text(*it) == value;
}

const char* kind_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::null:
      return "null";
    default:
      return "a number";
  }
}

void add_unique(std::vector<std::string>& list, const std::string& s) {
  if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
}

// At most a dozen names in a message.
std::string join_names(const std::vector<std::string>& items) {
  return join(items, ", ", 12);
}

// "; did you mean 'x'?" when a valid name is close to the one given.
std::string did_you_mean(const std::string& given, const std::vector<std::string>& valid) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const auto& v : valid) {
    const size_t d = edit_distance(given, v);
    if (d < best_distance) {
      best_distance = d;
      best = v;
    }
  }
  if (best.empty() || best_distance > std::max<size_t>(2, given.size() / 3)) return "";
  return "; did you mean '" + best + "'?";
}

}  // namespace

bool ReportPath::may_match_many() const {
  return std::any_of(segments.begin(), segments.end(), [](const PathSegment& s) {
    return s.kind == PathSegment::Kind::ALL || s.kind == PathSegment::Kind::SELECT;
  });
}

std::optional<ReportPath> parse_report_path(const std::string& text, std::string& error, int& error_column) {
  error.clear();
  error_column = 0;
  if (text.empty()) {
    error = "empty metric path";
    error_column = 1;
    return std::nullopt;
  }
  if (text[0] == '/') return parse_pointer(text, error, error_column);
  return parse_dotted(text, error, error_column);
}

std::string item_label(const std::string& array_path, const Json& item, size_t position) {
  if (item.is_object()) {
    for (const char* field : {"name", "index"}) {
      const auto it = item.find(field);
      if (it != item.end() && (it->is_string() || it->is_number_integer()))
        return array_path + "[" + field + "=" + scalar_text(*it) + "]";
    }
  }
  return array_path + "[" + std::to_string(position) + "]";
}

Resolution resolve(const ReportPath& path, const Json& root) {
  Resolution out;
  std::vector<PathMatch> current = {{"", &root}};
  const auto child_path = [](const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  };
  for (const auto& seg : path.segments) {
    std::vector<PathMatch> next;
    std::vector<std::string> valid;  // for the message when nothing matches
    std::string problem;
    const std::string where = current.empty() ? "" : current.front().where;
    const std::string at = where.empty() ? "the report" : where;
    for (const auto& m : current) {
      const Json& v = *m.value;
      switch (seg.kind) {
        case PathSegment::Kind::KEY: {
          if (v.is_object()) {
            const auto it = v.find(seg.key);
            if (it != v.end()) {
              next.push_back({child_path(m.where, seg.key), &*it});
            } else {
              for (const auto& [k, unused] : v.items()) add_unique(valid, k);
              problem = "'" + seg.key + "' is not a key of " + at;
            }
          } else if (v.is_array() && to_index(seg.key)) {  // JSON pointer position
            const size_t i = *to_index(seg.key);
            if (i < v.size())
              next.push_back({item_label(m.where, v[i], i), &v[i]});
            else
              problem = at + " has " + std::to_string(v.size()) + " items; index " + seg.key + " is past the end";
          } else if (v.is_array()) {
            problem = at + " is an array: select an item with [N], [*] or [field=value] before '." + seg.key + "'";
          } else {
            problem = at + " is " + kind_name(v) + ", it has no key '" + seg.key + "'";
          }
          break;
        }
        case PathSegment::Kind::INDEX:
          if (!v.is_array()) {
            problem = at + " is " + kind_name(v) + ", not an array";
          } else if (seg.index < v.size()) {
            next.push_back({item_label(m.where, v[seg.index], seg.index), &v[seg.index]});
          } else {
            problem = at + " has " + std::to_string(v.size()) + " items; index " + std::to_string(seg.index) +
                      " is past the end";
          }
          break;
        case PathSegment::Kind::ALL:
          if (v.is_array()) {
            for (size_t i = 0; i < v.size(); ++i) next.push_back({item_label(m.where, v[i], i), &v[i]});
            if (v.empty()) problem = at + " is an empty array";
          } else if (v.is_object()) {
            for (const auto& [k, child] : v.items()) next.push_back({child_path(m.where, k), &child});
            if (v.empty()) problem = at + " is an empty object";
          } else {
            problem = at + " is " + kind_name(v) + ", not an array or object";
          }
          break;
        case PathSegment::Kind::SELECT: {
          if (!v.is_array()) {
            problem = at + " is " + kind_name(v) + ", not an array";
            break;
          }
          for (size_t i = 0; i < v.size(); ++i) {
            bool all = true;
            for (const auto& [field, value] : seg.match) all = all && field_equals(v[i], field, value);
            if (all) next.push_back({item_label(m.where, v[i], i), &v[i]});
            const auto& first_field = seg.match.front().first;
            if (v[i].is_object() && v[i].contains(first_field)) add_unique(valid, scalar_text(v[i][first_field]));
          }
          std::string sel;
          for (const auto& [field, value] : seg.match) sel += (sel.empty() ? "" : ",") + field + "=" + value;
          problem = "no item of " + at + " has " + sel;
          if (!valid.empty()) {
            problem += "; " + seg.match.front().first + " values: " + join_names(valid) +
                       did_you_mean(seg.match.front().second, valid);
            valid.clear();
          }
          break;
        }
      }
    }
    if (next.empty()) {
      out.error = problem;
      if (!valid.empty()) out.error += "; valid keys: " + join_names(valid) + did_you_mean(seg.key, valid);
      return out;
    }
    current = std::move(next);
  }
  out.matches = std::move(current);
  return out;
}

}  // namespace gtw::regress
