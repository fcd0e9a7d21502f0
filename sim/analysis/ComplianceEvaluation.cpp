#include "ComplianceEvaluation.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "CheckRules.hpp"

namespace gtw {

ComplianceReport evaluate_compliance(const ScenarioSpec& spec, const RunResult& run, const LeakageReport* leakage) {
  return evaluate_compliance(spec, run, leakage, RunIndex(spec, run));
}

ComplianceReport evaluate_compliance(const ScenarioSpec& spec, const RunResult& run, const LeakageReport* leakage,
                                     const RunIndex& index) {
  ComplianceReport rep;
  rep.configured = !spec.compliance.rules.empty();
  rep.audit = audit::build_audit_log(spec, run);
  rep.chain = audit::verify_chain(rep.audit.records);
  rep.identity_paths = identity::cross_tenant_paths(spec);

  // The leakage-budget rule's input: every open channel of the leakage surface.
  std::vector<policy::ChannelCapacity> channels;
  if (leakage) {
    for (const auto& ch : leakage->channels)
      channels.push_back({ch.observer, ch.source,
                          std::string(channel::resource_name(ch.resource)) + "/" + channel::mode_name(ch.mode),
                          ch.capacity_bps, ch.exposure_s});
  }
  const policy::ComplianceInput input{spec, run, rep.audit, rep.identity_paths, channels, &rep.chain, &index};

  // What the enforcing rules refused during the run (COMPLIANCE_REFUSED: value = rule index, aux = kind).
  std::vector<std::array<size_t, 3>> refused(spec.compliance.rules.size(), {0, 0, 0});
  std::vector<std::set<std::string>> affected(spec.compliance.rules.size());
  for (const auto& e : run.log.events()) {
    if (e.type != EventType::COMPLIANCE_REFUSED) continue;
    const size_t rule = payload::refusing_rule(e);
    const auto kind = payload::refused(e);
    if (rule >= refused.size() || !kind) continue;
    ++refused[rule][static_cast<size_t>(*kind)];
    if (e.workload >= 0 && static_cast<size_t>(e.workload) < spec.workloads.size())
      affected[rule].insert(spec.workloads[static_cast<size_t>(e.workload)].name);
  }

  const auto& registry = policy::builtin_compliance_registry();
  for (size_t i = 0; i < spec.compliance.rules.size(); ++i) {
    const auto& given = spec.compliance.rules[i];
    policy::ComplianceFinding f;
    if (!registry.find(given.rule)) {
      // Validation refuses unknown rules; a spec built in code may still name one.
      f.policy = given.name;
      f.rule = given.rule;
      f.status = policy::ComplianceStatus::ERROR;
      f.action = given.action;
      f.message = "unknown compliance rule '" + given.rule + "'";
      f.loc = given.loc;
    } else {
      const ComplianceRuleSpec cfg = policy::with_rule_defaults(given);
      f = registry.create(cfg.rule, cfg.params)->evaluate(input, cfg);
      f.prevented = refused[i][0] + refused[i][1] + refused[i][2];
    }
    switch (f.status) {
      case policy::ComplianceStatus::PASS:
        ++rep.passed;
        break;
      case policy::ComplianceStatus::FAIL:
        ++rep.failed;
        break;
      case policy::ComplianceStatus::WARN:
        ++rep.warned;
        break;
      case policy::ComplianceStatus::ERROR:
        ++rep.errored;
        break;
      case policy::ComplianceStatus::SKIP:
        ++rep.skipped;
        break;
    }
    rep.findings.push_back(std::move(f));
    if (given.action == ComplianceAction::ENFORCE) {
      EnforcementResult er;
      er.policy = given.name;
      er.placements_refused = refused[i][0];
      er.accesses_refused = refused[i][1];
      er.key_releases_refused = refused[i][2];
      er.workloads_affected.assign(affected[i].begin(), affected[i].end());
      rep.enforcement.push_back(std::move(er));
    }
  }
  return rep;
}

}  // namespace gtw
