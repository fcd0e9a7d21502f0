#pragma once
// Runs a command as a child process with a timeout and captures its output (tests only).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gtw::test {

struct ProcessResult {
  int exit_code = -1;   // valid when exited normally
  bool exited = false;  // a normal exit, not a signal
  int signal = 0;       // non-zero when killed by a signal
  bool timed_out = false;
  std::string out;
  std::string err;
  size_t err_bytes = 0;  // stderr size before truncation to max_capture
  double seconds = 0;
};

/// GTW_TEST_TIMEOUT_SCALE (an integer, default 1): sanitizer builds run ~10-30x slower, so scripts/test.sh
/// scales every child's hang guard with it. Hang guards, never speed assertions.
double timeout_scale();

struct ProcessOptions {
  double timeout_seconds = 120;   // a hang guard (times timeout_scale()): the child is killed after it
  std::string cwd;                // working directory of the child (empty: inherited)
  size_t max_capture = SIZE_MAX;  // keep at most this much of each stream
  std::vector<std::pair<std::string, std::string>> env;  // set in the child
};

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options);
inline ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds = 120) {
  ProcessOptions options;
  options.timeout_seconds = timeout_seconds;
  return run_process(argv, options);
}

/// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// argv of `BINARY run SCENARIO -o OUT --progress none --format FORMATS`, then `--set S` for each override.
std::vector<std::string> run_argv(const std::string& binary, const std::string& scenario, const std::string& out,
                                  const std::string& formats, const std::vector<std::string>& sets = {});

/// A gtest parameter's name from a path or label: every character but letters and digits becomes '_'.
std::string test_param_name(const std::string& text);

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);

}  // namespace gtw::test
