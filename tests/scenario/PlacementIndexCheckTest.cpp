// The engine keeps its placement view's device index current by reporting every change of the view
// (ClusterView::changed). With GPUTWIN_CHECK_PLACEMENT_INDEX=1 it takes every indexed decision again by a pass over
// an index-free copy of the view and stops with a logic_error when they differ. These runs cover what the
// randomised unit test (tests/unit/PlacementIndexTest.cpp) cannot: the engine's own changes of the view during
// placements, releases, quota admission and reclaim, MIG reconfiguration, failover and compliance refusals, under
// first-fit, spread, packing and fgd, and (by --set) tenant-anti-affinity and classification-aware. Each run must
// also write what it writes without the check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

const std::string SRC = GTW_SOURCE_DIR;

// `scenario` is a path under scenarios/, or "path|policy" to run it under another placement policy.
ProcessResult run_scenario(const std::string& scenario, const std::string& out, bool check) {
  ProcessOptions options;
  options.env = {{"SOURCE_DATE_EPOCH", "0"}};
  if (check) options.env.emplace_back("GPUTWIN_CHECK_PLACEMENT_INDEX", "1");
  const auto bar = scenario.find('|');
  std::vector<std::string> argv{GTW_BINARY, "run",      SRC + "/scenarios/" + scenario.substr(0, bar),
                                "-o",       out,        "--progress",
                                "none",     "--format", "json"};
  if (bar != std::string::npos) {
    argv.push_back("--set");
    argv.push_back("spec.policies.placement.name=" + scenario.substr(bar + 1));
  }
  return run_process(argv, options);
}

class PlacementIndexCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(PlacementIndexCheck, EveryIndexedDecisionEqualsThePassOverTheView) {
  TempDir dir;
  const std::string& scenario = GetParam();
  const auto checked = run_scenario(scenario, dir.file("checked"), true);
  EXPECT_EQ(checked.err.find("placement index disagrees"), std::string::npos) << checked.err;
  const auto plain = run_scenario(scenario, dir.file("plain"), false);
  ASSERT_EQ(checked.exit_code, plain.exit_code) << checked.err;
  auto a = nlohmann::json::parse(read_text(dir.file("checked") + "/report.json"));
  auto b = nlohmann::json::parse(read_text(dir.file("plain") + "/report.json"));
  a.erase("provenance");
  b.erase("provenance");
  EXPECT_EQ(a.dump(), b.dump());
}

INSTANTIATE_TEST_SUITE_P(
    Shipped, PlacementIndexCheck,
    ::testing::Values(
        "examples/default.yaml", "examples/quota-reclaim.yaml", "examples/quota-fair-sharing.yaml",
        "examples/mig-reconfigure.yaml", "examples/serving/exclusive.yaml", "examples/serving/mps.yaml",
        "examples/serving/mig.yaml", "examples/serving/time-slicing.yaml", "labs/02-contention.yaml",
        "labs/05-failover.yaml", "compliance/design-enforce.yaml", "labs/02-contention.yaml|tenant-anti-affinity",
        "examples/quota-reclaim.yaml|tenant-anti-affinity", "labs/02-contention.yaml|classification-aware",
        "examples/quota-reclaim.yaml|classification-aware",
        // A quota trial that places part of a workload on the live view and undoes it.
        "../tests/fixtures/scenarios/quota-trial.yaml", "../tests/fixtures/scenarios/quota-trial.yaml|spread"),
    [](const ::testing::TestParamInfo<std::string>& param) { return test_param_name(param.param); });

}  // namespace
}  // namespace gtw::test
