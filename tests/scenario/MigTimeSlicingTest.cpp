// Time-slicing of MIG instances (issue 22): the device plugin's shared MIG resources (nvidia.com/mig-<profile>
// under migStrategy mixed, nvidia.com/gpu under single) and the scenario's own sharing.migReplicas make each
// instance of a profile a time-sliced device of its own: its replicas take turns on its SMs and share its
// memory, while the MIG boundary still separates it from the GPU's other instances. End to end through the
// gputwin binary, with NVIDIA's own ConfigMap (tests/fixtures/k8s/SOURCES.md).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

const std::string K8S = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/k8s/";

struct Run {
  ProcessResult process;
  json report;
};

Run run(const TempDir& dir, const std::string& text) {
  write_text(dir.file("s.yaml"), text);
  Run r;
  r.process = run_process(run_argv(GTW_BINARY, dir.file("s.yaml"), dir.file("out"), "json,csv"));
  if (r.process.exit_code == 0) r.report = json::parse(read_text(dir.file("out") + "/report.json"));
  return r;
}

std::string scenario(const std::string& pool, const std::string& workloads) {
  return "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: mig-ts\nspec:\n  duration: 30s\n"
         "  cluster:\n    nodePools:\n      - name: pool\n        count: 1\n" +
         pool + "  tenants:\n    - name: a\n    - name: b\n    - name: c\n  workloads:\n" + workloads;
}

// One inference service per tenant, pinned to a MIG profile; first-fit fills an instance's slots first.
std::string service(const std::string& tenant, const std::string& profile) {
  return "    - {name: svc-" + tenant + ", kind: inference, tenant: " + tenant +
         ", placement: {migProfile: " + profile +
         "}, model: {parameters: 1B}, memory: 2GiB, arrival: {process: poisson, rate: 20/s}}\n";
}

// The leakage modes between two tenants, either direction.
std::set<std::string> modes_between(const json& report, const std::string& x, const std::string& y) {
  std::set<std::string> out;
  for (const auto& c : report["leakage"]["channels"])
    if ((c["observer"] == x && c["source"] == y) || (c["observer"] == y && c["source"] == x))
      out.insert(c["mode"].get<std::string>());
  return out;
}

const json& device_of(const json& report, const std::string& tenant) {
  for (const auto& g : report["gpus"])
    for (const auto& t : g["tenants"])
      if (t == tenant) return g;
  ADD_FAILURE() << "tenant " << tenant << " on no device";
  static const json none;
  return none;
}

// NVIDIA's time-slicing-config-fine (config a100-40gb) with mig-parted's all-balanced layout on an A100-40GB:
// every profile the config names is shared as many ways as it says, under the resource name Kubernetes uses.
TEST(MigTimeSlicing, NvidiaFineConfigTimeSlicesEachProfileAsItsResourceSays) {
  TempDir dir;
  const std::string pool =
      "        gpu: A100-40GB\n        gpusPerNode: 2\n        devicePluginConfig:\n          file: " + K8S +
      "device-plugin-time-slicing-config-fine.yaml\n          config: a100-40gb\n"
      "        migConfig:\n          file: " +
      K8S + "mig-parted-example-config.yaml\n          config: all-balanced\n";
  const auto r = run(dir, scenario(pool, service("a", "3g.20gb")));
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  // 7g.40gb is shared by the config but laid out by no GPU: named, not ignored.
  EXPECT_NE(r.process.err.find("no GPU of the pool has a '7g.40gb' instance"), std::string::npos) << r.process.err;
  const std::map<std::string, int> replicas{{"1g.5gb", 2}, {"2g.10gb", 2}, {"3g.20gb", 3}};
  std::map<std::string, int> instances;
  for (const auto& g : r.report["gpus"]) {
    const std::string profile = g["mig_profile"];
    ++instances[profile];
    EXPECT_EQ(g["sharing"], "timeSlicing") << profile;
    EXPECT_EQ(g["slots"], replicas.at(profile)) << profile;
    EXPECT_EQ(g["k8s_resource"], "nvidia.com/mig-" + profile) << profile;
  }
  EXPECT_EQ(instances, (std::map<std::string, int>{{"1g.5gb", 4}, {"2g.10gb", 2}, {"3g.20gb", 2}}));
  // The CSV table carries the resource name too.
  EXPECT_NE(read_text(dir.file("out") + "/gpus.csv").find("nvidia.com/mig-3g.20gb"), std::string::npos);
}

// migStrategy single advertises MIG devices as nvidia.com/gpu, so its nvidia.com/gpu entry shares every
// instance; renameByDefault renames the shared resource; MIG entries under single share nothing (a warning).
// A workload asks for a device as a pod's resources.limits would: by the Kubernetes resource name. On the
// fine config's A100s (all-balanced: 1g.5gb x2, 2g.10gb, 3g.20gb per GPU), nvidia.com/mig-2g.10gb (no domain:
// the plugin adds nvidia.com/) lands on the 2g.10gb instances only; a name no device is advertised as is
// refused at its location, with the names that exist.
TEST(MigTimeSlicing, WorkloadsAskForDevicesByTheirKubernetesResourceName) {
  TempDir dir;
  const std::string pool =
      "        gpu: A100-40GB\n        gpusPerNode: 2\n        devicePluginConfig:\n          file: " + K8S +
      "device-plugin-time-slicing-config-fine.yaml\n          config: a100-40gb\n"
      "        migConfig:\n          file: " +
      K8S + "mig-parted-example-config.yaml\n          config: all-balanced\n";
  const auto by_resource = [](const std::string& tenant, const std::string& resource) {
    return "    - {name: svc-" + tenant + ", kind: inference, tenant: " + tenant +
           ", replicas: 3, placement: {resource: " + resource +
           "}, model: {parameters: 1B}, memory: 2GiB, arrival: {process: poisson, rate: 5/s}}\n";
  };
  const auto r = run(dir, scenario(pool, by_resource("a", "mig-2g.10gb")));
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  int devices = 0;
  for (const auto& g : r.report["gpus"])
    for (const auto& t : g["tenants"])
      if (t == "a") {
        ++devices;
        EXPECT_EQ(g["mig_profile"], "2g.10gb");
        EXPECT_EQ(g["k8s_resource"], "nvidia.com/mig-2g.10gb");
      }
  EXPECT_GE(devices, 1);
  const auto bad = run(dir, scenario(pool, by_resource("a", "nvidia.com/mig-2g.20gb")));
  EXPECT_EQ(bad.process.exit_code, 2);
  EXPECT_NE(bad.process.err.find("placement.resource: no device is advertised as 'nvidia.com/mig-2g.20gb'"),
            std::string::npos)
      << bad.process.err;
  EXPECT_NE(bad.process.err.find("nvidia.com/mig-2g.10gb"), std::string::npos) << "the names that exist";
}

TEST(MigTimeSlicing, StrategySingleSharesEveryInstanceUnderTheGpuResource) {
  TempDir dir;
  const std::string pool =
      "        gpu: A100-40GB\n        gpusPerNode: 1\n        devicePluginConfig:\n          version: v1\n"
      "          flags: {migStrategy: single}\n          sharing:\n            timeSlicing:\n"
      "              renameByDefault: true\n              resources:\n"
      "                - {name: nvidia.com/gpu, replicas: 4}\n                - {name: nvidia.com/mig-1g.5gb, "
      "replicas: 2}\n"
      "        migConfig:\n          file: " +
      K8S + "mig-parted-example-config.yaml\n          config: all-1g.5gb\n";
  const auto r = run(dir, scenario(pool, service("a", "1g.5gb")));
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_NE(r.process.err.find("flags.migStrategy is single, so no resource nvidia.com/mig-1g.5gb is advertised"),
            std::string::npos)
      << r.process.err;
  ASSERT_EQ(r.report["gpus"].size(), 7u);
  for (const auto& g : r.report["gpus"]) {
    EXPECT_EQ(g["sharing"], "timeSlicing");
    EXPECT_EQ(g["slots"], 4);
    EXPECT_EQ(g["k8s_resource"], "nvidia.com/gpu.shared");
  }
}

// Tenants placed on one time-sliced instance share it: context switches there, and the time-slicing channels
// between them. A tenant on the GPU's other instance stays behind the MIG boundary. Without migReplicas each
// instance takes one replica, so the second tenant lands on the other instance.
TEST(MigTimeSlicing, TenantsOnOneInstanceShareItAndTheOtherInstanceStaysIsolated) {
  TempDir dir;
  const std::string workloads = service("a", "3g.40gb") + service("b", "3g.40gb") + service("c", "3g.40gb");
  const std::string pool =
      "        gpu: H100-80GB-SXM\n        gpusPerNode: 1\n        sharing:\n"
      "          mode: mig\n          migLayout: [3g.40gb, 3g.40gb]\n";
  const auto shared = run(dir, scenario(pool + "          migReplicas: {3g.40gb: 2}\n", workloads));
  ASSERT_EQ(shared.process.exit_code, 0) << shared.process.err;
  const json& a = device_of(shared.report, "a");
  EXPECT_EQ(a["index"], device_of(shared.report, "b")["index"]);
  EXPECT_NE(a["index"], device_of(shared.report, "c")["index"]);
  EXPECT_EQ(a["sharing"], "timeSlicing");
  EXPECT_EQ(a["slots"], 2);
  EXPECT_EQ(a["k8s_resource"], "nvidia.com/mig-3g.40gb");
  EXPECT_GT(a["context_switches"].get<int>(), 0);
  EXPECT_EQ(device_of(shared.report, "c")["context_switches"], 0);
  EXPECT_TRUE(modes_between(shared.report, "a", "b").count("timeSlicing"));
  EXPECT_FALSE(modes_between(shared.report, "a", "c").count("timeSlicing"));
  EXPECT_TRUE(modes_between(shared.report, "a", "c").count("mig"));

  TempDir dir2;
  const auto isolated = run(dir2, scenario(pool, service("a", "3g.40gb") + service("b", "3g.40gb")));
  ASSERT_EQ(isolated.process.exit_code, 0) << isolated.process.err;
  EXPECT_NE(device_of(isolated.report, "a")["index"], device_of(isolated.report, "b")["index"]);
  EXPECT_EQ(device_of(isolated.report, "a")["sharing"], "mig");
  EXPECT_FALSE(modes_between(isolated.report, "a", "b").count("timeSlicing"));
  // Time-sliced, a's requests wait for b's slices: its latency grows.
  const auto p50 = [](const json& report) {
    return report["tenants"][0]["workloads"][0]["latency"]["p50_s"].get<double>();
  };
  EXPECT_GT(p50(shared.report), p50(isolated.report) * 1.2);
}

// What separates a time-sliced instance from the rest stays MIG: no NVLink to another GPU (instances have no
// peer access), leftover memory handed over when a reconfiguration lays a new instance on the old one's slices,
// and a fault that ends the instance's clients only (its domain is the instance, not the GPU).
TEST(MigTimeSlicing, ASlicedInstanceKeepsTheMigBoundaries) {
  const std::string tenants = "    - name: a\n    - name: b\n    - name: c\n";
  const auto doc = [&](const std::string& pool, const std::string& workloads, const std::string& extra = "") {
    return "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: mig-ts\nspec:\n  seed: 7\n"
           "  duration: 4m\n  cluster:\n    nodePools:\n      - name: serve\n        count: 1\n"
           "        gpu: H100-80GB-SXM\n" +
           pool + "  tenants:\n" + tenants + "  workloads:\n" + workloads + extra;
  };
  // NVLink: a on a sliced instance of GPU 0, c on the exclusive GPU 1 of the node.
  TempDir d1;
  const auto nvlink =
      run(d1, doc("        gpusPerNode: 2\n        sharing: {mode: mig, migLayout: [3g.40gb, 3g.40gb], migReplicas: "
                  "{3g.40gb: 2}}\n        gpuSharing:\n          - {gpus: [1], mode: exclusive}\n",
                  service("a", "3g.40gb") +
                      "    - {name: svc-c, kind: inference, tenant: c, placement: {sharing: [exclusive]}, model: "
                      "{parameters: 1B}, memory: 2GiB, arrival: {process: poisson, rate: 20/s}}\n"));
  ASSERT_EQ(nvlink.process.exit_code, 0) << nvlink.process.err;
  for (const auto& ch : nvlink.report["leakage"]["channels"])
    if (ch["resource"] == "nvlink") {
      EXPECT_NE(ch["state"], "open") << ch;
    }

  // Hand-over: a's instance is re-laid out at 1 m; b starts on the new instance at 3 m and gets a's leftovers.
  const std::string reconfigured =
      "    - {name: svc-a, kind: inference, tenant: a, memory: 24GiB, model: {parameters: 8B}, arrival: {process: "
      "poisson, rate: 2/s}}\n    - {name: svc-b, kind: inference, tenant: b, start: 3m, placement: {migProfile: "
      "3g.40gb}, memory: 24GiB, model: {parameters: 8B}, arrival: {process: poisson, rate: 2/s}}\n";
  const std::string reconfiguration =
      "  reconfigurations:\n    - {at: 1m, nodePool: serve, migLayout: [4g.40gb, 3g.40gb], drainTimeout: 20s}\n";
  std::set<std::pair<std::string, std::string>> handed[2];
  for (int sliced = 0; sliced < 2; ++sliced) {
    TempDir d;
    const auto r = run(d, doc(std::string("        gpusPerNode: 1\n        sharing: {mode: mig, migLayout: [3g.40gb, "
                                          "3g.40gb]") +
                                  (sliced ? ", migReplicas: {all: 2}" : "") + "}\n",
                              reconfigured, reconfiguration));
    ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
    for (const auto& x : r.report["leakage"]["discrete"])
      if (x["kind"] == "unscrubbedMemory")
        handed[sliced].insert({x["observer"].get<std::string>(), x["source"].get<std::string>()});
  }
  EXPECT_FALSE(handed[0].empty());
  EXPECT_EQ(handed[1], handed[0]);

  // A fault of a's client ends b's (same sliced instance), not c's (the other instance).
  TempDir d3;
  const auto fault = run(d3, doc("        gpusPerNode: 1\n        sharing: {mode: mig, migLayout: [3g.40gb, 3g.40gb], "
                                 "migReplicas: {3g.40gb: 2}}\n",
                                 service("a", "3g.40gb") + service("b", "3g.40gb") + service("c", "3g.40gb"),
                                 "  faults:\n    - {at: 10s, workload: svc-a}\n"));
  ASSERT_EQ(fault.process.exit_code, 0) << fault.process.err;
  ASSERT_EQ(fault.report["faults"].size(), 1u);
  const json& f = fault.report["faults"][0];
  EXPECT_EQ(f["domain"], "migInstance");
  std::set<std::string> ended;
  for (const auto& v : f["ended"]) ended.insert(v.get<std::string>().substr(0, 1));
  EXPECT_EQ(ended, (std::set<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace gtw::test
