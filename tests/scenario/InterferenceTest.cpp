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

// Tally's co-location evaluation (ASPLOS 2025; artifact tally-project/tally-bench, tally_results/
// priority-aware-perf.csv, the time_slicing columns): six training jobs next to an inference server at half its
// solo load on one A100 under plain time-slicing. The inputs are the artifact's solo numbers (each job's GPU
// utilisation alone, the server's latency and utilisation); docs/validation/partitions.md, T1-T12 and L1-L24.
struct TallyTrainer {
  const char* name;
  double solo_utilisation;
  double share_bert, share_llama;                   // training throughput as a share of solo
  double avg_bert, p99_bert, avg_llama, p99_llama;  // server latency, ms (not counting queueing)
  double mps_share_bert, mps_share_llama;           // the same share under MPS (best_effort_mps_throughput)
};
const TallyTrainer TALLY_TRAINERS[] = {{"ResNet-50", 0.995, 0.56, 0.50, 10.98, 11.20, 4531, 4549, 0.78, 0.74},
                                       {"BERT", 0.980, 0.53, 0.47, 10.17, 11.21, 4200, 4237, 0.94, 0.92},
                                       {"PointNet", 0.932, 0.56, 0.50, 9.98, 11.16, 4197, 4280, 0.84, 0.80},
                                       {"Pegasus-x-base", 0.898, 0.51, 0.47, 7.80, 11.12, 3413, 3544, 0.90, 0.85},
                                       {"GPT2-large", 0.895, 0.51, 0.47, 7.90, 11.20, 3431, 3505, 0.88, 0.84},
                                       {"Whisper-large-v3", 0.500, 0.73, 0.72, 6.61, 11.17, 3121, 4040, 1.00, 0.99}};

struct CorunPrediction {
  double share = 0;           // the training's throughput next to the server, as a share of solo
  double latency_avg_ms = 0;  // the server's: service time (from its start, as the artifact counts it)
  double latency_p99_ms = 0;  // plus the request's time off the GPU
};

// One pair on the time-sliced A100 (tests/fixtures/scenarios/corun-timeslicing.yaml).
CorunPrediction run_corun(const TempDir& dir, const TallyTrainer& t, bool with_llama, bool mps = false) {
  // Each server: its arrival rate and kernels (0.5 / solo latency; 88 % resp. 90 % of it on the GPU).
  std::vector<std::string> sets = with_llama ? std::vector<std::string>{"spec.duration=400s",
                                                                        "spec.workloads[infer].arrival.rate=0.2546/s",
                                                                        "spec.workloads[infer].job.kernels=256",
                                                                        "spec.workloads[infer].job.flops=1.497TFLOP",
                                                                        "spec.workloads[infer].job.blocks=108",
                                                                        "spec.workloads[train].iterations=1000"}
                                             : std::vector<std::string>{"spec.workloads[infer].arrival.rate=123.5/s"};
  // Steps of 200 ms of GPU work; the host-to-device copy (25.2 GB/s) leaves the GPU idle the rest.
  const double copy_bytes = 0.2 * (1 / t.solo_utilisation - 1) * 25.2e9;
  sets.push_back("spec.workloads[train].step.data=" + std::to_string(static_cast<long long>(copy_bytes)) + "B");
  if (mps)  // the artifact's MPS runs: no thread cap (the device plugin's MPS mode would halve each client)
    sets.insert(sets.end(),
                {"spec.cluster.nodePools[shared].sharing={mode: mps, replicas: 2, activeThreadPercentage: 100}",
                 "spec.workloads[train].memory=10GiB"});
  const std::string out = dir.file(std::string(t.name) + (with_llama ? "-llama" : "-bert") + (mps ? "-mps" : ""));
  std::vector<std::string> args{
      GTW_BINARY, "run",      std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/corun-timeslicing.yaml",
      "-o",       out,        "--progress",
      "none",     "--format", "json,trace"};
  for (const auto& set : sets) args.insert(args.end(), {"--set", set});
  const auto r = run_process(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  CorunPrediction p;
  const json report = json::parse(read_text(out + "/report.json"));
  for (const auto& tenant : report["tenants"])
    for (const auto& w : tenant["workloads"])
      if (w["name"] == "train") p.share = 1 / w["mean_slowdown"].get<double>();
  // The server's jobs in trace.json start when the server takes them up: their duration is the service time.
  std::vector<double> service_ms;
  const json trace = json::parse(read_text(out + "/trace.json"));
  for (const auto& e : trace["traceEvents"])
    if (e.value("cat", "") == "job" && e.value("name", "") == "serving")
      service_ms.push_back(e["dur"].get<double>() / 1e3);
  std::sort(service_ms.begin(), service_ms.end());
  const double off_gpu_ms = with_llama ? 0.1 * 1964 : 4.05 - 3.534;  // solo latency less its GPU time
  double sum = 0;
  for (double d : service_ms) sum += d;
  p.latency_avg_ms = service_ms.empty() ? 0 : sum / static_cast<double>(service_ms.size()) + off_gpu_ms;
  p.latency_p99_ms = service_ms.empty() ? 0 : service_ms[(service_ms.size() - 1) * 99 / 100] + off_gpu_ms;
  return p;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Predictions against numbers the model never saw (label validation). The training's share of its solo
// throughput (T1-T12): every row within -10 % .. +25 %, median absolute error under 15 %. The server's latency
// (L1-L24, average and p99): every row within -30 % .. +15 %, median absolute error under 15 %. The bounds hold
// the documented errors.
TEST(Interference, TimeSlicedTrainingKeepsThePublishedShareNextToAnInferenceServer) {
  TempDir dir;
  std::vector<double> share_errors, latency_errors;
  for (const TallyTrainer& t : TALLY_TRAINERS) {
    for (const bool with_llama : {false, true}) {
      const std::string pair = std::string(t.name) + (with_llama ? " + Llama" : " + BERT");
      const CorunPrediction p = run_corun(dir, t, with_llama);
      const double share_error = p.share / (with_llama ? t.share_llama : t.share_bert) - 1;
      EXPECT_GT(share_error, -0.10) << pair;
      EXPECT_LT(share_error, 0.25) << pair;
      share_errors.push_back(std::abs(share_error));
      const double avg_error = p.latency_avg_ms / (with_llama ? t.avg_llama : t.avg_bert) - 1;
      const double p99_error = p.latency_p99_ms / (with_llama ? t.p99_llama : t.p99_bert) - 1;
      for (const double e : {avg_error, p99_error}) {
        EXPECT_GT(e, -0.30) << pair;
        EXPECT_LT(e, 0.15) << pair;
        latency_errors.push_back(std::abs(e));
      }
      std::printf("%-26s share %.3f (%+.1f %%)  latency avg %.2f ms (%+.1f %%) p99 %.2f ms (%+.1f %%)\n", pair.c_str(),
                  p.share, 100 * share_error, p.latency_avg_ms, 100 * avg_error, p.latency_p99_ms, 100 * p99_error);
    }
  }
  EXPECT_LT(median_of(share_errors), 0.15) << "median absolute error of the shares";
  EXPECT_LT(median_of(latency_errors), 0.15) << "median absolute error of the latencies";
  std::printf("median absolute error: shares %.1f %%, latencies %.1f %%\n", 100 * median_of(share_errors),
              100 * median_of(latency_errors));
}

// The six trainers next to one server under MPS (the artifact's best_effort_mps_throughput): each share's error
// against the published one must lie in (lo, hi); returns the absolute errors.
std::vector<double> mps_share_errors(bool with_llama, double lo, double hi) {
  TempDir dir;
  std::vector<double> errors;
  for (const TallyTrainer& t : TALLY_TRAINERS) {
    const std::string pair = std::string(t.name) + (with_llama ? " + Llama" : " + BERT");
    const CorunPrediction p = run_corun(dir, t, with_llama, true);
    const double error = p.share / (with_llama ? t.mps_share_llama : t.mps_share_bert) - 1;
    EXPECT_GT(error, lo) << pair;
    EXPECT_LT(error, hi) << pair;
    errors.push_back(std::abs(error));
    std::printf("%-26s MPS share %.3f (%+.1f %%)\n", pair.c_str(), p.share, 100 * error);
  }
  std::printf("median absolute error %.1f %%\n", 100 * median_of(errors));
  return errors;
}

// Next to the BERT server (M1-M6): a prediction (label validation). The server's kernels fill 10 of the A100's
// 108 SMs (their grid, derived from BERT-base's GEMM shapes in tests/fixtures/scenarios/corun-timeslicing.yaml), so
// the trainer keeps the rest while a request runs. The bounds hold the documented errors: every share within
// -5 % .. +25 %, median absolute error under 10 %.
TEST(Interference, MpsCoLocationNextToBertFollowsTheServersKernelGrid) {
  EXPECT_LT(median_of(mps_share_errors(false, -0.05, 0.25)), 0.10) << "median absolute error of the shares";
}

// Next to the Llama-2-7B server (M7-M12): a documented bad set. Its decode GEMVs fill every SM, so the model splits
// the SMs evenly between the two clients while a request runs; on the A100 the trainer keeps 0.74-0.99 of its solo
// throughput (a memory-bound GEMV leaves the issue slots of its SMs to the trainer's compute, which the model's SM
// share does not represent). The bounds hold the documented error: every share 15-45 % below the published one.
TEST(Interference, MpsCoLocationNextToLlamaIsTheDocumentedBadSet) {
  mps_share_errors(true, -0.45, -0.15);
}

}  // namespace
}  // namespace gtw::test
