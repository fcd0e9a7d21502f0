// Co-run interference under MPS against MIG (validation-targets.md V4, alternative target: MPS about
// -30% under memory contention; docs/models/partitions.md, "Interference").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

// Mean completion time of each tenant's job, in tenant order (alpha, beta).
std::vector<double> completions(const TempDir& dir, const std::string& mode, const std::vector<std::string>& sets) {
  const std::string out = dir.file(mode + std::to_string(sets.size()));
  std::vector<std::string> args{
      GTW_BINARY, "run",      std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/corun-" + mode + ".yaml",
      "-o",       out,        "--progress",
      "none",     "--format", "json"};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const auto r = run_process(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  std::vector<double> out_times;
  for (const auto& t : report["tenants"]) out_times.push_back(t["workloads"][0]["mean_completion_s"].get<double>());
  return out_times;
}

// The complementary pair: alpha made compute-bound next to the memory-bound beta.
const std::vector<std::string> COMPUTE_BOUND_ALPHA{"spec.workloads[alpha-job].step.flops=400TFLOP",
                                                   "spec.workloads[alpha-job].step.bytes=10GB"};

TEST(Interference, MpsUnderMemoryContentionIsAbout30PercentSlowerThanMig) {
  TempDir dir;
  const auto mps = completions(dir, "mps", {});
  const auto mig = completions(dir, "mig", {});
  ASSERT_EQ(mps.size(), 2u);
  ASSERT_EQ(mig.size(), 2u);
  // Both memory-bound: on MIG halves each has half the bandwidth; under MPS they share all of it but
  // thrash the L2. Published: about -30% performance; tolerance +-15% of it (V4): 0.655 .. 0.745.
  for (size_t i = 0; i < 2; ++i) {
    const double throughput_ratio = mig[i] / mps[i];
    EXPECT_GT(throughput_ratio, 0.655) << i;
    EXPECT_LT(throughput_ratio, 0.745) << i;
  }
}

TEST(Interference, MpsLetsAMemoryBoundClientUseTheBandwidthAComputeBoundNeighbourLeaves) {
  TempDir dir;
  const auto mps = completions(dir, "mps", COMPUTE_BOUND_ALPHA);
  const auto mig = completions(dir, "mig", COMPUTE_BOUND_ALPHA);
  // The memory-bound beta gets nearly the whole HBM bandwidth under MPS (alpha's L2 pressure is
  // small) against half of it on a MIG instance; alpha has 66 SMs under MPS against 60 on 3g.40gb.
  EXPECT_LT(mps[1], 0.6 * mig[1]);
  EXPECT_LT(mps[0], mig[0]);
}

// A prediction against a number the model never saw (label validation; docs/validation/partitions.md, P2):
// the MPS-versus-MIG evaluation reports MPS "up to +30 %" performance for co-located jobs. The most
// favourable pair for MPS (one compute-bound job next to one memory-bound job) gives +55 % on average in
// the model: a documented bad row, above the published upper bound (clients capped to half the SMs cannot
// draw the whole HBM bandwidth on real GPUs; the model lets them). The bounds hold the reported error.
TEST(Interference, ComplementaryPairGainUnderMpsIsTheDocumentedBadRow) {
  TempDir dir;
  const auto mps = completions(dir, "mps", COMPUTE_BOUND_ALPHA);
  const auto mig = completions(dir, "mig", COMPUTE_BOUND_ALPHA);
  ASSERT_EQ(mps.size(), 2u);
  const double gain = (mig[0] / mps[0] + mig[1] / mps[1]) / 2 - 1;
  EXPECT_GT(gain, 0.50) << "compute-bound " << mig[0] / mps[0] << "x, memory-bound " << mig[1] / mps[1] << "x";
  EXPECT_LT(gain, 0.60) << "compute-bound " << mig[0] / mps[0] << "x, memory-bound " << mig[1] / mps[1] << "x";
  std::printf("MPS over MIG, complementary pair: predicted %+.1f %% (%.2fx and %.2fx), published up to +30 %%\n",
              100 * gain, mig[0] / mps[0], mig[1] / mps[1]);
}

// Predictions against numbers the model never saw (label validation; docs/validation/partitions.md, T1-T12). Tally's
// artifact (tally-project/tally-bench, tally_results/priority-aware-perf.csv, best_effort_time_slicing_throughput)
// measured six training jobs next to an inference server at half its solo load on one A100 under plain
// time-slicing. The inputs are the artifact's solo numbers (each job's GPU utilisation alone, the server's
// latency); the training's share of its solo throughput is the prediction. The bounds hold the documented
// errors: every row within -10 % .. +25 %, the median of the absolute errors under 15 %.
TEST(Interference, TimeSlicedTrainingKeepsThePublishedShareNextToAnInferenceServer) {
  struct Trainer {
    const char* name;
    double solo_utilisation;
    double next_to_bert, next_to_llama;  // published share of solo throughput
  };
  const Trainer trainers[] = {{"ResNet-50", 0.995, 0.56, 0.50},  {"BERT", 0.980, 0.53, 0.47},
                              {"PointNet", 0.932, 0.56, 0.50},   {"Pegasus-x-base", 0.898, 0.51, 0.47},
                              {"GPT2-large", 0.895, 0.51, 0.47}, {"Whisper-large-v3", 0.500, 0.73, 0.72}};
  // Each server: its arrival rate and kernels (0.5 / solo latency; 88 % resp. 90 % of it on the GPU).
  const std::vector<std::string> bert{"spec.workloads[infer].arrival.rate=123.5/s"};
  const std::vector<std::string> llama{
      "spec.duration=400s", "spec.workloads[infer].arrival.rate=0.2546/s", "spec.workloads[infer].job.kernels=256",
      "spec.workloads[infer].job.flops=1.497TFLOP", "spec.workloads[train].iterations=1000"};
  TempDir dir;
  std::vector<double> errors;
  for (const Trainer& t : trainers) {
    for (const bool with_llama : {false, true}) {
      // Steps of 200 ms of GPU work; the host-to-device copy (25.2 GB/s) leaves the GPU idle the rest.
      const double copy_bytes = 0.2 * (1 / t.solo_utilisation - 1) * 25.2e9;
      std::vector<std::string> sets = with_llama ? llama : bert;
      sets.push_back("spec.workloads[train].step.data=" + std::to_string(static_cast<long long>(copy_bytes)) + "B");
      const std::string out = dir.file(std::string(t.name) + (with_llama ? "-llama" : "-bert"));
      std::vector<std::string> args{
          GTW_BINARY, "run",      std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/corun-timeslicing.yaml",
          "-o",       out,        "--progress",
          "none",     "--format", "json"};
      for (const auto& set : sets) args.insert(args.end(), {"--set", set});
      const auto r = run_process(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const json report = json::parse(read_text(out + "/report.json"));
      double share = 0;
      for (const auto& tenant : report["tenants"])
        for (const auto& w : tenant["workloads"])
          if (w["name"] == "train") share = 1 / w["mean_slowdown"].get<double>();
      const double published = with_llama ? t.next_to_llama : t.next_to_bert;
      const double error = share / published - 1;
      errors.push_back(std::abs(error));
      EXPECT_GT(error, -0.10) << t.name << (with_llama ? " + Llama" : " + BERT");
      EXPECT_LT(error, 0.25) << t.name << (with_llama ? " + Llama" : " + BERT");
      std::printf("%-17s next to %-6s predicted %.3f published %.2f error %+.1f %%\n", t.name,
                  with_llama ? "Llama" : "BERT", share, published, 100 * error);
    }
  }
  std::sort(errors.begin(), errors.end());
  const double median = (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
  EXPECT_LT(median, 0.15) << "median absolute error";
  std::printf("median absolute error %.1f %%, worst %.1f %%\n", 100 * median, 100 * errors.back());
}

}  // namespace
}  // namespace gtw::test
