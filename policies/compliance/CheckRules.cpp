#include "CheckRules.hpp"

#include <algorithm>
#include <sstream>

#include "BuiltinRules.hpp"

namespace gtw::policy {

namespace {

std::string format_value(const ParamValue& v) {
  if (std::holds_alternative<double>(v)) {
    std::ostringstream out;
    out << std::get<double>(v);
    return out.str();
  }
  if (std::holds_alternative<bool>(v)) return std::get<bool>(v) ? "true" : "false";
  return "'" + std::get<std::string>(v) + "'";
}

void check_params(const ComplianceRuleSpec& r, const PluginInfo& info, const std::string& path, Diagnostics& diags) {
  std::vector<std::string> names;
  for (const auto& p : info.params) names.push_back(p.name);
  for (const auto& [key, value] : r.params) {
    const auto loc_it = r.param_locs.find(key);
    const SourceLoc loc = loc_it == r.param_locs.end() ? r.loc : loc_it->second;
    const std::string at = path + ".parameters." + key;
    const auto spec =
        std::find_if(info.params.begin(), info.params.end(), [&](const auto& p) { return p.name == key; });
    if (spec == info.params.end()) {
      diags.error(loc, at,
                  "rule '" + r.rule + "' has no parameter '" + key + "'" +
                      (names.empty() ? "; it takes no parameters" : suggest(key, names)));
      continue;
    }
    const bool type_ok = (spec->type == ParamType::NUMBER && std::holds_alternative<double>(value)) ||
                         (spec->type == ParamType::BOOL && std::holds_alternative<bool>(value)) ||
                         (spec->type == ParamType::STRING && std::holds_alternative<std::string>(value));
    if (!type_ok) {
      diags.error(loc, at, std::string("expected a ") + param_type_name(spec->type) + ", got " + format_value(value));
      continue;
    }
    if (spec->type == ParamType::NUMBER) {
      const double v = std::get<double>(value);
      if (v < spec->min || v > spec->max)
        diags.error(loc, at,
                    "must be between " + format_value(spec->min) + " and " + format_value(spec->max) + ", got " +
                        format_value(v));
    }
    if (spec->type == ParamType::STRING && !spec->choices.empty()) {
      // List parameters: each item must be one of the choices.
      for (const auto& item : param_list(r.params, key))
        if (std::find(spec->choices.begin(), spec->choices.end(), item) == spec->choices.end())
          diags.error(loc, at, "unknown value '" + item + "'" + suggest(item, spec->choices));
    }
  }
}

}  // namespace

void check_compliance_rules(const ScenarioSpec& spec, Diagnostics& diags) {
  const auto& registry = builtin_compliance_registry();
  for (size_t i = 0; i < spec.compliance.rules.size(); ++i) {
    const auto& r = spec.compliance.rules[i];
    const std::string path = "spec.compliance.rules[" + std::to_string(i) + "]";
    if (r.rule.empty()) continue;  // missing: reported by the loader
    const PluginInfo* info = registry.find(r.rule);
    if (!info) {
      diags.error(r.rule_loc.line > 0 ? r.rule_loc : r.loc, path + ".rule",
                  "unknown compliance rule '" + r.rule + "'" + suggest(r.rule, registry.names()) +
                      " (`gputwin explain compliance` lists them)");
      continue;
    }
    check_params(r, *info, path, diags);
    // Parameters that name principals: each must be a declared one.
    if (r.rule == "tenant-log-isolation" && r.params.count("operators")) {
      std::vector<std::string> principals;
      for (const auto& p : spec.identity.principals) principals.push_back(p.name);
      const auto at = r.param_locs.count("operators") ? r.param_locs.at("operators") : r.loc;
      for (const auto& name : param_list(r.params, "operators"))
        if (std::find(principals.begin(), principals.end(), name) == principals.end())
          diags.error(at, path + ".parameters.operators",
                      "no principal named '" + name + "' in spec.identity.principals" + suggest(name, principals));
    }
    if (r.action == ComplianceAction::ENFORCE && !compliance_rule_info(r.rule).enforceable) {
      std::string list;
      for (const auto& name : registry.names())
        if (compliance_rule_info(name).enforceable) list += (list.empty() ? "" : ", ") + name;
      diags.error(r.action_loc.line > 0 ? r.action_loc : r.loc, path + ".action",
                  "rule '" + r.rule + "' can only audit (it has no enforcement hook); enforceable rules: " + list);
    }
  }
}

ComplianceRuleSpec with_rule_defaults(const ComplianceRuleSpec& cfg) {
  ComplianceRuleSpec out = cfg;
  if (const PluginInfo* info = builtin_compliance_registry().find(cfg.rule))
    out.params = with_defaults(*info, cfg.params);
  return out;
}

}  // namespace gtw::policy
