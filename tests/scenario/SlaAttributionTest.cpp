// SLA attribution end to end: a neighbour that starts hammering the shared GPU at 30 s makes the victim's
// latency SLO miss exactly the windows from 30 s on, and the attribution names it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

TEST(SlaAttribution, ViolationsFallInTheNeighboursWindowsAndNameIt) {
  TempDir dir;
  const std::string out = dir.file("nn");
  const auto r = run_process(
      run_argv(GTW_BINARY, std::string(GTW_SOURCE_DIR) + "/scenarios/attacks/noisy-neighbour.yaml", out, "json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  const json& slo = report["tenants"][0]["slos"][0];
  ASSERT_EQ(slo["name"], "p99");
  ASSERT_EQ(slo["windows"].size(), 6u);
  for (const auto& w : slo["windows"]) {
    const double start = w["start_s"].get<double>();
    EXPECT_EQ(w["violated"].get<bool>(), start >= 30.0) << "window at " << start << " s (the hammer starts at 30 s)";
  }
  double hammer_share = 0;
  for (const auto& a : slo["attribution"])
    if (a["who"] == "hammer") hammer_share = a["share"].get<double>();
  EXPECT_GT(hammer_share, 0.4) << slo["attribution"];
}

}  // namespace
}  // namespace gtw::test
