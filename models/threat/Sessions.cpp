// Sessions of principals from their run-time calls (docs/models/identity.md, "Sessions").
#include "Sessions.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gtw::identity {

namespace {

// The principal's revocation time, or +inf.
double revoked_at(const ScenarioSpec& spec, const std::string& principal) {
  double at = INFINITY;
  for (const auto& r : spec.identity.revocations)
    if (r.principal == principal) at = std::min(at, r.at.value);
  return at;
}

}  // namespace

int PrincipalSession::first_idle_over(double limit) const {
  for (size_t k = 0; k < calls.size(); ++k) {
    const double next = k + 1 < calls.size() ? calls[k + 1].time : end;
    if (next - calls[k].time > limit) return static_cast<int>(k);
  }
  return -1;
}

double PrincipalSession::longest_idle() const {
  double longest = 0;
  for (size_t k = 0; k < calls.size(); ++k)
    longest = std::max(longest, (k + 1 < calls.size() ? calls[k + 1].time : end) - calls[k].time);
  return longest;
}

std::vector<PrincipalSession> principal_sessions(const ScenarioSpec& spec, const RunResult& run) {
  // A principal's allowed first hops are its calls (a refused one, e.g. after revocation, is no activity).
  std::map<std::string, std::vector<SessionCall>> calls;
  for (const Event& e : run.log.events()) {
    if (e.type != EventType::AGENT_CALL) continue;
    const auto i = payload::invocation_step(e, run.invocation_steps.size());
    if (!i) continue;
    const InvocationStep& s = run.invocation_steps[*i];
    if (s.hop != 1 || !s.allowed) continue;
    calls[s.principal].push_back(SessionCall{s.call_start, static_cast<int64_t>(e.seq)});
  }
  const double timeout = spec.identity.session_idle_timeout.value;
  std::vector<PrincipalSession> sessions;
  for (const auto& p : spec.identity.principals) {
    auto it = calls.find(p.name);
    if (it == calls.end()) continue;
    auto& list = it->second;
    std::stable_sort(list.begin(), list.end(),
                     [](const SessionCall& a, const SessionCall& b) { return a.time < b.time; });
    const double revoked = revoked_at(spec, p.name);
    PrincipalSession open;
    // When the open session ends by itself after its last call (idle timeout or revocation), +inf if never.
    const auto own_end = [&](std::string& by) {
      const double last = open.calls.back().time;
      double end = INFINITY;
      if (timeout > 0) end = last + timeout, by = "idleTimeout";
      if (revoked >= last && revoked < end) end = revoked, by = "revoked";
      return end;
    };
    const auto finish = [&](double end, std::string by) {
      open.end = end;
      open.ended_by = std::move(by);
      sessions.push_back(std::move(open));
      open = PrincipalSession{};
    };
    for (const SessionCall& c : list) {
      if (!open.calls.empty()) {
        std::string by;
        if (const double end = own_end(by); end <= c.time) finish(end, by);
      }
      if (open.calls.empty()) {
        open.principal = p.name;
        open.tenant = p.tenant_index;
      }
      open.calls.push_back(c);
    }
    std::string by;
    const double end = own_end(by);
    const double run_stop = std::max(run.end_time, open.calls.back().time);
    if (end <= run_stop)
      finish(end, by);
    else
      finish(run_stop, "runEnd");
  }
  return sessions;
}

}  // namespace gtw::identity
