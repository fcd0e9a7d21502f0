#pragma once
// Test files (`*.test.yaml`) kept beside the scenarios they exercise, in the manner of kyverno test:
// they name a scenario, optional overrides and seed, and the expectations its report must meet. The
// scenario schema is untouched. Format: docs/regression.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Expectation.hpp"

namespace gtw::regress {

inline constexpr const char* TEST_FILE_SUFFIX = ".test.yaml";

struct TestCase {
  std::string file;      // the test file, as found
  std::string name;      // `name:`, else the file name without .test.yaml
  std::string scenario;  // path of the scenario, resolved against the test file's folder
  SourceLoc scenario_loc;
  std::optional<uint64_t> seed;
  std::vector<std::string> overrides;  // "path=value", passed to `gputwin run --set`
  double timeout_seconds = 300;
  std::vector<Expectation> expectations;
};

/// Parses one test file; every problem goes to `diags` as file:line:col. Returns false on errors.
bool load_test_file(const std::string& path, TestCase& out, Diagnostics& diags);

/// Parses the YAML text of a test file (`path` is used for locations and to resolve the scenario).
bool parse_test_text(const std::string& text, const std::string& path, TestCase& out, Diagnostics& diags);

/// Test files under the arguments: a folder gives every *.test.yaml below it (sorted), a test file
/// itself, a scenario file its sibling <stem>.test.yaml. Problems (missing path, scenario without a
/// test file) go to `diags`.
std::vector<std::string> discover_test_files(const std::vector<std::string>& args, Diagnostics& diags);

}  // namespace gtw::regress
