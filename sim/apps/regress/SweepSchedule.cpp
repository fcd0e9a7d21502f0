#include "SweepSchedule.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace gtw::regress {

namespace {

double slowdown_of(const ScheduleModel& model, int rank) {
  const auto r = static_cast<size_t>(rank);
  return r < model.rank_slowdown.size() ? model.rank_slowdown[r] : 1.0;
}

}  // namespace

double ScheduleOutcome::utilisation(const ScheduleModel& model) const {
  const double capacity = makespan * model.ranks * model.slots;
  return capacity > 0 ? total_work / capacity : 1.0;
}

ScheduleOutcome simulate_sweep_schedule(const std::vector<size_t>& order, const std::vector<double>& seconds,
                                        const ScheduleModel& model) {
  if (model.ranks < 1 || model.slots < 1) throw std::invalid_argument("a schedule needs at least one rank and slot");
  // Claims exist only where ranks share the queue; one process, or the split by id, takes its points directly.
  const double claim = model.distribution == SweepDistribution::CLAIMS && model.ranks > 1 ? model.claim_seconds : 0.0;
  // Free slots in a min-heap by (free at, rank, slot): one queue for all ranks, or one per rank for the split.
  using Slot = std::tuple<double, int, int>;
  using Heap = std::priority_queue<Slot, std::vector<Slot>, std::greater<>>;
  const bool shared = model.distribution == SweepDistribution::CLAIMS;
  std::vector<Heap> heaps(shared ? 1 : static_cast<size_t>(model.ranks));
  for (int r = 0; r < model.ranks; ++r)
    for (int j = 0; j < model.slots; ++j) heaps[shared ? 0 : static_cast<size_t>(r)].push({0.0, r, j});
  ScheduleOutcome out;
  double longest = 0, fastest = slowdown_of(model, 0), capacity = 0;
  for (int r = 0; r < model.ranks; ++r) {
    fastest = std::min(fastest, slowdown_of(model, r));
    capacity += model.slots / slowdown_of(model, r);
  }
  for (const size_t id : order) {
    const double cost = seconds.at(id);
    out.total_work += cost;
    longest = std::max(longest, cost);
    Heap& heap = heaps[shared ? 0 : id % static_cast<size_t>(model.ranks)];
    auto [free_at, rank, slot] = heap.top();
    heap.pop();
    free_at += claim + cost * slowdown_of(model, rank);
    out.makespan = std::max(out.makespan, free_at);
    heap.push({free_at, rank, slot});
  }
  // Pigeonhole: of the k x slots + 1 longest points, some slot runs k + 1, each at least as long as the
  // shortest of them. With few points per slot this is tighter than work / capacity.
  std::vector<double> sorted;
  for (const size_t id : order) sorted.push_back(seconds.at(id));
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const size_t all_slots = static_cast<size_t>(model.ranks) * static_cast<size_t>(model.slots);
  double pigeonhole = 0;
  for (size_t k = 1; k * all_slots < sorted.size(); ++k)
    pigeonhole = std::max(pigeonhole, static_cast<double>(k + 1) * sorted[k * all_slots]);
  out.lower_bound = std::max({out.total_work / capacity, longest * fastest, pigeonhole * fastest});
  return out;
}

}  // namespace gtw::regress
