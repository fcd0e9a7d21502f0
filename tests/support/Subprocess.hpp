#pragma once
// Runs a command as a child process with a timeout and captures its output (tests only).
#include <string>
#include <vector>

namespace gtw::test {

struct ProcessResult {
  int exit_code = -1;  // valid when exited normally
  int signal = 0;      // non-zero when killed by a signal
  bool timed_out = false;
  std::string out;
  std::string err;
};

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds = 120);

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

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);

}  // namespace gtw::test
