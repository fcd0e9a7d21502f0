#pragma once
// Helpers shared by the built-in placement policies (not part of the policy API).
#include <map>
#include <vector>

#include "Placement.hpp"

namespace gtw::policy {

/// Eligible GPUs grouped by node, in global index order inside each node.
std::map<int, std::vector<const GpuView*>> eligible_by_node(const PlacementRequest& request, const ClusterView& view);

/// Registers packing, fgd, tenant-anti-affinity and classification-aware.
void register_sharing_aware_placement(PlacementRegistry& registry);

}  // namespace gtw::policy
