// Co-run interference under MPS against MIG (validation-targets.md V4, alternative target: MPS about
// -30% under memory contention; docs/models/partitions.md, "Interference").
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gtw::test
