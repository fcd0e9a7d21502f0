// Fault domains: a fatal error in one client ends every client on an MPS or time-sliced GPU, only
// itself on a MIG instance; the report shows the fault and who it ended.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

json run(const TempDir& dir, const std::string& name, std::vector<std::string> sets) {
  std::vector<std::string> argv = {
      GTW_BINARY, "run",          std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/fault-domain.yaml",
      "-o",       dir.file(name), "--progress",
      "none",     "--format",     "json,md"};
  for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
  const auto r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(dir.file(name) + "/report.json"));
}

const json& chat(const json& report) {
  return report["tenants"][0];
}

TEST(FaultDomain, MpsFatalErrorEndsEveryClientOnTheGpu) {
  TempDir dir;
  const auto report = run(dir, "mps", {});
  ASSERT_EQ(report["faults"].size(), 1u);
  const auto& f = report["faults"][0];
  EXPECT_EQ(f["tenant"], "analytics");
  EXPECT_EQ(f["domain"], "gpu");
  EXPECT_EQ(f["clients_ended"], 2);
  EXPECT_EQ(f["ended"], json::array({"chat/chat-svc[0]", "analytics/etl[0]"}));
  const auto& svc = chat(report)["workloads"][0];
  EXPECT_EQ(svc["replicas_killed_by_faults"], 1);
  EXPECT_GT(svc["requests"]["dropped"].get<int>(), 0) << "requests in flight and queued at the fault are lost";
  const auto& slo = chat(report)["slos"][0];
  EXPECT_FALSE(slo["met"]);
  EXPECT_NE(slo["explanation"].get<std::string>().find("ended by a GPU fault of analytics/etl on GPU 0"),
            std::string::npos)
      << slo["explanation"];
  // Restarted 30 s later: chat serves again (requests completed after the restart).
  EXPECT_GT(svc["requests"]["completed"].get<int>(), 5 * 120) << "served before 60 s and after 90 s";
  const auto md = read_text(dir.file("mps") + "/report.md");
  EXPECT_NE(md.find("## Faults"), std::string::npos);
  EXPECT_NE(md.find("whole GPU"), std::string::npos);
}

TEST(FaultDomain, TimeSlicingSharesTheFaultDomain) {
  TempDir dir;
  const auto report = run(dir, "ts", {"spec.cluster.nodePools[0].sharing.mode=timeSlicing"});
  EXPECT_EQ(report["faults"][0]["clients_ended"], 2);
  EXPECT_EQ(chat(report)["workloads"][0]["replicas_killed_by_faults"], 1);
}

TEST(FaultDomain, MigInstanceContainsTheFault) {
  TempDir dir;
  const auto report = run(
      dir, "mig",
      {"spec.cluster.nodePools[0].sharing.mode=mig", "spec.cluster.nodePools[0].sharing.migLayout=[4g.40gb, 3g.40gb]"});
  ASSERT_EQ(report["faults"].size(), 1u);
  EXPECT_EQ(report["faults"][0]["domain"], "client");
  EXPECT_EQ(report["faults"][0]["clients_ended"], 1);
  EXPECT_EQ(report["faults"][0]["ended"], json::array({"analytics/etl[0]"}));
  const auto& svc = chat(report)["workloads"][0];
  EXPECT_EQ(svc["replicas_killed_by_faults"], 0);
  EXPECT_EQ(svc["requests"]["dropped"], 0);
}

}  // namespace
}  // namespace gtw::test
