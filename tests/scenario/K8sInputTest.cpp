// NVIDIA's Kubernetes files read verbatim (tests/fixtures/k8s, real public files; SOURCES.md): the device
// plugin's ConfigMaps (a named config per pool), mig-parted configs bare and inside the GPU Operator's
// ConfigMap (a named config per pool, device-filters by the product's PCI device id, per-device entries).
// Each real file is accepted and simulated, or refused with a located reason (the refusals are fixtures
// of tests/fixtures/malformed, k8s-*.yaml, run by MalformedCatalogueTest). Kueue queues as tenants' quotas
// and OpenSLO documents as their SLOs (docs/scenario.md, "Kueue quotas" and "OpenSLO SLOs") too.
#include <gtest/gtest.h>

#include <filesystem>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "Setup.hpp"
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
  // time-slicing-config-fine's a100-40gb over all-balanced: each instance shared as its resource says; the three
  // chat-sliced replicas share the one 3g.20gb instance.
  std::map<std::string, std::pair<int, std::string>> sliced;  // profile -> (slots, resource)
  for (const auto& g : report["gpus"])
    if (g["pool"] == "a100-sliced") {
      EXPECT_EQ(g["sharing"], "timeSlicing") << g;
      sliced[g["mig_profile"]] = {g["slots"].get<int>(), g["k8s_resource"].get<std::string>()};
      if (g["mig_profile"] == "3g.20gb") {
        EXPECT_EQ(g["tenants"], json::array({"chat"}));
      }
    }
  EXPECT_EQ(sliced, (std::map<std::string, std::pair<int, std::string>>{{"1g.5gb", {2, "nvidia.com/mig-1g.5gb"}},
                                                                        {"2g.10gb", {2, "nvidia.com/mig-2g.10gb"}},
                                                                        {"3g.20gb", {3, "nvidia.com/mig-3g.20gb"}}}));
  EXPECT_NE(r.err.find("no GPU of the pool has a '7g.40gb' instance"), std::string::npos) << r.err;
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

// Every config of NVIDIA's default mig-parted file for every MIG product the twin profiles (in-process: 68
// configs x 11 products). A config either lays the product out, or is refused for a reason that says the
// config is not the product's: its device filters name other products ("lays out no GPU"), it names
// profiles the product has not ("unknown MIG profile", configs without filters meant for another
// product), or it enables MIG with no devices (all-enabled). Each product is laid out by some configs.
TEST(K8sInput, OperatorDefaultMigConfigsLayOutEveryProductTheyName) {
  TempDir dir;
  const std::string file = K8S + "gpu-operator-default-mig-parted-config.yaml";
  write_text(dir.file("s.yaml"), scenario("        gpu: H100-80GB-SXM\n        gpusPerNode: 2\n        migConfig:\n"
                                          "          file: " +
                                          file + "\n          config: all-balanced\n"));
  const YAML::Node configs = YAML::Load(YAML::LoadFile(file)["data"]["config.yaml"].as<std::string>())["mig-configs"];
  ASSERT_TRUE(configs.IsMap());
  std::map<std::string, int> laid_out;
  for (const auto& c : configs) {
    const std::string config = c.first.as<std::string>();
    for (const char* product : {"A100-40GB", "A100-80GB", "A30-24GB", "B200-180GB", "GB200", "GH200-96GB",
                                "H100-80GB-PCIe", "H100-80GB-SXM", "H100-94GB-NVL", "H20-96GB", "H200-141GB"}) {
      Diagnostics diags;
      prepare_scenario(dir.file("s.yaml"),
                       {*parse_override("spec.cluster.nodePools[0].migConfig.config=" + config),
                        *parse_override(std::string("spec.cluster.nodePools[0].gpu=") + product)},
                       diags);
      if (!diags.has_errors()) {
        ++laid_out[product];
        continue;
      }
      const std::string text = diags.format_all();
      const bool not_its_config = text.find("lays out no GPU") != std::string::npos ||
                                  text.find("unknown MIG profile") != std::string::npos ||
                                  text.find("mig-enabled with no MIG devices") != std::string::npos;
      EXPECT_TRUE(not_its_config) << config << " on " << product << ":\n" << text;
    }
  }
  for (const auto& [product, n] : laid_out) EXPECT_GE(n, 7) << product;
  EXPECT_EQ(laid_out.size(), 11u);
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

// The files these fields name go through the project's input reader: what is not a regular file, or no
// file name at all, is refused at the field, for every new kind of file reference.
TEST(K8sInput, FileFieldsRefuseWhatIsNotARegularFile) {
  TempDir dir;
  std::filesystem::create_directory(dir.file("a-directory"));
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"        gpu: H100-80GB-SXM\n        devicePluginConfig:\n          file: ", "devicePluginConfig.file"},
      {"        gpu: H100-80GB-SXM\n        migConfig:\n          config: all-balanced\n          file: ",
       "migConfig.file"}};
  for (const auto& [pool, field] : fields)
    for (const std::string& target : {std::string("/dev/zero"), dir.file("a-directory"), std::string("\"\"")}) {
      const auto r = validate(dir, scenario(pool + target + "\n"));
      EXPECT_EQ(r.exit_code, 2) << field << " = " << target << "\n" << r.err;
      EXPECT_NE(r.err.find("s.yaml:"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(field), std::string::npos) << field << " = " << target << "\n" << r.err;
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

// The API's NodeList (GET /api/v1/nodes, as client libraries save it) has items without their kind.
TEST(K8sInput, ANodeListFromTheApiDescribesThePool) {
  TempDir dir;
  write_text(dir.file("nodes.json"),
             R"({"kind": "NodeList", "apiVersion": "v1", "metadata": {"resourceVersion": "4711"}, "items": [
  {"metadata": {"name": "cpu-0", "labels": {"kubernetes.io/os": "linux"}}},
  {"metadata": {"name": "gpu-0", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
    "nvidia.com/gpu.count": "4", "topology.kubernetes.io/region": "eu-west"}}}]})");
  auto r = validate(dir, scenario("        fromNode: {file: " + dir.file("nodes.json") + ", name: gpu-0}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = validate(dir, scenario("        fromNode: {file: " + dir.file("nodes.json") + ", name: gpu-1}\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no Node named 'gpu-1'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gpu-0"), std::string::npos) << r.err;
}

// A Kubernetes Node (or the bare map of its labels) describes a pool: the product, GPU count and region
// from its GPU feature discovery and topology labels; a pool value that disagrees is an error at it; the
// labelled memory is checked against the profile; config-selecting labels are named, not applied.
TEST(K8sInput, NodeLabelsDescribeThePool) {
  TempDir dir;
  const std::string nodes = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/gpu-nodes.yaml";
  // The real label map of an H100 node (mig.strategy mixed, mig.config all-balanced).
  auto r = validate(dir, scenario("        fromNode: {file: " + K8S + "gfd-node-labels-h100-mig-mixed.json}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("nvidia.com/mig.config=all-balanced is not applied from the Node: give the pool migConfig: "
                       "{file, config: all-balanced}"),
            std::string::npos)
      << r.err;
  // A Node of a List by name: 8 x H100 in eu-west; a run places an 8-GPU job on one node.
  const std::string job =
      "    - {name: j, kind: training, tenant: t, gpus: 8, memory: 10GiB, iterations: 1, step: {flops: 1TFLOP}}\n";
  r = validate(dir, scenario("        fromNode: {file: " + nodes + ", name: gpu-h100-0}\n", job));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  // The pool says otherwise: located errors naming both values. The product is compared as the profile it
  // names (the profile's own name and the label's product name agree).
  r = validate(dir,
               scenario("        gpu: H100-80GB-SXM\n        fromNode: {file: " + nodes + ", name: gpu-h100-0}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = validate(dir, scenario("        gpu: A100-80GB\n        fromNode: {file: " + nodes + ", name: gpu-h100-0}\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gpu is 'A100-80GB', but the Node's label nvidia.com/gpu.product says 'NVIDIA-H100-80GB-HBM3'"),
            std::string::npos)
      << r.err;
  r = validate(dir, scenario("        gpusPerNode: 4\n        region: us-east\n"
                             "        fromNode: {file: " +
                             nodes + ", name: gpu-h100-0}\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gpusPerNode is '4', but the Node's label nvidia.com/gpu.count says '8'"), std::string::npos);
  EXPECT_NE(r.err.find("region is 'us-east', but the Node's label topology.kubernetes.io/region says 'eu-west'"),
            std::string::npos);
  // 40960 MiB labelled on an 80 GB product: a warning; the device plugin config label is named.
  r = validate(dir, scenario("        fromNode: {file: " + nodes + ", name: gpu-a100-0}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the Node's GPUs have 40960 MiB, the profile A100-80GB 76294 MiB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvidia.com/device-plugin.config=a100-shared is not applied"), std::string::npos) << r.err;
  // The real H100 node runs MIG (strategy mixed); a pool with no MIG layout is warned about, a MIG one is not.
  r = validate(dir, scenario("        fromNode: {file: " + K8S + "gfd-node-labels-h100-mig-mixed.json}\n"));
  EXPECT_NE(r.err.find("the Node runs MIG (mig.strategy mixed), but pool 'pool' lays out no MIG instance"),
            std::string::npos)
      << r.err;
  r = validate(dir, scenario("        fromNode: {file: " + K8S +
                             "gfd-node-labels-h100-mig-mixed.json}\n"
                             "        sharing: {mode: mig, migLayout: [3g.40gb, 3g.40gb]}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("mig.strategy"), std::string::npos) << r.err;
  // Two Nodes and no name; a name that is not there.
  r = validate(dir, scenario("        fromNode: {file: " + nodes + "}\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("holds 2 Nodes: name one; valid values: gpu-h100-0, gpu-a100-0"), std::string::npos) << r.err;
  r = validate(dir, scenario("        fromNode: {file: " + nodes + ", name: gpu-h100-1}\n"));
  EXPECT_NE(r.err.find("no Node named 'gpu-h100-1'"), std::string::npos) << r.err;
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

// A scenario with one 8-GPU pool named `pool_name`, tenant `web` (its fields: `web`, YAML lines indented by 6)
// with an inference workload `search`, and tenant `other` (its fields: `other`).
std::string tenants_scenario(const std::string& web, const std::string& other = "",
                             const std::string& pool_name = "tas-group") {
  return "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: k8s\nspec:\n  duration: 1m\n"
         "  cluster:\n    nodePools:\n      - name: " +
         pool_name +
         "\n        count: 1\n        gpu: H100-80GB-SXM\n        gpusPerNode: 8\n"
         "  tenants:\n    - name: web\n" +
         web + "    - name: other\n" + other +
         "  workloads:\n    - name: search\n      kind: inference\n      tenant: web\n      model:\n"
         "        parameters: 1B\n      arrival:\n        process: poisson\n        rate: 2/s\n";
}

std::string openslo_item(const std::string& fields) {
  return "      slos:\n        - openslo: {" + fields + "}\n";
}

std::string kueue_quota(const std::string& fields) {
  return "      quota:\n        kueue: {" + fields + "}\n";
}

TEST(K8sInput, ShippedKueueOpenSloExampleTakesItsQuotaAndSlosFromTheFiles) {
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = run_process(
      run_argv(GTW_BINARY, std::string(GTW_SOURCE_DIR) + "/scenarios/examples/k8s/kueue-openslo.yaml", out, "json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  // tas-cluster-queue: nvidia.com/gpu nominalQuota 16, no borrowingLimit.
  ASSERT_EQ(report["quotas"].size(), 1u);
  EXPECT_EQ(report["quotas"][0]["tenant"], "web");
  EXPECT_EQ(report["quotas"][0]["nominal_gpus"], 16);
  EXPECT_TRUE(report["quotas"][0]["borrowing_limit"].is_null());
  // The flavor's nodeLabels (cloud.provider.com/node-group: tas-group) put web's replicas on that pool.
  std::map<int, std::string> pool_of;
  for (const auto& g : report["gpus"]) pool_of[g["index"].get<int>()] = g["pool"];
  for (const auto& p : report["placements"]) {
    if (p["tenant"] == "web") {
      EXPECT_EQ(pool_of[p["gpu"].get<int>()], "tas-group") << p.dump();
    }
  }
  std::map<std::string, json> slos;
  for (const auto& t : report["tenants"])
    if (t["name"] == "web")
      for (const auto& s : t["slos"]) slos[s["name"]] = s;
  ASSERT_EQ(slos.size(), 7u);
  // OpenSLO's RatioTimeslices example: the mean of the one-minute slices' served shares against 0.99.
  EXPECT_EQ(slos["main-page"]["kind"], "availability");
  EXPECT_NE(slos["main-page"]["objective"].get<std::string>().find("mean share"), std::string::npos);
  EXPECT_DOUBLE_EQ(slos["main-page"]["target"].get<double>(), 0.99);
  // OpenSLO's threshold example: Occurrences, lt 500 (ms), target 0.99: p99 under 0.5 s over the whole run.
  EXPECT_EQ(slos["search-slo"]["kind"], "latency");
  EXPECT_DOUBLE_EQ(slos["search-slo"]["threshold"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(slos["search-slo"]["target"].get<double>(), 1.0);
  EXPECT_EQ(slos["search-slo"]["evaluated"], 1) << "one window spanning the run";
  EXPECT_NE(slos["search-slo"]["objective"].get<std::string>().find("p99"), std::string::npos);
  // The calendar example's two objectives: 1-minute slices, 99% served in each, targets 0.995 and 0.99.
  EXPECT_DOUBLE_EQ(slos["service-availability-1"]["threshold"].get<double>(), 0.99);
  EXPECT_DOUBLE_EQ(slos["service-availability-1"]["target"].get<double>(), 0.995);
  EXPECT_DOUBLE_EQ(slos["service-availability-2"]["target"].get<double>(), 0.99);
  EXPECT_EQ(slos["service-availability-1"]["evaluated"], 2) << "two 1-minute slices in the 2-minute run";
  EXPECT_DOUBLE_EQ(slos["web-availability"]["threshold"].get<double>(), 0.95);
  EXPECT_EQ(slos["web-availability"]["workload"], "chat");
  // Over the twin's own metrics: a Prometheus query over the p99 series, a gputwin ratio.
  EXPECT_DOUBLE_EQ(slos["chat-p99"]["threshold"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(slos["chat-p99"]["target"].get<double>(), 0.9);
  EXPECT_EQ(slos["chat-p99"]["workload"], "chat");
  EXPECT_EQ(slos["chat-served"]["kind"], "availability");
  EXPECT_DOUBLE_EQ(slos["chat-served"]["threshold"].get<double>(), 0.999);
  // What is not simulated is named, with its location.
  for (const char* w :
       {"kueue-tas-gpu-queues.yaml:1:1: warning: Topology[default]",
        "kueue-tas-gpu-queues.yaml:31:3: warning: ClusterQueue[tas-cluster-queue].spec.resourceGroups: "
        "quotas of cpu, memory are ignored",
        "openslo-slo-threshold-occurrences.yaml:17:17: warning: ", "metricSource type 'Any' is not queried",
        "openslo-slo-threshold-occurrences.yaml:21:17: warning: ",
        "the OpenSLO timeWindow (2w) is longer than the run"})
    EXPECT_NE(r.err.find(w), std::string::npos) << w << "\n" << r.err;
}

// Every real OpenSLO file: refused at its metricSource when nothing maps it to a twin metric, and accepted
// (or refused with its located reason) once the scenario says what it measures.
TEST(K8sInput, OpenSloFixturesAreMappedOrRefusedWhereTheyCannotBe) {
  TempDir dir;
  struct Case {
    const char* file;
    const char* refused_at;  // without a mapping: the metricSource type
    const char* metric;
    const char* mapped;  // with `metric`: "" accepted, else the located refusal
  };
  for (const Case& c :
       {Case{"openslo-slo-threshold-occurrences.yaml",
             "openslo-slo-threshold-occurrences.yaml:17:17: error: ", "latency", ""},
        Case{"openslo-slo-ratio-timeslices-calendar.yaml",
             "openslo-slo-ratio-timeslices-calendar.yaml:18:19: error: ", "availability", ""},
        Case{"openslo-list-slo-ratio-prometheus-services.yaml",
             "openslo-list-slo-ratio-prometheus-services.yaml:23:21: error: ", "availability", ""},
        Case{"openslo-slo-ratio-ratiotimeslices.yaml",
             "openslo-slo-ratio-ratiotimeslices.yaml:18:19: error: ", "availability", ""},
        Case{"openslo-multi-slo-indicatorref-sli-threshold.yaml",
             "openslo-multi-slo-indicatorref-sli-threshold.yaml:31:13: error: SLI[foo-sli]", "throughput",
             "openslo-multi-slo-indicatorref-sli-threshold.yaml:16:7: error: SLO[foo-slo].spec.objectives[0]: "
             "throughput is measured over a window"}}) {
    const std::string file = "file: " + K8S + c.file;
    auto r = validate(dir, tenants_scenario(openslo_item(file)));
    EXPECT_EQ(r.exit_code, 2) << c.file << "\n" << r.err;
    EXPECT_NE(r.err.find(c.refused_at), std::string::npos) << c.file << "\n" << r.err;
    r = validate(dir, tenants_scenario(openslo_item(file + ", metric: " + c.metric + ", unit: ms")));
    if (*c.mapped) {
      EXPECT_EQ(r.exit_code, 2) << c.file << "\n" << r.err;
      EXPECT_NE(r.err.find(c.mapped), std::string::npos) << c.file << "\n" << r.err;
    } else {
      EXPECT_EQ(r.exit_code, 0) << c.file << "\n" << r.err;
    }
  }
}

// OpenSLO's RatioTimeslices example over an overloaded service that drops requests in some minutes: the SLO's
// compliance is the mean of the one-minute windows' served shares (not the share of windows above a floor),
// met when it reaches the target 0.99; the windows below the target are marked.
TEST(K8sInput, RatioTimeslicesIsTheMeanOfTheWindowsServedShares) {
  TempDir dir;
  const std::string slo = "file: " + K8S + "openslo-slo-ratio-ratiotimeslices.yaml, metric: availability";
  std::string text = tenants_scenario(openslo_item(slo));
  // Bursts far above one replica's rate, with a queue of 4: drops during bursts only.
  const std::string poisson = "        process: poisson\n        rate: 2/s\n";
  ASSERT_NE(text.find(poisson), std::string::npos);
  text.replace(text.find(poisson), poisson.size(),
               "        process: bursty\n        rate: 2/s\n        burstRate: 400/s\n        meanBurst: 5s\n"
               "        meanGap: 40s\n      maxQueue: 4\n");
  text.replace(text.find("duration: 1m"), 12, "duration: 10m");
  write_text(dir.file("s.yaml"), text);
  const auto r = run_process(run_argv(GTW_BINARY, dir.file("s.yaml"), dir.file("out"), "json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(dir.file("out") + "/report.json"));
  const json& s = report["tenants"][0]["slos"][0];
  EXPECT_EQ(s["kind"], "availability");
  EXPECT_NE(s["objective"].get<std::string>().find("mean share of served requests"), std::string::npos) << s;
  double sum = 0;
  size_t below = 0, partial = 0;
  for (const auto& w : s["windows"]) {
    const double v = w["value"];
    sum += v;
    below += v < 0.99;
    partial += v > 0 && v < 1;
    EXPECT_EQ(w["violated"].get<bool>(), v < 0.99);
  }
  const size_t n = s["windows"].size();
  ASSERT_GT(n, 5u);
  ASSERT_GT(partial, 0u) << "the load must drop part of some windows' requests";
  EXPECT_EQ(s["evaluated"], n);
  EXPECT_EQ(s["violated"], below);
  EXPECT_NEAR(s["compliance"].get<double>(), sum / static_cast<double>(n), 1e-12);
  EXPECT_NE(s["compliance"].get<double>(), 1.0 - static_cast<double>(below) / static_cast<double>(n));
  EXPECT_EQ(s["met"].get<bool>(), s["compliance"].get<double>() >= 0.99);
  EXPECT_NEAR(s["error_budget_burn"].get<double>(), (1 - s["compliance"].get<double>()) / 0.01, 1e-9);
  // The explanation judges the mean share, not the windows one by one.
  EXPECT_EQ(s["explanation"].get<std::string>().rfind("the mean served share over the windows, ", 0), 0u)
      << s["explanation"];

  // A threshold indicator has no share to average: refused at the objective, with the reason.
  write_text(dir.file("threshold.yaml"),
             "apiVersion: openslo/v1\nkind: SLO\nmetadata: {name: p99}\nspec:\n  service: web\n"
             "  indicator:\n    metadata: {name: lat}\n    spec:\n      thresholdMetric:\n        metricSource:\n"
             "          type: gputwin\n          spec: {metric: latency, percentile: 99}\n"
             "  budgetingMethod: RatioTimeslices\n  objectives:\n    - {op: lt, value: 2, target: 0.9, "
             "timeSliceWindow: 1m}\n");
  const auto refused = validate(dir, tenants_scenario(openslo_item("file: " + dir.file("threshold.yaml"))));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("threshold.yaml:15:7: error: SLO[p99].spec.objectives[0]: RatioTimeslices averages the "
                             "good/total share of each slice: it needs a ratioMetric indicator of served requests; "
                             "this one is a thresholdMetric (the twin's latency)"),
            std::string::npos)
      << refused.err;
}

// Every real Kueue file, as a tenant's quota: only the GPU sample has an nvidia.com/gpu quota.
TEST(K8sInput, KueueFixturesGiveAQuotaOrAreRefusedWithTheirReason) {
  TempDir dir;
  struct Case {
    const char* fields;
    const char* expect;  // "": accepted
  };
  for (const Case& c :
       {Case{"kueue-tas-gpu-queues.yaml, localQueue: tas-user-queue", ""},
        Case{"kueue-tas-gpu-queues.yaml, namespace: default", ""},
        Case{"kueue-tas-gpu-queues.yaml, clusterQueue: tas-cluster-queue", ""},
        Case{"kueue-tas-gpu-queues.yaml",
             "s.yaml:16:16: error: spec.tenants[0].quota.kueue: no LocalQueue in "
             "namespace 'web'"},
        Case{"kueue-single-clusterqueue-setup.yaml, localQueue: user-queue",
             "kueue-single-clusterqueue-setup.yaml:13:3: error: ClusterQueue[cluster-queue].spec.resourceGroups: "
             "ClusterQueue 'cluster-queue' has no device quota"},
        Case{"kueue-cohort-borrowing-limit-setup.yaml, namespace: default",
             "the LocalQueues in namespace 'default' lead to 2 ClusterQueues"},
        Case{"kueue-cohort-borrowing-limit-setup.yaml, localQueue: user-queue-1",
             "kueue-cohort-borrowing-limit-setup.yaml:14:3: error: ClusterQueue[cluster-queue-1].spec.resourceGroups: "
             "ClusterQueue 'cluster-queue-1' has no device quota"},
        Case{"kueue-resource-flavor-taints.yaml, clusterQueue: spot", "no ClusterQueue named 'spot'"}}) {
    const auto r = validate(dir, tenants_scenario(kueue_quota(std::string("file: ") + K8S + c.fields)));
    if (*c.expect) {
      EXPECT_EQ(r.exit_code, 2) << c.fields << "\n" << r.err;
      EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.fields << "\n" << r.err;
    } else {
      EXPECT_EQ(r.exit_code, 0) << c.fields << "\n" << r.err;
    }
  }
  // The cohort sample's CPU quota with borrowingLimit is named in the warning, not read.
  const auto r = validate(dir, tenants_scenario(kueue_quota("file: " + K8S +
                                                            "kueue-cohort-borrowing-limit-setup.yaml, "
                                                            "localQueue: user-queue-2")));
  EXPECT_EQ(r.err.find("preemption"), std::string::npos) << "Kueue's default (reclaimWithinCohort: Never) is honoured\n"
                                                         << r.err;
  EXPECT_NE(r.err.find("quotas of cpu, memory are ignored"), std::string::npos) << r.err;
}

// Two tenants whose ClusterQueues share a cohort borrow from each other as the quota model says; the
// numbers are the files'.
TEST(K8sInput, KueueCohortQueuesBecomeTheTenantsQuotas) {
  TempDir dir;
  write_text(dir.file("kueue.yaml"),
             "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: h100\nspec:\n"
             "  nodeLabels:\n    pool: tas-group\n---\n"
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: web-cq\nspec:\n"
             "  cohortName: gpus\n  preemption:\n    reclaimWithinCohort: Any\n  resourceGroups:\n"
             "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: h100\n      resources:\n"
             "      - name: nvidia.com/gpu\n        nominalQuota: 4\n        borrowingLimit: 2\n---\n"
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: other-cq\nspec:\n"
             "  cohortName: gpus\n  preemption:\n    reclaimWithinCohort: Any\n  resourceGroups:\n"
             "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: h100\n      resources:\n"
             "      - name: nvidia.com/gpu\n        nominalQuota: \"4\"\n---\n"
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  namespace: web\n  name: q\nspec:\n"
             "  clusterQueue: web-cq\n");
  const std::string text =
      tenants_scenario(kueue_quota("file: kueue.yaml"), kueue_quota("file: kueue.yaml, clusterQueue: other-cq"));
  write_text(dir.file("s.yaml"), text);
  const std::string out = dir.file("out");
  const auto r = run_process(run_argv(GTW_BINARY, dir.file("s.yaml"), out, "json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  std::map<std::string, json> quotas;
  for (const auto& q : report["quotas"]) quotas[q["tenant"]] = q;
  EXPECT_EQ(quotas["web"]["nominal_gpus"], 4);
  EXPECT_EQ(quotas["web"]["borrowing_limit"], 2);
  EXPECT_EQ(quotas["other"]["nominal_gpus"], 4);
  EXPECT_TRUE(quotas["other"]["borrowing_limit"].is_null());
  // A flavor labelled with the GFD product name selects the pool whose gpu is written as that product.
  {
    std::string k = read_text(dir.file("kueue.yaml"));
    k.replace(k.find("pool: tas-group"), 15, "nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3");
    write_text(dir.file("kueue-product.yaml"), k);
  }
  std::string product_text = text;
  for (size_t at = product_text.find("kueue.yaml"); at != std::string::npos;
       at = product_text.find("kueue.yaml", at + 18))
    product_text.replace(at, 10, "kueue-product.yaml");
  product_text.replace(product_text.find("gpu: H100-80GB-SXM"), 18, "gpu: NVIDIA-H100-80GB-HBM3");
  const auto product = validate(dir, product_text);
  EXPECT_EQ(product.exit_code, 0) << product.err;
  // A workload asking another pool than the flavor's is refused.
  const auto bad = validate(dir, text + "      placement:\n        nodePool: elsewhere\n");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("its tenant's Kueue flavor selects pool 'tas-group'"), std::string::npos) << bad.err;
}

// Hierarchical cohorts (Kueue Cohort objects): web's ClusterQueue is in team-a, under org, whose own quota of 2
// GPUs its subtree shares; other's ClusterQueue is in team-b, a plain cohort of its own (no Cohort object, no
// parent), so web cannot borrow other's quota. What web can hold at most is its 4 plus org's 2.
TEST(K8sInput, KueueCohortTreesGiveWhatEachQueueMayBorrow) {
  TempDir dir;
  const std::string cq =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: NAME\nspec:\n"
      "  cohort: COHORT\n  preemption:\n    reclaimWithinCohort: Any\n  resourceGroups:\n"
      "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: h100\n      resources:\n"
      "      - name: nvidia.com/gpu\n        nominalQuota: 4\n---\n";
  const auto queue = [&](const std::string& name, const std::string& cohort) {
    std::string q = cq;
    q.replace(q.find("NAME"), 4, name);
    q.replace(q.find("COHORT"), 6, cohort);
    return q;
  };
  write_text(dir.file("kueue.yaml"),
             "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: h100\n---\n" +
                 queue("web-cq", "team-a") + queue("other-cq", "team-b") +
                 "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata:\n  name: team-a\nspec:\n  parent: org\n"
                 "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata:\n  name: org\nspec:\n"
                 "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu, cpu]\n    flavors:\n    - name: h100\n"
                 "      resources:\n      - name: nvidia.com/gpu\n        nominalQuota: 2\n      - name: cpu\n"
                 "        nominalQuota: 64\n");
  const auto with_replicas = [&](int replicas) {
    std::string text = tenants_scenario(kueue_quota("file: kueue.yaml, clusterQueue: web-cq"),
                                        kueue_quota("file: kueue.yaml, clusterQueue: other-cq"));
    text += "      replicas: " + std::to_string(replicas) + "\n";
    return text;
  };
  auto r = validate(dir, with_replicas(6));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = validate(dir, with_replicas(7));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs 7 GPUs at once, but tenant 'web' can hold at most 6 with nothing else in use "
                       "(quota 4, the rest borrowed from its cohorts)"),
            std::string::npos)
      << r.err;
  const std::string tree = read_text(dir.file("kueue.yaml"));
  // The rest of the tree lends too: a sibling cohort of team-a with a quota of its own (3, under org, no
  // tenant's queue in it) and a ClusterQueue of team-a that no tenant has (4): 6 + 3 + 4.
  std::string wider = tree +
                      "---\napiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\nmetadata:\n  name: spare\n"
                      "spec:\n  parentName: org\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n"
                      "    flavors:\n    - name: h100\n      resources:\n      - name: nvidia.com/gpu\n"
                      "        nominalQuota: 3\n        lendingLimit: 3\n---\n" +
                      queue("idle-cq", "team-a");
  write_text(dir.file("kueue.yaml"), wider);
  r = validate(dir, with_replicas(13));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = validate(dir, with_replicas(14));
  EXPECT_NE(r.err.find("can hold at most 13 with nothing else in use"), std::string::npos) << r.err;
  // A parent cycle is refused once, where it closes, with the ring of cohorts.
  std::string cyclic = tree;
  cyclic.replace(cyclic.find("name: org\nspec:\n"), 16, "name: org\nspec:\n  parent: team-a\n");
  write_text(dir.file("kueue.yaml"), cyclic);
  r = validate(dir, with_replicas(1));
  EXPECT_EQ(r.exit_code, 2);
  const std::string ring = "form a cycle of parents (team-a -> org -> team-a)";
  ASSERT_NE(r.err.find(ring), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(ring, r.err.find(ring) + 1), std::string::npos) << "reported once: " << r.err;
  EXPECT_NE(r.err.find("\n1 error(s)"), std::string::npos) << "and counted once: " << r.err;
}

// Kueue's Configuration read verbatim: Kueue's own manager configuration (fairSharing commented out) leaves fair
// sharing off without a warning (its other settings are the manager's own); one that turns it on, from a tenant's
// Kueue file, makes the ClusterQueues' weights count, as Kubernetes quantities.
TEST(K8sInput, KueueConfigurationTurnsFairSharingOnWithTheQueuesWeights) {
  TempDir dir;
  const std::string verbatim =
      tenants_scenario(kueue_quota("file: " + K8S + "kueue-tas-gpu-queues.yaml, clusterQueue: tas-cluster-queue")) +
      "  kueueConfiguration:\n    file: " + K8S + "kueue-controller-manager-config.yaml\n";
  auto r = validate(dir, verbatim);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("kueue-controller-manager-config.yaml"), std::string::npos) << "nothing to warn of\n" << r.err;
  const auto queue = [](const std::string& name, const std::string& weight) {
    return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: " + name +
           "\nspec:\n  cohort: gpus\n  fairSharing:\n    weight: " + weight +
           "\n  preemption:\n    reclaimWithinCohort: Any\n  resourceGroups:\n"
           "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: h100\n      resources:\n"
           "      - name: nvidia.com/gpu\n        nominalQuota: 4\n---\n";
  };
  write_text(dir.file("kueue.yaml"),
             "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing:\n  enable: true\n---\n"
             "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: h100\n---\n" +
                 queue("web-cq", "\"2\"") + queue("other-cq", "500m"));
  write_text(dir.file("s.yaml"), tenants_scenario(kueue_quota("file: kueue.yaml, clusterQueue: web-cq"),
                                                  kueue_quota("file: kueue.yaml, clusterQueue: other-cq")));
  const std::string out = dir.file("out");
  r = run_process(run_argv(GTW_BINARY, dir.file("s.yaml"), out, "json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  std::map<std::string, json> quotas;
  for (const auto& q : report["quotas"]) quotas[q["tenant"]] = q;
  ASSERT_TRUE(quotas["web"].contains("fair_sharing")) << quotas["web"];
  EXPECT_DOUBLE_EQ(quotas["web"]["fair_sharing"]["weight"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(quotas["other"]["fair_sharing"]["weight"].get<double>(), 0.5);
  // The same queues with the verbatim Configuration as well: Kueue runs with one, and the two disagree.
  write_text(dir.file("s.yaml"), tenants_scenario(kueue_quota("file: kueue.yaml, clusterQueue: web-cq"),
                                                  kueue_quota("file: kueue.yaml, clusterQueue: other-cq")) +
                                     "  kueueConfiguration:\n    file: " + K8S +
                                     "kueue-controller-manager-config.yaml\n");
  r = run_process({GTW_BINARY, "validate", dir.file("s.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kueue.yaml:1:1: error: Configuration: this Kueue Configuration's fairSharing differs"),
            std::string::npos)
      << r.err;
  // Kueue's usage-based admission fair sharing example: its LocalQueues' weights are named in a warning (not
  // simulated); its CPU-only queue is refused with its reason.
  r = validate(
      dir, tenants_scenario(kueue_quota("file: " + K8S + "kueue-admission-fair-sharing-setup.yaml, localQueue: lq-a")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kueue-admission-fair-sharing-setup.yaml:31:5: warning: LocalQueue[lq-a].spec.fairSharing"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ClusterQueue 'cluster-queue' has no device quota"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gtw::test
