#include "sim/engine/Setup.hpp"

#include "models/workload/Workload.hpp"
#include "policies/api/CheckParams.hpp"
#include "policies/api/Placement.hpp"

namespace gtw {

PreparedScenario prepare_scenario(const std::string& path, const std::vector<Override>& overrides,
                                  Diagnostics& diags) {
  PreparedScenario out;
  out.spec = load_scenario(path, overrides, diags);
  auto& spec = out.spec;

  // Hardware profiles of every product used.
  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    const auto& pool = spec.node_pools[p];
    if (pool.gpu_product.empty() || out.profiles.count(pool.gpu_product)) continue;
    HardwareProfile profile;
    if (load_profile(pool.gpu_product, pool.product_loc, "spec.cluster.nodePools[" + std::to_string(p) + "].gpu",
                     profile, diags)) {
      out.profiles.emplace(pool.gpu_product, std::move(profile));
    }
  }

  // Policies by registered name.
  policy::check_policy_ref(spec.placement, "spec.policies.placement", "placement",
                           policy::builtin_placement_registry().list(), diags);

  // Capacity checks that need the profiles: a replica that can never fit on any allowed GPU.
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    const double need = workload_memory(w);
    if (need <= 0) continue;
    bool any_pool_fits = false;
    double largest = 0;
    for (const auto& pool : spec.node_pools) {
      auto it = out.profiles.find(pool.gpu_product);
      if (it == out.profiles.end()) {
        any_pool_fits = true;  // already reported; do not pile up errors
        continue;
      }
      if (!w.node_pool.empty() && w.node_pool != pool.name) continue;
      largest = std::max(largest, it->second.memory.value);
      if (need <= it->second.memory.value && w.gpus <= pool.gpus_per_node) any_pool_fits = true;
    }
    if (!any_pool_fits && largest > 0) {
      diags.error(w.loc, "spec.workloads[" + std::to_string(i) + "]",
                  "needs " + format_bytes(Bytes(need)) + " per GPU on " + std::to_string(w.gpus) +
                      " GPU(s) of one node, but no allowed node pool has GPUs that large (largest: " +
                      format_bytes(Bytes(largest)) + ")");
    }
  }
  return out;
}

}  // namespace gtw
