#pragma once
// Helpers shared by the built-in placement policies (not part of the policy API).
#include <span>
#include <vector>

#include "Placement.hpp"

namespace gtw::policy {

/// Eligible GPUs grouped by node (nodes ascending, view order inside a node), kept as one flat list:
/// a decision costs one pass over the view and no allocation per node, so placement stays linear in
/// the cluster's GPUs (docs/PERFORMANCE.md, "Placement").
class NodeGroups {
 public:
  struct Group {
    int node = 0;
    std::span<const GpuView* const> gpus;
  };
  NodeGroups(const PlacementRequest& request, const ClusterView& view);
  NodeGroups(const NodeGroups&) = delete;
  NodeGroups& operator=(const NodeGroups&) = delete;
  NodeGroups(NodeGroups&&) = default;
  std::vector<Group>::const_iterator begin() const { return groups_.begin(); }
  std::vector<Group>::const_iterator end() const { return groups_.end(); }

 private:
  std::vector<const GpuView*> gpus_;
  std::vector<Group> groups_;
};

/// Eligible GPUs grouped by node, in view order inside each node.
inline NodeGroups eligible_by_node(const PlacementRequest& request, const ClusterView& view) {
  return NodeGroups(request, view);
}

/// Replicas placed on each device's physical GPU (the MIG instances of one GPU share it), by position in
/// view.gpus: one pass when every device carries its physical id, as the engine's views do.
std::vector<int> physical_loads(const ClusterView& view);

/// Registers packing, fgd, tenant-anti-affinity and classification-aware.
void register_sharing_aware_placement(PlacementRegistry& registry);

}  // namespace gtw::policy
