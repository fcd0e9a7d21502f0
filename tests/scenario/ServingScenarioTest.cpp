// Continuous batching through the whole simulator (docs/models/serving.md): a lone request's TTFT is its
// prefill roofline and its TPOT the weights and KV over HBM (the SimGrid GPU model, not the formula's
// code); Llama 3.1 70B in fp16 runs on TP 2, 4 and 8 with a time per token that falls with the group;
// preemption starts when the KV cache is too small for the load; two serving tenants on one GPU move the
// victim's TTFT/TPOT tail against its exclusive baseline, and two servers that each take 90% of a
// time-sliced GPU do not both start (vLLM's gpu_memory_utilization); the static batcher stays as it was.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "EngineOverhead.hpp"
#include "HardwareProfile.hpp"
#include "ModelCatalogue.hpp"
#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

json run(const TempDir& dir, const std::string& fixture, const std::vector<std::string>& sets, const std::string& tag) {
  const std::string out = dir.file(tag);
  std::vector<std::string> args{
      GTW_BINARY, "run",      std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/" + fixture,
      "-o",       out,        "--progress",
      "none",     "--format", "json"};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const auto r = run_process(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(out + "/report.json"));
}

const json& workload(const json& report, const std::string& name) {
  for (const auto& t : report["tenants"])
    for (const auto& w : t["workloads"])
      if (w["name"] == name) return w;
  static const json none;
  ADD_FAILURE() << "no workload " << name;
  return none;
}

TEST(ServingScenario, ALoneRequestTakesThePrefillRooflineThenTheWeightsOverHbmPerToken) {
  TempDir dir;
  const json report = run(dir, "serving-alone.yaml", {}, "alone");
  const json& w = workload(report, "small");
  ASSERT_EQ(w["requests"]["completed"], 1);
  Diagnostics diags;
  const auto catalogue = load_model_catalogue(std::string(GTW_SOURCE_DIR) + "/calibration/models/llm.yaml", diags);
  ASSERT_TRUE(catalogue);
  const auto& m = *catalogue->find("llama-3.1-8b");
  HardwareProfile h100;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "", h100, diags));
  const double prompt = 1024, output = 129;
  // The layers' GEMMs for every prompt token, the output head once, attention, at the FP16 rate; the
  // memory-bound kernels (hand-counted for Llama 3.1 8B in 16 bits: per token and layer two residual-add
  // RMSNorms of 4 x 4096 values, rotary on 4096 + 1024 read and written, SwiGLU on 3 x 14336; the sampled
  // token's FP32 logits written and read) over HBM.
  const double elementwise_per_token = 32 * (2 * 4 * 4096 + 2 * (4096 + 1024) + 3 * 14336) * 2.0;
  const double logits = 2 * 4 * 128256.0;
  const double flops = prompt * m.body_matrix_flops_per_token() + m.output_head_flops() +
                       m.attention_flops_per_token(prompt * (prompt + 1) / 2);
  // The default engine family (vllm-v1) adds its host time to every step, as calibration/serving/targets.yaml says.
  const auto engines = serving::load_engine_overheads(serving::default_engine_overhead_path(), diags);
  ASSERT_TRUE(engines) << diags.format_all();
  const double host = engines->at("vllm-v1").step_overhead_s;
  EXPECT_GT(host, 0);
  const double ttft = flops / h100.achievable_rate(DType::FP16).value +
                      (prompt * elementwise_per_token + logits) / h100.hbm_achievable.value;
  EXPECT_NEAR(w["serving"]["ttft"]["p50_s"].get<double>(), ttft + host, 0.01 * ttft);
  const double kv = m.kv_bytes_per_token(2);
  const double tpot = (m.parameters() * 2 + (prompt + output / 2 + 1) * kv + elementwise_per_token + logits) /
                      h100.hbm_achievable.value;
  EXPECT_NEAR(w["serving"]["tpot"]["p50_s"].get<double>(), tpot + host, 0.01 * tpot);
  EXPECT_EQ(w["serving"]["preemptions"], 0);
  // batching.engine: none leaves the GPU's time alone.
  const json bare = run(dir, "serving-alone.yaml", {"spec.workloads[small].batching.engine=none"}, "bare");
  EXPECT_NEAR(workload(bare, "small")["serving"]["ttft"]["p50_s"].get<double>(), ttft, 0.01 * ttft);
  EXPECT_NEAR(workload(bare, "small")["serving"]["tpot"]["p50_s"].get<double>(), tpot, 0.01 * tpot);
  // io.frontEnd: the request reaches the replica 15 ms after the client sent it; its TTFT counts from the send.
  const json fronted = run(dir, "serving-alone.yaml", {"spec.workloads[small].io={frontEnd: 15ms}"}, "front");
  EXPECT_NEAR(workload(fronted, "small")["serving"]["ttft"]["p50_s"].get<double>(), ttft + host + 0.015, 0.01 * ttft);
  EXPECT_NEAR(workload(fronted, "small")["serving"]["tpot"]["p50_s"].get<double>(), tpot + host, 0.01 * tpot);
}

TEST(ServingScenario, SeventyBillionFp16RunsOnTensorParallelTwoFourAndEight) {
  TempDir dir;
  double previous = 1e9;
  for (int tp : {2, 4, 8}) {
    const json report =
        run(dir, "serving-continuous.yaml", {"spec.workloads[large].parallelism.tensor=" + std::to_string(tp)},
            "tp" + std::to_string(tp));
    const json& w = workload(report, "large");
    EXPECT_EQ(w["replicas_failed"], 0) << tp;
    EXPECT_EQ(w["gpus"].size(), static_cast<size_t>(tp));
    EXPECT_GT(w["requests"]["completed"].get<int>(), 20) << tp;
    const double tpot = w["serving"]["tpot"]["p50_s"].get<double>();
    EXPECT_LT(tpot, previous) << "a wider group reads a smaller weight shard per GPU, tp " << tp;
    previous = tpot;
  }
}

TEST(ServingScenario, PreemptionStartsWhenTheKvCacheIsTooSmallForTheLoad) {
  TempDir dir;
  const std::vector<std::string> load{"spec.workloads[small].arrival.process=poisson",
                                      "spec.workloads[small].arrival.rate=20/s",
                                      "spec.workloads[small].request.outputTokens=512"};
  auto roomy = load;
  const json plenty = run(dir, "serving-alone.yaml", roomy, "roomy");
  auto tight = load;
  // 0.215 x 80 GB = 17.2 GB: about 1.2 GB (10,000 tokens) of KV beside the 16 GB of weights.
  tight.push_back("spec.workloads[small].kvCache.gpuMemoryUtilization=0.215");
  const json scarce = run(dir, "serving-alone.yaml", tight, "tight");
  EXPECT_EQ(workload(plenty, "small")["serving"]["preemptions"], 0);
  EXPECT_GT(workload(scarce, "small")["serving"]["preemptions"].get<int>(), 0);
  EXPECT_GT(workload(scarce, "small")["serving"]["kv_peak"].get<double>(), 0.95);
  EXPECT_GT(workload(scarce, "small")["serving"]["ttft"]["p99_s"].get<double>(),
            workload(plenty, "small")["serving"]["ttft"]["p99_s"].get<double>());
}

TEST(ServingScenario, ACoTenantMovesTheVictimsTokenLatenciesAgainstItsExclusiveBaseline) {
  TempDir dir;
  const json alone = run(dir, "serving-cotenants.yaml",
                         {"spec.cluster.nodePools[0].sharing.mode=exclusive",
                          "spec.cluster.nodePools[0].sharing.replicas=1", "spec.cluster.nodePools[0].gpusPerNode=2"},
                         "exclusive");
  const auto victim = [](const json& r) { return workload(r, "chat")["serving"]; };
  for (const std::string mode : {"timeSlicing", "mps"}) {
    const json shared = run(dir, "serving-cotenants.yaml", {"spec.cluster.nodePools[0].sharing.mode=" + mode}, mode);
    EXPECT_GT(victim(shared)["tpot"]["p50_s"].get<double>(), 1.3 * victim(alone)["tpot"]["p50_s"].get<double>())
        << mode << ": the neighbour's steps interleave with the victim's";
    EXPECT_GT(victim(shared)["ttft"]["p99_s"].get<double>(), victim(alone)["ttft"]["p99_s"].get<double>()) << mode;
  }
}

TEST(ServingScenario, TwoServersTakingNinetyPercentOfATimeSlicedGpuDoNotBothStart) {
  TempDir dir;
  const json report = run(dir, "serving-cotenants.yaml",
                          {"spec.workloads[chat].kvCache.gpuMemoryUtilization=0.9",
                           "spec.workloads[bulk].kvCache.gpuMemoryUtilization=0.9"},
                          "greedy");
  const int failed =
      workload(report, "chat")["replicas_failed"].get<int>() + workload(report, "bulk")["replicas_failed"].get<int>();
  EXPECT_EQ(failed, 1) << "the second server finds less than 90% of the GPU free";
}

TEST(ServingScenario, DisaggregatedServingMovesEachPromptsKvFromThePrefillToADecodeReplica) {
  TempDir dir;
  const json report = run(dir, "serving-disaggregated.yaml", {}, "disaggregated");
  const json& w = workload(report, "llama70b");
  const int arrived = w["requests"]["arrived"].get<int>();
  EXPECT_GT(arrived, 100);
  EXPECT_EQ(w["requests"]["completed"].get<int>(), arrived);
  // One KV transfer per request, from the prefill replica's GPUs (0, 1) to a decode replica's, of the
  // prompt's KV: 3000 tokens x 2 x 80 layers x 4 KV heads per GPU x 128 x 2 bytes, on each of 2 GPU pairs.
  int transfers = 0;
  for (const auto& m : report["data_movements"]) {
    if (m["operation"] != "transfer" || m["workload"] != "llama70b") continue;
    ++transfers;
    EXPECT_EQ(m["from"], "gpu:0");
    EXPECT_NE(m["to"], "gpu:0");
    EXPECT_DOUBLE_EQ(m["bytes"].get<double>(), 2 * 3000.0 * 2 * 80 * 4 * 128 * 2);
  }
  EXPECT_EQ(transfers, arrived);
  EXPECT_LT(w["serving"]["ttft"]["p50_s"].get<double>(), 0.5);
}

// scenarios/examples/serving: the same two serving tenants under each sharing mode. The partitioned designs
// keep the chat tenant's TTFT tail near its exclusive baseline; the shared ones (steps interleaved in time
// slices, or SMs and bandwidth shared under MPS) let the neighbour's long prefills into it.
TEST(ServingScenario, TheServingExamplesRankTheSharingModesByTheVictimsTtftTail) {
  TempDir dir;
  std::map<std::string, double> ttft_p99;
  std::map<std::string, bool> met;
  for (const std::string mode : {"exclusive", "mig", "time-slicing", "mps"}) {
    const std::string out = dir.file("example-" + mode);
    const auto r =
        run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/scenarios/examples/serving/" + mode + ".yaml",
                     "-o", out, "--progress", "none", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json report = json::parse(read_text(out + "/report.json"));
    ttft_p99[mode] = workload(report, "chat-svc")["serving"]["ttft"]["p99_s"].get<double>();
    for (const auto& slo : report["tenants"][0]["slos"])
      if (slo["name"] == "ttft-p99") met[mode] = slo["met"].get<bool>();
  }
  EXPECT_LT(ttft_p99["exclusive"], ttft_p99["mig"]);
  EXPECT_LT(2 * ttft_p99["mig"], ttft_p99["time-slicing"]);
  EXPECT_LT(2 * ttft_p99["mig"], ttft_p99["mps"]);
  EXPECT_TRUE(met["exclusive"]);
  EXPECT_TRUE(met["mig"]);
  EXPECT_FALSE(met["time-slicing"]);
  EXPECT_FALSE(met["mps"]);
}

// The engines' host-time file ($GPUTWIN_SERVING_TARGETS) is input like any other: a directory, a FIFO,
// /dev/zero, an absurd value or an empty one is exit 2 with its location, and nothing is written.
TEST(ServingScenario, AHostileEngineFileIsExit2AndWritesNothing) {
  TempDir dir;
  write_text(dir.file("huge.yaml"), "hostOverhead:\n  vllm-v1: {stepOverhead: 1e308s, source: (assumed) x}\n");
  write_text(dir.file("empty.yaml"), "hostOverhead:\n  vllm-v1: {gpuShare: , source: (assumed) x}\n");
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::pair<std::string, std::string> cases[] = {
      {dir.path(), "is a directory"},
      {fifo, "FIFO"},
      {"/dev/zero", "character device"},
      {dir.file("huge.yaml"), "huge.yaml:2:27: error: hostOverhead.vllm-v1.stepOverhead"},
      {dir.file("empty.yaml"), "empty.yaml:2:23: error: hostOverhead.vllm-v1.gpuShare"}};
  for (const auto& [path, expected] : cases) {
    ProcessOptions options;
    options.env = {{"GPUTWIN_SERVING_TARGETS", path}};
    const std::string out = dir.file("out-" + std::to_string(std::hash<std::string>{}(path)));
    const auto r =
        run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/serving-alone.yaml",
                     "-o", out, "--progress", "none"},
                    options);
    EXPECT_EQ(r.exit_code, 2) << path << ": " << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << path;
  }
}

TEST(ServingScenario, TheStaticBatcherStaysForTheScenariosThatAskForIt) {
  TempDir dir;
  const json report = run(dir, "serving-alone.yaml", {"spec.workloads[small].batching.mode=static"}, "static");
  const json& w = workload(report, "small");
  EXPECT_EQ(w["requests"]["completed"], 1);
  EXPECT_FALSE(w.contains("serving"));
}

}  // namespace
}  // namespace gtw::test
