#include <algorithm>
#include <map>
#include <set>

#include "sim/scenario/Loader.hpp"

namespace gtw {
namespace {

template <class T>
void check_unique(const std::vector<T>& items, const std::string& list_path, Diagnostics& diags) {
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& name = items[i].name;
    if (name.empty()) continue;
    auto [it, inserted] = seen.emplace(name, i);
    if (!inserted) {
      diags.error(items[i].loc, list_path + "[" + std::to_string(i) + "].name",
                  "duplicate name '" + name + "' (first used by " + list_path + "[" + std::to_string(it->second) +
                      "])");
    }
  }
}

bool simulated(SharingMode m) { return m == SharingMode::EXCLUSIVE || m == SharingMode::TIME_SLICING; }

void check_sharing(const SharingSpec& s, const std::string& path, Diagnostics& diags) {
  if (!simulated(s.mode)) {
    diags.error(s.loc, path + ".mode",
                std::string("sharing mode '") + sharing_mode_name(s.mode) +
                    "' is not simulated by this version of gputwin; simulated modes: exclusive, timeSlicing");
  }
}

}  // namespace

void check_references(ScenarioSpec& spec, Diagnostics& diags) {
  check_unique(spec.node_pools, "spec.cluster.nodePools", diags);
  check_unique(spec.tenants, "spec.tenants", diags);
  check_unique(spec.workloads, "spec.workloads", diags);

  std::vector<std::string> tenant_names, pool_names, workload_names;
  for (const auto& t : spec.tenants) tenant_names.push_back(t.name);
  for (const auto& p : spec.node_pools) pool_names.push_back(p.name);
  for (const auto& w : spec.workloads) workload_names.push_back(w.name);

  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    const auto& pool = spec.node_pools[p];
    const std::string path = "spec.cluster.nodePools[" + std::to_string(p) + "]";
    check_sharing(pool.sharing, path + ".sharing", diags);
    std::set<int> claimed;
    for (size_t o = 0; o < pool.gpu_sharing.size(); ++o) {
      const auto& ov = pool.gpu_sharing[o];
      const std::string opath = path + ".gpuSharing[" + std::to_string(o) + "]";
      check_sharing(ov.sharing, opath, diags);
      for (int g : ov.gpus) {
        if (!claimed.insert(g).second) {
          diags.error(ov.loc, opath + ".gpus", "GPU " + std::to_string(g) + " is listed in more than one gpuSharing entry");
        }
      }
    }
  }

  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    auto& w = spec.workloads[i];
    const std::string path = "spec.workloads[" + std::to_string(i) + "]";
    w.tenant_index = spec.tenant_index(w.tenant);
    if (!w.tenant.empty() && w.tenant_index < 0) {
      diags.error(w.tenant_loc, path + ".tenant", "no tenant named '" + w.tenant + "'" + suggest(w.tenant, tenant_names));
    }
    if (!w.node_pool.empty() && std::find(pool_names.begin(), pool_names.end(), w.node_pool) == pool_names.end()) {
      diags.error(w.node_pool_loc, path + ".placement.nodePool",
                  "no node pool named '" + w.node_pool + "'" + suggest(w.node_pool, pool_names));
    }
    for (auto m : w.allowed_sharing) {
      if (!simulated(m)) {
        diags.error(w.loc, path + ".placement.sharing",
                    std::string("sharing mode '") + sharing_mode_name(m) + "' is not simulated by this version");
      }
    }
    if (w.kind == WorkloadKind::BATCH && w.gpus != 1) {
      diags.error(w.loc, path + ".gpus", "batch jobs run on one GPU each; use replicas for more workers");
    }
    if (w.kind == WorkloadKind::INFERENCE && w.gpus != 1) {
      diags.error(w.loc, path + ".gpus",
                  "multi-GPU (tensor-parallel) inference replicas are not modelled yet; use gpus: 1 and more replicas");
    }
    if (w.start.value >= spec.duration.value) {
      diags.error(w.loc, path + ".start", "starts at or after the end of the run (spec.duration = " +
                                              format_duration(spec.duration) + ")");
    }
  }

  for (size_t t = 0; t < spec.tenants.size(); ++t) {
    auto& tenant = spec.tenants[t];
    check_unique(tenant.slos, "spec.tenants[" + std::to_string(t) + "].slos", diags);
    for (size_t s = 0; s < tenant.slos.size(); ++s) {
      auto& slo = tenant.slos[s];
      const std::string path = "spec.tenants[" + std::to_string(t) + "].slos[" + std::to_string(s) + "]";
      if (slo.window.value < 0) slo.window = spec.sla_window;
      const bool request_slo = slo.kind == SloKind::LATENCY || slo.kind == SloKind::THROUGHPUT;
      std::vector<std::string> own;
      bool any_matching_kind = false;
      for (const auto& w : spec.workloads) {
        if (w.tenant != tenant.name) continue;
        own.push_back(w.name);
        const bool serves_requests = w.kind == WorkloadKind::INFERENCE;
        if (serves_requests == request_slo && (slo.workload.empty() || slo.workload == w.name)) {
          any_matching_kind = true;
        }
      }
      if (!slo.workload.empty() && std::find(own.begin(), own.end(), slo.workload) == own.end()) {
        diags.error(slo.workload_loc, path + ".workload",
                    "tenant '" + tenant.name + "' has no workload named '" + slo.workload + "'" +
                        suggest(slo.workload, own));
      } else if (!any_matching_kind && !tenant.name.empty()) {
        diags.error(slo.loc, path + ".kind",
                    std::string("a ") + slo_kind_name(slo.kind) + " SLO needs " +
                        (request_slo ? "an inference workload" : "a training or batch workload") + " of tenant '" +
                        tenant.name + "'" + (slo.workload.empty() ? "" : " named '" + slo.workload + "'"));
      }
      if (slo.window.value > spec.duration.value) {
        diags.warning(slo.loc, path + ".window",
                      "window is longer than the run (" + format_duration(spec.duration) + "); one partial window");
      }
    }
  }
}

}  // namespace gtw
