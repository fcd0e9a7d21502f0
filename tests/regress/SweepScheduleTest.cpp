// The sweep schedule model (SweepSchedule.hpp): list scheduling by hand-computed cases, the lower bounds, and
// what the shared queue buys over the split by id when point costs are unequal or a rank is slow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "SweepSchedule.hpp"

namespace gtw::regress {
namespace {

std::vector<size_t> iota_ids(size_t n) {
  std::vector<size_t> ids(n);
  std::iota(ids.begin(), ids.end(), size_t{0});
  return ids;
}

ScheduleModel model_of(int ranks, int slots, SweepDistribution d) {
  ScheduleModel m;
  m.ranks = ranks;
  m.slots = slots;
  m.distribution = d;
  return m;
}

// Costs 5, 4, 3, 3, 1 on 2 ranks. Split by id: rank 0 gets ids 0, 2, 4 (5 + 3 + 1 = 9), rank 1 ids 1, 3
// (4 + 3 = 7). Claims in this order: 5 | 4, then 3 on rank 1 (free at 4), 3 on rank 0 (free at 5), 1 on
// rank 1 (free at 7): makespan 8 = the optimum (16 / 2).
TEST(SweepSchedule, ListSchedulingByHand) {
  const std::vector<double> cost{5, 4, 3, 3, 1};
  const auto ids = iota_ids(cost.size());
  const auto split = simulate_sweep_schedule(ids, cost, model_of(2, 1, SweepDistribution::STATIC_BY_ID));
  EXPECT_DOUBLE_EQ(split.makespan, 9);
  const auto claims = simulate_sweep_schedule(ids, cost, model_of(2, 1, SweepDistribution::CLAIMS));
  EXPECT_DOUBLE_EQ(claims.makespan, 8);
  EXPECT_DOUBLE_EQ(claims.total_work, 16);
  EXPECT_DOUBLE_EQ(claims.lower_bound, 8);
  EXPECT_DOUBLE_EQ(claims.efficiency(), 1);
  EXPECT_NEAR(split.efficiency(), 8.0 / 9.0, 1e-12);
  // Two slots on one rank are two places to run, as two ranks are.
  EXPECT_DOUBLE_EQ(simulate_sweep_schedule(ids, cost, model_of(1, 2, SweepDistribution::CLAIMS)).makespan, 8);
  // Every claim's round trip is paid before its point.
  auto slow_claims = model_of(2, 1, SweepDistribution::CLAIMS);
  slow_claims.claim_seconds = 0.5;
  EXPECT_DOUBLE_EQ(simulate_sweep_schedule(ids, cost, slow_claims).makespan,
                   9.5);  // rank 1: 0.5 + 4, + 0.5 + 3, + 0.5 + 1
  // No claims where nothing is shared: one process, or the split by id.
  auto one = model_of(1, 1, SweepDistribution::CLAIMS);
  one.claim_seconds = 0.5;
  EXPECT_DOUBLE_EQ(simulate_sweep_schedule(ids, cost, one).makespan, 16);
  auto split_claims = model_of(2, 1, SweepDistribution::STATIC_BY_ID);
  split_claims.claim_seconds = 0.5;
  EXPECT_DOUBLE_EQ(simulate_sweep_schedule(ids, cost, split_claims).makespan, 9);
}

// The bounds: the longest point; work over capacity; and the pigeonhole bound, which is what holds with two
// points per slot (4 points of 10 on 3 slots: some slot runs two, 20, while work / capacity is 13.3).
TEST(SweepSchedule, LowerBoundsHoldAndThePigeonholeOneIsTight) {
  const std::vector<double> cost{10, 10, 10, 10};
  const auto r = simulate_sweep_schedule(iota_ids(4), cost, model_of(3, 1, SweepDistribution::CLAIMS));
  EXPECT_DOUBLE_EQ(r.lower_bound, 20);
  EXPECT_DOUBLE_EQ(r.makespan, 20);
  const auto one_long = simulate_sweep_schedule(iota_ids(3), {30, 1, 1}, model_of(4, 1, SweepDistribution::CLAIMS));
  EXPECT_DOUBLE_EQ(one_long.lower_bound, 30);
  EXPECT_NEAR(one_long.utilisation(model_of(4, 1, SweepDistribution::CLAIMS)), 32.0 / 120.0, 1e-12);
  // No schedule beats its bound, over many random cost sets, rank counts and both distributions.
  uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 33) / static_cast<double>(1ULL << 31);
  };
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = 1 + static_cast<size_t>(next() * 40);
    std::vector<double> c(n);
    for (auto& x : c) x = 0.1 + 10 * next() * next();
    for (const auto d : {SweepDistribution::STATIC_BY_ID, SweepDistribution::CLAIMS}) {
      auto m = model_of(1 + static_cast<int>(next() * 9), 1 + static_cast<int>(next() * 3), d);
      m.rank_slowdown.assign(static_cast<size_t>(m.ranks), 1.0);
      m.rank_slowdown.back() = 1 + 3 * next();
      const auto out = simulate_sweep_schedule(iota_ids(n), c, m);
      EXPECT_LE(out.lower_bound, out.makespan * (1 + 1e-12)) << "trial " << trial;
    }
  }
}

// 64 points of costs 1..16 (four of each, as a sweep of 16 durations x 4 seeds), longest first, on 8 ranks:
// the shared queue is within 3 % of the bound; a rank 2x slower costs the split by id half its efficiency
// (its share waits for it) and the queue almost nothing (it takes less).
TEST(SweepSchedule, TheSharedQueueAbsorbsUnequalCostsAndAStraggler) {
  std::vector<double> cost;
  for (int d = 1; d <= 16; ++d)
    for (int seed = 0; seed < 4; ++seed) cost.push_back(d);
  std::vector<size_t> longest_first = iota_ids(cost.size());
  std::sort(longest_first.begin(), longest_first.end(),
            [&](size_t a, size_t b) { return cost[a] != cost[b] ? cost[a] > cost[b] : a < b; });
  auto queue = model_of(8, 1, SweepDistribution::CLAIMS);
  auto split = model_of(8, 1, SweepDistribution::STATIC_BY_ID);
  EXPECT_GE(simulate_sweep_schedule(longest_first, cost, queue).efficiency(), 0.97);
  for (auto* m : {&queue, &split}) {
    m->rank_slowdown.assign(8, 1.0);
    m->rank_slowdown.back() = 2.0;
  }
  const auto q = simulate_sweep_schedule(longest_first, cost, queue);
  const auto s = simulate_sweep_schedule(longest_first, cost, split);
  EXPECT_GE(q.efficiency(), 0.9);
  EXPECT_LT(s.efficiency(), 0.6);
  EXPECT_LT(q.makespan, s.makespan);
}

}  // namespace
}  // namespace gtw::regress
