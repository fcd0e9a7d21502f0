// Model-IP defences beyond isolation (docs/models/leakage.md, "Model IP"): a per-client query budget stops a
// model-stealing client at its budget, and owner-side weight encryption closes the plaintext storage and network
// channels of the weights at the price of decrypting them on every load. Real runs through the gputwin binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "ApiExtraction.hpp"
#include "ReportRun.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

// report.json of a scenario of the repository (path relative to its root).
json run_repo_scenario(const std::string& scenario, const std::vector<std::string>& sets) {
  return run_report(std::string(GTW_SOURCE_DIR) + "/" + scenario, sets);
}

const json& model_exposure(const json& report, const std::string& model, const std::string& channel) {
  for (const auto& m : report["leakage"]["models"])
    if (m["workload"] == model)
      for (const auto& x : m["exposures"])
        if (x["channel"] == channel) return x;
  static const json none;
  ADD_FAILURE() << "no " << channel << " exposure of " << model;
  return none;
}

double max_latency(const json& report, const std::string& workload) {
  for (const auto& t : report["tenants"])
    for (const auto& w : t["workloads"])
      if (w["name"] == workload) return w["latency"]["max_s"].get<double>();
  ADD_FAILURE() << "no workload " << workload;
  return 0;
}

TEST(ModelIpDefences, AQueryBudgetStopsTheExtractionAtTheBudget) {
  const std::string scenario = "scenarios/attacks/query-extraction.yaml";
  const json open = run_repo_scenario(scenario, {});
  const json& stolen = open["leakage"]["attacks"][0]["achieved"];
  EXPECT_EQ(stolen["queries_admitted"], 300);
  EXPECT_TRUE(stolen["goal_reached"].get<bool>());
  const json budget = run_repo_scenario(scenario, {"spec.policies.isolation.queryBudget=100"});
  const json& attack = budget["leakage"]["attacks"][0];
  EXPECT_EQ(attack["achieved"]["queries_admitted"], 100);
  EXPECT_FALSE(attack["achieved"]["goal_reached"].get<bool>());
  EXPECT_EQ(attack["achieved"]["bound_queries"], 100);
  EXPECT_TRUE(attack["within_bound"].get<bool>());
  EXPECT_NE(attack["outcome"].get<std::string>().find("1 by the query budget"), std::string::npos) << attack["outcome"];
  const std::string detail = model_exposure(budget, "chat-svc", "queryAccess")["detail"];
  EXPECT_NE(detail.find("at most 100 queries each over the run"), std::string::npos) << detail;
  EXPECT_EQ(budget["leakage"]["options"]["query_budget"], 100);
}

TEST(ModelIpDefences, WeightEncryptionClosesStorageAndNetworkAndCostsTheDecryption) {
  const std::string scenario = "tests/fixtures/scenarios/weight-encryption.yaml";
  const json plain = run_repo_scenario(scenario, {});
  for (const std::string channel : {"plaintextStorage", "plaintextNetwork"}) {
    const json& x = model_exposure(plain, "chat-svc", channel);
    EXPECT_EQ(x["status"], "open") << channel;
    EXPECT_DOUBLE_EQ(x["bytes"].get<double>(), 16e9) << channel;  // 8B parameters in fp16
  }
  const json encrypted = run_repo_scenario(scenario, {"spec.policies.isolation.weightEncryption=true"});
  for (const std::string channel : {"plaintextStorage", "plaintextNetwork"}) {
    const json& x = model_exposure(encrypted, "chat-svc", channel);
    EXPECT_EQ(x["status"], "closed") << channel;
    EXPECT_EQ(x["bytes"], 0) << channel;
  }
  // The cost: 16 GB decrypted at 2 GB/s before the replica serves. The first requests, queued during the load,
  // wait that much longer (within 20%: which request is the slowest, and its batch, may differ between the runs).
  const double extra = max_latency(encrypted, "chat-svc") - max_latency(plain, "chat-svc");
  EXPECT_NEAR(extra, 8.0, 1.6);
  // A faster decryption costs proportionally less.
  const json fast = run_repo_scenario(
      scenario, {"spec.policies.isolation.weightEncryption=true", "spec.policies.isolation.decryptBandwidth=16GB/s"});
  EXPECT_NEAR(max_latency(fast, "chat-svc") - max_latency(plain, "chat-svc"), 1.0, 0.5);
}

// The erasure rule (C24, docs/models/compliance.md) on the same fixture: the research tenant's corpus is read from the
// shared file system to its GPU five times in the first second.
json erasure_finding(const std::string& request) {
  const json report =
      run_repo_scenario("tests/fixtures/scenarios/weight-encryption.yaml",
                        {"spec.compliance={rules: [{name: erase, rule: erasure}], erasures: [" + request + "]}"});
  for (const auto& f : report["compliance"]["findings"])
    if (f["rule"] == "erasure") return f;
  ADD_FAILURE() << "no erasure finding";
  return json();
}

// ---- the projection layer through the API (models/threat/ApiExtraction.hpp; mechanism checks: the cost per
// logit vector follows the published attacks, the parameters marked assumed in leakage.md are not validated)

TEST(ApiExtraction, WhatTheApiReturnsSetsTheQueriesPerLogitVector) {
  ApiOutputPolicy api;
  api.logprobs = ApiLogprobs::FULL;
  auto c = threat::projection_extraction_cost(4096, 128256, api);
  EXPECT_TRUE(c.possible);
  EXPECT_EQ(c.queries_per_vector, 1);
  EXPECT_EQ(c.queries_needed, 4097);  // h + 1 vectors saturate the rank at h
  api.logprobs = ApiLogprobs::TOP;    // top-20 with a logit bias: 20 chosen tokens per query
  c = threat::projection_extraction_cost(4096, 128256, api);
  EXPECT_EQ(c.queries_per_vector, 6413);  // ceil(128256 / 20)
  api.logit_bias = false;
  EXPECT_FALSE(threat::projection_extraction_cost(4096, 128256, api).possible);
  api.logprobs = ApiLogprobs::NONE;
  api.logit_bias = true;
  EXPECT_EQ(threat::projection_extraction_cost(4096, 32000, api).queries_per_vector, 32000 * 20);
  api.logprobs = ApiLogprobs::FULL;
  api.noise_nats = 0.01;  // (0.01 / 1e-3)^2 repeats of each query
  c = threat::projection_extraction_cost(1024, 50257, api);
  EXPECT_EQ(c.repeats, 100);
  EXPECT_EQ(c.queries_needed, 1025 * 100);
}

TEST(ApiExtraction, WatermarkDetectionIsTheBinomialTail) {
  // Exact tails: P(Bin(300, 0.05) >= 10) and P(Bin(100, 0.01) >= 10), computed apart from the code under test.
  EXPECT_NEAR(threat::watermark_detection_probability(300, 0.05, 10), 0.9350303191362112, 1e-12);
  EXPECT_NEAR(threat::watermark_detection_probability(100, 0.01, 10), 7.631587628509351e-08, 1e-15);
  EXPECT_EQ(threat::watermark_detection_probability(5, 0.5, 10), 0.0);  // fewer answers than marks needed
  EXPECT_EQ(threat::watermark_detection_probability(1e6, 0, 1), 0.0);
  EXPECT_NEAR(threat::watermark_detection_probability(1e6, 1e-3, 10), 1.0, 1e-12);
}

TEST(ModelIpDefences, LogprobsNoiseAndWatermarkDecideTheStolenProjectionLayer) {
  const std::string fixture = "tests/fixtures/scenarios/api-extraction.yaml";
  // Full logprobs: recovered at the 4,097th of 4,200 answers, before the last one.
  json report = run_repo_scenario(fixture, {});
  json stolen = report["leakage"]["attacks"][0]["achieved"];
  ASSERT_TRUE(stolen["projection"].is_object()) << stolen.dump();
  EXPECT_EQ(stolen["queries_answered"], 4200.0);
  EXPECT_TRUE(stolen["projection"]["recovered"]);
  EXPECT_EQ(stolen["projection"]["bytes"], 4096.0 * 128256 * 2);
  const double recovered_at = stolen["projection"]["recovered_at_s"].get<double>();
  EXPECT_GT(recovered_at, 10.0);
  EXPECT_LT(recovered_at, stolen["query_seconds"].get<double>());
  EXPECT_EQ(stolen["watermark_detection"], 0.0);
  // Top-20 logprobs: not one full vector from 4,200 answers.
  stolen = run_repo_scenario(fixture, {"spec.policies.isolation.logprobs=top"})["leakage"]["attacks"][0]["achieved"];
  EXPECT_FALSE(stolen["projection"]["recovered"]);
  EXPECT_EQ(stolen["projection"]["vectors_obtained"], 0.0);
  EXPECT_EQ(stolen["projection"]["queries_needed"], 4097.0 * 6413);
  // Output noise of 0.01 nats: 42 averaged vectors; every answer of the service carries the noise.
  report = run_repo_scenario(fixture, {"spec.policies.isolation.outputNoise=0.01"});
  stolen = report["leakage"]["attacks"][0]["achieved"];
  EXPECT_FALSE(stolen["projection"]["recovered"]);
  EXPECT_EQ(stolen["projection"]["vectors_obtained"], 42.0);
  EXPECT_GE(report["leakage"]["mitigation_costs"]["answers_perturbed"].get<double>(), 4200.0);
  // A watermark on 0.4 % of answers: the copy is caught with P(Bin(4200, 0.004) >= 10) = 0.971.
  report = run_repo_scenario(fixture, {"spec.policies.isolation.watermarkFraction=0.004"});
  stolen = report["leakage"]["attacks"][0]["achieved"];
  EXPECT_NEAR(stolen["watermark_detection"].get<double>(), 0.971, 0.001);
  EXPECT_TRUE(stolen["projection"]["recovered"]);  // detection, not prevention
  EXPECT_GT(report["leakage"]["mitigation_costs"]["answers_watermarked"].get<double>(), 0.004 * 4200);
}

TEST(ErasureRule, EveryCopyMustBeInScopeOnTimeAndUnusedAfterwards) {
  // The store alone: the copy in GPU 1's memory is not erased.
  json f = erasure_finding("{data: corpus, at: 10s, completedAfter: 1d, scope: [store]}");
  EXPECT_EQ(f["status"], "fail");
  ASSERT_EQ(f["evidence"].size(), 1u);
  EXPECT_EQ(f["evidence"][0]["resource"], "gpu:1");
  // Store and device memory, within the 30-day deadline: passes (the request and its two copies).
  f = erasure_finding("{data: corpus, at: 10s, completedAfter: 1d, scope: [store, gpu]}");
  EXPECT_EQ(f["status"], "pass") << f.dump();
  EXPECT_EQ(f["checked"], 3);
  // Never completed, or completed after the deadline.
  EXPECT_EQ(erasure_finding("{data: corpus, at: 10s, scope: [store, gpu]}")["status"], "fail");
  EXPECT_EQ(erasure_finding("{data: corpus, at: 10s, completedAfter: 45d, scope: [store, gpu]}")["status"], "fail");
  // Erased at 0.4 s, but the job reads the corpus again afterwards (reads start at 0.45, 0.64 and 0.82 s).
  f = erasure_finding("{data: corpus, at: 0.3s, completedAfter: 0.1s, scope: [store, gpu]}");
  EXPECT_EQ(f["status"], "fail");
  EXPECT_EQ(f["violations"], 3);
  for (const auto& ev : f["evidence"]) EXPECT_GT(ev["time_s"].get<double>(), 0.4);
}

}  // namespace
}  // namespace gtw::test
