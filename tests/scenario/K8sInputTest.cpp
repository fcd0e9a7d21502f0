// NVIDIA's Kubernetes files read verbatim (tests/fixtures/k8s, real public files; SOURCES.md): the device
// plugin's ConfigMaps (a named config per pool), mig-parted configs bare and inside the GPU Operator's
// ConfigMap (a named config per pool, device-filters by the product's PCI device id, per-device entries).
// Each real file is accepted and simulated, or refused with a located reason (the refusals are fixtures
// of tests/fixtures/malformed, k8s-*.yaml, run by MalformedCatalogueTest).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

const std::string K8S = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/k8s/";

// A scenario with one pool whose fields are `pool` (YAML lines indented by 8) and one optional workload.
std::string scenario(const std::string& pool, const std::string& workload = "") {
  return "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: k8s\nspec:\n  duration: 1m\n"
         "  cluster:\n    nodePools:\n      - name: pool\n        count: 1\n" +
         pool + "  tenants:\n    - name: t\n" + (workload.empty() ? "" : "  workloads:\n" + workload);
}

ProcessResult validate(const TempDir& dir, const std::string& text, const std::vector<std::string>& sets = {}) {
  write_text(dir.file("s.yaml"), text);
  std::vector<std::string> argv{GTW_BINARY, "validate", dir.file("s.yaml")};
  for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
  return run_process(argv);
}

TEST(K8sInput, ShippedExampleRunsWithEachPoolLaidOutAsItsFilesSay) {
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = run_process(
      run_argv(GTW_BINARY, std::string(GTW_SOURCE_DIR) + "/scenarios/examples/k8s/nvidia-configs.yaml", out, "json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  std::map<std::string, std::map<int, std::vector<std::string>>> layout;  // pool -> GPU -> instances or mode
  std::map<std::string, int> slots;
  for (const auto& g : report["gpus"]) {
    const std::string pool = g["pool"];
    const bool mig = g["sharing"] == "mig";
    layout[pool][g["local_index"].get<int>()].push_back(mig ? g["mig_profile"].get<std::string>()
                                                            : g["sharing"].get<std::string>());
    slots[pool] = g["slots"].get<int>();
  }
  using V = std::vector<std::string>;
  // all-balanced of the GPU Operator's ConfigMap: the entry whose device-filter has the H100 SXM's id.
  for (int gpu : {0, 1}) EXPECT_EQ(layout["h100-balanced"][gpu], (V{"1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"}));
  // custom-config of mig-parted's example: per-device entries.
  for (int gpu : {0, 1, 2, 3}) EXPECT_EQ(layout["a100-custom"][gpu], V{"exclusive"}) << gpu;
  EXPECT_EQ(layout["a100-custom"][4], V(7, "1g.5gb"));
  EXPECT_EQ(layout["a100-custom"][5], V(3, "2g.10gb"));
  EXPECT_EQ(layout["a100-custom"][6], V(2, "3g.20gb"));
  EXPECT_EQ(layout["a100-custom"][7], (V{"1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"}));
  EXPECT_EQ(layout["l40s-shared"][0], V{"timeSlicing"});
  EXPECT_EQ(slots["l40s-shared"], 4) << "time-slicing-config-all: replicas 4";
  EXPECT_EQ(layout["h100-mps"][0], V{"mps"});
  EXPECT_EQ(slots["h100-mps"], 2) << "mps-config-fine, config mps-two";
}

// NVIDIA's default all-balanced has an entry for every MIG product the twin profiles, by PCI device id.
TEST(K8sInput, OperatorAllBalancedFitsEveryProfiledMigProduct) {
  TempDir dir;
  const std::string pool =
      "        gpu: H100-80GB-SXM\n        gpusPerNode: 2\n        migConfig:\n          file: " + K8S +
      "gpu-operator-default-mig-parted-config.yaml\n          config: all-balanced\n";
  for (const char* product : {"A100-40GB", "A100-80GB", "A30-24GB", "B200-180GB", "GB200", "GH200-96GB",
                              "H100-80GB-PCIe", "H100-80GB-SXM", "H100-94GB-NVL", "H20-96GB", "H200-141GB"}) {
    const auto r = validate(dir, scenario(pool), {std::string("spec.cluster.nodePools[0].gpu=") + product});
    EXPECT_EQ(r.exit_code, 0) << product << "\n" << r.err;
  }
}

// Every config of mig-parted's example file on the A100-40GB it was written for; all-enabled (MIG on, no
// instance) is refused by the fixture k8s-mig-enabled-without-devices.yaml.
TEST(K8sInput, MigPartedExampleConfigsAreAccepted) {
  TempDir dir;
  const std::string pool =
      "        gpu: A100-40GB\n        gpusPerNode: 8\n        migConfig:\n          file: " + K8S +
      "mig-parted-example-config.yaml\n          config: all-disabled\n";
  for (const char* config :
       {"all-disabled", "all-1g.5gb", "all-2g.10gb", "all-3g.20gb", "all-balanced", "custom-config"}) {
    const auto r = validate(dir, scenario(pool), {std::string("spec.cluster.nodePools[0].migConfig.config=") + config});
    EXPECT_EQ(r.exit_code, 0) << config << "\n" << r.err;
  }
}

TEST(K8sInput, DevicePluginConfigMapsAreAcceptedByName) {
  TempDir dir;
  struct Case {
    const char* file;
    const char* config;  // empty: the ConfigMap's only config
  };
  for (const Case& c : {Case{"device-plugin-time-slicing-config-all.yaml", ""},
                        Case{"device-plugin-time-slicing-config-fine.yaml", "tesla-t4"},
                        Case{"device-plugin-mps-config-fine.yaml", "mps-four"},
                        Case{"device-plugin-mps-config-fine.yaml", "mps-two"}}) {
    const std::string pool =
        "        gpu: H100-80GB-SXM\n        gpusPerNode: 2\n        devicePluginConfig:\n          file: " + K8S +
        c.file + "\n" + (*c.config ? std::string("          config: ") + c.config + "\n" : std::string());
    const auto r = validate(dir, scenario(pool));
    EXPECT_EQ(r.exit_code, 0) << c.file << " " << c.config << "\n" << r.err;
  }
  // A $ref to a ConfigMap with one config reads it too.
  const auto r = validate(dir, scenario("        gpu: H100-80GB-SXM\n        devicePluginConfig: {$ref: " + K8S +
                                        "device-plugin-time-slicing-config-all.yaml}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// failRequestsGreaterThanOne false (the default): a 2-GPU replica may land on the shared pool, with a
// located warning that N replicas of one GPU give no more compute than one.
TEST(K8sInput, RequestsForSeveralSharedGpusAreWarnedAbout) {
  TempDir dir;
  const std::string pool =
      "        gpu: H100-80GB-SXM\n        gpusPerNode: 2\n        devicePluginConfig:\n          file: " + K8S +
      "device-plugin-time-slicing-config-all.yaml\n";
  const std::string job =
      "    - name: finetune\n      kind: training\n      tenant: t\n      gpus: 2\n      memory: 10GiB\n"
      "      iterations: 10\n      step:\n        flops: 10TFLOP\n        bytes: 10GB\n";
  const auto r = validate(dir, scenario(pool, job));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("s.yaml:21:13: warning: spec.workloads[0].gpus: asks 2 nvidia.com/gpu per replica and may run "
                       "on pool 'pool'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("which give no more compute than one"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gtw::test
