// Cross-reference checks of spec.identity and spec.audit (docs/models/identity.md, docs/models/audit.md):
// tenants, principals, services, secrets, data items and stores named by the identity graph exist, names
// are unique, and time windows are ordered. Fills defaults that depend on other sections (a service's
// identity).
#include <algorithm>
#include <map>
#include <set>

#include "Loader.hpp"
#include "Text.hpp"

namespace gtw {

namespace {

// Hops one call from `node` can walk with every edge taken: simple paths over spec.identity.edges, at most
// MAX_INVOCATION_DEPTH deep, counted until `cap` (the walk is exponential in a dense call plan).
double hops_below(const IdentitySpec& id, const std::string& node, std::vector<std::string>& path, double cap) {
  double hops = 0;
  if (static_cast<int>(path.size()) >= MAX_INVOCATION_DEPTH) return 0;
  for (const auto& e : id.edges) {
    if (e.from != node || std::find(path.begin(), path.end(), e.to) != path.end()) continue;
    hops += 1;
    if (e.action == "call") {
      path.push_back(e.to);
      hops += hops_below(id, e.to, path, cap - hops);
      path.pop_back();
    }
    if (hops > cap) break;
  }
  return hops;
}

// The names a grant's resource may take: data items, stores, secrets and the audit streams.
std::vector<std::string> with_audit_streams(std::vector<std::string> names, const ScenarioSpec& spec) {
  names.push_back("audit");
  for (const auto& t : spec.tenants) names.push_back("audit:" + t.name);
  return names;
}

}  // namespace

void check_identity_references(ScenarioSpec& spec, Diagnostics& diags) {
  auto& id = spec.identity;
  std::vector<std::string> tenant_names;
  for (const auto& t : spec.tenants) tenant_names.push_back(t.name);
  const auto resolve_tenant = [&](const std::string& tenant, int& index, const SourceLoc& loc,
                                  const std::string& path) {
    index = spec.tenant_index(tenant);
    if (!tenant.empty() && index < 0)
      diags.error(loc, path + ".tenant", "unknown tenant '" + tenant + "'" + suggest(tenant, tenant_names));
  };

  // One namespace for principals, services and secrets; data items and stores must not collide with it
  // (an edge or grant names its endpoint by name alone).
  std::map<std::string, std::string> data_or_store;  // name -> YAML path
  for (size_t i = 0; i < spec.storage.size(); ++i)
    data_or_store.emplace(spec.storage[i].name, "spec.cluster.storage[" + std::to_string(i) + "]");
  for (size_t i = 0; i < spec.data.size(); ++i)
    data_or_store.emplace(spec.data[i].name, "spec.data[" + std::to_string(i) + "]");
  std::map<std::string, std::string> owner_of_name;  // name -> YAML path of its first use
  const auto claim = [&](const std::string& name, const std::string& path, const SourceLoc& loc) {
    if (name.empty()) return;
    auto [it, inserted] = owner_of_name.emplace(name, path);
    if (!inserted) {
      diags.error(loc, path + ".name", "duplicate name '" + name + "' (first used by " + it->second + ")");
    } else if (auto d = data_or_store.find(name); d != data_or_store.end()) {
      diags.error(loc, path + ".name", "duplicate name '" + name + "' (also the name of " + d->second + ")");
    }
  };

  std::vector<std::string> workload_names;
  for (const auto& w : spec.workloads) workload_names.push_back(w.name);
  // Principals an access can run as: declared ones, workloads' io.identity (default the tenant's name)
  // and services' identities (implicit service accounts of their tenant).
  std::vector<std::string> principal_names;
  for (size_t i = 0; i < id.principals.size(); ++i) {
    auto& p = id.principals[i];
    const std::string path = "spec.identity.principals[" + std::to_string(i) + "]";
    claim(p.name, path, p.loc);
    resolve_tenant(p.tenant, p.tenant_index, p.loc, path);
    if (p.spiffe_id.empty() && !p.name.empty()) {
      static const char* kinds[] = {"user", "serviceAccount", "shared", "anonymous"};
      p.spiffe_id = "spiffe://" + p.tenant + "/" + kinds[static_cast<int>(p.kind)] + "/" + p.name;
    }
    principal_names.push_back(p.name);
  }
  for (const auto& w : spec.workloads) {
    const std::string who = w.io.identity.empty() ? w.tenant : w.io.identity;
    if (!who.empty() && !contains(principal_names, who)) principal_names.push_back(who);
  }
  std::vector<std::string> service_names;
  for (size_t i = 0; i < id.services.size(); ++i) {
    auto& s = id.services[i];
    const std::string path = "spec.identity.services[" + std::to_string(i) + "]";
    claim(s.name, path, s.loc);
    resolve_tenant(s.tenant, s.tenant_index, s.loc, path);
    service_names.push_back(s.name);
    if (!s.workload.empty()) {
      const auto it = std::find(workload_names.begin(), workload_names.end(), s.workload);
      if (it == workload_names.end()) {
        diags.error(s.loc, path + ".workload",
                    "unknown workload '" + s.workload + "'" + suggest(s.workload, workload_names));
      } else {
        const auto& w = spec.workloads[static_cast<size_t>(it - workload_names.begin())];
        if (!s.tenant.empty() && w.tenant != s.tenant)
          diags.error(s.loc, path + ".workload",
                      "workload '" + s.workload + "' belongs to tenant '" + w.tenant + "', not '" + s.tenant + "'");
        if (s.identity.empty()) s.identity = w.io.identity.empty() ? w.tenant : w.io.identity;
      }
    }
    if (s.identity.empty()) s.identity = s.tenant;
    if (!s.identity.empty() && !contains(principal_names, s.identity)) principal_names.push_back(s.identity);
  }
  std::vector<std::string> secret_names;
  for (size_t i = 0; i < id.secrets.size(); ++i) {
    auto& s = id.secrets[i];
    const std::string path = "spec.identity.secrets[" + std::to_string(i) + "]";
    claim(s.name, path, s.loc);
    resolve_tenant(s.tenant, s.tenant_index, s.loc, path);
    secret_names.push_back(s.name);
    if (s.rotation.value > 0 && spec.duration.value / s.rotation.value > MAX_ROTATIONS)
      diags.error(s.loc, path + ".rotation",
                  "rotates " + format_printf("%.3g", spec.duration.value / s.rotation.value) +
                      " times in the run; at most " + format_printf("%.0f", MAX_ROTATIONS) +
                      " rotations per secret are simulated");
  }
  std::vector<std::string> resource_names = secret_names;
  for (const auto& d : spec.data) resource_names.push_back(d.name);
  for (const auto& st : spec.storage) resource_names.push_back(st.name);
  std::vector<std::string> data_and_stores(resource_names.begin() + static_cast<long>(secret_names.size()),
                                           resource_names.end());
  for (size_t i = 0; i < id.secrets.size(); ++i)
    for (const auto& p : id.secrets[i].protects)
      if (!contains(data_and_stores, p))
        diags.error(id.secrets[i].loc, "spec.identity.secrets[" + std::to_string(i) + "].protects",
                    "unknown data item or store '" + p + "'" + suggest(p, data_and_stores));

  std::vector<std::string> callers = principal_names;
  callers.insert(callers.end(), service_names.begin(), service_names.end());
  std::vector<std::string> callees = service_names;
  callees.insert(callees.end(), resource_names.begin(), resource_names.end());
  for (size_t i = 0; i < id.edges.size(); ++i) {
    const auto& e = id.edges[i];
    const std::string path = "spec.identity.edges[" + std::to_string(i) + "]";
    if (!e.from.empty() && !contains(callers, e.from))
      diags.error(e.loc, path + ".from", "unknown principal or service '" + e.from + "'" + suggest(e.from, callers));
    if (e.to.empty()) continue;
    if (!contains(callees, e.to)) {
      diags.error(e.loc, path + ".to",
                  "unknown service, data item, store or secret '" + e.to + "'" + suggest(e.to, callees));
    } else if (e.action == "call" && !contains(service_names, e.to)) {
      diags.error(e.loc, path + ".action",
                  "'" + e.to + "' is a resource, not a service: the action is read, write or use, not call");
    } else if (e.action != "call" && contains(service_names, e.to)) {
      diags.error(e.loc, path + ".action", "'" + e.to + "' is a service: the action is call, not " + e.action);
    }
  }
  for (size_t i = 0; i < id.grants.size(); ++i) {
    const auto& g = id.grants[i];
    const std::string path = "spec.identity.grants[" + std::to_string(i) + "]";
    if (!g.principal.empty() && !contains(principal_names, g.principal))
      diags.error(g.loc, path + ".principal",
                  "unknown principal '" + g.principal + "'" + suggest(g.principal, principal_names));
    // The audit streams (docs/models/audit.md): "audit" (the shared stream), "audit:<tenant>" (a tenant's).
    const bool audit_stream =
        g.resource == "audit" || (g.resource.rfind("audit:", 0) == 0 && spec.tenant_index(g.resource.substr(6)) >= 0);
    if (!g.resource.empty() && !audit_stream && !contains(resource_names, g.resource))
      diags.error(g.loc, path + ".resource",
                  "unknown data item, store, secret or audit stream (audit, audit:<tenant>) '" + g.resource + "'" +
                      suggest(g.resource, with_audit_streams(resource_names, spec)));
    if (g.until.value >= 0 && g.until.value <= g.from.value)
      diags.error(g.loc, path + ".until",
                  "must be after from (" + format_duration(g.from) + "), got " + format_duration(g.until));
  }
  for (size_t i = 0; i < id.revocations.size(); ++i) {
    const auto& r = id.revocations[i];
    const std::string path = "spec.identity.revocations[" + std::to_string(i) + "]";
    if (!r.principal.empty() && !contains(principal_names, r.principal))
      diags.error(r.loc, path + ".principal",
                  "unknown principal '" + r.principal + "'" + suggest(r.principal, principal_names));
  }

  std::set<std::string> invocation_names;
  double total_hops = 0;
  for (size_t i = 0; i < id.invocations.size(); ++i) {
    const auto& inv = id.invocations[i];
    const std::string path = "spec.identity.invocations[" + std::to_string(i) + "]";
    if (!inv.name.empty() && !invocation_names.insert(inv.name).second)
      diags.error(inv.loc, path + ".name", "duplicate invocation name '" + inv.name + "'");
    if (!inv.principal.empty() && !contains(principal_names, inv.principal))
      diags.error(inv.loc, path + ".principal",
                  "unknown principal '" + inv.principal + "'" + suggest(inv.principal, principal_names));
    if (!inv.entry.empty() && !contains(service_names, inv.entry)) {
      diags.error(inv.loc, path + ".entry",
                  "unknown service or agent '" + inv.entry + "'" + suggest(inv.entry, service_names));
    } else if (!inv.entry.empty() && contains(principal_names, inv.principal) &&
               std::none_of(id.edges.begin(), id.edges.end(), [&](const IdentityEdgeSpec& e) {
                 return e.from == inv.principal && e.to == inv.entry && e.action == "call";
               })) {
      diags.error(inv.loc, path + ".entry",
                  "no edge lets '" + inv.principal + "' call '" + inv.entry +
                      "': add one to spec.identity.edges (from: " + inv.principal + ", to: " + inv.entry + ")");
    }
    if (inv.at.empty() && inv.rate.value <= 0)
      diags.error(inv.loc, path, "gives no call: list times in `at` or a Poisson `rate`");
    const double window = (inv.until.value >= 0 ? inv.until.value : spec.duration.value) - inv.from.value;
    const double calls = static_cast<double>(inv.at.size()) + inv.rate.value * std::max(0.0, window);
    std::vector<std::string> walked{inv.principal, inv.entry};
    const double per_call = 1 + hops_below(id, inv.entry, walked, MAX_INVOCATION_HOPS);
    total_hops += std::max(0.0, calls) * per_call;
    if (total_hops > MAX_INVOCATION_HOPS && calls <= MAX_INVOCATION_CALLS)
      diags.error(inv.loc, path,
                  "about " + format_printf("%.3g", total_hops) + " hops in all (" + format_printf("%.3g", calls) +
                      " calls of up to " + format_printf("%.3g", per_call) + " hops); at most " +
                      format_printf("%.3g", MAX_INVOCATION_HOPS) +
                      " are simulated (fewer calls, or a call plan with fewer edges)");
    if (calls > MAX_INVOCATION_CALLS)
      diags.error(inv.loc, path + ".rate",
                  "about " + format_printf("%.3g", calls) + " calls; at most " +
                      format_printf("%.3g", MAX_INVOCATION_CALLS) + " are simulated (lower the rate or the window)");
    if (inv.until.value >= 0 && inv.until.value <= inv.from.value)
      diags.error(inv.loc, path + ".until",
                  "must be after from (" + format_duration(inv.from) + "), got " + format_duration(inv.until));
  }

  const auto& audit = spec.audit;
  for (size_t i = 0; i < audit.gaps.size(); ++i) {
    const auto& g = audit.gaps[i];
    if (g.until.value <= g.from.value)
      diags.error(g.loc, "spec.audit.gaps[" + std::to_string(i) + "].until",
                  "must be after from (" + format_duration(g.from) + "), got " + format_duration(g.until));
  }
  static const std::vector<std::string> tamper_fields{"principal", "resource", "outcome", "type",
                                                      "source",    "location", "time"};
  for (size_t i = 0; i < audit.tamper.size(); ++i) {
    const auto& t = audit.tamper[i];
    if (!t.field.empty() && !contains(tamper_fields, t.field))
      diags.error(t.loc, "spec.audit.tamper[" + std::to_string(i) + "].field",
                  "unknown field '" + t.field + "'" + suggest(t.field, tamper_fields));
  }
}

}  // namespace gtw
