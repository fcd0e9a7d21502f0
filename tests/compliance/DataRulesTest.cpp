// The placement and data-path compliance rules (policies/compliance/DataRules.cpp) over synthetic
// event logs: each rule passes a compliant log, fails a violating one and names the violating event.
#include <gtest/gtest.h>

#include "BuiltinRules.hpp"
#include "CheckRules.hpp"

namespace gtw::policy {
namespace {

// A small EU/US platform: GPU 0 in eu-west, GPU 1 in us-east, GPUs 2 and 3 two MIG instances of one
// physical GPU in eu-west; a restricted EU health tenant and a public US tenant.
struct World {
  ScenarioSpec spec;
  RunResult run;
  audit::AuditLog audit;
  std::vector<identity::IdentityPath> paths;
  std::vector<ChannelCapacity> channels;

  World() {
    spec.duration = Seconds(100);
    NodePoolSpec eu, us;
    eu.name = "eu";
    eu.region = "eu-west";
    us.name = "us";
    us.region = "us-east";
    spec.node_pools = {eu, us};
    TenantSpec health, pub;
    health.name = "health";
    health.region = "eu-west";
    health.classification = Classification::RESTRICTED;
    pub.name = "public";
    pub.region = "us-east";
    pub.classification = Classification::PUBLIC;
    spec.tenants = {health, pub};
    StorageSpec fs;
    fs.name = "eu-fs";
    fs.region = "eu-west";
    spec.storage = {fs};
    DataSpec records;
    records.name = "records";
    records.tenant = "health";
    records.tenant_index = 0;
    records.store = "eu-fs";
    spec.data = {records};
    WorkloadSpec train, web;
    train.name = "train";
    train.kind = WorkloadKind::TRAINING;
    train.tenant = "health";
    train.tenant_index = 0;
    train.io.dataset = "records";
    web.name = "web";
    web.tenant = "public";
    web.tenant_index = 1;
    spec.workloads = {train, web};
    run.gpus = {layout(0, 0, 0, "eu", "exclusive", ""), layout(1, 1, 0, "us", "exclusive", ""),
                layout(2, 2, 0, "eu", "mig", "3g.40gb"), layout(3, 2, 0, "eu", "mig", "3g.40gb")};
    run.end_time = 100;
  }

  static GpuLayout layout(int index, int node, int local, std::string pool, std::string sharing, std::string mig) {
    GpuLayout l;
    l.index = index;
    l.node = node;
    l.local = local;
    l.node_name = pool + "-" + std::to_string(node);
    l.pool = std::move(pool);
    l.sharing = sharing_mode_from_name(sharing).value();
    l.mig_profile = std::move(mig);
    return l;
  }

  void emit(double t, EventType type, int tenant, int workload, int replica, int gpu, double value = 0,
            double aux = 0) {
    run.log.append({t, 0, type, tenant, workload, replica, gpu, value, aux});
  }

  // A DATA_MOVE of `data` with its record.
  void move(double t, int data, const std::string& store, const std::string& region, bool encrypted) {
    DataMovement m;
    m.start = m.end = t;
    m.data = data;
    m.owner = 0;
    m.tenant = 0;
    m.workload = 0;
    m.operation = "read";
    m.from = "store:" + store;
    m.to = "gpu:0";
    m.store = store;
    m.region = region;
    m.bytes = 1e6;
    m.encrypted_in_transit = encrypted;
    m.links = {"fabric-link"};
    run.data_movements.push_back(m);
    emit(t, EventType::DATA_MOVE, 0, 0, 0, 0, 1e6, static_cast<double>(run.data_movements.size() - 1));
  }

  ComplianceFinding evaluate(const ComplianceRuleSpec& given) const {
    const ComplianceRuleSpec cfg = with_rule_defaults(given);
    const ComplianceInput in{spec, run, audit, paths, channels};
    return builtin_compliance_registry().create(cfg.rule, cfg.params)->evaluate(in, cfg);
  }
};

ComplianceRuleSpec rule(const std::string& name, Params params = {}) {
  ComplianceRuleSpec r;
  r.name = "policy-" + name;
  r.rule = name;
  r.params = std::move(params);
  return r;
}

TEST(ResidencyRule, PlacementInTheDataRegionPasses) {
  World w;
  w.emit(1, EventType::PLACED, 0, 0, 0, 0);
  const auto f = w.evaluate(rule("residency"));
  EXPECT_EQ(f.status, ComplianceStatus::PASS);
  EXPECT_EQ(f.checked, 1u);
  EXPECT_EQ(f.rule_id, "C1");
}

TEST(ResidencyRule, PlacementInAnotherRegionFailsAndNamesTheEvent) {
  World w;
  w.emit(1, EventType::PLACED, 0, 0, 0, 0);
  w.emit(2, EventType::PLACED, 0, 0, 1, 1);  // seq 1: the US GPU
  const auto f = w.evaluate(rule("residency"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.violations, 1u);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].event, 1);
  EXPECT_DOUBLE_EQ(f.evidence[0].time, 2);
  EXPECT_EQ(f.evidence[0].resource, "us-1/gpu0");
  EXPECT_NE(f.evidence[0].detail.find("us-east"), std::string::npos);
}

TEST(ResidencyRule, ATransferBasisMustPrecedeThePlacementAndUseAnAcceptedMechanism) {
  World w;
  w.emit(5, EventType::PLACED, 0, 0, 0, 1);
  TransferBasisSpec basis;
  basis.data = "records";
  basis.to_region = "us-east";
  basis.mechanism = "SCC";
  basis.at = Seconds(1);
  w.spec.compliance.transfers = {basis};
  EXPECT_EQ(w.evaluate(rule("residency")).status, ComplianceStatus::PASS);
  // Recorded after the placement: no basis at the time.
  w.spec.compliance.transfers[0].at = Seconds(10);
  EXPECT_EQ(w.evaluate(rule("residency")).status, ComplianceStatus::FAIL);
  // A mechanism the policy does not accept.
  w.spec.compliance.transfers[0].at = Seconds(0);
  EXPECT_EQ(w.evaluate(rule("residency", {{"acceptedMechanisms", std::string("adequacy")}})).status,
            ComplianceStatus::FAIL);
  // A basis naming the owner tenant covers all its data.
  w.spec.compliance.transfers[0].data = "health";
  EXPECT_EQ(w.evaluate(rule("residency")).status, ComplianceStatus::PASS);
}

TEST(ResidencyRule, OnwardTransferToAStoreInAnotherRegionFails) {
  World w;
  w.emit(1, EventType::PLACED, 0, 0, 0, 0);
  w.move(2, 0, "eu-fs", "eu-west", true);
  w.move(3, 0, "us-backup", "us-east", true);  // seq 2
  const auto f = w.evaluate(rule("residency"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.checked, 3u);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].event, 2);
  EXPECT_NE(f.evidence[0].detail.find("onward"), std::string::npos);
  // allowedRegions widens the set.
  EXPECT_EQ(w.evaluate(rule("residency", {{"allowedRegions", std::string("eu-west,us-east")}})).status,
            ComplianceStatus::PASS);
}

TEST(ResidencyRule, TenantDataCoversWorkloadsWithoutDataItems) {
  World w;
  w.spec.workloads[0].io.dataset.clear();
  w.emit(1, EventType::PLACED, 0, 0, 0, 1);
  EXPECT_EQ(w.evaluate(rule("residency")).checked, 0u);
  const auto f = w.evaluate(rule("residency", {{"tenantData", true}}));
  EXPECT_EQ(f.status, ComplianceStatus::FAIL);
}

TEST(ResidencyRule, RefusesGpusAndStoresOfOtherRegions) {
  World w;
  const auto cfg = with_rule_defaults(rule("residency"));
  auto r = builtin_compliance_registry().create("residency", cfg.params);
  PlacementRequest req;
  req.workload = 0;
  req.tenant = 0;
  GpuView gpu;
  ClusterView view;
  std::string why;
  EXPECT_TRUE(r->refuse_placement({w.spec, req, gpu, view, "us-east", 0}, cfg, &why));
  EXPECT_NE(why.find("may not be processed in region 'us-east'"), std::string::npos) << why;
  EXPECT_FALSE(r->refuse_placement({w.spec, req, gpu, view, "eu-west", 0}, cfg, nullptr));
  DataMovement m;
  m.data = 0;
  m.region = "us-east";
  EXPECT_TRUE(r->refuse_access({w.spec, m, "eu-west", 0}, cfg).has_value());
  m.region = "eu-west";
  EXPECT_FALSE(r->refuse_access({w.spec, m, "eu-west", 0}, cfg).has_value());
}

TEST(CoTenancyRule, DifferentClassificationsOnOneMpsGpuFail) {
  World w;
  w.run.gpus[0].sharing = SharingMode::MPS;
  w.emit(1, EventType::PLACED, 0, 0, 0, 0);
  w.emit(2, EventType::PLACED, 1, 1, 0, 0);  // seq 1
  const auto f = w.evaluate(rule("co-tenancy"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].event, 1);
  EXPECT_NE(f.evidence[0].detail.find("mps"), std::string::npos);
}

TEST(CoTenancyRule, MigInstancesOfOneGpuAreOneGpu) {
  World w;
  w.emit(1, EventType::PLACED, 0, 0, 0, 2);
  w.emit(2, EventType::PLACED, 1, 1, 0, 3);
  // Different classifications: MIG is not enough.
  EXPECT_EQ(w.evaluate(rule("co-tenancy")).status, ComplianceStatus::FAIL);
  // Same classification, different tenants: MIG is allowed.
  w.spec.tenants[1].classification = Classification::RESTRICTED;
  EXPECT_EQ(w.evaluate(rule("co-tenancy")).status, ComplianceStatus::PASS);
  // ... unless the policy narrows it.
  EXPECT_EQ(w.evaluate(rule("co-tenancy", {{"sameClassification", std::string("exclusive")}})).status,
            ComplianceStatus::FAIL);
}

TEST(CoTenancyRule, OneAfterTheOtherIsNotCoTenancy) {
  World w;
  w.run.gpus[0].sharing = SharingMode::MPS;
  w.emit(1, EventType::PLACED, 0, 0, 0, 0);
  w.emit(5, EventType::WORKLOAD_FAILED, 0, 0, 0, 0, 0, 1);
  w.emit(6, EventType::PLACED, 1, 1, 0, 0);
  const auto f = w.evaluate(rule("co-tenancy"));
  EXPECT_EQ(f.status, ComplianceStatus::PASS);
  EXPECT_EQ(f.checked, 0u);
}

TEST(CoTenancyRule, RefusesAGpuWhoseOtherInstanceHoldsAnotherClassification) {
  World w;
  const auto cfg = with_rule_defaults(rule("co-tenancy"));
  auto r = builtin_compliance_registry().create("co-tenancy", cfg.params);
  ClusterView view;
  view.tenant_classification = {Classification::RESTRICTED, Classification::PUBLIC};
  GpuView a, b;
  a.index = 2;
  a.physical = 7;
  a.mode = SharingMode::MIG;
  a.tenants = {0};
  b.index = 3;
  b.physical = 7;
  b.mode = SharingMode::MIG;
  view.gpus = {a, b};
  PlacementRequest req;
  req.tenant = 1;
  std::string why;
  EXPECT_TRUE(r->refuse_placement({w.spec, req, view.gpus[1], view, "eu-west", 0}, cfg, &why));
  EXPECT_NE(why.find("already on this GPU"), std::string::npos) << why;
  req.tenant = 0;  // the same tenant on the other instance
  EXPECT_FALSE(r->refuse_placement({w.spec, req, view.gpus[1], view, "eu-west", 0}, cfg, nullptr));
}

// With the placement index built the rule searches only the candidate's node for its physical GPU's other
// instances (ClusterView::node_or_all); without it, every device. Both give the same answers.
TEST(CoTenancyRule, TheNodeSearchWithTheIndexAgreesWithTheWholeView) {
  World w;
  const auto cfg = with_rule_defaults(rule("co-tenancy"));
  auto r = builtin_compliance_registry().create("co-tenancy", cfg.params);
  ClusterView view;
  view.tenant_classification = {Classification::RESTRICTED, Classification::PUBLIC};
  for (int g = 0; g < 4; ++g) {  // two nodes, each one physical GPU as two MIG instances
    GpuView d;
    d.index = g;
    d.node = g / 2;
    d.local = 0;
    d.physical = g / 2;
    d.mode = SharingMode::MIG;
    view.gpus.push_back(d);
  }
  view.gpus[0].tenants = {0};
  view.gpus[3].tenants = {0};
  PlacementRequest req;
  req.tenant = 1;
  const auto answers = [&] {
    std::vector<bool> out;
    for (const auto& g : view.gpus)
      out.push_back(r->refuse_placement({w.spec, req, g, view, "eu-west", 0}, cfg, nullptr));
    return out;
  };
  const auto whole = answers();
  EXPECT_EQ(whole, (std::vector<bool>{true, true, true, true}));
  ASSERT_TRUE(view.build_index());
  EXPECT_EQ(view.node_or_all(1).size(), 2U);
  EXPECT_EQ(answers(), whole);
  view.gpus[3].tenants.clear();
  view.changed(3);
  EXPECT_EQ(answers(), (std::vector<bool>{true, true, false, false})) << "node 1 is free of tenant 0 now";
}

TEST(ScrubRule, ResidueFromTheAllocatorFailsAndScrubbedReusePasses) {
  World w;
  w.emit(1, EventType::PLACED, 1, 1, 0, 0);
  w.emit(2, EventType::MEM_FREE, 1, 1, 0, 0, 1e9, 0);
  w.emit(3, EventType::PLACED, 0, 0, 0, 0);
  w.emit(3, EventType::MEM_ALLOC, 0, 0, 0, 0, 1e9, 1e9);
  w.emit(3, EventType::MEM_RESIDUE, 0, 0, 0, 0, 1e9, 1);  // seq 4: bytes of workload 1 (public)
  auto f = w.evaluate(rule("scrub-between-tenants"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.evidence[0].event, 4);
  EXPECT_NE(f.evidence[0].detail.find("MEM_RESIDUE"), std::string::npos);

  World ok;
  ok.emit(1, EventType::PLACED, 1, 1, 0, 0);
  ok.emit(3, EventType::PLACED, 0, 0, 0, 0);
  ok.emit(3, EventType::MEM_ALLOC, 0, 0, 0, 0, 1e9, 0);
  ok.emit(3, EventType::MEM_SCRUBBED_REUSE, 0, 0, 0, 0, 1e9, 1);
  f = ok.evaluate(rule("scrub-between-tenants"));
  EXPECT_EQ(f.status, ComplianceStatus::PASS);
  EXPECT_EQ(f.checked, 1u);
}

TEST(ScrubRule, PlacementOrderWithoutAllocatorEvents) {
  World w;
  w.emit(1, EventType::PLACED, 1, 1, 0, 0);
  w.emit(4, EventType::WORKLOAD_FAILED, 1, 1, 0, 0, 0, 4);
  w.emit(6, EventType::PLACED, 0, 0, 0, 0);  // seq 2
  auto f = w.evaluate(rule("scrub-between-tenants"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.evidence[0].event, 2);
  w.spec.isolation.scrub_on_free = true;
  f = w.evaluate(rule("scrub-between-tenants"));
  EXPECT_EQ(f.status, ComplianceStatus::PASS);
  EXPECT_EQ(f.checked, 1u);
}

TEST(ScrubRule, RefusesADeviceLastUsedByAnotherTenantUnlessScrubbing) {
  World w;
  const auto cfg = with_rule_defaults(rule("scrub-between-tenants"));
  auto r = builtin_compliance_registry().create("scrub-between-tenants", cfg.params);
  GpuView gpu;
  gpu.last_tenant = 1;
  ClusterView view;
  PlacementRequest req;
  req.tenant = 0;
  std::string why;
  EXPECT_TRUE(r->refuse_placement({w.spec, req, gpu, view, "eu-west", 0}, cfg, &why));
  EXPECT_NE(why.find("scrubOnFree is off"), std::string::npos) << why;
  w.spec.isolation.scrub_on_free = true;
  EXPECT_FALSE(r->refuse_placement({w.spec, req, gpu, view, "eu-west", 0}, cfg, nullptr));
}

TEST(EncryptionRules, PlaintextMovementOfRegulatedDataFails) {
  World w;
  w.move(1, 0, "eu-fs", "eu-west", true);
  w.move(2, 0, "eu-fs", "eu-west", false);  // seq 1
  auto f = w.evaluate(rule("encryption-in-transit"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.checked, 2u);
  EXPECT_EQ(f.evidence[0].event, 1);
  EXPECT_EQ(f.evidence[0].resource, "records");
  // Public data is not regulated.
  w.spec.data[0].classification = "public";
  EXPECT_EQ(w.evaluate(rule("encryption-in-transit")).checked, 0u);
}

TEST(EncryptionRules, RegulatedDataOnAnUnencryptedStoreFails) {
  World w;
  w.move(1, 0, "eu-fs", "eu-west", true);
  auto f = w.evaluate(rule("encryption-at-rest"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.evidence[0].event, 0);
  w.spec.storage[0].encrypted_at_rest = true;
  EXPECT_EQ(w.evaluate(rule("encryption-at-rest")).status, ComplianceStatus::PASS);
}

TEST(LeakageBudgetRule, ChannelsAboveTheBudgetFail) {
  World w;
  w.channels = {{0, 1, "l2/mps", 50, 10}, {1, 0, "sm/mps", 150, 10}};
  auto f = w.evaluate(rule("leakage-budget"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.checked, 2u);
  EXPECT_EQ(f.violations, 1u);
  EXPECT_EQ(f.evidence[0].resource, "sm/mps");
  EXPECT_EQ(w.evaluate(rule("leakage-budget", {{"maxBitsPerSecond", 1.0}})).violations, 2u);
  EXPECT_EQ(w.evaluate(rule("leakage-budget", {{"maxBitsPerSecond", 1000.0}})).status, ComplianceStatus::PASS);
}

TEST(NetworkSegregationRule, SharedLinksAtTheSameTimeFailUnlessIsolated) {
  World w;
  w.move(1, 0, "eu-fs", "eu-west", true);  // seq 0: health, on fabric-link during [1, 1]
  w.run.data_movements[0].end = 3;
  w.move(2, -1, "eu-fs", "eu-west", true);  // seq 1: public's traffic on the same link
  w.run.data_movements[1].tenant = 1;
  w.run.data_movements[1].owner = 1;
  for (auto& m : w.run.data_movements) m.segment = "shared";
  const auto health_only = [] {
    auto r = rule("network-segregation");
    r.match.tenants = {"health"};
    return r;
  }();
  auto f = w.evaluate(health_only);
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.evidence[0].event, 0);
  EXPECT_NE(f.evidence[0].detail.find("public"), std::string::npos);
  // Its own segment (isolated): passes.
  w.run.data_movements[0].segment = "health";
  EXPECT_EQ(w.evaluate(health_only).status, ComplianceStatus::PASS);
}

TEST(NetworkSegregationRule, FlowIntoAnIsolatedSegmentNeedsAnAllowRule) {
  World w;
  NetworkPolicySpec iso;
  iso.tenant = "health";
  iso.isolated = true;
  w.spec.network_policies = {iso};
  w.move(1, 0, "eu-fs", "eu-west", true);
  w.run.data_movements[0].tenant = 1;  // public reads health's records
  auto r = rule("network-segregation", {{"requireIsolation", false}});
  EXPECT_EQ(w.evaluate(r).status, ComplianceStatus::FAIL);
  const auto cfg = with_rule_defaults(r);
  auto hook = builtin_compliance_registry().create("network-segregation", cfg.params);
  EXPECT_TRUE(hook->refuse_access({w.spec, w.run.data_movements[0], "eu-west", 0}, cfg).has_value());
  w.spec.network_policies[0].allow_from = {"public"};
  EXPECT_EQ(w.evaluate(r).status, ComplianceStatus::PASS);
  EXPECT_FALSE(hook->refuse_access({w.spec, w.run.data_movements[0], "eu-west", 0}, cfg).has_value());
}

TEST(ComplianceValidation, UnknownRulesParametersAndEnforceOnAnAuditOnlyRule) {
  ScenarioSpec spec;
  ComplianceRuleSpec a = rule("residencey");
  ComplianceRuleSpec b = rule("residency", {{"allowedRegion", std::string("eu-west")}});
  ComplianceRuleSpec c = rule("leakage-budget", {{"maxBitsPerSecond", -3.0}});
  c.action = ComplianceAction::ENFORCE;
  ComplianceRuleSpec d = rule("co-tenancy", {{"crossClassification", std::string("exclusive,mpss")}});
  spec.compliance.rules = {a, b, c, d};
  Diagnostics diags;
  check_compliance_rules(spec, diags);
  const std::string text = diags.format_all();
  EXPECT_NE(text.find("unknown compliance rule 'residencey'"), std::string::npos) << text;
  EXPECT_NE(text.find("did you mean 'residency'"), std::string::npos) << text;
  EXPECT_NE(text.find("no parameter 'allowedRegion'"), std::string::npos) << text;
  EXPECT_NE(text.find("must be between"), std::string::npos) << text;
  EXPECT_NE(text.find("can only audit"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown value 'mpss'"), std::string::npos) << text;
}

}  // namespace
}  // namespace gtw::policy
