#include "SecretLifecycle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "Text.hpp"

namespace gtw::identity {

double leak_known_at(const ScenarioSpec& spec, const FaultSpec& fault) {
  if (fault.detected_after.value >= 0) return fault.at.value + fault.detected_after.value;
  const double detect = spec.incident_response.detect_after.value;
  return detect >= 0 ? fault.at.value + detect : -1;
}

namespace {

constexpr double NEVER = std::numeric_limits<double>::infinity();

// Successful reads of each secret, in time order: key releases at replica start and agents' `use` hops.
std::vector<std::vector<double>> secret_reads(const ScenarioSpec& spec, const RunResult& run) {
  std::vector<std::vector<double>> reads(spec.identity.secrets.size());
  for (const Event& e : run.log.events()) {
    if (e.type == EventType::KEY_RELEASE && e.value > 0.5) {
      if (const auto s = payload::secret(e, reads.size())) reads[*s].push_back(e.time);
    } else if (e.type == EventType::AGENT_CALL && e.value > 0.5) {
      const auto i = payload::invocation_step(e, run.invocation_steps.size());
      if (!i) continue;
      const auto& step = run.invocation_steps[*i];
      if (step.target_kind == "secret" && step.target_index >= 0 &&
          static_cast<size_t>(step.target_index) < reads.size())
        reads[static_cast<size_t>(step.target_index)].push_back(e.time);
    }
  }
  return reads;
}

}  // namespace

std::vector<SecretLeakWindow> secret_leak_windows(const ScenarioSpec& spec, const RunResult& run) {
  std::vector<SecretLeakWindow> out;
  const auto reads = secret_reads(spec, run);
  const auto& secrets = spec.identity.secrets;
  for (const Event& e : run.log.events()) {
    if (e.type != EventType::SECRET_LEAKED) continue;
    const auto s = payload::secret(e, secrets.size());
    if (!s || !(e.value >= 0) || e.value >= static_cast<double>(spec.faults.size())) continue;
    const auto f = static_cast<size_t>(e.value);
    const auto& secret = secrets[*s];
    SecretLeakWindow w;
    w.fault = static_cast<int>(f);
    w.secret = static_cast<int>(*s);
    w.owner = secret.tenant_index;
    w.to = e.tenant;
    w.event = static_cast<int64_t>(e.seq);
    w.at = e.time;
    w.known_at = leak_known_at(spec, spec.faults[f]);
    w.protects = secret.protects;
    const auto& r = reads[*s];
    w.reads_before = static_cast<size_t>(std::upper_bound(r.begin(), r.end(), e.time) - r.begin());
    // The first thing that ends the leaked value, as the spec plans it (also past the end of the run): the
    // next scheduled rotation, the emergency rotation once the leak is known, or the leased credential's expiry.
    double end = NEVER;
    std::string why = "open";
    if (const double period = secret.rotation.value; period > 0) {
      end = (std::floor(e.time / period) + 1) * period;
      why = "rotation";
    }
    const double revoke = spec.incident_response.revoke_after.value;
    if (w.known_at >= 0 && revoke >= 0 && w.known_at + revoke < end) {
      end = w.known_at + revoke;
      why = "emergencyRotation";
    }
    if (secret.lease.value > 0) {
      if (w.reads_before == 0) {
        end = e.time;  // nothing was issued yet: the leak exposes no credential
        why = "noCredential";
      } else {
        w.credential_issued = r[w.reads_before - 1];
        const double expiry = w.credential_issued + secret.lease.value;
        if (expiry < end) {
          end = std::max(expiry, e.time);
          why = "leaseExpiry";
        }
      }
    }
    w.ended_by = why;
    w.end = std::isfinite(end) ? end : -1;
    w.exposure_s = (std::isfinite(end) ? end : std::max(run.end_time, e.time)) - e.time;
    out.push_back(std::move(w));
  }
  return out;
}

namespace {

Incident timed(const ScenarioSpec& spec, Incident in, double known_at) {
  in.known_at = known_at;
  const double notify = spec.incident_response.notify_after.value;
  in.notified_at = known_at >= 0 && notify >= 0 ? known_at + notify : -1;
  return in;
}

double default_known_at(const ScenarioSpec& spec, double t) {
  const double detect = spec.incident_response.detect_after.value;
  return detect >= 0 ? t + detect : -1;
}

}  // namespace

std::vector<Incident> run_incidents(const ScenarioSpec& spec, const RunResult& run) {
  std::vector<Incident> out;
  for (const auto& w : secret_leak_windows(spec, run)) {
    Incident in;
    in.kind = "secretLeak";
    in.time = w.at;
    in.affected = w.owner;
    in.observer = w.to;
    in.event = w.event;
    in.resource = spec.identity.secrets[static_cast<size_t>(w.secret)].name;
    in.detail = "usable for " + format_duration(Seconds(w.exposure_s)) + " (" + w.ended_by + ")";
    out.push_back(timed(spec, std::move(in), w.known_at));
  }
  std::set<std::pair<int, int>> recovered;                       // (attacker workload, victim workload)
  std::set<std::tuple<int, std::string, std::string>> deputies;  // (invocation, principal, target)
  for (const Event& e : run.log.events()) {
    if (e.type == EventType::ATTACK_RECOVERED && e.value > 0) {
      const int victim = payload::source_workload(e);
      if (victim < 0 || static_cast<size_t>(victim) >= spec.workloads.size()) continue;
      if (!recovered.emplace(e.workload, victim).second) continue;
      Incident in;
      in.kind = "memoryRecovered";
      in.time = e.time;
      in.affected = spec.workloads[static_cast<size_t>(victim)].tenant_index;
      in.observer = e.tenant;
      in.event = static_cast<int64_t>(e.seq);
      in.resource = spec.workloads[static_cast<size_t>(victim)].name;
      in.detail = "bytes of its device memory read back by another tenant's process";
      out.push_back(timed(spec, std::move(in), default_known_at(spec, e.time)));
    } else if (e.type == EventType::AGENT_CALL && e.value > 0.5) {
      const auto i = payload::invocation_step(e, run.invocation_steps.size());
      if (!i) continue;
      const auto& s = run.invocation_steps[*i];
      if (!s.confused_deputy || !deputies.emplace(s.invocation, s.principal, s.to).second) continue;
      Incident in;
      in.kind = "confusedDeputy";
      in.time = e.time;
      in.affected = s.owner;
      const auto& principals = spec.identity.principals;
      const auto p = std::find_if(principals.begin(), principals.end(),
                                  [&](const PrincipalSpec& x) { return x.name == s.principal; });
      in.observer = p != principals.end() ? p->tenant_index : spec.tenant_index(s.principal);
      in.event = static_cast<int64_t>(e.seq);
      in.resource = s.to;
      in.detail = "'" + s.principal + "' reached it as '" + s.identity + "' via '" + s.from + "'";
      out.push_back(timed(spec, std::move(in), default_known_at(spec, e.time)));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Incident& a, const Incident& b) { return a.time < b.time; });
  return out;
}

}  // namespace gtw::identity
