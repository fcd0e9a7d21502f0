#include "Subprocess.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "Process.hpp"

namespace gtw::test {

double timeout_scale() {
  const char* scale = std::getenv("GTW_TEST_TIMEOUT_SCALE");
  return scale ? std::max(1, std::atoi(scale)) : 1;
}

// On the project's child-process runner (sim/core/Process): the streams go to files in a private
// temporary folder and are read back, truncated to max_capture.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  const TempDir streams;
  ChildJob job;
  job.argv = argv;
  job.stdout_path = streams.file("stdout");
  job.stderr_path = streams.file("stderr");
  job.timeout_seconds = options.timeout_seconds * timeout_scale();
  job.cwd = options.cwd;
  job.env = options.env;
  const ChildResult r = run_child(job);
  ProcessResult result;
  result.seconds = r.seconds;
  result.timed_out = r.timed_out;
  result.signal = r.signal;
  if (r.spawn_failed) {  // what a shell says of a program it cannot run
    result.exited = true;
    result.exit_code = 127;
    return result;
  }
  result.exited = r.exit_code >= 0 && r.signal == 0;
  result.exit_code = r.exit_code;
  result.out = read_text(job.stdout_path);
  result.err = read_text(job.stderr_path);
  result.err_bytes = result.err.size();
  if (result.out.size() > options.max_capture) result.out.resize(options.max_capture);
  if (result.err.size() > options.max_capture) result.err.resize(options.max_capture);
  return result;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "gtw-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string test_param_name(const std::string& text) {
  std::string name = text;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::vector<std::string> run_argv(const std::string& binary, const std::string& scenario, const std::string& out,
                                  const std::string& formats, const std::vector<std::string>& sets) {
  std::vector<std::string> argv{binary, "run", scenario, "-o", out, "--progress", "none", "--format", formats};
  for (const auto& s : sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  return argv;
}

}  // namespace gtw::test
