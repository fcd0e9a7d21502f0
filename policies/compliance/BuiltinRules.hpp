#pragma once
// Built-in compliance rules (docs/models/compliance.md), registered in two groups: the placement and
// data-path rules (DataRules.cpp: residency, co-tenancy, scrubbing, encryption, leakage budget,
// segregation) and the identity and audit rules (IdentityAuditRules.cpp: audit completeness and
// latency, content, chain integrity, retention, logging gaps, unique identity, authorisation,
// revocation, attestation before key release), the lifecycle rules (LifecycleRules.cpp: erasure, key
// rotation, breach notification) and the record-keeping rules (RecordKeepingRules.cpp: records of
// processing, time synchronisation, session timeout, per-tenant logs). Shared helpers are here.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ComplianceApi.hpp"

namespace gtw::policy {

/// Registers a rule: its plug-in info (name, summary, parameters) and its compliance metadata.
void add_compliance_rule(ComplianceRegistry& registry, PluginInfo info, ComplianceRuleInfo meta,
                         ComplianceRegistry::Factory factory);

void register_data_rules(ComplianceRegistry& registry);
void register_identity_audit_rules(ComplianceRegistry& registry);
void register_lifecycle_rules(ComplianceRegistry& registry);
void register_record_keeping_rules(ComplianceRegistry& registry);

/// A tenant's name ("?" out of range); a node pool's region; a GPU as node/gpuN[/mig-profile].
std::string tenant_name(const ScenarioSpec& spec, int t);
std::string pool_region(const ScenarioSpec& spec, const std::string& pool);
std::string gpu_name(const RunResult& run, int g);
/// Index of the data item of that name, -1 when there is none.
int data_index_of(const ScenarioSpec& spec, const std::string& name);
/// The data items a workload touches (its io: dataset, weights, checkpoint), each once.
std::vector<int> workload_data(const ScenarioSpec& spec, int w);
/// A piece of evidence at an event.
ComplianceEvidence evidence(int64_t event, double time, std::string resource, std::string detail, SourceLoc loc);
/// The run's stays (RunIndex.hpp): the caller's index, or one built in `own` when the input has none.
const RunIndex& run_index(const ComplianceInput& in, std::optional<RunIndex>& own);

/// True when the rule's match selects the tenant (by name or classification); empty lists match all.
bool matches_tenant(const ComplianceRuleSpec& cfg, const ScenarioSpec& spec, int tenant);
/// True when the rule's match selects the data item (by name, its owner, or its effective classification).
bool matches_data(const ComplianceRuleSpec& cfg, const ScenarioSpec& spec, int data);
/// The data item's effective region and classification (its own, or its owner tenant's).
std::string data_region(const ScenarioSpec& spec, int data);
std::string data_classification(const ScenarioSpec& spec, int data);
/// A comma-separated list parameter, split and trimmed (empty entries dropped).
std::vector<std::string> param_list(const Params& params, const std::string& name);

/// A rule parameter's value (after with_rule_defaults), or `fallback` when absent or of another type.
double number_param(const Params& p, const std::string& name, double fallback);
bool bool_param(const Params& p, const std::string& name, bool fallback);
std::string string_param(const Params& p, const std::string& name, const std::string& fallback);
/// A duration parameter (seconds, 0 .. 1e12) for a rule's PluginInfo.
ParamSpec seconds(const char* name, double value, const char* help);
/// Seconds as evidence text: "3 d", "2 h", "1.5 d", "42 s".
std::string seconds_text(double s);
/// The registry factory of a rule without construction parameters.
template <class Rule>
ComplianceRegistry::Factory factory() {
  return [](const Params&) { return std::make_unique<Rule>(); };
}

/// A finding with the rule's identity filled in (policy, rule, id, title, requirements, action, location).
ComplianceFinding start_finding(const ComplianceRuleSpec& cfg, const std::string& title);
/// Records a violation: counts it and keeps at most `max_evidence` pieces of evidence.
void add_violation(ComplianceFinding& f, ComplianceEvidence e, size_t max_evidence = 20);
/// Sets status (fail on violations, else pass) and, when the message is empty, a default one.
void finish_finding(ComplianceFinding& f, const std::string& what_was_checked);

}  // namespace gtw::policy
