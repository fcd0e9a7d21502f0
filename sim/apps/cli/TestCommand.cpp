// gputwin test DIR|FILE...: runs the scenarios named by *.test.yaml files (each in a child `gputwin run`),
// checks their expectations and reports per scenario, as JUnit XML and as GitHub annotations.
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "Commands.hpp"
#include "Errors.hpp"
#include "Process.hpp"
#include "TestRun.hpp"
#include "Writers.hpp"

namespace fs = std::filesystem;

namespace gtw::cli {
namespace {

struct TestOptions {
  std::vector<std::string> paths;
  int parallel = 1;
  std::string junit;
  std::string output = "text";
  std::string out_dir;
};

// A temporary folder for the runs' outputs, removed at the end unless the user chose the folder.
class RunFolder {
 public:
  explicit RunFolder(const std::string& chosen) {
    if (!chosen.empty()) {
      path_ = chosen;
      return;
    }
    std::string pattern = (fs::temp_directory_path() / "gputwin-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw RuntimeError("cannot create a temporary folder in " + pattern);
    path_ = pattern;
    owned_ = true;
  }
  ~RunFolder() {
    std::error_code ec;
    if (owned_) fs::remove_all(path_, ec);
  }
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool owned_ = false;
};

int run_test_command(const TestOptions& o) {
  using namespace gtw::regress;
  const auto start = std::chrono::steady_clock::now();
  Diagnostics diags;
  const auto files = discover_test_files(o.paths, diags);
  std::vector<TestCase> tests(files.size());
  for (size_t i = 0; i < files.size(); ++i) load_test_file(files[i], tests[i], diags);
  if (diags.has_errors()) {
    std::cerr << diags.format_all() << diags.distinct_error_count() << " error(s); no scenario was run\n";
    return EXIT_INVALID_INPUT;
  }
  RunFolder folder(o.out_dir);
  TestRunOptions options;
  options.gputwin = self_executable("gputwin");
  options.out_root = folder.path();
  options.parallel = o.parallel;

  // Print in the order of the files, whatever order the parallel runs end in.
  std::vector<const TestResult*> finished(tests.size(), nullptr);
  size_t printed = 0;
  const auto results = run_tests(tests, options, [&](const TestResult& r) {
    finished[static_cast<size_t>(r.test - tests.data())] = &r;
    while (printed < tests.size() && finished[printed]) std::cout << summary_text(*finished[printed++]) << std::flush;
  });
  while (printed < results.size()) std::cout << summary_text(results[printed++]);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char timing[64];
  std::snprintf(timing, sizeof timing, " (%.1f s)", wall);
  std::cout << closing_line(results) << timing << "\n";
  if (o.output == "github") std::cout << github_annotations(results);
  if (!o.junit.empty()) {
    const fs::path junit(o.junit);
    if (junit.has_parent_path()) fs::create_directories(junit.parent_path());
    write_file_atomic(o.junit, junit_xml(results));
  }
  if (!o.out_dir.empty()) std::cout << "outputs: " << o.out_dir << "\n";
  return exit_code_for(results);
}

}  // namespace

Subcommand register_test_command(CLI::App& app) {
  auto options = std::make_shared<TestOptions>();
  auto* cmd = app.add_subcommand("test", "Run scenarios with their expectations (*.test.yaml) and report");
  cmd->add_option("paths", options->paths, "Test files, folders with *.test.yaml, or scenarios with one beside them")
      ->required();
  cmd->add_option("-j,--jobs", options->parallel, "Scenarios run in parallel (default 1)")->check(CLI::Range(1, 256));
  cmd->add_option("--junit", options->junit, "Write JUnit XML here (one testcase per expectation)");
  cmd->add_option("--output", options->output, "text|github (github adds ::error annotations)")
      ->check(CLI::IsMember({"text", "github"}));
  cmd->add_option("-o,--out", options->out_dir, "Keep each run's outputs in DIR/<test> (default: a temporary folder)");
  return {cmd, [options] { return run_test_command(*options); }};
}

}  // namespace gtw::cli
