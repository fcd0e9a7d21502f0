// End-to-end through the gputwin binary: determinism, the sharing-mode effects the model page
// explains, exit codes and atomic outputs. Each run is its own process, as SimGrid requires.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;
const std::string SRC = GTW_SOURCE_DIR;
const std::string TWO_TENANTS = SRC + "/tests/fixtures/scenarios/two-tenants.yaml";

json run_report(const TempDir& dir, const std::string& name, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {GTW_BINARY, "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"-o", dir.file(name), "--progress", "none", "--format", "json"});
  const auto r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(dir.file(name) + "/report.json"));
}

double p99_of(const json& report, const std::string& tenant) {
  for (const auto& t : report["tenants"])
    if (t["name"] == tenant) return t["workloads"][0]["latency"]["p99_s"].get<double>();
  throw std::runtime_error("no tenant " + tenant);
}

const std::vector<std::string> SHARED = {"--set", "spec.cluster.nodePools[0].sharing.mode=timeSlicing",
                                         "--set", "spec.cluster.nodePools[0].sharing.replicas=2",
                                         "--set", "spec.policies.placement.name=first-fit"};

TEST(RunCli, SameSeedGivesIdenticalReportOutsideProvenance) {
  TempDir dir;
  auto a = run_report(dir, "a", {TWO_TENANTS, "--seed", "11"});
  auto b = run_report(dir, "b", {TWO_TENANTS, "--seed", "11"});
  a.erase("provenance");
  b.erase("provenance");
  EXPECT_EQ(a.dump(), b.dump());
  auto c = run_report(dir, "c", {TWO_TENANTS, "--seed", "12"});
  EXPECT_NE(p99_of(a, "alpha"), p99_of(c, "alpha")) << "a different seed must change the latencies";
}

// Timings depend on the malloc (docs/PERFORMANCE.md, "Allocator"): the provenance says which one the run used,
// and it is the one the build linked (jemalloc when found, glibc otherwise).
TEST(RunCli, ProvenanceNamesTheAllocatorTheBinaryWasBuiltWith) {
  TempDir dir;
  const auto report = run_report(dir, "a", {TWO_TENANTS});
  const auto allocator = report["provenance"]["allocator"].get<std::string>();
  EXPECT_EQ(allocator.rfind(std::string(GTW_BINARY_ALLOCATOR) + " ", 0), 0u) << allocator;
  EXPECT_GT(allocator.size(), std::string(GTW_BINARY_ALLOCATOR).size() + 1) << "the version is missing: " << allocator;
}

// The end of the run kills the actors; a job waiting on its all-reduce had its other comms still in flight, and
// SimGrid printed a backtrace for each ("freed before its completion") on stderr.
TEST(RunCli, ARunThatEndsDuringAnAllReducePrintsNoSimGridBacktrace) {
  TempDir dir;
  const auto r = run_process({GTW_BINARY, "run", SRC + "/tests/fixtures/scenarios/training-cut-short.yaml", "-o",
                              dir.file("out"), "--progress", "none", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("Backtrace"), std::string::npos) << r.err;
  const auto report = json::parse(read_text(dir.file("out") + "/report.json"));
  const auto& job = report["tenants"][0]["workloads"][0];  // still running at the end, in the middle of a step
  EXPECT_EQ(job["jobs"]["unfinished"], 1) << "the fixture no longer ends during the job";
  EXPECT_GT(job["steps_completed"].get<int>(), 0);
}

TEST(RunCli, LogCategoriesAreOffByDefaultAndNeverChangeTheOutputs) {
  TempDir dir;
  const std::vector<std::string> base = {GTW_BINARY, "run", TWO_TENANTS, "--progress", "none", "--format", "json"};
  auto quiet = base;
  quiet.insert(quiet.end(), {"-o", dir.file("quiet")});
  const auto q = run_process(quiet, 120);
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.err.find("[gtw_"), std::string::npos) << "no project log line without --log: " << q.err;

  auto logged = base;
  logged.insert(logged.end(),
                {"-o", dir.file("logged"), "--log", "gtw_engine.thres:verbose", "--log", "gtw_events.thres:verbose"});
  const auto l = run_process(logged, 120);
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_NE(l.err.find("placed by"), std::string::npos)
      << "the engine's placement decisions: " << l.err.substr(0, 2000);
  EXPECT_NE(l.err.find("request_done"), std::string::npos) << "every event: " << l.err.substr(0, 2000);
  auto a = json::parse(read_text(dir.file("quiet") + "/report.json"));
  auto b = json::parse(read_text(dir.file("logged") + "/report.json"));
  a.erase("provenance");
  b.erase("provenance");
  EXPECT_EQ(a.dump(), b.dump());
}

TEST(RunCli, AMalformedLogSettingIsRefusedWithExit2) {
  TempDir dir;
  for (const char* bad : {"gtw_engine", "gtw engine.thres:debug", "gtw.thres:", "gtw.colour:red", "gtw.thres:bogus",
                          "gtw.app:file:/tmp/x", "gtw.add:maybe"}) {
    const auto r =
        run_process({GTW_BINARY, "run", TWO_TENANTS, "-o", dir.file("x"), "--progress", "none", "--log", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--log"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("x"))) << bad << ": nothing is written";
  }
}

TEST(RunCli, AMalformedSourceDateEpochIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  for (const char* bad : {"abc", "-5", "99999999999999999", "1.5", "253402300800"}) {
    ProcessOptions o;
    o.env = {{"SOURCE_DATE_EPOCH", bad}};
    const auto r = run_process({GTW_BINARY, "run", TWO_TENANTS, "-o", dir.file("out"), "--progress", "none"}, o);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("SOURCE_DATE_EPOCH: expected whole seconds"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out"))) << bad;
  }
}

TEST(RunCli, ModelsListsTheCatalogueAndABrokenCatalogueIsExit2) {
  const auto r = run_process({GTW_BINARY, "models"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* id : {"llama-3.1-70b", "mixtral-8x7b", "qwen2.5-72b"})
    EXPECT_NE(r.out.find(id), std::string::npos) << id << " in " << r.out;
  EXPECT_NE(r.out.find("128 KiB"), std::string::npos) << "Llama 3.1 8B's KV bytes per token: " << r.out;
  TempDir dir;
  write_text(dir.file("llm.yaml"), "kind: ModelCatalogue\nmodels: []\n");
  ProcessOptions broken;
  broken.env = {{"GPUTWIN_MODEL_CATALOGUE", dir.file("llm.yaml")}};
  const auto b = run_process({GTW_BINARY, "models"}, broken);
  EXPECT_EQ(b.exit_code, 2) << b.err;
  EXPECT_NE(b.err.find("llm.yaml:2:"), std::string::npos) << b.err;
}

TEST(RunCli, TimeSlicingRaisesBothTenantsP99AboveRunningAlone) {
  TempDir dir;
  const auto alone = run_report(dir, "alone", {TWO_TENANTS});
  std::vector<std::string> args = {TWO_TENANTS};
  args.insert(args.end(), SHARED.begin(), SHARED.end());
  const auto shared = run_report(dir, "shared", args);
  // Alone, each 7B service has a GPU to itself; time-sliced, both sit on GPU 0.
  EXPECT_EQ(shared["tenants"][0]["workloads"][0]["gpus"], json::array({0}));
  EXPECT_EQ(shared["tenants"][1]["workloads"][0]["gpus"], json::array({0}));
  for (const char* tenant : {"alpha", "beta"}) {
    EXPECT_GT(p99_of(shared, tenant), 1.2 * p99_of(alone, tenant)) << tenant;
  }
}

TEST(RunCli, DoublingOneTenantsRateRaisesTheOthersP99) {
  // Below saturation: alpha at 1/s then 2/s, beta at 1/s, both on one time-sliced GPU. Alpha's
  // extra load takes slices beta would have had alone (docs/models/time-slicing.md).
  TempDir dir;
  std::vector<std::string> base = {TWO_TENANTS, "--set", "spec.workloads[beta-svc].arrival.rate=1/s"};
  base.insert(base.end(), SHARED.begin(), SHARED.end());
  auto normal_args = base;
  normal_args.insert(normal_args.end(), {"--set", "spec.workloads[alpha-svc].arrival.rate=1/s"});
  auto doubled_args = base;
  doubled_args.insert(doubled_args.end(), {"--set", "spec.workloads[alpha-svc].arrival.rate=2/s"});
  const auto normal = run_report(dir, "normal", normal_args);
  const auto doubled = run_report(dir, "doubled", doubled_args);
  EXPECT_GT(p99_of(doubled, "beta"), 1.02 * p99_of(normal, "beta"));
  const auto p50 = [](const json& r) { return r["tenants"][1]["workloads"][0]["latency"]["p50_s"].get<double>(); };
  EXPECT_GT(p50(doubled), 1.1 * p50(normal));
}

TEST(RunCli, DefaultScenarioRunsAndPrintsWhereTheReportIs) {
  TempDir dir;
  const auto r = run_process(
      {GTW_BINARY, "run", SRC + "/scenarios/examples/default.yaml", "-o", dir.file("out"), "--progress", "plain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("report: " + dir.file("out") + "/report.md"), std::string::npos) << r.out;
  for (const char* f : {"report.json", "report.md", "results.h5"})
    EXPECT_TRUE(std::filesystem::exists(dir.file("out") + "/" + f)) << f;
  EXPECT_NE(r.err.find("100%"), std::string::npos) << "plain progress lines in CI";
  const auto md = read_text(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("chat / p99-latency"), std::string::npos);
  // No temporary file is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.file("out")))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
}

TEST(RunCli, ProgressJsonIsOneObjectPerLine) {
  TempDir dir;
  const auto r =
      run_process({GTW_BINARY, "run", TWO_TENANTS, "-o", dir.file("o"), "--progress", "json", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t lines = 0;
  std::vector<std::string> stages;
  std::istringstream in(r.err);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    const auto j = json::parse(line);
    if (j["phase"] == "run") {
      EXPECT_TRUE(j.contains("sim_time_s"));
      EXPECT_TRUE(stages.empty()) << "run lines come before the stages after the engine";
      ++lines;
    } else {
      stages.push_back(j["phase"]);
      EXPECT_GE(j["wall_s"].get<double>(), 0.0);
      EXPECT_GT(j["rss_mb"].get<double>(), 0.0);
      EXPECT_GE(j["peak_rss_mb"].get<double>(), j["rss_mb"].get<double>());
    }
  }
  EXPECT_GE(lines, 50u);
  // Only the formats asked for have a stage of their own.
  EXPECT_EQ(stages, (std::vector<std::string>{"engine", "index", "analysis", "leakage", "compliance", "report.json",
                                              "writers"}));
}

TEST(RunCli, ExitCodesFollowTheContract) {
  TempDir dir;
  EXPECT_EQ(run_process({GTW_BINARY, "validate", TWO_TENANTS}).exit_code, 0);
  EXPECT_EQ(run_process({GTW_BINARY, "validate", dir.file("missing.yaml")}).exit_code, 2);
  EXPECT_EQ(run_process({GTW_BINARY, "run"}).exit_code, 2) << "usage error";
  EXPECT_EQ(run_process({GTW_BINARY, "frobnicate"}).exit_code, 2);
  EXPECT_EQ(run_process({GTW_BINARY, "explain", "spec.nonsense"}).exit_code, 2);
  EXPECT_EQ(run_process({GTW_BINARY, "explain", "spec.workloads.arrival"}).exit_code, 0);
  EXPECT_EQ(run_process({GTW_BINARY, "explain", "policies"}).exit_code, 0);
  EXPECT_EQ(run_process({GTW_BINARY, "profiles"}).exit_code, 0);
  const auto bad_format = run_process({GTW_BINARY, "run", TWO_TENANTS, "-o", dir.file("x"), "--format", "pdf"});
  EXPECT_EQ(bad_format.exit_code, 2);
  EXPECT_NE(bad_format.err.find("unknown format 'pdf'"), std::string::npos);
}

TEST(RunCli, InvalidScenarioWritesNothing) {
  TempDir dir;
  const auto r = run_process({GTW_BINARY, "run", TWO_TENANTS, "-o", dir.file("out"), "--set", "spec.duration=-1s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--set"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out"))) << "no output directory for an invalid input";
}

TEST(RunCli, SetOverridesByNameAndIndexAndRejectsUnknownPaths) {
  TempDir dir;
  auto by_name = run_report(dir, "n", {TWO_TENANTS, "--set", "spec.workloads[beta-svc].arrival.rate=1/s"});
  auto by_index = run_report(dir, "i", {TWO_TENANTS, "--set", "spec.workloads[1].arrival.rate=1/s"});
  by_name.erase("provenance");
  by_index.erase("provenance");
  EXPECT_EQ(by_name.dump(), by_index.dump());
  const auto r = run_process({GTW_BINARY, "validate", TWO_TENANTS, "--set", "spec.durtion=5m"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'duration'"), std::string::npos) << r.err;
}

// A whole list item can be replaced (a per-GPU sharing exception, as the GUI's controls write it): the run is
// the one that changing the item's fields one by one gives; an item that is not there is still refused.
TEST(RunCli, SetReplacesAWholeListItem) {
  TempDir dir;
  const std::string scenario = std::string(GTW_SOURCE_DIR) + "/scenarios/attacks/mitigations.yaml";
  auto whole = run_report(
      dir, "w",
      {scenario, "--set", "spec.cluster.nodePools[node].gpuSharing[1]={gpus: [5], mode: timeSlicing, replicas: 2}"});
  auto fields =
      run_report(dir, "f", {scenario, "--set", "spec.cluster.nodePools[node].gpuSharing[1].mode=timeSlicing"});
  whole.erase("provenance");
  fields.erase("provenance");
  EXPECT_EQ(whole.dump(), fields.dump());
  bool time_sliced = false;
  for (const auto& g : whole["gpus"]) time_sliced |= g["local_index"] == 5 && g["sharing"] == "timeSlicing";
  EXPECT_TRUE(time_sliced);
  const auto r = run_process(
      {GTW_BINARY, "validate", scenario, "--set", "spec.cluster.nodePools[node].gpuSharing[7]={gpus: [1], mode: mps}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nothing at this path"), std::string::npos) << r.err;
}

TEST(RunCli, HardwareOverridesChangeTheModelAndAreValidated) {
  TempDir dir;
  const auto base = run_report(dir, "base", {TWO_TENANTS});
  // Half the achievable HBM bandwidth: the memory-bound decode takes twice as long.
  const auto slow =
      run_report(dir, "slow", {TWO_TENANTS, "--set", "spec.cluster.nodePools[0].hardware={hbmAchievable: 1.285TB/s}"});
  const auto p50 = [](const json& r) { return r["tenants"][0]["workloads"][0]["latency"]["p50_s"].get<double>(); };
  EXPECT_GT(p50(slow), 1.6 * p50(base));
  EXPECT_EQ(slow["hardware_profiles"].size(), 2u) << "the base profile and the pool's overridden one";
  const auto bad = run_process({GTW_BINARY, "validate", TWO_TENANTS, "--set",
                                "spec.cluster.nodePools[0].hardware={hbmAchievabel: 1TB/s, sms: many}"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no hardware profile field 'hbmAchievabel'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("did you mean 'hbmAchievable'"), std::string::npos) << bad.err;
}

TEST(RunCli, ScenarioReferenceMatchesTheSchema) {
  // docs/scenario.md embeds `gputwin explain spec`; a schema change must regenerate it.
  const auto doc = read_text(SRC + "/docs/scenario.md");
  const auto start = doc.find("```\n", doc.find("Generated with `gputwin explain spec`"));
  ASSERT_NE(start, std::string::npos);
  const auto end = doc.find("```", start + 4);
  const auto r = run_process({GTW_BINARY, "explain", "spec"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(doc.substr(start + 4, end - start - 4), r.out)
      << "regenerate the field list of docs/scenario.md with `gputwin explain spec`";
}

TEST(RunCli, DevicePluginConfigIsAcceptedVerbatim) {
  TempDir dir;
  const auto report = run_report(dir, "dp", {SRC + "/tests/fixtures/scenarios/device-plugin.yaml"});
  const auto& gpu = report["gpus"][0];
  EXPECT_EQ(gpu["sharing"], "timeSlicing");
  EXPECT_EQ(gpu["slots"], 4) << "replicas: 4 in the device plugin's timeSlicing resources";
  EXPECT_EQ(gpu["tenants"].size(), 2u) << "four replicas of two tenants on one GPU";
  EXPECT_GT(gpu["context_switches"].get<int>(), 0);
}

TEST(RunCli, EachWarningIsPrintedOnce) {
  TempDir dir;
  const auto r =
      run_process(run_argv(GTW_BINARY, SRC + "/scenarios/examples/k8s/kueue-openslo.yaml", dir.file("k"), "json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string warning = "Topology[default]: topology-aware scheduling";
  const auto first = r.err.find(warning);
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(warning, first + 1), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gtw::test
