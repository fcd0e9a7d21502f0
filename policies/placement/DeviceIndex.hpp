#pragma once
// The nodes of a ClusterView ranked by a policy's own per-node score, so that a decision costs O(log nodes) plus a
// pass over the changed node's devices, instead of a pass over every device (issue 21: placement at 10,000 GPUs and
// beyond). docs/models/placement.md, "Cost of a decision".
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "Placement.hpp"

namespace gtw::policy {

class DeviceIndex {
 public:
  /// A policy's score of one node for a request, compared as a pair (a score, then a tie-break): lower is better,
  /// {+infinity, ...} when the node cannot take it. `node` is every device of the node in view order, `eligible`
  /// those eligible for the request, in view order.
  using Score = std::pair<double, double>;
  using NodeScore = std::function<Score(std::span<const GpuView> node, std::span<const GpuView* const> eligible)>;
  static constexpr size_t MAX_RANKINGS = 32;

  /// The ranking a policy asks for: a tag of its own (one per way of scoring) and the number of GPUs. The request's
  /// constraints and memory are part of the ranking too.
  struct Ranking {
    int policy = 0;
    int gpus = 1;
    bool reads_memory = false;  // the score reads the memory asked beyond eligibility (tightest-fit by memory)
    int variant = 0;            // the policy's parameters, when they change the score (tenant-anti-affinity's scope)
    int subject = -1;           // what else of the request the score reads (the tenant, its classification)
  };

  /// nullptr unless the devices are listed node by node and carry physical ids, each physical GPU in one node.
  static std::unique_ptr<DeviceIndex> build(const std::vector<GpuView>& gpus);

  /// Device g changed: re-score its node in every ranking.
  void changed(const std::vector<GpuView>& gpus, size_t g);

  /// The node of least score (the lowest of equal ones), or nullopt when every node scores +infinity. A ranking is
  /// built on first use (a pass over the view) and kept current by changed() from then on; the score keeps what it
  /// captured then (fgd: the view's expected demand), so a view whose demand changes must build its index again.
  /// At most MAX_RANKINGS are kept (the least recently used goes), so that a change never re-scores more.
  std::optional<int> best_node(const std::vector<GpuView>& gpus, const PlacementRequest& request,
                               const Ranking& ranking, const NodeScore& score) const;

  /// Rankings kept now (at most MAX_RANKINGS).
  size_t rankings() const { return trees_.size(); }

  /// Replicas on the physical GPU of `gpu` (all its MIG instances, on its node), as physical_loads() counts them.
  static int physical_load(std::span<const GpuView> node, const GpuView& gpu);

  /// The devices of `node` (view order), and those of them eligible for the request.
  std::span<const GpuView> node_devices(const std::vector<GpuView>& gpus, int node) const;
  bool has_node(int node) const { return node >= 0 && static_cast<size_t>(node) < node_range_.size(); }
  std::vector<const GpuView*> eligible_on(const std::vector<GpuView>& gpus, const PlacementRequest& request,
                                          int node) const;

 private:
  // Min-tree over the nodes' scores, the lowest node first among equal minima.
  struct Tree {
    PlacementRequest request;
    NodeScore score;
    uint64_t last_use = 0;
    size_t leaves = 1;
    std::vector<Score> min;  // 2 x leaves; leaf i at leaves + i
    void set(size_t node, Score value);
    std::optional<int> leftmost_min() const;
  };
  // A ranking and everything of the request that eligibility reads: requests with the same key rank nodes alike.
  using Key = std::tuple<int, int, int, int, std::string, std::vector<int>, std::string, std::string, double>;

  DeviceIndex() = default;
  // The memory asked, as eligibility sees it: the smallest device memory at least as large (+inf above them all).
  // Requests of one interval fit the same devices, so they share a ranking: the rankings stay as few as the
  // intervals, not as the distinct requests.
  double memory_class(double memory) const;
  Score node_score(const std::vector<GpuView>& gpus, const Tree& tree, int node) const;

  std::vector<std::pair<size_t, size_t>> node_range_;  // per node: [first, last) positions
  std::vector<double> memories_;                       // the devices' distinct memory sizes, ascending
  mutable std::map<Key, Tree> trees_;                  // built on first use by a decision
  mutable uint64_t uses_ = 0;
};

}  // namespace gtw::policy
