#pragma once
// Helpers shared by the built-in placement policies (not part of the policy API).
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "DeviceIndex.hpp"
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

/// A node that cannot take the request, in a DeviceIndex ranking.
inline const DeviceIndex::Score NO_PLACE{std::numeric_limits<double>::infinity(), 0.0};

/// The rankings' tags (DeviceIndex::Ranking::policy): one per way of scoring a node.
enum RankingTag : int {
  FIRST_FIT = 1,
  TIGHTEST_SLOTS,
  TIGHTEST_MEMORY,
  SPREAD,
  PACKING,
  FGD,
  TENANT_ANTI_AFFINITY,
  CLASSIFICATION_AWARE
};

/// Whether a decision may take the view's index: one GPU or more, a finite memory (a NaN would break the rankings'
/// order), and an index.
inline bool indexable(const PlacementRequest& request, const ClusterView& view) {
  return request.gpus >= 1 && std::isfinite(request.memory) && view.index() != nullptr;
}

/// The indexed path of a policy (docs/models/placement.md, "Cost of a decision"): the node the view's index ranks
/// first by the policy's per-node score, then the policy's own choice on that node. A policy's pass over the view
/// calls the same per-node choice on every node, so both choose alike. `variant` and `subject`: what else the score
/// depends on (DeviceIndex::Ranking).
template <class Score, class Choose>
std::optional<std::vector<int>> place_indexed(const PlacementRequest& request, const ClusterView& view, int policy,
                                              Score score, Choose choose, int variant = 0, int subject = -1) {
  const DeviceIndex& index = *view.index();
  const auto node =
      index.best_node(view.gpus, request, {policy, request.gpus, policy == TIGHTEST_MEMORY, variant, subject}, score);
  if (!node) return std::nullopt;
  const auto eligible = index.eligible_on(view.gpus, request, *node);
  // A node ranked first without enough eligible devices: a change the view did not report (ClusterView::changed).
  if (static_cast<int>(eligible.size()) < request.gpus)
    throw std::logic_error("placement: the device index is out of date with the view (a change without changed())");
  return choose(index.node_devices(view.gpus, *node), std::span<const GpuView* const>(eligible));
}

/// Registers packing, fgd, tenant-anti-affinity and classification-aware.
void register_sharing_aware_placement(PlacementRegistry& registry);

}  // namespace gtw::policy
