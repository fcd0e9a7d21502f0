// The diagnostics catalogue (docs/formats/diagnostics.md): every file in tests/fixtures/malformed/,
// and inputs generated here (binary garbage, alias bombs, huge and deeply nested files, bad --set),
// must make the real gputwin binary exit with code 2 and a precise message: never a crash, a hang,
// another exit code or a written report.
//
// A fixture states what it expects in its leading comment lines:
//   # expect-code: 2
//   # expect-message: <substring of stderr>        (one or more)
//   # expect-location: [file:]line:col              (optional; file relative to the fixture directory)
// Fixtures are listed when the test binary starts, so a new fixture shows up after the next build.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path FIXTURE_DIR = fs::path(GTW_SOURCE_DIR) / "tests" / "fixtures" / "malformed";
// A hang guard, not a speed assertion (run_process scales it for sanitizer builds).
constexpr int TIMEOUT_SECONDS = 20;
constexpr size_t MAX_CAPTURE = 4u << 20;   // keep at most this much of each stream
constexpr size_t MAX_STDERR = 256u << 10;  // a malformed file must not print pages of errors

// ---------------------------------------------------------------------------------------------
// Running the binary

struct Outcome {
  bool timed_out = false;
  bool exited = false;  // normal exit (not a signal)
  int code = -1;
  int signal = 0;
  std::string out, err;
  size_t err_bytes = 0;  // before truncation to MAX_CAPTURE
  double seconds = 0;
};

std::string describe(const Outcome& o) {
  std::ostringstream s;
  if (o.timed_out) s << "timed out after " << TIMEOUT_SECONDS * gtw::test::timeout_scale() << " s; ";
  if (o.exited)
    s << "exit code " << o.code;
  else if (o.signal)
    s << "killed by signal " << o.signal << " (" << strsignal(o.signal) << ")";
  s << " in " << o.seconds << " s\n--- stderr ---\n"
    << o.err.substr(0, 4000) << "--- stdout ---\n"
    << o.out.substr(0, 2000);
  return s.str();
}

// Runs GTW_BINARY with `args` in directory `cwd`, capturing stdout and stderr; kills it after
// TIMEOUT_SECONDS (tests/support/Subprocess does the work).
Outcome run_gputwin(const std::vector<std::string>& args, const fs::path& cwd) {
  std::vector<std::string> argv{GTW_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  gtw::test::ProcessOptions options;
  options.timeout_seconds = TIMEOUT_SECONDS;
  options.cwd = cwd.string();
  options.max_capture = MAX_CAPTURE;
  options.env = {{"CI", "1"}};  // no progress bar
  Outcome o;
  try {
    const auto r = gtw::test::run_process(argv, options);
    o.timed_out = r.timed_out;
    o.exited = r.exited;
    o.code = r.exit_code;
    o.signal = r.signal;
    o.out = r.out;
    o.err = r.err;
    o.err_bytes = r.err_bytes;
    o.seconds = r.seconds;
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  return o;
}

// A fresh, empty directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::path(testing::TempDir()) / "gtw-malformed-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<std::string> list_dir(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  ASSERT_TRUE(f.good()) << "cannot write " << p;
}

// ---------------------------------------------------------------------------------------------
// Expectations

struct Expectation {
  int code = 2;
  std::vector<std::string> messages;
  std::string location;  // "line:col" or "file:line:col"; empty: not checked
};

Expectation read_expectation(const fs::path& file) {
  Expectation e;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line) && !line.empty() && line[0] == '#') {
    auto value = [&](const std::string& key) -> std::optional<std::string> {
      const std::string prefix = "# " + key + ":";
      if (line.rfind(prefix, 0) != 0) return std::nullopt;
      std::string v = line.substr(prefix.size());
      while (!v.empty() && v.front() == ' ') v.erase(v.begin());
      while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.pop_back();
      return v;
    };
    if (auto v = value("expect-code")) e.code = std::atoi(v->c_str());
    if (auto v = value("expect-message")) e.messages.push_back(*v);
    if (auto v = value("expect-location")) e.location = *v;
  }
  return e;
}

// "<file>:<line>:<col>: error:" for a location written "line:col" (in `main_file`) or "file:line:col".
std::string location_prefix(const std::string& location, const fs::path& main_file) {
  const auto last = location.rfind(':');
  const auto mid = location.rfind(':', last - 1);
  std::string file = main_file.string();
  if (mid != std::string::npos) file = (main_file.parent_path() / location.substr(0, mid)).string();
  const std::string line_col = mid == std::string::npos ? location : location.substr(mid + 1);
  return file + ":" + line_col + ": error:";
}

// Every stderr line is a diagnostic ("where: error: ..." / "where: warning: ..."), the error count,
// or a gputwin usage error; nothing else (no exception text, no sanitizer or YAML library output).
bool is_diagnostic_line(const std::string& line) {
  for (const char* tag : {": error: ", ": warning: "}) {
    const auto p = line.find(tag);
    if (p != std::string::npos && p > 0 && p + std::strlen(tag) < line.size()) return true;
  }
  const auto digits = line.find_first_not_of("0123456789");
  return digits != 0 && digits != std::string::npos && line.substr(digits) == " error(s)";
}

void expect_well_formed_stderr(const Outcome& o) {
  std::istringstream in(o.err);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_TRUE(is_diagnostic_line(line)) << "stray stderr line: " << line.substr(0, 300);
  }
  EXPECT_GT(lines, 0) << "nothing on stderr";
  EXPECT_EQ(o.err.find("internal error"), std::string::npos);
  EXPECT_LE(o.err_bytes, MAX_STDERR) << "stderr is " << o.err_bytes << " bytes";
}

// The common contract: exit code 2 (not a signal, not a timeout), the messages, the location.
void expect_refused(const Outcome& o, const Expectation& e, const fs::path& file) {
  ASSERT_FALSE(o.timed_out) << describe(o);
  ASSERT_TRUE(o.exited) << describe(o);
  EXPECT_EQ(o.code, e.code) << describe(o);
  for (const auto& m : e.messages)
    EXPECT_NE(o.err.find(m), std::string::npos) << "missing \"" << m << "\"\n" << describe(o);
  if (!e.location.empty()) {
    const std::string prefix = location_prefix(e.location, file);
    EXPECT_NE(o.err.find(prefix), std::string::npos) << "missing \"" << prefix << "\"\n" << describe(o);
  }
  EXPECT_EQ(o.out.find(": valid ("), std::string::npos) << describe(o);
  expect_well_formed_stderr(o);
}

// `validate` must write nothing (its working directory stays empty); `run -o DIR` must refuse before
// creating DIR or any report. The slow generated inputs check `validate` only (same loader).
enum class Also { RUN, NOTHING };

void check_validate_and_run(const fs::path& file, const Expectation& e, const std::vector<std::string>& extra = {},
                            Also also = Also::RUN) {
  TempDir cwd;
  std::vector<std::string> args{"validate", file.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const Outcome v = run_gputwin(args, cwd.path());
  SCOPED_TRACE("gputwin validate " + file.string());
  expect_refused(v, e, file);
  EXPECT_TRUE(list_dir(cwd.path()).empty()) << "validate wrote into its working directory";
  if (also == Also::NOTHING) return;

  const fs::path out = cwd.path() / "out";
  args = {"run", file.string(), "-o", out.string(), "--progress", "none"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Outcome r = run_gputwin(args, cwd.path());
  SCOPED_TRACE("gputwin run " + file.string());
  expect_refused(r, e, file);
  EXPECT_FALSE(fs::exists(out) && !list_dir(out).empty()) << "run wrote reports for an invalid scenario";
  EXPECT_EQ(list_dir(cwd.path()), std::vector<std::string>{}) << "run wrote into its working directory";
}

// ---------------------------------------------------------------------------------------------
// The fixture catalogue: one test per file.

std::vector<std::string> fixture_files() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(FIXTURE_DIR, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string test_name(const std::string& file) {
  return gtw::test::test_param_name(fs::path(file).stem().string());
}

class MalformedFixture : public testing::TestWithParam<std::string> {};

TEST_P(MalformedFixture, RefusedWithExitCode2) {
  const fs::path file = FIXTURE_DIR / GetParam();
  const Expectation e = read_expectation(file);
  ASSERT_FALSE(e.messages.empty()) << file << " has no '# expect-message:' line";
  check_validate_and_run(file, e);
}

INSTANTIATE_TEST_SUITE_P(Malformed, MalformedFixture, testing::ValuesIn(fixture_files()),
                         [](const testing::TestParamInfo<std::string>& p) { return test_name(p.param); });

TEST(MalformedCatalogue, HasTheFixtures) {
  const auto files = fixture_files();
  EXPECT_GE(files.size(), 35u) << "fixtures in " << FIXTURE_DIR;
  for (const auto& f : files) {
    const auto e = read_expectation(FIXTURE_DIR / f);
    EXPECT_EQ(e.code, 2) << f;
    EXPECT_FALSE(e.messages.empty()) << f;
  }
}

// The harness itself: a valid scenario passes, so the refusals above are not an artefact.
TEST(MalformedCatalogue, ValidScenarioIsAccepted) {
  TempDir cwd;
  const Outcome o =
      run_gputwin({"validate", (fs::path(GTW_SOURCE_DIR) / "scenarios/examples/default.yaml").string()}, cwd.path());
  ASSERT_TRUE(o.exited) << describe(o);
  EXPECT_EQ(o.code, 0) << describe(o);
  EXPECT_NE(o.out.find(": valid ("), std::string::npos) << describe(o);
}

// Whole lines, for the messages users see most: the did-you-mean suggestions and the location.
TEST(MalformedExact, FullDiagnosticLines) {
  struct Case {
    const char* fixture;
    const char* line;  // after "<file>:"
  };
  const Case cases[] = {
      {"unknown-key-nodepool.yaml",
       "16:9: error: spec.cluster.nodePools[0].gpusPerNod: unknown key 'gpusPerNod'; valid values: count, "
       "devicePluginConfig, fromNode, gpu, gpuSharing, gpusPerNode, hardware, migConfig, name, pricePerGpuHour, "
       "region, sharing, topology; did you mean 'gpusPerNode'?"},
      {"enum-sharing-mode.yaml",
       "18:17: error: spec.cluster.nodePools[0].sharing.mode: unknown value 'timeslicing'; valid values: exclusive, "
       "timeSlicing, mps, mig, vgpu, confidential; did you mean 'timeSlicing'?"},
      {"gpusharing-gpu-twice.yaml",
       "20:20: error: spec.cluster.nodePools[0].gpuSharing[1].gpus[0]: GPU 7 is listed in more than one gpuSharing "
       "entry (first in gpuSharing[0])"},
      {"dangling-tenant.yaml",
       "22:15: error: spec.workloads[0].tenant: no tenant named 'chta'; valid values: chat; did you mean 'chat'?"},
      {"policy-param-bad-choice.yaml",
       "32:17: error: spec.policies.placement.params.metric: unknown value 'slot'; valid values: slots, memory; did "
       "you mean 'slots'?"},
      {"start-after-end.yaml",
       "23:14: error: spec.workloads[0].start: starts at or after the end of the run (spec.duration = 60.00 s)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.fixture);
    const fs::path file = FIXTURE_DIR / c.fixture;
    TempDir cwd;
    const Outcome o = run_gputwin({"validate", file.string()}, cwd.path());
    ASSERT_TRUE(o.exited) << describe(o);
    EXPECT_EQ(o.code, 2);
    EXPECT_EQ(o.err, file.string() + ":" + c.line + "\n1 error(s)\n");
  }
}

// All problems of a file in one run, each once, in file order within the loader's pass.
TEST(MalformedExact, ManyErrorsAllReported) {
  const fs::path file = FIXTURE_DIR / "many-errors.yaml";
  TempDir cwd;
  const Outcome o = run_gputwin({"validate", file.string()}, cwd.path());
  ASSERT_TRUE(o.exited) << describe(o);
  EXPECT_EQ(o.code, 2);
  size_t errors = 0;
  for (size_t p = o.err.find(": error: "); p != std::string::npos; p = o.err.find(": error: ", p + 1)) ++errors;
  EXPECT_EQ(errors, 7u) << describe(o);
  EXPECT_NE(o.err.find("\n7 error(s)\n"), std::string::npos) << describe(o);
}

// ---------------------------------------------------------------------------------------------
// Inputs generated at test time (too big, binary or environment-dependent to commit).

Expectation expect(std::vector<std::string> messages, std::string location = "") {
  Expectation e;
  e.messages = std::move(messages);
  e.location = std::move(location);
  return e;
}

const char* const HEADER =
    "apiVersion: gputwin.dev/v1alpha1\n"
    "kind: Scenario\n"
    "metadata:\n"
    "  name: generated\n"
    "spec:\n"
    "  duration: 1m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "      - {name: pool, count: 1, gpu: H100-80GB-SXM}\n";

const char* const WORKLOAD =
    "{name: w, kind: inference, tenant: t, model: {parameters: 8B}, arrival: {process: poisson, rate: 1/s}}";

TEST(MalformedGenerated, EmptyFile) {
  TempDir dir;
  write_file(dir.path() / "empty.yaml", "");
  check_validate_and_run(dir.path() / "empty.yaml", expect({"file is empty: expected a YAML mapping"}, "1:1"));
}

TEST(MalformedGenerated, BinaryGarbage) {
  TempDir dir;
  std::mt19937 rng(20240601);
  std::string bytes(64 * 1024, '\0');
  for (auto& b : bytes) b = static_cast<char>(rng() & 0xff);
  bytes[100] = '\0';  // at least one NUL, whatever the seed gives
  write_file(dir.path() / "garbage.yaml", bytes);
  check_validate_and_run(dir.path() / "garbage.yaml", expect({"file is not YAML text (control byte 0x"}));
}

TEST(MalformedGenerated, InvalidUtf8) {
  TempDir dir;
  const std::string before = std::string(HEADER) + "  tenants:\n    - name: caf";  // HEADER has 9 lines
  write_file(dir.path() / "latin1.yaml", before + "\xe9\n");
  check_validate_and_run(
      dir.path() / "latin1.yaml",
      expect({"file is not valid UTF-8 (byte 0xe9 at byte offset " + std::to_string(before.size()) + ")"}, "11:16"));
}

TEST(MalformedGenerated, Utf16File) {
  TempDir dir;
  std::string text = "\xff\xfe";
  for (char c : std::string("apiVersion: gputwin.dev/v1alpha1\n")) text += std::string{c, '\0'};
  write_file(dir.path() / "utf16.yaml", text);
  check_validate_and_run(dir.path() / "utf16.yaml", expect({"file is not"}));
}

// "Billion laughs": 9 levels of 10 aliases each, met by the loader at spec.tenants.
TEST(MalformedGenerated, AliasBomb) {
  TempDir dir;
  std::string text =
      "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: bomb\n  labels:\n"
      "    l0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= 8; ++i) {
    text += "    l" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  text += "spec:\n  cluster:\n    nodePools:\n      - {name: pool, count: 1, gpu: H100-80GB-SXM}\n  tenants: *a8\n";
  write_file(dir.path() / "bomb.yaml", text);
  check_validate_and_run(dir.path() / "bomb.yaml", expect({"metadata.labels.l8: label values must be strings",
                                                           "spec.tenants[9]: expected a mapping, got a list"}));
}

// One alias repeated in a list, inside a list that is itself repeated: 30000 tenants x 1000 SLOs from
// a 300 KB file. The loader stops walking after its node budget.
TEST(MalformedGenerated, AliasFanOutIsBounded) {
  TempDir dir;
  std::string text = std::string(HEADER) +
                     "  tenants:\n    - &t\n      name: t\n      slos:\n"
                     "        - &o {name: a, kind: latency, threshold: 1s}\n";
  for (int i = 0; i < 1000; ++i) text += "        - *o\n";
  for (int i = 0; i < 30000; ++i) text += "    - *t\n";
  write_file(dir.path() / "fanout.yaml", text);
  check_validate_and_run(dir.path() / "fanout.yaml", expect({"scenario has too many nodes"}), {}, Also::NOTHING);
}

// 100000 SLOs x 60000 workloads of one tenant, under the node budget: cross-reference checks must
// not be quadratic.
TEST(MalformedGenerated, AliasFanOutSlosTimesWorkloads) {
  TempDir dir;
  std::string text = std::string(HEADER) +
                     "  tenants:\n    - name: t\n      slos:\n"
                     "        - &o {name: a, kind: latency, threshold: 1s}\n";
  for (int i = 0; i < 100000; ++i) text += "        - *o\n";
  text += std::string("  workloads:\n    - &w ") + WORKLOAD + "\n";
  for (int i = 0; i < 60000; ++i) text += "    - *w\n";
  write_file(dir.path() / "slos.yaml", text);
  check_validate_and_run(dir.path() / "slos.yaml",
                         expect({"spec.workloads[1].name: duplicate name 'w'", "too many errors; stopping after 200"}),
                         {}, Also::NOTHING);
}

// Node pools x workloads: prepare_scenario's capacity check (sim/engine/Setup.cpp) loops over every
// pool for every workload, so 100000 x 60000 aliased entries take minutes. Enable once that loop is
// linear.
TEST(MalformedGenerated, AliasFanOutPoolsTimesWorkloads) {
  TempDir dir;
  std::string text =
      "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: g\nspec:\n  duration: 1m\n"
      "  cluster:\n    nodePools:\n      - &p {name: pool, count: 1, gpu: H100-80GB-SXM}\n";
  for (int i = 0; i < 100000; ++i) text += "      - *p\n";
  text += std::string("  tenants:\n    - name: t\n  workloads:\n    - &w ") + WORKLOAD + "\n";
  for (int i = 0; i < 60000; ++i) text += "    - *w\n";
  write_file(dir.path() / "pools.yaml", text);
  check_validate_and_run(dir.path() / "pools.yaml", expect({"duplicate name 'pool'"}), {}, Also::NOTHING);
}

// Many $refs to one fragment: each include is read and walked again, so their total is bounded.
TEST(MalformedGenerated, RefFanOutIsBounded) {
  TempDir dir;
  write_file(dir.path() / "pool.yaml",
             "# " + std::string(256 * 1024, 'x') + "\nname: pool\ncount: 1\ngpu: H100-80GB-SXM\n");
  std::string text =
      "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: g\nspec:\n  duration: 1m\n"
      "  cluster:\n    nodePools:\n";
  for (int i = 0; i < 1000; ++i) text += "      - $ref: pool.yaml\n";
  text += "  tenants:\n    - name: t\n";
  write_file(dir.path() / "refs.yaml", text);
  check_validate_and_run(dir.path() / "refs.yaml", expect({"$ref includes exceed 64.0 MiB in total"}), {},
                         Also::NOTHING);
}

// 50 MB: a valid head and a huge comment. Refused by size before it is parsed.
TEST(MalformedGenerated, HugeFile) {
  TempDir dir;
  {
    std::ofstream f(dir.path() / "huge.yaml", std::ios::binary);
    f << HEADER << "  tenants:\n    - name: t\n# ";
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 50; ++i) f << chunk;
    f << "\n";
  }
  check_validate_and_run(dir.path() / "huge.yaml", expect({"file is 50.0 MiB; scenario files are limited to 8.0 MiB"}));
}

// 100000 nested flow lists, and mappings: yaml-cpp's depth guard, not a stack overflow.
TEST(MalformedGenerated, DeeplyNestedLists) {
  TempDir dir;
  write_file(dir.path() / "deep.yaml", "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nspec: " +
                                           std::string(100000, '[') + std::string(100000, ']') + "\n");
  check_validate_and_run(dir.path() / "deep.yaml",
                         expect({"YAML syntax error: lists and mappings are nested too deeply"}));
}

TEST(MalformedGenerated, DeeplyNestedMappings) {
  TempDir dir;
  std::string text = "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nspec: ";
  for (int i = 0; i < 100000; ++i) text += "{a: ";
  text += "1" + std::string(100000, '}') + "\n";
  write_file(dir.path() / "deep.yaml", text);
  check_validate_and_run(dir.path() / "deep.yaml",
                         expect({"YAML syntax error: lists and mappings are nested too deeply"}));
}

TEST(MalformedGenerated, MissingFile) {
  TempDir dir;
  const fs::path file = dir.path() / "no-such-scenario.yaml";
  check_validate_and_run(file, expect({"cannot read '" + file.string() + "': no such file"}));
}

TEST(MalformedGenerated, Directory) {
  TempDir dir;
  fs::create_directory(dir.path() / "scenario.yaml");
  check_validate_and_run(dir.path() / "scenario.yaml", expect({"it is a directory, not a file"}));
}

// A FIFO with no writer would block the reader forever.
TEST(MalformedGenerated, Fifo) {
  TempDir dir;
  const fs::path fifo = dir.path() / "scenario.yaml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << strerror(errno);
  check_validate_and_run(fifo, expect({"not a regular file"}));
}

// --set overrides on a valid scenario.
const fs::path DEFAULT_SCENARIO = fs::path(GTW_SOURCE_DIR) / "scenarios/examples/default.yaml";

TEST(MalformedSet, NoEquals) {
  check_validate_and_run(DEFAULT_SCENARIO, expect({"gputwin: error: --set expects path=value, got 'spec.seed'"}),
                         {"--set", "spec.seed"});
}

TEST(MalformedSet, EmptyPath) {
  check_validate_and_run(DEFAULT_SCENARIO, expect({"--set expects path=value, got '=5'"}), {"--set", "=5"});
}

TEST(MalformedSet, UnknownField) {
  check_validate_and_run(DEFAULT_SCENARIO,
                         expect({"--set: error: spec.durtion: no such field in the scenario: spec has no key 'durtion'",
                                 "did you mean 'duration'?"}),
                         {"--set", "spec.durtion=5m"});
}

TEST(MalformedSet, UnknownNestedField) {
  check_validate_and_run(DEFAULT_SCENARIO, expect({"spec.workloads[] has no key 'arival'", "did you mean 'arrival'?"}),
                         {"--set", "spec.workloads[chat-svc].arival.rate=5/s"});
}

TEST(MalformedSet, NoSuchListItem) {
  check_validate_and_run(DEFAULT_SCENARIO, expect({"the scenario has nothing at this path to override"}),
                         {"--set", "spec.workloads[chat-svx].replicas=2"});
}

TEST(MalformedSet, NegativeDuration) {
  check_validate_and_run(
      DEFAULT_SCENARIO,
      expect({"--set spec.duration: error: spec.duration: a duration must not be negative, got \"-5s\""}),
      {"--set", "spec.duration=-5s"});
}

TEST(MalformedSet, ValueNotYaml) {
  check_validate_and_run(DEFAULT_SCENARIO, expect({"spec.duration: value is not valid YAML"}),
                         {"--set", "spec.duration=[1"});
}

TEST(MalformedSet, UnitlessRate) {
  check_validate_and_run(DEFAULT_SCENARIO, expect({"spec.workloads[1].arrival.rate: a rate needs a unit"}),
                         {"--set", "spec.workloads[chat-svc].arrival.rate=30"});
}

}  // namespace
