#pragma once
// Compliance evaluation (docs/models/compliance.md): every rule of spec.compliance evaluated over the
// event log, the audit stream and the identity paths after the run; plus what enforcement cost
// (decisions refused, the queueing and utilisation they caused).
#include <string>
#include <vector>

#include "AuditLog.hpp"
#include "ComplianceApi.hpp"
#include "IdentityGraph.hpp"
#include "Leakage.hpp"
#include "RunIndex.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw {

/// What enforcing rules refused during the run.
struct EnforcementResult {
  std::string policy;  // rule instance name
  size_t placements_refused = 0;
  size_t accesses_refused = 0;
  size_t key_releases_refused = 0;
  std::vector<std::string> workloads_affected;  // sorted, unique
};

struct ComplianceReport {
  bool configured = false;                          // spec.compliance has rules
  std::vector<policy::ComplianceFinding> findings;  // in spec order
  std::vector<EnforcementResult> enforcement;       // per enforcing rule, in spec order
  size_t passed = 0, failed = 0, warned = 0, errored = 0, skipped = 0;
  audit::AuditLog audit;    // the run's audit stream
  audit::ChainCheck chain;  // its verification
  std::vector<identity::IdentityPath> identity_paths;
};

/// Evaluates every rule; `leakage` (may be null) feeds the leakage-budget rule.
ComplianceReport evaluate_compliance(const ScenarioSpec& spec, const RunResult& run, const LeakageReport* leakage);
/// The same over a run index built once for every analysis of the run (RunIndex.hpp); the rules read it.
ComplianceReport evaluate_compliance(const ScenarioSpec& spec, const RunResult& run, const LeakageReport* leakage,
                                     const RunIndex& index);

}  // namespace gtw
