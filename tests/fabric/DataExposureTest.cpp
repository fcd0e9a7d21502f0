// Discrete exposures from data events (sim/analysis/DataExposure), on synthetic run results.
#include <gtest/gtest.h>

#include "DataExposure.hpp"

namespace gtw {
namespace {

ScenarioSpec two_tenants() {
  ScenarioSpec spec;
  spec.tenants.resize(2);
  spec.tenants[0].name = "a";
  spec.tenants[1].name = "b";
  return spec;
}

DataMovement move(int tenant, std::vector<std::string> links, bool encrypted, const std::string& store = "",
                  const std::string& op = "transfer") {
  DataMovement m;
  m.owner = m.tenant = tenant;
  m.links = std::move(links);
  m.encrypted_in_transit = encrypted;
  m.segment = "shared";
  m.store = store;
  m.operation = op;
  m.bytes = 100;
  return m;
}

TEST(DataExposure, PlaintextOnASharedLinkIsExposedAndEncryptionClosesIt) {
  const auto spec = two_tenants();
  RunResult run;
  run.data_movements = {move(0, {"leaf0-spine0_UP", "n-0-uplink_UP"}, false), move(1, {"leaf0-spine0_UP"}, false)};
  auto e = data_exposures(spec, run);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].observer, 0);
  EXPECT_EQ(e[0].source, 1);
  EXPECT_EQ(e[1].observer, 1);
  EXPECT_EQ(e[1].source, 0);
  EXPECT_EQ(e[1].plaintext_link_bytes, 100);
  EXPECT_EQ(e[1].links, std::vector<std::string>{"leaf0-spine0_UP"});
  run.data_movements[0].encrypted_in_transit = true;
  e = data_exposures(spec, run);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].source, 1);
}

TEST(DataExposure, IsolatedSegmentIsNotReadableByOthers) {
  auto spec = two_tenants();
  NetworkPolicySpec p;
  p.tenant = "a";
  p.isolated = true;
  spec.network_policies.push_back(p);
  RunResult run;
  run.data_movements = {move(0, {"l_UP"}, false), move(1, {"l_UP"}, false)};
  run.data_movements[0].segment = "a";
  // a's flows are in its own segment: b cannot read them, and a (isolated) does not see b's.
  EXPECT_TRUE(data_exposures(spec, run).empty());
}

TEST(DataExposure, UnencryptedWritesOnASharedStoreAreExposed) {
  const auto spec = two_tenants();
  RunResult run;
  run.data_movements = {move(0, {}, false, "lustre", "write"), move(1, {}, false, "lustre", "read")};
  auto e = data_exposures(spec, run);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].observer, 1);
  EXPECT_EQ(e[0].plaintext_storage_bytes, 100);
  EXPECT_EQ(e[0].stores, std::vector<std::string>{"lustre"});
  run.data_movements[0].encrypted_at_rest = true;
  EXPECT_TRUE(data_exposures(spec, run).empty());
}

}  // namespace
}  // namespace gtw
