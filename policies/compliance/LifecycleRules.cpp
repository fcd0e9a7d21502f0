// Secret lifecycle and incident rules (docs/models/compliance.md, "Secrets and incidents";
// ../shared/reference/compliance.md C19, C20): key rotation, with a leaked value revoked in time, and
// breach notification within 72 h of awareness. Both read the secret leak windows and the incidents of
// models/threat/SecretLifecycle after the run.
#include <set>

#include "BuiltinRules.hpp"
#include "SecretLifecycle.hpp"
#include "Text.hpp"

namespace gtw::policy {

namespace {

constexpr double HOUR = 3600;
constexpr double DAY = 24 * HOUR;
constexpr double DEFAULT_MAX_AGE = 90 * DAY;           // assumed: the common 90-day rotation practice
constexpr double DEFAULT_REVOKE_WITHIN = 24 * HOUR;    // assumed
constexpr double DEFAULT_NOTIFY_DEADLINE = 72 * HOUR;  // GDPR Art. 33(1)

// ---------------------------------------------------------------- C19 key rotation

class KeyRotation final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Secrets rotate within their cryptoperiod; a leaked value is revoked");
    const double max_age = number_param(cfg.params, "maxAge", DEFAULT_MAX_AGE);
    const double revoke_within = number_param(cfg.params, "revokeWithin", DEFAULT_REVOKE_WITHIN);
    const auto& secrets = in.spec.identity.secrets;
    for (const auto& s : secrets) {
      if (!matches_tenant(cfg, in.spec, s.tenant_index)) continue;
      ++f.checked;
      const double period = s.rotation.value;
      if (period > 0 && period <= max_age) continue;
      ComplianceEvidence ev;
      ev.resource = s.name;
      ev.loc = s.loc;
      ev.kind = period > 0 ? "rotationTooRare" : "neverRotated";
      ev.detail = period > 0 ? "rotates every " + seconds_text(period) + " (> " + seconds_text(max_age) + ")"
                             : "never rotates (rotation 0; at most " + seconds_text(max_age) + ")";
      add_violation(f, std::move(ev));
    }
    for (const auto& w : identity::secret_leak_windows(in.spec, in.run)) {
      const auto& s = secrets[static_cast<size_t>(w.secret)];
      if (!matches_tenant(cfg, in.spec, s.tenant_index)) continue;
      ++f.checked;
      // Once known, the leaked value must stop working within revokeWithin; unknown, within the cryptoperiod.
      const double deadline = w.known_at >= 0 ? w.known_at + revoke_within : w.at + max_age;
      const double end = w.end >= 0 ? w.end : -1;
      if (end >= 0 && end <= deadline) continue;
      ComplianceEvidence ev;
      ev.event = w.event;
      ev.time = w.at;
      ev.resource = s.name;
      ev.kind = "leakedValueValid";
      ev.detail = "leaked at t=" + seconds_text(w.at) +
                  (w.known_at >= 0 ? ", known at t=" + seconds_text(w.known_at) : std::string(", never known")) +
                  (end >= 0 ? ", usable until t=" + seconds_text(end) + " (" + w.ended_by + ")"
                            : std::string(", still usable at the end of the run")) +
                  "; deadline t=" + seconds_text(deadline);
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "secrets and leaked values");
    return f;
  }
};

// ---------------------------------------------------------------- C20 breach notification

class BreachNotification final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Every breach of personal data is known and notified within 72 h");
    const double deadline = number_param(cfg.params, "deadline", DEFAULT_NOTIFY_DEADLINE);
    for (const auto& inc : identity::run_incidents(in.spec, in.run)) {
      if (!matches_tenant(cfg, in.spec, inc.affected)) continue;
      ++f.checked;
      std::string kind, detail;
      if (inc.known_at < 0) {
        kind = "undetected";
        detail = "never became known (spec.incidentResponse.detectAfter, or the leak's detectedAfter)";
      } else if (inc.notified_at < 0) {
        kind = "notNotified";
        detail = "known at t=" + seconds_text(inc.known_at) + ", never notified (spec.incidentResponse.notifyAfter)";
      } else if (inc.notified_at - inc.known_at > deadline) {
        kind = "late";
        detail = "known at t=" + seconds_text(inc.known_at) + ", notified " +
                 seconds_text(inc.notified_at - inc.known_at) + " later (> " + seconds_text(deadline) + ")";
      } else {
        continue;
      }
      ComplianceEvidence ev;
      ev.event = inc.event;
      ev.time = inc.time;
      ev.resource = inc.resource;
      ev.kind = kind;
      ev.detail = inc.kind + " of " + inc.resource + " at t=" + seconds_text(inc.time) + ": " + detail;
      add_violation(f, std::move(ev));
    }
    finish_finding(f, "incidents");
    return f;
  }
};

// ---------------------------------------------------------------- C24 erasure

constexpr double DEFAULT_ERASURE_DEADLINE = 30 * DAY;  // GDPR Art. 12(3): one month

// The location class of a movement endpoint (store:, nvme:, host:, gpu:); empty for agents and the front end.
std::string location_class(const std::string& endpoint) {
  if (endpoint.rfind("store:", 0) == 0) return "store";
  if (endpoint.rfind("nvme:", 0) == 0) return "localNvme";
  if (endpoint.rfind("host:", 0) == 0) return "host";
  if (endpoint.rfind("gpu:", 0) == 0) return "gpu";
  return {};
}

class Erasure final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Erased data is gone from every copy the run made, within the deadline");
    const double deadline = number_param(cfg.params, "deadline", DEFAULT_ERASURE_DEADLINE);
    const auto& events = in.run.log.events();
    for (const auto& req : in.spec.compliance.erasures) {
      int data = -1;
      for (size_t i = 0; i < in.spec.data.size(); ++i)
        if (in.spec.data[i].name == req.data) data = static_cast<int>(i);
      if (data < 0 || !matches_data(cfg, in.spec, data)) continue;
      ++f.checked;
      const bool done = req.completed_after.value >= 0;
      const double done_at = req.at.value + req.completed_after.value;
      if (!done || req.completed_after.value > deadline) {
        ComplianceEvidence ev;
        ev.time = req.at.value;
        ev.resource = req.data;
        ev.loc = req.loc;
        ev.kind = done ? "late" : "neverErased";
        ev.detail =
            "erasure requested at t=" + seconds_text(req.at.value) +
            (done ? ", done " + seconds_text(req.completed_after.value) + " later (> " + seconds_text(deadline) + ")"
                  : std::string(", never completed (completedAfter)"));
        add_violation(f, std::move(ev));
      }
      // Every copy the run made before the erasure completed must be in the procedure's scope (device memory
      // also counts as erased when freed memory is scrubbed).
      std::set<std::string> copies;
      const auto covered = [&](const std::string& cls) {
        return contains(req.scope, cls) || (cls == "gpu" && in.spec.isolation.scrub_on_free);
      };
      for (const Event& e : events) {
        if (e.type != EventType::DATA_MOVE) continue;
        const auto i = payload::data_movement(e, in.run.data_movements.size());
        if (!i) continue;
        const DataMovement& m = in.run.data_movements[*i];
        if (m.data != data) continue;
        if (done && e.time > done_at) {
          ComplianceEvidence ev;
          ev.event = static_cast<int64_t>(e.seq);
          ev.time = e.time;
          ev.resource = req.data;
          ev.kind = "usedAfterErasure";
          ev.detail =
              m.operation + " " + m.from + " -> " + m.to + " after the erasure completed at t=" + seconds_text(done_at);
          add_violation(f, std::move(ev));
          continue;
        }
        for (const std::string& end : {m.from, m.to}) {
          const std::string cls = location_class(end);
          if (cls.empty() || !copies.insert(end).second) continue;
          ++f.checked;
          if (covered(cls)) continue;
          ComplianceEvidence ev;
          ev.event = static_cast<int64_t>(e.seq);
          ev.time = e.time;
          ev.resource = end;
          ev.kind = "notCovered";
          ev.detail = "a copy of " + req.data + " at " + end + " (" + cls + ") is outside the erasure's scope";
          add_violation(f, std::move(ev));
        }
      }
    }
    finish_finding(f, "erasure requests and copies");
    return f;
  }
};

}  // namespace

void register_lifecycle_rules(ComplianceRegistry& registry) {
  add_compliance_rule(
      registry,
      {"erasure",
       "C24: each erasure request of a matched data item (spec.compliance.erasures) completes within deadline, its "
       "scope covers every place the run copied the item to (store, localNvme, host, gpu; device memory also when "
       "scrubOnFree is on), and the item is not moved after the erasure completed.",
       {seconds("deadline", DEFAULT_ERASURE_DEADLINE, "From the request to completion, in seconds (2592000: 30 d).")}},
      {"C24", {"GDPR Art. 17", "GDPR Art. 12(3)", "GDPR Art. 30(1)(f)", "ISO/IEC 27001 A.8.10"}, "high", false},
      factory<Erasure>());
  add_compliance_rule(
      registry,
      {"key-rotation",
       "C19: every matched secret rotates at least every maxAge, and a leaked value stops working within "
       "revokeWithin of the leak becoming known (within maxAge of the leak when it never does).",
       {seconds("maxAge", DEFAULT_MAX_AGE, "Longest rotation period (cryptoperiod), in seconds (7776000: 90 d)."),
        seconds("revokeWithin", DEFAULT_REVOKE_WITHIN,
                "Deadline from awareness of a leak to the leaked value no longer working, in seconds (86400).")}},
      {"C19",
       {"NIST SP 800-57 Part 1 (cryptoperiods)", "NIST SP 800-38D (key-usage limit)",
        "NVIDIA Confidential Computing release notes R550/R570"},
       "high",
       false},
      factory<KeyRotation>());
  add_compliance_rule(
      registry,
      {"breach-notification",
       "C20: every incident touching a matched tenant (a secret leak, its memory read back by another tenant, a "
       "confused-deputy hop into its data) becomes known and is notified to the supervisory authority within "
       "deadline of awareness (spec.incidentResponse).",
       {seconds("deadline", DEFAULT_NOTIFY_DEADLINE, "From awareness to notification, in seconds (259200: 72 h).")}},
      {"C20", {"GDPR Art. 33(1)", "GDPR Art. 33(5)"}, "high", false}, factory<BreachNotification>());
}

}  // namespace gtw::policy
