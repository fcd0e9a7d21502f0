#pragma once
// Runs test cases (each scenario as `gputwin run` in a child process), evaluates their expectations
// against report.json, and formats the results: one summary line per scenario, JUnit XML (one
// testcase per expectation) and GitHub workflow annotations pointing at the expectation's line.
#include <functional>
#include <string>
#include <vector>

#include "TestFile.hpp"

namespace gtw::regress {

struct TestResult {
  enum class Status { PASSED, FAILED, INVALID, ERROR };
  const TestCase* test = nullptr;
  Status status = Status::ERROR;
  std::string error;              // INVALID / ERROR: what went wrong with the run (exit status, stderr tail)
  std::vector<Outcome> outcomes;  // one per expectation (empty when the run did not produce a report)
  double seconds = 0;
  std::string out_dir;      // where report.json and the run's logs are
  std::string started_utc;  // when the runs started (JUnit timestamp: UTC, no zone); empty: when written
  size_t failed_count() const;
};

/// Evaluates every expectation of `test` against a parsed report.json.
TestResult evaluate_report(const TestCase& test, const Json& report);

struct TestRunOptions {
  std::string gputwin;   // executable that runs `gputwin run`
  std::string out_root;  // each test writes into out_root/<name>
  int parallel = 1;
};

/// Runs the tests, at most `parallel` at a time; `on_result` sees each result as it ends. The results
/// come back in the order of `tests`.
std::vector<TestResult> run_tests(const std::vector<TestCase>& tests, const TestRunOptions& options,
                                  const std::function<void(const TestResult&)>& on_result);

/// The output folder names of the tests: their names, made unique and safe for a path.
std::vector<std::string> output_names(const std::vector<TestCase>& tests);

/// "PASS  name  5/5 expectations  1.2 s  (file)"; failed expectations follow on indented lines.
std::string summary_text(const TestResult& result);
/// "N passed, N failed" (and ", N errors" when runs failed).
std::string closing_line(const std::vector<TestResult>& results);

std::string junit_xml(const std::vector<TestResult>& results);
/// `::error file=F,line=L,col=C,title=T::message` per failed expectation or failed run.
std::string github_annotations(const std::vector<TestResult>& results);

/// The exit code for a set of results: 0 all passed, 1 an expectation failed, 2 a scenario or override
/// was invalid, 3 a run crashed or timed out.
int exit_code_for(const std::vector<TestResult>& results);

}  // namespace gtw::regress
