// The audit pipeline (models/threat/AuditLog, docs/models/audit.md) on synthetic event logs: records
// appear `delay` later, a throughput limit queues a burst exactly as FIFO predicts, a gap loses exactly
// the accesses in it, drops are seeded, tampering with or deleting record K is detected at record K,
// and audit.jsonl round-trips.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "AuditLog.hpp"
#include "AuditWriters.hpp"
#include "Loader.hpp"
#include "Subprocess.hpp"

namespace gtw {
namespace {

ScenarioSpec load_with_audit(const std::string& audit) {
  const std::string yaml = R"(apiVersion: gputwin.dev/v1alpha1
kind: Scenario
metadata: {name: audit-log}
spec:
  duration: 100s
  cluster:
    nodePools:
      - {name: n, count: 1, gpu: H100-80GB-SXM, gpusPerNode: 1}
  tenants:
    - {name: health}
  data:
    - {name: records, kind: dataset, tenant: health}
  workloads:
    - name: train
      kind: training
      tenant: health
      memory: 1GiB
      iterations: 1
      step: {flops: 1TFLOP}
      io: {dataset: records, identity: sa-train}
  identity:
    secrets:
      - {name: records-key, tenant: health}
  audit:
)" + audit;
  test::TempDir dir;
  const std::string file = dir.file("s.yaml");
  test::write_text(file, yaml);
  Diagnostics diags;
  ScenarioSpec spec = load_scenario(file, {}, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.format_all();
  return spec;
}

// A run whose log holds one tagged read at each time in `times` (plus unrelated events between them).
RunResult reads_at(const std::vector<double>& times, uint64_t seed = 1) {
  RunResult run;
  run.seed = seed;
  for (double t : times) {
    run.log.append(Event{t, 0, EventType::BATCH_START, 0, 0, 0, 0, 1, 0});  // not audited
    DataMovement m;
    m.start = t - 0.1;
    m.end = t;
    m.data = 0;
    m.owner = 0;
    m.tenant = 0;
    m.workload = 0;
    m.identity = "sa-train";
    m.operation = "read";
    m.from = "host:n-0";
    m.to = "gpu:0";
    m.bytes = 1e6;
    run.data_movements.push_back(m);
    run.log.append(
        Event{t, 0, EventType::DATA_MOVE, 0, 0, 0, 0, 1e6, static_cast<double>(run.data_movements.size() - 1)});
  }
  run.end_time = times.empty() ? 0 : times.back() + 1;
  return run;
}

TEST(AuditLog, RecordsAppearDelayLater) {
  const auto spec = load_with_audit("    delay: 2s\n");
  const auto log = audit::build_audit_log(spec, reads_at({1, 3, 7.5}));
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_TRUE(log.lost.empty());
  const double expected[] = {3, 5, 9.5};
  for (size_t i = 0; i < 3; ++i) {
    const auto& r = log.records[i];
    EXPECT_EQ(r.index, i);
    EXPECT_DOUBLE_EQ(r.t_written, expected[i]);
    EXPECT_EQ(r.type, "dataRead");
    EXPECT_EQ(r.principal, "sa-train");
    EXPECT_EQ(r.resource, "records");
    EXPECT_EQ(r.outcome, "success");
    EXPECT_EQ(r.source, "host:n-0");
    EXPECT_EQ(r.location, "gpu:0");
  }
  EXPECT_EQ(log.records[0].hash_prev, "");
  EXPECT_EQ(log.records[1].hash_prev, log.records[0].hash);
  EXPECT_EQ(log.records[0].hash.size(), 64u);
  EXPECT_TRUE(audit::verify_chain(log.records).intact);
}

TEST(AuditLog, JitterStaysInItsWindowAndIsSeeded) {
  const auto spec = load_with_audit("    delay: 1s\n    jitter: 500ms\n");
  std::vector<double> times;
  for (int i = 0; i < 200; ++i) times.push_back(i * 0.25);
  const auto a = audit::build_audit_log(spec, reads_at(times, 1));
  const auto b = audit::build_audit_log(spec, reads_at(times, 1));
  const auto c = audit::build_audit_log(spec, reads_at(times, 2));
  ASSERT_EQ(a.records.size(), 200u);
  double sum = 0;
  for (const auto& r : a.records) {
    const double extra = r.t_written - r.t_event - 1.0;
    EXPECT_GE(extra, 0.0);
    EXPECT_LT(extra, 0.5);
    sum += extra;
  }
  EXPECT_NEAR(sum / 200, 0.25, 0.05);  // uniform [0, 0.5): mean 0.25, standard error 0.01
  for (size_t i = 1; i < a.records.size(); ++i) EXPECT_LE(a.records[i - 1].t_written, a.records[i].t_written);
  EXPECT_EQ(a.records.back().hash, b.records.back().hash);
  EXPECT_NE(a.records.back().hash, c.records.back().hash);
}

TEST(AuditLog, ThroughputLimitQueuesABurstFifo) {
  // Five accesses at t = 1 and one at t = 10; delay 1 s, 2 records/s: written 2, 2.5, 3, 3.5, 4 and 11.
  const auto spec = load_with_audit("    delay: 1s\n    throughput: 2/s\n");
  const auto log = audit::build_audit_log(spec, reads_at({1, 1, 1, 1, 1, 10}));
  ASSERT_EQ(log.records.size(), 6u);
  const double expected[] = {2, 2.5, 3, 3.5, 4, 11};
  for (size_t i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(log.records[i].t_written, expected[i]) << "record " << i;
  for (size_t i = 1; i < 5; ++i) EXPECT_LT(log.records[i - 1].event_seq, log.records[i].event_seq);  // FIFO
}

TEST(AuditLog, AGapLosesExactlyTheAccessesInIt) {
  const auto spec = load_with_audit("    delay: 1s\n    gaps:\n      - {from: 3s, until: 6s}\n");
  const auto run = reads_at({1, 2, 3, 4, 5, 6, 7});
  const auto log = audit::build_audit_log(spec, run);
  ASSERT_EQ(log.lost.size(), 3u);  // t = 3, 4, 5 ([from, until) excludes 6)
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(log.lost[i].why, "gap");
    EXPECT_DOUBLE_EQ(log.lost[i].t_event, 3.0 + static_cast<double>(i));
    EXPECT_EQ(run.log.events()[static_cast<size_t>(log.lost[i].event_seq)].type, EventType::DATA_MOVE);
  }
  ASSERT_EQ(log.records.size(), 4u);
  EXPECT_EQ(log.audited_events, 7u);
  EXPECT_TRUE(audit::verify_chain(log.records).intact);  // losses before writing do not break the chain
}

TEST(AuditLog, DropProbabilityIsSeeded) {
  std::vector<double> times;
  for (int i = 0; i < 400; ++i) times.push_back(i * 0.1);
  const auto none = audit::build_audit_log(load_with_audit("    dropProbability: 1\n"), reads_at(times));
  EXPECT_TRUE(none.records.empty());
  EXPECT_EQ(none.lost.size(), 400u);
  const auto spec = load_with_audit("    dropProbability: 0.25\n");
  const auto a = audit::build_audit_log(spec, reads_at(times));
  const auto b = audit::build_audit_log(spec, reads_at(times));
  EXPECT_EQ(a.lost.size(), b.lost.size());
  EXPECT_EQ(a.records.size() + a.lost.size(), 400u);
  EXPECT_NEAR(static_cast<double>(a.lost.size()), 100.0, 30.0);  // binomial(400, 0.25): sd 8.7
  for (const auto& l : a.lost) EXPECT_EQ(l.why, "dropped");
}

TEST(AuditLog, TamperingWithRecordKIsDetectedAtK) {
  const auto spec = load_with_audit("    tamper:\n      - {record: 3, field: principal, value: nobody}\n");
  const auto log = audit::build_audit_log(spec, reads_at({1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(log.tampered, (std::vector<int64_t>{3}));
  EXPECT_EQ(log.records[3].principal, "nobody");
  const auto check = audit::verify_chain(log.records);
  EXPECT_FALSE(check.intact);
  EXPECT_EQ(check.first_bad, 3);
  EXPECT_NE(check.reason.find("hash mismatch"), std::string::npos) << check.reason;
}

TEST(AuditLog, DeletingRecordKIsDetectedAtK) {
  const auto log = audit::build_audit_log(load_with_audit("    delay: 1s\n"), reads_at({1, 2, 3, 4, 5, 6}));
  for (size_t k = 0; k < log.records.size(); ++k) {
    auto records = log.records;
    records.erase(records.begin() + static_cast<std::ptrdiff_t>(k));
    const auto check = audit::verify_chain(records);
    if (k + 1 == log.records.size()) {
      EXPECT_TRUE(check.intact);  // truncating the tail leaves a valid prefix: the chain alone cannot tell
      continue;
    }
    EXPECT_FALSE(check.intact);
    EXPECT_EQ(check.first_bad, static_cast<int64_t>(k)) << "deleted record " << k;
  }
}

TEST(AuditLog, WithoutHashChainingTheHashesStayEmpty) {
  const auto log = audit::build_audit_log(load_with_audit("    hashChained: false\n"), reads_at({1, 2}));
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_FALSE(log.hash_chained);
  for (const auto& r : log.records) {
    EXPECT_TRUE(r.hash.empty());
    EXPECT_TRUE(r.hash_prev.empty());
  }
  EXPECT_EQ(audit::verify_chain(log.records).first_bad, 0);
}

TEST(AuditLog, ClockSkewRetentionAndDisabling) {
  const auto spec = load_with_audit("    delay: 1s\n    clockSkew: -3s\n    retention: 90d\n");
  const auto log = audit::build_audit_log(spec, reads_at({10}));
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_DOUBLE_EQ(log.records[0].t_written, 8.0);
  EXPECT_DOUBLE_EQ(log.clock_skew_s, -3.0);
  EXPECT_DOUBLE_EQ(log.retention_s, 90.0 * 86400);
  EXPECT_DOUBLE_EQ(log.run_end_s, 11.0);
  const auto off = audit::build_audit_log(load_with_audit("    enabled: false\n"), reads_at({1, 2}));
  EXPECT_FALSE(off.enabled);
  EXPECT_TRUE(off.records.empty());
}

TEST(AuditLog, DeniedAccessesUntaggedBytesAndKeyReleases) {
  const auto spec = load_with_audit("    delay: 0s\n");
  auto run = reads_at({1});
  run.data_movements[0].allowed = false;
  run.data_movements[0].reason = "storage ACL";
  run.log.append(Event{2, 0, EventType::DATA_DENIED, 0, 0, 0, 0, 1e6, 0});
  DataMovement untagged;
  untagged.data = -1;
  run.data_movements.push_back(untagged);
  run.log.append(Event{3, 0, EventType::DATA_MOVE, 0, 0, 0, 0, 1e6, 1});
  run.log.append(Event{4, 0, EventType::KEY_RELEASE, 0, 0, 0, 2, 0, 0});  // refused: value 0
  const auto log = audit::build_audit_log(spec, run);
  ASSERT_EQ(log.records.size(), 3u);  // the two denied accesses and the key release; the untagged move is not audited
  EXPECT_EQ(log.records[1].type, "dataDenied");
  EXPECT_EQ(log.records[1].outcome, "denied");
  EXPECT_EQ(log.records[2].type, "keyRelease");
  EXPECT_EQ(log.records[2].resource, "records-key");
  EXPECT_EQ(log.records[2].principal, "sa-train");
  EXPECT_EQ(log.records[2].location, "gpu:2");
  EXPECT_EQ(log.records[2].outcome, "denied");
}

TEST(AuditLog, JsonlRoundTripsExactly) {
  const auto spec = load_with_audit("    delay: 1s\n    jitter: 333ms\n");
  const auto log = audit::build_audit_log(spec, reads_at({0.1, 0.7, 1.3}));
  const std::string text = audit_jsonl(log);
  EXPECT_EQ(text.substr(0, 10), "{\"index\":0");
  std::vector<audit::AuditRecord> back;
  std::string error;
  ASSERT_TRUE(parse_audit_jsonl(text, back, error)) << error;
  ASSERT_EQ(back.size(), log.records.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].t_written, log.records[i].t_written);
    EXPECT_EQ(audit::canonical_text(back[i]), audit::canonical_text(log.records[i]));
  }
  EXPECT_TRUE(audit::verify_chain(back).intact);
  std::vector<audit::AuditRecord> bad;
  EXPECT_FALSE(parse_audit_jsonl(text + "{\"index\": 3}\n", bad, error));
  EXPECT_EQ(error.substr(0, 2), "4:") << error;
  EXPECT_FALSE(parse_audit_jsonl("not json\n", bad, error));
  EXPECT_EQ(error.substr(0, 2), "1:") << error;
}

}  // namespace
}  // namespace gtw
