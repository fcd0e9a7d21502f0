#include <algorithm>
#include <map>

#include "PlacementInternal.hpp"

namespace gtw::policy {

bool eligible(const GpuView& gpu, const PlacementRequest& request) {
  if (!gpu.available || gpu.free_slots() <= 0) return false;
  if (!request.node_pool.empty() && gpu.pool_name != request.node_pool) return false;
  if (!request.allowed_sharing.empty() && std::find(request.allowed_sharing.begin(), request.allowed_sharing.end(),
                                                    gpu.mode) == request.allowed_sharing.end()) {
    return false;
  }
  if (!request.mig_profile.empty() && gpu.mig_profile != request.mig_profile) return false;
  // Devices with memory isolation refuse a replica that cannot fit; time-sliced and MPS GPUs accept
  // it and the allocation fails at start (MPS: beyond the client's pinned limit).
  if ((gpu.mode == SharingMode::EXCLUSIVE || gpu.mode == SharingMode::MIG) && request.memory > gpu.memory_total)
    return false;
  return true;
}

std::map<int, std::vector<const GpuView*>> eligible_by_node(const PlacementRequest& request, const ClusterView& view) {
  std::map<int, std::vector<const GpuView*>> by_node;
  for (const auto& gpu : view.gpus)
    if (eligible(gpu, request)) by_node[gpu.node].push_back(&gpu);
  return by_node;
}

namespace {

class FirstFit final : public PlacementPolicy {
 public:
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    for (const auto& [node, gpus] : eligible_by_node(request, view)) {
      if (static_cast<int>(gpus.size()) < request.gpus) continue;
      std::vector<int> out;
      for (int i = 0; i < request.gpus; ++i) out.push_back(gpus[static_cast<size_t>(i)]->index);
      return out;
    }
    return std::nullopt;
  }
};

// Best-fit: the GPUs left with the least free capacity after placement (slots, or memory), so
// partly used GPUs fill up before empty ones are opened. Ties go to the lowest index.
class BestFit final : public PlacementPolicy {
 public:
  explicit BestFit(bool by_memory) : by_memory_(by_memory) {}
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    std::optional<std::vector<int>> best;
    double best_score = 0;
    for (const auto& [node, gpus] : eligible_by_node(request, view)) {
      if (static_cast<int>(gpus.size()) < request.gpus) continue;
      std::vector<const GpuView*> sorted = gpus;
      std::stable_sort(sorted.begin(), sorted.end(), [&](const GpuView* a, const GpuView* b) {
        return leftover(*a, request) < leftover(*b, request);
      });
      double score = 0;
      std::vector<int> chosen;
      for (int i = 0; i < request.gpus; ++i) {
        score += leftover(*sorted[static_cast<size_t>(i)], request);
        chosen.push_back(sorted[static_cast<size_t>(i)]->index);
      }
      if (!best || score < best_score) {
        best = chosen;
        best_score = score;
      }
    }
    return best;
  }

 private:
  double leftover(const GpuView& gpu, const PlacementRequest& request) const {
    if (by_memory_) return gpu.memory_total - gpu.memory_committed - request.memory;
    return static_cast<double>(gpu.free_slots() - 1) / gpu.slots;
  }
  bool by_memory_;
};

// Spread: the emptiest eligible GPUs first (fewest replicas placed), so replicas of one workload
// and of different tenants share GPUs only once every GPU is in use. Ties go to the lowest index.
class Spread final : public PlacementPolicy {
 public:
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    std::optional<std::vector<int>> best;
    int best_load = 0;
    // Replicas on the MIG instances of one physical GPU still share its PCIe link and power: among
    // equally loaded devices, prefer the physical GPU with fewer replicas.
    std::map<std::pair<int, int>, int> physical_load;
    for (const auto& g : view.gpus) physical_load[{g.node, g.local}] += g.used_slots;
    for (const auto& [node, gpus] : eligible_by_node(request, view)) {
      if (static_cast<int>(gpus.size()) < request.gpus) continue;
      std::vector<const GpuView*> sorted = gpus;
      std::stable_sort(sorted.begin(), sorted.end(), [&](const GpuView* a, const GpuView* b) {
        if (a->used_slots != b->used_slots) return a->used_slots < b->used_slots;
        return physical_load[{a->node, a->local}] < physical_load[{b->node, b->local}];
      });
      int load = 0;
      std::vector<int> chosen;
      for (int i = 0; i < request.gpus; ++i) {
        load += sorted[static_cast<size_t>(i)]->used_slots;
        chosen.push_back(sorted[static_cast<size_t>(i)]->index);
      }
      if (!best || load < best_load) {
        best = chosen;
        best_load = load;
      }
    }
    return best;
  }
};

}  // namespace

void register_builtin_placement(PlacementRegistry& registry) {
  registry.add({"first-fit", "Lowest-numbered eligible GPUs on the first node that has enough of them.", {}},
               [](const Params&) { return std::make_unique<FirstFit>(); });
  // Not "best-fit": that is the packing experiment's node-level policy (policies/packing), which scores
  // differently (docs/models/placement.md, "Two placement families").
  registry.add({"tightest-fit",
                "GPUs left with the least free capacity after placement (fills partly used GPUs first).",
                {{"metric",
                  ParamType::STRING,
                  std::string("slots"),
                  "capacity measure: 'slots' (share of replica slots left) or 'memory' (bytes left)",
                  -1e300,
                  1e300,
                  {"slots", "memory"}}}},
               [](const Params& p) { return std::make_unique<BestFit>(param_string(p, "metric") == "memory"); });
  registry.add(
      {"spread", "Emptiest eligible GPUs first (fewest replicas), so GPUs are shared only when all are in use.", {}},
      [](const Params&) { return std::make_unique<Spread>(); });
  register_sharing_aware_placement(registry);
}

const PlacementRegistry& builtin_placement_registry() {
  static const PlacementRegistry registry = [] {
    PlacementRegistry r;
    register_builtin_placement(r);
    return r;
  }();
  return registry;
}

}  // namespace gtw::policy
