// The isolation examples: the same tenants under exclusive, time-slicing, MPS and MIG. A noisier
// neighbour must not move a MIG tenant's latency at all, and must raise it under time-slicing and MPS.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

json run(const TempDir& dir, const std::string& mode, const std::string& burst_rate) {
  const std::string out = dir.file(mode + "-" + burst_rate);
  const auto r =
      run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/scenarios/examples/isolation/" + mode + ".yaml",
                   "-o", out, "--progress", "none", "--format", "json", "--set", "spec.duration=4m", "--set",
                   "spec.workloads[etl-jobs].arrival.burstRate=" + burst_rate});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(out + "/report.json"));
}

json chat_latency(const json& report) {
  for (const auto& t : report["tenants"])
    if (t["name"] == "chat") return t["workloads"][0]["latency"];
  throw std::runtime_error("no chat tenant");
}

TEST(Isolation, MigInstancesAreUntouchedByANoisierNeighbour) {
  TempDir dir;
  const auto quiet = chat_latency(run(dir, "mig", "0.5/s"));
  const auto noisy = chat_latency(run(dir, "mig", "2/s"));
  // Separate SM and HBM hosts per instance; inference uses no PCIe or NVLink here: identical.
  EXPECT_EQ(quiet.dump(), noisy.dump());
}

TEST(Isolation, VgpuEqualShareGivesTheSameSlotsWhateverTheNeighbourDoes) {
  TempDir dir;
  const auto quiet = chat_latency(run(dir, "vgpu", "0.5/s"));
  const auto noisy = chat_latency(run(dir, "vgpu", "2/s"));
  // Every vGPU keeps its slot whether it uses it or not, and the slots stay on their grid in time while
  // the GPU idles: chat's timeline hardly moves. Not byte-identical since chat's server has host time
  // between its steps (batching.engine): when both vGPUs idle at once, the first slot after the idle
  // spell is taken as it comes (whether a switch is paid in it depends on which vGPU held the GPU last);
  // measured 0.04% of the mean, bound at 0.2%.
  EXPECT_EQ(quiet["count"], noisy["count"]);
  for (const char* key : {"mean_s", "p50_s", "p99_s"})
    EXPECT_NEAR(quiet[key].get<double>(), noisy[key].get<double>(), 0.002 * quiet[key].get<double>()) << key;
}

TEST(Isolation, TimeSlicingAndMpsLetANoisierNeighbourRaiseLatency) {
  TempDir dir;
  // Time-slicing takes whole quanta from chat while a batch burst runs: chat's continuous-batching steps
  // take twice as long then, which raises its mean (more bursts, more such time) more than its p99 (a
  // request inside a burst is as slow at either burst rate). Under MPS the compute-bound batch kernels
  // are capped to half the SMs and only compete for HBM bandwidth with chat's memory-bound decode: a
  // small but certain effect (docs/models/partitions.md).
  const std::pair<const char*, double> cases[] = {{"time-slicing", 1.15}, {"mps", 1.01}};
  for (const auto& [mode, factor] : cases) {
    const auto quiet = chat_latency(run(dir, mode, "0.5/s"));
    const auto noisy = chat_latency(run(dir, mode, "2/s"));
    EXPECT_GT(noisy["mean_s"].get<double>(), factor * quiet["mean_s"].get<double>()) << mode;
    EXPECT_GT(noisy["p99_s"].get<double>(), quiet["p99_s"].get<double>()) << mode;
  }
}

TEST(Isolation, EveryExampleRunsAndReportsItsSharingMode) {
  TempDir dir;
  for (const char* mode : {"exclusive", "time-slicing", "mps", "mig", "confidential", "vgpu"}) {
    const auto report = run(dir, mode, "1/s");
    std::set<std::string> sharing;
    for (const auto& g : report["gpus"]) sharing.insert(g["sharing"].get<std::string>());
    const std::string expected = std::string(mode) == "time-slicing" ? "timeSlicing" : mode;
    EXPECT_TRUE(sharing.count(expected)) << mode;
  }
}

// A prediction (label validation; docs/validation/partitions.md, P3): VMware measured MLPerf Inference v1.1
// on A100-40c vGPUs (one VM per GPU) at 94.4-100 % of bare metal. The model's vGPU, alone on its GPU, pays
// no scheduler slot it does not use and has no virtualisation overhead term: it predicts 100 %, the top of
// the published range.
TEST(Isolation, AVgpuAloneOnItsGpuRunsInThePublishedShareOfBareMetal) {
  TempDir dir;
  const auto service_time = [&](const std::string& name, const std::vector<std::string>& sets) {
    const std::string fixture = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/cc-inference.yaml";
    const auto r = run_process(run_argv(GTW_BINARY, fixture, dir.file(name), "json", sets));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto w = json::parse(read_text(dir.file(name) + "/report.json"))["tenants"][0]["workloads"][0];
    return w["latency"]["mean_s"].get<double>() - w["queueing"]["mean_s"].get<double>();
  };
  const double bare = service_time("bare", {});
  for (const char* scheduler : {"bestEffort", "equalShare"}) {
    SCOPED_TRACE(scheduler);
    const double vgpu = service_time(
        scheduler,
        {std::string("spec.cluster.nodePools[0].sharing={mode: vgpu, replicas: 1, vgpuScheduler: ") + scheduler + "}"});
    const double share = bare / vgpu;
    EXPECT_GE(share, 0.944);
    EXPECT_LE(share, 1.0 + 1e-12);
    std::printf("vGPU alone (%s): %.1f %% of bare metal, published 94.4-100 %%\n", scheduler, 100 * share);
  }
}

}  // namespace
}  // namespace gtw::test
