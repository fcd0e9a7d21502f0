#include "CheckPolicyRef.hpp"

#include <algorithm>
#include <sstream>

namespace gtw::policy {

namespace {
std::string format_number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}
}  // namespace

void check_policy_ref(const PolicyRef& ref, const std::string& path, const std::string& family,
                      const std::vector<PluginInfo>& available, Diagnostics& diags,
                      const std::map<std::string, RenamedPolicy>& renamed) {
  std::vector<std::string> names;
  const PluginInfo* info = nullptr;
  for (const auto& p : available) {
    names.push_back(p.name);
    if (p.name == ref.name) info = &p;
  }
  if (const auto old = renamed.find(ref.name); !info && old != renamed.end()) {
    diags.error(
        ref.loc, path + ".name",
        family + " policy '" + ref.name + "' is now called '" + old->second.now + "' (" + old->second.why + ")");
    return;
  }
  if (!info) {
    diags.error(ref.loc, path + ".name", "unknown " + family + " policy '" + ref.name + "'" + suggest(ref.name, names));
    return;
  }
  std::vector<std::string> param_names;
  for (const auto& spec : info->params) param_names.push_back(spec.name);
  for (const auto& [key, value] : ref.params) {
    auto loc_it = ref.param_locs.find(key);
    const SourceLoc loc = loc_it == ref.param_locs.end() ? ref.loc : loc_it->second;
    const ParamSpec* spec = nullptr;
    for (const auto& s : info->params)
      if (s.name == key) spec = &s;
    if (!spec) {
      diags.error(loc, path + ".params." + key,
                  "policy '" + ref.name + "' has no parameter '" + key + "'" + suggest(key, param_names));
      continue;
    }
    const bool type_ok = (spec->type == ParamType::NUMBER && std::holds_alternative<double>(value)) ||
                         (spec->type == ParamType::BOOL && std::holds_alternative<bool>(value)) ||
                         (spec->type == ParamType::STRING && std::holds_alternative<std::string>(value));
    if (!type_ok) {
      const std::string given = std::holds_alternative<double>(value) ? format_number(std::get<double>(value))
                                : std::holds_alternative<bool>(value) ? (std::get<bool>(value) ? "true" : "false")
                                                                      : "'" + std::get<std::string>(value) + "'";
      diags.error(loc, path + ".params." + key,
                  std::string("expected a ") + param_type_name(spec->type) + ", got " + given);
      continue;
    }
    if (spec->type == ParamType::STRING && !spec->choices.empty()) {
      const auto& v = std::get<std::string>(value);
      if (std::find(spec->choices.begin(), spec->choices.end(), v) == spec->choices.end()) {
        diags.error(loc, path + ".params." + key, "unknown value '" + v + "'" + suggest(v, spec->choices));
      }
    }
    if (spec->type == ParamType::NUMBER) {
      const double v = std::get<double>(value);
      if (v < spec->min || v > spec->max) {
        diags.error(loc, path + ".params." + key,
                    "must be between " + std::to_string(spec->min) + " and " + std::to_string(spec->max));
      }
    }
  }
}

}  // namespace gtw::policy
