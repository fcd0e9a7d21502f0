// Record-keeping rules (docs/models/compliance.md, "Records, clocks, sessions and logs";
// ../shared/reference/compliance.md C3, C9, C13, C21): records of processing cover what the run
// processed, audit timestamps follow the reference clock, idle sessions are terminated, and each
// tenant's audit logs are its own and available to it. All read the run after it (audit only).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "BuiltinRules.hpp"
#include "Sessions.hpp"
#include "Text.hpp"

namespace gtw::policy {

namespace {

constexpr double DEFAULT_MAX_CLOCK_OFFSET = 1;  // compliance.md C9: +-1 s (unverified)
constexpr double DEFAULT_MAX_IDLE = 15 * 60;    // compliance.md C13: 15 min, from PCI DSS 8.2.8 (unverified)

// ---------------------------------------------------------------- C3 records of processing

// One processing activity as Art. 30(1) describes it, with the first event that showed it.
struct Activity {
  int controller = -1;
  std::string purpose;
  std::string category;
  int recipient = -1;  // -1: the controller itself
  std::string region;  // where the data was processed or stored
  std::string home;    // the data's own region
  int data = -1;
  int64_t event = -1;
  double time = 0;
  std::string via;  // what showed it (workload placement, movement)
  auto key() const { return std::make_tuple(controller, purpose, category, recipient, region, data); }
};

std::string workload_purpose(const ScenarioSpec& spec, int w) {
  const auto& wl = spec.workloads[static_cast<size_t>(w)];
  return wl.purpose.empty() ? workload_kind_names()[static_cast<size_t>(wl.kind)] : wl.purpose;
}

std::string data_category(const ScenarioSpec& spec, int d) {
  const auto& item = spec.data[static_cast<size_t>(d)];
  return item.category.empty() ? lower(data_classification(spec, d)) : item.category;
}

class RecordsOfProcessing final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Every processing activity of the run is in a record of processing");
    // One activity per (controller, purpose, category, recipient, region, data item), at its first event.
    std::map<decltype(Activity{}.key()), Activity> first;
    const auto add = [&](Activity a) {
      auto [it, inserted] = first.emplace(a.key(), a);
      if (!inserted && a.event < it->second.event) it->second = std::move(a);
    };
    collect(in, cfg, add);
    std::vector<Activity> seen;
    for (auto& [key, a] : first) seen.push_back(std::move(a));
    std::stable_sort(seen.begin(), seen.end(), [](const Activity& a, const Activity& b) { return a.event < b.event; });
    for (const auto& a : seen) {
      ++f.checked;
      const std::string missing = uncovered(in.spec, a);
      if (missing.empty()) continue;
      ComplianceEvidence ev = evidence(a.event, a.time, in.spec.data[static_cast<size_t>(a.data)].name,
                                       "controller " + tenant_name(in.spec, a.controller) + ", purpose " + a.purpose +
                                           ", category " + a.category + ", recipient " +
                                           (a.recipient < 0 ? std::string("none") : tenant_name(in.spec, a.recipient)) +
                                           ", region " + a.region + " (" + a.via + "): " + missing,
                                       in.spec.data[static_cast<size_t>(a.data)].loc);
      ev.kind = missing.rfind("no record", 0) == 0 ? "noRecord" : "incomplete";
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "processing activities");
    return f;
  }

 private:
  // Placements of replicas whose workload names the data, and movements of the data (a workload's, or an
  // agent's data hop, whose purpose is its invocation's name).
  template <class Add>
  static void collect(const ComplianceInput& in, const ComplianceRuleSpec& cfg, Add&& add) {
    const auto& spec = in.spec;
    std::optional<RunIndex> own;
    for (const auto& s : run_index(in, own).stays()) {
      if (s.workload < 0) continue;
      for (int d : workload_data(spec, s.workload)) {
        if (!matches_data(cfg, spec, d)) continue;
        const int owner = spec.data[static_cast<size_t>(d)].tenant_index;
        add(Activity{owner, workload_purpose(spec, s.workload), data_category(spec, d),
                     s.tenant == owner ? -1 : s.tenant, pool_region(spec, in.run.gpus[static_cast<size_t>(s.gpu)].pool),
                     data_region(spec, d), d, static_cast<int64_t>(s.seq), s.start,
                     "placement of " + spec.workloads[static_cast<size_t>(s.workload)].name});
      }
    }
    for (const Event& e : in.run.log.events()) {
      if (e.type != EventType::DATA_MOVE) continue;
      const auto i = payload::data_movement(e, in.run.data_movements.size());
      if (!i) continue;
      const DataMovement& m = in.run.data_movements[*i];
      if (m.data < 0 || !matches_data(cfg, spec, m.data)) continue;
      std::string region = m.region;
      if (region.empty() && m.gpu >= 0 && static_cast<size_t>(m.gpu) < in.run.gpus.size())
        region = pool_region(spec, in.run.gpus[static_cast<size_t>(m.gpu)].pool);
      if (region.empty()) continue;
      const int owner = spec.data[static_cast<size_t>(m.data)].tenant_index;
      const std::string purpose = m.workload >= 0 ? workload_purpose(spec, m.workload)
                                  : m.invocation >= 0
                                      ? spec.identity.invocations[static_cast<size_t>(m.invocation)].name
                                      : std::string("(unknown)");
      add(Activity{owner, purpose, data_category(spec, m.data), m.tenant == owner ? -1 : m.tenant, region,
                   data_region(spec, m.data), m.data, static_cast<int64_t>(e.seq), e.time,
                   m.operation + " " + m.from + " -> " + m.to});
    }
  }

  // What the closest record of the controller lacks for the activity ("" when one covers it).
  static std::string uncovered(const ScenarioSpec& spec, const Activity& a) {
    const std::string controller = tenant_name(spec, a.controller);
    std::string best;
    size_t best_count = SIZE_MAX;
    for (const auto& r : spec.compliance.processing_records) {
      if (r.tenant != controller) continue;
      std::vector<std::string> lacks;
      if (!contains(r.purposes, a.purpose)) lacks.push_back("purpose '" + a.purpose + "'");
      if (!contains(r.categories, a.category)) lacks.push_back("category '" + a.category + "'");
      if (a.recipient >= 0 && !contains(r.recipients, tenant_name(spec, a.recipient)))
        lacks.push_back("recipient '" + tenant_name(spec, a.recipient) + "'");
      if (!a.home.empty() && a.region != a.home) {
        const auto t = std::find_if(r.transfers.begin(), r.transfers.end(),
                                    [&](const RecordedTransferSpec& x) { return x.to_region == a.region; });
        if (t == r.transfers.end()) {
          lacks.push_back("the transfer to " + a.region + " and its safeguard");
        } else if (const std::string basis = recorded_basis(spec, a); !basis.empty() && basis != t->mechanism) {
          lacks.push_back("the transfer to " + a.region + " names " + t->mechanism + ", its basis is " + basis);
        }
      }
      if (lacks.size() < best_count) {
        best_count = lacks.size();
        best = lacks.empty() ? std::string() : "record '" + r.name + "' lacks " + join(lacks, ", ");
      }
      if (lacks.empty()) return {};
    }
    return best_count == SIZE_MAX ? "no record of processing for controller " + controller : best;
  }

  // The mechanism of the transfer basis recorded for the data (or its owner) to that region, if any.
  static std::string recorded_basis(const ScenarioSpec& spec, const Activity& a) {
    const auto& item = spec.data[static_cast<size_t>(a.data)];
    for (const auto& t : spec.compliance.transfers)
      if ((t.data == item.name || t.data == item.tenant) && t.to_region == a.region) return t.mechanism;
    return {};
  }
};

// ---------------------------------------------------------------- C9 time synchronisation

// Nothing to judge: the run keeps no audit stream.
ComplianceFinding skipped(ComplianceFinding& f) {
  f.status = ComplianceStatus::SKIP;
  f.message = "spec.audit.enabled is false: the run keeps no audit records";
  return f;
}

// The tenant whose stream a record belongs to: the resource's owner, else the tenant that acted.
int stream_tenant(const audit::AuditRecord& r) {
  return r.owner >= 0 ? r.owner : r.tenant;
}

class TimeSynchronisation final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Audit timestamps are within the tolerance of the reference clock");
    if (!in.audit.enabled) return skipped(f);
    const double max_offset = number_param(cfg.params, "maxOffset", DEFAULT_MAX_CLOCK_OFFSET);
    // Consecutive records off by more than the tolerance form one violation (a period out of sync).
    const audit::AuditRecord* first = nullptr;
    const audit::AuditRecord* last = nullptr;
    double worst = 0;
    size_t count = 0;
    const auto flush = [&] {
      if (!first) return;
      ComplianceEvidence ev = evidence(
          first->event_seq, first->t_written - first->clock_offset, "audit record " + std::to_string(first->index),
          "audit clock off by " + signed_seconds(first->clock_offset) + " at record " + std::to_string(first->index) +
              (count > 1 ? " through record " + std::to_string(last->index) + " (" + std::to_string(count) +
                               " records, largest " + signed_seconds(worst) + ")"
                         : std::string()) +
              "; tolerance " + seconds_text(max_offset) + " (spec.audit clockSkew, clockDrift, clockSync)",
          in.spec.audit.loc);
      ev.audit_record = static_cast<int64_t>(first->index);
      ev.kind = "outOfSync";
      add_violation(f, std::move(ev));
      first = last = nullptr;
      worst = 0;
      count = 0;
    };
    for (const auto& r : in.audit.records) {
      const int t = stream_tenant(r);
      if (t >= 0 && !matches_tenant(cfg, in.spec, t)) continue;
      ++f.checked;
      if (std::fabs(r.clock_offset) <= max_offset) {
        flush();
        continue;
      }
      if (!first) first = &r;
      last = &r;
      ++count;
      if (std::fabs(r.clock_offset) > std::fabs(worst)) worst = r.clock_offset;
    }
    flush();
    finish_finding(f, "audit records");
    if (f.violations > 0)
      f.message = std::to_string(f.violations) + " period(s) with audit timestamps more than " +
                  seconds_text(max_offset) + " off the reference clock, in " + std::to_string(f.checked) + " records";
    return f;
  }

 private:
  static std::string signed_seconds(double s) { return format_printf("%+.3g s", s); }
};

// ---------------------------------------------------------------- C13 session timeout

const char* principal_kind_name(PrincipalKind k) {
  static const char* names[] = {"user", "serviceAccount", "shared", "anonymous"};
  return names[static_cast<int>(k)];
}

class SessionTimeout final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Sessions idle longer than the limit are terminated");
    const double max_idle = number_param(cfg.params, "maxIdle", DEFAULT_MAX_IDLE);
    const std::vector<std::string> kinds = param_list(cfg.params, "principalKinds");
    std::map<std::string, const PrincipalSpec*> principals;
    for (const auto& p : in.spec.identity.principals) principals[p.name] = &p;
    for (const auto& s : identity::principal_sessions(in.spec, in.run)) {
      const PrincipalSpec* p = principals.at(s.principal);
      if (!contains(kinds, std::string(principal_kind_name(p->kind)))) continue;
      if (s.tenant >= 0 && !matches_tenant(cfg, in.spec, s.tenant)) continue;
      ++f.checked;
      const int k = s.first_idle_over(max_idle);
      if (k < 0) continue;
      const auto& call = s.calls[static_cast<size_t>(k)];
      const bool last = static_cast<size_t>(k) + 1 == s.calls.size();
      const double idle = (last ? s.end : s.calls[static_cast<size_t>(k) + 1].time) - call.time;
      const double timeout = in.spec.identity.session_idle_timeout.value;
      ComplianceEvidence ev = evidence(
          call.event, call.time + max_idle, s.principal,
          "session from t=" + seconds_text(s.start()) + " stayed open " + seconds_text(idle) +
              " without a call after t=" + seconds_text(call.time) + " (limit " + seconds_text(max_idle) + "); " +
              (last ? (s.ended_by == "runEnd" ? std::string("still open at the end of the run")
                                              : "ended by " + s.ended_by + " at t=" + seconds_text(s.end))
                    : "its next call continued it at t=" + seconds_text(call.time + idle)) +
              (timeout > 0 ? "; spec.identity.sessionIdleTimeout is " + seconds_text(timeout)
                           : std::string("; spec.identity.sessionIdleTimeout is not set")),
          p->loc);
      ev.kind = last && s.ended_by == "runEnd" ? "openAtEnd" : "idleTooLong";
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "sessions");
    return f;
  }
};

// ---------------------------------------------------------------- C21 per-tenant logs

// The tenant of a principal a grant names: declared, a workload's io identity (or its tenant's name), or a
// service's identity; -1 when none is known.
int principal_tenant(const ScenarioSpec& spec, const std::string& name) {
  for (const auto& p : spec.identity.principals)
    if (p.name == name) return p.tenant_index;
  for (const auto& w : spec.workloads)
    if ((w.io.identity.empty() ? w.tenant : w.io.identity) == name) return w.tenant_index;
  for (const auto& s : spec.identity.services)
    if (s.identity == name || s.name == name) return spec.tenant_index(s.tenant);
  return spec.tenant_index(name);
}

bool grants_read(const GrantSpec& g) {
  return g.actions.empty() || contains(g.actions, std::string("read"));
}

class TenantLogIsolation final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Each tenant's audit logs are its own and available to it alone");
    if (!in.audit.enabled) return skipped(f);
    const auto& spec = in.spec;
    const bool per_tenant = spec.audit.streams == AuditStreams::PER_TENANT;
    const std::vector<std::string> operators = param_list(cfg.params, "operators");
    const bool require_access = bool_param(cfg.params, "requireAccess", true);
    std::map<int, size_t> records;                   // stream tenant -> records
    std::map<int, const audit::AuditRecord*> first;  // its first record
    for (const auto& r : in.audit.records) {
      const int t = stream_tenant(r);
      if (t < 0) continue;
      ++records[t];
      first.emplace(t, &r);
    }
    for (const auto& [tenant, count] : records) {
      if (!matches_tenant(cfg, spec, tenant)) continue;
      const std::string name = tenant_name(spec, tenant);
      ++f.checked;
      if (!per_tenant && records.size() > 1) {
        ComplianceEvidence ev =
            evidence(first[tenant]->event_seq, first[tenant]->t_event, "audit",
                     std::to_string(count) + " records of " + name + " share one audit stream with " +
                         others(spec, records, tenant) + " (spec.audit.streams: shared)",
                     spec.audit.loc);
        ev.audit_record = static_cast<int64_t>(first[tenant]->index);
        ev.kind = "sharedStream";
        add_violation(f, std::move(ev));
      }
      bool available = false;
      for (const auto& g : spec.identity.grants) {
        if (!grants_read(g) || !reads_stream_of(g, name, per_tenant)) continue;
        const int reader = principal_tenant(spec, g.principal);
        if (reader == tenant) available = true;
        if (reader == tenant || contains(operators, g.principal)) continue;
        ComplianceEvidence ev = evidence(-1, g.from.value, g.principal,
                                         g.principal + " (tenant " + tenant_name(spec, reader) + ") may read " + name +
                                             "'s audit records through " + g.resource,
                                         g.loc);
        ev.kind = "foreignAccess";
        add_violation(f, std::move(ev));
      }
      if (available || !require_access) continue;
      ComplianceEvidence ev = evidence(-1, 0, name,
                                       name + " has " + std::to_string(count) +
                                           " audit records and no principal of its own may read them "
                                           "(a read grant on " +
                                           (per_tenant ? "audit:" + name : std::string("audit")) + ")",
                                       spec.identity.loc);
      ev.kind = "notAvailable";
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "tenants with audit records");
    if (f.violations > 0)
      f.message = std::to_string(f.violations) + " violation(s) for " + std::to_string(f.checked) +
                  " tenant(s) with audit records (shared streams, foreign read grants, no access of their own)";
    return f;
  }

 private:
  // Whether a grant on `g.resource` reads the records of the tenant: with one shared stream any audit grant
  // reads every tenant's records; with per-tenant streams "audit" is the provider's view of all of them.
  static bool reads_stream_of(const GrantSpec& g, const std::string& name, bool per_tenant) {
    if (g.resource == "audit") return true;
    if (g.resource.rfind("audit:", 0) != 0) return false;
    return !per_tenant || g.resource.substr(6) == name;
  }

  static std::string others(const ScenarioSpec& spec, const std::map<int, size_t>& records, int tenant) {
    std::vector<std::string> parts;
    for (const auto& [t, n] : records)
      if (t != tenant) parts.push_back(std::to_string(n) + " of " + tenant_name(spec, t));
    return join(parts, ", ");
  }
};

}  // namespace

void register_record_keeping_rules(ComplianceRegistry& registry) {
  add_compliance_rule(
      registry,
      {"records-of-processing",
       "C3: every distinct (controller, purpose, data category, recipient, region) the run processed for a matched "
       "data item (a placement of a workload naming it, a movement of it) is covered by a record of "
       "spec.compliance.processingRecords of its controller, with the transfer and its safeguard when the region is "
       "not the data's own (and the same mechanism as a recorded transfer basis).",
       {}},
      {"C3", {"GDPR Art. 30(1)(b)", "GDPR Art. 30(1)(c)", "GDPR Art. 30(1)(d)", "GDPR Art. 30(1)(e)"}, "medium", false},
      factory<RecordsOfProcessing>());
  add_compliance_rule(
      registry,
      {"time-synchronisation",
       "C9: every audit record of a matched tenant is written with a timestamp within maxOffset of the reference "
       "clock (the audit store's clock: spec.audit clockSkew, clockDrift, clockSync); consecutive records out of "
       "tolerance are one violation.",
       {seconds("maxOffset", DEFAULT_MAX_CLOCK_OFFSET,
                "Largest offset from the reference clock, in seconds (1; "
                "unverified).")}},
      {"C9", {"NIST SP 800-53 AU-8", "PCI DSS 10.6 (unverified)"}, "medium", false}, factory<TimeSynchronisation>());
  add_compliance_rule(
      registry,
      {"session-timeout",
       "C13: no session of a matched principal (its calls of spec.identity.invocations) stays open longer than "
       "maxIdle without a call: spec.identity.sessionIdleTimeout must end it (a session still open at the end "
       "of the run counts its idle time to the end).",
       {seconds("maxIdle", DEFAULT_MAX_IDLE,
                "Longest idle time of an open session, in seconds (900: 15 min, "
                "PCI DSS 8.2.8; unverified)."),
        ParamSpec{"principalKinds",
                  ParamType::STRING,
                  std::string("user"),
                  "Kinds of principals whose sessions count (comma-separated or a list: user, serviceAccount, "
                  "shared, anonymous).",
                  -1e300,
                  1e300,
                  {"user", "serviceAccount", "shared", "anonymous"}}}},
      {"C13", {"HIPAA 164.312(a)(2)(iii)", "PCI DSS 8.2.8 (unverified)"}, "medium", false}, factory<SessionTimeout>());
  add_compliance_rule(
      registry,
      {"tenant-log-isolation",
       "C21: each matched tenant with audit records has them in a stream of its own (spec.audit.streams: "
       "perTenant), no principal of another tenant (except operators) holds a read grant on them (audit, "
       "audit:<tenant>), and, with requireAccess, a principal of its own does.",
       {ParamSpec{"operators",
                  ParamType::STRING,
                  std::string(""),
                  "Principals of the provider allowed to read every tenant's records (comma-separated or a list).",
                  -1e300,
                  1e300,
                  {}},
        ParamSpec{"requireAccess",
                  ParamType::BOOL,
                  true,
                  "The tenant must be able to retrieve its records (a read grant of its own).",
                  -1e300,
                  1e300,
                  {}}}},
      {"C21", {"PCI DSS A1.3", "SOC 2 CC6.1"}, "medium", false}, factory<TenantLogIsolation>());
}

}  // namespace gtw::policy
