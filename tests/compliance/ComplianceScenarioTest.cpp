// The placement and data-path rules end to end, in-process: load a fixture (tests/fixtures/compliance),
// run the engine, evaluate compliance over the run. Each rule passes a compliant design, fails a violating
// one (naming the violating event), and with action enforce prevents the violation at a visible cost.
// One SimGrid engine per process: one run per test.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ComplianceHarness.hpp"

namespace gtw {
namespace {

using compliance_test::Outcome;
using compliance_test::run_fixture;

// ---- residency (C1 + C2)

TEST(ComplianceScenario, ResidencyAuditReportsThePlacementInUsEast) {
  const auto o = run_fixture("residency.yaml");
  EXPECT_TRUE(o.report.configured);
  const auto& f = o.finding("eu-residency");
  ASSERT_EQ(f.status, policy::ComplianceStatus::FAIL) << f.message;
  EXPECT_EQ(f.violations, 1u);
  ASSERT_FALSE(f.evidence.empty());
  const Event& e = o.event(f.evidence[0].event);
  EXPECT_EQ(e.type, EventType::PLACED);
  EXPECT_EQ(e.workload, o.workload("train-b"));
  EXPECT_EQ(o.run.gpus.at(static_cast<size_t>(e.gpu)).pool, "us");
  EXPECT_DOUBLE_EQ(f.evidence[0].time, e.time);
  EXPECT_NE(std::find(f.requirements.begin(), f.requirements.end(), "HIPAA 164.312(a)(1)"), f.requirements.end());
  EXPECT_EQ(f.prevented, 0u);
  EXPECT_TRUE(o.report.enforcement.empty());
}

TEST(ComplianceScenario, ResidencyPassesWithATransferBasis) {
  const auto o =
      run_fixture("residency.yaml", {"spec.compliance.transfers=[{data: records, toRegion: us-east, mechanism: SCC}]"});
  const auto& f = o.finding("eu-residency");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  EXPECT_GT(f.checked, 2u);
}

TEST(ComplianceScenario, ResidencyEnforceQueuesTheJobForTheEuGpu) {
  const auto o = run_fixture("residency.yaml", {"spec.compliance.rules[0].action=enforce"});
  const auto& f = o.finding("eu-residency");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  EXPECT_GE(f.prevented, 1u);
  ASSERT_EQ(o.report.enforcement.size(), 1u);
  EXPECT_GE(o.report.enforcement[0].placements_refused, 1u);
  EXPECT_EQ(o.report.enforcement[0].workloads_affected, std::vector<std::string>{"train-b"});
  // Every placement stayed in the EU, and the cost: train-b waited in the quota queue until train-a
  // finished and gave the EU GPU back.
  for (const auto& e : o.events(EventType::PLACED)) EXPECT_EQ(o.run.gpus.at(static_cast<size_t>(e.gpu)).pool, "eu");
  const int b = o.workload("train-b");
  EXPECT_FALSE(o.events(EventType::QUOTA_QUEUED, b).empty());
  const auto a_done = o.events(EventType::JOB_DONE, o.workload("train-a"));
  const auto b_placed = o.events(EventType::PLACED, b);
  ASSERT_FALSE(a_done.empty());
  ASSERT_FALSE(b_placed.empty());
  EXPECT_GE(b_placed[0].time, a_done[0].time);
  const auto refused = o.events(EventType::COMPLIANCE_REFUSED, b);
  ASSERT_FALSE(refused.empty());
  EXPECT_EQ(refused[0].value, 0);  // rule index
  EXPECT_EQ(refused[0].aux, 0);    // a placement
}

TEST(ComplianceScenario, ResidencyAuditReportsTheOnwardCheckpointToUsEast) {
  const auto o = run_fixture("residency.yaml", {"spec.data[health-ckpt].store=us-fs"});
  const auto& f = o.finding("eu-residency");
  ASSERT_EQ(f.status, policy::ComplianceStatus::FAIL);
  bool onward = false;
  for (const auto& ev : f.evidence) {
    const Event& e = o.event(ev.event);
    if (e.type != EventType::DATA_MOVE) continue;
    onward = true;
    EXPECT_EQ(o.run.data_movements.at(static_cast<size_t>(e.aux)).store, "us-fs");
  }
  EXPECT_TRUE(onward);
}

TEST(ComplianceScenario, ResidencyEnforceDeniesTheOnwardCheckpoint) {
  const auto o =
      run_fixture("residency.yaml", {"spec.data[health-ckpt].store=us-fs", "spec.compliance.rules[0].action=enforce"});
  const auto& f = o.finding("eu-residency");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  ASSERT_EQ(o.report.enforcement.size(), 1u);
  EXPECT_GE(o.report.enforcement[0].accesses_refused, 1u);
  const auto denied = o.events(EventType::DATA_DENIED);
  ASSERT_FALSE(denied.empty());
  EXPECT_EQ(o.run.data_movements.at(static_cast<size_t>(denied[0].aux)).reason, "compliance:eu-residency");
  // The refusal comes first, then its DATA_DENIED.
  ASSERT_GE(denied[0].seq, 1u);
  const Event& before = o.event(static_cast<int64_t>(denied[0].seq) - 1);
  EXPECT_EQ(before.type, EventType::COMPLIANCE_REFUSED);
  EXPECT_EQ(before.aux, 1);
}

// ---- co-tenancy (C14) and the leakage budget (C16)

TEST(ComplianceScenario, CoTenancyAuditReportsMpsBetweenClassifications) {
  const auto o = run_fixture("shared-gpu.yaml");
  const auto& f = o.finding("classification-isolation");
  ASSERT_EQ(f.status, policy::ComplianceStatus::FAIL) << f.message;
  const Event& e = o.event(f.evidence.at(0).event);
  EXPECT_EQ(e.type, EventType::PLACED);
  EXPECT_EQ(e.workload, o.workload("public-svc"));
  EXPECT_EQ(e.gpu, 0);
  // MPS between the tenants opens channels well above 100 bit/s.
  const auto& budget = o.finding("covert-budget");
  EXPECT_EQ(budget.status, policy::ComplianceStatus::FAIL) << budget.message;
  EXPECT_GT(budget.checked, 0u);
}

TEST(ComplianceScenario, CoTenancyPassesOnExclusiveGpus) {
  const auto o = run_fixture("shared-gpu.yaml", {"spec.cluster.nodePools[serve].sharing={mode: exclusive}"});
  EXPECT_EQ(o.finding("classification-isolation").status, policy::ComplianceStatus::PASS);
  // Exclusive GPUs of one node still leave channels between them (L2 over NVLink, PCIe; leakage.md).
  EXPECT_EQ(o.finding("covert-budget").status, policy::ComplianceStatus::FAIL);
}

TEST(ComplianceScenario, CoTenancyAndBudgetPassOnSeparateNodes) {
  const auto o = run_fixture("shared-gpu.yaml",
                             {"spec.cluster.nodePools[serve].sharing={mode: exclusive}",
                              "spec.cluster.nodePools[serve].count=2", "spec.cluster.nodePools[serve].gpusPerNode=1"});
  EXPECT_EQ(o.finding("classification-isolation").status, policy::ComplianceStatus::PASS);
  EXPECT_EQ(o.finding("covert-budget").status, policy::ComplianceStatus::PASS) << o.finding("covert-budget").message;
}

TEST(ComplianceScenario, CoTenancyEnforceSeparatesTheTenantsAtTheCostOfAGpu) {
  const auto o = run_fixture("shared-gpu.yaml", {"spec.compliance.rules[0].action=enforce"});
  const auto& f = o.finding("classification-isolation");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  EXPECT_EQ(f.prevented, 1u);
  const auto placed = o.events(EventType::PLACED);
  ASSERT_EQ(placed.size(), 2u);
  EXPECT_NE(placed[0].gpu, placed[1].gpu);  // two GPUs in use where audit packed one
  EXPECT_EQ(o.report.enforcement.at(0).workloads_affected, std::vector<std::string>{"public-svc"});
}

// ---- scrub between tenants (C15)

TEST(ComplianceScenario, ScrubAuditReportsTheResidueHandedToTheHealthJob) {
  const auto o = run_fixture("reuse.yaml");
  const auto& f = o.finding("scrub");
  ASSERT_EQ(f.status, policy::ComplianceStatus::FAIL) << f.message;
  const Event& e = o.event(f.evidence.at(0).event);
  EXPECT_EQ(e.type, EventType::MEM_RESIDUE);
  EXPECT_EQ(e.workload, o.workload("health-job"));
}

TEST(ComplianceScenario, ScrubPassesWithScrubOnFree) {
  const auto o = run_fixture("reuse.yaml", {"spec.policies.isolation.scrubOnFree=true"});
  const auto& f = o.finding("scrub");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  EXPECT_GE(f.checked, 1u);
  EXPECT_FALSE(o.events(EventType::MEM_SCRUBBED_REUSE).empty());
}

TEST(ComplianceScenario, ScrubEnforcePlacesTheHealthJobOnAFreshGpu) {
  const auto o = run_fixture("reuse.yaml", {"spec.compliance.rules[0].action=enforce"});
  const auto& f = o.finding("scrub");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  EXPECT_EQ(f.prevented, 1u);
  const auto placed = o.events(EventType::PLACED, o.workload("health-job"));
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].gpu, 1);
  EXPECT_TRUE(o.events(EventType::MEM_RESIDUE).empty());
}

// ---- encryption in transit and at rest (C17)

TEST(ComplianceScenario, EncryptionAuditReportsPlaintextReadsAndTheUnencryptedStore) {
  const auto o = run_fixture("encryption.yaml");
  const auto& transit = o.finding("tls");
  ASSERT_EQ(transit.status, policy::ComplianceStatus::FAIL) << transit.message;
  EXPECT_EQ(o.event(transit.evidence.at(0).event).type, EventType::DATA_MOVE);
  EXPECT_EQ(transit.evidence[0].resource, "records");
  const auto& rest = o.finding("at-rest");
  ASSERT_EQ(rest.status, policy::ComplianceStatus::FAIL) << rest.message;
  EXPECT_EQ(rest.evidence.at(0).resource, "records");
  EXPECT_EQ(o.report.failed, 2u);
}

TEST(ComplianceScenario, EncryptionPassesWithTlsAndAnEncryptedStore) {
  const auto o = run_fixture("encryption.yaml", {"spec.networkPolicies[0].encryptInTransit=true",
                                                 "spec.cluster.storage[lustre].encryptedAtRest=true"});
  EXPECT_EQ(o.finding("tls").status, policy::ComplianceStatus::PASS) << o.finding("tls").message;
  EXPECT_GT(o.finding("tls").checked, 0u);
  EXPECT_EQ(o.finding("at-rest").status, policy::ComplianceStatus::PASS);
  EXPECT_EQ(o.report.passed, 2u);
}

TEST(ComplianceScenario, EncryptionEnforceDeniesThePlaintextReads) {
  const auto o = run_fixture("encryption.yaml", {"spec.compliance.rules[0].action=enforce"});
  EXPECT_EQ(o.finding("tls").status, policy::ComplianceStatus::PASS) << o.finding("tls").message;
  ASSERT_EQ(o.report.enforcement.size(), 1u);
  EXPECT_GT(o.report.enforcement[0].accesses_refused, 0u);
  const auto denied = o.events(EventType::DATA_DENIED);
  ASSERT_FALSE(denied.empty());
  EXPECT_EQ(o.run.data_movements.at(static_cast<size_t>(denied[0].aux)).reason, "compliance:tls");
  EXPECT_TRUE(o.events(EventType::DATA_MOVE).empty());  // nothing crossed in plaintext
}

// ---- network segregation (C23)

TEST(ComplianceScenario, SegregationAuditReportsTheSharedLinkOfTwoTenantsReadingAtOnce) {
  const auto o = run_fixture("segregation.yaml");
  const auto& f = o.finding("segments");
  ASSERT_EQ(f.status, policy::ComplianceStatus::FAIL) << f.message;
  ASSERT_FALSE(f.evidence.empty());
  const Event& e = o.event(f.evidence[0].event);
  EXPECT_EQ(e.type, EventType::DATA_MOVE);
  EXPECT_EQ(e.workload, o.workload("health-train"));  // the matched tenant's flow is named
}

TEST(ComplianceScenario, SegregationPassesWhenTheHealthTenantHasItsOwnSegment) {
  const auto o = run_fixture("segregation.yaml", {"spec.networkPolicies[0].isolated=true"});
  const auto& f = o.finding("segments");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  EXPECT_GT(f.checked, 0u);
}

}  // namespace
}  // namespace gtw
