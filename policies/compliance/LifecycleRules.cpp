// Secret lifecycle and incident rules (docs/models/compliance.md, "Secrets and incidents";
// ../shared/reference/compliance.md C19, C20): key rotation, with a leaked value revoked in time, and
// breach notification within 72 h of awareness. Both read the secret leak windows and the incidents of
// models/threat/SecretLifecycle after the run.
#include "BuiltinRules.hpp"
#include "SecretLifecycle.hpp"

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

}  // namespace

void register_lifecycle_rules(ComplianceRegistry& registry) {
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
