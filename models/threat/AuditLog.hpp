#pragma once
// The audit pipeline (docs/models/audit.md): every access to tagged data (and every secret or key
// release) in the event log produces an audit record after the configured delay and queueing in the
// audit shipper; records are hash-chained (SHA-256 over the previous hash and the record's canonical
// text), so a modified or deleted record is detected at that record. Losses, gaps and tampering can be
// injected (spec.audit). No SimGrid: it reads the event log and the spec.
#include <cstdint>
#include <string>
#include <vector>

#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw::audit {

struct AuditRecord {
  uint64_t index = 0;       // position in the written stream (0-based)
  int64_t event_seq = -1;   // EventLog seq of the access it records
  double t_event = 0;       // when the access happened (simulated s)
  double t_written = 0;     // when the record reached the audit store, by the store's clock
  double clock_offset = 0;  // that clock's offset from the reference at the write (not hashed or written out)
  std::string type;       // dataRead | dataWrite | dataTransfer | dataDenied | keyRelease | serviceCall | secretRead |
                          // inferenceUse | ...
  std::string principal;  // identity the access ran as
  int tenant = -1;        // tenant whose workload acted
  int owner = -1;         // tenant owning the resource
  std::string resource;   // data item / store / secret
  std::string source;     // where from (endpoint)
  std::string location;   // where to / component (node, GPU)
  std::string outcome;    // success | denied
  std::string hash_prev;  // hex SHA-256 of the previous record ("" for the first)
  std::string hash;       // hex SHA-256 of hash_prev + canonical(record)
};

/// An access that produced no record (lost in an injected gap or dropped).
struct LostRecord {
  int64_t event_seq = -1;
  double t_event = 0;
  std::string why;  // gap | dropped
};

struct AuditLog {
  std::vector<AuditRecord> records;  // in written order (t_written, then event order)
  std::vector<LostRecord> lost;      // in event order
  std::vector<int64_t> tampered;     // indices of records modified by spec.audit.tamper (injected)
  // The pipeline's configuration and the run, for the rules that judge it (C4, C6, C7, C9).
  bool enabled = true;
  bool hash_chained = true;
  bool separate_store = true;
  double delay_s = 0;
  double jitter_s = 0;
  double throughput = 0;  // records/s (0: unlimited)
  double clock_skew_s = 0;
  double clock_drift_ppm = 0;
  double clock_sync_s = 0;  // 0: never synchronised
  bool per_tenant_streams = false;
  double retention_s = 0;     // 0: kept forever
  double run_end_s = 0;       // simulated end of the run: the oldest record's age at the end is run_end_s - t_written
  size_t audited_events = 0;  // accesses and releases that should have produced a record (records + lost)
};

/// Offset of the audit store's clock from the reference at reference time t (docs/models/audit.md):
/// clockSkew + drift x t until the first synchronisation, drift x (t - the last synchronisation) after.
double clock_offset_at(const AuditSpec& a, double t);

/// Builds the audit stream of a run (deterministic for a seed).
AuditLog build_audit_log(const ScenarioSpec& spec, const RunResult& run);

struct ChainCheck {
  bool intact = true;
  int64_t first_bad = -1;  // index of the first record whose hash or link does not verify
  std::string reason;      // "hash mismatch", "broken link (hash_prev)", "index gap" ...
};

/// Verifies the hash chain; detects a modified, inserted or deleted record at the first record affected.
ChainCheck verify_chain(const std::vector<AuditRecord>& records);

/// Canonical text hashed for a record (every field but hash, in a fixed order).
std::string canonical_text(const AuditRecord& r);

}  // namespace gtw::audit
