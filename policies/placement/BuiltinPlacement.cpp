#include <algorithm>
#include <limits>
#include <map>
#include <span>

#include "DeviceIndex.hpp"
#include "PlacementInternal.hpp"

namespace gtw::policy {

bool eligible(const GpuView& gpu, const PlacementRequest& request) {
  return gpu.available && gpu.free_slots() > 0 && fits_request(gpu, request);
}

bool fits_request(const GpuView& gpu, const PlacementRequest& request) {
  if (!request.node_pool.empty() && gpu.pool_name != request.node_pool) return false;
  // A MIG instance is `mig` to placement constraints and runtimes (MIG hardware: a runtime without MIG support
  // cannot use it), time-sliced by migReplicas or not; the pool's mode says the same to the setup checks.
  const SharingMode mode = gpu.mig_profile.empty() ? gpu.mode : SharingMode::MIG;
  if (!request.allowed_sharing.empty() && std::find(request.allowed_sharing.begin(), request.allowed_sharing.end(),
                                                    mode) == request.allowed_sharing.end()) {
    return false;
  }
  if (!request.mig_profile.empty() && gpu.mig_profile != request.mig_profile) return false;
  if (!request.resource.empty() && gpu.resource != request.resource) return false;
  // Devices with memory isolation (a MIG instance's memory is its own, shared or not) refuse a replica that
  // cannot fit; time-sliced and MPS GPUs accept it and the allocation fails at start (MPS: beyond the client's
  // pinned limit).
  if ((mode == SharingMode::EXCLUSIVE || mode == SharingMode::MIG) && request.memory > gpu.memory_total) return false;
  return true;
}

NodeGroups::NodeGroups(const PlacementRequest& request, const ClusterView& view) {
  for (const auto& gpu : view.gpus)
    if (eligible(gpu, request)) gpus_.push_back(&gpu);
  // The engine's views list devices node by node; a view in another order is grouped stably.
  const auto by_node = [](const GpuView* a, const GpuView* b) { return a->node < b->node; };
  if (!std::is_sorted(gpus_.begin(), gpus_.end(), by_node)) std::stable_sort(gpus_.begin(), gpus_.end(), by_node);
  for (size_t i = 0; i < gpus_.size();) {
    size_t j = i;
    while (j < gpus_.size() && gpus_[j]->node == gpus_[i]->node) ++j;
    groups_.push_back({gpus_[i]->node, std::span<const GpuView* const>(gpus_.data() + i, j - i)});
    i = j;
  }
}

std::vector<int> physical_loads(const ClusterView& view) {
  std::vector<int> out(view.gpus.size(), 0);
  const bool ids = std::all_of(view.gpus.begin(), view.gpus.end(), [&](const GpuView& g) {
    return g.physical >= 0 && static_cast<size_t>(g.physical) < view.gpus.size();
  });
  if (ids) {
    std::vector<int> load(view.gpus.size(), 0);
    for (const auto& g : view.gpus) load[static_cast<size_t>(g.physical)] += g.used_slots;
    for (size_t i = 0; i < view.gpus.size(); ++i) out[i] = load[static_cast<size_t>(view.gpus[i].physical)];
    return out;
  }
  std::map<std::pair<int, int>, int> load;  // (node, local GPU) -> replicas
  for (const auto& g : view.gpus) load[{g.node, g.local}] += g.used_slots;
  for (size_t i = 0; i < view.gpus.size(); ++i) out[i] = load[{view.gpus[i].node, view.gpus[i].local}];
  return out;
}

namespace {

// The first `count` GPUs of a stable sort by key (ties keep view order), into `out` (reused across nodes):
// the first minimum for the usual one-GPU request, a partial sort on (key, position) otherwise.
template <class Key>
void first_by_key(std::span<const GpuView* const> gpus, size_t count, Key key, std::vector<const GpuView*>& out) {
  out.clear();
  if (gpus.empty() || count == 0) return;
  if (count == 1) {
    size_t best = 0;
    auto best_key = key(gpus[0]);
    for (size_t i = 1; i < gpus.size(); ++i) {
      auto k = key(gpus[i]);
      if (k < best_key) {
        best = i;
        best_key = k;
      }
    }
    out.push_back(gpus[best]);
    return;
  }
  using K = decltype(key(gpus.front()));
  std::vector<std::pair<K, size_t>> keyed;
  keyed.reserve(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) keyed.emplace_back(key(gpus[i]), i);
  count = std::min(count, keyed.size());
  std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(count), keyed.end());
  for (size_t i = 0; i < count; ++i) out.push_back(gpus[keyed[i].second]);
}

std::vector<int> indices(const std::vector<const GpuView*>& gpus) {
  std::vector<int> out;
  for (const GpuView* g : gpus) out.push_back(g->index);
  return out;
}

class FirstFit final : public PlacementPolicy {
 public:
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    const auto first_k = [k = request.gpus](std::span<const GpuView* const> gpus) {
      std::vector<int> out;
      for (int i = 0; i < k; ++i) out.push_back(gpus[static_cast<size_t>(i)]->index);
      return out;
    };
    if (indexable(request, view)) {
      return place_indexed(
          request, view, FIRST_FIT,
          [k = static_cast<size_t>(request.gpus)](std::span<const GpuView>, std::span<const GpuView* const> eligible) {
            return eligible.size() >= k ? DeviceIndex::Score{0.0, 0.0} : NO_PLACE;
          },
          [&](std::span<const GpuView>, std::span<const GpuView* const> eligible) { return first_k(eligible); });
    }
    for (const auto& [node, gpus] : eligible_by_node(request, view)) {
      if (static_cast<int>(gpus.size()) < request.gpus) continue;
      return first_k(gpus);
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
    if (indexable(request, view)) {
      const auto score = [by_memory = by_memory_, request](std::span<const GpuView>,
                                                           std::span<const GpuView* const> eligible) {
        std::vector<const GpuView*> sorted;
        return static_cast<int>(eligible.size()) < request.gpus
                   ? NO_PLACE
                   : DeviceIndex::Score{choose_on_node(by_memory, request, eligible, sorted), 0.0};
      };
      return place_indexed(request, view, by_memory_ ? TIGHTEST_MEMORY : TIGHTEST_SLOTS, score,
                           [&](std::span<const GpuView>, std::span<const GpuView* const> eligible) {
                             std::vector<const GpuView*> sorted;
                             choose_on_node(by_memory_, request, eligible, sorted);
                             return indices(sorted);
                           });
    }
    std::optional<std::vector<int>> best;
    double best_score = 0;
    std::vector<const GpuView*> sorted;
    for (const auto& [node, gpus] : eligible_by_node(request, view)) {
      if (static_cast<int>(gpus.size()) < request.gpus) continue;
      const double score = choose_on_node(by_memory_, request, gpus, sorted);
      if (!best || score < best_score) {
        best = indices(sorted);
        best_score = score;
      }
    }
    return best;
  }

 private:
  static double leftover(bool by_memory, const GpuView& gpu, const PlacementRequest& request) {
    if (by_memory) return gpu.memory_total - gpu.memory_committed - request.memory;
    return static_cast<double>(gpu.free_slots() - 1) / gpu.slots;
  }
  // The request's GPUs of least leftover on one node, ties in view order, into `sorted`; returns their leftover sum.
  static double choose_on_node(bool by_memory, const PlacementRequest& request, std::span<const GpuView* const> gpus,
                               std::vector<const GpuView*>& sorted) {
    const auto key = [&](const GpuView* g) { return leftover(by_memory, *g, request); };
    first_by_key(gpus, static_cast<size_t>(request.gpus), key, sorted);
    double score = 0;
    for (const GpuView* g : sorted) score += key(g);
    return score;
  }
  bool by_memory_;
};

// Spread: the emptiest eligible GPUs first (fewest replicas placed), so replicas of one workload
// and of different tenants share GPUs only once every GPU is in use. Ties go to the lowest index.
class Spread final : public PlacementPolicy {
 public:
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    // Replicas on the MIG instances of one physical GPU still share its PCIe link and power: among
    // equally loaded devices, prefer the physical GPU with fewer replicas. The index counts them on the node.
    if (indexable(request, view)) {
      const auto score = [k = request.gpus](std::span<const GpuView> node, std::span<const GpuView* const> eligible) {
        std::vector<const GpuView*> sorted;
        return static_cast<int>(eligible.size()) < k
                   ? NO_PLACE
                   : DeviceIndex::Score{static_cast<double>(choose_on_node(k, node, eligible, sorted)), 0.0};
      };
      return place_indexed(request, view, SPREAD, score,
                           [&](std::span<const GpuView> node, std::span<const GpuView* const> eligible) {
                             std::vector<const GpuView*> sorted;
                             choose_on_node(request.gpus, node, eligible, sorted);
                             return indices(sorted);
                           });
    }
    std::optional<std::vector<int>> best;
    int best_load = 0;
    const std::vector<int> physical_load = physical_loads(view);
    const GpuView* const first = view.gpus.data();
    const auto load_of = [&](const GpuView* g) { return physical_load[static_cast<size_t>(g - first)]; };
    std::vector<const GpuView*> sorted;
    for (const auto& [node, gpus] : eligible_by_node(request, view)) {
      if (static_cast<int>(gpus.size()) < request.gpus) continue;
      const int load = choose_by_load(request.gpus, gpus, load_of, sorted);
      if (!best || load < best_load) {
        best = indices(sorted);
        best_load = load;
      }
    }
    return best;
  }

 private:
  // The k GPUs of least (replicas, replicas on their physical GPU) on one node, ties in view order, into `sorted`;
  // returns their replicas.
  template <class PhysicalLoad>
  static int choose_by_load(int k, std::span<const GpuView* const> gpus, PhysicalLoad physical_load,
                            std::vector<const GpuView*>& sorted) {
    first_by_key(
        gpus, static_cast<size_t>(k), [&](const GpuView* g) { return std::make_pair(g->used_slots, physical_load(g)); },
        sorted);
    int load = 0;
    for (const GpuView* g : sorted) load += g->used_slots;
    return load;
  }
  static int choose_on_node(int k, std::span<const GpuView> node, std::span<const GpuView* const> gpus,
                            std::vector<const GpuView*>& sorted) {
    return choose_by_load(
        k, gpus, [&](const GpuView* g) { return DeviceIndex::physical_load(node, *g); }, sorted);
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
