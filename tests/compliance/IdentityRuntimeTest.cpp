// Identity and secrets at run time (docs/models/identity.md, "Invocations at run time", "Secrets over time";
// docs/models/compliance.md, "Secrets and incidents"). The fixture tests/fixtures/scenarios/agents-secrets.yaml:
// bob calls the health tenant's RAG agent at 12, 14 and 20 s; its record read (2 s) replaces his identity;
// bob is revoked at 15 s; the records' credential rotates every 60 s and leaks at 30 s (known at 40 s,
// rotated 5 s later). Unit tests walk the invocations in-process; the end-to-end tests run the binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "IdentityGraph.hpp"
#include "Loader.hpp"
#include "ReportRun.hpp"
#include "Subprocess.hpp"

namespace gtw {
namespace {

using json = nlohmann::json;
const std::string FIXTURE = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/agents-secrets.yaml";

ScenarioSpec load_fixture(const std::vector<std::string>& sets = {}) {
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(*parse_override(s));
  Diagnostics diags;
  ScenarioSpec spec = load_scenario(FIXTURE, overrides, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.format_all();
  return spec;
}

const InvocationStep* find_step(const std::vector<InvocationStep>& steps, int call, const std::string& to) {
  for (const auto& s : steps)
    if (s.call == call && s.to == to) return &s;
  return nullptr;
}

TEST(InvocationsAtRunTime, TheDeputyHopHappensAtTheCallTimePlusTheLatencies) {
  const auto steps = identity::simulate_invocations(load_fixture(), 5);
  // 3 calls: the first two walk 5 hops each (agent, records, credential, tool, corpus), the third is refused.
  ASSERT_EQ(steps.size(), 11u);
  const auto first =
      std::find_if(steps.begin(), steps.end(), [](const InvocationStep& s) { return s.confused_deputy; });
  ASSERT_NE(first, steps.end());
  EXPECT_DOUBLE_EQ(first->time, 14.02);  // 12 s + 20 ms (bob -> agent) + 2 s (the read)
  EXPECT_EQ(first->principal, "bob");
  EXPECT_EQ(first->to, "patient-records");
  EXPECT_EQ(first->identity, "sa-rag");
  EXPECT_EQ(first->propagation, "replace");
  EXPECT_EQ(first->owner, 0);  // health
  EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end(),
                             [](const InvocationStep& a, const InvocationStep& b) { return a.time < b.time; }));
}

TEST(InvocationsAtRunTime, ALocallyCheckedTokenOutlivesItsSubjectsRevocation) {
  const auto steps = identity::simulate_invocations(load_fixture(), 5);
  // Call 1 starts at 14 s, before the revocation at 15 s; the tool sees bob's token at 16.06 s.
  const auto* tool = find_step(steps, 1, "search-tool");
  ASSERT_NE(tool, nullptr);
  EXPECT_TRUE(tool->allowed);
  EXPECT_TRUE(tool->after_revocation);
  EXPECT_DOUBLE_EQ(tool->token_issued, 14.0);
  // The deputy's own fresh credential hides bob's revocation: the read at 16.02 s is not "after revocation".
  const auto* read = find_step(steps, 1, "patient-records");
  ASSERT_NE(read, nullptr);
  EXPECT_TRUE(read->allowed && read->confused_deputy && !read->after_revocation);
  // At 20 s the issuer refuses a token to the revoked bob: the call ends at its first hop.
  const auto* refused = find_step(steps, 2, "rag-agent");
  ASSERT_NE(refused, nullptr);
  EXPECT_FALSE(refused->allowed);
  EXPECT_EQ(refused->reason, "revoked");
  EXPECT_EQ(find_step(steps, 2, "patient-records"), nullptr);
}

TEST(InvocationsAtRunTime, ATokenExchangeAfterTheRevocationIsRefusedByTheIssuer) {
  // The agent exchanges bob's token for the tool (instead of passing it through): the exchange at 16.06 s, after
  // bob's revocation at 15 s, is refused as revoked although his own token, checked locally, would still work.
  const auto steps = identity::simulate_invocations(load_fixture({"spec.identity.edges[3].propagation=exchange"}), 5);
  const auto* tool = find_step(steps, 1, "search-tool");
  ASSERT_NE(tool, nullptr);
  EXPECT_FALSE(tool->allowed);
  EXPECT_EQ(tool->reason, "revoked");
  EXPECT_EQ(find_step(steps, 1, "open-corpus"), nullptr);
  // Before the revocation the exchange is issued, capped at the subject token's expiry.
  const auto* early = find_step(steps, 0, "search-tool");
  ASSERT_NE(early, nullptr);
  EXPECT_TRUE(early->allowed && early->narrowed);
  EXPECT_DOUBLE_EQ(early->token_expires, 12.0 + 3600.0);
}

TEST(InvocationsAtRunTime, IntrospectionRefusesFromTheRevocationOn) {
  const auto steps = identity::simulate_invocations(load_fixture({"spec.identity.tokenValidation=introspection"}), 5);
  EXPECT_TRUE(std::none_of(steps.begin(), steps.end(), [](const InvocationStep& s) { return s.after_revocation; }));
  for (const std::string to : {"patient-records", "records-db", "search-tool"}) {
    const auto* s = find_step(steps, 1, to);
    ASSERT_NE(s, nullptr) << to;
    EXPECT_FALSE(s->allowed) << to;
    EXPECT_EQ(s->reason, "revoked") << to;
  }
}

TEST(InvocationsAtRunTime, ExpiredTokensExchangesAndGrantWindowsRefuse) {
  // A 1 s token is dead by the agent's hops 2 s into each call.
  const auto expired = identity::simulate_invocations(load_fixture({"spec.identity.tokenLifetime=1s"}), 5);
  const auto* read = find_step(expired, 0, "patient-records");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->reason, "tokenExpired");
  // An exchange narrows bob's identity to his own grants (none): refused, no deputy.
  const auto exchanged =
      identity::simulate_invocations(load_fixture({"spec.identity.edges[1].propagation=exchange"}), 5);
  read = find_step(exchanged, 0, "patient-records");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->reason, "notGranted");
  EXPECT_FALSE(read->confused_deputy);
  // The deputy's grant on the credential (a secret: no ACL admits it) ends at 13 s: its use at 14.04 s is
  // refused although the static graph, which ignores grant windows, has the path.
  const auto lapsed = identity::simulate_invocations(load_fixture({"spec.identity.grants[1].until=13s"}), 5);
  read = find_step(lapsed, 0, "records-db");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->reason, "notGranted");
}

TEST(InvocationsAtRunTime, PoissonCallsAndHopProbabilitiesAreSeeded) {
  const std::vector<std::string> poisson = {"spec.identity.invocations[0].at=[]",
                                            "spec.identity.invocations[0].rate=5/s", "spec.identity.revocations=[]"};
  const auto a = identity::simulate_invocations(load_fixture(poisson), 5);
  const auto b = identity::simulate_invocations(load_fixture(poisson), 5);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].time, b[i].time);
  const auto calls = std::count_if(a.begin(), a.end(), [](const InvocationStep& s) { return s.hop == 1; });
  // 5/s over 60 s: 300 calls expected; 5 standard deviations is ~87.
  EXPECT_NEAR(static_cast<double>(calls), 300.0, 87.0);
  // Half the calls skip the tool: the call times and the other hops do not move.
  auto half = poisson;
  half.push_back("spec.identity.edges[3].probability=0.5");
  const auto c = identity::simulate_invocations(load_fixture(half), 5);
  const auto tool_calls = [](const std::vector<InvocationStep>& v) {
    return std::count_if(v.begin(), v.end(), [](const InvocationStep& s) { return s.to == "search-tool"; });
  };
  EXPECT_EQ(tool_calls(a), calls);
  EXPECT_NEAR(static_cast<double>(tool_calls(c)), calls / 2.0, 5 * std::sqrt(calls / 4.0));
  EXPECT_EQ(std::count_if(c.begin(), c.end(), [](const InvocationStep& s) { return s.hop == 1; }), calls);
  // Another edge's probability (the credential's use) moves none of the tool's draws: the same calls reach it.
  auto both = half;
  both.push_back("spec.identity.edges[2].probability=0.3");
  const auto d = identity::simulate_invocations(load_fixture(both), 5);
  const auto tool_call_numbers = [](const std::vector<InvocationStep>& v) {
    std::vector<int> out;
    for (const auto& s : v)
      if (s.to == "search-tool") out.push_back(s.call);
    std::sort(out.begin(), out.end());  // skipped hops before it move its time, not whether it is taken
    return out;
  };
  EXPECT_EQ(tool_call_numbers(d), tool_call_numbers(c));
  EXPECT_LT(std::count_if(d.begin(), d.end(), [](const InvocationStep& s) { return s.to == "records-db"; }),
            static_cast<long>(calls) / 2);
  // A different seed draws different calls.
  const auto other = identity::simulate_invocations(load_fixture(poisson), 6);
  EXPECT_FALSE(other.size() == a.size() && other.front().time == a.front().time);
}

TEST(InvocationsAtRunTime, AnAgentNeverGetsASecretThatRequiresAttestation) {
  const auto steps =
      identity::simulate_invocations(load_fixture({"spec.identity.secrets[0].requiresAttestation=true"}), 5);
  const auto* use = find_step(steps, 0, "records-db");
  ASSERT_NE(use, nullptr);
  EXPECT_FALSE(use->allowed);
  EXPECT_EQ(use->reason, "notAttested");
}

// ---- end to end: the engine replays the hops, rotations and leaks; the analyses and rules read them

json run_report(const std::vector<std::string>& sets = {}) {
  return test::run_report(FIXTURE, sets);
}
using test::finding;

TEST(IdentityAtRunTime, TheConfusedDeputyIsReportedAtTheSimulatedTimeOfTheCall) {
  const json report = run_report();
  const auto& inv = report["leakage"]["agents"]["invocations"][0];
  EXPECT_EQ(inv["calls"], 3);
  EXPECT_EQ(inv["confused_deputy"], 4);
  EXPECT_DOUBLE_EQ(inv["first_deputy_at_s"].get<double>(), 14.02);
  const json deputy = finding(report, "no-confused-deputy");
  EXPECT_EQ(deputy["status"], "fail");
  ASSERT_FALSE(deputy["evidence"].empty());
  EXPECT_DOUBLE_EQ(deputy["evidence"][0]["time_s"].get<double>(), 14.02);
  const std::string detail = deputy["evidence"][0]["detail"];
  EXPECT_NE(detail.find("'bob' reads data patient-records at t=14.02 s through 'rag-agent' as 'sa-rag'"),
            std::string::npos)
      << detail;
  // Strict revocation: the tool's read of the corpus on bob's token at 16.08 s, after his revocation at 15 s.
  const json revocation = finding(report, "timely-revocation");
  EXPECT_EQ(revocation["status"], "fail");
  ASSERT_EQ(revocation["evidence"].size(), 1u);
  EXPECT_DOUBLE_EQ(revocation["evidence"][0]["time_s"].get<double>(), 16.08);
  // With introspection the tool refuses that token: the revocation rule passes.
  EXPECT_EQ(finding(run_report({"spec.identity.tokenValidation=introspection"}), "timely-revocation")["status"],
            "pass");
}

TEST(IdentityAtRunTime, ALeakedSecretIsExposedUntilItsRotation) {
  // Known at 40 s and rotated 5 s later: exposed 30 s .. 45 s; the key-rotation rule (10 s to revoke) passes.
  json report = run_report();
  ASSERT_EQ(report["leakage"]["secret_leaks"].size(), 1u);
  json leak = report["leakage"]["secret_leaks"][0];
  EXPECT_EQ(leak["to"], "public");
  EXPECT_DOUBLE_EQ(leak["known_at_s"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(leak["end_s"].get<double>(), 45.0);
  EXPECT_EQ(leak["ended_by"], "emergencyRotation");
  EXPECT_DOUBLE_EQ(leak["exposure_s"].get<double>(), 15.0);
  EXPECT_EQ(leak["protects"], json::array({"patient-records"}));
  EXPECT_EQ(finding(report, "key-rotation")["status"], "pass");
  // Rotated an hour after detection: the scheduled rotation at 60 s ends it, 20 s after the revocation deadline.
  report = run_report({"spec.incidentResponse.revokeAfter=1h"});
  leak = report["leakage"]["secret_leaks"][0];
  EXPECT_DOUBLE_EQ(leak["end_s"].get<double>(), 60.0);
  EXPECT_EQ(leak["ended_by"], "rotation");
  const json rotation = finding(report, "key-rotation");
  EXPECT_EQ(rotation["status"], "fail");
  EXPECT_EQ(rotation["evidence"][0]["time_s"], 30.0);
  // A 30-day rotation and a response an hour after detection: the window ends after the run, at the emergency
  // rotation (40 s + 1 h), computed from the spec; within a 2 h revocation deadline the rule passes.
  report = run_report({"spec.identity.secrets[0].rotation=30d", "spec.incidentResponse.revokeAfter=1h",
                       "spec.compliance.rules[rotation].parameters={revokeWithin: 7200}"});
  leak = report["leakage"]["secret_leaks"][0];
  EXPECT_DOUBLE_EQ(leak["end_s"].get<double>(), 3640.0);
  EXPECT_EQ(leak["ended_by"], "emergencyRotation");
  EXPECT_EQ(finding(report, "key-rotation")["status"], "pass");
  // A leased credential: the one issued at the agent's last read (16.04 s) expires 20 s later.
  report = run_report({"spec.incidentResponse.revokeAfter=1h", "spec.identity.secrets[0].lease=20s"});
  leak = report["leakage"]["secret_leaks"][0];
  EXPECT_DOUBLE_EQ(leak["credential_issued_s"].get<double>(), 16.04);
  EXPECT_DOUBLE_EQ(leak["end_s"].get<double>(), 36.04);
  EXPECT_EQ(leak["ended_by"], "leaseExpiry");
}

TEST(IdentityAtRunTime, BreachNotificationNeedsDetectionAndSeventyTwoHours) {
  // The deputy's reads are never detected: they fail; the leak is notified 48 h after it became known.
  json breach = finding(run_report(), "breach-notification");
  EXPECT_EQ(breach["status"], "fail");
  EXPECT_EQ(breach["violations"], 2);
  EXPECT_EQ(breach["checked"], 3);
  // Detected within an hour, notified after 48 h: every incident passes; after 80 h every one is late.
  breach = finding(run_report({"spec.incidentResponse.detectAfter=1h"}), "breach-notification");
  EXPECT_EQ(breach["status"], "pass") << breach.dump();
  breach = finding(run_report({"spec.incidentResponse.detectAfter=1h", "spec.incidentResponse.notifyAfter=80h"}),
                   "breach-notification");
  EXPECT_EQ(breach["violations"], 3);
  for (const auto& ev : breach["evidence"])
    EXPECT_NE(ev["detail"].get<std::string>().find("later (> 3 d)"), std::string::npos) << ev;
}

TEST(AiActUseLogs, EveryRequestNeedsAUseRecordThatTheShipperKeeps) {
  const std::string rule = "spec.compliance.rules=[{name: use-logs, rule: ai-act-logging, match: {tenants: [health]}}]";
  // Without request logging every completed request of the health tenant's service lacks its use record.
  json f = finding(run_report({rule}), "ai-act-logging");
  EXPECT_EQ(f["status"], "fail");
  const auto checked = f["checked"].get<int>();
  EXPECT_GT(checked, 50);
  EXPECT_EQ(f["violations"], checked);
  EXPECT_NE(f["evidence"][0]["detail"].get<std::string>().find("spec.audit.logRequests is off"), std::string::npos);
  // Logged: every request has a record with its start, model and input reference.
  f = finding(run_report({rule, "spec.audit={logRequests: true}"}), "ai-act-logging");
  EXPECT_EQ(f["status"], "pass") << f.dump();
  EXPECT_EQ(f["checked"], checked);
  // A 10 s shipper outage loses the records of the requests that finished in it.
  f = finding(run_report({rule, "spec.audit={logRequests: true, gaps: [{from: 10s, until: 20s}]}"}), "ai-act-logging");
  EXPECT_EQ(f["status"], "fail");
  EXPECT_GT(f["violations"].get<int>(), 5);
  EXPECT_LT(f["violations"].get<int>(), checked / 2);
  for (const auto& ev : f["evidence"]) {
    EXPECT_GE(ev["time_s"].get<double>(), 10.0);
    EXPECT_LT(ev["time_s"].get<double>(), 20.0);
  }
}

TEST(IdentityAtRunTime, AgentHopsAndRotationsAreAudited) {
  test::TempDir dir;
  const auto r = test::run_process(test::run_argv(GTW_BINARY, FIXTURE, dir.file("out"), "audit", {}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string audit = test::read_text(dir.file("out") + "/audit.jsonl");
  const auto count = [&](const std::string& type) {
    size_t n = 0;
    for (size_t at = audit.find(type); at != std::string::npos; at = audit.find(type, at + 1)) ++n;
    return n;
  };
  const size_t secret_reads = count("\"type\":\"secretRead\"");
  const size_t calls = count("\"type\":\"serviceCall\"");
  const size_t rotations = count("\"type\":\"secretRotated\"");
  EXPECT_EQ(secret_reads, 2u);  // the agent's two credential reads
  EXPECT_EQ(calls, 5u);         // bob -> agent three times, agent -> tool twice
  EXPECT_EQ(rotations, 2u);     // the emergency rotation at 45 s and the scheduled one at 60 s
}

}  // namespace
}  // namespace gtw
