#pragma once
// The one child-process runner of the project (posix_spawn, a timeout, N at a time): `gputwin test` and
// `gputwin sweep` run every simulation as a child `gputwin run` (SimGrid allows one engine per process),
// `gputwin calibrate` runs the CUDA kernels and its validation runs, the tests run the binaries.
#include <signal.h>

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gtw {

struct ChildJob {
  std::vector<std::string> argv;  // argv[0] is the executable path
  std::string stdout_path;        // the child's stdout and stderr go to these files (empty: the parent's)
  std::string stderr_path;
  double timeout_seconds = 300;                          // killed (SIGKILL) after this
  std::string cwd;                                       // the child's working directory (empty: the parent's)
  std::vector<std::pair<std::string, std::string>> env;  // set in the child's environment
  // stdin is always /dev/null: a child never waits on the terminal.
};

struct ChildResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  bool spawn_failed = false;
  bool interrupted = false;  // stopped because the parent was interrupted (SIGINT/SIGTERM): not the child's result
  double seconds = 0;
  bool ok() const { return exit_code == 0 && signal == 0 && !timed_out && !spawn_failed; }
  /// "exit 2", "killed by signal 11 (Segmentation fault)", "timed out after 300 s"
  std::string describe(double timeout_seconds) const;
};

/// Runs the jobs, at most `parallel` at once, in the order given; `on_done(index, result)` is called on
/// the calling thread as each one ends (completion order). Once interrupted() holds (an InterruptGuard
/// caught SIGINT or SIGTERM), no job starts any more, the running ones get SIGTERM, and each is reported
/// with `interrupted` set; the jobs never started are not reported.
void run_children(const std::vector<ChildJob>& jobs, int parallel,
                  const std::function<void(size_t, const ChildResult&)>& on_done);
/// The same with jobs made as slots free up: `next_job()` is called only when a job can start at once and
/// returns nothing when there is no more work; the index given to `on_done` counts the jobs it returned.
void run_children(const std::function<std::optional<ChildJob>()>& next_job, int parallel,
                  const std::function<void(size_t, const ChildResult&)>& on_done);

/// While alive, SIGINT and SIGTERM set a flag (interrupted()) instead of ending the process, so that a
/// coordinator (gputwin sweep) can stop its children and leave their work undone rather than failed. The
/// previous handlers come back at destruction.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction previous_int_ {
  }, previous_term_{};
};

/// The signal an InterruptGuard caught (SIGINT or SIGTERM), 0 when none.
int interrupted();

/// Runs one job to its end (no timeout when timeout_seconds is infinite).
ChildResult run_child(const ChildJob& job);

/// Every child gets GPUTWIN_PARENT_PID (the spawning process). A gputwin child calls this first: it asks the
/// kernel (Linux) for SIGTERM when its parent dies, and ends at once if the parent is already gone, so that a
/// coordinator killed with SIGKILL (an MPI rank lost, `kill -9`) does not leave its points running. A process
/// whose parent is not that process while it lives (started through mpiexec or a shell) is left alone. The
/// signal follows the death of the thread that spawned the child; the coordinators spawn from their main thread.
void end_with_parent();

inline constexpr double NO_TIMEOUT = std::numeric_limits<double>::infinity();

/// The running gputwin executable (/proc/self/exe), for re-running itself as `gputwin run`.
std::string self_executable(const char* argv0_fallback);

/// This process's resident memory in bytes (/proc/self/statm), 0 where it cannot be read.
double resident_memory_bytes();
/// The most resident memory this process has had, in bytes (getrusage), 0 where it cannot be read.
double peak_resident_memory_bytes();

/// The malloc this process runs on, for the provenance of timings: "jemalloc <version>" when jemalloc is
/// linked or preloaded (it exports `mallctl`), else "glibc <version>".
std::string active_allocator();

/// Last `max_bytes` of a file (a child's stderr), for messages.
std::string tail_of_file(const std::string& path, size_t max_bytes = 2000);

}  // namespace gtw
