#pragma once
// Child processes for `gputwin test` and `gputwin sweep`: SimGrid allows one engine per process, so
// every simulation runs as `gputwin run` in a child, at most N at a time.
#include <functional>
#include <string>
#include <vector>

namespace gtw::regress {

struct ChildJob {
  std::vector<std::string> argv;  // argv[0] is the executable path
  std::string stdout_path;        // the child's stdout and stderr go to these files
  std::string stderr_path;
  double timeout_seconds = 300;  // killed (SIGKILL) after this
};

struct ChildResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  bool spawn_failed = false;
  double seconds = 0;
  bool ok() const { return exit_code == 0 && signal == 0 && !timed_out && !spawn_failed; }
  /// "exit 2", "killed by signal 11 (Segmentation fault)", "timed out after 300 s"
  std::string describe(double timeout_seconds) const;
};

/// Runs the jobs, at most `parallel` at once, in the order given; `on_done(index, result)` is called on
/// the calling thread as each one ends (completion order).
void run_children(const std::vector<ChildJob>& jobs, int parallel,
                  const std::function<void(size_t, const ChildResult&)>& on_done);

/// The running gputwin executable (/proc/self/exe), for re-running itself as `gputwin run`.
std::string self_executable(const char* argv0_fallback);

/// Last `max_bytes` of a file (a child's stderr), for messages.
std::string tail_of_file(const std::string& path, size_t max_bytes = 2000);

}  // namespace gtw::regress
