// What an attacker achieved, from synthetic event logs: bit rate, error rate, the conservative achieved
// rate against the catalogue bound; remanence observed from the allocator's events; the noise
// calibration's inverse.
#include <gtest/gtest.h>

#include <cmath>

#include "Attack.hpp"
#include "Leakage.hpp"

namespace gtw {
namespace {

using channel::Mode;
using channel::Resource;

struct AttackRun {
  ScenarioSpec spec;
  RunResult run;

  AttackRun() {
    spec.name = "synthetic";
    spec.source_file = "scenario.yaml";
    spec.duration = Seconds(10);
    run.end_time = 10;
    run.arrivals_end = 10;
    for (const char* t : {"insider", "spy"}) {
      spec.tenants.push_back({});
      spec.tenants.back().name = t;
    }
    NodePoolSpec p;
    p.name = "dgx";
    p.gpus_per_node = 4;
    spec.node_pools.push_back(p);
    for (int g = 0; g < 4; ++g) {
      GpuLayout l;
      l.index = g;
      l.local = g;
      l.pool = "dgx";
      l.product = "H100-80GB-SXM";
      l.sharing = g == 3 ? SharingMode::TIME_SLICING : SharingMode::EXCLUSIVE;
      run.gpus.push_back(l);
    }
  }
  int covert(const std::string& channel) {
    WorkloadSpec w;
    w.name = "covert";
    w.kind = WorkloadKind::ATTACK;
    w.tenant = "spy";
    w.tenant_index = 1;
    w.replicas = 2;
    w.attack.type = AttackType::COVERT_CHANNEL;
    w.attack.channel = channel;
    w.attack.sender_tenant = "insider";
    w.attack.sender_tenant_index = 0;
    spec.workloads.push_back(w);
    return static_cast<int>(spec.workloads.size()) - 1;
  }
  void event(double time, EventType type, int tenant, int workload, int replica, int gpu, double value = 0,
             double aux = 0) {
    run.log.append(Event{time, 0, type, tenant, workload, replica, gpu, value, aux});
  }
  // `bits` payload bits over [start, start + bits / rate), `errors` of them wrong.
  void bits(int w, int bits, int errors, double rate, double start) {
    event(0, EventType::PLACED, 0, w, 0, 0);
    event(0, EventType::PLACED, 1, w, 1, 1);
    for (int i = 0; i < bits; ++i) event(start, EventType::ATTACK_BIT, 1, w, 1, 1, i < errors ? 1 : 0, 0);
    event(start + bits / rate, EventType::ATTACK_DONE, 1, w, 1, 1, bits, start);
  }
};

double h(double p) {
  return p <= 0 || p >= 1 ? 0 : -p * std::log2(p) - (1 - p) * std::log2(1 - p);
}

TEST(AttackAnalysis, CovertChannelRateErrorAndAchievedAgainstTheNvlinkBound) {
  AttackRun r;
  const int w = r.covert("nvlink");
  r.bits(w, 4000, 200, 50e3, 1.0);
  const auto l = analyse_leakage(r.spec, r.run, channel::Catalogue::defaults());
  ASSERT_EQ(l.attacks.size(), 1u);
  const auto& a = l.attacks[0];
  EXPECT_TRUE(a.ran);
  EXPECT_EQ(a.resource, "nvlink");
  EXPECT_EQ(a.relation, "separateGpus");
  EXPECT_EQ(a.attacker, "spy");
  EXPECT_EQ(a.victim, "insider");
  EXPECT_DOUBLE_EQ(a.bits, 4000);
  EXPECT_DOUBLE_EQ(a.error_rate, 0.05);
  EXPECT_NEAR(a.bit_rate_bps, 50e3, 1e-6);
  EXPECT_NEAR(a.information_rate_bps, 50e3 * (1 - h(0.05)), 1e-6);
  // Achieved: at the 99.9% upper bound of the error rate, so below the point estimate.
  const double upper = wilson_upper(200, 4000, 3.090232);
  EXPECT_GT(upper, 0.05);
  EXPECT_NEAR(a.achieved_bps, 50e3 * (1 - h(upper)), 1e-6);
  EXPECT_LT(a.achieved_bps, a.information_rate_bps);
  // Bound: NVBleed's capacity, the best published NVLink measurement.
  EXPECT_NEAR(a.bound_bps, 70e3 * (1 - h(0.0478)), 1e-6);
  EXPECT_TRUE(a.within_bound);
}

TEST(AttackAnalysis, AnAttackFasterThanTheBoundIsFlagged) {
  AttackRun r;
  const int w = r.covert("nvlink");
  r.bits(w, 4000, 0, 200e3, 1.0);  // error-free at 200 kbit/s: more than any published NVLink channel
  const auto l = analyse_leakage(r.spec, r.run, channel::Catalogue::defaults());
  EXPECT_GT(l.attacks[0].achieved_bps, l.attacks[0].bound_bps);
  EXPECT_FALSE(l.attacks[0].within_bound);
}

TEST(AttackAnalysis, CoarserTimersLowerTheBound) {
  AttackRun r;
  const int w = r.covert("nvlink");
  r.bits(w, 1000, 500, 50e3, 1.0);
  IsolationOptions o;
  o.timer_resolution_s = 1e-4;  // at most 10k probes/s
  const auto l = analyse_leakage(r.spec, r.run, channel::Catalogue::defaults(), o);
  EXPECT_NEAR(l.attacks[0].bound_bps, 1e4 * (1 - h(0.0478)), 1e-6);
  EXPECT_EQ(l.attacks[0].achieved_bps, 0) << "half the bits wrong carries nothing";
}

TEST(AttackAnalysis, NvlinkBetweenMigInstancesIsBoundedAsPcie) {
  AttackRun r;
  for (int g : {0, 1}) {
    r.run.gpus[static_cast<size_t>(g)].sharing = SharingMode::MIG;
    r.run.gpus[static_cast<size_t>(g)].mig_profile = "3g.40gb";
    r.run.gpus[static_cast<size_t>(g)].local = 0;
  }
  const int w = r.covert("nvlink");
  r.bits(w, 1000, 0, 13.02e3, 1.0);
  const auto l = analyse_leakage(r.spec, r.run, channel::Catalogue::defaults());
  EXPECT_EQ(l.attacks[0].resource, "pcie");
  EXPECT_EQ(l.attacks[0].relation, "mig");
  EXPECT_NEAR(l.attacks[0].bound_bps, 13.02e3, 1e-6);
}

TEST(AttackAnalysis, RemanenceIsObservedFromTheAllocator) {
  AttackRun r;
  WorkloadSpec victim;
  victim.name = "finetune";
  victim.kind = WorkloadKind::TRAINING;
  victim.tenant = "insider";
  victim.tenant_index = 0;
  r.spec.workloads.push_back(victim);
  WorkloadSpec scraper;
  scraper.name = "scrape";
  scraper.kind = WorkloadKind::ATTACK;
  scraper.tenant = "spy";
  scraper.tenant_index = 1;
  scraper.attack.type = AttackType::REMANENCE_SCRAPE;
  r.spec.workloads.push_back(scraper);
  r.event(0, EventType::PLACED, 0, 0, 0, 3, 30e9);
  r.event(0, EventType::MEM_ALLOC, 0, 0, 0, 3, 30e9, 0);
  r.event(5, EventType::MEM_FREE, 0, 0, 0, 3, 30e9, 0);
  r.event(6, EventType::PLACED, 1, 1, 0, 3, 1e9);
  r.event(6, EventType::MEM_ALLOC, 1, 1, 0, 3, 50e9, 30e9);
  r.event(6, EventType::MEM_RESIDUE, 1, 1, 0, 3, 30e9, 0);
  r.event(7, EventType::ATTACK_DONE, 1, 1, 0, 3, 30e9, 6);
  const auto l = analyse_leakage(r.spec, r.run, channel::Catalogue::defaults());
  double open = 0;
  for (const auto& d : l.discrete)
    if (d.kind == DiscreteKind::UNSCRUBBED_MEMORY && !d.closed && d.observer == 1 && d.source == 0) open += d.bytes;
  EXPECT_DOUBLE_EQ(open, 30e9) << "the allocator's hand-over, not placement order (which would say 1 GB)";
  ASSERT_EQ(l.attacks.size(), 1u);
  EXPECT_DOUBLE_EQ(l.attacks[0].bytes_recovered, 30e9);
  EXPECT_DOUBLE_EQ(l.attacks[0].bound_bytes, 30e9);
  EXPECT_EQ(l.attacks[0].victim, "finetune");
  EXPECT_TRUE(l.attacks[0].within_bound);

  // The same hand-over after a scrub: a closed exposure, nothing recovered.
  AttackRun s = r;
  s.run.log = EventLog();
  for (const auto& e : r.run.log.events()) {
    Event x = e;
    if (x.type == EventType::MEM_RESIDUE) x.type = EventType::MEM_SCRUBBED_REUSE;
    if (x.type == EventType::ATTACK_DONE) x.value = 0;
    s.run.log.append(x);
  }
  const auto ls = analyse_leakage(s.spec, s.run, channel::Catalogue::defaults());
  for (const auto& d : ls.discrete) {
    if (d.kind == DiscreteKind::UNSCRUBBED_MEMORY) {
      EXPECT_TRUE(d.closed);
    }
  }
  EXPECT_DOUBLE_EQ(ls.total_bytes, 0);
  EXPECT_DOUBLE_EQ(ls.attacks[0].bytes_recovered, 0);
}

TEST(AttackAnalysis, NoiseCalibrationInvertsTheThresholdDetector) {
  for (double p : {0.0322, 0.0478, 0.01, 0.2}) {
    const double x = inverse_q(p);
    EXPECT_NEAR(channel::threshold_error(2 * x, 1), p, 1e-9) << p;
  }
  EXPECT_TRUE(std::isinf(inverse_q(0)));
  EXPECT_EQ(inverse_q(0.5), 0);
}

TEST(AttackAnalysis, WilsonUpperBound) {
  EXPECT_DOUBLE_EQ(wilson_upper(0, 0, 3), 1);
  // 0 errors in 100 trials at z = 1.96: z^2 / (n + z^2) = 0.0370.
  EXPECT_NEAR(wilson_upper(0, 100, 1.96), 1.96 * 1.96 / (100 + 1.96 * 1.96), 1e-12);
  EXPECT_GT(wilson_upper(50, 1000, 3), 0.05);
  EXPECT_LT(wilson_upper(50, 1000, 3), 0.075);
}

TEST(AttackAnalysis, CovertReferenceFallsBackToTheBestMeasurementOfTheResource) {
  EXPECT_EQ(covert_reference(Resource::NVLINK, Mode::SEPARATE_GPUS, "")->id, "A6");
  EXPECT_EQ(covert_reference(Resource::NVLINK, Mode::SEPARATE_GPUS, "A5")->id, "A5");
  EXPECT_EQ(covert_reference(Resource::HBM, Mode::MIG, "")->id, "A1") << "closed cell: the resource's best";
  EXPECT_EQ(covert_reference(Resource::PCIE, Mode::MIG, "")->id, "A17");
  EXPECT_EQ(covert_reference(Resource::NVLINK, Mode::SEPARATE_GPUS, "A99"), nullptr);
}

}  // namespace
}  // namespace gtw
