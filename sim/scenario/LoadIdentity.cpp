// Reading spec.identity and spec.audit (docs/models/identity.md, docs/models/audit.md). Names are
// checked against each other and the rest of the spec in ValidateIdentity.cpp.
#include "LoaderInternal.hpp"

namespace gtw {

namespace {

const std::vector<std::string>& principal_kind_names() {
  static const std::vector<std::string> names{"user", "serviceAccount", "shared", "anonymous"};
  return names;
}
const std::vector<std::string>& service_kind_names() {
  static const std::vector<std::string> names{"service", "agent", "tool"};
  return names;
}
const std::vector<std::string>& propagation_names() {
  static const std::vector<std::string> names{"passthrough", "exchange", "replace"};
  return names;
}
const std::vector<std::string>& edge_action_names() {
  static const std::vector<std::string> names{"call", "read", "write", "use"};
  return names;
}
const std::vector<std::string>& token_validation_names() {
  static const std::vector<std::string> names{"local", "introspection"};
  return names;
}
const std::vector<std::string>& grant_action_names() {
  static const std::vector<std::string> names{"read", "write", "use"};
  return names;
}

}  // namespace

const std::vector<std::string>& audit_streams_names() {
  static const std::vector<std::string> names{"shared", "perTenant"};
  return names;
}

void Loader::read_identity(const Ctx& c, IdentitySpec& id) {
  id.loc = c.loc();
  if (!check_map(c)) return;
  if (auto list = child(c, "principals")) {
    for (const auto& item : items(*list)) {
      PrincipalSpec p;
      p.loc = item.loc();
      if (!check_map(item)) continue;
      get_string(item, "name", p.name, true);
      get_string(item, "tenant", p.tenant, true);
      get_enum(item, "kind", p.kind, principal_kind_names(), false);
      get_string(item, "spiffeId", p.spiffe_id, false);
      id.principals.push_back(std::move(p));
    }
  }
  if (auto list = child(c, "services")) {
    for (const auto& item : items(*list)) {
      ServiceNodeSpec s;
      s.loc = item.loc();
      if (!check_map(item)) continue;
      get_string(item, "name", s.name, true);
      get_string(item, "tenant", s.tenant, true);
      get_enum(item, "kind", s.kind, service_kind_names(), false);
      get_string(item, "identity", s.identity, false);
      get_string(item, "workload", s.workload, false);
      id.services.push_back(std::move(s));
    }
  }
  if (auto list = child(c, "secrets")) {
    for (const auto& item : items(*list)) {
      SecretSpec s;
      s.loc = item.loc();
      if (!check_map(item)) continue;
      get_string(item, "name", s.name, true);
      get_string(item, "tenant", s.tenant, true);
      get_string(item, "path", s.path, false);
      get_bool(item, "requiresAttestation", s.requires_attestation);
      get_quantity(item, "rotation", s.rotation, parse_duration, false, false);
      get_quantity(item, "lease", s.lease, parse_duration, false, false);
      read_string_list(item, "protects", s.protects);
      id.secrets.push_back(std::move(s));
    }
  }
  if (auto list = child(c, "edges")) {
    for (const auto& item : items(*list)) {
      IdentityEdgeSpec e;
      e.loc = item.loc();
      if (!check_map(item)) continue;
      get_string(item, "from", e.from, true);
      get_string(item, "to", e.to, true);
      int action = 0;
      get_enum(item, "action", action, edge_action_names(), false);
      e.action = edge_action_names()[static_cast<size_t>(action)];
      get_enum(item, "propagation", e.propagation, propagation_names(), false);
      get_quantity(item, "latency", e.latency, parse_duration, false, false);
      get_number(item, "probability", e.probability, false);
      id.edges.push_back(std::move(e));
    }
  }
  if (auto list = child(c, "grants")) {
    for (const auto& item : items(*list)) {
      GrantSpec g;
      g.loc = item.loc();
      if (!check_map(item)) continue;
      get_string(item, "principal", g.principal, true);
      get_string(item, "resource", g.resource, true);
      if (auto actions = child(item, "actions")) {
        for (const auto& a : items(*actions)) {
          std::string s;
          if (!scalar(a, s, "an action (read, write or use)")) continue;
          const auto& valid = grant_action_names();
          if (std::find(valid.begin(), valid.end(), s) == valid.end()) {
            d_.error(a.loc(), a.path, "unknown action '" + s + "'" + suggest(s, valid));
            continue;
          }
          g.actions.push_back(s);
        }
      }
      get_quantity(item, "from", g.from, parse_duration, false, false);
      get_quantity(item, "until", g.until, parse_duration, false, false);
      id.grants.push_back(std::move(g));
    }
  }
  if (auto list = child(c, "revocations")) {
    for (const auto& item : items(*list)) {
      RevocationSpec r;
      r.loc = item.loc();
      if (!check_map(item)) continue;
      get_string(item, "principal", r.principal, true);
      get_quantity(item, "at", r.at, parse_duration, true, false);
      id.revocations.push_back(std::move(r));
    }
  }
  if (auto list = child(c, "invocations")) {
    for (const auto& item : items(*list)) {
      InvocationSpec inv;
      inv.loc = item.loc();
      if (!check_map(item)) continue;
      get_string(item, "name", inv.name, true);
      get_string(item, "principal", inv.principal, true);
      get_string(item, "entry", inv.entry, true);
      if (auto times = child(item, "at")) {
        for (const auto& t : items(*times)) {
          std::string text;
          if (!scalar(t, text, "a duration such as 30s")) continue;
          auto r = parse_duration(text);
          if (!r) {
            d_.error(t.loc(), t.path, r.error);
            continue;
          }
          Ctx as_field = t;  // the range is the list field's (spec.identity.invocations[].at)
          as_field.path = times->path;
          if (in_schema_range(as_field, r.quantity->value, text, true)) inv.at.push_back(*r.quantity);
        }
      }
      get_quantity(item, "rate", inv.rate, parse_rate, false, false);
      get_quantity(item, "from", inv.from, parse_duration, false, false);
      get_quantity(item, "until", inv.until, parse_duration, false, false);
      id.invocations.push_back(std::move(inv));
    }
  }
  get_quantity(c, "tokenLifetime", id.token_lifetime, parse_duration, false, true);
  get_enum(c, "tokenValidation", id.token_validation, token_validation_names(), false);
  get_quantity(c, "sessionIdleTimeout", id.session_idle_timeout, parse_duration, false, false);
}

void Loader::read_incident_response(const Ctx& c, IncidentResponseSpec& r) {
  r.loc = c.loc();
  if (!check_map(c)) return;
  get_quantity(c, "detectAfter", r.detect_after, parse_duration, false, false);
  get_quantity(c, "revokeAfter", r.revoke_after, parse_duration, false, false);
  get_quantity(c, "notifyAfter", r.notify_after, parse_duration, false, false);
}

void Loader::read_audit(const Ctx& c, AuditSpec& a) {
  a.loc = c.loc();
  if (!check_map(c)) return;
  get_bool(c, "enabled", a.enabled);
  get_quantity(c, "delay", a.delay, parse_duration, false, false);
  get_quantity(c, "jitter", a.jitter, parse_duration, false, false);
  get_quantity(c, "throughput", a.throughput, parse_rate, false, false);
  get_quantity(c, "retention", a.retention, parse_duration, false, false);
  // Skew may be negative (the audit clock runs behind): parsed as a duration with an optional sign.
  if (auto skew = child(c, "clockSkew")) {
    std::string s;
    if (scalar(*skew, s, "a duration such as 2s or -500ms")) {
      const bool negative = !s.empty() && s[0] == '-';
      auto r = parse_duration(negative ? s.substr(1) : s);
      if (!r) {
        d_.error(skew->loc(), skew->path, r.error);
      } else {
        const double skew_s = negative ? -r.quantity->value : r.quantity->value;
        if (in_schema_range(*skew, skew_s, s, true)) a.clock_skew = Seconds(skew_s);
      }
    }
  }
  get_number(c, "clockDrift", a.clock_drift_ppm, false);
  get_quantity(c, "clockSync", a.clock_sync, parse_duration, false, false);
  get_enum(c, "streams", a.streams, audit_streams_names(), false);
  get_bool(c, "separateStore", a.separate_store);
  get_bool(c, "hashChained", a.hash_chained);
  get_bool(c, "logRequests", a.log_requests);
  get_number(c, "dropProbability", a.drop_probability, false);
  if (auto gaps = child(c, "gaps")) {
    for (const auto& item : items(*gaps)) {
      AuditGapSpec g;
      g.loc = item.loc();
      if (!check_map(item)) continue;
      get_quantity(item, "from", g.from, parse_duration, true, false);
      get_quantity(item, "until", g.until, parse_duration, true, false);
      a.gaps.push_back(std::move(g));
    }
  }
  if (auto tamper = child(c, "tamper")) {
    for (const auto& item : items(*tamper)) {
      AuditTamperSpec t;
      t.loc = item.loc();
      if (!check_map(item)) continue;
      get_int(item, "record", t.record, true);
      get_string(item, "field", t.field, true);
      get_string(item, "value", t.value, false);
      a.tamper.push_back(std::move(t));
    }
  }
}

}  // namespace gtw
