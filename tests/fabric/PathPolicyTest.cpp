// Path policies (whole runs, one per process): storage ACL, encryption in transit and at rest,
// segmentation, GPUDirect Storage on or off, as seen in the data events.
#include <gtest/gtest.h>

#include <algorithm>

#include "EngineRun.hpp"

namespace gtw {
namespace {

using test::run_file;

constexpr double GB = 1e9;

bool crosses(const DataMovement& m, const std::string& link) {
  return std::find(m.links.begin(), m.links.end(), link) != m.links.end();
}

TEST(PathPolicy, AclEncryptionAndSegmentAreApplied) {
  const auto o = run_file("tests/fixtures/scenarios/fabric-policies.yaml");
  int moves = 0, denied = 0;
  for (const auto& e : o.run.log.events()) {
    if (e.type != EventType::DATA_MOVE && e.type != EventType::DATA_DENIED) continue;
    const auto& m = o.run.data_movements.at(static_cast<size_t>(e.aux));
    if (e.type == EventType::DATA_MOVE) {
      ++moves;
      EXPECT_EQ(m.tenant, 0);
      EXPECT_EQ(m.identity, "sa-trainer");
      EXPECT_TRUE(m.encrypted_in_transit);
      EXPECT_TRUE(m.encrypted_at_rest);
      EXPECT_EQ(m.segment, "a");
      EXPECT_EQ(m.region, "eu-west");
      EXPECT_EQ(m.to, "store:vault");
      // Plaintext it would write at 20 GB/s (the store's disks and its 20 GB/s uplink); encrypted at
      // bandwidthFactor 0.5 the 40 GB take 80 GB of the uplink: 10 GB/s.
      EXPECT_NEAR(m.bytes / (m.end - m.start), 10 * GB, 0.01 * 10 * GB);
      EXPECT_TRUE(crosses(m, "vault-uplink_DOWN")) << ::testing::PrintToString(m.links);
    } else {
      ++denied;
      EXPECT_EQ(m.tenant, 1);
      EXPECT_FALSE(m.allowed);
      EXPECT_NE(m.reason.find("does not allow tenant 'b'"), std::string::npos) << m.reason;
      EXPECT_TRUE(m.links.empty());
      EXPECT_EQ(m.end, m.start);
    }
  }
  EXPECT_EQ(moves, 2);
  EXPECT_EQ(denied, 2);
}

TEST(PathPolicy, WithoutGpuDirectStorageTheDataBouncesThroughTheHost) {
  const auto o =
      run_file("tests/fixtures/scenarios/fabric-policies.yaml", {{"spec.workloads[0].io.gpuDirect", "false"}});
  int moves = 0;
  for (const auto& m : o.run.data_movements) {
    if (!m.allowed) continue;
    ++moves;
    EXPECT_FALSE(m.gpu_direct);
    // GPU -> host memory over the GPU's PCIe switch uplink, then host -> NIC back through it.
    EXPECT_TRUE(crosses(m, "n-0-pcie0-uplink_DOWN")) << ::testing::PrintToString(m.links);
    EXPECT_TRUE(crosses(m, "n-0-pcie0-uplink_UP"));
  }
  EXPECT_EQ(moves, 2);
}

TEST(PathPolicy, GpuDirectStorageBypassesTheHost) {
  const auto o = run_file("tests/fixtures/scenarios/fabric-policies.yaml");
  for (const auto& m : o.run.data_movements) {
    if (!m.allowed) continue;
    EXPECT_TRUE(m.gpu_direct);
    EXPECT_FALSE(crosses(m, "n-0-pcie0-uplink_DOWN")) << ::testing::PrintToString(m.links);
    EXPECT_TRUE(crosses(m, "n-0-nic0_UP"));
  }
}

}  // namespace
}  // namespace gtw
