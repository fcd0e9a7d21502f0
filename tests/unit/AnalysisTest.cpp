// SLO evaluation and attribution on hand-built event logs (no engine).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "Analysis.hpp"

namespace gtw {
namespace {

ScenarioSpec two_tenant_spec() {
  ScenarioSpec s;
  s.duration = Seconds(100);
  s.sla_window = Seconds(10);
  s.tenants.resize(2);
  s.tenants[0].name = "victim";
  s.tenants[1].name = "noisy";
  SloSpec slo;
  slo.name = "p90";
  slo.kind = SloKind::LATENCY;
  slo.percentile = 90;
  slo.threshold = Seconds(1.0);
  slo.window = Seconds(10);
  slo.target = 0.8;
  s.tenants[0].slos.push_back(slo);
  WorkloadSpec w;
  w.name = "svc";
  w.kind = WorkloadKind::INFERENCE;
  w.tenant = "victim";
  w.tenant_index = 0;
  s.workloads.push_back(w);
  return s;
}

RunResult run_with(const std::function<void(EventLog&)>& fill) {
  RunResult r;
  GpuLayout g;
  g.index = 0;
  g.sharing = SharingMode::TIME_SLICING;
  g.slots = 2;
  r.gpus.push_back(g);
  r.log.append({0, 0, EventType::PLACED, 0, 0, 0, 0, 0, 0});
  fill(r.log);
  r.end_time = 120;
  return r;
}

TEST(Percentile, NearestRank) {
  std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(percentile_sorted(v, 50), 5);
  EXPECT_EQ(percentile_sorted(v, 90), 9);
  EXPECT_EQ(percentile_sorted(v, 99), 10);
  EXPECT_EQ(percentile_sorted(v, 100), 10);
  EXPECT_EQ(percentile_sorted({}, 99), 0);
}

// An SLO's windows are read back from the analysis' paged table in order, by position and last, whether they stayed
// in memory or went to the spill file in pages of 3; an SLO without windows is empty.
TEST(SloWindows, ReadBackInOrderFromMemoryOrPages) {
  for (const SpillBudget budget : {SpillBudget{SIZE_MAX, 256}, SpillBudget{0, 3}}) {
    auto table = std::make_shared<SloWindows::Table>(2, budget, "gputwin-test");
    for (int k = 0; k < 10; ++k) table->add(1, {60.0 * k, 0.5 * k, static_cast<uint8_t>(k % 3 == 0)});
    const SloWindows none(table, 0), ten(table, 1);
    EXPECT_TRUE(none.empty());
    EXPECT_FALSE(none.begin() != none.end());
    ASSERT_EQ(ten.size(), 10u);
    int k = 0;
    for (const SloWindow& w : ten) {
      EXPECT_EQ(w.start, 60.0 * k);
      EXPECT_EQ(w.value, 0.5 * k);
      EXPECT_EQ(w.violated, k % 3 == 0);
      ++k;
    }
    EXPECT_EQ(k, 10);
    EXPECT_EQ(ten[4].start, 240.0);
    EXPECT_EQ(ten.back().value, 4.5);
    EXPECT_TRUE(ten.back().violated);
  }
  const SloWindows held = SloWindows::hold({{0, 1, false}, {60, 2, true}});
  ASSERT_EQ(held.size(), 2u);
  EXPECT_TRUE(held[1].violated);
  EXPECT_TRUE(SloWindows().empty());
  EXPECT_THROW((void)SloWindows().back(), std::out_of_range) << "an SLO without windows has no last one";
  EXPECT_THROW((void)held[2], std::out_of_range);
}

TEST(Analysis, LatencyWindowsViolationsBudgetAndAttribution) {
  const auto spec = two_tenant_spec();
  // Windows 0..9 of 10 s. In each window 10 requests of 0.5 s, except windows 3 and 7 where 2 of
  // the 10 take 3 s (p90 = 3 s > 1 s: violated). The noisy tenant holds GPU 0 during [30, 40).
  auto run = run_with([](EventLog& log) {
    // The busy interval of the noisy tenant during window 3: [30, 40) (logged before the requests: the
    // analysis does not need the log in time order).
    log.append({40, 0, EventType::GPU_BUSY, 1, -1, 0, 0, 0, 30.0});
    for (int w = 0; w < 10; ++w)
      for (int k = 0; k < 10; ++k) {
        const double arrival = w * 10 + k * 0.5;
        const bool slow = (w == 3 || w == 7) && k < 2;
        const double latency = slow ? 3.0 : 0.5;
        log.append({arrival + latency, 0, EventType::REQUEST_DONE, 0, 0, 0, 0, latency, 0.1});
      }
  });
  const auto a = analyse(spec, run);
  ASSERT_EQ(a.slos.size(), 1u);
  const auto& s = a.slos[0];
  EXPECT_EQ(s.evaluated, 10u);
  EXPECT_EQ(s.violated, 2u);
  EXPECT_DOUBLE_EQ(s.compliance, 0.8);
  EXPECT_TRUE(s.met) << "target 0.8 allows two bad windows";
  EXPECT_DOUBLE_EQ(s.error_budget_burn, 1.0);
  EXPECT_DOUBLE_EQ(s.worst, 3.0);
  EXPECT_DOUBLE_EQ(s.violation_minutes, 20.0 / 60.0);
  // Slow requests of window 3 overlap the noisy tenant's busy interval; those of window 7 see no
  // busy interval at all: all attributed GPU time is the noisy tenant's.
  ASSERT_EQ(s.attribution.size(), 1u);
  EXPECT_EQ(s.attribution[0].who, "noisy");
  EXPECT_DOUBLE_EQ(s.attribution[0].share, 1.0);
  EXPECT_DOUBLE_EQ(a.workloads[0].latency.p50, 0.5);
  EXPECT_EQ(a.workloads[0].requests_completed, 100u);
  EXPECT_NEAR(a.gpus[0].utilisation, 0.1, 1e-12);
  const std::vector<double> windows = a.utilisation_windows_of(0);
  ASSERT_GE(windows.size(), 5u);
  EXPECT_NEAR(windows[3], 1.0, 1e-12);
  EXPECT_NEAR(windows[4], 0.0, 1e-12);
}

// The folded log (the default) and the detailed one (--trace detailed) of the same slices give the same analysis:
// a GPU_SLICE is the CONTEXT_SWITCH that ended at its start and the GPU_BUSY of its interval; a switch whose slice
// was still open when the run ended is a CONTEXT_SWITCH logged then, with the time it ended.
TEST(Analysis, AFoldedSliceIsItsSwitchAndItsBusyInterval) {
  const auto spec = two_tenant_spec();
  const auto requests = [](EventLog& log) {
    for (int w = 0; w < 10; ++w)
      for (int k = 0; k < 10; ++k) {
        const double arrival = w * 10 + k * 0.5;
        const double latency = w == 3 && k < 2 ? 3.0 : 0.5;
        log.append({arrival + latency, 0, EventType::REQUEST_DONE, 0, 0, 0, 0, latency, 0.1});
      }
  };
  auto detailed = run_with([&](EventLog& log) {
    log.append({30.2, 0, EventType::CONTEXT_SWITCH, 1, -1, 0, 0, 0.2, 30.2});
    log.append({31, 0, EventType::GPU_BUSY, 1, -1, 0, 0, 0, 30.2});
    log.append({31.5, 0, EventType::CONTEXT_SWITCH, 0, 0, 0, 0, 0.5, 31.5});
    log.append({32.5, 0, EventType::GPU_BUSY, 0, 0, 0, 0, 0, 31.5});
    log.append({33, 0, EventType::CONTEXT_SWITCH, 1, -1, 0, 0, 0.5, 33});
    requests(log);
  });
  auto folded = run_with([&](EventLog& log) {
    log.append({31, 0, EventType::GPU_SLICE, 1, -1, 0, 0, 0.2, 30.2});
    log.append({32.5, 0, EventType::GPU_SLICE, 0, 0, 0, 0, 0.5, 31.5});
    requests(log);
    log.append({100, 0, EventType::CONTEXT_SWITCH, 1, -1, 0, 0, 0.5, 33});  // its slice open at the end
  });
  const auto a = analyse(spec, detailed), b = analyse(spec, folded);
  EXPECT_EQ(a.gpus[0].context_switches, 3u);
  EXPECT_DOUBLE_EQ(a.gpus[0].switch_seconds, 1.2);
  EXPECT_EQ(b.gpus[0].context_switches, a.gpus[0].context_switches);
  EXPECT_EQ(b.gpus[0].switch_seconds, a.gpus[0].switch_seconds);
  EXPECT_EQ(b.gpus[0].utilisation, a.gpus[0].utilisation);
  const auto& sa = a.slos.at(0);
  const auto& sb = b.slos.at(0);
  ASSERT_GE(sa.attribution.size(), 3u);  // victim, noisy and the switches share the slow requests' spans
  ASSERT_EQ(sb.attribution.size(), sa.attribution.size());
  for (size_t i = 0; i < sa.attribution.size(); ++i) {
    EXPECT_EQ(sb.attribution[i].who, sa.attribution[i].who);
    EXPECT_EQ(sb.attribution[i].share, sa.attribution[i].share);
  }
}

// Context switches of unequal cost on one GPU (the analysis stores a GPU's costs only once they differ): each
// switch keeps its own cost in the GPU's switch time and in the blame of the spans it overlaps.
TEST(Analysis, ContextSwitchesOfUnequalCostKeepEachCost) {
  const auto spec = two_tenant_spec();
  auto run = run_with([](EventLog& log) {
    log.append({31, 0, EventType::GPU_BUSY, 1, -1, 0, 0, 0, 30.0});           // noisy holds [30, 31)
    log.append({31.5, 0, EventType::CONTEXT_SWITCH, 0, 0, 0, 0, 0.5, 31.5});  // [31, 31.5]
    log.append({32, 0, EventType::CONTEXT_SWITCH, 1, -1, 0, 0, 0.5, 32});     // [31.5, 32]
    log.append({33.5, 0, EventType::CONTEXT_SWITCH, 0, 0, 0, 0, 1.5, 33.5});  // [32, 33.5]
    for (int w = 0; w < 10; ++w)
      for (int k = 0; k < 10; ++k) {
        const double arrival = w * 10 + k * 0.5;
        const double latency = (w == 3 || w == 7) && k < 2 ? 3.0 : 0.5;
        log.append({arrival + latency, 0, EventType::REQUEST_DONE, 0, 0, 0, 0, latency, 0.1});
      }
  });
  const auto a = analyse(spec, run);
  EXPECT_EQ(a.gpus[0].context_switches, 3u);
  EXPECT_DOUBLE_EQ(a.gpus[0].switch_seconds, 2.5);
  // The slow requests of window 3 live in [30, 33] and [30.5, 33.5]: busy 1 + 0.5 s (noisy), switches
  // 0.5 + 0.5 + 1.0 and 0.5 + 0.5 + 1.5 s: 4.5 of the 6 s shared out.
  const auto& s = a.slos.at(0);
  ASSERT_EQ(s.attribution.size(), 2u);
  EXPECT_EQ(s.attribution[0].who, "(context switches)");
  EXPECT_DOUBLE_EQ(s.attribution[0].share, 0.75);
  EXPECT_EQ(s.attribution[1].who, "noisy");
  EXPECT_DOUBLE_EQ(s.attribution[1].share, 0.25);
}

TEST(Analysis, DroppedRequestsCountAsUnboundedLatency) {
  auto spec = two_tenant_spec();
  spec.tenants[0].slos[0].target = 1.0;
  spec.tenants[0].slos[0].percentile = 99;  // 1 dropped in 10: the p99 (10th value) is unbounded
  auto run = run_with([](EventLog& log) {
    for (int k = 0; k < 9; ++k) log.append({k + 0.5, 0, EventType::REQUEST_DONE, 0, 0, 0, 0, 0.5, 0});
    log.append({101, 0, EventType::REQUEST_DROPPED, 0, 0, 0, 0, 96, 5.0});  // arrived at 5 s, never served
  });
  const auto a = analyse(spec, run);
  const auto& s = a.slos[0];
  EXPECT_EQ(s.evaluated, 1u);
  EXPECT_EQ(s.violated, 1u);
  EXPECT_TRUE(std::isinf(s.worst));
  EXPECT_FALSE(s.met);
  EXPECT_EQ(s.error_budget_burn, -1.0) << "a zero error budget cannot be burnt at a finite rate";
  EXPECT_EQ(a.workloads[0].requests_dropped, 1u);
}

TEST(Analysis, ThroughputAndJobSlos) {
  auto spec = two_tenant_spec();
  auto& slos = spec.tenants[0].slos;
  slos[0].kind = SloKind::THROUGHPUT;
  slos[0].min_rate = PerSecond(0.5);
  slos[0].target = 1.0;
  WorkloadSpec job;
  job.name = "train";
  job.kind = WorkloadKind::TRAINING;
  job.tenant = "noisy";
  job.tenant_index = 1;
  spec.workloads.push_back(job);
  SloSpec slowdown;
  slowdown.name = "sd";
  slowdown.kind = SloKind::SLOWDOWN;
  slowdown.max_slowdown = 1.5;
  spec.tenants[1].slos.push_back(slowdown);
  auto run = run_with([](EventLog& log) {
    for (int k = 0; k < 90; ++k) log.append({k + 0.5, 0, EventType::REQUEST_DONE, 0, 0, 0, 0, 0.1, 0});
    log.append({95, 0, EventType::JOB_DONE, 1, 1, 0, 0, 80.0, 40.0});  // 2x slower than alone
  });
  const auto a = analyse(spec, run);
  ASSERT_EQ(a.slos.size(), 2u);
  EXPECT_EQ(a.slos[0].violated, 1u) << "the last window (90-100 s) completes nothing";
  EXPECT_FALSE(a.slos[0].met);
  EXPECT_EQ(a.slos[1].evaluated, 1u);
  EXPECT_DOUBLE_EQ(a.slos[1].worst, 2.0);
  EXPECT_FALSE(a.slos[1].met);
  EXPECT_DOUBLE_EQ(a.workloads[1].mean_slowdown, 2.0);
  EXPECT_EQ(a.tenants[1].slos_missed, 1u);
  EXPECT_EQ(a.slos_missed, 2u);
}

}  // namespace
}  // namespace gtw
