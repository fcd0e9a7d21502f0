// Workload runtimes end to end: start-up and I/O overheads land in completion times, and the job's
// slowdown is measured against running alone in the same runtime (docs/models/runtimes.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

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

TEST(RuntimeScenario, ReportNamesTheLayersCoLocatedTenantsShare) {
  TempDir dir;
  const std::string out = dir.file("cc");
  const auto r =
      run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/scenarios/examples/isolation/confidential.yaml",
                   "-o", out, "--progress", "none", "--format", "json,md", "--set", "spec.duration=1m"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  // chat runs in confidential VMs on the CC GPUs, analytics in runc containers on the plain GPUs of
  // the same node: they share the hypervisor and (unencrypted on analytics' side) host memory.
  bool found = false;
  for (const auto& b : report["isolation_boundaries"]) {
    if (b["tenants"] != json::array({"chat", "analytics"}) && b["tenants"] != json::array({"analytics", "chat"}))
      continue;
    found = true;
    EXPECT_EQ(b["shared_layers"], json::array({"hypervisor", "host memory"}));
    EXPECT_FALSE(b["same_gpu"].get<bool>());
  }
  EXPECT_TRUE(found) << report["isolation_boundaries"].dump();
  for (const auto& t : report["tenants"])
    for (const auto& w : t["workloads"]) EXPECT_EQ(w["runtime"], "auto");
  EXPECT_NE(read_text(out + "/report.md").find("## Isolation boundaries"), std::string::npos);
}

TEST(RuntimeScenario, ReconfigurationsAndInstanceLifetimesAreInTheReport) {
  TempDir dir;
  const std::string out = dir.file("mr");
  const auto r =
      run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/scenarios/examples/mig-reconfigure.yaml", "-o",
                   out, "--progress", "none", "--format", "json,md"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  ASSERT_EQ(report["reconfigurations"].size(), 1u);
  const auto& rc = report["reconfigurations"][0];
  EXPECT_EQ(rc["node_pool"], "serve");
  EXPECT_EQ(rc["replicas_evicted"], 2);
  EXPECT_EQ(rc["replicas_replaced"], 2);
  EXPECT_EQ(rc["mig_layout"], json::array({"7g.80gb"}));
  int later = 0;
  for (const auto& g : report["gpus"]) {
    ASSERT_TRUE(g.contains("mig_profile"));
    if (g["layout_generation"] == 1) {
      ++later;
      EXPECT_DOUBLE_EQ(g["available_from_s"].get<double>(), rc["done_s"].get<double>());
    }
  }
  EXPECT_EQ(later, 2);
  EXPECT_EQ(report["tenants"][0]["workloads"][0]["replicas_evicted"], 2);
  EXPECT_NE(read_text(out + "/report.md").find("## MIG reconfigurations"), std::string::npos);
}

}  // namespace
}  // namespace gtw::test
