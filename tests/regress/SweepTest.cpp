// Sweeps: sweep-file parsing and point expansion, metrics and the Pareto front (in-process), and the
// command end to end: -j 1 and -j 2 give the same sweep.csv, a failed point is recorded, and a sweep
// killed midway (SIGKILL) and restarted gives the same sweep.csv as an uninterrupted one.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "Subprocess.hpp"
#include "Sweep.hpp"

namespace gtw::regress {
namespace {

namespace fs = std::filesystem;
const std::string SRC = GTW_SOURCE_DIR;

SweepSpec parse(const std::string& text, Diagnostics& diags) {
  SweepSpec spec;
  parse_sweep_text(text, SRC + "/scenarios/sweeps/test.yaml", spec, diags);
  return spec;
}

TEST(SweepFile, GridExpandsEveryCombinationFirstParameterSlowest) {
  Diagnostics diags;
  const auto spec = parse(R"(scenario: ../ci/exclusive.yaml
seeds: 2
grid:
  spec.cluster.nodePools[0].sharing: [{mode: exclusive}, {mode: mps, replicas: 2}]
  spec.workloads[chat-svc].arrival.rate: [6/s, 9/s, 12/s]
)",
                          diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  ASSERT_EQ(spec.designs.size(), 6u);
  EXPECT_EQ(spec.seeds, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(spec.designs[0].overrides[0].second, "{mode: exclusive}");
  EXPECT_EQ(spec.designs[2].overrides[1].second, "12/s");
  EXPECT_EQ(spec.designs[3].overrides[0].second, "{mode: mps, replicas: 2}");
  EXPECT_EQ(spec.designs[3].overrides[1].second, "6/s");
  const auto points = sweep_points(spec);
  ASSERT_EQ(points.size(), 12u);
  EXPECT_EQ(points[5].design, 2u);
  EXPECT_EQ(points[5].seed, 2u);
  EXPECT_EQ(parameter_columns(spec),
            (std::vector<std::string>{"spec.cluster.nodePools[0].sharing", "spec.workloads[chat-svc].arrival.rate"}));
}

TEST(SweepFile, RandomSamplesAreReproducibleAndInRange) {
  const std::string text = R"(scenario: ../ci/exclusive.yaml
random:
  samples: 50
  seed: SEED
  parameters:
    spec.workloads[chat-svc].arrival.rate: {min: 2, max: 16, unit: /s}
    spec.cluster.nodePools[0].gpusPerNode: {min: 1, max: 4, integer: true}
    spec.cluster.nodePools[0].sharing.mode: [exclusive, mps]
)";
  const auto with_seed = [&](const std::string& seed) {
    Diagnostics diags;
    std::string t = text;
    t.replace(t.find("SEED"), 4, seed);
    auto spec = parse(t, diags);
    EXPECT_FALSE(diags.has_errors()) << diags.format_all();
    return spec;
  };
  const auto a = with_seed("7"), b = with_seed("7"), c = with_seed("8");
  ASSERT_EQ(a.designs.size(), 50u);
  std::set<std::string> modes, gpus;
  for (size_t i = 0; i < a.designs.size(); ++i) {
    EXPECT_EQ(a.designs[i].overrides, b.designs[i].overrides);
    const std::string rate = a.designs[i].overrides[0].second;
    ASSERT_TRUE(rate.ends_with("/s")) << rate;
    const double r = std::stod(rate);
    EXPECT_GE(r, 2);
    EXPECT_LE(r, 16);
    gpus.insert(a.designs[i].overrides[1].second);
    modes.insert(a.designs[i].overrides[2].second);
  }
  EXPECT_EQ(gpus, (std::set<std::string>{"1", "2", "3", "4"}));
  EXPECT_EQ(modes, (std::set<std::string>{"exclusive", "mps"}));
  bool differs = false;
  for (size_t i = 0; i < a.designs.size(); ++i) differs = differs || a.designs[i].overrides != c.designs[i].overrides;
  EXPECT_TRUE(differs) << "another seed draws other designs";
}

TEST(SweepFile, InvalidFilesReportFileLineColumn) {
  Diagnostics diags;
  parse(R"(scenario: nowhere.yaml
seeds: [1, -2]
grid:
  spec.seed: 3
designs:
  - name: a
metrics:
  p99: tenants[name=chat.p99
  slos_missed: summary.slos_missed
)",
        diags);
  const std::string out = diags.format_all();
  EXPECT_NE(out.find("test.yaml:1:11: error: scenario: no scenario file"), std::string::npos) << out;
  EXPECT_NE(out.find("test.yaml:2:12: error: seeds[1]: expected an integer 0..2^53"), std::string::npos) << out;
  EXPECT_NE(out.find("give one of grid:, random: and designs:"), std::string::npos) << out;
  EXPECT_NE(out.find("test.yaml:8:8: error: metrics.p99: unclosed '['"), std::string::npos) << out;
  EXPECT_NE(out.find("test.yaml:9:3: error: metrics.slos_missed: 'slos_missed' is a built-in column"),
            std::string::npos)
      << out;
}

Json report_with(double chat_worst, double threshold, double compliance, int gpus, const char* leakage_bits) {
  Json r = Json::parse(R"({"schema_version": "1.0", "scenario": {"duration_s": 3600}, "summary": {"slos_missed": 0},
    "tenants": [{"name": "chat", "slos": [{"worst": 0, "threshold": 0, "compliance": 0, "higher_is_better": false}]},
                {"name": "batch", "slos": [{"worst": 10, "threshold": 100, "compliance": 1,
                                            "higher_is_better": true}]}],
    "gpus": [{"utilisation": 0.5}, {"utilisation": 1.0}]})");
  r["tenants"][0]["slos"][0]["worst"] = chat_worst;
  r["tenants"][0]["slos"][0]["threshold"] = threshold;
  r["tenants"][0]["slos"][0]["compliance"] = compliance;
  r["summary"]["gpus"] = gpus;
  if (leakage_bits) r["leakage"] = {{"totals", {{"bits", Json::parse(leakage_bits)}, {"bytes", 0}}}};
  return r;
}

TEST(SweepMetrics, DefinitionsAndParetoFront) {
  Diagnostics diags;
  auto spec = parse(R"(scenario: ../ci/exclusive.yaml
seeds: [1, 2]
designs: [{name: cheap-slow}, {name: dear-fast}, {name: dominated}, {name: broken}]
metrics:
  chat_worst: tenants[name=chat].slos[0].worst
)",
                    diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  // batch is a throughput floor: worst 10 against 100 -> ratio 100/10 = 10 unless chat is worse.
  auto m = extract_metrics(spec, report_with(3.0, 2.0, 0.75, 4, nullptr));
  EXPECT_DOUBLE_EQ(*m[1], 10.0);   // worst_slo_ratio
  EXPECT_DOUBLE_EQ(*m[2], 0.75);   // min_slo_compliance
  EXPECT_DOUBLE_EQ(*m[3], 4.0);    // gpu_hours: 4 GPUs for an hour
  EXPECT_FALSE(m[4].has_value());  // no cost section
  EXPECT_DOUBLE_EQ(*m[5], 0.75);   // mean utilisation
  EXPECT_FALSE(m[6].has_value());  // no leakage section
  EXPECT_DOUBLE_EQ(*m[8], 3.0);    // chat_worst
  m = extract_metrics(spec, report_with(3.0, 2.0, 0.75, 4, "null"));
  EXPECT_TRUE(std::isinf(*m[6])) << "an unquantified leakage bound is unbounded";

  // worst_slo_ratio is capped below by batch's 10; vary chat's worst around it through the threshold.
  const auto result = [&](size_t id, size_t design, double chat_worst, int gpus, bool ok = true) {
    PointResult r;
    r.point = {id, design, id % 2 + 1};
    r.ok = ok;
    r.detail = ok ? "" : "gputwin run exit 2";
    if (ok) r.metrics = extract_metrics(spec, report_with(chat_worst, 1.0, 1, gpus, "0"));
    return r;
  };
  std::vector<PointResult> results = {
      result(0, 0, 30, 2), result(1, 0, 40, 2),         // cheap-slow: 2 GPUs, worst ratio 40 (its worst seed)
      result(2, 1, 12, 8), result(3, 1, 11, 8),         // dear-fast: 8 GPUs, ratio 12
      result(4, 2, 50, 8), result(5, 2, 12, 8),         // dominated by dear-fast (same cost, worse seed)
      result(6, 3, 1, 1),  result(7, 3, 1, 1, false)};  // broken: a failed seed keeps it off the front
  EXPECT_EQ(pareto_front(spec, results), (std::vector<size_t>{0, 1}));
  const std::string csv = sweep_csv(spec, results);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,design,seed,status,slos_missed,worst_slo_ratio,min_slo_compliance,gpu_hours,cost,mean_utilisation,"
            "leakage_bits,leakage_bytes,chat_worst");
  EXPECT_NE(csv.find("\n7,broken,2,failed,,,,,,,,,\n"), std::string::npos) << csv;
  const std::string md = sweep_markdown(spec, results);
  EXPECT_NE(md.find("| cheap-slow | (base scenario) | 2 | 40 |"), std::string::npos) << md;
  EXPECT_NE(md.find("leakage_bits"), std::string::npos) << md;
  EXPECT_NE(md.find("- point 7 (broken, seed 2): gputwin run exit 2"), std::string::npos) << md;
  EXPECT_NE(sweep_chart_svg(spec, results).find("<circle"), std::string::npos);
}

// ---- the command, end to end ----

const std::string SWEEP = R"(kind: Sweep
name: small
scenario: )" + SRC + R"(/scenarios/ci/exclusive.yaml
seeds: [1, 2]
designs:
  - name: light
    set:
      spec.workloads[chat-svc].arrival.rate: 4/s
  - name: heavy
    set:
      spec.workloads[chat-svc].arrival.rate: 14/s
  - name: shared
    set:
      spec.cluster.nodePools[0].sharing: {mode: timeSlicing, replicas: 2}
      spec.cluster.nodePools[0].gpusPerNode: 2
  - name: invalid
    set:
      spec.cluster.nodePools[0].sharing.mode: warp
metrics:
  chat_p99_s: tenants[name=chat].workloads[name=chat-svc].latency.p99_s
)";

test::ProcessResult sweep(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {GTW_BINARY, "sweep"};
  argv.insert(argv.end(), args.begin(), args.end());
  return test::run_process(argv, 300);
}

TEST(SweepCommand, ParallelAndSerialAgreeAndFailedPointsAreRecorded) {
  test::TempDir dir;
  test::write_text(dir.file("small.yaml"), SWEEP);
  const auto serial = sweep({dir.file("small.yaml"), "-o", dir.file("j1"), "--progress", "plain"});
  EXPECT_EQ(serial.exit_code, 1) << serial.out << serial.err;  // the invalid design's points failed
  EXPECT_NE(serial.out.find("6/8 points ok, 2 failed"), std::string::npos) << serial.out;
  EXPECT_NE(serial.err.find("sweep: 8/8 done, 2 failed"), std::string::npos) << serial.err;
  const auto parallel = sweep({dir.file("small.yaml"), "-o", dir.file("j2"), "-j", "2", "--progress", "none"});
  EXPECT_EQ(parallel.exit_code, 1) << parallel.err;
  const std::string csv = test::read_text(dir.file("j1/sweep.csv"));
  EXPECT_EQ(csv, test::read_text(dir.file("j2/sweep.csv")));
  EXPECT_NE(csv.find("\n6,invalid,1,failed,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n0,light,1,ok,4/s,,,"), std::string::npos) << csv;
  EXPECT_NE(test::read_text(dir.file("j1/points/p000006/status.json")).find("warp"), std::string::npos);
  const std::string md = test::read_text(dir.file("j1/sweep.md"));
  EXPECT_NE(md.find("## Pareto front"), std::string::npos);
  EXPECT_NE(md.find("| light |"), std::string::npos) << md;  // cheapest-equal and best SLO: on the front
  const auto h5 = fs::file_size(dir.file("j1/sweep.h5"));
  EXPECT_GT(h5, 1000u);

  // A second run resumes: nothing to do, failed points stay failed, the same csv.
  const auto again = sweep({dir.file("small.yaml"), "-o", dir.file("j1"), "--progress", "none"});
  EXPECT_NE(again.err.find("8 already done, 0 to run"), std::string::npos) << again.err;
  EXPECT_EQ(test::read_text(dir.file("j1/sweep.csv")), csv);
  const auto retry = sweep({dir.file("small.yaml"), "-o", dir.file("j1"), "--retry-failed", "--progress", "none"});
  EXPECT_NE(retry.err.find("6 already done, 2 to run"), std::string::npos) << retry.err;
}

// --plan runs nothing; it replays the schedule from the event estimates, then, once the sweep has run, from the
// measured wall times of its points.
TEST(SweepCommand, PlanReplaysTheScheduleWithoutRunningAndUsesMeasuredTimesOnceThereAreAny) {
  test::TempDir dir;
  test::write_text(dir.file("small.yaml"), SWEEP);
  const auto before = sweep({dir.file("small.yaml"), "-o", dir.file("out"), "--plan", "1,2,8"});
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("plan for 8 points, -j 1 per rank; costs: the event estimate"), std::string::npos)
      << before.out;
  EXPECT_NE(before.out.find("| 8 | "), std::string::npos) << before.out;
  EXPECT_EQ(before.out.find("a claim costs"), std::string::npos) << "no times without a measurement";
  EXPECT_FALSE(fs::exists(dir.file("out/points/p000000/status.json")));
  ASSERT_EQ(sweep({dir.file("small.yaml"), "-o", dir.file("out"), "--progress", "none"}).exit_code, 1);
  const auto after =
      sweep({dir.file("small.yaml"), "-o", dir.file("out"), "--plan", "2", "-j", "2", "--plan-straggler", "3"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_NE(after.out.find("costs: measured wall time of every point"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("the last rank runs 3x slower"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("| 2 | "), std::string::npos) << after.out;
  // A rank count of 0, a claim cost that is not a number, or a plan option without --plan are refused.
  EXPECT_EQ(sweep({dir.file("small.yaml"), "-o", dir.file("out"), "--plan", "0"}).exit_code, 2);
  EXPECT_EQ(sweep({dir.file("small.yaml"), "-o", dir.file("out"), "--plan", "2", "--plan-claim-ms", "nan"}).exit_code,
            2);
  EXPECT_EQ(sweep({dir.file("small.yaml"), "-o", dir.file("out"), "--plan-straggler", "2"}).exit_code, 2);
  // An output that is not a folder, or an empty one, is the user's mistake: exit 2, nothing run.
  test::write_text(dir.file("a-file"), "x\n");
  const auto not_folder = sweep({dir.file("small.yaml"), "-o", dir.file("a-file"), "--progress", "none"});
  EXPECT_EQ(not_folder.exit_code, 2) << not_folder.err;
  EXPECT_NE(not_folder.err.find("is not a folder"), std::string::npos) << not_folder.err;
  EXPECT_EQ(sweep({dir.file("small.yaml"), "-o", ""}).exit_code, 2);
  // The plan writes nothing, not even the output folder.
  EXPECT_EQ(sweep({dir.file("small.yaml"), "-o", dir.file("never"), "--plan", "2"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir.file("never")));
}

// Longest first (the LPT rule): costlier designs' points first, ties (seeds of one design, equal costs)
// by id; a design without a cost (it did not load) goes last.
TEST(Sweep, PointsRunLongestFirstByTheirDesignsCost) {
  std::vector<SweepPoint> points;
  for (size_t d = 0; d < 4; ++d)
    for (uint64_t seed = 1; seed <= 2; ++seed) points.push_back({points.size(), d, seed});
  std::vector<size_t> ids{0, 1, 2, 3, 4, 5, 6, 7};
  order_longest_first(ids, points, {{0, 10.0}, {1, 40.0}, {2, 10.0}});
  EXPECT_EQ(ids, (std::vector<size_t>{2, 3, 0, 1, 4, 5, 6, 7})) << "design 1 (40), then 0 and 2 (10) by id, then 3";
  // Only this rank's points: the order is of the ids given.
  std::vector<size_t> mine{1, 3, 5, 7};
  order_longest_first(mine, points, {{3, 5.0}, {2, 1.0}});
  EXPECT_EQ(mine, (std::vector<size_t>{7, 5, 1, 3}));
  // An estimate that is not a number sorts as 0; an infinite one first.
  order_longest_first(ids, points, {{0, std::nan("")}, {1, 2.0}, {2, HUGE_VAL}});
  EXPECT_EQ(ids, (std::vector<size_t>{4, 5, 2, 3, 0, 1, 6, 7}));
}

// The 12-point sweep (4 designs x 3 seeds, one design invalid) written to DIR/small.yaml, and run whole
// into DIR/whole for comparison.
void write_twelve_point_sweep(const test::TempDir& dir) {
  std::string text = SWEEP;
  text.replace(text.find("seeds: [1, 2]"), 13, "seeds: [1, 2, 3]");
  test::write_text(dir.file("small.yaml"), text);
  ASSERT_EQ(sweep({dir.file("small.yaml"), "-o", dir.file("whole"), "--progress", "none"}).exit_code, 1);
}

// `gputwin sweep FILE -o OUT -j JOBS` started in its own process group (its pid is the group id), so that a
// test can signal the coordinator alone or the whole group, as a terminal does.
pid_t start_sweep_in_own_group(const std::string& file, const std::string& out, const char* jobs) {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl(GTW_BINARY, GTW_BINARY, "sweep", file.c_str(), "-o", out.c_str(), "-j", jobs, "--progress", "none",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid > 0) setpgid(pid, pid);
  return pid;
}

// The status.json texts of the points recorded so far under OUT.
std::vector<std::string> recorded_statuses(const std::string& out) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out + "/points", ec))
    if (fs::exists(e.path() / "status.json")) found.push_back(test::read_text((e.path() / "status.json").string()));
  return found;
}

// Waits until at least `points` points are recorded under OUT (a hang guard of 2 minutes, scaled).
void wait_for_points(const std::string& out, size_t points) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(static_cast<long>(120 * test::timeout_scale()));
  while (recorded_statuses(out).size() < points && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

TEST(SweepCommand, KilledMidwayAndRestartedGivesTheSameCsv) {
  test::TempDir dir;
  ASSERT_NO_FATAL_FAILURE(write_twelve_point_sweep(dir));
  // The sweep killed (with its children) after two points have ended.
  const std::string out = dir.file("killed");
  const pid_t pid = start_sweep_in_own_group(dir.file("small.yaml"), out, "1");
  ASSERT_GT(pid, 0);
  wait_for_points(out, 2);
  kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const size_t before = recorded_statuses(out).size();
  ASSERT_GE(before, 2u);
  ASSERT_LT(before, 12u) << "the sweep ended before it could be killed";
  EXPECT_FALSE(fs::exists(out + "/sweep.csv"));

  const auto resumed = sweep({dir.file("small.yaml"), "-o", out, "--progress", "none"});
  EXPECT_EQ(resumed.exit_code, 1) << resumed.err;
  EXPECT_NE(resumed.err.find(std::to_string(before) + " already done, " + std::to_string(12 - before) + " to run"),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(test::read_text(out + "/sweep.csv"), test::read_text(dir.file("whole/sweep.csv")));
}

// Ctrl-C on a terminal (SIGINT to the whole process group) or SIGTERM to the coordinator alone: the sweep
// stops its children, records none of the stopped points as failed, exits 128 + the signal, and the same
// command then resumes to the outputs of an uninterrupted sweep.
TEST(SweepCommand, InterruptedPointsAreLeftUndoneNotFailedAndTheRerunCompletesTheSweep) {
  test::TempDir dir;
  ASSERT_NO_FATAL_FAILURE(write_twelve_point_sweep(dir));
  for (const auto& [signal_to_group, sig] : {std::pair{true, SIGINT}, std::pair{false, SIGTERM}}) {
    SCOPED_TRACE(signal_to_group ? "SIGINT to the group" : "SIGTERM to the coordinator");
    const std::string out = dir.file(signal_to_group ? "int" : "term");
    const pid_t pid = start_sweep_in_own_group(dir.file("small.yaml"), out, "2");
    ASSERT_GT(pid, 0);
    wait_for_points(out, 1);
    kill(signal_to_group ? -pid : pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    const auto recorded = recorded_statuses(out);
    ASSERT_LT(recorded.size(), 12u) << "the sweep ended before it could be interrupted";
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    // No recorded point carries the signal that stopped the sweep: the stopped ones have no status at all.
    for (const auto& st : recorded) EXPECT_EQ(st.find("signal 15"), std::string::npos) << st;
    for (const auto& st : recorded) EXPECT_EQ(st.find("signal 2"), std::string::npos) << st;
    EXPECT_FALSE(fs::exists(out + "/sweep.csv"));

    const auto resumed = sweep({dir.file("small.yaml"), "-o", out, "--progress", "none"});
    EXPECT_EQ(resumed.exit_code, 1) << resumed.err;
    EXPECT_NE(resumed.err.find(std::to_string(recorded.size()) + " already done"), std::string::npos) << resumed.err;
    EXPECT_EQ(test::read_text(out + "/sweep.csv"), test::read_text(dir.file("whole/sweep.csv")));
  }
}

// The children of a process, from /proc (Linux), living or not yet reaped.
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    const std::string stat = test::read_text(e.path().string() + "/stat");
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent)
      found.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return found;
}

// A process that has ended (gone, or a zombie nobody reaps: the test's container may have no init that does).
bool ended(pid_t pid) {
  std::error_code ec;
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  if (!fs::exists(path, ec)) return true;
  const std::string stat = test::read_text(path);
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && (stat[close + 2] == 'Z' || stat[close + 2] == 'X');
}

// A coordinator killed alone with SIGKILL (no signal handler runs: an MPI rank lost, `kill -9`) does not leave
// its points running: each child asked the kernel for SIGTERM when its parent dies (end_with_parent). The
// points here run for about half a minute each, so only that ends them within the few seconds allowed.
TEST(SweepCommand, AChildEndsWhenItsCoordinatorIsKilled) {
  test::TempDir dir;
  const std::string long_points = R"(kind: Sweep
name: long
scenario: )" + SRC + R"(/scenarios/ci/exclusive.yaml
seeds: [1, 2]
designs:
  - name: long
    set:
      spec.duration: 100h
metrics:
  chat_p99_s: tenants[name=chat].workloads[name=chat-svc].latency.p99_s
)";
  test::write_text(dir.file("long.yaml"), long_points);
  const pid_t pid = start_sweep_in_own_group(dir.file("long.yaml"), dir.file("out"), "2");
  ASSERT_GT(pid, 0);
  std::vector<pid_t> children;
  const auto started = std::chrono::steady_clock::now();
  while (children.size() < 2 && std::chrono::steady_clock::now() - started < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    children = children_of(pid);
  }
  ASSERT_EQ(children.size(), 2u) << "the sweep did not start its two points";
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const auto killed = std::chrono::steady_clock::now();
  bool all_ended = false;
  while (!all_ended && std::chrono::steady_clock::now() - killed < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    all_ended = std::all_of(children.begin(), children.end(), ended);
  }
  for (const pid_t child : children) {
    EXPECT_TRUE(ended(child)) << "point process " << child << " outlived its coordinator";
    if (!ended(child)) kill(child, SIGKILL);
  }
}

#ifdef GTW_MPIEXEC
TEST(SweepCommand, MpirunAndParallelProcessesGiveTheSameResults) {
  test::TempDir dir;
  test::write_text(dir.file("small.yaml"), SWEEP);
  ASSERT_EQ(sweep({dir.file("small.yaml"), "-o", dir.file("j2"), "-j", "2", "--progress", "none"}).exit_code, 1);
  test::ProcessOptions options;
  options.timeout_seconds = 300;
  // CI runs as root, which Open MPI refuses unless told; --oversubscribe: the machine may have fewer cores.
  options.env = {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
  const auto r = test::run_process({GTW_MPIEXEC, "-n", "2", "--oversubscribe", GTW_BINARY, "sweep",
                                    dir.file("small.yaml"), "-o", dir.file("mpi"), "--progress", "none"},
                                   options);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the invalid design's points failed, as with -j 2
  EXPECT_NE(r.err.find("[rank 1/2]: 8 points (4 designs x 2 seeds), 0 already done, 8 to run, shared by 2 ranks"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("6/8 points ok, 2 failed"), std::string::npos) << r.out;
  EXPECT_EQ(test::read_text(dir.file("mpi/sweep.csv")), test::read_text(dir.file("j2/sweep.csv")));
  EXPECT_EQ(test::read_text(dir.file("mpi/sweep.md")), test::read_text(dir.file("j2/sweep.md")));
  EXPECT_FALSE(fs::exists(dir.file("mpi/claims"))) << "the claims are removed with the merge";

  // The ranks share one queue: each point runs once, on one rank (each rank counts the points it ran).
  const auto plain = test::run_process({GTW_MPIEXEC, "-n", "2", "--oversubscribe", GTW_BINARY, "sweep",
                                        dir.file("small.yaml"), "-o", dir.file("mpi2"), "--progress", "plain"},
                                       options);
  EXPECT_EQ(plain.exit_code, 1) << plain.err;
  size_t ran = 0;
  for (const std::string rank : {"[rank 0/2]", "[rank 1/2]"}) {
    const std::string prefix = "sweep " + rank + ": ";
    size_t most = 0;
    for (size_t at = plain.err.find(prefix); at != std::string::npos; at = plain.err.find(prefix, at + 1))
      if (std::isdigit(static_cast<unsigned char>(plain.err[at + prefix.size()])))
        most = std::max<size_t>(most, std::stoul(plain.err.substr(at + prefix.size())));
    ran += most;
  }
  EXPECT_EQ(ran, 8u) << plain.err;

  // A folder where rank 0 cannot make the claims (a file named claims): every rank stops with the reason; none
  // waits for ever at a barrier.
  fs::create_directories(dir.file("blocked"));
  test::write_text(dir.file("blocked/claims"), "not a folder\n");
  options.timeout_seconds = 120;
  const auto blocked = test::run_process({GTW_MPIEXEC, "-n", "2", "--oversubscribe", GTW_BINARY, "sweep",
                                          dir.file("small.yaml"), "-o", dir.file("blocked"), "--progress", "none"},
                                         options);
  EXPECT_FALSE(blocked.timed_out);
  EXPECT_NE(blocked.exit_code, 0);
  EXPECT_NE(blocked.err.find("stopping every rank"), std::string::npos) << blocked.err;
}
#else
TEST(SweepCommand, WithoutMpiRefusesToRunUnderMpirun) {
  test::TempDir dir;
  test::write_text(dir.file("small.yaml"), SWEEP);
  test::ProcessOptions options;
  options.env = {{"OMPI_COMM_WORLD_SIZE", "2"}};
  const auto r = test::run_process({GTW_BINARY, "sweep", dir.file("small.yaml"), "-o", dir.file("out")}, options);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("built without MPI"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("out")));
}
#endif

}  // namespace
}  // namespace gtw::regress
