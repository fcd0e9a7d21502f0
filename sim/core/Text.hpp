#pragma once
// The small text and list helpers every layer needs, written once.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gtw {

/// printf into a string: the numbers of reports and messages ("%.6g", "%.9f", ...).
std::string format_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// Whether `list` holds `value`.
inline bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

/// ASCII lower case (names and enum spellings; not for arbitrary Unicode text).
inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// `s` without leading and trailing spaces and tabs (a view into `s`).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// The items joined by `separator`; beyond `limit` items, ", ... (N in all)".
inline std::string join(const std::vector<std::string>& items, const std::string& separator = ", ",
                        size_t limit = SIZE_MAX) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? separator : "") + items[i];
  if (items.size() > limit) out += ", ... (" + std::to_string(items.size()) + " in all)";
  return out;
}

}  // namespace gtw
