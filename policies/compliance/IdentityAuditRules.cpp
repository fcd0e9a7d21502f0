// The identity and audit compliance rules (docs/models/compliance.md, "Identity and audit rules";
// ../shared/reference/compliance.md C4-C8, C10-C12, C18): audit completeness and latency, audit content,
// chain integrity, retention, logging-gap alarm, unique identity, authorisation, timely revocation and
// attestation before key release. Each evaluates the event log and the audit stream after the run;
// attestation-before-key-release is also enforceable (the engine asks it before releasing a secret).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "BuiltinRules.hpp"
#include "Sha256.hpp"

namespace gtw::policy {

namespace {

constexpr double MINUTE = 60;
constexpr double HOUR = 3600;
constexpr double DAY = 86400;
constexpr double YEAR = 365.25 * DAY;
constexpr double MONTH = YEAR / 12;

// Parameter defaults (compliance.md section 3).
constexpr double DEFAULT_MAX_DELAY = 60;              // C4: N = 60 s
constexpr double DEFAULT_MAX_GAP = 5 * MINUTE;        // C8: T_gap
constexpr double DEFAULT_ALERT_WITHIN = 15 * MINUTE;  // C8: T_alert
constexpr double DEFAULT_GRACE = 24 * HOUR;           // C12
constexpr double DEFAULT_FRESHNESS = 24 * HOUR;       // C18: W

/// The principal a workload's replicas act as (as the data path records it): io.identity or the tenant's name.
std::string workload_principal(const ScenarioSpec& spec, int workload) {
  if (workload < 0 || static_cast<size_t>(workload) >= spec.workloads.size()) return {};
  const auto& w = spec.workloads[static_cast<size_t>(workload)];
  if (!w.io.identity.empty()) return w.io.identity;
  return w.tenant_index >= 0 ? spec.tenants[static_cast<size_t>(w.tenant_index)].name : std::string{};
}

/// The grant action an access needs: writes (and responses sent out) need write, everything else read;
/// a secret needs use.
std::string grant_action(const std::string& operation) {
  if (operation == "write" || operation == "response") return "write";
  return "read";
}

/// One audited access in the event log (a data movement or refusal, a key release, an enforcement refusal).
struct Access {
  Event event;  // a copy: a spilled log block may be gone once the reading moves on
  std::string principal;
  std::string resource;   // data item or secret name
  std::string container;  // the data item's store, or the secret's path (a grant on it covers the item)
  std::string action;     // read | write | use
  bool success = false;
  bool by_principal = true;  // false: an enforcement refusal (no principal acted)
  int secret = -1;
};

const DataMovement* movement_of(const RunResult& run, const Event& e) {
  const auto i = payload::data_movement(e, run.data_movements.size());
  return i ? &run.data_movements[*i] : nullptr;
}

/// The audited accesses of the data and secrets the rule matches, in event order.
std::vector<Access> audited_accesses(const ComplianceInput& in, const ComplianceRuleSpec& cfg) {
  std::vector<Access> out;
  const auto& events = in.run.log.events();
  const auto& secrets = in.spec.identity.secrets;
  for (size_t k = 0; k < events.size(); ++k) {
    const Event& e = events[k];
    Access a;
    a.event = e;
    if (e.type == EventType::DATA_MOVE || e.type == EventType::DATA_DENIED) {
      const DataMovement* m = movement_of(in.run, e);
      if (!m || m->data < 0 || !matches_data(cfg, in.spec, m->data)) continue;
      a.principal = m->identity;
      a.resource = in.spec.data[static_cast<size_t>(m->data)].name;
      a.container = m->store;
      a.action = grant_action(m->operation);
      a.success = e.type == EventType::DATA_MOVE;
    } else if (e.type == EventType::KEY_RELEASE) {
      const auto secret = payload::secret(e, secrets.size());
      if (!secret || !matches_tenant(cfg, in.spec, secrets[*secret].tenant_index)) continue;
      const size_t s = *secret;
      a.principal = workload_principal(in.spec, e.workload);
      a.resource = secrets[s].name;
      a.container = secrets[s].path;
      a.action = "use";
      a.success = e.value > 0.5;
      a.secret = static_cast<int>(s);
    } else if (e.type == EventType::AGENT_CALL) {
      // An agent's use of a secret (its data hops are DATA_MOVE / DATA_DENIED, its calls no access).
      const auto i = payload::invocation_step(e, in.run.invocation_steps.size());
      if (!i) continue;
      const auto& step = in.run.invocation_steps[*i];
      if (step.target_kind != "secret" || step.target_index < 0 ||
          static_cast<size_t>(step.target_index) >= secrets.size() || !matches_tenant(cfg, in.spec, step.owner))
        continue;
      const auto s = static_cast<size_t>(step.target_index);
      a.principal = step.identity;
      a.resource = secrets[s].name;
      a.container = secrets[s].path;
      a.action = "use";
      a.success = step.allowed;
      a.secret = static_cast<int>(s);
    } else if (e.type == EventType::COMPLIANCE_REFUSED) {
      // A refused data access is matched by the data of the DATA_DENIED that follows it; the others by tenant.
      bool matched = matches_tenant(cfg, in.spec, e.tenant);
      if (payload::refused(e) == payload::Refused::DATA_ACCESS) {
        for (size_t j = k + 1; j < events.size() && events[j].time == e.time; ++j) {
          if (events[j].type != EventType::DATA_DENIED || events[j].workload != e.workload) continue;
          const DataMovement* m = movement_of(in.run, events[j]);
          matched = m && m->data >= 0 && matches_data(cfg, in.spec, m->data);
          break;
        }
      }
      if (!matched) continue;
      a.principal = workload_principal(in.spec, e.workload);
      a.resource = "rule " + std::to_string(static_cast<int>(e.value));
      a.by_principal = false;
    } else {
      continue;
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::map<int64_t, const audit::AuditRecord*> records_by_event(const audit::AuditLog& log) {
  std::map<int64_t, const audit::AuditRecord*> out;
  for (const auto& r : log.records) out.emplace(r.event_seq, &r);  // the first record of an event counts
  return out;
}

std::map<int64_t, const audit::LostRecord*> lost_by_event(const audit::AuditLog& log) {
  std::map<int64_t, const audit::LostRecord*> out;
  for (const auto& l : log.lost) out.emplace(l.event_seq, &l);
  return out;
}

std::string event_name(const Event& e) {
  return std::string(event_type_name(e.type)) + " #" + std::to_string(e.seq);
}

ComplianceEvidence event_evidence(const Access& a, std::string detail, std::string kind = {}) {
  ComplianceEvidence ev;
  ev.event = static_cast<int64_t>(a.event.seq);
  ev.time = a.event.time;
  ev.resource = a.resource;
  ev.detail = std::move(detail);
  ev.kind = std::move(kind);
  return ev;
}

/// Index of the rule instance in spec.compliance.rules (COMPLIANCE_REFUSED value), -1 if absent.
int rule_index(const ScenarioSpec& spec, const ComplianceRuleSpec& cfg) {
  for (size_t i = 0; i < spec.compliance.rules.size(); ++i)
    if (spec.compliance.rules[i].name == cfg.name) return static_cast<int>(i);
  return -1;
}

// ---------------------------------------------------------------- C4 audit completeness and latency

class AuditCompleteness final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Every access to tenant data is audited within the latency bound");
    const double max_delay = number_param(cfg.params, "maxDelay", DEFAULT_MAX_DELAY);
    const auto records = records_by_event(in.audit);
    const auto lost = lost_by_event(in.audit);
    size_t n_lost = 0, n_late = 0, n_missing = 0;
    double worst = 0;
    for (const Access& a : audited_accesses(in, cfg)) {
      ++f.checked;
      const auto seq = static_cast<int64_t>(a.event.seq);
      if (const auto r = records.find(seq); r != records.end()) {
        const double delay = r->second->t_written - a.event.time;
        worst = std::max(worst, delay);
        if (delay > max_delay) {
          ++n_late;
          auto ev = event_evidence(a,
                                   event_name(a.event) + " recorded " + seconds_text(delay) + " after it (> " +
                                       seconds_text(max_delay) + ")",
                                   "late");
          ev.audit_record = static_cast<int64_t>(r->second->index);
          add_violation(f, std::move(ev));
        }
      } else if (const auto l = lost.find(seq); l != lost.end()) {
        ++n_lost;
        add_violation(
            f, event_evidence(a, event_name(a.event) + " has no audit record (lost: " + l->second->why + ")", "lost"));
      } else {
        ++n_missing;
        add_violation(f, event_evidence(a, event_name(a.event) + " has no audit record", "missing"));
      }
    }
    finish_finding(f, "audited accesses");
    if (f.violations > 0)
      f.message = std::to_string(f.violations) + " of " + std::to_string(f.checked) +
                  " audited accesses: " + std::to_string(n_lost) + " lost, " + std::to_string(n_missing) +
                  " missing, " + std::to_string(n_late) + " late (worst delay " + seconds_text(worst) + ", bound " +
                  seconds_text(max_delay) + ")";
    return f;
  }
};

// ---------------------------------------------------------------- C5 audit content

class AuditContent final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg,
                                        "Audit records carry type, time, location, source, outcome, "
                                        "principal and resource");
    const bool all = cfg.match.tenants.empty() && cfg.match.classifications.empty() && cfg.match.data.empty();
    for (const auto& r : in.audit.records) {
      if (!all && !matches_tenant(cfg, in.spec, r.owner) && !matches_tenant(cfg, in.spec, r.tenant)) continue;
      ++f.checked;
      std::vector<std::string> missing;
      if (r.type.empty()) missing.push_back("type");
      if (!std::isfinite(r.t_event) || r.t_event < 0 || !std::isfinite(r.t_written)) missing.push_back("time");
      if (r.location.empty()) missing.push_back("location");
      if (r.source.empty()) missing.push_back("source");
      if (r.outcome.empty()) missing.push_back("outcome");
      if (r.principal.empty()) missing.push_back("principal");
      if (r.resource.empty()) missing.push_back("resource");
      if (missing.empty()) continue;
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      ComplianceEvidence ev;
      ev.event = r.event_seq;
      ev.audit_record = static_cast<int64_t>(r.index);
      ev.time = r.t_event;
      ev.resource = r.resource.empty() ? "record " + std::to_string(r.index) : r.resource;
      ev.detail = "audit record " + std::to_string(r.index) + " lacks " + list;
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "audit records");
    return f;
  }
};

// ---------------------------------------------------------------- C6 audit integrity

class AuditIntegrity final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "The audit stream is hash-chained, unmodified and stored apart");
    const auto& records = in.audit.records;
    f.checked = records.size();
    const std::string separate = string_param(cfg.params, "requireSeparateStore", "auto");
    bool high = false;  // a matched tenant at the High baseline (confidential or restricted data)
    for (size_t t = 0; t < in.spec.tenants.size(); ++t)
      high = high || (matches_tenant(cfg, in.spec, static_cast<int>(t)) &&
                      in.spec.tenants[t].classification >= Classification::CONFIDENTIAL);
    const bool need_separate = separate == "true" || (separate == "auto" && high);
    if (need_separate && !in.spec.audit.separate_store) {
      ComplianceEvidence ev;
      ev.resource = "spec.audit.separateStore";
      ev.detail = "audit records share a store with the audited system (AU-9(2) requires a separate one)";
      ev.kind = "store";
      ev.loc = in.spec.audit.loc;
      add_violation(f, std::move(ev));
    }
    if (!in.spec.audit.hash_chained) {
      ComplianceEvidence ev;
      ev.resource = "spec.audit.hashChained";
      ev.detail = "audit records are not hash-chained: modification or deletion cannot be detected";
      ev.kind = "unchained";
      ev.loc = in.spec.audit.loc;
      add_violation(f, std::move(ev));
      finish_finding(f, "audit records");
      return f;
    }
    const audit::ChainCheck check = in.chain ? *in.chain : audit::verify_chain(records);
    if (!check.intact) {
      // verify_chain stops at the first bad record; every record is checked on its own here so that each
      // modified record is named, and each deletion or insertion once (where the index sequence breaks).
      for (size_t i = 0; i < records.size(); ++i) {
        const auto& r = records[i];
        std::string why;
        const uint64_t expected_index = i == 0 ? 0 : records[i - 1].index + 1;
        if (r.index != expected_index)
          why = "index gap (expected " + std::to_string(expected_index) + ", found " + std::to_string(r.index) +
                "): a record was deleted or inserted";
        else if (r.hash_prev != (i == 0 ? std::string{} : records[i - 1].hash))
          why = "broken link: hash_prev does not match the previous record's hash";
        else if (sha256_hex(audit::canonical_text(r)) != r.hash)
          why = "hash mismatch: the record was modified after it was written";
        if (why.empty()) continue;
        ComplianceEvidence ev;
        ev.event = r.event_seq;
        ev.audit_record = static_cast<int64_t>(i);
        ev.time = r.t_written;
        ev.resource = "audit record " + std::to_string(i);
        ev.detail = why;
        ev.kind = "chain";
        add_violation(f, std::move(ev));
      }
    }
    finish_finding(f, "audit records");
    if (!check.intact)
      f.message = "audit chain broken at record " + std::to_string(check.first_bad) + " (" + check.reason + "); " +
                  std::to_string(f.violations) + " violation(s)";
    return f;
  }
};

// ---------------------------------------------------------------- C7 retention

struct Regime {
  const char* name;
  double seconds;
  const char* source;
};

const std::vector<Regime>& regimes() {
  static const std::vector<Regime> table{
      {"pci", 12 * MONTH, "PCI DSS 10.5.1: 12 months"},
      {"fedramp", 90 * DAY, "FedRAMP AU-11: 90 days online"},
      {"m-21-31", 30 * MONTH, "OMB M-21-31: 12 months active + 18 months cold"},
      {"ai-act", 6 * MONTH, "EU AI Act Art. 26(6): 6 months"},
      {"hipaa", 6 * YEAR, "HIPAA 164.316(b)(2)(i): 6 years"},
  };
  return table;
}

class AuditRetention final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Audit records are kept as long as the declared regimes require");
    const double retention = in.spec.audit.retention.value;  // 0: forever
    double required = number_param(cfg.params, "minRetention", 0);
    std::string strictest = required > 0 ? "minRetention" : "";
    std::vector<std::string> names = param_list(cfg.params, "regimes");
    if (cfg.params.find("regimes") == cfg.params.end()) names = {"ai-act"};
    for (const auto& name : names) {
      const auto it = std::find_if(regimes().begin(), regimes().end(), [&](const Regime& r) { return name == r.name; });
      if (it == regimes().end()) {
        f.status = ComplianceStatus::ERROR;
        f.message = "unknown regime '" + name + "' (valid: pci, fedramp, m-21-31, ai-act, hipaa)";
        return f;
      }
      ++f.checked;
      if (retention > 0 && retention < it->seconds) {
        ComplianceEvidence ev;
        ev.resource = "spec.audit.retention";
        ev.detail =
            "retention " + seconds_text(retention) + " < " + it->source + " (" + seconds_text(it->seconds) + ")";
        ev.kind = it->name;
        ev.loc = in.spec.audit.loc;
        add_violation(f, std::move(ev));
      }
      if (it->seconds > required) {
        required = it->seconds;
        strictest = it->source;
      }
    }
    if (const double floor = number_param(cfg.params, "minRetention", 0); floor > 0) {
      ++f.checked;
      if (retention > 0 && retention < floor) {
        ComplianceEvidence ev;
        ev.resource = "spec.audit.retention";
        ev.detail = "retention " + seconds_text(retention) + " < minRetention " + seconds_text(floor);
        ev.kind = "minRetention";
        ev.loc = in.spec.audit.loc;
        add_violation(f, std::move(ev));
      }
    }
    if (!in.spec.audit.enabled) {
      ComplianceEvidence ev;
      ev.resource = "spec.audit.enabled";
      ev.detail = "no audit log is kept";
      ev.loc = in.spec.audit.loc;
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "retention regimes");
    f.message = (f.violations > 0 ? "FAIL: " : "") + std::string("retention ") +
                (retention > 0 ? seconds_text(retention) : std::string("unlimited")) + ", required " +
                seconds_text(required) + (strictest.empty() ? "" : " (" + strictest + ")");
    return f;
  }
};

// ---------------------------------------------------------------- C8 logging-gap alarm

class LoggingGapAlarm final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "A gap in the audit stream raises an alert in time");
    const double max_gap = number_param(cfg.params, "maxGap", DEFAULT_MAX_GAP);
    const double alert_within = number_param(cfg.params, "alertWithin", DEFAULT_ALERT_WITHIN);
    const bool alerting = bool_param(cfg.params, "alerting", false);
    const double alert_delay = number_param(cfg.params, "alertDelay", 0);
    const auto records = records_by_event(in.audit);
    const std::vector<Access> accesses = audited_accesses(in, cfg);
    // A gap: a run of consecutive accesses without a record, from the first of them to the next access that
    // was recorded (or the end of the run). The monitor (alerting) notices after max_gap of silence.
    size_t i = 0;
    while (i < accesses.size()) {
      if (records.count(static_cast<int64_t>(accesses[i].event.seq))) {
        ++i;
        continue;
      }
      const size_t first = i;
      while (i < accesses.size() && !records.count(static_cast<int64_t>(accesses[i].event.seq))) ++i;
      const double start = accesses[first].event.time;
      const double end = i < accesses.size() ? accesses[i].event.time : std::max(in.run.end_time, start);
      const size_t lost = i - first;
      if (end - start <= max_gap) continue;
      ++f.checked;
      const double alert_latency = max_gap + alert_delay;
      if (alerting && alert_latency <= alert_within) continue;
      ComplianceEvidence ev = event_evidence(accesses[first], "");
      ev.resource = "audit stream";
      ev.kind = "gap";
      ev.detail = "audit gap from t=" + seconds_text(start) + " to t=" + seconds_text(end) + " (" +
                  seconds_text(end - start) + " > " + seconds_text(max_gap) + "), " + std::to_string(lost) +
                  " access(es) unrecorded, first " + event_name(accesses[first].event) + "; " +
                  (alerting ? "alert after " + seconds_text(alert_latency) + " > " + seconds_text(alert_within)
                            : std::string("no alert (the audit pipeline has no failure alerting)"));
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "audit gaps");
    if (f.checked == 0) f.message = "no audit gap longer than " + seconds_text(max_gap) + " while accesses happened";
    return f;
  }
};

// ---------------------------------------------------------------- C10 unique identity

class UniqueIdentity final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "No access by a shared or anonymous principal");
    std::map<std::string, PrincipalKind> kinds;
    for (const auto& p : in.spec.identity.principals) kinds[p.name] = p.kind;
    for (const Access& a : audited_accesses(in, cfg)) {
      if (!a.by_principal) continue;
      ++f.checked;
      const auto it = kinds.find(a.principal);
      std::string what;
      if (a.principal.empty() || (it != kinds.end() && it->second == PrincipalKind::ANONYMOUS))
        what = "anonymous";
      else if (it != kinds.end() && it->second == PrincipalKind::SHARED)
        what = "shared";
      if (what.empty()) continue;
      auto ev = event_evidence(a,
                               event_name(a.event) + " by " + what + " principal '" + a.principal + "' (" +
                                   (a.success ? "succeeded" : "refused") + ")",
                               what);
      ev.resource = a.principal.empty() ? a.resource : a.principal;
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "accesses");
    return f;
  }
};

// ---------------------------------------------------------------- C11 authorisation

bool grant_covers(const GrantSpec& g, const Access& a) {
  if (g.principal != a.principal) return false;
  if (g.resource != a.resource && (a.container.empty() || g.resource != a.container)) return false;
  if (!g.actions.empty() && std::find(g.actions.begin(), g.actions.end(), a.action) == g.actions.end()) return false;
  const double t = a.event.time;
  return t >= g.from.value && (g.until.value < 0 || t <= g.until.value);
}

class Authorisation final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Every access runs under a grant valid at its time");
    for (const Access& a : audited_accesses(in, cfg)) {
      if (!a.by_principal) continue;
      ++f.checked;
      if (!a.success) continue;  // refused: the access control worked
      const auto& grants = in.spec.identity.grants;
      if (std::any_of(grants.begin(), grants.end(), [&](const GrantSpec& g) { return grant_covers(g, a); })) continue;
      // Say why: no grant at all, or one for another action or outside its validity.
      std::string why = "no grant of " + a.action + " on " + a.resource;
      for (const auto& g : grants) {
        if (g.principal != a.principal || (g.resource != a.resource && g.resource != a.container)) continue;
        why = "grant on " + g.resource + " does not cover " + a.action + " at t=" + seconds_text(a.event.time);
        break;
      }
      auto ev = event_evidence(a, event_name(a.event) + " by '" + a.principal + "': " + why, "ungranted");
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "accesses");
    return f;
  }
};

// ---------------------------------------------------------------- C11 across delegation: no confused deputy

// Least privilege along a call chain: a principal must not reach another tenant's data or secret only because a
// service on the way replaced its identity with the service's own broader one. Evidence at the first access the
// deputy made to the target under that identity (the simulated time of the call), else at t = 0.
class NoConfusedDeputy final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f =
        start_finding(cfg, "No cross-tenant path through a service that replaces the caller's identity");
    const bool within_tenant = bool_param(cfg.params, "withinTenant", false);
    // Run time first: each (principal, target, identity) reached through a deputy, at its first hop.
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const Event& e : in.run.log.events()) {
      if (e.type != EventType::AGENT_CALL || e.value < 0.5) continue;
      const auto i = payload::invocation_step(e, in.run.invocation_steps.size());
      if (!i) continue;
      const auto& s = in.run.invocation_steps[*i];
      if (!(s.confused_deputy || (within_tenant && s.over_privileged)) || !matches_tenant(cfg, in.spec, s.owner))
        continue;
      ++f.checked;
      if (!seen.emplace(s.principal, s.to, s.identity).second) continue;
      ComplianceEvidence ev;
      ev.event = static_cast<int64_t>(e.seq);
      ev.time = e.time;
      ev.resource = s.to;
      ev.detail = "'" + s.principal + "' " + s.action + "s " + s.target_kind + " " + s.to +
                  " at t=" + seconds_text(e.time) + " through '" + s.from + "' as '" + s.identity + "' (" +
                  spec_invocation_name(in.spec, s.invocation) + ", call " + std::to_string(s.call) + ", hop " +
                  std::to_string(s.hop) + "): it may not do so itself";
      ev.kind = s.confused_deputy ? "confusedDeputy" : "overPrivileged";
      add_violation(f, std::move(ev));
    }
    // Standing paths of the graph that no invocation took: the deputy's first data access as evidence.
    const auto& events = in.run.log.events();
    for (const auto& p : in.identity_paths) {
      if (!matches_tenant(cfg, in.spec, p.source_tenant)) continue;
      ++f.checked;
      if (!p.confused_deputy || !p.granted || seen.count({p.principal, p.target, p.effective_identity})) continue;
      ComplianceEvidence ev;
      ev.resource = p.target;
      std::string chain;
      for (const auto& h : p.hops) chain += (chain.empty() ? "" : " -> ") + h;
      ev.detail = "'" + p.principal + "' reaches " + p.target_kind + " " + p.target + " (" + p.action + ") via " +
                  chain + " as '" + p.effective_identity + "': a hop replaced its identity";
      ev.kind = "confusedDeputy";
      for (const Event& e : events) {
        if (e.type != EventType::DATA_MOVE) continue;
        const DataMovement* m = movement_of(in.run, e);
        if (!m || m->data < 0 || m->identity != p.effective_identity ||
            in.spec.data[static_cast<size_t>(m->data)].name != p.target)
          continue;
        ev.event = static_cast<int64_t>(e.seq);
        ev.time = e.time;
        break;
      }
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "cross-tenant identity paths and deputy hops");
    return f;
  }

 private:
  static std::string spec_invocation_name(const ScenarioSpec& spec, int i) {
    return i >= 0 && static_cast<size_t>(i) < spec.identity.invocations.size()
               ? "invocation " + spec.identity.invocations[static_cast<size_t>(i)].name
               : std::string("invocation ?");
  }
};

// ---------------------------------------------------------------- C22 AI Act use logs

class AiActLogging final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Every use of a high-risk inference service is logged");
    const auto records = records_by_event(in.audit);
    const auto lost = lost_by_event(in.audit);
    size_t not_logged = 0;
    std::optional<Event> first_unlogged;
    for (const Event& e : in.run.log.events()) {
      if (e.type != EventType::REQUEST_DONE || e.workload < 0 ||
          static_cast<size_t>(e.workload) >= in.spec.workloads.size())
        continue;
      const auto& w = in.spec.workloads[static_cast<size_t>(e.workload)];
      if (w.kind != WorkloadKind::INFERENCE || !matches_tenant(cfg, in.spec, w.tenant_index)) continue;
      ++f.checked;
      const auto seq = static_cast<int64_t>(e.seq);
      if (const auto r = records.find(seq); r != records.end()) {
        const auto& rec = *r->second;
        if (!rec.resource.empty() && rec.source.rfind("request:", 0) == 0 && std::isfinite(rec.t_event)) continue;
        ComplianceEvidence ev{seq,
                              static_cast<int64_t>(rec.index),
                              e.time,
                              w.name,
                              "record without model or input "
                              "reference",
                              "incomplete",
                              {}};
        add_violation(f, std::move(ev));
      } else if (const auto l = lost.find(seq); l != lost.end()) {
        add_violation(f,
                      ComplianceEvidence{seq,
                                         -1,
                                         e.time,
                                         w.name,
                                         "request done at t=" + seconds_text(e.time) + " lost (" + l->second->why + ")",
                                         "lost",
                                         {}});
      } else {
        if (!first_unlogged) first_unlogged = e;
        ++not_logged;
      }
    }
    if (not_logged > 0) {
      // One piece of evidence for the pipeline that records no request at all (spec.audit.logRequests off).
      f.violations += not_logged - 1;
      add_violation(f, ComplianceEvidence{static_cast<int64_t>(first_unlogged->seq), -1, first_unlogged->time,
                                          in.spec.workloads[static_cast<size_t>(first_unlogged->workload)].name,
                                          std::to_string(not_logged) +
                                              " requests have no use record (spec.audit.logRequests is " +
                                              (in.spec.audit.log_requests ? "on, audit disabled" : "off") + ")",
                                          "notLogged", in.spec.audit.loc});
    }
    finish_finding(f, "inference requests");
    return f;
  }
};

// ---------------------------------------------------------------- C12 timely revocation

class TimelyRevocation final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Revoked principals stop accessing within the grace period");
    const double grace = bool_param(cfg.params, "strict", false) ? 0 : number_param(cfg.params, "grace", DEFAULT_GRACE);
    std::map<std::string, double> revoked;  // principal -> earliest revocation
    for (const auto& r : in.spec.identity.revocations) {
      auto [it, fresh] = revoked.emplace(r.principal, r.at.value);
      if (!fresh) it->second = std::min(it->second, r.at.value);
    }
    const auto records = records_by_event(in.audit);
    for (const Access& a : audited_accesses(in, cfg)) {
      if (!a.by_principal || !a.success) continue;
      const auto it = revoked.find(a.principal);
      if (it == revoked.end()) continue;
      ++f.checked;
      if (a.event.time <= it->second + grace) continue;
      auto ev = event_evidence(
          a,
          event_name(a.event) + " by '" + a.principal + "' revoked at t=" + seconds_text(it->second) + ", " +
              seconds_text(a.event.time - it->second) + " after revocation (grace " + seconds_text(grace) + ")",
          "after-revocation");
      if (const auto r = records.find(static_cast<int64_t>(a.event.seq)); r != records.end())
        ev.audit_record = static_cast<int64_t>(r->second->index);
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "accesses by revoked principals");
    return f;
  }
};

// ---------------------------------------------------------------- C18 attestation before key release

class AttestationBeforeKeyRelease final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Secrets are released only after a fresh GPU attestation in CC mode");
    const double window = number_param(cfg.params, "freshness", DEFAULT_FRESHNESS);
    const bool all_secrets = bool_param(cfg.params, "allSecrets", false);
    const int self = rule_index(in.spec, cfg);
    const auto& events = in.run.log.events();
    std::optional<RunIndex> own;
    const RunIndex& index = in.index ? *in.index : own.emplace(in.spec, in.run);
    const auto records = records_by_event(in.audit);
    for (const Access& a : audited_accesses(in, cfg)) {
      const Event& e = a.event;
      if (e.type == EventType::COMPLIANCE_REFUSED) {
        if (payload::refused(e) == payload::Refused::KEY_RELEASE && static_cast<int>(e.value) == self) ++f.prevented;
        continue;
      }
      if (e.type != EventType::KEY_RELEASE) continue;
      const auto& secret = in.spec.identity.secrets[static_cast<size_t>(a.secret)];
      if (!all_secrets && !secret.requires_attestation) continue;
      ++f.checked;
      if (!a.success) continue;  // refused: nothing released
      const std::string why = check_release(in, index, events, e, window);
      if (why.empty()) continue;
      auto ev = event_evidence(
          a, event_name(e) + " of " + secret.name + " to " + workload_name(in.spec, e) + ": " + why, "unattested");
      // The release's own audit record, when the log has it (as audit-complete links its evidence).
      if (const auto r = records.find(static_cast<int64_t>(e.seq)); r != records.end())
        ev.audit_record = static_cast<int64_t>(r->second->index);
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "key releases");
    if (f.prevented > 0) f.message += "; " + std::to_string(f.prevented) + " key release(s) refused by enforcement";
    return f;
  }

  std::optional<std::string> refuse_key_release(const KeyReleaseCheck& c,
                                                const ComplianceRuleSpec& cfg) const override {
    if (c.secret < 0 || static_cast<size_t>(c.secret) >= c.spec.identity.secrets.size()) return std::nullopt;
    const auto& secret = c.spec.identity.secrets[static_cast<size_t>(c.secret)];
    if (!matches_tenant(cfg, c.spec, secret.tenant_index)) return std::nullopt;
    if (!secret.requires_attestation && !bool_param(cfg.params, "allSecrets", false)) return std::nullopt;
    if (!c.confidential) return "the replica's GPU is not in confidential-computing mode";
    if (c.attested_at < 0) return "no successful attestation of the replica's GPU";
    const double window = number_param(cfg.params, "freshness", DEFAULT_FRESHNESS);
    if (c.now - c.attested_at > window)
      return "attestation " + seconds_text(c.now - c.attested_at) + " old (freshness " + seconds_text(window) + ")";
    return std::nullopt;
  }

 private:
  static std::string workload_name(const ScenarioSpec& spec, const Event& e) {
    const std::string w = e.workload >= 0 && static_cast<size_t>(e.workload) < spec.workloads.size()
                              ? spec.workloads[static_cast<size_t>(e.workload)].name
                              : "?";
    return w + "/" + std::to_string(e.replica);
  }

  // Why the release `k` breaks the rule ("" when it does not): the replica's GPUs (those of its latest
  // placement) must all be in CC mode, and each must have been attested by this replica, successfully,
  // within the window before the release (its latest attestation counts: a later failure revokes trust).
  static std::string check_release(const ComplianceInput& in, const RunIndex& index, const EventLog::Range& events,
                                   const Event& k, double window) {
    std::set<int> gpus;
    double placed_at = -1;
    const auto& stays = index.stays_of(WorkloadId(k.workload), k.replica);
    for (size_t j = stays.size(); j-- > 0;) {
      const Stay& s = index.stays()[stays[j]];
      if (s.seq >= k.seq) continue;
      if (placed_at >= 0 && s.start != placed_at) break;
      placed_at = s.start;
      gpus.insert(s.gpu);
    }
    if (gpus.empty() && k.gpu >= 0) gpus.insert(k.gpu);
    for (int g : gpus) {
      const bool cc = g >= 0 && static_cast<size_t>(g) < in.run.gpus.size() &&
                      in.run.gpus[static_cast<size_t>(g)].sharing == SharingMode::CONFIDENTIAL;
      if (!cc) return "GPU " + std::to_string(g) + " is not in confidential-computing mode";
      std::optional<Event> latest;
      for (size_t j = k.seq; j-- > 0;) {
        const Event& e = events[j];
        if (e.type == EventType::ATTESTATION && e.gpu == g && e.workload == k.workload && e.replica == k.replica) {
          latest = e;
          break;
        }
      }
      if (!latest) return "no attestation of GPU " + std::to_string(g) + " before it";
      if (latest->value < 0.5)
        return "the latest attestation of GPU " + std::to_string(g) + " (" + event_name(*latest) + ") failed";
      if (k.time - latest->time > window)
        return "attestation of GPU " + std::to_string(g) + " (" + event_name(*latest) + ") is " +
               seconds_text(k.time - latest->time) + " old (freshness " + seconds_text(window) + ")";
    }
    return {};
  }
};

// ---------------------------------------------------------------- registration

}  // namespace

void register_identity_audit_rules(ComplianceRegistry& registry) {
  add_compliance_rule(
      registry,
      {"audit-completeness",
       "C4: every access (data movement or refusal, key release, enforcement refusal) of the matched tenants' data "
       "has an audit record with its event id, written within maxDelay; lost and late records are reported apart.",
       {seconds("maxDelay", DEFAULT_MAX_DELAY,
                "Largest delay from the access to its record in the audit store, in seconds (60; real-time SIEM "
                "alerting profiles use 5).")}},
      {"C4",
       {"HIPAA 164.312(b)", "NIST SP 800-53 AU-12", "PCI DSS 10.2", "ISO/IEC 27001 A.8.15", "EU AI Act Art. 12(1)"},
       "high",
       false},
      factory<AuditCompleteness>());
  add_compliance_rule(registry,
                      {"audit-content",
                       "C5: each audit record has type, time, location/component, source, outcome, principal and "
                       "affected resource.",
                       {}},
                      {"C5", {"NIST SP 800-53 AU-3", "PCI DSS 10.3", "ISO/IEC 27001 A.8.15"}, "medium", false},
                      factory<AuditContent>());
  add_compliance_rule(
      registry,
      {"audit-integrity",
       "C6: the audit stream is hash-chained and verifies (a modified record is named at its index, a deletion "
       "where the index sequence breaks) and, for the High baseline, kept on a store apart from the audited "
       "system.",
       {ParamSpec{"requireSeparateStore",
                  ParamType::STRING,
                  std::string("auto"),
                  "Whether spec.audit.separateStore must be true (AU-9(2)): true, false, or auto (required when a "
                  "matched tenant is classified confidential or restricted, the High baseline).",
                  -1e300,
                  1e300,
                  {"auto", "true", "false"}}}},
      {"C6",
       {"NIST SP 800-53 AU-9", "NIST SP 800-53 AU-9(2)", "NIST SP 800-53 AU-9(3)", "PCI DSS 10.3.2 (unverified)",
        "ISO/IEC 27001 A.8.15"},
       "high",
       false},
      factory<AuditIntegrity>());
  add_compliance_rule(
      registry,
      {"audit-retention",
       "C7: spec.audit.retention is at least the longest retention the declared regimes require.",
       {ParamSpec{"regimes",
                  ParamType::STRING,
                  std::string("ai-act"),
                  "Comma-separated regimes: pci (12 months), fedramp (90 days), m-21-31 (12 + 18 = 30 months), "
                  "ai-act (6 months), hipaa (6 years). Default ai-act.",
                  -1e300,
                  1e300,
                  {}},
        seconds("minRetention", 0, "An extra floor in seconds (0: none).")}},
      {"C7",
       {"PCI DSS 10.5.1", "FedRAMP AU-11", "OMB M-21-31", "EU AI Act Art. 26(6)", "HIPAA 164.316(b)(2)(i)"},
       "medium",
       false},
      factory<AuditRetention>());
  add_compliance_rule(
      registry,
      {"logging-gap-alarm",
       "C8: a gap in the audit stream longer than maxGap while accesses kept happening raises an alert within "
       "alertWithin; the alert is the audit pipeline's own monitoring (alerting), which notices after maxGap of "
       "silence plus alertDelay.",
       {seconds("maxGap", DEFAULT_MAX_GAP, "Longest tolerated gap, in seconds (300)."),
        seconds("alertWithin", DEFAULT_ALERT_WITHIN, "Deadline for the alert after the gap starts, in seconds (900)."),
        ParamSpec{"alerting",
                  ParamType::BOOL,
                  false,
                  "Whether the audit pipeline alerts on a logging failure (AU-5); false: gaps go unnoticed.",
                  -1e300,
                  1e300,
                  {}},
        seconds("alertDelay", 0, "The monitor's reaction time after it notices the silence, in seconds.")}},
      {"C8", {"NIST SP 800-53 AU-5", "PCI DSS 10.7 (unverified)"}, "high", false}, factory<LoggingGapAlarm>());
  add_compliance_rule(registry,
                      {"unique-identity",
                       "C10: no access (data or secret) by a shared or anonymous principal, successful or refused.",
                       {}},
                      {"C10", {"HIPAA 164.312(a)(2)(i)", "SOC 2 CC6.1"}, "high", false}, factory<UniqueIdentity>());
  add_compliance_rule(
      registry,
      {"authorisation",
       "C11: every successful access has a grant (principal, data item / its store / secret, action) valid at its "
       "time; a refused access is compliant.",
       {}},
      {"C11",
       {"NIST SP 800-53 AC-3", "NIST SP 800-53 AC-6", "HIPAA 164.312(a)(1)", "SOC 2 CC6.1", "ISO/IEC 27001 A.5.15",
        "ISO/IEC 27001 A.8.3"},
       "high",
       false},
      factory<Authorisation>());
  add_compliance_rule(
      registry,
      {"no-confused-deputy",
       "C11 along call chains: no principal reaches another tenant's data or secret only because a service on the "
       "way replaced the caller's identity with its own (identity.edges propagation replace; "
       "docs/models/identity.md). Evidence at the simulated time of the first hop that did it "
       "(spec.identity.invocations), else at the deputy's first data access.",
       {ParamSpec{"withinTenant",
                  ParamType::BOOL,
                  false,
                  "Also fail over-privileged hops inside the caller's own tenant (the deputy may do what the caller "
                  "may not).",
                  -1e300,
                  1e300,
                  {}}}},
      {"C11", {"NIST SP 800-53 AC-6", "NIST SP 800-53 AC-4", "SOC 2 CC6.1"}, "high", false},
      factory<NoConfusedDeputy>());
  add_compliance_rule(
      registry,
      {"ai-act-logging",
       "C22: every completed request of a matched inference service (a high-risk AI system: match its tenants) has "
       "a use record in the audit stream with its period (start, end), the model and a reference to the input "
       "(spec.audit.logRequests).",
       {}},
      {"C22",
       {"EU AI Act Art. 12(1)", "EU AI Act Art. 12(2)", "EU AI Act Art. 12(3)", "EU AI Act Art. 19"},
       "high",
       false},
      factory<AiActLogging>());
  add_compliance_rule(registry,
                      {"timely-revocation",
                       "C12: after a revocation of a principal at t0, no successful access by it after t0 + grace.",
                       {seconds("grace", DEFAULT_GRACE, "Grace period in seconds (86400: 24 h, SOC 2 practice)."),
                        ParamSpec{"strict", ParamType::BOOL, false, "Strict mode: grace 0.", -1e300, 1e300, {}}}},
                      {"C12", {"SOC 2 CC6.1", "SOC 2 CC6.2"}, "high", false}, factory<TimelyRevocation>());
  add_compliance_rule(
      registry,
      {"attestation-before-key-release",
       "C18: a secret that requires attestation (or every secret, allSecrets) is released only to a replica whose "
       "GPUs are in confidential-computing mode and were attested successfully by it within the freshness window. "
       "Enforceable: the engine then refuses the key release.",
       {seconds("freshness", DEFAULT_FRESHNESS, "Freshness window W of an attestation, in seconds (86400: 24 h)."),
        ParamSpec{"allSecrets",
                  ParamType::BOOL,
                  false,
                  "Apply to every secret, not only those with requiresAttestation.",
                  -1e300,
                  1e300,
                  {}}}},
      {"C18", {"NVIDIA Confidential Computing: attestation before secrets"}, "critical", true},
      factory<AttestationBeforeKeyRelease>());
}

}  // namespace gtw::policy
