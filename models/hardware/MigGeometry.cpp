#include "MigGeometry.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "Diagnostics.hpp"

namespace gtw {

const MigProfile* MigGeometry::find(const std::string& name) const {
  for (const auto& p : profiles)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> MigGeometry::names() const {
  std::vector<std::string> out;
  for (const auto& p : profiles) out.push_back(p.name);
  return out;
}

namespace {

// Depth-first search over placements, largest instances first (they have the fewest choices).
bool place(const std::vector<const MigProfile*>& order, size_t k, std::vector<bool>& used, std::vector<int>& starts) {
  if (k == order.size()) return true;
  const MigProfile& p = *order[k];
  for (int start : p.placements) {
    if (start < 0 || start + p.memory_slices > static_cast<int>(used.size())) continue;
    bool free = true;
    for (int s = start; s < start + p.memory_slices; ++s) free = free && !used[static_cast<size_t>(s)];
    if (!free) continue;
    for (int s = start; s < start + p.memory_slices; ++s) used[static_cast<size_t>(s)] = true;
    starts[k] = start;
    if (place(order, k + 1, used, starts)) return true;
    for (int s = start; s < start + p.memory_slices; ++s) used[static_cast<size_t>(s)] = false;
  }
  return false;
}

}  // namespace

MigLayoutCheck check_mig_layout(const MigGeometry& g, const std::vector<std::string>& layout) {
  MigLayoutCheck out;
  if (layout.empty()) {
    out.reason = "a MIG layout needs at least one instance";
    return out;
  }
  std::vector<const MigProfile*> profiles;
  std::map<std::string, int> counts;
  int compute = 0, media_extensions = 0;
  for (const auto& name : layout) {
    const MigProfile* p = g.find(name);
    if (!p) {
      out.reason = "unknown MIG profile '" + name + "'" + suggest(name, g.names());
      return out;
    }
    profiles.push_back(p);
    compute += p->compute_slices;
    if (name.find("+me") != std::string::npos) ++media_extensions;
    if (++counts[name] > p->max_instances) {
      out.reason = "at most " + std::to_string(p->max_instances) + " instance(s) of " + name + " fit on this GPU";
      return out;
    }
  }
  if (media_extensions > 1) {
    out.reason = "at most one +me (media extension) instance per GPU";
    return out;
  }
  if (compute > g.compute_slices) {
    out.reason = "the layout needs " + std::to_string(compute) + " compute slices; the GPU has " +
                 std::to_string(g.compute_slices);
    return out;
  }
  std::vector<size_t> order(profiles.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return profiles[a]->memory_slices > profiles[b]->memory_slices ||
           (profiles[a]->memory_slices == profiles[b]->memory_slices &&
            profiles[a]->placements.size() < profiles[b]->placements.size());
  });
  std::vector<const MigProfile*> sorted;
  for (size_t i : order) sorted.push_back(profiles[i]);
  std::vector<bool> used(static_cast<size_t>(g.memory_slices), false);
  std::vector<int> starts(sorted.size(), -1);
  if (!place(sorted, 0, used, starts)) {
    std::string listing;
    for (const auto* p : sorted) {
      listing += (listing.empty() ? "" : ", ") + p->name + " at {";
      for (size_t i = 0; i < p->placements.size(); ++i) listing += (i ? "," : "") + std::to_string(p->placements[i]);
      listing += "}:" + std::to_string(p->memory_slices);
    }
    out.reason = "no placement of the instances fits the GPU's " + std::to_string(g.memory_slices) +
                 " memory slices without overlap (" + listing + ")";
    return out;
  }
  out.placements.resize(layout.size());
  for (size_t k = 0; k < order.size(); ++k)
    out.placements[order[k]] = {sorted[k]->name, starts[k], sorted[k]->memory_slices};
  out.feasible = true;
  return out;
}

}  // namespace gtw
