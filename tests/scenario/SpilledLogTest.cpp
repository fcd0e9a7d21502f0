// The event log spills its full blocks to a temporary file past the resident ones (sim/core/EventLog.hpp), and
// the analysis its busy intervals, context switches, request and job outcomes, utilisation windows and leakage
// co-activity (sim/core/PagedRecords.hpp). Every analysis and writer must read spilled data as it reads data in
// memory: each shipped scenario runs in memory and again spilled, and writes the same report.json (outside
// provenance), report.md, CSV tables, trace.json and metrics.prom. Spilled two ways: all (8-event blocks of which
// none stays in memory, every analysis table spilled in pages of 3) and part (the analysis tables past 61 records).
// `Shipped`: small scenarios (under 0.2 s each), so that the sanitizer pass runs them too (there a reference kept
// into a block the cache has reused is a use after free); `EveryShipped`: every other scenario the repository ships
// (issue 21: the streamed analyses equal the in-memory ones on the shipped scenarios).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
const std::string SRC = GTW_SOURCE_DIR;

// How much a run keeps in memory: all of it, nothing (every event block and analysis record through the spill file),
// or part (the analysis tables spill past 61 records in pages of 7: the leakage analysis then merges co-activity
// runs written out with what its meetings still hold).
// NO_FILE: everything due to spill, but no temporary file can be made: the data stays in memory.
enum class Spill { NONE, ALL, PART, NO_FILE };

ProcessResult run_scenario(const std::string& scenario, const std::string& out, Spill spill) {
  ProcessOptions options;
  options.env = {{"SOURCE_DATE_EPOCH", "0"}};
  const bool all = spill == Spill::ALL || spill == Spill::NO_FILE;
  if (all) {
    options.env.emplace_back("GPUTWIN_EVENT_LOG_BLOCK_SHIFT", "3");
    options.env.emplace_back("GPUTWIN_EVENT_LOG_RESIDENT_BLOCKS", "0");
  }
  if (spill != Spill::NONE) {
    options.env.emplace_back("GPUTWIN_ANALYSIS_RESIDENT_RECORDS", all ? "0" : "61");
    options.env.emplace_back("GPUTWIN_ANALYSIS_PAGE_RECORDS", all ? "3" : "7");
  }
  if (spill == Spill::NO_FILE) options.env.emplace_back("TMPDIR", "/nonexistent/gputwin-test");
  return run_process(
      {GTW_BINARY, "run", scenario, "-o", out, "--progress", "none", "--format", "json,md,csv,trace,metrics"}, options);
}

void expect_same_outputs(const std::string& scenario, Spill spill) {
  TempDir dir;
  const auto a = run_scenario(scenario, dir.file("memory"), Spill::NONE);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto b = run_scenario(scenario, dir.file("spilled"), spill);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.out.substr(0, a.out.find('\n')), b.out.substr(0, b.out.find('\n'))) << "the verdict line";
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.file("memory"))) {
    const std::string name = entry.path().filename().string();
    const std::string spilled = dir.file("spilled") + "/" + name;
    ASSERT_TRUE(fs::exists(spilled)) << name;
    ++files;
    if (name == "report.json") {
      auto x = json::parse(read_text(entry.path().string()));
      auto y = json::parse(read_text(spilled));
      x.erase("provenance");
      y.erase("provenance");
      EXPECT_EQ(x.dump(), y.dump()) << name;
    } else {
      EXPECT_EQ(read_text(entry.path().string()), read_text(spilled)) << name;
    }
  }
  EXPECT_GE(files, 5u);
}

class SpilledLog : public ::testing::TestWithParam<std::string> {};

TEST_P(SpilledLog, WritesWhatTheLogInMemoryWrites) {
  expect_same_outputs(SRC + "/scenarios/" + GetParam(), Spill::ALL);
}

TEST_P(SpilledLog, PartlySpilledWritesWhatTheLogInMemoryWrites) {
  expect_same_outputs(SRC + "/scenarios/" + GetParam(), Spill::PART);
}

const std::vector<std::string> SMALL = {
    "ci/time-slicing.yaml",        "attacks/l2-covert-mps.yaml", "compliance/design-us-burst.yaml",
    "labs/07-agents-secrets.yaml", "examples/serving/mps.yaml",  "examples/mig-reconfigure.yaml",
    "examples/quota-reclaim.yaml"};

// Every other scenario the repository ships (a file under scenarios/ with a gputwin apiVersion; not the expectation
// files of `gputwin test`, the sweeps' point templates nor the OpenSLO fragments scenarios read), relative to
// scenarios/, sorted. The sanitizer pass leaves these out (scripts/test.sh): they add minutes there.
std::vector<std::string> every_other_shipped_scenario() {
  std::vector<std::string> out;
  const fs::path root = SRC + "/scenarios";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string relative = fs::relative(entry.path(), root).generic_string();
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    if (relative.ends_with(".test.yaml") || relative.find("sweeps/") != std::string::npos) continue;
    if (std::find(SMALL.begin(), SMALL.end(), relative) != SMALL.end()) continue;
    const std::string text = read_text(entry.path().string());
    if (text.find("\napiVersion: gputwin.dev/") == std::string::npos) continue;
    out.push_back(relative);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const auto name_of = [](const ::testing::TestParamInfo<std::string>& param) { return test_param_name(param.param); };

INSTANTIATE_TEST_SUITE_P(Shipped, SpilledLog, ::testing::ValuesIn(SMALL), name_of);
INSTANTIATE_TEST_SUITE_P(EveryShipped, SpilledLog, ::testing::ValuesIn(every_other_shipped_scenario()), name_of);

// Where no temporary file can be made, every table keeps its records in memory (the leakage analysis then keeps
// joining its co-activity instead of writing runs): the outputs are the same. A scenario with leakage channels,
// discrete exposures and models.
TEST(SpilledLogWithoutATemporaryFile, WritesWhatTheLogInMemoryWrites) {
  expect_same_outputs(SRC + "/scenarios/labs/03-model-ip.yaml", Spill::NO_FILE);
}

// The list above is built by reading scenarios/: a change of layout that emptied it would drop the tests silently.
TEST(SpilledLogScenarios, EveryOtherShippedScenarioIsListed) {
  const auto others = every_other_shipped_scenario();
  EXPECT_GE(others.size(), 40u);
  EXPECT_NE(std::find(others.begin(), others.end(), "examples/default.yaml"), others.end());
}

}  // namespace
}  // namespace gtw::test
