// Where each number comes from (docs/models/gpu.md, "Provenance"): every hardware-profile parameter starts its
// source with its kind (datasheet, measured, derived, fitted, assumed); `gputwin profiles --provenance` lists
// them; a profile whose source does not say its kind is refused at its line; report.json's
// parameter_provenance counts what a run rests on and names the fitted and assumed parameters.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "ParameterProvenance.hpp"
#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;
const std::string SRC = GTW_SOURCE_DIR;

TEST(ParameterProvenance, TheKindIsTheSourcesFirstWordInParentheses) {
  EXPECT_EQ(provenance_of("(datasheet) NVIDIA H100 datasheet"), ProvenanceKind::DATASHEET);
  EXPECT_EQ(provenance_of("(derived, unverified) 1.555TB/s x 0.767"), ProvenanceKind::DERIVED);
  EXPECT_EQ(provenance_of("(fitted) to the MPS-vs-MIG evaluation"), ProvenanceKind::FITTED);
  EXPECT_EQ(provenance_of("(assumption) older spelling"), ProvenanceKind::ASSUMED);
  EXPECT_EQ(provenance_of("(scenario) override at a.yaml:3"), ProvenanceKind::SCENARIO);
  EXPECT_FALSE(provenance_of("NVIDIA datasheet (datasheet)"));
  EXPECT_FALSE(provenance_of("(guessed) a number"));
  EXPECT_FALSE(provenance_of("(datasheet"));
  EXPECT_FALSE(provenance_of(""));
  ProvenanceSummary s;
  s.add("a", "(fitted) x");
  s.add("b", "(assumed) y");
  s.add("c", "(datasheet) z");
  EXPECT_EQ(s.total(), 3);
  EXPECT_EQ(s.by_kind.at("measured"), 0);
  EXPECT_EQ(s.fitted, std::vector<std::string>{"a"});
  EXPECT_EQ(s.assumed, std::vector<std::string>{"b"});
  EXPECT_EQ(s.describe(), "1 datasheet, 1 fitted, 1 assumed") << "provenance order, kinds present only";
  EXPECT_DOUBLE_EQ(s.fitted_or_assumed_share(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(ProvenanceSummary{}.fitted_or_assumed_share(), 0);
}

TEST(ParameterProvenance, ProfilesListEachParametersKindAndEveryShippedOneHasOne) {
  const auto r = run_process({GTW_BINARY, "profiles", "--provenance"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-80GB-SXM", "H200-141GB"})
    EXPECT_NE(r.out.find(std::string(name) + " ("), std::string::npos) << name << "\n" << r.out;
  // The MPS L2 contention is fitted to the published MPS-vs-MIG slowdown; GEMM efficiency is assumed.
  EXPECT_NE(r.out.find("l2Contention                         fitted "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("computeEfficiency                    assumed "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hbmAchievable                        measured "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("  ? "), std::string::npos) << "a parameter without a kind:\n" << r.out;
  const auto one = run_process({GTW_BINARY, "profiles", "--provenance", "H100-80GB-SXM"}, 60);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.find("A100-40GB"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("H100-80GB-SXM ("), std::string::npos) << one.out;
}

TEST(ParameterProvenance, ASourceWithoutItsKindIsRefusedAtItsLine) {
  TempDir dir;
  std::string profile = read_text(SRC + "/calibration/profiles/H100-80GB-SXM.yaml");
  const std::string fitted = "source: \"(fitted) to the MPS-vs-MIG";
  const auto at = profile.find(fitted);
  ASSERT_NE(at, std::string::npos);
  profile.replace(at, fitted.size(), "source: \"to the MPS-vs-MIG");
  write_text(dir.file("H100-80GB-SXM.yaml"), profile);
  ProcessOptions options;
  options.env = {{"GPUTWIN_PROFILE_PATH", dir.path()}};
  const auto r = run_process({GTW_BINARY, "validate", SRC + "/scenarios/examples/default.yaml"}, options);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("H100-80GB-SXM.yaml:72:13: error: spec.l2Contention.source: must start with its provenance, "
                       "one of (datasheet), (measured), (derived), (fitted), (assumed)"),
            std::string::npos)
      << r.err;
}

TEST(ParameterProvenance, TheReportNamesTheFittedAndAssumedParametersTheRunRestsOn) {
  TempDir dir;
  // serving-alone with the pool's HBM bandwidth overridden: a parameter the scenario sets.
  std::string scenario = read_text(SRC + "/tests/fixtures/scenarios/serving-alone.yaml");
  const std::string pool = "sharing: {mode: exclusive}}";
  const auto at = scenario.find(pool);
  ASSERT_NE(at, std::string::npos);
  scenario.replace(at, pool.size(), "sharing: {mode: exclusive}, hardware: {hbmAchievable: 2.2TB/s}}");
  write_text(dir.file("serving.yaml"), scenario);
  const std::string out = dir.file("out");
  const auto r = run_process(
      {GTW_BINARY, "run", dir.file("serving.yaml"), "-o", out, "--progress", "none", "--format", "json,md"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json p = json::parse(read_text(out + "/report.json"))["parameter_provenance"];
  int sum = 0;
  for (const auto& [kind, n] : p["by_kind"].items()) sum += n.get<int>();
  EXPECT_EQ(p["parameters"].get<int>(), sum);
  const auto has = [](const json& list, const std::string& name) {
    for (const auto& x : list)
      if (x == name) return true;
    return false;
  };
  EXPECT_TRUE(has(p["fitted"], "H100-80GB-SXM.l2Contention")) << p.dump(1);
  EXPECT_TRUE(has(p["fitted"], "serving.vllm-v1.hostTime")) << "the engine family's host time per step";
  EXPECT_TRUE(has(p["assumed"], "H100-80GB-SXM.computeEfficiency")) << p.dump(1);
  EXPECT_EQ(p["by_kind"]["scenario"], 1) << "the overridden HBM bandwidth is the scenario's";
  EXPECT_DOUBLE_EQ(p["fitted_or_assumed_share"].get<double>(),
                   static_cast<double>(p["fitted"].size() + p["assumed"].size()) / sum);
  EXPECT_NE(read_text(out + "/report.md").find("Parameters behind these numbers: "), std::string::npos);
}

}  // namespace
}  // namespace gtw::test
