#pragma once
// The small text and list helpers every layer needs, written once.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace gtw {

/// Whether `list` holds `value`.
inline bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

/// ASCII lower case (names and enum spellings; not for arbitrary Unicode text).
inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// `s` without leading and trailing spaces and tabs.
inline std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  const auto end = s.find_last_not_of(" \t");
  s.erase(end == std::string::npos ? 0 : end + 1);
  return s;
}

/// The items joined by `separator`.
inline std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

}  // namespace gtw
