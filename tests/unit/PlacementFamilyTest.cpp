// The two placement families measure fragmentation the same way where both apply: the engine's FGD
// (policies/placement, replicas in slots of typed devices) and the packing experiment's FGD
// (policies/packing, pods in milli-GPU shares, validated against the ATC'23 figures in docs/validation/).
// On whole GPUs and on evenly sliced GPUs, fragmentation() x 1000 equals weighted_frag() for the same
// demand; the engine adds per-device eligibility the packing model expresses only per node.
#include <gtest/gtest.h>

#include <vector>

#include "PackingApi.hpp"
#include "Placement.hpp"

namespace gtw {
namespace {

struct DemandSpec {
  int gpus;
  int weight;
};

// One node of `used.size()` devices, each with `slots` replica slots of which used[d] are taken.
std::vector<policy::GpuView> node(const std::vector<int>& used, int slots, SharingMode mode) {
  std::vector<policy::GpuView> devices;
  for (size_t d = 0; d < used.size(); ++d) {
    policy::GpuView g;
    g.index = static_cast<int>(d);
    g.local = static_cast<int>(d);
    g.mode = mode;
    g.slots = slots;
    g.used_slots = used[d];
    g.memory_total = 80e9;
    devices.push_back(g);
  }
  return devices;
}

double engine_fragmentation(const std::vector<policy::GpuView>& devices, const std::vector<DemandSpec>& demand) {
  std::vector<policy::DemandClass> classes;
  for (const auto& d : demand) {
    policy::DemandClass c;
    c.request.gpus = d.gpus;
    c.weight = d.weight;
    classes.push_back(c);
  }
  return policy::fragmentation(devices, classes);
}

// The same node in the packing model: each device's free share in milli-GPU, a class asks for one slot's
// share on each of its GPUs.
int64_t packing_fragmentation(const std::vector<int>& used, int slots, const std::vector<DemandSpec>& demand) {
  const int slot_milli = packing::MILLI / slots;
  std::vector<int> free;
  for (int u : used) free.push_back((slots - u) * slot_milli);
  packing::FragDistribution dist;
  for (const auto& d : demand) dist.classes.push_back({0, slot_milli, d.gpus, 0, d.weight});
  for (const auto& c : dist.classes) dist.total_weight += c.weight;
  dist.prepare();
  return packing::weighted_frag(dist, 0, 1'000'000, free.data(), static_cast<int>(free.size()));
}

TEST(PlacementFamily, FragmentationOfWholeGpusEqualsThePackingMeasure) {
  const std::vector<DemandSpec> demand = {{1, 3}, {4, 1}, {8, 1}};
  for (const std::vector<int>& used : std::vector<std::vector<int>>{{0, 0, 0, 0, 0, 0, 0, 0},
                                                                    {1, 0, 1, 0, 1, 0, 1, 0},
                                                                    {1, 1, 1, 1, 1, 0, 0, 0},
                                                                    {1, 1, 1, 1, 1, 1, 1, 0},
                                                                    {1, 1, 1, 1, 1, 1, 1, 1}}) {
    const double engine = engine_fragmentation(node(used, 1, SharingMode::EXCLUSIVE), demand);
    const auto packing = packing_fragmentation(used, 1, demand);
    EXPECT_NEAR(engine * packing::MILLI, static_cast<double>(packing), 1e-6) << ::testing::PrintToString(used);
  }
}

TEST(PlacementFamily, FragmentationOfTimeSlicedGpusEqualsThePackingMeasure) {
  // Four replicas per GPU: a replica is a 250-milli share, as a fractional pod of the packing model.
  const std::vector<DemandSpec> demand = {{1, 5}, {2, 2}, {4, 1}};
  for (const std::vector<int>& used : std::vector<std::vector<int>>{
           {0, 0, 0, 0}, {4, 4, 4, 0}, {4, 4, 4, 3}, {2, 4, 4, 4}, {3, 3, 3, 3}, {4, 4, 4, 4}}) {
    const double engine = engine_fragmentation(node(used, 4, SharingMode::TIME_SLICING), demand);
    const auto packing = packing_fragmentation(used, 4, demand);
    EXPECT_NEAR(engine * packing::MILLI, static_cast<double>(packing), 1e-6) << ::testing::PrintToString(used);
  }
}

TEST(PlacementFamily, TheEngineAddsPerDeviceEligibility) {
  // A class restricted to MPS GPUs finds none on a time-sliced node: the whole free capacity is stranded,
  // which the packing model would need a different GPU model per node to say.
  auto devices = node({0, 1, 0, 0}, 4, SharingMode::TIME_SLICING);
  std::vector<policy::DemandClass> classes(1);
  classes[0].request.allowed_sharing = {SharingMode::MPS};
  classes[0].weight = 1;
  EXPECT_DOUBLE_EQ(policy::fragmentation(devices, classes), 3.75);
}

}  // namespace
}  // namespace gtw
