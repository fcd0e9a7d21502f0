// gputwin sweep SWEEP [-j N]: runs every point of a design sweep as a child `gputwin run` (SimGrid allows
// one engine per process), records each point's outcome in points/<id>/status.json as it ends, and
// merges the results into sweep.csv, sweep.h5, sweep.md and sweep.svg. A second invocation on the same
// folder runs only the points without a matching status (an interrupted sweep resumes); a point that
// crashed is recorded as failed and not run again unless --retry-failed. Under `mpirun -n N` or `srun` (when
// built with Open MPI) the ranks share one queue: a free slot of any rank claims the next point, longest first,
// by creating its claim file in the output folder (which must be shared); rank 0 merges. `--plan R,...`
// replays that schedule for R ranks without running anything (SweepSchedule.hpp).
#include <fcntl.h>
#include <unistd.h>

#ifdef GTW_MPI_LIBRARY
#include <dlfcn.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
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
#include "SweepSchedule.hpp"
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
  std::vector<int> plan_ranks;  // --plan: replay the schedule for these rank counts, run nothing
  double plan_straggler = 1;    // the last rank's slowdown in the plan
  double plan_claim_ms = 1;     // a claim's round trip to the shared folder in the plan
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
    abort_ = reinterpret_cast<AbortFn>(symbol("MPI_Abort"));
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
  /// Ends every rank (one rank's error would otherwise leave the others waiting at a barrier for ever).
  [[noreturn]] void abort(int code) const {
#ifdef GTW_MPI_LIBRARY
    if (mpi_) abort_(world_, code);
#endif
    std::exit(code);
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
  using AbortFn = int (*)(void*, int);
  void* handle_ = nullptr;
  void* world_ = nullptr;
  InitFn init_ = nullptr;
  CommIntFn rank_fn_ = nullptr, size_fn_ = nullptr;
  CommFn barrier_ = nullptr;
  AbortFn abort_ = nullptr;
  VoidFn finalize_ = nullptr;
#endif
};

// The shared queue of several ranks: a point is claimed by creating `claims/<token>/p<id>` with O_EXCL, atomic
// on one machine and on the shared file systems a cluster runs sweeps on (NFS v3 and later, Lustre, GPFS).
// The token names one invocation of the command: claims left by an interrupted one do not hold the points
// back, so the same command resumes them. Rank 0 makes the token before a barrier; rank 0 removes every
// claim once all ranks are done.
class PointClaims {
 public:
  PointClaims(const std::string& root, const Ranks& ranks) : base_(fs::path(root) / "claims") {
    if (ranks.size() == 1) return;  // one process: nothing to share
    const fs::path current = base_ / "current";
    if (ranks.rank() == 0) {
      // An earlier invocation's token must not survive a failure to write this one's: the other ranks would
      // claim under it. Errors are thrown after the barrier, where every rank is.
      std::error_code gone;
      fs::remove(current, gone);
      char host[256] = {};
      ::gethostname(host, sizeof host - 1);
      const auto now = std::chrono::system_clock::now().time_since_epoch().count();
      const std::string token = std::string(host) + "-" + std::to_string(::getpid()) + "-" + std::to_string(now);
      std::error_code ec;
      fs::create_directories(base_ / token, ec);
      std::string failure = ec ? "cannot create " + (base_ / token).string() + ": " + ec.message() : "";
      if (failure.empty()) {
        try {
          write_file_atomic(current.string(), token + "\n");
        } catch (const std::exception& e) {
          failure = e.what();
        }
      }
      ranks.barrier();
      if (!failure.empty()) throw RuntimeError(failure);
    } else {
      ranks.barrier();
    }
    std::ifstream in(current);
    std::string token;
    if (!std::getline(in, token) || token.empty())
      throw RuntimeError("cannot read the sweep's claim token " + current.string() +
                         " (is the output folder on a file system every rank shares?)");
    dir_ = base_ / token;
    shared_ = true;
  }
  /// Whether this rank got the point (always, for one process).
  bool claim(const std::string& point_name) const {
    if (!shared_) return true;
    const std::string path = (dir_ / point_name).string();
    const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd >= 0) {
      ::close(fd);
      return true;
    }
    if (errno == EEXIST) return false;
    throw RuntimeError("cannot claim " + path + ": " + std::strerror(errno));
  }
  /// After every rank is done (rank 0): the claims are not results, nor are those an interrupted run left.
  void remove_all() const {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }

 private:
  fs::path base_, dir_;
  bool shared_ = false;
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

// Each point's cost for the plan: its measured wall time where the output folder holds a current status of
// it; elsewhere its design's event estimate, scaled to seconds by the measured points when there are any.
struct PlanCosts {
  std::vector<double> seconds;  // by point id
  size_t measured = 0;
  bool in_seconds = false;  // false: in estimated events (the efficiencies still hold, the times do not)
};

PlanCosts plan_costs(const regress::SweepSpec& spec, const std::string& root,
                     const std::vector<regress::SweepPoint>& points, const std::map<size_t, double>& estimate) {
  PlanCosts c;
  c.seconds.assign(points.size(), -1);
  double measured_sum = 0, estimate_sum = 0;
  for (const auto& p : points) {
    const auto status = read_json_file(point_dir(root, p.id) + "/status.json");
    if (!status || !status->contains("identity") || (*status)["identity"] != point_identity(spec, p)) continue;
    const auto wall = status->find("wall_s");
    // A point runs at most its timeout: anything else in the file is not a measurement.
    if (wall == status->end() || !wall->is_number() || !(wall->get<double>() >= 0) ||
        !(wall->get<double>() <= spec.timeout_seconds + 60))
      continue;
    c.seconds[p.id] = wall->get<double>();
    measured_sum += c.seconds[p.id];
    estimate_sum += estimate.at(p.design);
    ++c.measured;
  }
  c.in_seconds = c.measured > 0;
  const double scale = c.measured > 0 && estimate_sum > 0 ? measured_sum / estimate_sum : 1.0;
  for (const auto& p : points)
    if (c.seconds[p.id] < 0) c.seconds[p.id] = estimate.at(p.design) * scale;
  return c;
}

// gputwin sweep FILE --plan R,...: the sweep's schedule replayed for each rank count, under the split by id,
// the shared queue in id order, and the shared queue longest first (what the command does). Nothing runs.
int plan_sweep(const SweepCliOptions& o, const regress::SweepSpec& spec, const std::string& root,
               const std::vector<regress::SweepPoint>& points) {
  using namespace gtw::regress;
  std::vector<size_t> ids(points.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  const auto estimate = estimated_cost_by_design(spec, points, ids);
  const PlanCosts costs = plan_costs(spec, root, points, estimate);
  std::vector<size_t> longest = ids;
  order_longest_first(longest, points, estimate);
  double total = 0, longest_cost = 0;
  for (double c : costs.seconds) {
    total += c;
    longest_cost = std::max(longest_cost, c);
  }
  const auto amount = [&](double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, costs.in_seconds ? "%.2f s" : "%.3g events", v);
    return std::string(buf);
  };
  std::cout << "sweep " << spec.name << ": plan for " << points.size() << " points, -j " << o.parallel
            << " per rank; costs: ";
  if (costs.measured == points.size())
    std::cout << "measured wall time of every point in " << root;
  else if (costs.measured > 0)
    std::cout << costs.measured << " measured in " << root << ", the others the event estimate scaled to them";
  else
    std::cout << "the event estimate of each design (no measured point in " << root << ")";
  std::cout << "; total " << amount(total) << ", longest " << amount(longest_cost) << "\n";
  if (o.plan_straggler != 1) std::cout << "the last rank runs " << o.plan_straggler << "x slower\n";
  if (costs.in_seconds) std::cout << "a claim costs " << o.plan_claim_ms << " ms; ";
  std::cout << "efficiency = lower bound / makespan; slots busy = work / (ranks x slots x makespan)\n\n";
  std::cout << "| ranks | lower bound | split by id | claims, id order | claims, longest first | slots busy |\n"
               "|---:|---:|---:|---:|---:|---:|\n";
  for (const int r : o.plan_ranks) {
    ScheduleModel model;
    model.ranks = r;
    model.slots = o.parallel;
    model.rank_slowdown.assign(static_cast<size_t>(r), 1.0);
    model.rank_slowdown.back() = o.plan_straggler;
    model.claim_seconds = costs.in_seconds ? o.plan_claim_ms / 1000 : 0;
    const auto cell = [&](SweepDistribution d, const std::vector<size_t>& order) {
      model.distribution = d;
      return simulate_sweep_schedule(order, costs.seconds, model);
    };
    const auto by_id = cell(SweepDistribution::STATIC_BY_ID, longest);
    const auto id_order = cell(SweepDistribution::CLAIMS, ids);
    const auto claims = cell(SweepDistribution::CLAIMS, longest);
    const auto text = [&](const ScheduleOutcome& x) {
      char buf[80];
      std::snprintf(buf, sizeof buf, " (%.2f)", x.efficiency());
      return amount(x.makespan) + buf;
    };
    model.distribution = SweepDistribution::CLAIMS;
    std::printf("| %d | %s | %s | %s | %s | %.2f |\n", r, amount(claims.lower_bound).c_str(), text(by_id).c_str(),
                text(id_order).c_str(), text(claims).c_str(), claims.utilisation(model));
  }
  return EXIT_OK;
}

int run_sweep_on_ranks(const SweepCliOptions& o, const Ranks& ranks);

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
  try {
    return run_sweep_on_ranks(o, ranks);
  } catch (const std::exception& e) {
    if (ranks.size() == 1) throw;
    std::cerr << "gputwin: error: sweep [rank " << ranks.rank() << "/" << ranks.size() << "]: " << e.what()
              << "; stopping every rank\n";
    ranks.abort(EXIT_INTERNAL);
  }
}

int run_sweep_on_ranks(const SweepCliOptions& o, const Ranks& ranks) {
  using namespace gtw::regress;
  Diagnostics diags;
  SweepSpec spec;
  if (!load_sweep(o.file, spec, diags)) {
    if (ranks.rank() == 0)
      std::cerr << diags.format_all() << diags.distinct_error_count() << " error(s); no point was run\n";
    return EXIT_INVALID_INPUT;
  }
  const std::string root = o.out_dir.empty() ? "out/sweeps/" + output_name(spec.name, "sweep") : o.out_dir;
  const auto points = sweep_points(spec);
  // The plan only reads the folder (its measured points), it writes nothing.
  if (!o.plan_ranks.empty()) return ranks.rank() == 0 ? plan_sweep(o, spec, root, points) : EXIT_OK;
  std::error_code ec;
  if (fs::exists(root, ec) && !fs::is_directory(root, ec)) {  // a file, a FIFO, a device: the user's mistake
    if (ranks.rank() == 0) std::cerr << "gputwin: error: sweep: -o " << root << " is not a folder; no point was run\n";
    return EXIT_INVALID_INPUT;
  }
  fs::create_directories(fs::path(root) / "points", ec);
  if (ec) throw RuntimeError("cannot create " + root + ": " + ec.message());
  // Every rank reads the statuses before the claims' barrier, while no point runs: they agree on what is left.
  std::vector<size_t> to_run;
  size_t resumed = 0;
  for (const auto& p : points) {
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
  const PointClaims claims(root, ranks);

  const std::string gputwin = self_executable("gputwin");
  std::vector<size_t> started;  // point ids in the order this rank started them
  size_t next = 0;
  const auto next_point = [&]() -> std::optional<ChildJob> {
    for (; next < to_run.size(); ++next) {
      const auto& p = points[to_run[next]];
      const std::string dir = point_dir(root, p.id);
      if (!claims.claim(fs::path(dir).filename().string())) continue;  // another rank runs it
      ++next;
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
      started.push_back(p.id);
      return job;
    }
    return std::nullopt;
  };

  std::string progress = o.progress;
  if (progress == "auto") {
    const char* ci = std::getenv("CI");
    progress = ::isatty(STDERR_FILENO) && !(ci && *ci) ? "bar" : "plain";
  }
  const std::string who =
      ranks.mpi() ? " [rank " + std::to_string(ranks.rank()) + "/" + std::to_string(ranks.size()) + "]" : "";
  const std::string shared = ranks.size() > 1 ? ", shared by " + std::to_string(ranks.size()) + " ranks" : "";
  std::fprintf(
      stderr,
      "sweep %s%s: %zu points (%zu designs x %zu seeds), %zu already done, %zu to run%s, -j %d, longest first\n",
      spec.name.c_str(), who.c_str(), points.size(), spec.designs.size(), std::max<size_t>(1, spec.seeds.size()),
      resumed, to_run.size(), shared.c_str(), o.parallel);
  const auto start = std::chrono::steady_clock::now();
  size_t done = 0, failed = 0, undone = 0;
  int sig = 0;
  {
    // Ctrl-C while points run: stop the children, leave their points undone. The guard ends with the runs,
    // so a signal during the merge ends the process as usual (its files are written atomically).
    const InterruptGuard interrupt_guard;
    run_children(next_point, o.parallel, [&](size_t j, const ChildResult& child) {
      const auto& p = points[started[j]];
      const std::string dir = point_dir(root, p.id);
      if (child.interrupted) {  // not the point's result: no status, so the next run of the command runs it
        fs::remove(fs::path(dir) / "report.json", ec);
        ++undone;
        return;
      }
      bool ok = child.ok();
      std::string detail;
      if (!ok) {
        detail = "gputwin run " + child.describe(spec.timeout_seconds);
        const std::string err = tail_of_file(dir + "/run.stderr", 1500);
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
      // Under several ranks this rank's share is not known in advance: about an equal part of what is left.
      const size_t share =
          std::max(done, (to_run.size() + static_cast<size_t>(ranks.size()) - 1) / static_cast<size_t>(ranks.size()));
      const double left = elapsed / static_cast<double>(done) * static_cast<double>(share - done);
      if (progress != "none") {
        const std::string count = ranks.size() > 1
                                      ? std::to_string(done) + " done by this rank"
                                      : std::to_string(resumed + done) + "/" + std::to_string(points.size()) + " done";
        std::fprintf(stderr, "%ssweep%s: %s, %zu failed, %s elapsed, ~%s left%s", progress == "bar" ? "\r" : "",
                     who.c_str(), count.c_str(), failed, clock_text(elapsed).c_str(), clock_text(left).c_str(),
                     progress == "bar" ? "   " : "\n");
        std::fflush(stderr);
      }
    });
    sig = interrupted();
  }
  if (progress == "bar" && !started.empty()) std::fprintf(stderr, "\n");
  if (sig != 0) {
    // No merge: the folder holds the finished points, and the same command resumes with the rest.
    const std::string not_started =
        ranks.size() > 1 ? "" : " and " + std::to_string(to_run.size() - started.size()) + " not started";
    std::fprintf(stderr,
                 "sweep %s%s: interrupted (%s): %zu points done, %zu stopped%s are left undone; run the same command "
                 "to resume\n",
                 spec.name.c_str(), who.c_str(), sig == SIGINT ? "SIGINT" : "SIGTERM", resumed + done, undone,
                 not_started.c_str());
    return 128 + sig;
  }
  ranks.barrier();  // every rank's points are on disk before rank 0 merges
  if (ranks.rank() != 0) return EXIT_OK;
  claims.remove_all();

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
  cmd->add_option("-o,--output", options->out_dir, "Output folder (default out/sweeps/<name>)")
      ->check(CLI::Validator(
          [](const std::string& text) { return text.empty() ? std::string("must not be empty") : std::string(); },
          "FOLDER"));
  cmd->add_flag("--retry-failed", options->retry_failed, "Run again the points recorded as failed");
  cmd->add_option("--progress", options->progress, "auto|plain|none (default auto)")
      ->check(CLI::IsMember({"auto", "plain", "none"}));
  cmd->add_option("--plan", options->plan_ranks,
                  "Run nothing: replay the schedule for these rank counts (e.g. 2,8,64) with -j slots each, from the "
                  "measured wall times in the output folder or the event estimates")
      ->delimiter(',')
      ->expected(1, 16)
      ->check(CLI::Range(1, 100000));
  const auto finite = CLI::Validator(
      [](const std::string& text) {
        return std::isfinite(std::strtod(text.c_str(), nullptr)) ? std::string() : "must be a finite number";
      },
      "FINITE");
  auto* plan = cmd->get_option("--plan");
  cmd->add_option("--plan-straggler", options->plan_straggler, "In the plan, the last rank is this many times slower")
      ->check(finite)
      ->check(CLI::Range(1.0, 1000.0))
      ->needs(plan);
  cmd->add_option("--plan-claim-ms", options->plan_claim_ms,
                  "In the plan, a claim's round trip to the shared folder in ms (default 1)")
      ->check(finite)
      ->check(CLI::Range(0.0, 60000.0))
      ->needs(plan);
  return {cmd, [options] { return run_sweep_command(*options); }};
}

}  // namespace gtw::cli
