// gputwin sweep SWEEP [-j N]: runs every point of a design sweep as a child `gputwin run` (SimGrid allows
// one engine per process), records each point's outcome in points/<id>/status.json as it ends, and
// merges the results into sweep.csv, sweep.h5, sweep.md and sweep.svg. A second invocation on the same
// folder runs only the points without a matching status (an interrupted sweep resumes); a point that
// crashed is recorded as failed and not run again unless --retry-failed. Under `mpirun -n N` (when built
// with Open MPI) each rank runs the points whose id modulo N is its rank, and rank 0 merges.
#include <unistd.h>

#ifdef GTW_MPI_LIBRARY
#include <dlfcn.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "Commands.hpp"
#include "Errors.hpp"
#include "InputFile.hpp"
#include "Loader.hpp"
#include "OutputName.hpp"
#include "Process.hpp"
#include "RunBudget.hpp"
#include "StrictJson.hpp"
#include "Sweep.hpp"
#include "Writers.hpp"

namespace fs = std::filesystem;

namespace gtw::cli {
namespace {

using regress::Json;

struct SweepCliOptions {
  std::string file;
  std::string out_dir;
  int parallel = 1;
  bool retry_failed = false;
  std::string progress = "auto";
};

std::string point_dir(const std::string& root, size_t id) {
  char name[32];
  std::snprintf(name, sizeof name, "p%06zu", id);
  return (fs::path(root) / "points" / name).string();
}

// What defines a point: a status written for a different definition (the sweep file changed) is stale.
Json point_identity(const regress::SweepSpec& spec, const regress::SweepPoint& p) {
  Json overrides = Json::array();
  for (const auto& [path, value] : spec.designs[p.design].overrides) overrides.push_back(path + "=" + value);
  std::error_code ec;
  const auto scenario = fs::weakly_canonical(spec.scenario, ec);  // the same file from any working directory
  return Json{{"scenario", ec ? spec.scenario : scenario.string()},
              {"design", spec.designs[p.design].name},
              {"seed", spec.seeds.empty() ? Json(nullptr) : Json(p.seed)},
              {"overrides", overrides}};
}

std::optional<Json> read_json_file(const std::string& path) {
  Diagnostics diags;
  const auto text = read_input_file(path, InputKind::REPORT_JSON, diags);
  if (!text) return std::nullopt;
  try {
    return parse_json_strict<Json>(*text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  return buf;
}

// Whether mpirun (Open MPI, or a PMI/PMIx launcher) started this process.
bool launched_by_mpirun() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(var)) return true;
  return false;
}

// This process's place among the MPI ranks: {0, 1} without MPI. Finalises MPI when it goes.
//
// Open MPI is loaded at run time (dlopen) and called through dlsym, not linked: SimGrid's SMPI exports
// the MPI_* symbols too, so a call to a linked MPI_Init lands in SimGrid. Only the five calls below are
// used, through Open MPI's ABI (MPI_Comm is a pointer, MPI_COMM_WORLD is &ompi_mpi_comm_world).
// RTLD_GLOBAL because Open MPI's plugins resolve libmpi's symbols; RTLD_DEEPBIND breaks its setenv.
class Ranks {
 public:
  Ranks() {
#ifdef GTW_MPI_LIBRARY
    if (!launched_by_mpirun()) return;
    handle_ = ::dlopen(GTW_MPI_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    if (!handle_) throw RuntimeError(std::string("cannot load the MPI library: ") + ::dlerror());
    const auto symbol = [&](const char* name) {
      void* p = ::dlsym(handle_, name);
      if (!p) throw RuntimeError(std::string("the MPI library has no ") + name + " (Open MPI is required)");
      return p;
    };
    init_ = reinterpret_cast<InitFn>(symbol("MPI_Init"));
    rank_fn_ = reinterpret_cast<CommIntFn>(symbol("MPI_Comm_rank"));
    size_fn_ = reinterpret_cast<CommIntFn>(symbol("MPI_Comm_size"));
    barrier_ = reinterpret_cast<CommFn>(symbol("MPI_Barrier"));
    finalize_ = reinterpret_cast<VoidFn>(symbol("MPI_Finalize"));
    world_ = symbol("ompi_mpi_comm_world");
    if (init_(nullptr, nullptr) != 0) throw RuntimeError("MPI_Init failed");
    rank_fn_(world_, &rank_);
    size_fn_(world_, &size_);
    mpi_ = true;
#endif
  }
  ~Ranks() {
#ifdef GTW_MPI_LIBRARY
    if (mpi_) finalize_();
      // The library stays loaded: Open MPI's atexit handlers may still run.
#endif
  }
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;
  void barrier() const {
#ifdef GTW_MPI_LIBRARY
    if (mpi_) barrier_(world_);
#endif
  }
  int rank() const {
    return rank_;
  }
  int size() const {
    return size_;
  }
  bool mpi() const {
    return mpi_;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  bool mpi_ = false;
#ifdef GTW_MPI_LIBRARY
  using InitFn = int (*)(int*, char***);
  using CommIntFn = int (*)(void*, int*);
  using CommFn = int (*)(void*);
  using VoidFn = int (*)();
  void* handle_ = nullptr;
  void* world_ = nullptr;
  InitFn init_ = nullptr;
  CommIntFn rank_fn_ = nullptr, size_fn_ = nullptr;
  CommFn barrier_ = nullptr;
  VoidFn finalize_ = nullptr;
#endif
};

// Each design's cost for the longest-first order: RunBudget's event estimate of its scenario (the same
// for every seed); a design that does not load costs 0 (it fails at once). Outputs do not depend on the
// order: every point writes its own folder.
std::map<size_t, double> estimated_cost_by_design(const gtw::regress::SweepSpec& spec,
                                                  const std::vector<gtw::regress::SweepPoint>& points,
                                                  const std::vector<size_t>& ids) {
  std::map<size_t, double> cost;
  for (size_t id : ids) {
    const size_t design = points[id].design;
    if (cost.count(design)) continue;
    std::vector<Override> overrides;
    for (const auto& [path, value] : spec.designs[design].overrides) overrides.push_back({path, value});
    Diagnostics diags;
    const ScenarioSpec scenario = load_scenario(spec.scenario, overrides, diags);
    cost[design] = diags.has_errors() ? 0.0 : estimate_run(scenario).events;
  }
  return cost;
}

int run_sweep_command(const SweepCliOptions& o) {
  using namespace gtw::regress;
#ifndef GTW_MPI_LIBRARY
  if (launched_by_mpirun()) {
    // Every rank would run every point into the same folder.
    std::cerr << "gputwin: error: sweep: this gputwin was built without MPI (install libopenmpi-dev and rebuild); "
                 "use -j N on one machine\n";
    return EXIT_INVALID_INPUT;
  }
#endif
  const Ranks ranks;
  Diagnostics diags;
  SweepSpec spec;
  if (!load_sweep(o.file, spec, diags)) {
    if (ranks.rank() == 0)
      std::cerr << diags.format_all() << diags.distinct_error_count() << " error(s); no point was run\n";
    return EXIT_INVALID_INPUT;
  }
  const std::string root = o.out_dir.empty() ? "out/sweeps/" + output_name(spec.name, "sweep") : o.out_dir;
  std::error_code ec;
  fs::create_directories(fs::path(root) / "points", ec);
  if (ec) throw RuntimeError("cannot create " + root + ": " + ec.message());

  const auto points = sweep_points(spec);
  std::vector<size_t> to_run;
  size_t resumed = 0;
  for (const auto& p : points) {
    // A rank owns the points whose id modulo the number of ranks is its rank: a fixed split, so ranks
    // that look at the folder at different moments never run a point twice.
    if (static_cast<int>(p.id % static_cast<size_t>(ranks.size())) != ranks.rank()) continue;
    const auto status = read_json_file(point_dir(root, p.id) + "/status.json");
    const bool current = status && status->contains("identity") && (*status)["identity"] == point_identity(spec, p);
    const bool failed = current && (*status)["status"] != "ok";
    if (current && !(failed && o.retry_failed)) {
      ++resumed;
      continue;
    }
    to_run.push_back(p.id);
  }

  order_longest_first(to_run, points, estimated_cost_by_design(spec, points, to_run));
  const std::string gputwin = self_executable("gputwin");
  std::vector<ChildJob> jobs;
  for (size_t id : to_run) {
    const auto& p = points[id];
    const std::string dir = point_dir(root, id);
    fs::create_directories(dir, ec);
    fs::remove(fs::path(dir) / "report.json", ec);
    ChildJob job;
    job.argv = {gputwin, "run", spec.scenario, "-o", dir, "--progress", "none", "--format", "json"};
    if (!spec.seeds.empty()) job.argv.insert(job.argv.end(), {"--seed", std::to_string(p.seed)});
    for (const auto& [path, value] : spec.designs[p.design].overrides)
      job.argv.insert(job.argv.end(), {"--set", path + "=" + value});
    job.stdout_path = dir + "/run.stdout";
    job.stderr_path = dir + "/run.stderr";
    job.timeout_seconds = spec.timeout_seconds;
    jobs.push_back(job);
  }

  std::string progress = o.progress;
  if (progress == "auto") {
    const char* ci = std::getenv("CI");
    progress = ::isatty(STDERR_FILENO) && !(ci && *ci) ? "bar" : "plain";
  }
  const std::string who =
      ranks.mpi() ? " [rank " + std::to_string(ranks.rank()) + "/" + std::to_string(ranks.size()) + "]" : "";
  const size_t mine = to_run.size() + resumed;  // the points this rank owns
  std::fprintf(stderr,
               "sweep %s%s: %zu points (%zu designs x %zu seeds), %zu already done, %zu to run, -j %d, longest first\n",
               spec.name.c_str(), who.c_str(), mine, spec.designs.size(), std::max<size_t>(1, spec.seeds.size()),
               resumed, to_run.size(), o.parallel);
  const auto start = std::chrono::steady_clock::now();
  size_t done = 0, failed = 0, undone = 0;
  int sig = 0;
  {
    // Ctrl-C while points run: stop the children, leave their points undone. The guard ends with the runs,
    // so a signal during the merge ends the process as usual (its files are written atomically).
    const InterruptGuard interrupt_guard;
    run_children(jobs, o.parallel, [&](size_t j, const ChildResult& child) {
      const auto& p = points[to_run[j]];
      const std::string dir = point_dir(root, p.id);
      if (child.interrupted) {  // not the point's result: no status, so the next run of the command runs it
        fs::remove(fs::path(dir) / "report.json", ec);
        ++undone;
        return;
      }
      bool ok = child.ok();
      std::string detail;
      if (!ok) {
        detail = "gputwin run " + child.describe(jobs[j].timeout_seconds);
        const std::string err = tail_of_file(jobs[j].stderr_path, 1500);
        if (!err.empty()) detail += ": " + err;
      } else if (!read_json_file(dir + "/report.json")) {
        ok = false;
        detail = "no readable report.json";
      }
      Json status = {{"point", p.id},          {"identity", point_identity(spec, p)}, {"status", ok ? "ok" : "failed"},
                     {"detail", detail},       {"exit_code", child.exit_code},        {"signal", child.signal},
                     {"wall_s", child.seconds}};
      write_file_atomic(dir + "/status.json", status.dump(2) + "\n");
      ++done;
      failed += ok ? 0 : 1;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double left = elapsed / static_cast<double>(done) * static_cast<double>(jobs.size() - done);
      if (progress != "none") {
        std::fprintf(stderr, "%ssweep%s: %zu/%zu done, %zu failed, %s elapsed, ~%s left%s",
                     progress == "bar" ? "\r" : "", who.c_str(), resumed + done, mine, failed,
                     clock_text(elapsed).c_str(), clock_text(left).c_str(), progress == "bar" ? "   " : "\n");
        std::fflush(stderr);
      }
    });
    sig = interrupted();
  }
  if (progress == "bar" && !jobs.empty()) std::fprintf(stderr, "\n");
  if (sig != 0) {
    // No merge: the folder holds the finished points, and the same command resumes with the rest.
    std::fprintf(stderr,
                 "sweep %s%s: interrupted (%s): %zu points done, %zu stopped and %zu not started are left undone; run "
                 "the same command to resume\n",
                 spec.name.c_str(), who.c_str(), sig == SIGINT ? "SIGINT" : "SIGTERM", resumed + done, undone,
                 jobs.size() - done - undone);
    return 128 + sig;
  }
  ranks.barrier();  // every rank's points are on disk before rank 0 merges
  if (ranks.rank() != 0) return EXIT_OK;

  // Merge every point, resumed or new, from its files: the merged outputs do not depend on which run
  // of the command produced which point.
  std::vector<PointResult> results;
  size_t failed_total = 0;
  for (const auto& p : points) {
    PointResult r;
    r.point = p;
    const std::string dir = point_dir(root, p.id);
    const auto status = read_json_file(dir + "/status.json");
    if (!status) {
      r.detail = "not run";
    } else if ((*status)["status"] == "ok") {
      if (auto report = read_json_file(dir + "/report.json")) {
        r.ok = true;
        r.metrics = extract_metrics(spec, *report);
      } else {
        r.detail = "report.json missing or unreadable";
      }
    } else {
      r.detail = (*status).value("detail", std::string("failed"));
    }
    failed_total += r.ok ? 0 : 1;
    results.push_back(std::move(r));
  }
  write_file_atomic(root + "/sweep.csv", sweep_csv(spec, results));
  write_file_atomic(root + "/sweep.md", sweep_markdown(spec, results));
  write_file_atomic(root + "/sweep.svg", sweep_chart_svg(spec, results));
  write_sweep_h5(root + "/sweep.h5", spec, results);
  const auto front = pareto_front(spec, results);
  std::cout << "sweep " << spec.name << ": " << points.size() - failed_total << "/" << points.size() << " points ok, "
            << failed_total << " failed; Pareto front: " << front.size() << " design(s)";
  for (size_t i = 0; i < front.size() && i < 8; ++i) std::cout << (i ? ", " : " (") << spec.designs[front[i]].name;
  std::cout << (front.empty() ? "" : front.size() > 8 ? ", ...)" : ")") << "\n";
  std::cout << "sweep: results: " << root << "/sweep.csv, sweep.h5, sweep.md\n";
  return failed_total == 0 ? EXIT_OK : EXIT_EXPECTATION;
}

}  // namespace

Subcommand register_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepCliOptions>();
  auto* cmd = app.add_subcommand("sweep", "Run a design sweep (grid, random or listed designs) and merge the results");
  cmd->add_option("sweep", options->file, "Sweep YAML file")->required();
  cmd->add_option("-j,--jobs", options->parallel, "Points run in parallel (default 1)")->check(CLI::Range(1, 256));
  cmd->add_option("-o,--output", options->out_dir, "Output folder (default out/sweeps/<name>)");
  cmd->add_flag("--retry-failed", options->retry_failed, "Run again the points recorded as failed");
  cmd->add_option("--progress", options->progress, "auto|plain|none (default auto)")
      ->check(CLI::IsMember({"auto", "plain", "none"}));
  return {cmd, [options] { return run_sweep_command(*options); }};
}

}  // namespace gtw::cli
