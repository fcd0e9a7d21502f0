#pragma once
// Registry checks of spec.compliance (rule names, parameters, enforce on enforceable rules), and the rule
// instances with their parameter defaults filled in, for the engine and the evaluation.
#include "ComplianceApi.hpp"
#include "Diagnostics.hpp"

namespace gtw::policy {

/// Unknown rule names (with the valid ones), unknown parameters (with the valid ones), parameter types and
/// ranges, and action enforce on a rule that cannot enforce. Called by prepare_scenario.
void check_compliance_rules(const ScenarioSpec& spec, Diagnostics& diags);

/// The rule instance with every declared parameter default filled in (given values win).
ComplianceRuleSpec with_rule_defaults(const ComplianceRuleSpec& cfg);

}  // namespace gtw::policy
