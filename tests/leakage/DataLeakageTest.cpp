// Data exposures in the leakage surface (docs/models/leakage.md, "Discrete exposures"): plaintext bytes of
// one tenant's data items on links and stores another tenant can read, from the storage model's data
// events; what closes them (encryption in transit and at rest, segmentation, storage ACLs); the Model IP
// rows of the weights on storage; and their SARIF findings at the scenario lines that open them.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ChannelCatalogue.hpp"
#include "Leakage.hpp"
#include "Subprocess.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

using json = nlohmann::json;

// Two tenants: `owner` serves a model whose weights item lives on store `lustre`; `other` runs a job whose
// flows cross the same leaf uplink.
struct DataRun {
  ScenarioSpec spec;
  RunResult run;

  DataRun() {
    spec.name = "data";
    spec.source_file = "scenario.yaml";
    run.end_time = 10;
    for (const char* name : {"owner", "other"}) {
      spec.tenants.push_back({});
      spec.tenants.back().name = name;
    }
    WorkloadSpec svc;
    svc.name = "svc";
    svc.kind = WorkloadKind::INFERENCE;
    svc.tenant = "owner";
    svc.tenant_index = 0;
    svc.model.parameters = 1e9;
    svc.io.weights = "svc-weights";
    svc.loc = SourceLoc{"scenario.yaml", 40, 7};
    spec.workloads.push_back(svc);
    WorkloadSpec job;
    job.name = "job";
    job.kind = WorkloadKind::TRAINING;
    job.tenant = "other";
    job.tenant_index = 1;
    spec.workloads.push_back(job);
    StorageSpec store;
    store.name = "lustre";
    store.loc = SourceLoc{"scenario.yaml", 12, 9};
    spec.storage.push_back(store);
    DataSpec item;
    item.name = "svc-weights";
    item.kind = DataKind::WEIGHTS;
    item.tenant = "owner";
    item.tenant_index = 0;
    item.store = "lustre";
    item.loc = SourceLoc{"scenario.yaml", 20, 7};
    item.store_loc = SourceLoc{"scenario.yaml", 20, 60};
    spec.data.push_back(item);
    // The weights are read from lustre over the leaf uplink; the other tenant's job uses the uplink too.
    run.data_movements.push_back(move(0, 0, 0, "read", 2e9, {"leaf0-up", "n0-nic"}));
    run.data_movements.push_back(move(1, 1, -1, "transfer", 5e9, {"leaf0-up", "n1-nic"}));
  }

  static DataMovement move(int tenant, int workload, int data, const std::string& op, double bytes,
                           std::vector<std::string> links) {
    DataMovement m;
    m.owner = m.tenant = tenant;
    m.workload = workload;
    m.data = data;
    m.operation = op;
    m.bytes = bytes;
    m.store = data >= 0 ? "lustre" : "";
    m.segment = "shared";
    m.links = std::move(links);
    return m;
  }

  LeakageReport analyse() const { return analyse_leakage(spec, run, channel::Catalogue::defaults()); }
};

const DiscreteExposure* find(const LeakageReport& r, DiscreteKind kind, int observer, int source) {
  for (const auto& d : r.discrete)
    if (d.kind == kind && d.observer == observer && d.source == source) return &d;
  return nullptr;
}

const ModelExposure* model_row(const LeakageReport& r, const std::string& model, const std::string& channel) {
  for (const auto& m : r.models)
    if (m.name == model)
      for (const auto& x : m.exposures)
        if (x.channel == channel) return &x;
  return nullptr;
}

TEST(DataLeakage, PlaintextWeightsOnASharedLinkAndStoreAreOpenExposures) {
  const DataRun s;
  const auto r = s.analyse();
  const auto* net = find(r, DiscreteKind::PLAINTEXT_NETWORK, 1, 0);
  ASSERT_NE(net, nullptr);
  EXPECT_FALSE(net->closed);
  EXPECT_DOUBLE_EQ(net->bytes, 2e9);
  EXPECT_EQ(net->paths, std::vector<std::string>{"leaf0-up"});
  EXPECT_EQ(net->data_name, "svc-weights");
  const auto* disk = find(r, DiscreteKind::PLAINTEXT_STORAGE, 1, 0);
  ASSERT_NE(disk, nullptr);
  EXPECT_FALSE(disk->closed);
  EXPECT_DOUBLE_EQ(disk->bytes, 2e9);  // one copy of what was read
  EXPECT_EQ(disk->paths, std::vector<std::string>{"lustre"});
  // The owner sees the other tenant's untagged transfer on the shared uplink too (no data item).
  const auto* back = find(r, DiscreteKind::PLAINTEXT_NETWORK, 0, 1);
  ASSERT_NE(back, nullptr);
  EXPECT_DOUBLE_EQ(back->bytes, 5e9);
  // Totals per tenant pair.
  EXPECT_DOUBLE_EQ(r.total_bytes, 2e9 + 2e9 + 5e9);
  EXPECT_DOUBLE_EQ(r.tenants[1].bytes_as_observer, 4e9);
  EXPECT_DOUBLE_EQ(r.tenants[0].bytes_as_source, 4e9);
  // Model IP: the weights on storage and the network are open to the other tenant.
  for (const char* ch : {"plaintextStorage", "plaintextNetwork"}) {
    const auto* x = model_row(r, "svc", ch);
    ASSERT_NE(x, nullptr) << ch;
    EXPECT_EQ(x->status, "open") << ch;
    EXPECT_EQ(x->tenants, std::vector<std::string>{"other"});
    EXPECT_DOUBLE_EQ(x->bytes, 2e9);
  }
  EXPECT_EQ(model_row(r, "svc", "storage"), nullptr) << "no 'not modelled' row any more";
}

TEST(DataLeakage, EncryptionSegmentationAndAclsCloseThem) {
  {
    DataRun s;
    s.run.data_movements[0].encrypted_in_transit = true;
    s.run.data_movements[0].encrypted_at_rest = true;
    const auto r = s.analyse();
    const auto* net = find(r, DiscreteKind::PLAINTEXT_NETWORK, 1, 0);
    const auto* disk = find(r, DiscreteKind::PLAINTEXT_STORAGE, 1, 0);
    ASSERT_TRUE(net && disk);
    EXPECT_TRUE(net->closed);
    EXPECT_EQ(net->closed_reason, "encrypted in transit");
    EXPECT_TRUE(disk->closed);
    EXPECT_EQ(disk->closed_reason, "encrypted at rest (lustre)");
    EXPECT_DOUBLE_EQ(r.tenants[1].bytes_as_observer, 0);
    EXPECT_EQ(model_row(r, "svc", "plaintextStorage")->status, "closed");
    EXPECT_EQ(model_row(r, "svc", "plaintextNetwork")->status, "closed");
  }
  {
    DataRun s;
    NetworkPolicySpec p;
    p.tenant = "owner";
    p.isolated = true;
    s.spec.network_policies.push_back(p);
    s.run.data_movements[0].segment = "owner";
    s.spec.storage[0].allow = {"owner"};
    const auto r = s.analyse();
    const auto* net = find(r, DiscreteKind::PLAINTEXT_NETWORK, 1, 0);
    const auto* disk = find(r, DiscreteKind::PLAINTEXT_STORAGE, 1, 0);
    ASSERT_TRUE(net && disk);
    EXPECT_TRUE(net->closed);
    EXPECT_NE(net->closed_reason.find("segmentation"), std::string::npos) << net->closed_reason;
    EXPECT_TRUE(disk->closed);
    EXPECT_NE(disk->closed_reason.find("ACL"), std::string::npos) << disk->closed_reason;
  }
  {
    // An observer whose flows cross none of the item's links sees nothing on the network.
    DataRun s;
    s.run.data_movements[1].links = {"n1-nic"};
    EXPECT_EQ(find(s.analyse(), DiscreteKind::PLAINTEXT_NETWORK, 1, 0), nullptr);
  }
}

TEST(DataLeakage, SarifFindingsPointAtTheDataItemStoreAndNetworkPolicy) {
  DataRun s;
  NetworkPolicySpec p;
  p.tenant = "owner";
  p.loc = SourceLoc{"scenario.yaml", 30, 7};
  s.spec.network_policies.push_back(p);  // in the shared segment, no encryption: the line that opens it
  const auto r = s.analyse();
  const auto sarif = json::parse(findings_sarif(s.spec, s.run, r, "t"));
  std::map<std::string, int> line_of;
  for (const auto& res : sarif["runs"][0]["results"]) {
    const std::string fp = res["partialFingerprints"]["leakagePair/v1"];
    line_of[res["ruleId"].get<std::string>() + " " + fp] =
        res["locations"][0]["physicalLocation"]["region"]["startLine"].get<int>();
    bool atlas = false;
    for (const auto& t : res["properties"]["tags"]) atlas |= t == "AML.T0025";
    EXPECT_TRUE(atlas);
  }
  EXPECT_EQ((line_of["GTW-LEAK-plaintextStorage other<-owner/svc-weights/plaintextStorage"]), 20);
  EXPECT_EQ((line_of["GTW-LEAK-plaintextNetwork other<-owner/svc-weights/plaintextNetwork"]), 30);
  bool rule = false;
  for (const auto& x : sarif["runs"][0]["tool"]["driver"]["rules"]) rule |= x["id"] == "GTW-LEAK-plaintextNetwork";
  EXPECT_TRUE(rule);
}

// End to end: the fabric example's research corpus and vision checkpoints sit unencrypted on the shared
// parallel file system; research's traffic is encrypted and segmented; chat's weights are on an
// encrypted object store only chat may read.
TEST(DataLeakage, SharedStorageExampleEndToEnd) {
  test::TempDir dir;
  const auto r = test::run_process({GTW_BINARY, "run",
                                    std::string(GTW_SOURCE_DIR) + "/scenarios/examples/fabric/shared-storage.yaml",
                                    "-o", dir.path(), "--progress", "none", "--format", "json,sarif"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json l = json::parse(test::read_text(dir.file("report.json")))["leakage"];
  std::map<std::string, const json*> by;
  for (const auto& d : l["discrete"])
    if (d["kind"] == "plaintextStorage" || d["kind"] == "plaintextNetwork")
      by[d["kind"].get<std::string>() + " " + d["observer"].get<std::string>() + "<-" + d["source"].get<std::string>() +
         "/" + (d["data"].is_null() ? "-" : d["data"].get<std::string>())] = &d;
  ASSERT_TRUE(by.count("plaintextStorage vision<-research/corpus")) << l["discrete"].dump();
  EXPECT_FALSE((*by["plaintextStorage vision<-research/corpus"])["closed"].get<bool>());
  ASSERT_TRUE(by.count("plaintextStorage chat<-research/research-ckpt"));
  ASSERT_TRUE(by.count("plaintextStorage research<-chat/chat-weights"));
  EXPECT_TRUE((*by["plaintextStorage research<-chat/chat-weights"])["closed"].get<bool>());
  for (const auto& [key, d] : by) {
    if (key.rfind("plaintextNetwork", 0) == 0 && (*d)["source"] == "research") {
      EXPECT_TRUE((*d)["closed"].get<bool>()) << key << ": research encrypts in transit";
    }
  }
  // Model IP of the fine-tune: its checkpoints are readable by the other tenants at rest.
  bool seen = false;
  for (const auto& m : l["models"])
    if (m["workload"] == "finetune")
      for (const auto& x : m["exposures"])
        if (x["channel"] == "plaintextStorage") {
          seen = true;
          EXPECT_EQ(x["status"], "open");
        }
  EXPECT_TRUE(seen);
  const json sarif = json::parse(test::read_text(dir.file("findings.sarif")));
  bool finding = false;
  for (const auto& res : sarif["runs"][0]["results"]) finding |= res["ruleId"] == "GTW-LEAK-plaintextStorage";
  EXPECT_TRUE(finding);
}

}  // namespace
}  // namespace gtw
