// Record-keeping rules (docs/models/compliance.md, "Records, clocks, sessions and logs"): records of
// processing (C3), time synchronisation (C9), session timeout (C13) and per-tenant logs (C21), on
// tests/fixtures/scenarios/record-keeping.yaml: the clinic serves triage in eu-west, analytics trains on
// the clinic's scans in us-east under SCC; the audit clock starts 3 s off and syncs every 20 s; Dr Ana
// calls at 5, 10 and 40 s, the analytics bot at 8 s; one shared audit stream.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "AuditLog.hpp"
#include "ReportRun.hpp"

namespace gtw {
namespace {

using json = nlohmann::json;
using test::finding;
const std::string FIXTURE = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/record-keeping.yaml";

json run_report(const std::vector<std::string>& sets = {}) {
  return test::run_report(FIXTURE, sets);
}

std::vector<std::string> kinds(const json& f) {
  std::vector<std::string> out;
  for (const auto& e : f["evidence"]) out.push_back(e.value("kind", ""));
  return out;
}

TEST(AuditClock, SkewLastsUntilTheFirstSyncAndDriftGrowsBetweenSyncs) {
  AuditSpec a;
  a.clock_skew = Seconds(3);
  a.clock_sync = Seconds(20);
  EXPECT_DOUBLE_EQ(audit::clock_offset_at(a, 19.9), 3.0);
  EXPECT_DOUBLE_EQ(audit::clock_offset_at(a, 20.0), 0.0);
  a.clock_drift_ppm = 50;  // 50 us per s: 1 ms after 20 s, reset at every sync
  EXPECT_NEAR(audit::clock_offset_at(a, 10), 3.0 + 5e-4, 1e-12);
  EXPECT_NEAR(audit::clock_offset_at(a, 39), 50e-6 * 19, 1e-12);
  EXPECT_NEAR(audit::clock_offset_at(a, 41), 50e-6 * 1, 1e-12);
  a.clock_sync = Seconds(0);  // never synchronised: the offset grows without bound
  EXPECT_NEAR(audit::clock_offset_at(a, 86400), 3.0 + 50e-6 * 86400, 1e-9);
}

TEST(RecordKeeping, EachRuleFailsOnTheFixtureAndPassesWithItsFix) {
  json report = run_report();
  // C3: both activities (diagnosis on the clinic's weights; research on its scans by analytics, in us-east
  // and read from eu-west) are recorded, with the SCC transfer.
  json ropa = finding(report, "records-of-processing");
  EXPECT_EQ(ropa["status"], "pass") << ropa.dump();
  EXPECT_EQ(ropa["checked"], 3);
  // C9: records written before the first sync at 20 s are 3 s off: one period out of sync.
  json clocks = finding(report, "time-synchronisation");
  EXPECT_EQ(clocks["status"], "fail");
  ASSERT_EQ(clocks["violations"], 1);
  EXPECT_LT(clocks["evidence"][0]["time_s"].get<double>(), 20.0);
  EXPECT_NE(clocks["evidence"][0]["detail"].get<std::string>().find("off by +3 s"), std::string::npos);
  // C13: Dr Ana is idle 30 s between 10 and 40 s (limit 15 s: evidence at 25 s); the bot's session is still
  // open at the end.
  json sessions = finding(report, "session-timeout");
  EXPECT_EQ(sessions["status"], "fail");
  ASSERT_EQ(sessions["violations"], 2);
  EXPECT_DOUBLE_EQ(sessions["evidence"][0]["time_s"].get<double>(), 25.0);
  EXPECT_EQ(kinds(sessions), (std::vector<std::string>{"idleTooLong", "openAtEnd"}));
  // C21: one stream for both tenants, so each tenant's own read grant reads the other's records too.
  json logs = finding(report, "tenant-log-isolation");
  EXPECT_EQ(logs["status"], "fail");
  EXPECT_EQ(kinds(logs), (std::vector<std::string>{"sharedStream", "foreignAccess", "sharedStream", "foreignAccess"}));
  EXPECT_EQ(report["leakage"]["agents"]["sessions"][0]["longest_idle_s"], 50.0);

  report =
      run_report({"spec.identity.sessionIdleTimeout=10s", "spec.audit.streams=perTenant", "spec.audit.clockSkew=0s"});
  for (const auto& f : report["compliance"]["findings"]) EXPECT_EQ(f["status"], "pass") << f.dump();
  // Timed out after 10 s: Dr Ana's calls at 5 and 10 s are one session, her call at 40 s another.
  const json& ana = report["leakage"]["agents"]["sessions"][0];
  EXPECT_EQ(ana["principal"], "dr-ana");
  EXPECT_EQ(ana["sessions"], 2);
  EXPECT_EQ(ana["ended_by"]["idleTimeout"], 2);
}

TEST(RecordKeeping, RecordsOfProcessingNameWhatTheClosestRecordLacks) {
  const json report =
      run_report({"spec.compliance.processingRecords[research-sharing].transfers=[]",
                  "spec.workloads[triage].purpose=marketing", "spec.audit.clockDrift=10000", "spec.audit.clockSkew=0s",
                  "spec.audit.clockSync=0s", "spec.compliance.rules[clocks].parameters={maxOffset: 0.3}"});
  const json ropa = finding(report, "records-of-processing");
  ASSERT_EQ(ropa["violations"], 2) << ropa.dump();
  EXPECT_NE(ropa["evidence"][0]["detail"].get<std::string>().find("record 'clinical-care' lacks purpose 'marketing'"),
            std::string::npos);
  EXPECT_NE(ropa["evidence"][1]["detail"].get<std::string>().find("lacks the transfer to us-east and its safeguard"),
            std::string::npos);
  // A 1 % drift without synchronisation passes 0.3 s after 30 s: every record from then on is out of sync.
  const json clocks = finding(report, "time-synchronisation");
  ASSERT_EQ(clocks["violations"], 1);
  EXPECT_GE(clocks["evidence"][0]["time_s"].get<double>(), 30.0);
  // The record names SCC where the recorded basis is BCR.
  const json mismatch = finding(run_report({"spec.compliance.transfers[0].mechanism=BCR"}), "records-of-processing");
  ASSERT_EQ(mismatch["violations"], 1);
  EXPECT_NE(mismatch["evidence"][0]["detail"].get<std::string>().find("names SCC, its basis is BCR"),
            std::string::npos);
}

TEST(RecordKeeping, AnotherTenantsReadGrantOnPerTenantLogsFailsAndOperatorsMay) {
  const std::string streams = "spec.audit.streams=perTenant";
  const std::string grants =
      "spec.identity.grants=[{principal: dr-ana, resource: audit:clinic, actions: [read]}, "
      "{principal: an-bot, resource: audit:clinic, actions: [read]}]";
  json logs = finding(run_report({streams, grants}), "tenant-log-isolation");
  // The bot reads the clinic's stream; analytics cannot read its own.
  EXPECT_EQ(kinds(logs), (std::vector<std::string>{"foreignAccess", "notAvailable"}));
  logs =
      finding(run_report({streams, grants,
                          "spec.compliance.rules[tenant-logs].parameters={operators: [an-bot], requireAccess: false}"}),
              "tenant-log-isolation");
  EXPECT_EQ(logs["status"], "pass") << logs.dump();
}

}  // namespace
}  // namespace gtw
