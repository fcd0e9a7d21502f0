// Workload runtimes end to end: start-up and I/O overheads land in completion times, and the job's
// slowdown is measured against running alone in the same runtime (docs/models/runtimes.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

json run_training(const TempDir& dir, const std::string& runtime) {
  const std::string out = dir.file(runtime);
  const auto r = run_process(
      {GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/training-alone.yaml", "-o", out,
       "--progress", "none", "--format", "json", "--set", "spec.workloads[job].runtime=" + runtime});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(out + "/report.json"))["tenants"][0]["workloads"][0];
}

TEST(RuntimeScenario, KataPaysItsBootAndItsIoPathOnEveryInputBatch) {
  TempDir dir;
  const auto runc = run_training(dir, "runc");
  const auto kata = run_training(dir, "kata");
  // Boot 2 s instead of 50 ms; each of 50 steps copies 512 MiB at 90% of the 35 GB/s PCIe bandwidth.
  const double per_step = 512.0 * 1048576 / 35e9 * (1 / 0.9 - 1);
  EXPECT_NEAR(kata["mean_completion_s"].get<double>() - runc["mean_completion_s"].get<double>(),
              2.0 - 0.05 + 50 * per_step, 1e-4);
  // Alone in its own runtime, neither job is slowed down.
  EXPECT_NEAR(kata["mean_slowdown"].get<double>(), 1.0, 1e-6);
  EXPECT_NEAR(runc["mean_slowdown"].get<double>(), 1.0, 1e-6);
}

TEST(RuntimeScenario, GvisorPaysItsIoctlForwardingPerCopy) {
  TempDir dir;
  const auto runc = run_training(dir, "runc");
  const auto gvisor = run_training(dir, "gvisor");
  // Start-up 150 ms instead of 50 ms, plus 20 us per input copy (one per step on one GPU).
  EXPECT_NEAR(gvisor["mean_completion_s"].get<double>() - runc["mean_completion_s"].get<double>(),
              0.15 - 0.05 + 50 * 20e-6, 1e-5);
}

}  // namespace
}  // namespace gtw::test
