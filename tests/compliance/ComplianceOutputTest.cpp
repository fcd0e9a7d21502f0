// End to end: the compliance outputs of `gputwin run` on the EU/US designs (report.json, report.md,
// policyreport.yaml, junit.xml, findings.sarif, results.h5) agree with each other, carry the evidence
// of the failing rule, and are deterministic; `gputwin test` expectations on compliance results.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

const std::string DESIGNS = std::string(GTW_SOURCE_DIR) + "/scenarios/compliance/";

std::string run_design(const TempDir& dir, const std::string& design, const std::string& formats = "all") {
  const std::string out = dir.file(design);
  const auto r = run_process(run_argv(GTW_BINARY, DESIGNS + design + ".yaml", out, formats));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

const json* finding(const json& report, const std::string& policy) {
  for (const auto& f : report["compliance"]["findings"])
    if (f["policy"] == policy) return &f;
  return nullptr;
}

TEST(ComplianceOutput, AFailingDesignNamesTheRuleAndItsEventsInEveryFormat) {
  TempDir dir;
  const std::string out = run_design(dir, "design-us-burst");
  const json report = json::parse(read_text(out + "/report.json"));
  ASSERT_TRUE(report["compliance"].is_object());
  const json* residency = finding(report, "eu-residency");
  ASSERT_NE(residency, nullptr);
  EXPECT_EQ((*residency)["status"], "fail");
  EXPECT_EQ((*residency)["rule_id"], "C1");
  ASSERT_FALSE((*residency)["evidence"].empty());
  const json& first = (*residency)["evidence"][0];
  ASSERT_TRUE(first["event"].is_number());
  // The evidence names a real event: a placement of the burst in us-east.
  const auto seq = first["event"].get<int64_t>();
  EXPECT_GT(seq, 0);
  EXPECT_NE(first["detail"].get<std::string>().find("us-east"), std::string::npos);
  const auto fails = report["compliance"]["summary"]["fail"].get<int>();
  EXPECT_GE(fails, 1);

  // policyreport.yaml: the same summary and the failing result.
  const YAML::Node pr = YAML::LoadFile(out + "/policyreport.yaml");
  EXPECT_EQ(pr["apiVersion"].as<std::string>(), "wgpolicyk8s.io/v1alpha2");
  EXPECT_EQ(pr["kind"].as<std::string>(), "PolicyReport");
  EXPECT_EQ(pr["summary"]["fail"].as<int>(), fails);
  bool found = false;
  for (const auto& r : pr["results"])
    if (r["policy"].as<std::string>() == "eu-residency") {
      found = true;
      EXPECT_EQ(r["result"].as<std::string>(), "fail");
      EXPECT_EQ(r["properties"]["ruleId"].as<std::string>(), "C1");
      EXPECT_NE(r["properties"]["evidence"].as<std::string>().find("event " + std::to_string(seq)), std::string::npos);
    }
  EXPECT_TRUE(found);

  // junit.xml: one failing test case for the rule, with its evidence.
  const std::string junit = read_text(out + "/junit.xml");
  EXPECT_NE(junit.find("classname=\"compliance/C1\" name=\"eu-residency\""), std::string::npos);
  EXPECT_NE(junit.find("type=\"compliance\""), std::string::npos);
  EXPECT_NE(junit.find("failures=\"" + std::to_string(fails) + "\""), std::string::npos) << junit.substr(0, 400);

  // findings.sarif: a result at a scenario line of the design (the burst workload), not only the rule's entry.
  const json sarif = json::parse(read_text(out + "/findings.sarif"));
  const json* result = nullptr;
  for (const auto& r : sarif["runs"][0]["results"])
    if (r["ruleId"] == "GTW-COMP-residency") result = &r;
  ASSERT_NE(result, nullptr);
  EXPECT_EQ((*result)["level"], "error");
  const auto& where = (*result)["locations"][0]["physicalLocation"];
  EXPECT_GT(where["region"]["startLine"].get<int>(), 0);
  EXPECT_NE(where["artifactLocation"]["uri"].get<std::string>().find("scenarios/compliance/"), std::string::npos);

  // results.h5: /compliance/findings has a row per rule, /compliance/evidence points into /events.
  const hid_t file = H5Fopen((out + "/results.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t dset = H5Dopen2(file, "/compliance/findings", H5P_DEFAULT);
  ASSERT_GE(dset, 0);
  const hid_t space = H5Dget_space(dset);
  hsize_t rows = 0;
  H5Sget_simple_extent_dims(space, &rows, nullptr);
  EXPECT_EQ(rows, report["compliance"]["findings"].size());
  H5Sclose(space);
  H5Dclose(dset);
  const hid_t ev = H5Dopen2(file, "/compliance/evidence", H5P_DEFAULT);
  EXPECT_GE(ev, 0);
  H5Dclose(ev);
  H5Fclose(file);

  // report.md: the compliance table and the evidence lines.
  const std::string md = read_text(out + "/report.md");
  EXPECT_NE(md.find("## Compliance"), std::string::npos);
  EXPECT_NE(md.find("**eu-residency** (C1, fail)"), std::string::npos);
}

TEST(ComplianceOutput, APassingDesignHasNoComplianceResultsInSarifAndAGreenPolicyReport) {
  TempDir dir;
  const std::string out = run_design(dir, "design-pass");
  const json report = json::parse(read_text(out + "/report.json"));
  EXPECT_EQ(report["compliance"]["summary"]["fail"], 0);
  EXPECT_GT(report["compliance"]["summary"]["pass"].get<int>(), 0);
  const json sarif = json::parse(read_text(out + "/findings.sarif"));
  for (const auto& r : sarif["runs"][0]["results"])
    EXPECT_NE(r["ruleId"].get<std::string>().rfind("GTW-COMP-", 0), 0u) << r.dump();
  const YAML::Node pr = YAML::LoadFile(out + "/policyreport.yaml");
  EXPECT_EQ(pr["summary"]["fail"].as<int>(), 0);
}

TEST(ComplianceOutput, ScenariosWithoutRulesWriteANullSectionAndNoPolicyReport) {
  TempDir dir;
  const std::string out = dir.file("plain");
  const auto r = run_process(
      {GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/scenarios/ci/mig.yaml", "-o", out, "--progress", "none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  EXPECT_TRUE(report.contains("compliance"));
  EXPECT_TRUE(report["compliance"].is_null());
  EXPECT_FALSE(std::ifstream(out + "/policyreport.yaml").good());
}

TEST(ComplianceOutput, ThePolicyReportAndJunitAreByteIdenticalAcrossRuns) {
  // junit.xml carries the run's provenance (timestamp, hostname, time: the JUnit schema requires them);
  // SOURCE_DATE_EPOCH pins the clock and zeroes the time, as it does for report.json's provenance.
  TempDir dir;
  ProcessOptions pinned;
  pinned.env = {{"SOURCE_DATE_EPOCH", "1767225600"}};
  const std::string a = dir.file("first");
  const std::string b = dir.file("again");
  for (const auto& out : {a, b}) {
    const auto r =
        run_process(run_argv(GTW_BINARY, DESIGNS + "design-shared-gpus.yaml", out, "policyreport,junit,sarif"), pinned);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_NE(read_text(a + "/junit.xml").find(" timestamp=\"2026-01-01T00:00:00\" "), std::string::npos);
  EXPECT_NE(read_text(a + "/junit.xml").find(" time=\"0.000\">"), std::string::npos);
  EXPECT_EQ(read_text(a + "/policyreport.yaml"), read_text(b + "/policyreport.yaml"));
  EXPECT_EQ(read_text(a + "/junit.xml"), read_text(b + "/junit.xml"));
  EXPECT_EQ(read_text(a + "/findings.sarif"), read_text(b + "/findings.sarif"));
}

TEST(ComplianceOutput, GputwinTestChecksComplianceResultsPerRule) {
  TempDir dir;
  const std::string test_file = dir.file("residency.test.yaml");
  write_text(test_file, "apiVersion: gputwin.dev/v1alpha1\nkind: Test\nscenario: " + DESIGNS +
                            "design-us-burst.yaml\nexpect:\n"
                            "  - compliance: eu-residency\n"
                            "  - allCompliant: true\n");
  const auto failing = run_process({GTW_BINARY, "test", test_file, "-o", dir.file("t1")});
  EXPECT_EQ(failing.exit_code, 1) << failing.out << failing.err;
  EXPECT_NE(failing.out.find("eu-residency"), std::string::npos) << failing.out;
  EXPECT_NE(failing.out.find("fail"), std::string::npos) << failing.out;

  write_text(test_file, "apiVersion: gputwin.dev/v1alpha1\nkind: Test\nscenario: " + DESIGNS +
                            "design-us-burst.yaml\nexpect:\n"
                            "  - compliance: eu-residency\n    equals: fail\n"
                            "  - allCompliant: false\n");
  const auto passing = run_process({GTW_BINARY, "test", test_file, "-o", dir.file("t2")});
  EXPECT_EQ(passing.exit_code, 0) << passing.out << passing.err;
}

}  // namespace
}  // namespace gtw::test
