// The audit pipeline (docs/models/audit.md): which events are audited, when their records reach the
// audit store (delay, jitter, FIFO shipper throughput, clock skew), which are lost (gaps, drops), the
// hash chain, and injected tampering.
#include "AuditLog.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "Rng.hpp"
#include "Sha256.hpp"

namespace gtw::audit {

namespace {

std::string data_record_type(const DataMovement& m) {
  if (!m.allowed) return "dataDenied";
  if (m.operation == "read") return "dataRead";
  if (m.operation == "write") return "dataWrite";
  if (m.operation == "transfer") return "dataTransfer";
  if (m.operation == "request") return "dataRequest";
  if (m.operation == "response") return "dataResponse";
  return "dataAccess";
}

std::string workload_identity(const ScenarioSpec& spec, int workload, int tenant) {
  if (workload >= 0 && static_cast<size_t>(workload) < spec.workloads.size()) {
    const auto& w = spec.workloads[static_cast<size_t>(workload)];
    return w.io.identity.empty() ? w.tenant : w.io.identity;
  }
  return tenant >= 0 && static_cast<size_t>(tenant) < spec.tenants.size()
             ? spec.tenants[static_cast<size_t>(tenant)].name
             : std::string();
}

std::string workload_name(const ScenarioSpec& spec, int workload) {
  return workload >= 0 && static_cast<size_t>(workload) < spec.workloads.size()
             ? spec.workloads[static_cast<size_t>(workload)].name
             : std::string();
}

std::string gpu_location(int gpu) {
  return gpu >= 0 ? "gpu:" + std::to_string(gpu) : std::string();
}

// The record an audited event produces (index, times and hashes filled later); false: not audited.
bool describe(const ScenarioSpec& spec, const RunResult& run, const Event& e, AuditRecord& r) {
  r.event_seq = static_cast<int64_t>(e.seq);
  r.t_event = e.time;
  r.tenant = e.tenant;
  switch (e.type) {
    case EventType::DATA_MOVE:
    case EventType::DATA_DENIED: {
      const auto i = payload::data_movement(e, run.data_movements.size());
      if (!i) return false;
      const auto& m = run.data_movements[*i];
      if (m.data < 0 || static_cast<size_t>(m.data) >= spec.data.size()) return false;  // untagged bytes
      r.type = data_record_type(m);
      r.principal = m.identity.empty() ? workload_identity(spec, m.workload, m.tenant) : m.identity;
      r.tenant = m.tenant;
      r.owner = m.owner;
      r.resource = spec.data[static_cast<size_t>(m.data)].name;
      r.source = m.from;
      r.location = m.to;
      r.outcome = m.allowed ? "success" : "denied";
      return true;
    }
    case EventType::KEY_RELEASE: {
      const auto i = payload::secret(e, spec.identity.secrets.size());
      if (!i) return false;
      const auto& s = spec.identity.secrets[*i];
      r.type = "keyRelease";
      r.principal = workload_identity(spec, e.workload, e.tenant);
      r.owner = s.tenant_index;
      r.resource = s.name;
      r.source = workload_name(spec, e.workload);
      r.location = gpu_location(e.gpu);
      r.outcome = e.value >= 0.5 ? "success" : "denied";
      return true;
    }
    case EventType::AGENT_CALL: {
      // A data hop is recorded by its DATA_MOVE / DATA_DENIED; calls, store and secret hops here.
      const auto i = payload::invocation_step(e, run.invocation_steps.size());
      if (!i) return false;
      const auto& s = run.invocation_steps[*i];
      if (s.target_kind == "data") return false;
      r.type = s.target_kind == "secret" ? "secretRead" : s.target_kind == "store" ? "storeAccess" : "serviceCall";
      r.principal = s.identity;
      r.tenant = s.identity_tenant;
      r.owner = s.owner;
      r.resource = s.to;
      r.source = s.from;
      r.location = "invocation:" + spec.identity.invocations[static_cast<size_t>(s.invocation)].name;
      r.outcome = s.allowed ? "success" : "denied";
      return true;
    }
    case EventType::SECRET_ROTATED: {
      const auto i = payload::secret(e, spec.identity.secrets.size());
      if (!i) return false;
      const auto& s = spec.identity.secrets[*i];
      r.type = "secretRotated";
      r.principal = "secret-store";
      r.owner = s.tenant_index;
      r.resource = s.name;
      r.source = s.path;
      r.location = "secret-store";
      r.outcome = payload::emergency_rotation(e) ? "emergency" : "success";
      return true;
    }
    case EventType::REQUEST_DONE: {
      // EU AI Act Art. 12 use logs: the period of use, the model and a reference to the input.
      if (!spec.audit.log_requests || e.workload < 0 || static_cast<size_t>(e.workload) >= spec.workloads.size())
        return false;
      const auto& w = spec.workloads[static_cast<size_t>(e.workload)];
      r.type = "inferenceUse";
      r.principal = workload_identity(spec, e.workload, e.tenant);
      r.owner = e.tenant;
      r.resource = w.model.id.empty() ? w.name : w.model.id;
      r.source = "request:" + w.name + "/" + std::to_string(e.seq) + "@" + std::to_string(e.time - e.value);
      r.location = gpu_location(e.gpu);
      r.outcome = "success";
      return true;
    }
    case EventType::COMPLIANCE_REFUSED: {
      const auto i = static_cast<size_t>(e.value);
      r.type = "complianceRefused";
      r.principal = workload_identity(spec, e.workload, e.tenant);
      r.owner = e.tenant;
      r.resource = e.value >= 0 && i < spec.compliance.rules.size() ? spec.compliance.rules[i].name : "";
      r.source = workload_name(spec, e.workload);
      r.location = gpu_location(e.gpu);
      r.outcome = "refused";
      return true;
    }
    default:
      return false;
  }
}

bool in_gap(const AuditSpec& a, double t) {
  return std::any_of(a.gaps.begin(), a.gaps.end(),
                     [t](const AuditGapSpec& g) { return t >= g.from.value && t < g.until.value; });
}

void apply_tamper(AuditRecord& r, const AuditTamperSpec& t) {
  if (t.field == "principal") r.principal = t.value;
  if (t.field == "resource") r.resource = t.value;
  if (t.field == "outcome") r.outcome = t.value;
  if (t.field == "type") r.type = t.value;
  if (t.field == "source") r.source = t.value;
  if (t.field == "location") r.location = t.value;
  if (t.field == "time") {
    try {
      r.t_written = std::stod(t.value);
    } catch (const std::exception&) {
      r.t_written = -1;  // an unparsable value still modifies the record
    }
  }
}

}  // namespace

double clock_offset_at(const AuditSpec& a, double t) {
  const double drift = a.clock_drift_ppm * 1e-6;
  const double sync = a.clock_sync.value;
  if (sync <= 0 || t < sync) return a.clock_skew.value + drift * t;
  return drift * (t - std::floor(t / sync) * sync);
}

AuditLog build_audit_log(const ScenarioSpec& spec, const RunResult& run) {
  const AuditSpec& a = spec.audit;
  AuditLog log;
  log.enabled = a.enabled;
  log.hash_chained = a.hash_chained;
  log.separate_store = a.separate_store;
  log.delay_s = a.delay.value;
  log.jitter_s = a.jitter.value;
  log.throughput = a.throughput.value;
  log.clock_skew_s = a.clock_skew.value;
  log.clock_drift_ppm = a.clock_drift_ppm;
  log.clock_sync_s = a.clock_sync.value;
  log.per_tenant_streams = a.streams == AuditStreams::PER_TENANT;
  log.retention_s = a.retention.value;
  log.run_end_s = run.end_time;
  if (!a.enabled) return log;

  // Two draws per audited event (jitter, drop), always taken, so that changing one parameter does not
  // shift the other's draws.
  RngStream rng = make_stream(run.seed, "audit/shipper");
  std::vector<AuditRecord> pending;  // ready time in t_written for now
  for (const Event& e : run.log.events()) {
    AuditRecord r;
    if (!describe(spec, run, e, r)) continue;
    ++log.audited_events;
    const double jitter = rng.uniform() * a.jitter.value;
    const bool dropped = rng.uniform() < a.drop_probability;
    if (in_gap(a, r.t_event)) {
      log.lost.push_back(LostRecord{r.event_seq, r.t_event, "gap"});
      continue;
    }
    if (dropped) {
      log.lost.push_back(LostRecord{r.event_seq, r.t_event, "dropped"});
      continue;
    }
    r.t_written = r.t_event + a.delay.value + jitter;
    pending.push_back(std::move(r));
  }
  // The shipper writes in order of readiness (FIFO), one record per 1/throughput at most.
  std::stable_sort(pending.begin(), pending.end(), [](const AuditRecord& x, const AuditRecord& y) {
    return x.t_written != y.t_written ? x.t_written < y.t_written : x.event_seq < y.event_seq;
  });
  if (a.throughput.value > 0) {
    const double service = 1.0 / a.throughput.value;
    double previous = -INFINITY;
    for (auto& r : pending) {
      r.t_written = std::max(r.t_written, previous + service);
      previous = r.t_written;
    }
  }
  std::string previous_hash;
  for (size_t i = 0; i < pending.size(); ++i) {
    auto& r = pending[i];
    r.clock_offset = clock_offset_at(a, r.t_written);
    r.t_written += r.clock_offset;
    r.index = i;
    if (a.hash_chained) {
      r.hash_prev = previous_hash;
      r.hash = sha256_hex(canonical_text(r));
      previous_hash = r.hash;
    }
  }
  log.records = std::move(pending);
  // Tampering happens after the records were written and chained: the chain breaks at that record.
  for (const auto& t : a.tamper) {
    if (t.record < 0 || static_cast<size_t>(t.record) >= log.records.size()) continue;
    apply_tamper(log.records[static_cast<size_t>(t.record)], t);
    if (std::find(log.tampered.begin(), log.tampered.end(), t.record) == log.tampered.end())
      log.tampered.push_back(t.record);
  }
  std::sort(log.tampered.begin(), log.tampered.end());
  return log;
}

}  // namespace gtw::audit
