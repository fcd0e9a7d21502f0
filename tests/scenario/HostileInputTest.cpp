// Hostile input to every command that reads a file or a number (docs/formats/diagnostics.md, "Hostile
// input"): each class of input that used to crash, hang, exhaust memory, be accepted as nonsense or
// write outside the output folder. Every case must end in the expected exit code with its message, in
// bounded time, never by a signal. The scenario-file classes live in tests/fixtures/malformed/.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace fs = std::filesystem;

namespace {

using gtw::test::ProcessResult;
using gtw::test::TempDir;

const std::string SRC = GTW_SOURCE_DIR;
const double TIMEOUT = 20;  // a hang guard, scaled for sanitizer builds by run_process

ProcessResult gputwin(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> argv{GTW_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  gtw::test::ProcessOptions options;
  options.timeout_seconds = TIMEOUT;
  options.cwd = cwd;
  options.max_capture = 1 << 20;
  options.env = {{"CI", "1"}};
  return gtw::test::run_process(argv, options);
}

std::string describe(const ProcessResult& r) {
  std::ostringstream s;
  s << (r.timed_out ? "timed out; " : "")
    << (r.exited ? "exit " + std::to_string(r.exit_code) : "signal " + std::to_string(r.signal)) << "\n--- stderr ---\n"
    << r.err.substr(0, 3000) << "--- stdout ---\n"
    << r.out.substr(0, 1000);
  return s.str();
}

void expect_exit(const ProcessResult& r, int code, const std::string& message) {
  ASSERT_FALSE(r.timed_out) << describe(r);
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.exit_code, code) << describe(r);
  if (!message.empty()) {
    EXPECT_NE((r.err + r.out).find(message), std::string::npos) << "missing \"" << message << "\"\n" << describe(r);
  }
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << describe(r);
}

// A scratch folder with the usual hostile files: a FIFO, a directory, and links to /dev/zero and /proc.
struct Hostile {
  TempDir dir;
  std::string fifo = dir.file("fifo"), folder = dir.file("folder"), zero = "/dev/zero", proc = "/proc/self/status";
  Hostile() {
    ::mkfifo(fifo.c_str(), 0600);
    fs::create_directory(folder);
  }
  // The hostile paths with what the message says about each.
  std::vector<std::pair<std::string, std::string>> paths() const {
    return {{fifo, "FIFO"}, {folder, "directory"}, {zero, "character device"}, {proc, "pseudo-file"}};
  }
  std::string write(const std::string& name, const std::string& text) const {
    gtw::test::write_text(dir.file(name), text);
    return dir.file(name);
  }
};

// A minimal valid scenario; `pool` and `arrival` are spliced in.
std::string scenario(const std::string& pool_extra = "", const std::string& arrival = "{process: poisson, rate: 5/s}",
                     const std::string& name = "hostile") {
  return "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: \"" + name +
         "\"\nspec:\n  duration: 2s\n  cluster:\n    nodePools:\n      - name: pool\n        count: 1\n"
         "        gpu: H100-80GB-SXM\n        gpusPerNode: 2\n" +
         pool_extra +
         "  tenants:\n    - name: chat\n  workloads:\n    - name: svc\n      kind: inference\n      tenant: chat\n"
         "      model: {parameters: 1B}\n      arrival: " +
         arrival + "\n";
}

TEST(HostileInput, RefFragmentsThatAreNotFiles) {
  Hostile h;
  for (const auto& [path, what] : h.paths()) {
    const auto file = h.write("ref.yaml",
                              "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata: {name: r}\n"
                              "spec:\n  cluster:\n    nodePools:\n      - $ref: " +
                                  path + "\n");
    SCOPED_TRACE(path);
    expect_exit(gputwin({"validate", file}, h.dir.path()), 2, what);
  }
}

TEST(HostileInput, DenseYamlAndLongTracesAreBoundedBeforeParsing) {
  Hostile h;
  // An 8 MiB flow list (4 million nodes: 2 GB and 26 s inside yaml-cpp) is refused before the parser.
  std::string dense = "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata: {name: d}\nspec:\n  x: [1";
  while (dense.size() < 8u * 1024 * 1024 - 16) dense += ",1";
  const auto r = gputwin({"validate", h.write("dense.yaml", dense + "]\n")}, h.dir.path());
  expect_exit(r, 2, "lines and list separators; a YAML input holds at most 400000");
  // A trace of more rows than a trace may hold.
  std::string rows = "time,promptTokens,outputTokens\n";
  rows.reserve(12u << 20);
  for (int i = 0; i < 1'000'010; ++i) rows += "0,1,1\n";
  h.write("long.csv", rows);
  const auto file = h.write("long.yaml", scenario("", "{process: trace, file: long.csv, format: seconds}"));
  expect_exit(gputwin({"validate", file}, h.dir.path()), 2, "more than 1000000 rows");
}

TEST(HostileInput, RequestTracesThatAreNotFiles) {
  Hostile h;
  for (const auto& [path, what] : h.paths()) {
    const auto file = h.write("trace.yaml", scenario("", "{process: trace, file: " + path + ", format: seconds}"));
    SCOPED_TRACE(path);
    expect_exit(gputwin({"validate", file}, h.dir.path()), 2, what);
  }
}

TEST(HostileInput, NvidiaSmiListingsThatAreNotFiles) {
  Hostile h;
  for (const auto& [path, what] : h.paths()) {
    SCOPED_TRACE(path);
    const auto topo = h.write("topo.yaml", scenario("        topology: {fromNvidiaSmi: " + path + "}\n"));
    expect_exit(gputwin({"validate", topo}, h.dir.path()), 2, what);
    const auto mig =
        h.write("mig.yaml", scenario("        sharing: {mode: mig}\n        topology: {mig: " + path + "}\n"));
    expect_exit(gputwin({"validate", mig}, h.dir.path()), 2, what);
    expect_exit(gputwin({"import-topo", path}, h.dir.path()), 2, what);
  }
}

TEST(HostileInput, NvidiaSmiListingsOutOfRange) {
  Hostile h;
  const std::string header = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n";
  // An NVLink count beyond an int (std::stoi threw), NV0, and a matrix that is not symmetric.
  expect_exit(
      gputwin({"import-topo",
               h.write("nv.txt", header + "GPU0\t X \tNV99999999999\t0-1\t0\nGPU1\tNV99999999999\t X \t0-1\t0\n")},
              h.dir.path()),
      2, "unknown connection 'NV99999999999'");
  expect_exit(gputwin({"import-topo", h.write("nv0.txt", header + "GPU0\t X \tNV0\t0-1\t0\nGPU1\tNV0\t X \t0-1\t0\n")},
                      h.dir.path()),
              2, "unknown connection 'NV0'");
  expect_exit(
      gputwin({"import-topo", h.write("asym.txt", header + "GPU0\t X \tNV18\t0-1\t0\nGPU1\tSYS\t X \t0-1\t0\n")},
              h.dir.path()),
      2, "the matrix is not symmetric: GPU0 -> GPU1 is NV18, GPU1 -> GPU0 is SYS");
  const std::string lgi_head =
      "+----+\n| GPU instances:                                        |\n| GPU   Name             Profile  Instance   "
      "Placement  |\n|                          ID       ID       Start:Size |\n";
  const auto lgi = [&](const std::string& rows) { return h.write("lgi.txt", lgi_head + rows); };
  const std::string topo = h.write("ok.txt", header + "GPU0\t X \tNV18\t0-1\t0\nGPU1\tNV18\t X \t0-1\t0\n");
  expect_exit(gputwin({"import-topo", topo, "--mig",
                       lgi("|   0  MIG 3g.40gb          9        1          99999999999:4     |\n")},
                      h.dir.path()),
              2, "GPU-instance row out of range");
  expect_exit(gputwin({"import-topo", topo, "--mig",
                       lgi("|   0  MIG 3g.40gb          9        1          0:4     |\n|   0  MIG 3g.40gb          9   "
                           "     2          "
                           "2:4     |\n")},
                      h.dir.path()),
              2, "overlaps GPU instance 1 of GPU 0");
  expect_exit(
      gputwin({"import-topo", topo, "--mig", lgi("|  99  MIG 3g.40gb          9        1          0:4     |\n")},
              h.dir.path()),
      2, "GPU-instance row out of range");
}

TEST(HostileInput, PackTracesAndNumbers) {
  Hostile h;
  for (const auto& [path, what] : h.paths()) {
    SCOPED_TRACE(path);
    expect_exit(
        gputwin({"pack", "--nodes", path, "--pods", SRC + "/data/openb/openb_pod_list_default.csv"}, h.dir.path()), 2,
        what);
  }
  const std::string trace = SRC + "/data/openb";
  expect_exit(gputwin({"pack", "--trace", trace, "--mode", "time", "--policy", "best-fit", "--speedup", "1e-300", "-o",
                       h.dir.file("o1")},
                      h.dir.path()),
              2, "points of timereplay.csv");
  expect_exit(gputwin({"pack", "--trace", trace, "--mode", "time", "--policy", "best-fit", "--sample-every", "0.01",
                       "-o", h.dir.file("o2")},
                      h.dir.path()),
              2, "raise --sample-every");
  expect_exit(gputwin({"pack", "--trace", trace, "--policy", "best-fit", "--param", "max_cpu_milli=nan"}, h.dir.path()),
              2, "expected a finite number");
}

TEST(HostileInput, DiffInputs) {
  Hostile h;
  for (const auto& [path, what] : h.paths()) {
    if (path == h.folder) continue;  // a folder is a result folder: its report.json is missing
    SCOPED_TRACE(path);
    expect_exit(gputwin({"diff", path, path}, h.dir.path()), 2, what);
  }
  const std::string report = R"({"schema_version": 1, "tenants": [{"name": "a", "x": 1.0}, {"name": "a", "x": 2.0}]})";
  const auto dup = h.write("dup.json", report);
  expect_exit(gputwin({"diff", dup, dup}, h.dir.path()), 2, "has two items at 'tenants[name=a].x'");
  const auto repeated = h.write("rep.json", R"({"schema_version": 1, "a": 1, "a": 2})");
  expect_exit(gputwin({"diff", repeated, repeated}, h.dir.path()), 2, "key 'a' appears twice");
  const auto ok = h.write("ok.json", R"({"schema_version": 1, "tenants": [{"name": "a", "x": 1.0}]})");
  expect_exit(gputwin({"diff", ok, ok, "--ignore", "no_such_metric"}, h.dir.path()), 2,
              "--ignore 'no_such_metric' matches no metric of either report");
  expect_exit(gputwin({"diff", ok, ok, "--tolerance", "nothing*=5%"}, h.dir.path()), 2, "matches no metric");
  expect_exit(gputwin({"diff", ok, ok, "--ignore", "x"}, h.dir.path()), 0, "");
}

TEST(HostileInput, AuditVerifyIsStrict) {
  Hostile h;
  for (const auto& [path, what] : h.paths()) {
    SCOPED_TRACE(path);
    expect_exit(gputwin({"audit", "verify", path}, h.dir.path()), 2, what);
  }
  const std::string hash(64, 'a');
  const std::string record =
      R"({"index":0,"event_seq":1,"t_event":1.0,"t_written":2.0,"type":"dataRead","principal":"p",)"
      R"("tenant":0,"owner":0,"resource":"r","source":"s","location":"l","outcome":"success",)"
      R"("hash_prev":"","hash":")" +
      hash + "\"";
  expect_exit(gputwin({"audit", "verify", h.write("extra.jsonl", record + ",\"note\":\"x\"}\n")}, h.dir.path()), 2,
              "extra.jsonl:1: error: unknown field 'note'");
  expect_exit(gputwin({"audit", "verify", h.write("dup.jsonl", record + ",\"outcome\":\"denied\"}\n")}, h.dir.path()),
              2, "key 'outcome' appears twice");
  std::string big = record + "}\n";
  big.replace(big.find("\"t_event\":1.0"), 13, "\"t_event\":1e400");
  expect_exit(gputwin({"audit", "verify", h.write("big.jsonl", big)}, h.dir.path()), 2,
              "big.jsonl:1: error: not valid JSON");
  std::string overflow = record + "}\n";
  overflow.replace(overflow.find("\"tenant\":0"), 10, "\"tenant\":99999999999999999999");
  expect_exit(gputwin({"audit", "verify", h.write("of.jsonl", overflow)}, h.dir.path()), 2, "'tenant'");
  std::string badhash = record + "}\n";
  badhash.replace(badhash.find(hash), 64, "xyz");
  expect_exit(gputwin({"audit", "verify", h.write("hash.jsonl", badhash)}, h.dir.path()), 2, "64 lower-case hex");
}

TEST(HostileInput, TestAndSweepFiles) {
  Hostile h;
  for (const auto& [path, what] : h.paths()) {
    SCOPED_TRACE(path);
    expect_exit(gputwin({"sweep", path}, h.dir.path()), 2, what);
  }
  const auto scen = h.write("s.yaml", scenario());
  // 10 parameters of 10 values: 10^10 designs, and a product of 2^64 that overflowed to an empty grid.
  std::string grid = "apiVersion: gputwin.dev/v1alpha1\nkind: Sweep\nname: big\nscenario: s.yaml\ngrid:\n";
  for (int i = 0; i < 10; ++i) grid += "  p" + std::to_string(i) + ": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  std::string overflow = "apiVersion: gputwin.dev/v1alpha1\nkind: Sweep\nname: of\nscenario: s.yaml\ngrid:\n";
  for (int i = 0; i < 64; ++i) overflow += "  p" + std::to_string(i) + ": [1, 2]\n";
  expect_exit(gputwin({"sweep", h.write("grid.yaml", grid)}, h.dir.path()), 2, "the grid has 1e+10 designs");
  expect_exit(gputwin({"sweep", h.write("of.yaml", overflow)}, h.dir.path()), 2, "designs; at most 100000");
  const std::string many =
      "apiVersion: gputwin.dev/v1alpha1\nkind: Sweep\nname: m\nscenario: s.yaml\nseeds: 10000\n"
      "random:\n  samples: 100000\n  seed: 1\n  parameters:\n    spec.workloads[svc].replicas:\n"
      "      {min: 1, max: 2, integer: true}\n";
  expect_exit(gputwin({"sweep", h.write("many.yaml", many)}, h.dir.path()), 2, "a sweep runs at most 1000000");
  (void)scen;
}

TEST(HostileInput, RunNumbersOnTheCommandLine) {
  Hostile h;
  const auto file = h.write("s.yaml", scenario());
  for (const char* seed : {"-1", "18446744073709551616", "1e3", "0x10", ""}) {
    SCOPED_TRACE(seed);
    expect_exit(gputwin({"run", file, "--seed", seed, "-o", h.dir.file("o")}, h.dir.path()), 2, "--seed");
  }
  // --trace takes a name of the event log's form, nothing else (a path, a number, empty).
  for (const char* trace : {"", "bogus", "1e308", "/dev/zero", "DETAILED"}) {
    SCOPED_TRACE(trace);
    expect_exit(gputwin({"run", file, "--trace", trace, "-o", h.dir.file("o")}, h.dir.path()), 2,
                "--trace: " + std::string(trace) + " not in {folded,detailed}");
  }
  expect_exit(gputwin({"validate", file, "--max-events", "10"}, h.dir.path()), 2, "more than --max-events 10");
  expect_exit(gputwin({"validate", file, "--max-events", "nan"}, h.dir.path()), 2, "--max-events");
  expect_exit(gputwin({"validate", file, "--max-memory", "1KiB"}, h.dir.path()), 2, "--max-memory");
  expect_exit(gputwin({"validate", file, "--set", "spec.duration=5s\n---\nx: 1"}, h.dir.path()), 2,
              "more than one YAML document");
  expect_exit(gputwin({"validate", file, "--set", std::string("spec.duration=5s\x01")}, h.dir.path()), 2,
              "control byte 0x01");
  EXPECT_FALSE(fs::exists(h.dir.file("o")));
}

// A run its up-front estimate let through but that logs more events than --max-events stops at the limit:
// exit 3, the outputs written whole and marked partial (summary.stopped_early), never a swap or an abort.
TEST(HostileInput, ARunPastItsEventBudgetStopsWithPartialResults) {
  Hostile h;
  const std::string out = h.dir.file("o");
  const auto r = gputwin({"run", SRC + "/scenarios/ci/vgpu.yaml", "-o", out, "--progress", "none", "--format",
                          "json,md", "--max-events", "100000"},
                         h.dir.path());
  expect_exit(r, 3, "the run was stopped at");
  EXPECT_NE(r.err.find("more than --max-events 100000 events; the outputs are partial"), std::string::npos) << r.err;
  const auto report = nlohmann::json::parse(gtw::test::read_text(out + "/report.json"));
  EXPECT_EQ(report["summary"]["stopped_early"]["reason"], "more than --max-events 100000 events");
  EXPECT_EQ(report["summary"]["stopped_early"]["at_s"], report["summary"]["simulated_end_s"]);
  EXPECT_NE(gtw::test::read_text(out + "/report.md").find("**Partial results: the run was stopped at"),
            std::string::npos);
  const std::string whole = h.dir.file("whole");
  expect_exit(gputwin({"run", SRC + "/scenarios/ci/vgpu.yaml", "-o", whole, "--progress", "none", "--format", "json"},
                      h.dir.path()),
              0, "");
  EXPECT_FALSE(
      nlohmann::json::parse(gtw::test::read_text(whole + "/report.json"))["summary"].contains("stopped_early"));
}

TEST(HostileInput, ScenarioNamesNeverChooseTheOutputFolder) {
  for (const std::string name : {"../../escaped", "..", "/tmp/abs", "a/../../b"}) {
    TempDir root;
    const std::string work = root.file("work");
    fs::create_directory(work);
    gtw::test::write_text(work + "/s.yaml", scenario("", "{process: poisson, rate: 5/s}", name));
    SCOPED_TRACE(name);
    expect_exit(gputwin({"run", "s.yaml", "--progress", "none", "--format", "json"}, work), 0, "");
    std::vector<std::string> top;
    for (const auto& e : fs::directory_iterator(root.path())) top.push_back(e.path().filename().string());
    EXPECT_EQ(top, std::vector<std::string>{"work"}) << "a report was written outside the working folder";
    size_t reports = 0;
    for (const auto& e : fs::recursive_directory_iterator(work + "/out"))
      if (e.path().filename() == "report.json") ++reports;
    EXPECT_EQ(reports, 1u);
  }
}

TEST(HostileInput, AThousandWorkloadsRunOrAreRefusedNeverAbort) {
  Hostile h;
  std::string text =
      "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata: {name: many}\nspec:\n  duration: 2s\n"
      "  cluster:\n    nodePools:\n      - {name: pool, count: 125, gpu: H100-80GB-SXM, gpusPerNode: 8}\n"
      "  tenants:\n    - name: t\n  workloads:\n";
  for (int i = 0; i < 1000; ++i)
    text += "    - {name: w" + std::to_string(i) +
            ", kind: inference, tenant: t, model: {parameters: 1B}, arrival: {process: poisson, rate: 1/s}}\n";
  const auto file = h.write("many.yaml", text);
  const auto r = gputwin({"run", file, "-o", h.dir.file("o"), "--progress", "none", "--format", "json"}, h.dir.path());
  ASSERT_FALSE(r.timed_out) << describe(r);
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << describe(r);
  // 10^5 replicas of 100 workloads: refused up front with the estimate, not a SimGrid abort.
  std::string huge = text.substr(0, text.find("  workloads:\n")) + "  workloads:\n";
  for (int i = 0; i < 100; ++i)
    huge += "    - {name: w" + std::to_string(i) +
            ", kind: inference, tenant: t, replicas: 100000, model: {parameters: 1B}, arrival: {process: poisson, "
            "rate: 1/s}}\n";
  expect_exit(gputwin({"run", h.write("huge.yaml", huge), "-o", h.dir.file("o2")}, h.dir.path()), 2,
              "simulated processes");
  EXPECT_FALSE(fs::exists(h.dir.file("o2")));
}

}  // namespace
