// gputwin test and gputwin diff end to end, through the binary: the CI suite passes, a deliberate
// regression fails naming the scenario, the expectation and the measured value, invalid input exits 2
// with file:line:col, and diff's exit codes follow kubectl diff.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::ordered_json;
const std::string SRC = GTW_SOURCE_DIR;
const std::string CI = SRC + "/scenarios/ci";

ProcessResult gputwin(std::vector<std::string> args) {
  args.insert(args.begin(), GTW_BINARY);
  return run_process(args, 300);
}

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

std::string attribute(const std::string& xml, const std::string& name) {
  std::smatch m;
  const std::regex re(name + "=\"([^\"]*)\"");
  return std::regex_search(xml, m, re) ? m[1].str() : "";
}

// The exclusive CI test with its GPUs time-sliced two ways: chat now shares GPUs with the batch tenant.
const std::string REGRESSED_TEST = R"(# the exclusive design, with isolation turned off
scenario: )" + CI + R"(/exclusive.yaml
set:
  spec.cluster.nodePools[0].sharing: {mode: timeSlicing, replicas: 2}
  spec.cluster.nodePools[0].gpusPerNode: 2
expect:
  - allSlosMet: true
  - slo: chat/p99-latency
  - latency: chat-svc
    max: 2s
  - metric: summary.context_switches
    equals: 0
  - jobsFailed: etl-jobs
)";

TEST(TestCommand, CiSuitePassesInParallelWithJunit) {
  TempDir dir;
  const auto r = gputwin({"test", CI, "-j", "2", "--junit", dir.file("junit.xml")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const int scenarios = count_of(r.out, "\nPASS ") + (r.out.rfind("PASS ", 0) == 0 ? 1 : 0);
  EXPECT_GE(scenarios, 10) << r.out;
  EXPECT_NE(r.out.find(std::to_string(scenarios) + " passed, 0 failed"), std::string::npos) << r.out;
  const std::string xml = read_text(dir.file("junit.xml"));
  // The strict JUnit schema keeps the totals on the suites (<testsuites> has no attributes): add them up.
  int tests = 0, failures = 0, errors = 0;
  const std::regex suite(R"re(<testsuite [^>]*tests="(\d+)" failures="(\d+)" errors="(\d+)")re");
  for (std::sregex_iterator it(xml.begin(), xml.end(), suite), end; it != end; ++it) {
    tests += std::stoi((*it)[1]);
    failures += std::stoi((*it)[2]);
    errors += std::stoi((*it)[3]);
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(count_of(xml, "<testcase "), tests);
  EXPECT_EQ(count_of(xml, "<testsuite "), scenarios);
  // Results print in file order whatever order the parallel runs end in.
  EXPECT_LT(r.out.find("confidential"), r.out.find("exclusive"));
  EXPECT_LT(r.out.find("exclusive"), r.out.find("vgpu"));
}

TEST(TestCommand, DeliberateRegressionFailsNamingScenarioExpectationAndValue) {
  TempDir dir;
  write_text(dir.file("exclusive-regressed.test.yaml"), REGRESSED_TEST);
  const auto r = gputwin(
      {"test", dir.file("exclusive-regressed.test.yaml"), "--junit", dir.file("out/junit.xml"), "--output", "github"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL    exclusive-regressed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1/5 expectations met"), std::string::npos) << r.out;
  const std::string file = dir.file("exclusive-regressed.test.yaml");
  EXPECT_NE(r.out.find(file + ":8:5: tenants[name=chat].slos[name=p99-latency].met == true: measured false"),
            std::string::npos)
      << r.out;
  const std::regex latency(std::regex_replace(file, std::regex(R"([.\[\]])"), R"(\$&)") +
                           R"(:9:5: tenants\[\*\]\.workloads\[name=chat-svc\]\.latency\.p99_s <= 2s: measured 3\.\d+)");
  EXPECT_TRUE(std::regex_search(r.out, latency)) << r.out;
  EXPECT_NE(r.out.find("0 passed, 1 failed"), std::string::npos) << r.out;
  // GitHub annotations: one per failed expectation, at its line.
  EXPECT_EQ(count_of(r.out, "::error file=" + file + ",line="), 4) << r.out;
  EXPECT_NE(r.out.find("::error file=" + file +
                       ",line=7,col=5,title=gputwin test exclusive-regressed::scenario "
                       "exclusive-regressed: expectation summary.slos_missed == 0 failed: measured 1"),
            std::string::npos)
      << r.out;
  const std::string xml = read_text(dir.file("out/junit.xml"));
  EXPECT_EQ(attribute(xml, "tests"), "5");
  EXPECT_EQ(attribute(xml, "failures"), "4");
  EXPECT_EQ(count_of(xml, "<failure "), 4);
}

TEST(TestCommand, TurningOffScrubbingFailsTheAttackCaseWithTheBytesRecovered) {
  // The CI attack case with its scrubbing policy regressed: the scraper now recovers the fine-tune's memory.
  TempDir dir;
  std::string text = read_text(CI + "/attack-remanence.test.yaml");
  text = std::regex_replace(text, std::regex("scrubOnFree: true"), "scrubOnFree: false");
  text = std::regex_replace(text, std::regex("scenario: \\.\\./attacks/"), "scenario: " + SRC + "/scenarios/attacks/");
  write_text(dir.file("attack-remanence.test.yaml"), text);
  const auto r = gputwin({"test", dir.file("attack-remanence.test.yaml")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL    attack-remanence"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing recovered by the scraper: leakage.attacks[name=scrape].achieved.bytes_recovered == 0: "
                       "measured 3.22"),
            std::string::npos)
      << r.out;
}

TEST(TestCommand, InvalidTestFileExits2WithLocationAndRunsNothing) {
  TempDir dir;
  write_text(dir.file("bad.test.yaml"), "scenario: " + CI + "/mps.yaml\nexpect:\n  - slo: chat/p99-latency\n" +
                                            "    mett: true\n  - metric: gpus[0.utilisation\n    max: 1\n");
  const auto r = gputwin({"test", dir.file("bad.test.yaml"), "-o", dir.file("runs")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(dir.file("bad.test.yaml") + ":4:5: error: expect[0]: unknown key 'mett'"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(dir.file("bad.test.yaml") + ":5:17: error: expect[1].metric: unclosed '['"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no scenario was run"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("runs")));
}

TEST(TestCommand, InvalidScenarioOverrideExits2) {
  TempDir dir;
  write_text(dir.file("mode.test.yaml"), "scenario: " + CI +
                                             "/mps.yaml\nset:\n  spec.cluster.nodePools[0].sharing.mode: "
                                             "timeSlicing\nexpect:\n  - allSlosMet: true\n");
  const auto r = gputwin({"test", dir.file("mode.test.yaml")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("INVALID mode"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("only meaningful for mode mps"), std::string::npos) << r.out;
}

TEST(TestCommand, MissingMetricFailsAndAScenarioFindsItsTestFile) {
  TempDir dir;
  write_text(dir.file("cost.test.yaml"), "scenario: " + CI + "/training.yaml\nexpect:\n  - metric: carbon.total\n" +
                                             "    max: 10\n  - metric: tenants[name=research].slos[0].mett\n" +
                                             "    equals: true\n");
  auto r = gputwin({"test", dir.file("cost.test.yaml")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("metric not found: carbon.total: 'carbon' is not a key of the report"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("did you mean 'met'?"), std::string::npos) << r.out;
  r = gputwin({"test", CI + "/training.yaml"});  // a scenario: its training.test.yaml runs
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS    training"), std::string::npos) << r.out;
  r = gputwin({"test", CI + "/fragments/tenants.yaml"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no tenants.test.yaml beside it"), std::string::npos) << r.err;
}

json read_json(const std::string& path) {
  return json::parse(read_text(path));
}

TEST(DiffCommand, ExitCodesAndTolerances) {
  TempDir dir;
  const std::string scenario = CI + "/exclusive.yaml";
  for (const char* name : {"a", "b"}) {
    const auto r = gputwin({"run", scenario, "-o", dir.file(name), "--progress", "none", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ASSERT_EQ(gputwin({"run", scenario, "-o", dir.file("seed"), "--progress", "none", "--format", "json", "--seed", "43"})
                .exit_code,
            0);
  // Same scenario and seed: only provenance differs, and it is not compared.
  auto r = gputwin({"diff", dir.file("a"), dir.file("b")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 differ"), std::string::npos) << r.out;
  r = gputwin({"diff", dir.file("a"), dir.file("seed")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("~ scenario.seed: 42 -> 43"), std::string::npos) << r.out;

  // p99 up 3%: beyond the 1% default, within an explicit 5%.
  json moved = read_json(dir.file("a/report.json"));
  auto& p99 = moved["tenants"][0]["workloads"][0]["latency"]["p99_s"];
  const double before = p99.get<double>();
  p99 = before * 1.03;
  std::filesystem::create_directories(dir.file("moved"));
  write_text(dir.file("moved/report.json"), moved.dump(2));
  r = gputwin({"diff", dir.file("a"), dir.file("moved")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("~ tenants[name=chat].workloads[name=chat-svc].latency.p99_s: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("+3.0%)"), std::string::npos) << r.out;
  r = gputwin({"diff", dir.file("a"), dir.file("moved/report.json"), "--tolerance", "p99_s=5%"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 moved within tolerance"), std::string::npos) << r.out;

  // Errors: a missing folder, a file that is not a report, a malformed tolerance.
  EXPECT_EQ(gputwin({"diff", dir.file("a"), dir.file("nowhere")}).exit_code, 2);
  write_text(dir.file("junk.json"), "{\"not\": \"a report\"}");
  EXPECT_EQ(gputwin({"diff", dir.file("a"), dir.file("junk.json")}).exit_code, 2);
  r = gputwin({"diff", dir.file("a"), dir.file("b"), "--tolerance", "p99_s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tolerance expects METRIC=REL"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gtw::test
