#include "MigParted.hpp"

#include <algorithm>
#include <map>

namespace gtw {

namespace {

bool filter_matches(const MigPartedEntry& e, const std::vector<std::string>& pci_ids) {
  if (e.device_filter.empty()) return true;
  for (const auto& id : e.device_filter)
    if (std::find(pci_ids.begin(), pci_ids.end(), id) != pci_ids.end()) return true;
  return false;
}

bool names_gpu(const MigPartedEntry& e, int gpu) {
  return e.devices.empty() || std::find(e.devices.begin(), e.devices.end(), gpu) != e.devices.end();
}

bool same_sharing(const SharingSpec& a, const SharingSpec& b) {
  return a.mode == b.mode && a.mig_layout == b.mig_layout && a.replicas == b.replicas;
}

std::string id_list(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out.empty() ? "none" : out;
}

// The entry that lays out GPU `gpu`, or nullptr after an error.
const MigPartedEntry* entry_for(const MigConfigSpec& mc, const std::vector<std::string>& pci_ids, int gpu,
                                const NodePoolSpec& pool, const std::string& at, Diagnostics& diags) {
  const MigPartedEntry* found = nullptr;
  for (const auto& e : mc.entries) {
    if (!filter_matches(e, pci_ids) || !names_gpu(e, gpu)) continue;
    if (found) {
      diags.error(e.loc, at,
                  "GPU " + std::to_string(gpu) + " of pool '" + pool.name +
                      "' is laid out by two entries of mig config '" + mc.config + "' (the first at line " +
                      std::to_string(found->loc.line) + "); keep one");
      return nullptr;
    }
    found = &e;
  }
  if (!found) {
    std::string filters;
    for (const auto& e : mc.entries)
      if (!e.device_filter.empty()) filters += (filters.empty() ? "" : "; ") + id_list(e.device_filter);
    diags.error(mc.loc, at,
                "mig config '" + mc.config + "' of " + mc.file + " lays out no GPU " + std::to_string(gpu) + " of a " +
                    pool.gpu_product + " (PCI device ids of its hardware profile: " + id_list(pci_ids) + ")" +
                    (filters.empty() ? std::string() : "; its entries are for device-filter " + filters));
  }
  return found;
}

}  // namespace

bool mig_config_needs_product(const MigConfigSpec& config) {
  return std::any_of(config.entries.begin(), config.entries.end(),
                     [](const MigPartedEntry& e) { return !e.device_filter.empty(); });
}

bool apply_mig_config(NodePoolSpec& pool, const std::vector<std::string>& pci_device_ids, const std::string& at,
                      Diagnostics& diags) {
  if (!pool.mig_config || pool.mig_config->applied) return true;
  MigConfigSpec& mc = *pool.mig_config;
  mc.applied = true;
  // Whole GPUs (mig-enabled: false) keep the pool's own sharing: `sharing` or devicePluginConfig.
  SharingSpec whole = pool.sharing;
  if (whole.mode == SharingMode::MIG) whole = SharingSpec{};  // provisional mode of the loader
  const size_t errors_before = diags.error_count();
  std::vector<SharingSpec> per_gpu;
  for (int g = 0; g < pool.gpus_per_node; ++g) {
    const MigPartedEntry* e = entry_for(mc, pci_device_ids, g, pool, at, diags);
    if (!e) return false;
    SharingSpec s = whole;
    if (e->mig_enabled) {
      if (e->layout.empty()) {
        if (diags.error_count() == errors_before)  // once, not per GPU
          diags.error(e->layout_loc, at,
                      "mig-enabled with no MIG devices leaves GPU " + std::to_string(g) +
                          " without any device to run on; give its mig-devices");
        continue;
      }
      s = SharingSpec{};
      s.mode = SharingMode::MIG;
      s.replicas = 1;
      s.mig_layout = e->layout;
      s.loc = e->loc;
      s.mig_loc = e->layout_loc;
      // Shared MIG resources of the device plugin time-slice the instances, with the pool's quantum.
      s.mig_replicas = pool.device_plugin.mig_replicas;
      s.mig_replicas_loc = pool.device_plugin.mig_replicas_loc;
      s.time_slice = whole.time_slice;
      s.context_switch = whole.context_switch;
    }
    per_gpu.push_back(std::move(s));
  }
  for (const auto& e : mc.entries)
    for (int d : e.devices)
      if (d >= pool.gpus_per_node && filter_matches(e, pci_device_ids))
        diags.warning(e.loc, at,
                      "names GPU " + std::to_string(d) + ", but nodes of pool '" + pool.name + "' have " +
                          std::to_string(pool.gpus_per_node) + " GPUs: it lays out nothing there");
  if (diags.error_count() != errors_before || per_gpu.empty()) return false;
  if (pool.device_plugin.given && pool.device_plugin.mig_strategy == "single" && whole.mode == SharingMode::MPS &&
      std::any_of(per_gpu.begin(), per_gpu.end(), [](const SharingSpec& s) { return s.mode == SharingMode::MIG; }))
    diags.error(whole.loc, at,
                "the device plugin shares nvidia.com/gpu with MPS under migStrategy single, which would share the MIG "
                "devices of this mig config: MPS sharing of MIG devices is not simulated (each instance runs its own "
                "MPS control daemon); share them with timeSlicing");
  if (pool.device_plugin.given && pool.device_plugin.mig_strategy == "none" &&
      std::any_of(per_gpu.begin(), per_gpu.end(), [](const SharingSpec& s) { return s.mode == SharingMode::MIG; }))
    diags.error(pool.device_plugin.loc, at,
                "the device plugin's flags.migStrategy is none, so MIG instances of this mig config would not be "
                "advertised; use single or mixed");
  // GPU 0's layout is the pool's; each GPU laid out otherwise gets a gpuSharing entry after the scenario's own.
  pool.sharing = per_gpu.front();
  std::map<size_t, size_t> entry_of;  // first GPU with a layout -> its gpuSharing entry
  for (int g = 1; g < pool.gpus_per_node; ++g) {
    const SharingSpec& s = per_gpu[static_cast<size_t>(g)];
    if (same_sharing(s, pool.sharing)) continue;
    size_t first = static_cast<size_t>(g);
    for (size_t k = 1; k < first; ++k)
      if (same_sharing(per_gpu[k], s)) first = k;
    auto it = entry_of.find(first);
    if (it == entry_of.end()) {
      GpuSharingOverride o;
      o.sharing = s;
      o.loc = s.loc;
      pool.gpu_sharing.push_back(std::move(o));
      it = entry_of.emplace(first, pool.gpu_sharing.size() - 1).first;
    }
    pool.gpu_sharing[it->second].gpus.push_back(g);
  }
  return diags.error_count() == errors_before;
}

}  // namespace gtw
