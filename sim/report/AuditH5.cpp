// The /audit group of results.h5 (docs/models/audit.md, "Outputs"; docs/formats/results-h5.md):
// the records table, the lost-records table and the pipeline's configuration as attributes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "AuditWriters.hpp"
#include "H5Util.hpp"

namespace gtw {

namespace {

using namespace h5;  // NOLINT(google-build-using-namespace): the shared HDF5 helpers

// Strings point into the audit log (alive for the whole write).
struct AuditRow {
  uint64_t index;
  int64_t event_seq;
  double t_event;
  double t_written;
  const char* type;
  const char* principal;
  int32_t tenant;
  int32_t owner;
  const char* resource;
  const char* source;
  const char* location;
  const char* outcome;
  const char* hash_prev;
  const char* hash;
};

struct LostRow {
  int64_t event_seq;
  double t_event;
  const char* why;
};

}  // namespace

void write_audit_group(hid_t root, const ScenarioSpec& spec, const RunResult& run, const audit::AuditLog* built,
                       const audit::ChainCheck* checked) {
  if (!audit_applies(spec)) return;
  audit::AuditLog own;
  if (!built) {
    own = audit::build_audit_log(spec, run);
    built = &own;
    checked = nullptr;  // a chain check belongs to the log it was made on
  }
  const audit::AuditLog& log = *built;
  const H5Id group = make_group(root, "audit");
  const H5Id str = vlen_string_type();
  const hid_t s = str.get();
  std::vector<AuditRow> rows;
  rows.reserve(log.records.size());
  for (const auto& r : log.records)
    rows.push_back({r.index, r.event_seq, r.t_event, r.t_written, r.type.c_str(), r.principal.c_str(), r.tenant,
                    r.owner, r.resource.c_str(), r.source.c_str(), r.location.c_str(), r.outcome.c_str(),
                    r.hash_prev.c_str(), r.hash.c_str()});
  const H5Id records = write_table(
      group.get(), "records", rows,
      {GTW_FIELD(AuditRow, index, H5T_NATIVE_UINT64, H5T_STD_U64LE),
       GTW_FIELD(AuditRow, event_seq, H5T_NATIVE_INT64, H5T_STD_I64LE),
       GTW_FIELD(AuditRow, t_event, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE),
       GTW_FIELD(AuditRow, t_written, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE), GTW_FIELD(AuditRow, type, s, s),
       GTW_FIELD(AuditRow, principal, s, s), GTW_FIELD(AuditRow, tenant, H5T_NATIVE_INT32, H5T_STD_I32LE),
       GTW_FIELD(AuditRow, owner, H5T_NATIVE_INT32, H5T_STD_I32LE), GTW_FIELD(AuditRow, resource, s, s),
       GTW_FIELD(AuditRow, source, s, s), GTW_FIELD(AuditRow, location, s, s), GTW_FIELD(AuditRow, outcome, s, s),
       GTW_FIELD(AuditRow, hash_prev, s, s), GTW_FIELD(AuditRow, hash, s, s)});
  attr_string(
      records.get(), "units",
      "t_event, t_written: s (simulated; t_written is the audit store's clock: skew, drift and synchronisation)");
  std::vector<LostRow> lost;
  lost.reserve(log.lost.size());
  for (const auto& l : log.lost) lost.push_back({l.event_seq, l.t_event, l.why.c_str()});
  write_table(group.get(), "lost", lost,
              {GTW_FIELD(LostRow, event_seq, H5T_NATIVE_INT64, H5T_STD_I64LE),
               GTW_FIELD(LostRow, t_event, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE), GTW_FIELD(LostRow, why, s, s)});
  const hid_t g = group.get();
  attr_u64(g, "enabled", log.enabled ? 1 : 0);
  attr_u64(g, "hash_chained", log.hash_chained ? 1 : 0);
  attr_u64(g, "separate_store", log.separate_store ? 1 : 0);
  attr_f64(g, "delay_s", log.delay_s);
  attr_f64(g, "jitter_s", log.jitter_s);
  attr_f64(g, "throughput_per_s", log.throughput);
  attr_f64(g, "clock_skew_s", log.clock_skew_s);
  attr_f64(g, "clock_drift_ppm", log.clock_drift_ppm);
  attr_f64(g, "clock_sync_s", log.clock_sync_s);
  attr_string(g, "streams", log.per_tenant_streams ? "perTenant" : "shared");
  attr_f64(g, "retention_s", log.retention_s);
  attr_f64(g, "run_end_s", log.run_end_s);
  attr_u64(g, "audited_events", log.audited_events);
  std::string tampered;
  for (const auto t : log.tampered) tampered += (tampered.empty() ? "" : ",") + std::to_string(t);
  attr_string(g, "tampered", tampered);
  const audit::ChainCheck chain = checked ? *checked : audit::verify_chain(log.records);
  attr_string(g, "chain", chain.intact ? "intact" : "record " + std::to_string(chain.first_bad) + ": " + chain.reason);
}

}  // namespace gtw
