#pragma once
// Load + validate: the whole input pipeline up to a spec that can be run, with every problem from
// every stage (schema, references, hardware profiles, policies, capacity) collected at once.
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Engine.hpp"
#include "Loader.hpp"
#include "RunBudget.hpp"

namespace gtw {

struct PreparedScenario {
  ScenarioSpec spec;
  ProfileSet profiles;
};

/// Loads, validates and checks a scenario against the profiles; refuses one whose estimated cost
/// exceeds `limits` (sim/engine/RunBudget.hpp) before building anything that grows with it.
PreparedScenario prepare_scenario(const std::string& path, const std::vector<Override>& overrides, Diagnostics& diags,
                                  const RunLimits& limits = RunLimits{});

}  // namespace gtw
