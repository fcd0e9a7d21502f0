// The identity and audit compliance rules (policies/compliance/IdentityAuditRules.cpp) over synthetic
// event logs and audit streams: each rule passes a compliant input, fails a violating one and names the
// violating event or audit record.
#include <gtest/gtest.h>

#include "BuiltinRules.hpp"
#include "CheckRules.hpp"
#include "Sha256.hpp"

namespace gtw::policy {
namespace {

// A restricted health tenant and a public one; the health tenant's dataset `records` on store eu-fs and
// its secret `db-key` (requires attestation); GPU 0 in confidential-computing mode, GPU 1 exclusive.
struct World {
  ScenarioSpec spec;
  RunResult run;
  audit::AuditLog audit;
  std::vector<identity::IdentityPath> paths;
  std::vector<ChannelCapacity> channels;

  World() {
    spec.duration = Seconds(100);
    TenantSpec health, pub;
    health.name = "health";
    health.classification = Classification::RESTRICTED;
    pub.name = "public";
    pub.classification = Classification::PUBLIC;
    spec.tenants = {health, pub};
    DataSpec records;
    records.name = "records";
    records.tenant = "health";
    records.tenant_index = 0;
    records.store = "eu-fs";
    spec.data = {records};
    SecretSpec key;
    key.name = "db-key";
    key.tenant = "health";
    key.tenant_index = 0;
    key.path = "secret/data/health/db";
    key.requires_attestation = true;
    SecretSpec token = key;
    token.name = "api-token";
    token.path = "secret/data/health/api";
    token.requires_attestation = false;
    spec.identity.secrets = {key, token};
    spec.identity.principals = {principal("svc-train", PrincipalKind::SERVICE_ACCOUNT),
                                principal("alice", PrincipalKind::USER), principal("ops", PrincipalKind::SHARED),
                                principal("guest", PrincipalKind::ANONYMOUS)};
    WorkloadSpec train;
    train.name = "train";
    train.tenant = "health";
    train.tenant_index = 0;
    train.io.identity = "svc-train";
    train.secrets = {"db-key"};
    spec.workloads = {train};
    run.gpus = {layout(0, "confidential"), layout(1, "exclusive")};
    run.end_time = 100;
  }

  static PrincipalSpec principal(const std::string& name, PrincipalKind kind) {
    PrincipalSpec p;
    p.name = name;
    p.tenant = "health";
    p.tenant_index = 0;
    p.kind = kind;
    return p;
  }

  static GpuLayout layout(int index, const std::string& sharing) {
    GpuLayout l;
    l.index = index;
    l.node = index;
    l.node_name = "node-" + std::to_string(index);
    l.sharing = sharing_mode_from_name(sharing).value();
    return l;
  }

  int64_t emit(double t, EventType type, int workload, int replica, int gpu, double value = 0, double aux = 0) {
    run.log.append({t, 0, type, 0, workload, replica, gpu, value, aux});
    return static_cast<int64_t>(run.log.size() - 1);
  }

  // A read (or another operation) of `records` by `principal`; refused when !allowed. Returns its seq.
  int64_t access(double t, const std::string& principal, const std::string& operation = "read", bool allowed = true) {
    DataMovement m;
    m.start = m.end = t;
    m.data = 0;
    m.owner = 0;
    m.tenant = 0;
    m.workload = 0;
    m.gpu = 1;
    m.identity = principal;
    m.operation = operation;
    m.from = "store:eu-fs/server0";
    m.to = "gpu:1";
    m.store = "eu-fs";
    m.bytes = 1e6;
    m.allowed = allowed;
    run.data_movements.push_back(m);
    return emit(t, allowed ? EventType::DATA_MOVE : EventType::DATA_DENIED, 0, 0, 1, 1e6,
                static_cast<double>(run.data_movements.size() - 1));
  }

  // An audit record of event `seq` written at `written`, with every field filled.
  audit::AuditRecord& record(int64_t seq, double written) {
    const Event& e = run.log.events()[static_cast<size_t>(seq)];
    audit::AuditRecord r;
    r.event_seq = seq;
    r.t_event = e.time;
    r.t_written = written;
    r.type = "dataRead";
    r.principal = "svc-train";
    r.tenant = 0;
    r.owner = 0;
    r.resource = "records";
    r.source = "store:eu-fs/server0";
    r.location = "gpu:1";
    r.outcome = "success";
    audit.records.push_back(r);
    return audit.records.back();
  }

  // Numbers the records and links them into a valid hash chain.
  void chain() {
    std::string previous;
    for (size_t i = 0; i < audit.records.size(); ++i) {
      auto& r = audit.records[i];
      r.index = i;
      r.hash_prev = previous;
      r.hash = sha256_hex(audit::canonical_text(r));
      previous = r.hash;
    }
  }

  // `n` accesses one second apart from t = 1, each recorded one second later, chained.
  void recorded_accesses(int n) {
    for (int i = 0; i < n; ++i) record(access(1.0 + i, "svc-train"), 2.0 + i);
    chain();
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

// ---- C4 audit completeness and latency

TEST(AuditCompletenessRule, EveryAccessRecordedInTimePasses) {
  World w;
  w.recorded_accesses(5);
  const auto f = w.evaluate(rule("audit-completeness"));
  EXPECT_EQ(f.status, ComplianceStatus::PASS) << f.message;
  EXPECT_EQ(f.checked, 5u);
  EXPECT_EQ(f.rule_id, "C4");
}

TEST(AuditCompletenessRule, LostAndLateRecordsAreSeparateEvidenceKinds) {
  World w;
  w.record(w.access(1, "svc-train"), 2);
  const int64_t late = w.access(2, "svc-train");
  const int64_t lost = w.access(3, "svc-train");
  w.record(late, 2 + 90);  // 90 s > 60 s
  w.audit.lost.push_back({lost, 3, "gap"});
  w.chain();
  const auto f = w.evaluate(rule("audit-completeness"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.checked, 3u);
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].kind, "late");
  EXPECT_EQ(f.evidence[0].event, late);
  EXPECT_EQ(f.evidence[0].audit_record, 1);
  EXPECT_EQ(f.evidence[1].kind, "lost");
  EXPECT_EQ(f.evidence[1].event, lost);
  EXPECT_DOUBLE_EQ(f.evidence[1].time, 3);
  EXPECT_NE(f.message.find("1 lost"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("1 late"), std::string::npos) << f.message;
  // The latency bound is a parameter; refusals and key releases are audited too.
  EXPECT_EQ(w.evaluate(rule("audit-completeness", {{"maxDelay", 120.0}})).violations, 1u);
  const int64_t denied = w.access(4, "guest", "read", false);
  const int64_t key = w.emit(5, EventType::KEY_RELEASE, 0, 0, 0, 1, 0);
  const auto g = w.evaluate(rule("audit-completeness", {{"maxDelay", 120.0}}));
  ASSERT_EQ(g.violations, 3u);
  EXPECT_EQ(g.evidence[1].event, denied);
  EXPECT_EQ(g.evidence[1].kind, "missing");
  EXPECT_EQ(g.evidence[2].event, key);
  EXPECT_EQ(g.evidence[2].resource, "db-key");
}

TEST(AuditCompletenessRule, MatchLimitsItToTheSelectedTenantsData) {
  World w;
  w.access(1, "svc-train");  // no record
  auto r = rule("audit-completeness");
  r.match.tenants = {"public"};
  const auto f = w.evaluate(r);
  EXPECT_EQ(f.status, ComplianceStatus::PASS);
  EXPECT_EQ(f.checked, 0u);
}

// ---- C5 audit content

TEST(AuditContentRule, CompleteRecordsPassAndAnEmptyFieldIsNamedAtItsRecord) {
  World w;
  w.recorded_accesses(4);
  EXPECT_EQ(w.evaluate(rule("audit-content")).status, ComplianceStatus::PASS);
  w.audit.records[2].principal.clear();
  w.audit.records[2].source.clear();
  const auto f = w.evaluate(rule("audit-content"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].audit_record, 2);
  EXPECT_EQ(f.evidence[0].event, w.audit.records[2].event_seq);
  EXPECT_NE(f.evidence[0].detail.find("source, principal"), std::string::npos) << f.evidence[0].detail;
}

// ---- C6 audit integrity

TEST(AuditIntegrityRule, AnIntactChainOnASeparateStorePasses) {
  World w;
  w.recorded_accesses(6);
  const auto f = w.evaluate(rule("audit-integrity"));
  EXPECT_EQ(f.status, ComplianceStatus::PASS) << f.message;
  EXPECT_EQ(f.checked, 6u);
}

TEST(AuditIntegrityRule, TamperingWithRecordKIsReportedAtRecordK) {
  for (int k : {0, 3, 5}) {
    World w;
    w.recorded_accesses(6);
    w.audit.records[static_cast<size_t>(k)].principal = "someone-else";  // modified after it was written
    const auto f = w.evaluate(rule("audit-integrity"));
    ASSERT_EQ(f.status, ComplianceStatus::FAIL) << k;
    ASSERT_EQ(f.evidence.size(), 1u) << k;
    EXPECT_EQ(f.evidence[0].audit_record, k);
    EXPECT_EQ(f.evidence[0].event, w.audit.records[static_cast<size_t>(k)].event_seq);
    EXPECT_NE(f.evidence[0].detail.find("hash mismatch"), std::string::npos);
  }
}

TEST(AuditIntegrityRule, EveryModifiedRecordAndADeletionAreNamed) {
  World w;
  w.recorded_accesses(8);
  w.audit.records[1].outcome = "denied";
  w.audit.records[6].resource = "other";
  auto f = w.evaluate(rule("audit-integrity"));
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].audit_record, 1);
  EXPECT_EQ(f.evidence[1].audit_record, 6);
  World d;
  d.recorded_accesses(8);
  d.audit.records.erase(d.audit.records.begin() + 4);  // record 4 deleted: the stream breaks where it was
  f = d.evaluate(rule("audit-integrity"));
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].audit_record, 4);
  EXPECT_NE(f.evidence[0].detail.find("index gap"), std::string::npos) << f.evidence[0].detail;
}

// evaluate_compliance hands the rule the chain check it already made (ComplianceInput::chain): the
// finding must be the one the rule reaches verifying on its own.
TEST(AuditIntegrityRule, AChainCheckFromTheCallerGivesTheSameFinding) {
  for (int k : {-1, 0, 3, 5}) {
    World w;
    w.recorded_accesses(6);
    if (k >= 0) w.audit.records[static_cast<size_t>(k)].resource = "elsewhere";
    const ComplianceRuleSpec cfg = with_rule_defaults(rule("audit-integrity"));
    const auto own = w.evaluate(cfg);
    const audit::ChainCheck check = audit::verify_chain(w.audit.records);
    const ComplianceInput in{w.spec, w.run, w.audit, w.paths, w.channels, &check};
    const auto given = builtin_compliance_registry().create(cfg.rule, cfg.params)->evaluate(in, cfg);
    EXPECT_EQ(given.status, k < 0 ? ComplianceStatus::PASS : ComplianceStatus::FAIL) << k;
    EXPECT_EQ(given.status, own.status) << k;
    EXPECT_EQ(given.message, own.message) << k;
    ASSERT_EQ(given.evidence.size(), own.evidence.size()) << k;
    for (size_t i = 0; i < given.evidence.size(); ++i) {
      EXPECT_EQ(given.evidence[i].audit_record, own.evidence[i].audit_record) << k;
      EXPECT_EQ(given.evidence[i].detail, own.evidence[i].detail) << k;
    }
  }
}

TEST(AuditIntegrityRule, UnchainedOrSharedStoreFails) {
  World w;
  w.recorded_accesses(3);
  w.spec.audit.hash_chained = false;
  auto f = w.evaluate(rule("audit-integrity"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.evidence[0].resource, "spec.audit.hashChained");
  w.spec.audit.hash_chained = true;
  w.spec.audit.separate_store = false;
  f = w.evaluate(rule("audit-integrity"));  // auto: required, the health tenant is restricted (High)
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.evidence[0].resource, "spec.audit.separateStore");
  EXPECT_EQ(w.evaluate(rule("audit-integrity", {{"requireSeparateStore", std::string("false")}})).status,
            ComplianceStatus::PASS);
  auto only_public = rule("audit-integrity");
  only_public.match.tenants = {"public"};
  EXPECT_EQ(w.evaluate(only_public).status, ComplianceStatus::PASS);  // auto: public data is not High
}

// ---- C7 retention

TEST(AuditRetentionRule, RetentionMustCoverTheLongestDeclaredRegime) {
  World w;
  w.spec.audit.retention = Seconds(200 * 86400.0);
  EXPECT_EQ(w.evaluate(rule("audit-retention")).status, ComplianceStatus::PASS);  // ai-act: 6 months
  const auto f = w.evaluate(rule("audit-retention", {{"regimes", std::string("fedramp,pci,hipaa")}}));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.checked, 3u);
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].kind, "pci");
  EXPECT_EQ(f.evidence[1].kind, "hipaa");
  EXPECT_NE(f.message.find("HIPAA"), std::string::npos) << f.message;
  w.spec.audit.retention = Seconds(30 * 86400.0);
  EXPECT_EQ(w.evaluate(rule("audit-retention")).status, ComplianceStatus::FAIL);
  w.spec.audit.retention = Seconds(0);  // kept forever
  EXPECT_EQ(w.evaluate(rule("audit-retention", {{"regimes", std::string("hipaa")}})).status, ComplianceStatus::PASS);
  EXPECT_EQ(w.evaluate(rule("audit-retention", {{"regimes", std::string("sox")}})).status, ComplianceStatus::ERROR);
}

// ---- C8 logging-gap alarm

// Accesses every 60 s from t = 0 to 1200; those in [300, 900] lose their records.
World gap_world() {
  World w;
  w.run.end_time = 1300;
  for (int t = 0; t <= 1200; t += 60) {
    const int64_t seq = w.access(t, "svc-train");
    if (t >= 300 && t <= 900)
      w.audit.lost.push_back({seq, static_cast<double>(t), "gap"});
    else
      w.record(seq, t + 1);
  }
  w.chain();
  return w;
}

TEST(LoggingGapAlarmRule, AGapWithoutAlertingFailsWithItsStartEndAndLostAccesses) {
  World w = gap_world();
  const auto f = w.evaluate(rule("logging-gap-alarm"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].event, 5);  // the first unrecorded access (t = 300)
  EXPECT_DOUBLE_EQ(f.evidence[0].time, 300);
  EXPECT_NE(f.evidence[0].detail.find("from t=300 s to t=960 s"), std::string::npos) << f.evidence[0].detail;
  EXPECT_NE(f.evidence[0].detail.find("11 access(es)"), std::string::npos) << f.evidence[0].detail;
}

TEST(LoggingGapAlarmRule, AlertingInTimePassesAndLateAlertingFails) {
  World w = gap_world();
  EXPECT_EQ(w.evaluate(rule("logging-gap-alarm", {{"alerting", true}})).status, ComplianceStatus::PASS);
  EXPECT_EQ(w.evaluate(rule("logging-gap-alarm", {{"alerting", true}, {"alertDelay", 700.0}})).status,
            ComplianceStatus::FAIL);  // 300 + 700 > 900
  EXPECT_EQ(w.evaluate(rule("logging-gap-alarm", {{"maxGap", 900.0}})).status,
            ComplianceStatus::PASS);  // 660 s is within a 15-minute tolerance
}

TEST(LoggingGapAlarmRule, ShortLossesAreNoGap) {
  World w;
  w.record(w.access(0, "svc-train"), 1);
  w.audit.lost.push_back({w.access(60, "svc-train"), 60, "dropped"});
  w.record(w.access(120, "svc-train"), 121);
  w.chain();
  const auto f = w.evaluate(rule("logging-gap-alarm"));
  EXPECT_EQ(f.status, ComplianceStatus::PASS) << f.message;
}

// ---- C10 unique identity

TEST(UniqueIdentityRule, SharedAndAnonymousPrincipalsAreNamed) {
  World w;
  w.access(1, "svc-train");
  w.access(2, "alice");
  EXPECT_EQ(w.evaluate(rule("unique-identity")).status, ComplianceStatus::PASS);
  const int64_t shared = w.access(3, "ops");
  const int64_t anonymous = w.access(4, "guest", "read", false);  // refused, still unaccountable
  const int64_t nobody = w.access(5, "");
  const auto f = w.evaluate(rule("unique-identity"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  ASSERT_EQ(f.evidence.size(), 3u);
  EXPECT_EQ(f.evidence[0].event, shared);
  EXPECT_EQ(f.evidence[0].kind, "shared");
  EXPECT_EQ(f.evidence[0].resource, "ops");
  EXPECT_EQ(f.evidence[1].event, anonymous);
  EXPECT_EQ(f.evidence[1].kind, "anonymous");
  EXPECT_EQ(f.evidence[2].event, nobody);
}

// ---- C11 authorisation

TEST(AuthorisationRule, AccessesNeedAGrantValidAtTheirTime) {
  World w;
  GrantSpec g;
  g.principal = "svc-train";
  g.resource = "records";
  g.actions = {"read"};
  g.from = Seconds(10);
  g.until = Seconds(50);
  w.spec.identity.grants = {g};
  w.access(20, "svc-train");
  w.access(30, "alice", "read", false);  // refused: the ACL worked
  EXPECT_EQ(w.evaluate(rule("authorisation")).status, ComplianceStatus::PASS);
  const int64_t early = w.access(5, "svc-train");
  const int64_t expired = w.access(60, "svc-train");
  const int64_t write = w.access(40, "svc-train", "write");
  const auto f = w.evaluate(rule("authorisation"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  EXPECT_EQ(f.checked, 5u);
  ASSERT_EQ(f.evidence.size(), 3u);
  EXPECT_EQ(f.evidence[0].event, early);
  EXPECT_EQ(f.evidence[1].event, expired);
  EXPECT_EQ(f.evidence[2].event, write);
  EXPECT_NE(f.evidence[2].detail.find("does not cover write"), std::string::npos) << f.evidence[2].detail;
}

TEST(AuthorisationRule, AGrantOnTheStoreOrTheSecretPathCovers) {
  World w;
  GrantSpec store;
  store.principal = "svc-train";
  store.resource = "eu-fs";
  GrantSpec path = store;
  path.resource = "secret/data/health/db";
  path.actions = {"use"};
  w.access(1, "svc-train", "write");
  w.emit(2, EventType::KEY_RELEASE, 0, 0, 0, 1, 0);
  w.spec.identity.grants = {store};
  const auto f = w.evaluate(rule("authorisation"));
  ASSERT_EQ(f.violations, 1u);
  EXPECT_EQ(f.evidence[0].resource, "db-key");
  w.spec.identity.grants = {store, path};
  EXPECT_EQ(w.evaluate(rule("authorisation")).status, ComplianceStatus::PASS);
}

// ---- C12 timely revocation

TEST(TimelyRevocationRule, AccessesAfterTheGracePeriodFail) {
  World w;
  RevocationSpec r;
  r.principal = "alice";
  r.at = Seconds(100);
  w.spec.identity.revocations = {r};
  w.access(50, "alice");
  const int64_t within = w.access(100 + 3600, "alice");
  w.access(100 + 3600, "alice", "read", false);  // refused: fine
  EXPECT_EQ(w.evaluate(rule("timely-revocation")).status, ComplianceStatus::PASS);
  const auto strict = w.evaluate(rule("timely-revocation", {{"strict", true}}));
  ASSERT_EQ(strict.violations, 1u);
  EXPECT_EQ(strict.evidence[0].event, within);
  const int64_t late = w.access(100 + 25 * 3600, "alice");
  const auto f = w.evaluate(rule("timely-revocation"));
  ASSERT_EQ(f.status, ComplianceStatus::FAIL);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].event, late);
  EXPECT_EQ(f.evidence[0].kind, "after-revocation");
}

// ---- C18 attestation before key release

TEST(AttestationBeforeKeyReleaseRule, AFreshAttestationInCcModeBeforeTheReleasePasses) {
  World w;
  w.emit(0, EventType::PLACED, 0, 0, 0);
  w.emit(7, EventType::ATTESTATION, 0, 0, 0, 1);
  w.emit(7, EventType::KEY_RELEASE, 0, 0, 0, 1, 0);
  const auto f = w.evaluate(rule("attestation-before-key-release"));
  EXPECT_EQ(f.status, ComplianceStatus::PASS) << f.message;
  EXPECT_EQ(f.checked, 1u);
  EXPECT_EQ(f.severity, "critical");
}

TEST(AttestationBeforeKeyReleaseRule, EachWayOfMissingTheAttestationIsNamed) {
  struct Case {
    const char* what;
    int gpu;
    double attest_value;  // < 0: no attestation
    double attest_at;
    const char* expect;
  };
  for (const Case c : {Case{"non-CC GPU", 1, -1, 0, "not in confidential-computing mode"},
                       Case{"no attestation", 0, -1, 0, "no attestation"},
                       Case{"failed attestation", 0, 0, 5, "failed"}, Case{"stale attestation", 0, 1, 5, "old"}}) {
    World w;
    w.emit(0, EventType::PLACED, 0, 0, c.gpu);
    if (c.attest_value >= 0) w.emit(c.attest_at, EventType::ATTESTATION, 0, 0, c.gpu, c.attest_value);
    const int64_t release = w.emit(100, EventType::KEY_RELEASE, 0, 0, c.gpu, 1, 0);
    const auto f = w.evaluate(rule("attestation-before-key-release", {{"freshness", 60.0}}));
    ASSERT_EQ(f.status, ComplianceStatus::FAIL) << c.what;
    ASSERT_EQ(f.evidence.size(), 1u) << c.what;
    EXPECT_EQ(f.evidence[0].event, release) << c.what;
    EXPECT_EQ(f.evidence[0].resource, "db-key") << c.what;
    EXPECT_NE(f.evidence[0].detail.find(c.expect), std::string::npos) << c.what << ": " << f.evidence[0].detail;
  }
}

TEST(AttestationBeforeKeyReleaseRule, OnlySecretsThatRequireItUnlessAllSecrets) {
  World w;
  w.emit(0, EventType::PLACED, 0, 0, 1);
  w.emit(1, EventType::KEY_RELEASE, 0, 0, 1, 1, 1);  // api-token on the plain GPU
  EXPECT_EQ(w.evaluate(rule("attestation-before-key-release")).status, ComplianceStatus::PASS);
  EXPECT_EQ(w.evaluate(rule("attestation-before-key-release", {{"allSecrets", true}})).status, ComplianceStatus::FAIL);
}

TEST(AttestationBeforeKeyReleaseRule, EnforceRefusesAndCountsThePreventedRelease) {
  World w;
  auto cfg = with_rule_defaults(rule("attestation-before-key-release"));
  cfg.action = ComplianceAction::ENFORCE;
  w.spec.compliance.rules = {cfg};
  const auto r = builtin_compliance_registry().create(cfg.rule, cfg.params);
  const KeyReleaseCheck plain{w.spec, 0, 0, 0, {1}, false, -1, 10};
  ASSERT_TRUE(r->refuse_key_release(plain, cfg));
  EXPECT_NE(r->refuse_key_release(plain, cfg)->find("confidential"), std::string::npos);
  const KeyReleaseCheck unattested{w.spec, 0, 0, 0, {0}, true, -1, 10};
  EXPECT_TRUE(r->refuse_key_release(unattested, cfg));
  const KeyReleaseCheck stale{w.spec, 0, 0, 0, {0}, true, 0, 2 * 86400.0};
  EXPECT_TRUE(r->refuse_key_release(stale, cfg));
  const KeyReleaseCheck fresh{w.spec, 0, 0, 0, {0}, true, 8, 10};
  EXPECT_FALSE(r->refuse_key_release(fresh, cfg));
  const KeyReleaseCheck token{w.spec, 0, 0, 1, {1}, false, -1, 10};  // api-token needs no attestation
  EXPECT_FALSE(r->refuse_key_release(token, cfg));
  // The engine's record of a refusal: COMPLIANCE_REFUSED (rule 0, aux 2) then KEY_RELEASE value 0.
  w.emit(0, EventType::PLACED, 0, 0, 1);
  w.emit(5, EventType::COMPLIANCE_REFUSED, 0, 0, 1, 0, 2);
  w.emit(5, EventType::KEY_RELEASE, 0, 0, 1, 0, 0);
  const auto f = w.evaluate(cfg);
  EXPECT_EQ(f.status, ComplianceStatus::PASS) << f.message;
  EXPECT_EQ(f.prevented, 1u);
  EXPECT_EQ(f.action, ComplianceAction::ENFORCE);
}

TEST(IdentityAuditRules, RegisteredWithTheirIdsAndEnforceability) {
  const std::vector<std::pair<std::string, std::string>> ids{
      {"audit-completeness", "C4"}, {"audit-content", "C5"},      {"audit-integrity", "C6"},
      {"audit-retention", "C7"},    {"logging-gap-alarm", "C8"},  {"unique-identity", "C10"},
      {"authorisation", "C11"},     {"timely-revocation", "C12"}, {"attestation-before-key-release", "C18"},
      {"no-confused-deputy", "C11"}};
  for (const auto& [name, id] : ids) {
    ASSERT_NE(builtin_compliance_registry().find(name), nullptr) << name;
    EXPECT_EQ(compliance_rule_info(name).rule_id, id);
    EXPECT_FALSE(compliance_rule_info(name).requirements.empty()) << name;
    EXPECT_EQ(compliance_rule_info(name).enforceable, name == "attestation-before-key-release") << name;
  }
}

}  // namespace
}  // namespace gtw::policy
