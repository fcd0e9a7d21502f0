// Confidential computing (Hopper SPT): the overhead of a typical LLM inference request must land in
// the published range (below 7%, Zhu et al. arXiv 2409.03992) and shrink for larger models.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

// Mean service time of a request (latency minus queueing): the batch's compute and transfers,
// without the queueing that amplifies any slowdown under load.
double service_time(const TempDir& dir, const std::string& name, const std::vector<std::string>& sets) {
  std::vector<std::string> argv = {
      GTW_BINARY, "run",          std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/cc-inference.yaml",
      "-o",       dir.file(name), "--progress",
      "none",     "--format",     "json"};
  for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
  const auto r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto report = json::parse(read_text(dir.file(name) + "/report.json"));
  const auto& w = report["tenants"][0]["workloads"][0];
  EXPECT_GT(w["latency"]["count"].get<int>(), 100);
  return w["latency"]["mean_s"].get<double>() - w["queueing"]["mean_s"].get<double>();
}

const std::string CC = "spec.cluster.nodePools[0].sharing.mode=confidential";

TEST(Confidential, TypicalLlmRequestOverheadIsInThePublishedRange) {
  TempDir dir;
  const double plain = service_time(dir, "plain", {});
  const double cc = service_time(dir, "cc", {CC});
  const double overhead = cc / plain - 1;
  // Published: below 7% for typical queries (target V3, +-3 percentage points around the
  // measured band); the 8B fp16 case sits at ~5.6% by construction of the per-transfer cost.
  EXPECT_GT(overhead, 0.02) << plain << " -> " << cc;
  EXPECT_LT(overhead, 0.07) << plain << " -> " << cc;
}

TEST(Confidential, OverheadShrinksForLargerModels) {
  TempDir dir;
  // 70B in fp8: a decode step reads 70 GB (27 ms); lighter load so that queueing stays small.
  const std::vector<std::string> big = {"spec.workloads[0].model.parameters=70B", "spec.workloads[0].model.dtype=fp8",
                                        "spec.workloads[0].memory=72GiB", "spec.workloads[0].arrival.rate=0.15/s",
                                        "spec.duration=20m"};
  const double small_plain = service_time(dir, "sp", {});
  const double small_cc = service_time(dir, "sc", {CC});
  auto big_cc_sets = big;
  big_cc_sets.push_back(CC);
  const double big_plain = service_time(dir, "bp", big);
  const double big_cc = service_time(dir, "bc", big_cc_sets);
  const double small_overhead = small_cc / small_plain - 1;
  const double big_overhead = big_cc / big_plain - 1;
  EXPECT_GT(big_overhead, 0.0);
  EXPECT_LT(big_overhead, 0.5 * small_overhead) << "CC overhead tends to 0 for large models (Zhu et al.)";
}

// A prediction from a second source (label validation; docs/validation/confidential.md): Phala's
// documentation reports ~99 % of the non-CC efficiency on H100 CC when GPU compute dominates, for
// Llama 3.1 70B. The bounce-buffer cost was fitted on the 8B case of Zhu et al. (the test above); the 70B
// overhead is what the model predicts from it: 1.4 %, against ~1 % (0.4 percentage points off).
TEST(Confidential, SeventyBillionOverheadMatchesASecondSource) {
  TempDir dir;
  const std::vector<std::string> big = {"spec.workloads[0].model.parameters=70B", "spec.workloads[0].model.dtype=fp8",
                                        "spec.workloads[0].memory=72GiB", "spec.workloads[0].arrival.rate=0.15/s",
                                        "spec.duration=20m"};
  auto cc_sets = big;
  cc_sets.push_back(CC);
  const double plain = service_time(dir, "plain", big);
  const double cc = service_time(dir, "cc", cc_sets);
  const double overhead = cc / plain - 1;
  EXPECT_NEAR(overhead, 0.01, 0.01) << "published ~1 % (Phala, Llama 3.1 70B); predicted " << 100 * overhead << " %";
  std::printf("H100 CC overhead, 70B fp8 request: predicted %.2f %%, published ~1 %% (Phala docs)\n", 100 * overhead);
}

TEST(Confidential, AttestationAndEncryptedWeightLoadingDelayTheFirstRequests) {
  TempDir dir;
  std::vector<std::string> argv = {GTW_BINARY,
                                   "run",
                                   std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/cc-inference.yaml",
                                   "-o",
                                   dir.file("x"),
                                   "--progress",
                                   "none",
                                   "--format",
                                   "json",
                                   "--set",
                                   CC,
                                   "--set",
                                   "spec.workloads[0].arrival.rate=20/s",
                                   "--set",
                                   "spec.duration=20s"};
  ASSERT_EQ(run_process(argv).exit_code, 0);
  const auto report = json::parse(read_text(dir.file("x") + "/report.json"));
  // 5 s confidential-VM boot + 2 s attestation + 16 GB through 4 GB/s bounce buffers = 11 s before the first
  // batch: a request that arrived at once waits that long.
  EXPECT_GT(report["tenants"][0]["workloads"][0]["latency"]["max_s"].get<double>(), 11.0);
}

// Model swapping (V3, Martinez Ibarra et al.): without CC, throughput is 45-70% higher and GPU
// utilisation about 50% higher, because every swap loads the weights through the encrypted bounce
// buffers. Tolerance +-3 percentage points on the throughput band.
TEST(Confidential, ModelSwappingThroughputIs45To70PercentHigherWithoutCc) {
  TempDir dir;
  json reports[2];
  const char* modes[2] = {"exclusive", "confidential"};
  for (int i = 0; i < 2; ++i) {
    const std::string out = dir.file(modes[i]);
    const auto r =
        run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/cc-swapping.yaml",
                     "-o", out, "--progress", "none", "--format", "json", "--set",
                     std::string("spec.cluster.nodePools[0].sharing.mode=") + modes[i]});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    reports[i] = json::parse(read_text(out + "/report.json"));
  }
  const auto completed = [](const json& rep) {
    return rep["tenants"][0]["workloads"][0]["requests"]["completed"].get<double>();
  };
  const double throughput_gain = completed(reports[0]) / completed(reports[1]) - 1;
  EXPECT_GT(throughput_gain, 0.45 - 0.03);
  EXPECT_LT(throughput_gain, 0.70 + 0.03);
  const double utilisation_gain =
      reports[0]["gpus"][0]["utilisation"].get<double>() / reports[1]["gpus"][0]["utilisation"].get<double>() - 1;
  EXPECT_GT(utilisation_gain, 0.35);
  EXPECT_LT(utilisation_gain, 0.75);
}

}  // namespace
}  // namespace gtw::test
