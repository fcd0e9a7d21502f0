#pragma once
// Loads a scenario file into a ScenarioSpec: yaml-cpp parsing with file:line:col kept for every
// node, `$ref` includes (relative to the including file, cycles refused), `--set path=value`
// overrides, and schema checks (unknown keys, types, units, ranges, names). Every problem is
// collected; nothing stops at the first error.
#include <optional>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Scenario.hpp"

namespace gtw {

struct Override {
  std::string path;   // e.g. spec.workloads[chat].arrival.rate or spec.seed
  std::string value;  // parsed as YAML
};

/// Parses "path=value"; returns nullopt when there is no '=' or the path is empty.
std::optional<Override> parse_override(const std::string& text);

/// Largest scenario or fragment file accepted (bulk data belongs in trace files).
inline constexpr size_t MAX_SCENARIO_BYTES = 8u * 1024u * 1024u;

// Section readers in other files (LoadIdentity.cpp, ...) are members of the Loader class declared in
// sim/scenario/LoaderInternal.hpp (internal to gtw_scenario).

/// Loads and checks the schema. On errors the returned spec is partial; check diags.has_errors().
ScenarioSpec load_scenario(const std::string& path, const std::vector<Override>& overrides, Diagnostics& diags);

/// Cross-reference checks that need only the spec (tenant names, unique names, SLO workloads).
/// Resolves tenant indices and fills defaults that depend on other fields (SLO windows). Safe on a
/// partial spec (after schema errors), so that every problem is reported in one pass.
void check_references(ScenarioSpec& spec, Diagnostics& diags);
/// The network, storage and data sections' references (called by check_references).
void check_fabric_references(ScenarioSpec& spec, Diagnostics& diags);
/// spec.identity and spec.audit references (called by check_references; ValidateIdentity.cpp).
void check_identity_references(ScenarioSpec& spec, Diagnostics& diags);
/// spec.compliance's and workloads[].secrets' references (called by check_references; ValidateCompliance.cpp).
void check_compliance_references(const ScenarioSpec& spec, Diagnostics& diags);

}  // namespace gtw
