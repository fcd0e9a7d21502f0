#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "BuiltinRules.hpp"
#include "Text.hpp"

namespace gtw::policy {

namespace {

std::map<std::string, ComplianceRuleInfo>& rule_infos() {
  static std::map<std::string, ComplianceRuleInfo> infos;
  return infos;
}

}  // namespace

const char* compliance_status_name(ComplianceStatus s) {
  switch (s) {
    case ComplianceStatus::PASS:
      return "pass";
    case ComplianceStatus::FAIL:
      return "fail";
    case ComplianceStatus::WARN:
      return "warn";
    case ComplianceStatus::ERROR:
      return "error";
    case ComplianceStatus::SKIP:
      return "skip";
  }
  return "error";
}

std::string tenant_name(const ScenarioSpec& spec, int t) {
  return t >= 0 && static_cast<size_t>(t) < spec.tenants.size() ? spec.tenants[static_cast<size_t>(t)].name : "?";
}

std::string pool_region(const ScenarioSpec& spec, const std::string& pool) {
  for (const auto& p : spec.node_pools)
    if (p.name == pool) return p.region;
  return {};
}

std::string gpu_name(const RunResult& run, int g) {
  if (g < 0 || static_cast<size_t>(g) >= run.gpus.size()) return "gpu " + std::to_string(g);
  const auto& l = run.gpus[static_cast<size_t>(g)];
  return l.node_name + "/gpu" + std::to_string(l.local) + (l.mig_profile.empty() ? "" : "/mig-" + l.mig_profile);
}

int data_index_of(const ScenarioSpec& spec, const std::string& name) {
  for (size_t i = 0; i < spec.data.size(); ++i)
    if (spec.data[i].name == name) return static_cast<int>(i);
  return -1;
}

ComplianceEvidence evidence(int64_t event, double time, std::string resource, std::string detail, SourceLoc loc) {
  ComplianceEvidence e;
  e.event = event;
  e.time = time;
  e.resource = std::move(resource);
  e.detail = std::move(detail);
  e.loc = std::move(loc);
  return e;
}

const RunIndex& run_index(const ComplianceInput& in, std::optional<RunIndex>& own) {
  return in.index ? *in.index : own.emplace(in.spec, in.run);
}

std::vector<int> workload_data(const ScenarioSpec& spec, int w) {
  std::vector<int> out;
  if (w < 0 || static_cast<size_t>(w) >= spec.workloads.size()) return out;
  const auto& io = spec.workloads[static_cast<size_t>(w)].io;
  for (const std::string* name : {&io.dataset, &io.weights, &io.checkpoint}) {
    const int d = name->empty() ? -1 : data_index_of(spec, *name);
    if (d >= 0 && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

void add_compliance_rule(ComplianceRegistry& registry, PluginInfo info, ComplianceRuleInfo meta,
                         ComplianceRegistry::Factory factory) {
  rule_infos()[info.name] = std::move(meta);
  registry.add(std::move(info), std::move(factory));
}

const ComplianceRegistry& builtin_compliance_registry() {
  static const ComplianceRegistry registry = [] {
    ComplianceRegistry r;
    register_data_rules(r);
    register_identity_audit_rules(r);
    register_lifecycle_rules(r);
    register_record_keeping_rules(r);
    return r;
  }();
  return registry;
}

double number_param(const Params& p, const std::string& name, double fallback) {
  const auto it = p.find(name);
  return it != p.end() && std::holds_alternative<double>(it->second) ? std::get<double>(it->second) : fallback;
}

bool bool_param(const Params& p, const std::string& name, bool fallback) {
  const auto it = p.find(name);
  return it != p.end() && std::holds_alternative<bool>(it->second) ? std::get<bool>(it->second) : fallback;
}

std::string string_param(const Params& p, const std::string& name, const std::string& fallback) {
  const auto it = p.find(name);
  return it != p.end() && std::holds_alternative<std::string>(it->second) ? std::get<std::string>(it->second)
                                                                          : fallback;
}

ParamSpec seconds(const char* name, double value, const char* help) {
  return ParamSpec{name, ParamType::NUMBER, value, help, 0, 1e12, {}};
}

std::string seconds_text(double s) {
  constexpr double HOUR = 3600, DAY = 86400;
  char buf[64];
  if (s >= DAY && std::fmod(s, DAY) == 0)
    std::snprintf(buf, sizeof buf, "%.0f d", s / DAY);
  else if (s >= HOUR && std::fmod(s, HOUR) == 0)
    std::snprintf(buf, sizeof buf, "%.0f h", s / HOUR);
  else if (s >= DAY)
    std::snprintf(buf, sizeof buf, "%.1f d", s / DAY);
  else
    std::snprintf(buf, sizeof buf, "%.6g s", s);
  return buf;
}

const ComplianceRuleInfo& compliance_rule_info(const std::string& rule) {
  (void)builtin_compliance_registry();  // registration fills the table
  return rule_infos().at(rule);
}

bool matches_tenant(const ComplianceRuleSpec& cfg, const ScenarioSpec& spec, int tenant) {
  if (tenant < 0 || static_cast<size_t>(tenant) >= spec.tenants.size())
    return cfg.match.tenants.empty() && cfg.match.classifications.empty();
  const auto& t = spec.tenants[static_cast<size_t>(tenant)];
  if (!cfg.match.tenants.empty() && !contains(cfg.match.tenants, t.name)) return false;
  if (!cfg.match.classifications.empty()) {
    const std::string cls = lower(classification_names()[static_cast<size_t>(t.classification)]);
    bool any = false;
    for (const auto& c : cfg.match.classifications) any = any || lower(c) == cls;
    if (!any) return false;
  }
  return true;
}

std::string data_region(const ScenarioSpec& spec, int data) {
  if (data < 0 || static_cast<size_t>(data) >= spec.data.size()) return {};
  const auto& d = spec.data[static_cast<size_t>(data)];
  if (!d.region.empty()) return d.region;
  if (d.tenant_index >= 0) return spec.tenants[static_cast<size_t>(d.tenant_index)].region;
  return {};
}

std::string data_classification(const ScenarioSpec& spec, int data) {
  if (data < 0 || static_cast<size_t>(data) >= spec.data.size()) return {};
  const auto& d = spec.data[static_cast<size_t>(data)];
  if (!d.classification.empty()) return lower(d.classification);
  if (d.tenant_index >= 0)
    return lower(
        classification_names()[static_cast<size_t>(spec.tenants[static_cast<size_t>(d.tenant_index)].classification)]);
  return {};
}

bool matches_data(const ComplianceRuleSpec& cfg, const ScenarioSpec& spec, int data) {
  if (data < 0 || static_cast<size_t>(data) >= spec.data.size()) return false;
  const auto& d = spec.data[static_cast<size_t>(data)];
  if (!cfg.match.data.empty() && !contains(cfg.match.data, d.name)) return false;
  if (!cfg.match.tenants.empty() && !contains(cfg.match.tenants, d.tenant)) return false;
  if (!cfg.match.classifications.empty()) {
    const std::string cls = data_classification(spec, data);
    bool any = false;
    for (const auto& c : cfg.match.classifications) any = any || lower(c) == cls;
    if (!any) return false;
  }
  return true;
}

std::vector<std::string> param_list(const Params& params, const std::string& name) {
  std::vector<std::string> out;
  const auto it = params.find(name);
  if (it == params.end() || !std::holds_alternative<std::string>(it->second)) return out;
  const std::string& text = std::get<std::string>(it->second);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
    start = end + 1;
  }
  return out;
}

ComplianceFinding start_finding(const ComplianceRuleSpec& cfg, const std::string& title) {
  ComplianceFinding f;
  f.policy = cfg.name;
  f.rule = cfg.rule;
  const auto& info = compliance_rule_info(cfg.rule);
  f.rule_id = info.rule_id;
  f.title = title;
  f.severity = info.severity;
  f.action = cfg.action;
  f.requirements = info.requirements;
  for (const auto& r : cfg.requirements)
    if (!contains(f.requirements, r)) f.requirements.push_back(r);
  f.loc = cfg.loc;
  return f;
}

void add_violation(ComplianceFinding& f, ComplianceEvidence e, size_t max_evidence) {
  ++f.violations;
  if (f.evidence.size() < max_evidence)
    f.evidence.push_back(std::move(e));
  else
    ++f.evidence_omitted;
}

void finish_finding(ComplianceFinding& f, const std::string& what_was_checked) {
  f.status = f.violations > 0 ? ComplianceStatus::FAIL : ComplianceStatus::PASS;
  if (f.message.empty())
    f.message = f.violations > 0 ? std::to_string(f.violations) + " of " + std::to_string(f.checked) + " " +
                                       what_was_checked + " violate the rule"
                                 : "all " + std::to_string(f.checked) + " " + what_was_checked + " comply";
}

}  // namespace gtw::policy
