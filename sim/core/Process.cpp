#include "Process.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <signal.h>
#include <spawn.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <thread>

extern char** environ;

namespace gtw {

std::string ChildResult::describe(double timeout_seconds) const {
  if (spawn_failed) return "could not start the child process";
  if (timed_out) return "timed out after " + std::to_string(static_cast<long>(timeout_seconds)) + " s (killed)";
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

namespace {

struct Running {
  pid_t pid;
  std::chrono::steady_clock::time_point start;
  double timeout_seconds;
  bool timed_out = false;
};

// The parent's environment with the job's variables set (replacing a variable of the same name).
std::vector<std::string> child_environment(const ChildJob& job) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : job.env) replaced = replaced || k == name;
    if (!replaced) out.push_back(entry);
  }
  for (const auto& [k, v] : job.env) out.push_back(k + "=" + v);
  return out;
}

constexpr const char* PARENT_PID_VARIABLE = "GPUTWIN_PARENT_PID";

pid_t spawn(const ChildJob& given) {
  if (given.argv.empty()) return -1;
  ChildJob job = given;
  job.env.emplace_back(PARENT_PID_VARIABLE, std::to_string(::getpid()));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!job.stdout_path.empty())
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, job.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  if (!job.stderr_path.empty())
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, job.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  if (!job.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, job.cwd.c_str());
  std::vector<char*> args;
  for (const auto& a : job.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment;
  std::vector<char*> envp;
  if (!job.env.empty()) {
    environment = child_environment(job);
    for (auto& e : environment) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), job.env.empty() ? environ : envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

}  // namespace

namespace {

volatile sig_atomic_t caught_signal = 0;

void remember_signal(int sig) {
  caught_signal = sig;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  caught_signal = 0;
  struct sigaction action {};
  action.sa_handler = remember_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

int interrupted() {
  return caught_signal;
}

void end_with_parent() {
  const char* text = std::getenv(PARENT_PID_VARIABLE);
  if (text == nullptr || *text == '\0') return;
  char* end = nullptr;
  errno = 0;
  const long parent = std::strtol(text, &end, 10);
  ::unsetenv(PARENT_PID_VARIABLE);  // this process's own children name it, not its parent
  if (*end != '\0' || errno != 0 || parent <= 1 || parent > std::numeric_limits<pid_t>::max()) return;
  const auto spawner = static_cast<pid_t>(parent);
  // Not its child: a launcher in between (mpiexec, a shell) passed the variable on; the launcher is the parent.
  if (::getppid() != spawner && ::kill(spawner, 0) == 0) return;
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
  if (::getppid() != spawner) {  // the spawner died before the request (or the variable came from elsewhere)
    std::fprintf(stderr,
                 "gputwin: stopping: the process that started this one (pid %ld, %s) has ended; unset %s to run "
                 "it by hand\n",
                 parent, PARENT_PID_VARIABLE, PARENT_PID_VARIABLE);
    ::raise(SIGTERM);
  }
}

void run_children(const std::function<std::optional<ChildJob>()>& next_job, int parallel,
                  const std::function<void(size_t, const ChildResult&)>& on_done) {
  if (parallel < 1) parallel = 1;
  std::map<pid_t, std::pair<size_t, Running>> running;  // keyed by pid: iteration order does not reach output
  size_t issued = 0;
  bool exhausted = false;  // the source has no job left
  bool stopping = false;   // interrupted: the running children were told to stop
  while ((!exhausted && !interrupted()) || !running.empty()) {
    if (interrupted() && !stopping) {
      stopping = true;
      for (const auto& [pid, entry] : running) ::kill(pid, SIGTERM);
    }
    while (!interrupted() && !exhausted && static_cast<int>(running.size()) < parallel) {
      // Asked only when a slot is free: a source that claims work (a sweep under several ranks) claims
      // no more than this process can start now.
      const auto job = next_job();
      if (!job) {
        exhausted = true;
        break;
      }
      const size_t index = issued++;
      const pid_t pid = spawn(*job);
      if (pid < 0) {
        ChildResult r;
        r.spawn_failed = true;
        on_done(index, r);
        continue;
      }
      running[pid] = {index, Running{pid, std::chrono::steady_clock::now(), job->timeout_seconds}};
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      auto it = running.find(done);
      if (it == running.end()) continue;  // not one of ours
      const auto [index, run] = it->second;
      running.erase(it);
      ChildResult r;
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
      r.timed_out = run.timed_out;
      if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
      // A child that ended well is a result even if the interrupt came meanwhile; any other end may be
      // the interrupt's doing (a terminal's Ctrl-C reaches the whole process group).
      r.interrupted = (stopping || interrupted() != 0) && !r.ok();
      on_done(index, r);
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    for (auto& [pid, entry] : running) {
      auto& run = entry.second;
      const double age = std::chrono::duration<double>(now - run.start).count();
      if (!run.timed_out && age > run.timeout_seconds) {
        ::kill(pid, SIGKILL);
        run.timed_out = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void run_children(const std::vector<ChildJob>& jobs, int parallel,
                  const std::function<void(size_t, const ChildResult&)>& on_done) {
  size_t next = 0;
  run_children(
      [&]() -> std::optional<ChildJob> { return next < jobs.size() ? std::optional(jobs[next++]) : std::nullopt; },
      parallel, on_done);
}

ChildResult run_child(const ChildJob& job) {
  ChildResult result;
  run_children({job}, 1, [&](size_t, const ChildResult& r) { result = r; });
  return result;
}

std::string self_executable(const char* argv0_fallback) {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && !p.empty()) return p.string();
  return argv0_fallback ? argv0_fallback : "gputwin";
}

std::string tail_of_file(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() <= max_bytes) return text;
  return "..." + text.substr(text.size() - max_bytes);
}

double resident_memory_bytes() {
  std::ifstream statm("/proc/self/statm");
  double pages_total = 0, pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return 0;
  return pages_resident * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double peak_resident_memory_bytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // KiB on Linux
}

std::string active_allocator() {
  // Looked up at run time, so that no jemalloc header is needed and an LD_PRELOADed one is seen too.
  using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
  if (auto* mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"))) {
    const char* version = nullptr;
    size_t size = sizeof(version);
    if (mallctl("version", static_cast<void*>(&version), &size, nullptr, 0) == 0 && version != nullptr) {
      const std::string full(version);  // "5.3.0-0-g<commit>"
      return "jemalloc " + full.substr(0, full.find('-'));
    }
    return "jemalloc";
  }
  return std::string("glibc ") + gnu_get_libc_version();
}

}  // namespace gtw
