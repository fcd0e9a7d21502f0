// MIG reconfiguration: drain, evict, re-partition, place again (scenarios/examples/mig-reconfigure.yaml).
#include <gtest/gtest.h>

#include "EngineRun.hpp"

namespace gtw {
namespace {

test::Outcome run_example() {
  return test::run_file("scenarios/examples/mig-reconfigure.yaml");
}

TEST(Reconfiguration, DrainsEvictsRepartitionsAndPlacesTheReplicasAgain) {
  const auto o = run_example();
  ASSERT_EQ(o.analysis.reconfigurations.size(), 1u);
  const auto& r = o.analysis.reconfigurations[0];
  EXPECT_EQ(r.node_pool, "serve");
  EXPECT_DOUBLE_EQ(r.start, 120.0);
  EXPECT_EQ(r.gpus, 2);
  EXPECT_EQ(r.replicas_evicted, 2);
  EXPECT_EQ(r.replicas_replaced, 2);
  // Draining takes at most the 20 s timeout; then the 10 s re-partitioning of the H100 profile.
  const double drain = r.done - r.start - 10.0;
  EXPECT_GE(drain, 0.0);
  EXPECT_LE(drain, 20.0 + 1e-9);
  const auto& chat = o.analysis.workloads.at(0);
  EXPECT_EQ(chat.replicas_evicted, 2);
  EXPECT_EQ(chat.replicas_failed, 0);
  EXPECT_GT(chat.requests_dropped, 0u) << "requests arriving while no replica takes work are lost";

  // The old 3g.40gb instances end when the drain ends; the 7g.80gb ones start when the GPUs are back.
  int old_instances = 0, new_instances = 0;
  for (const auto& g : o.run.gpus) {
    if (g.layout_generation == 0) {
      ++old_instances;
      EXPECT_EQ(g.mig_profile, "3g.40gb");
      EXPECT_NEAR(g.available_until, r.done - 10.0, 1e-9);
    } else {
      ++new_instances;
      EXPECT_EQ(g.mig_profile, "7g.80gb");
      EXPECT_DOUBLE_EQ(g.available_from, r.done);
    }
  }
  EXPECT_EQ(old_instances, 4);
  EXPECT_EQ(new_instances, 2);
  // Utilisation is over each instance's lifetime (a share of the whole run would understate both
  // generations).
  for (size_t g = 0; g < o.analysis.gpus.size(); ++g) {
    const auto& gr = o.analysis.gpus[g];
    EXPECT_GE(gr.utilisation, 0.0);
    EXPECT_LE(gr.utilisation, 1.0 + 1e-9);
  }
  // No work ran on an instance outside its lifetime.
  for (const auto& e : o.run.log.events()) {
    if (e.type != EventType::GPU_BUSY) continue;
    const auto& g = o.run.gpus.at(static_cast<size_t>(e.gpu));
    EXPECT_GE(e.aux, g.available_from - 1e-9);
    if (g.available_until >= 0) {
      EXPECT_LE(e.time, g.available_until + 1e-9);
    }
  }
}

TEST(Reconfiguration, TheLargerInstancesServeFaster) {
  const auto o = run_example();
  // 30 s windows: p99 on half-GPU instances before, on whole-GPU instances after.
  const SloResult* p99 = nullptr;
  for (const auto& s : o.analysis.slos)
    if (s.name == "p99-latency") p99 = &s;
  ASSERT_NE(p99, nullptr);
  ASSERT_EQ(p99->windows.size(), 8u);
  for (size_t k = 0; k < 4; ++k) EXPECT_TRUE(p99->windows[k].violated) << k;
  EXPECT_TRUE(p99->windows[4].violated) << "the window of the outage";
  for (size_t k = 5; k < 8; ++k) {
    EXPECT_FALSE(p99->windows[k].violated) << k;
    EXPECT_LT(p99->windows[k].value, 0.6 * p99->windows[0].value) << k;
  }
}

}  // namespace
}  // namespace gtw
