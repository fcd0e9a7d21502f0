#include "SweepSchedule.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <tuple>

namespace gtw::regress {

namespace {

struct Slot {
  double free_at = 0;
  int rank = 0;
  int index = 0;
};

double slowdown_of(const ScheduleModel& model, int rank) {
  const auto r = static_cast<size_t>(rank);
  return r < model.rank_slowdown.size() ? model.rank_slowdown[r] : 1.0;
}

// The earliest free slot among those `eligible` accepts; ties by rank, then slot (deterministic).
Slot* earliest_slot(std::vector<Slot>& slots, const auto& eligible) {
  Slot* best = nullptr;
  for (auto& s : slots) {
    if (!eligible(s)) continue;
    if (!best || std::tie(s.free_at, s.rank, s.index) < std::tie(best->free_at, best->rank, best->index)) best = &s;
  }
  return best;
}

}  // namespace

const char* distribution_name(SweepDistribution distribution) {
  return distribution == SweepDistribution::STATIC_BY_ID ? "static by id" : "claims";
}

double ScheduleOutcome::utilisation(const ScheduleModel& model) const {
  const double capacity = makespan * model.ranks * model.slots;
  return capacity > 0 ? total_work / capacity : 1.0;
}

ScheduleOutcome simulate_sweep_schedule(const std::vector<size_t>& order, const std::vector<double>& seconds,
                                        const ScheduleModel& model) {
  if (model.ranks < 1 || model.slots < 1) throw std::invalid_argument("a schedule needs at least one rank and slot");
  std::vector<Slot> slots;
  for (int r = 0; r < model.ranks; ++r)
    for (int j = 0; j < model.slots; ++j) slots.push_back({0.0, r, j});
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
    const int owner = static_cast<int>(id % static_cast<size_t>(model.ranks));
    Slot* slot = earliest_slot(
        slots, [&](const Slot& s) { return model.distribution == SweepDistribution::CLAIMS || s.rank == owner; });
    slot->free_at += model.claim_seconds + cost * slowdown_of(model, slot->rank);
    out.makespan = std::max(out.makespan, slot->free_at);
  }
  // Pigeonhole: of the k x slots + 1 longest points, some slot runs k + 1, each at least as long as the
  // shortest of them. With few points per slot this is tighter than work / capacity.
  std::vector<double> sorted;
  for (const size_t id : order) sorted.push_back(seconds.at(id));
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const size_t all_slots = slots.size();
  double pigeonhole = 0;
  for (size_t k = 1; k * all_slots < sorted.size(); ++k)
    pigeonhole = std::max(pigeonhole, static_cast<double>(k + 1) * sorted[k * all_slots]);
  out.lower_bound = std::max({out.total_work / capacity, longest * fastest, pigeonhole * fastest});
  return out;
}

}  // namespace gtw::regress
