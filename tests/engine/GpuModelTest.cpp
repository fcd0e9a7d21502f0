// Model-level checks of the GPU and partition models against hand-computed results
// (validation-targets.md section 4): roofline, decoupled contention, time-slicing.
// Each test case runs in its own process (gtest_discover_tests), as SimGrid allows one engine.
#include <gtest/gtest.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <memory>

#include "GpuDevice.hpp"
#include "SimContext.hpp"

namespace gtw {
namespace {

namespace sg4 = simgrid::s4u;

// Conventions of the reference checks: P = 100 TFLOP/s, HBM = 2 TB/s.
// KC = 1e14 flop + 0.5e12 B (compute-bound, 1 s alone); KM = 1e13 flop + 2e12 B (memory-bound, 1 s).
constexpr double KC_F = 1e14, KC_B = 0.5e12, KM_F = 1e13, KM_B = 2e12;

HardwareProfile reference_profile(double context_switch, double l2_contention = 0) {
  HardwareProfile p;
  p.l2_contention = l2_contention;
  p.name = "reference";
  p.sms = 100;
  p.fp16_tensor = p.bf16_tensor = p.fp32 = FlopsPerSecond(100e12);
  p.fp8_tensor = FlopsPerSecond(200e12);
  p.compute_efficiency = 1.0;
  p.memory = Bytes(80e9);
  p.hbm_bandwidth = p.hbm_achievable = BytesPerSecond(2e12);
  p.context_switch = Seconds(context_switch);
  return p;
}

class GpuBench {
 public:
  explicit GpuBench(SharingMode mode, double context_switch = 0, double quantum = 0.002,
                    VgpuScheduler vgpu = VgpuScheduler::BEST_EFFORT, int replicas = 4, double l2_contention = 0,
                    bool fold_slices = true)
      : profile_(reference_profile(context_switch, l2_contention)) {
    ctx_.fold_slices = fold_slices;
    int argc = 1;
    char arg0[] = "gpu-model-test";
    char* argv[] = {arg0, nullptr};
    engine_ = std::make_unique<sg4::Engine>(&argc, argv);
    xbt_log_control_set("root.thresh:critical");
    auto* zone = sg4::create_full_zone("z");
    auto* sms = zone->create_host("gpu", profile_.fp16_tensor.value / profile_.sms)->set_core_count(profile_.sms);
    auto* hbm = zone->create_host("gpu-hbm", hbm_pstate_speeds(profile_));
    zone->seal();
    SharingSpec sharing;
    sharing.mode = mode;
    sharing.replicas =
        mode == SharingMode::TIME_SLICING || mode == SharingMode::MPS || mode == SharingMode::VGPU ? replicas : 1;
    sharing.vgpu_scheduler = vgpu;
    sharing.active_thread_percentage = mode == SharingMode::MPS ? 100.0 : -1;
    sharing.time_slice = Seconds(quantum);
    gpu_ = std::make_unique<GpuDevice>(0, 0, 0, sms, hbm, profile_, sharing, ctx_);
    gpu_->start();
  }
  GpuDevice& gpu() { return *gpu_; }
  const EventLog& log() const { return log_; }
  const RunCounters& counters() const { return ctx_.counters; }
  void run() { engine_->run(); }
  size_t count(EventType t) const {
    size_t n = 0;
    for (const auto& e : log_.events()) n += e.type == t;
    return n;
  }

 private:
  HardwareProfile profile_;
  ScenarioSpec spec_;
  EventLog log_;
  SimContext ctx_{spec_, log_, {}, 0, 0, false};
  std::unique_ptr<sg4::Engine> engine_;
  std::unique_ptr<GpuDevice> gpu_;
};

TEST(GpuModel, LoneKernelsFollowTheRoofline) {
  GpuBench bench(SharingMode::EXCLUSIVE);
  double kc_end = -1, km_end = -1;
  const int ctx = bench.gpu().add_context(0, 0, 0);
  sg4::Actor::create("w", bench.gpu().host(), [&] {
    bench.gpu().run(ctx, KC_F, KC_B);
    kc_end = sg4::Engine::get_clock();
    bench.gpu().run(ctx, KM_F, KM_B);
    km_end = sg4::Engine::get_clock();
  });
  bench.run();
  EXPECT_NEAR(kc_end, 1.0, 1e-9);  // max(1e14/1e14, 0.5e12/2e12)
  EXPECT_NEAR(km_end, 2.0, 1e-9);  // + max(0.1, 1.0)
}

// A kernel grid of 20 SMs (docs/models/gpu.md, "Kernel grids"): alone, 1e13 FLOP on 20 of the 100 SMs take
// 1e13 / (20 x 1e12) = 0.5 s. Under MPS next to a whole-GPU kernel of 1e14 FLOP, SimGrid shares the SMs in
// proportion to the threads: the grid gets 100 x 20 / 120 = 16.7 SMs (ends at 1e13 / 16.7e12 = 0.6 s) and the
// whole-GPU kernel the other 83.3 until then (5e13 FLOP), then all 100 (ends at 0.6 + 0.5 = 1.1 s). Without a
// grid the two split the SMs evenly and the small kernel ends at 1e13 / 50e12 = 0.2 s.
TEST(GpuModel, AKernelGridOccupiesItsSmsAloneAndNextToAWholeGpuKernel) {
  GpuBench bench(SharingMode::MPS, 0, 0.002, VgpuScheduler::BEST_EFFORT, 2);
  double alone = -1, small_end = -1, whole_end = -1, even_small_end = -1;
  const int a = bench.gpu().add_context(0, 0, 0), b = bench.gpu().add_context(1, 1, 0);
  sg4::Actor::create("small", bench.gpu().host(), [&] {
    bench.gpu().run(b, 1e13, 0, 20);
    alone = sg4::Engine::get_clock();
    sg4::this_actor::sleep_until(10);
    bench.gpu().run(b, 1e13, 0, 20);
    small_end = sg4::Engine::get_clock() - 10;
    sg4::this_actor::sleep_until(20);
    bench.gpu().run(b, 1e13, 0);
    even_small_end = sg4::Engine::get_clock() - 20;
  });
  sg4::Actor::create("whole", bench.gpu().host(), [&] {
    sg4::this_actor::sleep_until(10);
    bench.gpu().run(a, 1e14, 0);
    whole_end = sg4::Engine::get_clock() - 10;
    sg4::this_actor::sleep_until(20);
    bench.gpu().run(a, 1e14, 0);
  });
  bench.run();
  EXPECT_NEAR(alone, 0.5, 1e-9);
  EXPECT_NEAR(small_end, 0.6, 1e-9);
  EXPECT_NEAR(whole_end, 1.1, 1e-9);
  EXPECT_NEAR(even_small_end, 0.2, 1e-9);
}

TEST(GpuModel, DecoupledRooflineSharesComputeAndMemorySeparately) {
  GpuBench bench(SharingMode::EXCLUSIVE);
  double kc_end = -1, km_end = -1;
  const int ctx = bench.gpu().add_context(0, 0, 0);
  sg4::Actor::create("w", bench.gpu().host(), [&] {
    auto kc = bench.gpu().launch(ctx, KC_F, KC_B);
    auto km = bench.gpu().launch(ctx, KM_F, KM_B);
    bench.gpu().wait(kc);
    kc_end = sg4::Engine::get_clock();
    bench.gpu().wait(km);
    km_end = sg4::Engine::get_clock();
  });
  bench.run();
  // validation-targets.md section 4: KC 1.100000 s, KM 1.250000 s.
  EXPECT_NEAR(kc_end, 1.1, 1e-9);
  EXPECT_NEAR(km_end, 1.25, 1e-9);
}

TEST(GpuModel, TimeSlicingGivesEqualSharesWithoutSwitchCost) {
  GpuBench bench(SharingMode::TIME_SLICING, 0.0);
  double end[2] = {-1, -1};
  for (int t = 0; t < 2; ++t) {
    const int ctx = bench.gpu().add_context(t, t, 0);
    sg4::Actor::create("w" + std::to_string(t), bench.gpu().host(), [&, t, ctx] {
      bench.gpu().run(ctx, 1e14, 0);
      end[t] = sg4::Engine::get_clock();
    });
  }
  bench.run();
  // Two tenants x 1e14 flop on 100 TF/s, round-robin 2 ms quanta: the last ends at 2.0 s, the
  // first one quantum earlier at most.
  EXPECT_NEAR(std::max(end[0], end[1]), 2.0, 1e-9);
  EXPECT_GE(std::min(end[0], end[1]), 2.0 - 0.002 - 1e-9);
}

TEST(GpuModel, TimeSlicingChargesEveryContextSwitch) {
  const double cost = 50e-6;
  GpuBench bench(SharingMode::TIME_SLICING, cost);
  double end[2] = {-1, -1};
  for (int t = 0; t < 2; ++t) {
    const int ctx = bench.gpu().add_context(t, t, 0);
    sg4::Actor::create("w" + std::to_string(t), bench.gpu().host(), [&, t, ctx] {
      bench.gpu().run(ctx, 1e14, 1e12);  // 1 s compute, 0.5 s memory alone
      end[t] = sg4::Engine::get_clock();
    });
  }
  bench.run();
  size_t paid = 0, switches = 0;
  for (const auto& e : bench.log().events()) {
    if (!payload::context_switch(e)) continue;
    ++switches;
    if (payload::switch_cost(e) > 0) ++paid;
  }
  // 2 s of work in 2 ms quanta: about 1000 slices, each change of context costs 50 us.
  EXPECT_NEAR(static_cast<double>(paid), 999, 2);
  EXPECT_NEAR(std::max(end[0], end[1]), 2.0 + static_cast<double>(paid) * cost, 1e-9);
  // The folded log: each switch is in the slice it opened (GPU_SLICE), and every switch is in the log once.
  EXPECT_EQ(switches, bench.counters().context_switches);
  EXPECT_EQ(bench.count(EventType::CONTEXT_SWITCH), 0u);
  EXPECT_EQ(bench.count(EventType::GPU_SLICE), switches);
  EXPECT_EQ(bench.count(EventType::GPU_BUSY), 0u) << "contended from start to end: every slice began with a switch";
}

// The folded log and the detailed one (--trace detailed) hold the same slices and switches: a GPU_SLICE is a
// CONTEXT_SWITCH at its start time with its cost, and a GPU_BUSY over its interval.
TEST(GpuModel, TimeSlicingDetailedLogSplitsEachSliceFromItsSwitch) {
  const double cost = 50e-6;
  GpuBench bench(SharingMode::TIME_SLICING, cost, 0.002, VgpuScheduler::BEST_EFFORT, 4, 0, /*fold_slices=*/false);
  for (int t = 0; t < 2; ++t) {
    const int ctx = bench.gpu().add_context(t, t, 0);
    sg4::Actor::create("w" + std::to_string(t), bench.gpu().host(), [&, ctx] { bench.gpu().run(ctx, 1e13, 0); });
  }
  bench.run();
  EXPECT_EQ(bench.count(EventType::GPU_SLICE), 0u);
  EXPECT_EQ(bench.count(EventType::CONTEXT_SWITCH), bench.counters().context_switches);
  EXPECT_NEAR(static_cast<double>(bench.count(EventType::GPU_BUSY)), 100, 2);  // 0.2 s of work in 2 ms quanta
  // Each switch is logged when it ends, the slice it opened begins then.
  const auto& events = bench.log().events();
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].type != EventType::CONTEXT_SWITCH) continue;
    EXPECT_EQ(payload::switch_time(events[i]), events[i].time);
    for (size_t j = i + 1; j < events.size(); ++j) {
      if (events[j].type != EventType::GPU_BUSY) continue;
      EXPECT_EQ(payload::start_time(events[j]), events[i].time);
      EXPECT_EQ(events[j].tenant, events[i].tenant);
      break;
    }
  }
}

TEST(GpuModel, TimeSlicingRequestWaitsForTheNeighboursQuantum) {
  const double cost = 50e-6;
  GpuBench bench(SharingMode::TIME_SLICING, cost);
  double short_end = -1;
  const int a = bench.gpu().add_context(0, 0, 0);
  const int b = bench.gpu().add_context(1, 1, 0);
  sg4::Actor::create("long", bench.gpu().host(), [&] { bench.gpu().run(a, 1e14, 0); });
  sg4::Actor::create("short", bench.gpu().host(), [&] {
    sg4::this_actor::sleep_until(0.0005);
    bench.gpu().run(b, 1e11, 0);  // 1 ms alone
    short_end = sg4::Engine::get_clock();
  });
  bench.run();
  // A holds the GPU until its quantum ends at 2 ms, the switch costs 50 us, then B runs 1 ms.
  EXPECT_NEAR(short_end, 0.002 + cost + 0.001, 1e-9);
}

TEST(GpuModel, TimeSlicingDoesNotSwitchForASingleContext) {
  GpuBench bench(SharingMode::TIME_SLICING, 50e-6);
  double end = -1;
  const int ctx = bench.gpu().add_context(0, 0, 0);
  sg4::Actor::create("w", bench.gpu().host(), [&] {
    for (int k = 0; k < 10; ++k) bench.gpu().run(ctx, 1e13, 0);
    end = sg4::Engine::get_clock();
  });
  bench.run();
  EXPECT_NEAR(end, 1.0, 1e-9);
  for (const auto& e : bench.log().events()) {
    if (e.type == EventType::CONTEXT_SWITCH) {
      EXPECT_EQ(e.value, 0.0) << "the first load is free";
    }
  }
}

TEST(GpuModel, ExclusiveBusyTimeEqualsKernelTime) {
  GpuBench bench(SharingMode::EXCLUSIVE);
  const int ctx = bench.gpu().add_context(3, 0, 0);
  sg4::Actor::create("w", bench.gpu().host(), [&] {
    bench.gpu().run(ctx, KC_F, 0);
    sg4::this_actor::sleep_for(0.5);
    bench.gpu().run(ctx, 0, KM_B);
  });
  bench.run();
  double busy = 0;
  for (const auto& e : bench.log().events()) {
    if (e.type != EventType::GPU_BUSY) continue;
    EXPECT_EQ(e.tenant, 3);
    busy += e.time - e.aux;
  }
  EXPECT_NEAR(busy, 2.0, 1e-9);  // 1 s + 1 s; the 0.5 s idle gap is not busy
  EXPECT_EQ(bench.count(EventType::GPU_BUSY), 2u);
}

TEST(GpuModel, MemoryAllocationFailsBeyondCapacity) {
  GpuBench bench(SharingMode::TIME_SLICING);
  EXPECT_TRUE(bench.gpu().allocate(50e9));
  EXPECT_FALSE(bench.gpu().allocate(40e9));  // 90 GB > 80 GB: no memory isolation, it just fails
  EXPECT_TRUE(bench.gpu().allocate(30e9));
  EXPECT_DOUBLE_EQ(bench.gpu().memory_used(), 80e9);
  bench.run();  // lets the arbiter actor start and end (an actor never run upsets LeakSanitizer)
}

double run_one_busy_vgpu(VgpuScheduler policy, int replicas, int idle_contexts) {
  GpuBench bench(SharingMode::VGPU, 0.0, 0.002, policy, replicas);
  double end = -1;
  const int busy = bench.gpu().add_context(0, 0, 0);
  for (int i = 0; i < idle_contexts; ++i) bench.gpu().add_context(1 + i, 1 + i, 0);
  sg4::Actor::create("busy", bench.gpu().host(), [&] {
    bench.gpu().run(busy, 1e14, 0);  // 1 s alone
    end = sg4::Engine::get_clock();
  });
  bench.run();
  return end;
}

TEST(GpuModel, VgpuBestEffortGivesIdleTimeToTheBusyVgpu) {
  EXPECT_NEAR(run_one_busy_vgpu(VgpuScheduler::BEST_EFFORT, 4, 1), 1.0, 1e-9);
}

TEST(GpuModel, VgpuEqualShareKeepsEachVgpusSliceWhetherUsedOrNot) {
  // Two vGPUs exist, one idle: the busy one gets every other 2 ms slot, 2 s instead of 1 s.
  EXPECT_NEAR(run_one_busy_vgpu(VgpuScheduler::EQUAL_SHARE, 4, 1), 2.0, 0.002 + 1e-9);
}

TEST(GpuModel, VgpuFixedShareReservesEverySlotOfTheVgpuType) {
  // A 4-vGPU type with one vGPU present: one slot in four, 4 s instead of 1 s.
  EXPECT_NEAR(run_one_busy_vgpu(VgpuScheduler::FIXED_SHARE, 4, 0), 4.0, 3 * 0.002 + 1e-9);
}

double run_mps(const std::vector<double>& percentages, std::vector<double>& ends) {
  GpuBench bench(SharingMode::MPS);
  ends.assign(percentages.size(), -1);
  for (size_t i = 0; i < percentages.size(); ++i) {
    const int ctx = bench.gpu().add_context(static_cast<int>(i), static_cast<int>(i), 0);
    bench.gpu().context(ctx).active_thread_percentage = percentages[i];
    sg4::Actor::create("c" + std::to_string(i), bench.gpu().host(), [&, i, ctx] {
      bench.gpu().run(ctx, 1e14, 0);
      ends[i] = sg4::Engine::get_clock();
    });
  }
  bench.run();
  return *std::max_element(ends.begin(), ends.end());
}

TEST(GpuModel, MpsActiveThreadPercentageCapsEachClient) {
  std::vector<double> ends;
  run_mps({30, 70}, ends);
  // validation-targets.md section 4: MPS caps 30% / 70% -> 3.333333 / 1.428571 s.
  EXPECT_NEAR(ends[0], 1.0 / 0.3, 1e-6);
  EXPECT_NEAR(ends[1], 1.0 / 0.7, 1e-6);
}

TEST(GpuModel, MpsOversubscribedCapsShareTheSms) {
  std::vector<double> ends;
  run_mps({60, 60, 60}, ends);
  // 3 x 60% = 180% of the SMs: max-min gives each a third, 3.0 s each.
  for (double e : ends) EXPECT_NEAR(e, 3.0, 1e-6);
}

TEST(GpuModel, MpsHasNoContextSwitchesAndSharesMemoryBandwidth) {
  GpuBench bench(SharingMode::MPS);
  double kc_end = -1, km_end = -1;
  const int a = bench.gpu().add_context(0, 0, 0);
  const int b = bench.gpu().add_context(1, 1, 0);
  sg4::Actor::create("a", bench.gpu().host(), [&] {
    bench.gpu().run(a, KC_F, KC_B);
    kc_end = sg4::Engine::get_clock();
  });
  sg4::Actor::create("b", bench.gpu().host(), [&] {
    bench.gpu().run(b, KM_F, KM_B);
    km_end = sg4::Engine::get_clock();
  });
  bench.run();
  // Uncapped clients behave like concurrent kernels of one context: the decoupled roofline.
  EXPECT_NEAR(kc_end, 1.1, 1e-9);
  EXPECT_NEAR(km_end, 1.25, 1e-9);
  EXPECT_EQ(bench.count(EventType::CONTEXT_SWITCH), 0u);
}

// Shared-L2 interference (docs/models/partitions.md, "Interference"): with l2_contention g, clients
// running at once see the HBM bandwidth divided by 1 + g x pressure.
struct CoRun {
  double a_end = -1, b_end = -1;
  std::vector<double> pressures;
};
CoRun co_run(SharingMode mode, double l2_contention, double a_flops, double a_bytes, double b_flops, double b_bytes) {
  GpuBench bench(mode, 0.0, 0.002, VgpuScheduler::BEST_EFFORT, 2, l2_contention);
  CoRun r;
  const int a = bench.gpu().add_context(0, 0, 0);
  const int b = bench.gpu().add_context(1, 1, 0);
  sg4::Actor::create("a", bench.gpu().host(), [&] {
    bench.gpu().run(a, a_flops, a_bytes);
    r.a_end = sg4::Engine::get_clock();
  });
  sg4::Actor::create("b", bench.gpu().host(), [&] {
    auto k = bench.gpu().launch(b, b_flops, b_bytes);
    r.pressures.push_back(bench.gpu().l2_pressure());
    bench.gpu().wait(k);
    r.b_end = sg4::Engine::get_clock();
  });
  bench.run();
  return r;
}

TEST(GpuModel, MpsMemoryBoundClientsThrashTheSharedL2) {
  // Two memory-bound clients: pressure 1, bandwidth 2 TB/s / 1.5 shared by two: 2e12 B each in 3.0 s
  // (2.0 s without interference).
  const CoRun r = co_run(SharingMode::MPS, 0.5, KM_F, KM_B, KM_F, KM_B);
  ASSERT_EQ(r.pressures.size(), 1u);
  EXPECT_DOUBLE_EQ(r.pressures[0], 1.0);
  EXPECT_NEAR(r.a_end, 3.0, 1e-6);
  EXPECT_NEAR(r.b_end, 3.0, 1e-6);
}

TEST(GpuModel, MpsComputeBoundNeighbourAddsLittleL2Pressure) {
  // KC's memory intensity is 0.25 (0.25 s of bytes in 1 s alone), KM's is 1: pressure 0.25, bandwidth
  // 2e12 / 1.125. KC's bytes finish at 0.5625 s (half of it each); KM then has the reduced bandwidth
  // alone until KC completes at 1.1 s and the pressure drops: 1.5e12 - 0.5375 x 1.7778e12 = 0.5444e12 B
  // left at 2 TB/s -> 1.372222 s (1.25 s without interference).
  const CoRun r = co_run(SharingMode::MPS, 0.5, KC_F, KC_B, KM_F, KM_B);
  ASSERT_EQ(r.pressures.size(), 1u);
  EXPECT_NEAR(r.pressures[0], 0.25, 1e-12);
  EXPECT_NEAR(r.a_end, 1.1, 1e-6);
  EXPECT_NEAR(r.b_end, 1.1 + (1.5e12 - 0.5375 * 2e12 / 1.125) / 2e12, 1e-6);
}

TEST(GpuModel, OnlyClientsRunningAtOnceInterfereInL2) {
  // Time-slicing runs one context at a time: no L2 pressure, 2.0 s for the two memory-bound kernels.
  const CoRun r = co_run(SharingMode::TIME_SLICING, 0.5, KM_F, KM_B, KM_F, KM_B);
  EXPECT_DOUBLE_EQ(r.pressures.at(0), 0.0);
  EXPECT_NEAR(std::max(r.a_end, r.b_end), 2.0, 1e-3);
}

}  // namespace
}  // namespace gtw
