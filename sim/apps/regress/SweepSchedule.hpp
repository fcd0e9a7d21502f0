#pragma once
// How a sweep's points spread over ranks and their slots, replayed without running them: the planner behind
// `gputwin sweep --plan` (how many ranks to ask a cluster for) and the model of the 64-rank measurements of
// docs/PERFORMANCE.md. A rank is one `gputwin sweep` process (an MPI rank, a Slurm task) running `slots`
// points at once; a point is one child `gputwin run` whose cost is given.
#include <cstddef>
#include <string>
#include <vector>

namespace gtw::regress {

enum class SweepDistribution {
  STATIC_BY_ID,  // rank r runs the points whose id modulo the ranks is r, in the given order (the split before claims)
  CLAIMS,        // a free slot of any rank claims the next unclaimed point of the given order (the shared queue)
};

struct ScheduleModel {
  int ranks = 1;
  int slots = 1;  // points a rank runs at once (-j)
  SweepDistribution distribution = SweepDistribution::CLAIMS;
  std::vector<double> rank_slowdown;  // a point's cost on rank r is cost x rank_slowdown[r]; missing ranks: 1
  double claim_seconds = 0;           // per point: the claim's round trip to the shared folder
};

struct ScheduleOutcome {
  double makespan = 0;
  double total_work = 0;   // sum of the points' costs on a rank of speed 1
  double lower_bound = 0;  // no schedule ends earlier: the largest of work / capacity, the longest point and the
                           // pigeonhole bound (k + 1 points on one slot), on the fastest rank
  double efficiency() const { return makespan > 0 ? lower_bound / makespan : 1.0; }
  /// The share of all slot time spent running points (what a cluster's accounting calls efficiency).
  double utilisation(const ScheduleModel& model) const;
};

/// Replays the schedule: `order` is the order points are taken in (each rank keeps it for its own points
/// under STATIC_BY_ID), `seconds[id]` the cost of point `id` on a rank of speed 1. Greedy list scheduling:
/// the earliest free slot (ties: lower rank, then lower slot) takes the next point it may run.
ScheduleOutcome simulate_sweep_schedule(const std::vector<size_t>& order, const std::vector<double>& seconds,
                                        const ScheduleModel& model);

}  // namespace gtw::regress
