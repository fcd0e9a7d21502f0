#include "ParameterProvenance.hpp"

#include <algorithm>

namespace gtw {

const std::vector<std::string>& provenance_names() {
  static const std::vector<std::string> names = {"datasheet", "measured",  "derived", "fitted",
                                                 "assumed",   "synthetic", "scenario"};
  return names;
}

const std::string& provenance_name(ProvenanceKind p) {
  return provenance_names()[static_cast<size_t>(p)];
}

std::string provenance_markers() {
  std::string out;
  for (const auto& name : provenance_names()) out += (out.empty() ? "(" : ", (") + name + ")";
  return out;
}

std::optional<ProvenanceKind> provenance_of(const std::string& source) {
  if (source.size() < 3 || source[0] != '(') return std::nullopt;
  const size_t end = source.find_first_of(",)");
  if (end == std::string::npos) return std::nullopt;
  std::string kind = source.substr(1, end - 1);
  if (kind == "assumption") kind = "assumed";  // the profiles' older spelling
  const auto& names = provenance_names();
  const auto it = std::find(names.begin(), names.end(), kind);
  if (it == names.end()) return std::nullopt;
  return static_cast<ProvenanceKind>(it - names.begin());
}

int ProvenanceSummary::total() const {
  int n = 0;
  for (const auto& [kind, count] : by_kind) n += count;
  return n;
}

std::string ProvenanceSummary::describe() const {
  std::string out;
  for (const auto& kind : provenance_names()) {
    const auto it = by_kind.find(kind);
    if (it != by_kind.end() && it->second > 0)
      out += (out.empty() ? "" : ", ") + std::to_string(it->second) + " " + kind;
  }
  return out;
}

double ProvenanceSummary::fitted_or_assumed_share() const {
  const int n = total();
  return n > 0 ? static_cast<double>(fitted.size() + assumed.size()) / n : 0.0;
}

void ProvenanceSummary::add(const std::string& parameter, const std::string& source) {
  if (by_kind.empty())
    for (const auto& name : provenance_names()) by_kind[name] = 0;
  const auto kind = provenance_of(source);
  if (!kind) return;  // the loaders refuse such sources
  ++by_kind[provenance_name(*kind)];
  if (*kind == ProvenanceKind::FITTED) fitted.push_back(parameter);
  if (*kind == ProvenanceKind::ASSUMED) assumed.push_back(parameter);
}

}  // namespace gtw
