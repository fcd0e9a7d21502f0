#include "IdentityTimeline.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "SecretLifecycle.hpp"

namespace sg4 = simgrid::s4u;

namespace gtw {

std::vector<IdentityHappening> identity_happenings(const ScenarioSpec& spec, const std::vector<InvocationStep>& steps,
                                                   double until) {
  using Kind = IdentityHappening::Kind;
  std::vector<IdentityHappening> out;
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].time <= until) out.push_back({steps[i].time, Kind::STEP, static_cast<int>(i), false});
  const auto& secrets = spec.identity.secrets;
  for (size_t s = 0; s < secrets.size(); ++s) {
    const double period = secrets[s].rotation.value;
    if (period <= 0) continue;
    for (int k = 1; k <= static_cast<int>(MAX_ROTATIONS) && k * period <= until; ++k)
      out.push_back({k * period, Kind::ROTATION, static_cast<int>(s), false});
  }
  for (size_t f = 0; f < spec.faults.size(); ++f) {
    const auto& fault = spec.faults[f];
    if (fault.secret.empty()) continue;
    const auto it =
        std::find_if(secrets.begin(), secrets.end(), [&](const SecretSpec& s) { return s.name == fault.secret; });
    if (it == secrets.end()) continue;  // validation refuses it
    out.push_back({fault.at.value, Kind::LEAK, static_cast<int>(f), false});
    const double known = identity::leak_known_at(spec, fault);
    const double revoke = spec.incident_response.revoke_after.value;
    if (known >= 0 && revoke >= 0 && known + revoke <= until)
      out.push_back({known + revoke, Kind::ROTATION, static_cast<int>(it - secrets.begin()), true});
  }
  std::stable_sort(out.begin(), out.end(), [](const IdentityHappening& a, const IdentityHappening& b) {
    return std::tie(a.time, a.kind, a.index) < std::tie(b.time, b.kind, b.index);
  });
  return out;
}

namespace {

int secret_index(const ScenarioSpec& spec, const std::string& name) {
  const auto& secrets = spec.identity.secrets;
  for (size_t i = 0; i < secrets.size(); ++i)
    if (secrets[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string store_region(const ScenarioSpec& spec, const std::string& store) {
  for (const auto& st : spec.storage)
    if (st.name == store) return st.region;
  return {};
}

// A data hop's movement record: the agent's read or write of the item, under the hop's identity, asked of
// the enforcing rules first (their refusal: a COMPLIANCE_REFUSED, then the denial).
void emit_data_hop(SimContext& ctx, const InvocationStep& s, double now) {
  const auto& d = ctx.spec.data[static_cast<size_t>(s.target_index)];
  DataMovement m;
  m.start = m.end = now;
  m.data = s.target_index;
  m.owner = d.tenant_index;
  m.tenant = s.identity_tenant;
  m.identity = s.identity;
  m.invocation = s.invocation;
  m.operation = s.action == "write" ? "write" : "read";
  const std::string store = "store:" + d.store;
  const std::string agent = "agent:" + s.from;
  m.from = m.operation == "read" ? store : agent;
  m.to = m.operation == "read" ? agent : store;
  m.store = d.store;
  m.region = store_region(ctx.spec, d.store);
  m.allowed = s.allowed;
  m.reason = s.allowed ? "" : "identity:" + s.reason;
  if (m.allowed && ctx.access_guard) {
    if (const auto refusal = ctx.access_guard(m)) {
      ctx.emit({.time = now,
                .type = EventType::COMPLIANCE_REFUSED,
                .tenant = m.tenant,
                .value = static_cast<double>(refusal->first),
                .aux = 1});
      m.allowed = false;
      m.reason = "compliance:" + refusal->second;
    }
  }
  const double index = static_cast<double>(ctx.data_movements ? ctx.data_movements->size() : 0);
  const EventType type = m.allowed ? EventType::DATA_MOVE : EventType::DATA_DENIED;
  const int tenant = m.tenant;
  if (ctx.data_movements) ctx.data_movements->push_back(std::move(m));
  ctx.emit({.time = now, .type = type, .tenant = tenant, .value = 0, .aux = index});
}

}  // namespace

void replay_identity(SimContext& ctx, const std::vector<IdentityHappening>& plan,
                     const std::vector<InvocationStep>& steps) {
  using Kind = IdentityHappening::Kind;
  const auto& secrets = ctx.spec.identity.secrets;
  for (const auto& h : plan) {
    sg4::this_actor::sleep_until(h.time);
    const double now = sg4::Engine::get_clock();
    switch (h.kind) {
      case Kind::STEP: {
        const auto& s = steps[static_cast<size_t>(h.index)];
        ctx.emit({.time = now,
                  .type = EventType::AGENT_CALL,
                  .tenant = s.identity_tenant,
                  .value = s.allowed ? 1.0 : 0.0,
                  .aux = static_cast<double>(h.index)});
        if (s.target_kind == "data" && s.target_index >= 0) emit_data_hop(ctx, s, now);
        break;
      }
      case Kind::ROTATION:
        ctx.emit({.time = now,
                  .type = EventType::SECRET_ROTATED,
                  .tenant = secrets[static_cast<size_t>(h.index)].tenant_index,
                  .value = h.emergency ? 1.0 : 0.0,
                  .aux = static_cast<double>(h.index)});
        break;
      case Kind::LEAK: {
        const auto& f = ctx.spec.faults[static_cast<size_t>(h.index)];
        ctx.emit({.time = now,
                  .type = EventType::SECRET_LEAKED,
                  .tenant = f.to.empty() ? -1 : ctx.spec.tenant_index(f.to),
                  .value = static_cast<double>(h.index),
                  .aux = static_cast<double>(secret_index(ctx.spec, f.secret))});
        break;
      }
    }
  }
}

}  // namespace gtw
