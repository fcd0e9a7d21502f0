// The identity and audit rules end to end, in-process: load a fixture (tests/fixtures/compliance/ia-*),
// run the engine, build the audit log and evaluate compliance. Each rule passes the compliant design and
// fails a broken one, naming the violating event or record; attestation-before-key-release refuses the
// key under enforce and reports the release under audit. One SimGrid engine per process: one run per test.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "ComplianceHarness.hpp"

namespace gtw {
namespace {

using compliance_test::Outcome;
using compliance_test::run_fixture;

const std::vector<std::string> AUDIT_POLICIES{"completeness", "content", "integrity", "retention",
                                              "gaps",         "unique",  "grants",    "revocation"};

// ---- the compliant design

TEST(IdentityAuditScenario, TheCompliantDesignPassesEveryRule) {
  const auto o = run_fixture("ia-audit.yaml");
  ASSERT_GE(o.events(EventType::DATA_MOVE).size(), 40u);  // a dataset read per step
  for (const auto& p : AUDIT_POLICIES) {
    const auto& f = o.finding(p);
    EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << p << ": " << f.message;
  }
  EXPECT_EQ(o.finding("completeness").checked, o.report.audit.records.size());
  EXPECT_GE(o.finding("integrity").checked, 40u);
  EXPECT_TRUE(o.report.chain.intact);
}

// ---- C4 and C8: a shipper outage (lost records, a gap) and a slow shipper (late records)

TEST(IdentityAuditScenario, AnOutageAndASlowShipperFailCompletenessAndTheGapAlarm) {
  const auto o = run_fixture("ia-audit.yaml", {"spec.audit.gaps=[{from: 5s, until: 15s}]", "spec.audit.delay=90s"});
  const auto& c = o.finding("completeness");
  ASSERT_EQ(c.status, policy::ComplianceStatus::FAIL);
  EXPECT_EQ(c.violations, c.checked);  // every access lost or late
  size_t lost = 0, late = 0;
  for (const auto& e : c.evidence) {
    const Event& ev = o.event(e.event);
    EXPECT_EQ(ev.type, EventType::DATA_MOVE);
    EXPECT_DOUBLE_EQ(e.time, ev.time);
    if (e.kind == "lost") {
      ++lost;
      EXPECT_GE(ev.time, 5.0);
      EXPECT_LT(ev.time, 15.0);
    } else {
      ASSERT_EQ(e.kind, "late");
      ++late;
      EXPECT_TRUE(ev.time < 5.0 || ev.time >= 15.0) << ev.time;
    }
  }
  EXPECT_GT(lost, 0u);
  EXPECT_GT(late, 0u);
  const auto& g = o.finding("gaps");
  ASSERT_EQ(g.status, policy::ComplianceStatus::FAIL) << g.message;
  ASSERT_EQ(g.evidence.size(), 1u);
  const Event& first = o.event(g.evidence[0].event);  // the first access without a record
  EXPECT_EQ(first.type, EventType::DATA_MOVE);
  EXPECT_GE(first.time, 5.0);
  EXPECT_EQ(o.report.audit.lost.front().event_seq, g.evidence[0].event);
  EXPECT_NE(g.evidence[0].detail.find("no alert"), std::string::npos) << g.evidence[0].detail;
}

TEST(IdentityAuditScenario, AlertingInTimeClosesTheGapFinding) {
  const auto o = run_fixture("ia-audit.yaml", {"spec.audit.gaps=[{from: 5s, until: 15s}]",
                                               "spec.compliance.rules[gaps].parameters="
                                               "{maxGap: 2, alertWithin: 5, alerting: true}"});
  EXPECT_EQ(o.finding("gaps").status, policy::ComplianceStatus::PASS) << o.finding("gaps").message;
  EXPECT_EQ(o.finding("gaps").checked, 1u);  // the gap was seen, and alerted on in time
}

// ---- C5, C6, C7: a tampered record, a shared store, short retention

TEST(IdentityAuditScenario, TamperingWithRecordThreeIsReportedAtRecordThree) {
  const auto o = run_fixture("ia-audit.yaml", {"spec.audit.tamper=[{record: 3, field: principal, value: \"\"}]",
                                               "spec.audit.separateStore=false", "spec.audit.retention=30d"});
  const auto& i = o.finding("integrity");
  ASSERT_EQ(i.status, policy::ComplianceStatus::FAIL);
  ASSERT_EQ(i.evidence.size(), 2u);
  EXPECT_EQ(i.evidence[0].resource, "spec.audit.separateStore");
  EXPECT_EQ(i.evidence[1].audit_record, 3);
  EXPECT_EQ(i.evidence[1].event, o.report.audit.records[3].event_seq);
  EXPECT_NE(i.evidence[1].detail.find("hash mismatch"), std::string::npos);
  const auto& c = o.finding("content");
  ASSERT_EQ(c.violations, 1u);
  EXPECT_EQ(c.evidence[0].audit_record, 3);
  EXPECT_NE(c.evidence[0].detail.find("principal"), std::string::npos);
  const auto& r = o.finding("retention");
  ASSERT_EQ(r.status, policy::ComplianceStatus::FAIL);
  ASSERT_EQ(r.evidence.size(), 2u);  // 30 days is short of both PCI (12 months) and FedRAMP (90 days)
  EXPECT_EQ(r.evidence[0].kind, "pci");
  EXPECT_EQ(r.evidence[1].kind, "fedramp");
}

// ---- C10, C11: a shared principal without a grant; an expired grant

TEST(IdentityAuditScenario, ASharedPrincipalFailsUniqueIdentityAndAuthorisation) {
  const auto o = run_fixture("ia-audit.yaml", {"spec.workloads[train].io.identity=ops"});
  const auto& u = o.finding("unique");
  ASSERT_EQ(u.status, policy::ComplianceStatus::FAIL);
  EXPECT_EQ(u.violations, u.checked);
  EXPECT_EQ(u.evidence[0].resource, "ops");
  EXPECT_EQ(o.event(u.evidence[0].event).type, EventType::DATA_MOVE);
  EXPECT_EQ(o.run.data_movements[static_cast<size_t>(o.event(u.evidence[0].event).aux)].identity, "ops");
  const auto& g = o.finding("grants");
  ASSERT_EQ(g.status, policy::ComplianceStatus::FAIL);
  EXPECT_EQ(g.violations, g.checked);
}

TEST(IdentityAuditScenario, AccessesAfterTheGrantExpiredAreNamed) {
  const auto o =
      run_fixture("ia-audit.yaml", {"spec.identity.grants=[{principal: svc-train, resource: records, until: 3s}]"});
  const auto& g = o.finding("grants");
  ASSERT_EQ(g.status, policy::ComplianceStatus::FAIL);
  ASSERT_LT(g.violations, g.checked);  // the reads before 3 s were granted
  for (const auto& e : g.evidence) EXPECT_GT(o.event(e.event).time, 3.0);
}

// ---- C12: a revocation during the run (strict: no grace)

TEST(IdentityAuditScenario, AccessesAfterARevocationFailUnderStrictMode) {
  const auto o = run_fixture("ia-audit.yaml", {"spec.identity.revocations=[{principal: svc-train, at: 4s}]"});
  const auto& r = o.finding("revocation");
  ASSERT_EQ(r.status, policy::ComplianceStatus::FAIL);
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_GT(o.event(r.evidence[0].event).time, 4.0);
  for (const auto& e : o.events(EventType::DATA_MOVE))
    if (e.time <= 4.0) {
      EXPECT_NE(e.seq, static_cast<uint64_t>(r.evidence[0].event));
    }
}

// ---- C18: attestation before key release, audit vs enforce

TEST(IdentityAuditScenario, KeyReleaseFollowsTheProfilesAttestationOnTheCcGpu) {
  const auto o = run_fixture("ia-keys.yaml");
  const int vault = o.workload("vault-svc"), plain = o.workload("plain-svc");
  const auto attest = o.events(EventType::ATTESTATION, vault);
  ASSERT_EQ(attest.size(), 1u);
  EXPECT_DOUBLE_EQ(attest[0].value, 1);
  // Confidential VM boot (5 s, models/hardware/Runtime.cpp) then the H100 profile's attestation (2 s).
  EXPECT_NEAR(attest[0].time, 5.0 + 2.0, 1e-9);
  const auto vault_keys = o.events(EventType::KEY_RELEASE, vault);
  ASSERT_EQ(vault_keys.size(), 1u);
  EXPECT_DOUBLE_EQ(vault_keys[0].value, 1);
  EXPECT_GE(vault_keys[0].seq, attest[0].seq);
  EXPECT_TRUE(o.events(EventType::ATTESTATION, plain).empty());
  // Audit: the plain GPU gets the key, and the rule names that release.
  const auto plain_keys = o.events(EventType::KEY_RELEASE, plain);
  ASSERT_EQ(plain_keys.size(), 1u);
  EXPECT_DOUBLE_EQ(plain_keys[0].value, 1);
  const auto& f = o.finding("keys");
  ASSERT_EQ(f.status, policy::ComplianceStatus::FAIL);
  EXPECT_EQ(f.checked, 2u);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].event, static_cast<int64_t>(plain_keys[0].seq));
  EXPECT_EQ(f.evidence[0].resource, "db-key");
  EXPECT_NE(f.evidence[0].detail.find("not in confidential-computing mode"), std::string::npos);
  EXPECT_GE(f.evidence[0].audit_record, 0) << "the release's own audit record";
  EXPECT_TRUE(o.events(EventType::COMPLIANCE_REFUSED).empty());
  EXPECT_GT(o.events(EventType::REQUEST_DONE, plain).size(), 10u);  // it serves with the key
}

TEST(IdentityAuditScenario, EnforceRefusesTheKeyOnTheOrdinaryGpu) {
  const auto o = run_fixture("ia-keys.yaml", {"spec.compliance.rules[0].action=enforce"});
  const int vault = o.workload("vault-svc"), plain = o.workload("plain-svc");
  const auto plain_keys = o.events(EventType::KEY_RELEASE, plain);
  ASSERT_EQ(plain_keys.size(), 1u);
  EXPECT_DOUBLE_EQ(plain_keys[0].value, 0);
  const auto refused = o.events(EventType::COMPLIANCE_REFUSED, plain);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_DOUBLE_EQ(refused[0].aux, 2);
  EXPECT_DOUBLE_EQ(refused[0].value, 0);  // rule 0
  EXPECT_LT(refused[0].seq, plain_keys[0].seq);
  ASSERT_EQ(o.events(EventType::KEY_RELEASE, vault).size(), 1u);
  EXPECT_DOUBLE_EQ(o.events(EventType::KEY_RELEASE, vault)[0].value, 1);
  const auto& f = o.finding("keys");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  EXPECT_EQ(f.prevented, 1u);
  // The cost: without its key the replica ends and serves nothing; the CC replica serves.
  const auto failed = o.events(EventType::WORKLOAD_FAILED, plain);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(static_cast<FailureReason>(failed[0].aux), FailureReason::KEY_REFUSED);
  EXPECT_TRUE(o.events(EventType::REQUEST_DONE, plain).empty());
  EXPECT_GT(o.events(EventType::REQUEST_DROPPED, plain).size(), 10u);
  EXPECT_GT(o.events(EventType::REQUEST_DONE, vault).size(), 10u);
}

TEST(IdentityAuditScenario, AnInjectedAttestationFailureWithholdsTheKeyUnderEnforce) {
  const auto o = run_fixture(
      "ia-keys.yaml", {"spec.workloads[vault-svc].attestationFailures=[{at: 0s}]",
                       "spec.workloads[plain-svc].placement.nodePool=cc", "spec.compliance.rules[0].action=enforce"});
  const int vault = o.workload("vault-svc"), plain = o.workload("plain-svc");
  ASSERT_EQ(o.events(EventType::ATTESTATION, vault).size(), 1u);
  EXPECT_DOUBLE_EQ(o.events(EventType::ATTESTATION, vault)[0].value, 0);
  EXPECT_DOUBLE_EQ(o.events(EventType::KEY_RELEASE, vault)[0].value, 0);
  EXPECT_EQ(o.events(EventType::COMPLIANCE_REFUSED, vault).size(), 1u);
  // plain-svc now runs on the other CC GPU: attested, released.
  EXPECT_DOUBLE_EQ(o.events(EventType::ATTESTATION, plain)[0].value, 1);
  EXPECT_DOUBLE_EQ(o.events(EventType::KEY_RELEASE, plain)[0].value, 1);
  EXPECT_EQ(o.finding("keys").prevented, 1u);
  EXPECT_EQ(o.finding("keys").status, policy::ComplianceStatus::PASS);
}

TEST(IdentityAuditScenario, AnAttestationFailureUnderAuditReleasesTheKeyAndIsReported) {
  const auto o = run_fixture("ia-keys.yaml", {"spec.workloads[vault-svc].attestationFailures=[{at: 0s}]",
                                              "spec.workloads[plain-svc].placement.nodePool=cc"});
  const int vault = o.workload("vault-svc");
  const auto keys = o.events(EventType::KEY_RELEASE, vault);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_DOUBLE_EQ(keys[0].value, 1);
  const auto& f = o.finding("keys");
  ASSERT_EQ(f.status, policy::ComplianceStatus::FAIL);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].event, static_cast<int64_t>(keys[0].seq));
  EXPECT_NE(f.evidence[0].detail.find("failed"), std::string::npos) << f.evidence[0].detail;
}

TEST(IdentityAuditScenario, BothReplicasOnCcGpusPass) {
  const auto o = run_fixture("ia-keys.yaml", {"spec.workloads[plain-svc].placement.nodePool=cc"});
  const auto& f = o.finding("keys");
  EXPECT_EQ(f.status, policy::ComplianceStatus::PASS) << f.message;
  EXPECT_EQ(f.checked, 2u);
  EXPECT_EQ(o.events(EventType::ATTESTATION).size(), 2u);
}

}  // namespace
}  // namespace gtw
