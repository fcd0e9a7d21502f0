// Failover (spec.faults[].failover, scope): the ended replicas are placed again elsewhere by the policy after
// the detection delay, and an enforcing residency rule is asked first.
// tests/fixtures/scenarios/failover-residency.yaml: the EU node is lost and the only free GPU is in us-east.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;
const std::string SCENARIO = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/failover-residency.yaml";

json run_json(const std::vector<std::string>& sets) {
  TempDir dir;
  const auto r = run_process(run_argv(GTW_BINARY, SCENARIO, dir.file("out"), "json", sets));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(dir.file("out") + "/report.json"));
}

const json& finding(const json& report, const std::string& policy) {
  for (const auto& f : report["compliance"]["findings"])
    if (f["policy"] == policy) return f;
  static const json none;
  ADD_FAILURE() << "no finding " << policy;
  return none;
}

std::string region_of(const json& report, int gpu) {
  for (const auto& g : report["gpus"])
    if (g["index"] == gpu) return g["region"];
  return "?";
}

TEST(Failover, ResidencyBreaksInAuditAndHoldsInEnforceWhenOnlyAnotherRegionHasRoom) {
  const json audit = run_json({});
  ASSERT_EQ(audit["placements"].size(), 2u) << audit["placements"].dump();
  const json& first = audit["placements"][0];
  const json& second = audit["placements"][1];
  EXPECT_EQ(first["end_reason"], "fault");
  EXPECT_DOUBLE_EQ(first["end_s"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(second["start_s"].get<double>(), 25.0) << "failover after the 5 s detection delay";
  EXPECT_EQ(region_of(audit, first["gpu"]), "eu-west");
  EXPECT_EQ(region_of(audit, second["gpu"]), "us-east");
  EXPECT_EQ(audit["faults"][0]["domain"], "node");
  EXPECT_EQ(finding(audit, "eu-residency")["status"], "fail");
  EXPECT_GE(finding(audit, "eu-residency")["violations"].get<int>(), 1);

  const json enforce = run_json({"spec.compliance.rules[eu-residency].action=enforce"});
  ASSERT_EQ(enforce["placements"].size(), 1u) << "the us-east GPU is refused: the service stays down";
  EXPECT_EQ(finding(enforce, "eu-residency")["status"], "pass");
  EXPECT_GE(finding(enforce, "eu-residency")["prevented"].get<int>(), 1);
  // Every request is accounted for: those that found no live replica arrived too (they are dropped).
  for (const json* r : {&audit, &enforce}) {
    const json& req = (*r)["tenants"][0]["workloads"][0]["requests"];
    EXPECT_EQ(req["arrived"].get<int>(), req["completed"].get<int>() + req["dropped"].get<int>()) << req.dump();
  }
  // The cost of holding residency: the service is unavailable from the fault on.
  bool missed = false;
  for (const auto& t : enforce["tenants"])
    for (const auto& s : t["slos"]) missed |= s["name"] == "available" && !s["met"].get<bool>();
  EXPECT_TRUE(missed);
}

TEST(Failover, WithRoomInTheRegionItStaysThereAndAGpuFaultSparesTheNode) {
  // A second EU GPU: a GPU fault takes only that GPU out of service, the service fails over to its neighbour.
  const json r = run_json({"spec.cluster.nodePools[eu].gpusPerNode=2", "spec.faults[0].scope=gpu"});
  ASSERT_EQ(r["placements"].size(), 2u);
  EXPECT_EQ(region_of(r, r["placements"][1]["gpu"]), "eu-west");
  EXPECT_NE(r["placements"][1]["gpu"], r["placements"][0]["gpu"]) << "the faulted GPU is out of service";
  EXPECT_EQ(finding(r, "eu-residency")["status"], "pass");
}

TEST(Failover, RestartAndFailoverTogetherAreRefusedAtTheField) {
  const auto r = run_process({GTW_BINARY, "validate", SCENARIO, "--set", "spec.faults[0].restartAfter=2s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("spec.faults[0].failover: give restartAfter"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("failover-residency.yaml:"), std::string::npos) << r.err;
  const auto bad = run_process({GTW_BINARY, "validate", SCENARIO, "--set", "spec.faults[0].scope=rack"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown value 'rack'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace gtw::test
