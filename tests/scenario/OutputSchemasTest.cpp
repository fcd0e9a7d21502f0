// End-to-end: the machine-read outputs against their published schemas. report.json against
// docs/formats/report.schema.json and findings.sarif against the OASIS SARIF 2.1.0 schema
// (scripts/check-json-schema.py, Python's jsonschema), both junit.xml writers (`gputwin run`, `gputwin test --junit`)
// against the strict common JUnit XSD (xmllint). The schemas' sources: tests/fixtures/schemas/README.md. Each schema is
// also shown to reject a real mistake, so a pass means something.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "ChannelCatalogue.hpp"
#include "FabricSpec.hpp"
#include "Scenario.hpp"
#include "SharingMode.hpp"
#include "Subprocess.hpp"

namespace gtw::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
const std::string SRC = GTW_SOURCE_DIR;
const std::string REPORT_SCHEMA = SRC + "/docs/formats/report.schema.json";
const std::string SARIF_SCHEMA = SRC + "/tests/fixtures/schemas/sarif-schema-2.1.0.json";
const std::string JUNIT_XSD = SRC + "/tests/fixtures/schemas/JUnit.xsd";
const std::string CHECK_JSON = SRC + "/scripts/check-json-schema.py";
const std::string CHECK_SARIF_RULES = SRC + "/scripts/check-sarif-rules.py";
const std::string REMANENCE = SRC + "/scenarios/attacks/remanence-scrape.yaml";

// The CI scenarios and one of each other kind of output: an attack, enforced compliance, continuous batching
// behind time-slicing, quotas with reclaim, MIG re-partitioning.
std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(SRC + "/scenarios/ci")) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && e.path().extension() == ".yaml" && name.find(".test.") == std::string::npos)
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  for (const char* s :
       {"attacks/remanence-scrape.yaml", "compliance/design-enforce.yaml", "examples/serving/time-slicing.yaml",
        "examples/quota-reclaim.yaml", "examples/mig-reconfigure.yaml"})
    out.push_back(SRC + "/scenarios/" + s);
  return out;
}

bool have_python_jsonschema() {
  return run_process({"/usr/bin/env", "python3", "-c", "import jsonschema"}).exit_code == 0;
}

bool have_xmllint() {
  return run_process({"/usr/bin/env", "xmllint", "--version"}).exit_code == 0;
}

#define REQUIRE_VALIDATORS()                                                                                    \
  do {                                                                                                          \
    if (!have_python_jsonschema())                                                                              \
      GTEST_SKIP() << "Python's jsonschema is missing (scripts/install-deps.sh installs python3-jsonschema)";   \
    if (!have_xmllint()) GTEST_SKIP() << "xmllint is missing (scripts/install-deps.sh installs libxml2-utils)"; \
  } while (false)

ProcessResult check_json(const std::string& schema, const std::vector<std::string>& files) {
  std::vector<std::string> argv = {"/usr/bin/env", "python3", CHECK_JSON, schema};
  argv.insert(argv.end(), files.begin(), files.end());
  return run_process(argv);
}

// The SARIF Multitool's `validate` rules beyond the schema (scripts/check-sarif-rules.py): errors and the warnings
// it shows by default.
ProcessResult check_sarif_rules(const std::vector<std::string>& files) {
  std::vector<std::string> argv = {"/usr/bin/env", "python3", CHECK_SARIF_RULES};
  argv.insert(argv.end(), files.begin(), files.end());
  return run_process(argv);
}

ProcessResult check_junit(const std::vector<std::string>& files) {
  std::vector<std::string> argv = {"/usr/bin/env", "xmllint", "--noout", "--schema", JUNIT_XSD};
  argv.insert(argv.end(), files.begin(), files.end());
  return run_process(argv);
}

// A file: URI as the writers make them (docs_uri: spaces and '%' escaped) back to its path.
std::string file_uri_path(const std::string& uri) {
  std::string path = uri.substr(std::string("file://").size());
  for (size_t pos = 0; (pos = path.find('%', pos)) != std::string::npos; ++pos)
    path.replace(pos, 3, std::string(1, static_cast<char>(std::stoi(path.substr(pos + 1, 2), nullptr, 16))));
  return path;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(OutputSchemas, ShippedScenariosWriteAValidReportSarifAndJunit) {
  REQUIRE_VALIDATORS();
  TempDir dir;
  std::vector<std::string> reports, sarifs, junits;
  for (const auto& scenario : shipped_scenarios()) {
    const std::string out =
        dir.file(fs::path(scenario).parent_path().filename().string() + "-" + fs::path(scenario).stem().string());
    const auto r = run_process(run_argv(GTW_BINARY, scenario, out, "json,sarif,junit"), 300);
    ASSERT_EQ(r.exit_code, 0) << scenario << "\n" << r.err;  // a missed SLO or failed rule is a result: exit 0
    reports.push_back(out + "/report.json");
    sarifs.push_back(out + "/findings.sarif");
    junits.push_back(out + "/junit.xml");

    // SARIF's helpUri and informationUri are absolute URIs (the schema's format "uri", checked by the script):
    // here also that they name a page of this tree's docs.
    const json sarif = json::parse(read_text(out + "/findings.sarif"));
    const auto& driver = sarif["runs"][0]["tool"]["driver"];
    std::vector<std::string> uris = {driver.value("informationUri", "")};
    for (const auto& rule : driver["rules"]) uris.push_back(rule.value("helpUri", ""));
    for (const auto& uri : uris) {
      ASSERT_EQ(uri.rfind("file:///", 0), 0u) << scenario << ": not an absolute file URI: '" << uri << "'";
      EXPECT_TRUE(fs::is_regular_file(file_uri_path(uri))) << uri;
      EXPECT_EQ(file_uri_path(uri).rfind(SRC + "/docs/", 0), 0u) << uri;
    }

    // One test case per replayed attack in the run's junit.xml.
    const json report = json::parse(read_text(out + "/report.json"));
    const std::string junit = read_text(out + "/junit.xml");
    EXPECT_EQ(count_of(junit, "classname=\"attack/"), report["leakage"]["attacks"].size()) << scenario;
  }
  const auto report_check = check_json(REPORT_SCHEMA, reports);
  EXPECT_EQ(report_check.exit_code, 0) << report_check.out << report_check.err;
  const auto sarif_check = check_json(SARIF_SCHEMA, sarifs);
  EXPECT_EQ(sarif_check.exit_code, 0) << sarif_check.out << sarif_check.err;
  const auto rules_check = check_sarif_rules(sarifs);
  EXPECT_EQ(rules_check.exit_code, 0) << rules_check.out << rules_check.err;
  const auto junit_check = check_junit(junits);
  EXPECT_EQ(junit_check.exit_code, 0) << junit_check.out << junit_check.err;
}

// The schemas must fail on a real mistake: a key removed, a wrong type, a value outside its enum, a key the
// writer does not write, a type-specific block missing; and SARIF's relative helpUri.
TEST(OutputSchemas, AReportWithAKeyRemovedOrAWrongTypeFailsValidation) {
  REQUIRE_VALIDATORS();
  TempDir dir;
  const std::string out = dir.file("scrape");
  const auto r = run_process(run_argv(GTW_BINARY, REMANENCE, out, "json,sarif"), 300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  ASSERT_EQ(check_json(REPORT_SCHEMA, {out + "/report.json"}).exit_code, 0) << "the unmodified report is valid";
  ASSERT_FALSE(report["leakage"]["attacks"].empty());
  ASSERT_FALSE(report["placements"].empty());

  struct Mutation {
    std::string what, path_in_message;
    std::function<void(json&)> apply;
  };
  const std::vector<Mutation> mutations = {
      {"summary.events removed", "$.summary: 'events' is a required property",
       [](json& j) { j["summary"].erase("events"); }},
      {"provenance removed", "$: 'provenance' is a required property", [](json& j) { j.erase("provenance"); }},
      {"a count as a string", "$.tenants[0].workloads[0].replicas_placed",
       [](json& j) { j["tenants"][0]["workloads"][0]["replicas_placed"] = "1"; }},
      {"a ratio above 1", "$.gpus[0].utilisation", [](json& j) { j["gpus"][0]["utilisation"] = 1.5; }},
      {"an end_reason outside the enum", "$.placements[0].end_reason",
       [](json& j) { j["placements"][0]["end_reason"] = "crashed"; }},
      {"a sharing mode outside the enum", "$.gpus[0].sharing", [](json& j) { j["gpus"][0]["sharing"] = "shared"; }},
      {"a key the writer does not write", "'surprise' was unexpected", [](json& j) { j["summary"]["surprise"] = 1; }},
      {"compliance neither null nor an object", "$.compliance", [](json& j) { j["compliance"] = json::array(); }},
      {"an attack's type-specific result missing", "$.leakage.attacks[0].achieved",
       [](json& j) { j["leakage"]["attacks"][0]["achieved"].erase("bytes_recovered"); }},
      {"a nullable field of the wrong type", "$.placements[0].end_s",
       [](json& j) { j["placements"][0]["end_s"] = "never"; }},
      {"schema_version changed", "$.schema_version", [](json& j) { j["schema_version"] = "2.0"; }},
  };
  for (size_t i = 0; i < mutations.size(); ++i) {
    json mutated = report;
    mutations[i].apply(mutated);
    const std::string file = dir.file("mutated-" + std::to_string(i) + ".json");
    write_text(file, mutated.dump(2));
    const auto check = check_json(REPORT_SCHEMA, {file});
    EXPECT_EQ(check.exit_code, 1) << mutations[i].what << ": accepted\n" << check.out << check.err;
    EXPECT_NE(check.out.find(mutations[i].path_in_message), std::string::npos)
        << mutations[i].what << ": the message does not name " << mutations[i].path_in_message << "\n"
        << check.out;
  }

  // SARIF: a relative helpUri (as compliance rules once had) and a result without a message.
  json sarif = json::parse(read_text(out + "/findings.sarif"));
  ASSERT_EQ(check_json(SARIF_SCHEMA, {out + "/findings.sarif"}).exit_code, 0);
  ASSERT_FALSE(sarif["runs"][0]["tool"]["driver"]["rules"].empty());
  json relative = sarif;
  relative["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "docs/models/compliance.md";
  write_text(dir.file("relative.sarif"), relative.dump(2));
  const auto rel = check_json(SARIF_SCHEMA, {dir.file("relative.sarif")});
  EXPECT_EQ(rel.exit_code, 1) << rel.out << rel.err;
  EXPECT_NE(rel.out.find("$.runs[0].tool.driver.rules[0].helpUri"), std::string::npos) << rel.out;
  json no_message = sarif;
  ASSERT_FALSE(no_message["runs"][0]["results"].empty());
  no_message["runs"][0]["results"][0].erase("message");
  write_text(dir.file("no-message.sarif"), no_message.dump(2));
  EXPECT_EQ(check_json(SARIF_SCHEMA, {dir.file("no-message.sarif")}).exit_code, 1);
}

// The multitool's rules catch what the schema lets through: each mistake below passes the SARIF schema (or is not
// its concern) and is reported under the multitool's rule id.
TEST(OutputSchemas, TheSarifMultitoolRulesCatchWhatTheSchemaLetsThrough) {
  TempDir dir;
  const std::string out = dir.file("scrape");
  ASSERT_EQ(run_process(run_argv(GTW_BINARY, REMANENCE, out, "sarif"), 300).exit_code, 0);
  const json sarif = json::parse(read_text(out + "/findings.sarif"));
  const auto clean = check_sarif_rules({out + "/findings.sarif"});
  ASSERT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  ASSERT_FALSE(sarif["runs"][0]["results"].empty());
  ASSERT_FALSE(sarif["runs"][0]["tool"]["driver"]["rules"].empty());
  struct Mutation {
    std::string rule;
    std::function<void(json&)> apply;
  };
  const auto run = [](json& j) -> json& { return j["runs"][0]; };
  const std::vector<Mutation> mutations = {
      {"SARIF1001",
       [&](json& j) {
         auto& r = run(j)["tool"]["driver"]["rules"][0];
         r["name"] = r["id"];
       }},
      {"SARIF1002",
       [&](json& j) {
         run(j)["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "a file.yaml";
       }},
      {"SARIF1004",
       [&](json& j) {
         auto& a = run(j)["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
         a["uri"] = "file:///tmp/x.yaml";
         a["uriBaseId"] = "SRCROOT";
       }},
      {"SARIF1005", [&](json& j) { run(j)["tool"]["driver"]["rules"][0]["helpUri"] = "docs/models/leakage.md"; }},
      {"SARIF1007",
       [&](json& j) {
         run(j)["results"][0]["locations"][0]["physicalLocation"]["region"] = {{"startColumn", 3}};
       }},
      {"SARIF1009", [&](json& j) { run(j)["results"][0]["ruleIndex"] = 999; }},
      {"SARIF1010", [&](json& j) { run(j)["results"][0].erase("ruleId"); }},
      {"SARIF1011", [&](json& j) { j["$schema"] = "https://json.schemastore.org/sarif-2.0.0.json"; }},
      {"SARIF1012", [&](json& j) { run(j)["results"][0]["message"]["id"] = "default"; }},
      {"SARIF2005", [&](json& j) { run(j)["tool"]["driver"].erase("informationUri"); }},
      {"SARIF2008", [&](json& j) { j.erase("$schema"); }},
      {"SARIF2017", [&](json& j) { run(j)["results"][0]["locations"][0]["physicalLocation"].erase("region"); }},
  };
  for (const auto& m : mutations) {
    json mutated = sarif;
    m.apply(mutated);
    const std::string file = dir.file(m.rule + ".sarif");
    write_text(file, mutated.dump(2));
    const auto check = check_sarif_rules({file});
    EXPECT_EQ(check.exit_code, 1) << m.rule << ": accepted\n" << check.out << check.err;
    EXPECT_NE(check.out.find(" " + m.rule + ": "), std::string::npos) << m.rule << "\n" << check.out;
  }
}

TEST(OutputSchemas, TheJunitSchemaRejectsASuiteWithoutTimestampOrWithAFileAttribute) {
  REQUIRE_VALIDATORS();
  TempDir dir;
  const std::string out = dir.file("scrape");
  ASSERT_EQ(run_process(run_argv(GTW_BINARY, REMANENCE, out, "junit"), 300).exit_code, 0);
  const std::string junit = read_text(out + "/junit.xml");
  ASSERT_EQ(check_junit({out + "/junit.xml"}).exit_code, 0);
  write_text(dir.file("no-timestamp.xml"), std::regex_replace(junit, std::regex(" timestamp=\"[^\"]*\""), ""));
  EXPECT_NE(check_junit({dir.file("no-timestamp.xml")}).exit_code, 0);
  std::string with_file = junit;
  with_file.replace(with_file.find("<testcase "), 10, "<testcase file=\"x.yaml\" ");
  write_text(dir.file("file-attribute.xml"), with_file);
  EXPECT_NE(check_junit({dir.file("file-attribute.xml")}).exit_code, 0);
}

// The remanence attack's test case fails with the attack's outcome; with scrubbing on free it passes.
TEST(OutputSchemas, TheRunJunitHasATestCasePerAttackOutcome) {
  TempDir dir;
  ASSERT_EQ(run_process(run_argv(GTW_BINARY, REMANENCE, dir.file("open"), "json,junit")).exit_code, 0);
  const json report = json::parse(read_text(dir.file("open/report.json")));
  const std::string open = read_text(dir.file("open/junit.xml"));
  ASSERT_EQ(report["leakage"]["attacks"].size(), 1u);
  const auto& attack = report["leakage"]["attacks"][0];
  ASSERT_GT(attack["achieved"]["bytes_recovered"].get<double>(), 0);
  const std::string head =
      "<testcase classname=\"attack/remanenceScrape\" name=\"" + attack["name"].get<std::string>() + "\"";
  ASSERT_NE(open.find(head), std::string::npos) << open;
  EXPECT_NE(open.find("type=\"attack\"", open.find(head)), std::string::npos) << open;

  const auto scrubbed = run_process(run_argv(GTW_BINARY, REMANENCE, dir.file("scrubbed"), "json,junit",
                                             {"spec.policies.isolation.scrubOnFree=true"}));
  ASSERT_EQ(scrubbed.exit_code, 0) << scrubbed.err;
  const std::string closed = read_text(dir.file("scrubbed/junit.xml"));
  const size_t at = closed.find(head);
  ASSERT_NE(at, std::string::npos) << closed;
  const std::string line = closed.substr(at, closed.find('\n', at) - at);
  EXPECT_EQ(line.substr(line.size() - 2), "/>") << "the stopped attack's test case passes:\n" << closed;
}

// `gputwin test --junit` with a failed expectation (a <failure>) and a run the scenario's override made fail (an
// <error> on each expectation).
TEST(OutputSchemas, GputwinTestJunitPassesTheSchema) {
  REQUIRE_VALIDATORS();
  TempDir dir;
  const std::string scenario = SRC + "/scenarios/ci/exclusive.yaml";
  write_text(dir.file("strict.test.yaml"), "apiVersion: gputwin.dev/v1alpha1\nkind: Test\nscenario: " + scenario +
                                               "\nexpect:\n  - allSlosMet: true\n"
                                               "  - name: too strict <&>\n    metric: summary.slos\n    equals: 99\n");
  write_text(dir.file("invalid.test.yaml"), "apiVersion: gputwin.dev/v1alpha1\nkind: Test\nscenario: " + scenario +
                                                "\nset:\n  - spec.duration=-5s\nexpect:\n  - allSlosMet: true\n");
  for (const char* file : {"strict.test.yaml", "invalid.test.yaml"}) {
    const std::string xml = dir.file(std::string(file) + ".junit.xml");
    const auto r = run_process({GTW_BINARY, "test", dir.file(file), "--junit", xml}, 300);
    EXPECT_NE(r.exit_code, 0) << file << ": each file fails one way or another";
    ASSERT_TRUE(fs::exists(xml)) << file << "\n" << r.out << r.err;
    const auto check = check_junit({xml});
    EXPECT_EQ(check.exit_code, 0) << file << "\n" << check.out << check.err << read_text(xml);
  }
  const std::string strict = read_text(dir.file("strict.test.yaml.junit.xml"));
  EXPECT_EQ(count_of(strict, "<failure "), 1u) << strict;
  EXPECT_NE(strict.find(">" + dir.file("strict.test.yaml") + ":"), std::string::npos)
      << "the expectation's file:line leads the failure text\n"
      << strict;
  const std::string invalid = read_text(dir.file("invalid.test.yaml.junit.xml"));
  EXPECT_EQ(count_of(invalid, "<error "), 1u) << invalid;
}

// The schema's enums are the code's names, so a new sharing mode or channel resource cannot pass unnoticed.
TEST(OutputSchemas, TheReportSchemaEnumsAreTheCodesNames) {
  const json schema = json::parse(read_text(REPORT_SCHEMA));
  const auto names = [&](const std::string& def) {
    std::vector<std::string> out;
    for (const auto& v : schema["$defs"][def]["enum"]) out.push_back(v.get<std::string>());
    return out;
  };
  EXPECT_EQ(names("sharing"), sharing_mode_names());
  EXPECT_EQ(names("runtime"), runtime_kind_names());
  std::vector<std::string> resources, modes;
  for (int i = 0; i < channel::RESOURCE_COUNT; ++i)
    resources.push_back(channel::resource_name(static_cast<channel::Resource>(i)));
  for (int i = 0; i < channel::MODE_COUNT; ++i) modes.push_back(channel::mode_name(static_cast<channel::Mode>(i)));
  EXPECT_EQ(names("resource"), resources);
  EXPECT_EQ(names("mode"), modes);
  const auto& workload = schema["$defs"]["workload"]["properties"]["kind"]["enum"];
  EXPECT_EQ(workload.get<std::vector<std::string>>(), workload_kind_names());
  const auto& slo = schema["$defs"]["slo"]["properties"]["kind"]["enum"];
  EXPECT_EQ(slo.get<std::vector<std::string>>(), slo_kind_names());
  const auto& attack = schema["$defs"]["attack"]["properties"]["type"]["enum"];
  EXPECT_EQ(attack.get<std::vector<std::string>>(), attack_type_names());
  const auto& visibility = schema["$defs"]["leakage"]["properties"]["options"]["properties"]["gpu_visibility"]["enum"];
  EXPECT_EQ(visibility.get<std::vector<std::string>>(), gpu_visibility_names());
  std::vector<std::string> data_kinds;
  for (const auto& v : schema["$defs"]["dataMovement"]["properties"]["kind"]["enum"])
    if (!v.is_null()) data_kinds.push_back(v.get<std::string>());
  EXPECT_EQ(data_kinds, data_kind_names());
}

}  // namespace
}  // namespace gtw::test
