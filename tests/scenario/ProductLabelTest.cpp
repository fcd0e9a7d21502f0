// End-to-end: a node pool may name its GPU as GPU feature discovery labels the node
// (nvidia.com/gpu.product), and the run is the run of that product's profile.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

json report_with_gpu(const TempDir& dir, const std::string& name, const std::string& gpu) {
  const std::string scenario = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/two-tenants.yaml";
  const auto r =
      run_process(run_argv(GTW_BINARY, scenario, dir.file(name), "json", {"spec.cluster.nodePools[0].gpu=" + gpu}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto report = json::parse(read_text(dir.file(name) + "/report.json"));
  report.erase("provenance");
  return report;
}

TEST(ProductLabel, AFeatureDiscoveryProductNameRunsAsItsProfile) {
  TempDir dir;
  const json by_profile = report_with_gpu(dir, "profile", "H100-80GB-SXM");
  const json by_label = report_with_gpu(dir, "label", "NVIDIA-H100-80GB-HBM3");
  for (const auto& g : by_label["gpus"]) EXPECT_EQ(g["product"], "H100-80GB-SXM");
  EXPECT_EQ(by_label.dump(), by_profile.dump());
}

TEST(ProductLabel, AProductWithoutAProfileIsRefusedAtItsLineWithTheNames) {
  TempDir dir;
  const std::string scenario = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/two-tenants.yaml";
  const auto r = run_process(
      run_argv(GTW_BINARY, scenario, dir.file("x"), "json", {"spec.cluster.nodePools[0].gpu=NVIDIA-A100-PCIE-40GB"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nor one for that product name"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nodePools[0].gpu"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gtw::test
