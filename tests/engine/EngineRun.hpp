#pragma once
// One whole run in-process for engine tests: prepare_scenario -> run_simulation -> analyse. SimGrid
// allows one engine per process, so a test calls this once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "Analysis.hpp"
#include "Engine.hpp"
#include "Setup.hpp"

namespace gtw::test {

struct Outcome {
  PreparedScenario prepared;
  RunResult run;
  Analysis analysis;
};

/// Runs the scenario at `relative` (from the source tree) with the overrides and run options.
inline Outcome run_file(const std::string& relative, const std::vector<Override>& overrides = {},
                        const RunOptions& options = {}) {
  Diagnostics diags;
  Outcome o;
  o.prepared = prepare_scenario(std::string(GTW_SOURCE_DIR) + "/" + relative, overrides, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.format_all();
  o.run = run_simulation(o.prepared.spec, o.prepared.profiles, options);
  o.analysis = analyse(o.prepared.spec, o.run);
  return o;
}

}  // namespace gtw::test
