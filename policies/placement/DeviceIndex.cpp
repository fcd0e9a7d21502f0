#include "DeviceIndex.hpp"

#include <algorithm>
#include <limits>

#include "PlacementInternal.hpp"

namespace gtw::policy {

namespace {

const DeviceIndex::Score NO_NODE{std::numeric_limits<double>::infinity(), 0.0};

}  // namespace

std::unique_ptr<DeviceIndex> DeviceIndex::build(const std::vector<GpuView>& gpus) {
  for (size_t i = 1; i < gpus.size(); ++i)
    if (gpus[i].node < gpus[i - 1].node) return nullptr;
  if (!gpus.empty() && gpus.front().node < 0) return nullptr;
  // A physical GPU's load is counted on its node (spread's tie-break): each must lie in one node.
  std::vector<int> node_of(gpus.size(), -1);
  for (const auto& g : gpus) {
    if (g.physical < 0 || static_cast<size_t>(g.physical) >= gpus.size()) return nullptr;
    int& node = node_of[static_cast<size_t>(g.physical)];
    if (node >= 0 && node != g.node) return nullptr;
    node = g.node;
  }
  auto index = std::unique_ptr<DeviceIndex>(new DeviceIndex());
  for (const auto& g : gpus) index->memories_.push_back(g.memory_total);
  std::sort(index->memories_.begin(), index->memories_.end());
  index->memories_.erase(std::unique(index->memories_.begin(), index->memories_.end()), index->memories_.end());
  if (!gpus.empty()) index->node_range_.assign(static_cast<size_t>(gpus.back().node) + 1, {0, 0});
  for (size_t i = 0; i < gpus.size();) {
    size_t j = i;
    while (j < gpus.size() && gpus[j].node == gpus[i].node) ++j;
    index->node_range_[static_cast<size_t>(gpus[i].node)] = {i, j};
    i = j;
  }
  return index;
}

std::span<const GpuView> DeviceIndex::node_devices(const std::vector<GpuView>& gpus, int node) const {
  const auto [first, last] = node_range_[static_cast<size_t>(node)];
  return std::span<const GpuView>(gpus.data() + first, last - first);
}

std::vector<const GpuView*> DeviceIndex::eligible_on(const std::vector<GpuView>& gpus, const PlacementRequest& request,
                                                     int node) const {
  std::vector<const GpuView*> out;
  for (const GpuView& g : node_devices(gpus, node))
    if (eligible(g, request)) out.push_back(&g);
  return out;
}

int DeviceIndex::physical_load(std::span<const GpuView> node, const GpuView& gpu) {
  int load = 0;
  for (const GpuView& g : node)
    if (g.physical == gpu.physical) load += g.used_slots;
  return load;
}

DeviceIndex::Score DeviceIndex::node_score(const std::vector<GpuView>& gpus, const Tree& tree, int node) const {
  const auto devices = node_devices(gpus, node);
  if (devices.empty()) return NO_NODE;
  const auto candidates = eligible_on(gpus, tree.request, node);
  return tree.score(devices, candidates);
}

void DeviceIndex::Tree::set(size_t node, Score value) {
  size_t at = leaves + node;
  min[at] = value;
  for (at /= 2; at >= 1; at /= 2) min[at] = std::min(min[2 * at], min[2 * at + 1]);
}

std::optional<int> DeviceIndex::Tree::leftmost_min() const {
  if (min[1].first == NO_NODE.first) return std::nullopt;
  size_t at = 1;
  while (at < leaves) at = min[2 * at] <= min[2 * at + 1] ? 2 * at : 2 * at + 1;
  return static_cast<int>(at - leaves);
}

double DeviceIndex::memory_class(double memory) const {
  const auto it = std::lower_bound(memories_.begin(), memories_.end(), memory);
  return it == memories_.end() ? std::numeric_limits<double>::infinity() : *it;
}

std::optional<int> DeviceIndex::best_node(const std::vector<GpuView>& gpus, const PlacementRequest& request,
                                          const Ranking& ranking, const NodeScore& score) const {
  std::vector<int> sharing;
  for (SharingMode m : request.allowed_sharing) sharing.push_back(static_cast<int>(m));
  Key key{ranking.policy,      ranking.gpus,      ranking.variant,
          ranking.subject,     request.node_pool, std::move(sharing),
          request.mig_profile, request.resource,  ranking.reads_memory ? request.memory : memory_class(request.memory)};
  auto it = trees_.find(key);
  if (it == trees_.end()) {
    if (trees_.size() >= MAX_RANKINGS)
      trees_.erase(std::min_element(trees_.begin(), trees_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      }));
    Tree tree;
    tree.request = request;
    tree.score = score;
    while (tree.leaves < node_range_.size()) tree.leaves *= 2;
    tree.min.assign(2 * tree.leaves, NO_NODE);
    for (size_t node = 0; node < node_range_.size(); ++node)
      tree.min[tree.leaves + node] = node_score(gpus, tree, static_cast<int>(node));
    for (size_t at = tree.leaves - 1; at >= 1; --at) tree.min[at] = std::min(tree.min[2 * at], tree.min[2 * at + 1]);
    it = trees_.emplace(std::move(key), std::move(tree)).first;
  }
  it->second.last_use = ++uses_;
  return it->second.leftmost_min();
}

void DeviceIndex::changed(const std::vector<GpuView>& gpus, size_t g) {
  // A memory size not seen at build time would split an interval the rankings were keyed by: start them again.
  if (!std::binary_search(memories_.begin(), memories_.end(), gpus[g].memory_total)) {
    memories_.insert(std::lower_bound(memories_.begin(), memories_.end(), gpus[g].memory_total), gpus[g].memory_total);
    trees_.clear();
    return;
  }
  const int node = gpus[g].node;
  for (auto& [key, tree] : trees_) tree.set(static_cast<size_t>(node), node_score(gpus, tree, node));
}

// ---- ClusterView's side

DeviceIndexSlot::DeviceIndexSlot() = default;
DeviceIndexSlot::~DeviceIndexSlot() = default;
DeviceIndexSlot::DeviceIndexSlot(const DeviceIndexSlot&) noexcept {}
DeviceIndexSlot& DeviceIndexSlot::operator=(const DeviceIndexSlot& other) noexcept {
  if (this != &other) index.reset();
  return *this;
}
DeviceIndexSlot::DeviceIndexSlot(DeviceIndexSlot&&) noexcept = default;
DeviceIndexSlot& DeviceIndexSlot::operator=(DeviceIndexSlot&&) noexcept = default;

bool ClusterView::build_index() {
  index_slot.index = DeviceIndex::build(gpus);
  return index_slot.index != nullptr;
}

std::span<const GpuView> ClusterView::node_or_all(int node) const {
  if (const auto* index = index_slot.index.get(); index && index->has_node(node))
    return index->node_devices(gpus, node);
  return std::span<const GpuView>(gpus);
}

void ClusterView::changed(size_t g) {
  if (index_slot.index) index_slot.index->changed(gpus, g);
}

}  // namespace gtw::policy
