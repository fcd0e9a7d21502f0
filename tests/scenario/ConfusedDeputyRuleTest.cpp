// The no-confused-deputy rule (C11 along call chains): lab 06's agent reads another tenant's patient records
// under its own identity on behalf of a public user; with passthrough propagation the path, and the
// violation, disappear.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;
const std::string SCENARIO = std::string(GTW_SOURCE_DIR) + "/scenarios/labs/06-identity-audit.yaml";

json deputy_finding(const std::vector<std::string>& sets) {
  TempDir dir;
  const auto r = run_process(run_argv(GTW_BINARY, SCENARIO, dir.file("out"), "json", sets));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(dir.file("out") + "/report.json"));
  for (const auto& f : report["compliance"]["findings"])
    if (f["rule"] == "no-confused-deputy") return f;
  ADD_FAILURE() << "no no-confused-deputy finding";
  return json();
}

TEST(ConfusedDeputyRule, TheAgentsReplacedIdentityFailsAndPassthroughPasses) {
  const json replaced = deputy_finding({});
  EXPECT_EQ(replaced["status"], "fail");
  ASSERT_EQ(replaced["evidence"].size(), 1u);
  const std::string detail = replaced["evidence"][0]["detail"];
  EXPECT_NE(detail.find("'bob' reaches data patient-records"), std::string::npos) << detail;
  EXPECT_NE(detail.find("as 'sa-rag'"), std::string::npos) << detail;
  const json passthrough = deputy_finding({"spec.identity.edges[1].propagation=passthrough"});
  EXPECT_EQ(passthrough["status"], "pass") << passthrough.dump();
}

}  // namespace
}  // namespace gtw::test
