#pragma once
// A node pool's mig-parted selection (NodePoolSpec::mig_config) turned into its sharing and per-GPU
// overrides, as mig-parted would lay out each GPU of a node: the entries whose device-filter names the
// product's PCI device id (or have none) and whose `devices` name the GPU.
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Scenario.hpp"

namespace gtw {

/// Whether some entry of the selection has a device-filter (then only setup, which knows the product's
/// PCI device ids, can apply it).
bool mig_config_needs_product(const MigConfigSpec& config);

/// Applies pool.mig_config: GPU 0's layout (or whole GPU) becomes pool.sharing, every GPU laid out
/// otherwise gets a gpuSharing entry after the scenario's own (which win). Whole GPUs (mig-enabled: false)
/// keep the pool's non-MIG sharing. `pci_device_ids`: the product's, upper case. Errors at the entries'
/// locations; returns false on error.
bool apply_mig_config(NodePoolSpec& pool, const std::vector<std::string>& pci_device_ids, const std::string& at,
                      Diagnostics& diags);

}  // namespace gtw
