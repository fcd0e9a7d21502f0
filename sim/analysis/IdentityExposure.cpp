// The identity channel of the leakage surface (docs/models/identity.md, "Leakage"): every identity-graph
// path by which a principal of one tenant reaches another tenant's data, store or secret
// (models/threat/IdentityGraph) is listed, and each (observer, source, target) reached is one discrete
// exposure of kind identityPath. No bytes are counted: the path is a standing capability, not a transfer;
// the data events (DataExposure) count what actually moved.
#include <map>
#include <tuple>

#include "Leakage.hpp"
#include "Sessions.hpp"

namespace gtw {

void add_identity_exposures(const ScenarioSpec& spec, LeakageReport& rep) {
  identity::PathSearchStats stats;
  rep.identity_paths = identity::cross_tenant_paths(spec, stats);
  if (stats.truncated)
    rep.notes.push_back("identity graph: the path search stopped at its bound (" + std::to_string(stats.expansions) +
                        " edge expansions, " + std::to_string(rep.identity_paths.size()) +
                        " paths); identityPath exposures list a prefix of the enumeration");
  // (observer, source, target) -> exposure; the paths are sorted, so the map's order is the output's.
  std::map<std::tuple<int, int, std::string>, DiscreteExposure> by_target;
  std::map<std::tuple<int, int, std::string>, size_t> deputies;
  for (const auto& p : rep.identity_paths) {
    const auto key = std::make_tuple(p.observer_tenant, p.source_tenant, p.target);
    auto [it, inserted] = by_target.try_emplace(key);
    DiscreteExposure& d = it->second;
    if (inserted) {
      d.observer = p.observer_tenant;
      d.source = p.source_tenant;
      d.kind = DiscreteKind::IDENTITY_PATH;
      d.data_name = p.target;
      for (size_t i = 0; i < spec.data.size(); ++i)
        if (p.target_kind == "data" && spec.data[i].name == p.target) d.data = static_cast<int>(i);
      d.closed_by = {"token exchange or passthrough instead of identity replacement", "narrower grants",
                     "removing the edge"};
    }
    std::string hops;
    for (const auto& h : p.hops) hops += (hops.empty() ? "" : " -> ") + h;
    d.paths.push_back(hops);
    if (p.confused_deputy) ++deputies[key];
  }
  for (auto& [key, d] : by_target) {
    const size_t n = d.paths.size();
    const size_t deputy = deputies.count(key) ? deputies[key] : 0;
    d.basis = "identity graph: " + std::to_string(n) + " path" + (n == 1 ? "" : "s") +
              " from the observer's principals to " + d.data_name +
              (deputy ? " (" + std::to_string(deputy) + " through a confused deputy)" : "") +
              "; a standing capability, no bytes counted";
    rep.discrete.push_back(std::move(d));
  }
}

namespace {
constexpr size_t MAX_FLAGGED_LISTED = 200;
}  // namespace

void add_identity_runtime(const ScenarioSpec& spec, const RunResult& run, LeakageReport& rep) {
  auto& a = rep.agents;
  for (const auto& inv : spec.identity.invocations) {
    AgentRuntimeSummary::PerInvocation per;
    per.name = inv.name;
    per.principal = inv.principal;
    per.entry = inv.entry;
    a.invocations.push_back(std::move(per));
  }
  for (const Event& e : run.log.events()) {
    if (e.type != EventType::AGENT_CALL) continue;
    const auto i = payload::invocation_step(e, run.invocation_steps.size());
    if (!i) continue;
    const auto& s = run.invocation_steps[*i];
    if (s.invocation < 0 || static_cast<size_t>(s.invocation) >= a.invocations.size()) continue;
    auto& per = a.invocations[static_cast<size_t>(s.invocation)];
    ++per.hops;
    if (s.hop == 1) ++per.calls;
    if (!s.allowed) {
      ++per.refused;
      ++per.refused_by[s.reason];
    }
    per.confused_deputy += s.confused_deputy ? 1 : 0;
    per.over_privileged += s.over_privileged ? 1 : 0;
    per.after_revocation += s.after_revocation ? 1 : 0;
    if (s.confused_deputy && per.first_deputy_at < 0) per.first_deputy_at = e.time;
    if (!s.allowed || s.confused_deputy || s.over_privileged || s.after_revocation) {
      if (a.flagged.size() < MAX_FLAGGED_LISTED)
        a.flagged.push_back(*i);
      else
        ++a.flagged_omitted;
    }
  }
  for (const auto& session : identity::principal_sessions(spec, run)) {
    if (a.sessions.empty() || a.sessions.back().principal != session.principal)
      a.sessions.push_back({session.principal, 0, 0, 0, {}});
    auto& per = a.sessions.back();
    ++per.sessions;
    per.calls += session.calls.size();
    per.longest_idle_s = std::max(per.longest_idle_s, session.longest_idle());
    ++per.ended_by[session.ended_by];
  }
  rep.secret_leaks = identity::secret_leak_windows(spec, run);
  rep.incidents = identity::run_incidents(spec, run);
}

}  // namespace gtw
