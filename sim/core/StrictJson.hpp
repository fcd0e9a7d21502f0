#pragma once
// JSON read back from files (reports, audit records, calibration recordings): nlohmann's parser with
// the two things it forgives refused. A repeated key keeps only its last value, so two records of
// one name could hide each other; a number beyond a double throws out_of_range, not parse_error.
// Header-only so that gtw_core needs no JSON dependency of its own.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gtw {

/// Parses `text`; throws std::runtime_error("...") naming the problem (syntax with byte offset, a
/// repeated key with its name, a number out of range).
template <class JsonT = nlohmann::json>
JsonT parse_json_strict(const std::string& text) {
  std::vector<std::vector<std::string>> keys;  // keys seen in each open object
  std::string repeated;
  const auto callback = [&](int /*depth*/, typename JsonT::parse_event_t event, JsonT& parsed) {
    using E = typename JsonT::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty()) {
      const auto key = parsed.template get<std::string>();
      auto& seen = keys.back();
      if (repeated.empty() && std::find(seen.begin(), seen.end(), key) != seen.end()) repeated = key;
      seen.push_back(key);
    }
    return true;
  };
  JsonT j;
  try {
    j = JsonT::parse(text, callback);
  } catch (const typename JsonT::exception& e) {
    throw std::runtime_error(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!repeated.empty()) throw std::runtime_error("key '" + repeated + "' appears twice in one object");
  return j;
}

}  // namespace gtw
