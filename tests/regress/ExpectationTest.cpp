// Units of sim/apps/regress: metric paths and selectors, expected values with units, operators, tolerances,
// aggregates, test-file diagnostics, and the JUnit / GitHub formats. In-process, no engine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "Diff.hpp"
#include "Expectation.hpp"
#include "TestFile.hpp"
#include "TestRun.hpp"

namespace gtw::regress {
namespace {

// A report in the shape of report.json, plus the leakage and compliance sections being added.
const Json REPORT = Json::parse(R"({
  "schema_version": "1.0",
  "summary": {"slos": 2, "slos_missed": 1, "context_switches": 0},
  "tenants": [
    {"name": "chat", "slos": [{"name": "p99-latency", "met": false, "violated": 3, "worst": 3.6,
                               "attribution": [{"who": "analytics", "share": 0.43}],
                               "windows": [{"start_s": 0, "value": 1.9, "violated": false},
                                           {"start_s": 30, "value": 3.6, "violated": true}]}],
     "workloads": [{"name": "chat-svc", "latency": {"p50_s": 1.1, "p99_s": 2.4, "max_s": null}}]},
    {"name": "analytics", "slos": [{"name": "job-turnaround", "met": true, "violated": 0}],
     "workloads": [{"name": "etl", "max_slowdown": 2.5, "jobs": {"failed": 0}}]}
  ],
  "gpus": [{"index": 0, "utilisation": 0.99, "utilisation_by_tenant": {"chat": 0.7, "analytics": 0.29}},
           {"index": 1, "utilisation": 0.50, "utilisation_by_tenant": {"chat": 0.5}}],
  "faults": [],
  "leakage": {"pairs": [{"observer": "analytics", "source": "chat",
                         "channels": [{"name": "l2-prime-probe", "capacity_bits_per_s": 1200.0,
                                       "bound_bits": 36000.0}],
                         "remanence_bytes": 0}],
              "totals": {"bits": 36000.0, "bytes": 0},
              "channels": [{"observer": "analytics", "source": "chat", "resource": "l2", "capacity_bps": 1200.0,
                            "bound_bits": 36000.0},
                           {"observer": "chat", "source": "analytics", "resource": "l2", "capacity_bps": null,
                            "bound_bits": null}]},
  "compliance": {"rules": [{"rule": "scrub-on-release", "result": "pass", "severity": "high"}]}
})");

ReportPath path(const std::string& text) {
  std::string error;
  int column = 0;
  auto p = parse_report_path(text, error, column);
  EXPECT_TRUE(p) << text << ": " << error;
  return p.value_or(ReportPath{});
}

Expectation expect(const std::string& metric, Op op, const std::string& value, const std::string& tolerance = "",
                   Aggregate aggregate = Aggregate::ALL) {
  Expectation e;
  e.metric = path(metric);
  e.op = op;
  std::string error;
  const std::string key = e.metric.segments.back().key;
  auto v = parse_expected_value(value, false, key, error);
  EXPECT_TRUE(v) << error;
  e.value = v.value_or(ExpectedValue{});
  if (!tolerance.empty()) e.tolerance = *parse_tolerance(tolerance, error);
  e.aggregate = aggregate;
  return e;
}

bool passes(const Expectation& e) {
  return evaluate(e, REPORT).passed;
}

TEST(ReportPath, ParsesKeysIndicesWildcardsAndSelectors) {
  const auto p = path("tenants[name=chat].slos[0].windows[*].value");
  ASSERT_EQ(p.segments.size(), 7u);
  EXPECT_EQ(p.segments[1].kind, PathSegment::Kind::SELECT);
  EXPECT_EQ(p.segments[1].match[0], (std::pair<std::string, std::string>{"name", "chat"}));
  EXPECT_EQ(p.segments[3].kind, PathSegment::Kind::INDEX);
  EXPECT_EQ(p.segments[5].kind, PathSegment::Kind::ALL);
  const auto multi = path("leakage.pairs[observer=analytics,source='chat'].remanence_bytes");
  ASSERT_EQ(multi.segments[2].match.size(), 2u);
  EXPECT_EQ(multi.segments[2].match[1].second, "chat");
  EXPECT_TRUE(multi.may_match_many());
  EXPECT_FALSE(path("summary.slos").may_match_many());
}

TEST(ReportPath, SyntaxErrorsGiveTheColumn) {
  std::string error;
  int column = 0;
  EXPECT_FALSE(parse_report_path("tenants[name=chat.slos", error, column));
  EXPECT_EQ(column, 8);
  EXPECT_NE(error.find("unclosed"), std::string::npos);
  EXPECT_FALSE(parse_report_path("summary..slos", error, column));
  EXPECT_EQ(column, 9);
  EXPECT_FALSE(parse_report_path("gpus[0]utilisation", error, column));
  EXPECT_EQ(column, 8);
  EXPECT_FALSE(parse_report_path("", error, column));
}

TEST(ReportPath, ResolvesSelectorsAndJsonPointers) {
  auto r = resolve(path("tenants[name=chat].workloads[name=chat-svc].latency.p99_s"), REPORT);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_DOUBLE_EQ(r.matches[0].value->get<double>(), 2.4);
  EXPECT_EQ(r.matches[0].where, "tenants[name=chat].workloads[name=chat-svc].latency.p99_s");
  r = resolve(path("/tenants/1/slos/0/met"), REPORT);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_TRUE(r.matches[0].value->get<bool>());
  r = resolve(path("gpus[*].utilisation"), REPORT);
  EXPECT_EQ(r.matches.size(), 2u);
  EXPECT_EQ(r.matches[1].where, "gpus[index=1].utilisation");
  r = resolve(path("tenants[*].workloads[name=etl].max_slowdown"), REPORT);  // the other tenant is pruned
  ASSERT_EQ(r.matches.size(), 1u);
  r = resolve(path("tenants[name=chat].slos[0].windows[start_s=30].violated"), REPORT);  // numeric selector
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_TRUE(r.matches[0].value->get<bool>());
}

TEST(ReportPath, MissingMetricNamesTheNearestKeys) {
  auto r = resolve(path("tenants[name=chat].workloads[name=chat-svc].latency.p99"), REPORT);
  EXPECT_TRUE(r.matches.empty());
  EXPECT_NE(r.error.find("'p99' is not a key"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("did you mean 'p99_s'"), std::string::npos) << r.error;
  r = resolve(path("tenants[name=chatt].slos"), REPORT);
  EXPECT_NE(r.error.find("name values: chat, analytics"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("did you mean 'chat'"), std::string::npos) << r.error;
  r = resolve(path("gpus[5].utilisation"), REPORT);
  EXPECT_NE(r.error.find("has 2 items"), std::string::npos) << r.error;
  r = resolve(path("cost.total"), REPORT);
  EXPECT_NE(r.error.find("valid keys: schema_version, summary"), std::string::npos) << r.error;
}

TEST(ExpectedValue, ParsesUnitsIntoTheReportsBaseUnits) {
  std::string error;
  const auto num = [&](const std::string& text, const std::string& key) {
    auto v = parse_expected_value(text, false, key, error);
    EXPECT_TRUE(v) << text << ": " << error;
    return v ? v->number : -1;
  };
  EXPECT_DOUBLE_EQ(num("2.5s", "p99_s"), 2.5);
  EXPECT_DOUBLE_EQ(num("250ms", "p99_s"), 0.25);
  EXPECT_DOUBLE_EQ(num("2m", "duration_s"), 120);
  EXPECT_DOUBLE_EQ(num("80GiB", "remanence_bytes"), 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(num("10Gb/s", "capacity_bits_per_s"), 1e10);  // bits/s metric: not bytes/s
  EXPECT_DOUBLE_EQ(num("10Gb/s", "bandwidth"), 1.25e9);
  EXPECT_DOUBLE_EQ(num("2kb/s", "capacity_bps"), 2000);  // *_bps keys count bits
  EXPECT_DOUBLE_EQ(num("4kb", "bound_bits"), 4000);
  EXPECT_DOUBLE_EQ(num("90%", "utilisation"), 0.9);
  EXPECT_DOUBLE_EQ(num("-3", "delta"), -3);
  EXPECT_DOUBLE_EQ(num("200/s", "rate"), 200);
  auto b = parse_expected_value("false", false, "met", error);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, ExpectedValue::Kind::BOOLEAN);
  auto s = parse_expected_value("true", true, "name", error);  // quoted: the string "true"
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, ExpectedValue::Kind::STRING);
}

TEST(ExpectedValue, RefusesAUnitOfTheWrongDimension) {
  std::string error;
  EXPECT_FALSE(parse_expected_value("80GiB", false, "p99_s", error));
  EXPECT_NE(error.find("is a size but 'p99_s' holds a duration"), std::string::npos) << error;
  EXPECT_FALSE(parse_expected_value("2.5xs", false, "p99_s", error));
  EXPECT_NE(error.find("not a number or a quantity"), std::string::npos) << error;
}

TEST(Evaluate, EveryOperator) {
  const std::string p99 = "tenants[name=chat].workloads[name=chat-svc].latency.p99_s";  // 2.4
  EXPECT_TRUE(passes(expect(p99, Op::LE, "2.4s")));
  EXPECT_FALSE(passes(expect(p99, Op::LE, "2.3s")));
  EXPECT_TRUE(passes(expect(p99, Op::LT, "2.5s")));
  EXPECT_FALSE(passes(expect(p99, Op::LT, "2.4s")));
  EXPECT_TRUE(passes(expect(p99, Op::GE, "2400ms")));
  EXPECT_FALSE(passes(expect(p99, Op::GT, "2.4")));
  EXPECT_TRUE(passes(expect(p99, Op::EQ, "2.4")));
  EXPECT_TRUE(passes(expect(p99, Op::NE, "2.5")));
  EXPECT_FALSE(passes(expect(p99, Op::NE, "2.4")));
  EXPECT_TRUE(passes(expect("tenants[name=chat].slos[name=p99-latency].met", Op::EQ, "false")));
  EXPECT_FALSE(passes(expect("tenants[name=chat].slos[name=p99-latency].met", Op::EQ, "true")));
  EXPECT_TRUE(passes(expect("compliance.rules[rule=scrub-on-release].result", Op::EQ, "pass")));
  EXPECT_FALSE(passes(expect("compliance.rules[rule=scrub-on-release].result", Op::NE, "pass")));
}

TEST(Evaluate, ToleranceRelativeAndAbsolute) {
  const std::string p99 = "tenants[name=chat].workloads[name=chat-svc].latency.p99_s";  // 2.4
  EXPECT_FALSE(passes(expect(p99, Op::LE, "2.3s")));
  EXPECT_TRUE(passes(expect(p99, Op::LE, "2.3s", "5%")));  // 2.3 * 1.05 = 2.415
  EXPECT_FALSE(passes(expect(p99, Op::LE, "2.3s", "4%")));
  EXPECT_TRUE(passes(expect(p99, Op::EQ, "2.45s", "50ms")));
  EXPECT_FALSE(passes(expect(p99, Op::EQ, "2.5s", "50ms")));
  EXPECT_TRUE(passes(expect(p99, Op::GE, "2.5", "0.1")));
  EXPECT_FALSE(passes(expect(p99, Op::NE, "2.45", "0.1")));
}

TEST(Evaluate, NullIsUnboundedAndBooleansAreNotNumbers) {
  const auto max_latency = expect("tenants[name=chat].workloads[name=chat-svc].latency.max_s", Op::LE, "100s");
  const auto out = evaluate(max_latency, REPORT);
  EXPECT_FALSE(out.passed);
  EXPECT_NE(out.measured.find("null"), std::string::npos);
  const auto wrong_type = evaluate(expect("tenants[name=chat].slos[0].met", Op::EQ, "1"), REPORT);
  EXPECT_FALSE(wrong_type.passed);
  EXPECT_NE(wrong_type.measured.find("not a number"), std::string::npos) << wrong_type.measured;
}

TEST(Evaluate, AggregatesOverSeveralValues) {
  EXPECT_FALSE(passes(expect("gpus[*].utilisation", Op::GE, "0.9")));  // all (default): GPU 1 is at 0.5
  EXPECT_TRUE(passes(expect("gpus[*].utilisation", Op::GE, "0.9", "", Aggregate::ANY)));
  EXPECT_TRUE(passes(expect("gpus[*].utilisation", Op::EQ, "0.745", "1e-9", Aggregate::MEAN)));
  EXPECT_TRUE(passes(expect("gpus[*].utilisation", Op::EQ, "0.99", "", Aggregate::MAX)));
  EXPECT_TRUE(passes(expect("gpus[*].utilisation", Op::EQ, "1.49", "1e-9", Aggregate::SUM)));
  EXPECT_TRUE(passes(expect("faults", Op::EQ, "0", "", Aggregate::COUNT)));
  EXPECT_TRUE(passes(expect("gpus[*].utilisation_by_tenant.analytics", Op::EQ, "1", "", Aggregate::COUNT)));
  const auto all = evaluate(expect("gpus[*].utilisation", Op::GE, "0.9"), REPORT);
  EXPECT_NE(all.measured.find("1 of 2 fail: gpus[index=1].utilisation = 0.5"), std::string::npos) << all.measured;
}

TEST(Evaluate, LeakageSectionThroughTheGeneralForm) {
  EXPECT_TRUE(passes(expect("leakage.pairs[observer=analytics,source=chat].remanence_bytes", Op::LE, "0B")));
  EXPECT_TRUE(passes(expect("leakage.pairs[*].channels[*].capacity_bits_per_s", Op::LE, "2kb/s")));
  EXPECT_FALSE(passes(expect("leakage.pairs[*].channels[*].capacity_bits_per_s", Op::LE, "1kb/s")));
  EXPECT_TRUE(passes(expect("leakage.pairs[*].channels[name=l2-prime-probe].bound_bits", Op::LT, "40kb")));
  EXPECT_TRUE(passes(expect("leakage.totals.bytes", Op::LE, "0B")));
  EXPECT_TRUE(
      passes(expect("leakage.channels[observer=analytics,source=chat,resource=l2].capacity_bps", Op::LE, "1.2kb/s")));
  // An unquantified channel (null) is unbounded: a ceiling on it fails.
  EXPECT_FALSE(passes(expect("leakage.channels[observer=chat,source=analytics].bound_bits", Op::LE, "1Gb")));
}

TEST(Evaluate, MissingMetricIsAFailureNotAPass) {
  for (Op op : {Op::LE, Op::NE}) {
    Expectation e = expect("tenants[name=chat].slos[name=p99].met", op, "1");
    const auto out = evaluate(e, REPORT);
    EXPECT_FALSE(out.passed);
    EXPECT_FALSE(out.metric_found);
    EXPECT_EQ(out.message.rfind("metric not found: ", 0), 0u) << out.message;
    EXPECT_NE(out.message.find("p99-latency"), std::string::npos) << out.message;
  }
}

const char* VALID_TEST = R"(kind: Test
scenario: scenario.yaml
seed: 7
set:
  spec.duration: 1m
  spec.workloads[chat-svc].arrival: {process: poisson, rate: 2/s}
expect:
  - slo: chat/p99-latency
  - slo: chat/p99-latency
    field: violated
    max: 2
  - allSlosMet: false
  - latency: chat-svc
    percentile: p50
    below: 2s
  - utilisation: "*"
    tenant: chat
    max: 80%
  - faultCount: 0
  - metric: leakage.pairs[*].remanence_bytes
    op: '<='
    value: 0B
    name: no remanence
  - metric: gpus[*].utilisation
    op: ge
    value: 0.4
    tolerance: 1%
    aggregate: min
)";

std::string temp_dir_with_scenario() {
  const std::string dir = testing::TempDir() + "regress-testfile";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/scenario.yaml") << "kind: Scenario\n";
  return dir;
}

TEST(TestFile, ParsesShorthandsAndTheGeneralForm) {
  const std::string dir = temp_dir_with_scenario();
  Diagnostics diags;
  TestCase t;
  ASSERT_TRUE(parse_test_text(VALID_TEST, dir + "/chat.test.yaml", t, diags)) << diags.format_all();
  EXPECT_EQ(t.name, "chat");
  EXPECT_EQ(t.scenario, dir + "/scenario.yaml");
  EXPECT_EQ(t.seed, 7u);
  ASSERT_EQ(t.overrides.size(), 2u);
  EXPECT_EQ(t.overrides[0], "spec.duration=1m");
  EXPECT_EQ(t.overrides[1], "spec.workloads[chat-svc].arrival={process: poisson, rate: 2/s}");
  ASSERT_EQ(t.expectations.size(), 8u);
  EXPECT_EQ(t.expectations[0].describe(), "tenants[name=chat].slos[name=p99-latency].met == true");
  EXPECT_EQ(t.expectations[0].loc.line, 8);
  EXPECT_EQ(t.expectations[0].loc.column, 5);
  EXPECT_EQ(t.expectations[1].describe(), "tenants[name=chat].slos[name=p99-latency].violated <= 2");
  EXPECT_EQ(t.expectations[2].describe(), "summary.slos_missed > 0");
  EXPECT_EQ(t.expectations[3].describe(), "tenants[*].workloads[name=chat-svc].latency.p50_s < 2s");
  EXPECT_EQ(t.expectations[4].describe(), "gpus[*].utilisation_by_tenant.chat <= 80%");
  EXPECT_EQ(t.expectations[5].describe(), "count(faults) == 0");
  EXPECT_EQ(t.expectations[6].name, "no remanence");
  EXPECT_EQ(t.expectations[7].describe(), "min(gpus[*].utilisation) >= 0.4 (tolerance 1%)");
  // Against the sample report: met is false (1st fails), violated 3 > 2 (2nd fails), the rest hold.
  const auto result = evaluate_report(t, REPORT);
  EXPECT_EQ(result.status, TestResult::Status::FAILED);
  EXPECT_EQ(result.failed_count(), 2u);
  EXPECT_FALSE(result.outcomes[0].passed);
  EXPECT_FALSE(result.outcomes[1].passed);
}

std::string diagnostics_of(const std::string& text) {
  const std::string dir = temp_dir_with_scenario();
  Diagnostics diags;
  TestCase t;
  EXPECT_FALSE(parse_test_text(text, dir + "/bad.test.yaml", t, diags));
  std::string out = diags.format_all();
  // Locations relative to the file name, for readable expectations.
  for (size_t pos; (pos = out.find(dir + "/")) != std::string::npos;) out.erase(pos, dir.size() + 1);
  return out;
}

TEST(TestFile, InvalidFilesReportEveryProblemWithFileLineColumn) {
  const std::string out = diagnostics_of(R"(scenario: scenario.yaml
expect:
  - slo: chat/p99
    mett: true
  - metric: tenants[name=chat.met
    equals: true
  - metric: summary.slos_missed
    op: =<
    value: 0
  - latency: chat-svc
    max: 80GiB
  - metric: summary.slos
)");
  EXPECT_NE(out.find("bad.test.yaml:4:5: error: expect[0]: unknown key 'mett'"), std::string::npos) << out;
  EXPECT_NE(out.find("did you mean 'met'?"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.test.yaml:5:20: error: expect[1].metric: unclosed '['"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.test.yaml:8:9: error: expect[2].op: unknown operator '=<'"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.test.yaml:11:10: error: expect[3].value: '80GiB' is a size"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.test.yaml:12:5: error: expect[4]: no comparison"), std::string::npos) << out;
}

TEST(TestFile, MissingScenarioAndUnknownTopLevelKey) {
  const std::string out = diagnostics_of("scenario: nowhere.yaml\nexpects: []\n");
  EXPECT_NE(out.find("bad.test.yaml:1:11: error: scenario: no scenario file"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.test.yaml:2:1: error: expects: unknown key; valid values:"), std::string::npos) << out;
  EXPECT_NE(out.find("did you mean 'expect'?"), std::string::npos) << out;
  EXPECT_NE(out.find("error: expect: missing"), std::string::npos) << out;
  const std::string syntax = diagnostics_of("scenario: [unclosed\n");
  EXPECT_NE(syntax.find("bad.test.yaml:2:1: error: YAML syntax error"), std::string::npos) << syntax;
}

// Checks that every tag closes in order and attribute values are quoted: enough to catch broken XML
// (there is no XML parser among the dependencies).
bool well_formed_xml(const std::string& xml, std::string& why) {
  std::vector<std::string> stack;
  size_t i = xml.find("?>");
  if (xml.rfind("<?xml", 0) != 0 || i == std::string::npos) {
    why = "no XML declaration";
    return false;
  }
  for (i += 2; i < xml.size(); ++i) {
    if (xml[i] == '&') {
      const size_t semi = xml.find(';', i);
      const std::string entity = xml.substr(i, semi - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;") {
        why = "bad entity " + entity;
        return false;
      }
    }
    if (xml[i] == '>') {
      why = "stray '>'";
      return false;
    }
    if (xml[i] != '<') continue;
    const size_t end = xml.find('>', i);
    std::string tag = xml.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) {
      why = "'<' inside a tag";
      return false;
    }
    const bool closing = tag[0] == '/';
    const bool self_closing = tag.back() == '/';
    const std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" />", closing ? 1 : 0) - (closing ? 1 : 0));
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) {
      why = "unbalanced quotes in <" + tag + ">";
      return false;
    }
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        why = "</" + name + "> closes " + (stack.empty() ? "nothing" : stack.back());
        return false;
      }
      stack.pop_back();
    } else if (!self_closing) {
      stack.push_back(name);
    }
    i = end;
  }
  why = stack.empty() ? "" : "unclosed <" + stack.back() + ">";
  return stack.empty();
}

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(Formats, JunitXmlIsWellFormedWithOneTestcasePerExpectation) {
  const std::string dir = temp_dir_with_scenario();
  Diagnostics diags;
  TestCase passing, failing, crashed;
  ASSERT_TRUE(
      parse_test_text("scenario: scenario.yaml\nexpect:\n  - slo: analytics/job-turnaround\n"
                      "  - metric: summary.slos\n    equals: 2\n",
                      dir + "/ok.test.yaml", passing, diags));
  ASSERT_TRUE(parse_test_text(VALID_TEST, dir + "/chat <&>.test.yaml", failing, diags));
  ASSERT_TRUE(parse_test_text("scenario: scenario.yaml\nexpect:\n  - allSlosMet: true\n", dir + "/boom.test.yaml",
                              crashed, diags));
  std::vector<TestResult> results = {evaluate_report(passing, REPORT), evaluate_report(failing, REPORT)};
  TestResult error;
  error.test = &crashed;
  error.status = TestResult::Status::ERROR;
  error.error = "gputwin run killed by signal 11 (Segmentation fault):\n\"quoted\" <stderr> \x01";
  results.push_back(error);
  const std::string xml = junit_xml(results);
  std::string why;
  EXPECT_TRUE(well_formed_xml(xml, why)) << why << "\n" << xml;
  // The strict JUnit schema: no attributes on <testsuites>, each suite with its package, id, timestamp and host.
  EXPECT_NE(xml.find("<testsuites>\n"), std::string::npos) << xml;
  EXPECT_EQ(count_of(xml, " package=\""), 3);
  EXPECT_NE(xml.find(" id=\"2\" timestamp=\""), std::string::npos) << xml;
  EXPECT_EQ(count_of(xml, " hostname=\""), 3);
  EXPECT_EQ(count_of(xml, "<system-out/>"), 3);
  EXPECT_EQ(count_of(xml, " file=\""), 0) << "the schema allows no file attribute";
  EXPECT_EQ(count_of(xml, "<testcase "), 11);
  EXPECT_EQ(count_of(xml, "<failure "), 2);
  EXPECT_EQ(count_of(xml, "<error "), 1);
  EXPECT_EQ(count_of(xml, "<testsuite "), 3);
  EXPECT_NE(xml.find("name=\"chat &lt;&amp;&gt;\""), std::string::npos) << xml;
  EXPECT_EQ(exit_code_for(results), 3);
  results.pop_back();
  EXPECT_EQ(exit_code_for(results), 1);
  EXPECT_EQ(closing_line(results), "1 passed, 1 failed");
  results.pop_back();
  EXPECT_EQ(exit_code_for(results), 0);
}

TEST(Formats, GithubAnnotationsPointAtTheExpectationLine) {
  const std::string dir = temp_dir_with_scenario();
  Diagnostics diags;
  TestCase t;
  ASSERT_TRUE(parse_test_text(VALID_TEST, dir + "/chat,x.test.yaml", t, diags));
  const std::vector<TestResult> results = {evaluate_report(t, REPORT)};
  const std::string out = github_annotations(results);
  const std::regex line(R"(::error file=[^,:]+,line=(\d+),col=(\d+),title=[^:]+::[^\n]+)");
  std::vector<std::string> lines;
  for (size_t start = 0, nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(out.substr(start, nl - start));
  ASSERT_EQ(lines.size(), 2u) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[0], m, line)) << lines[0];
  EXPECT_EQ(m[1], "8");
  EXPECT_EQ(m[2], "5");
  EXPECT_NE(lines[0].find("chat%2Cx.test.yaml"), std::string::npos) << "',' in a property is escaped: " << lines[0];
  EXPECT_NE(lines[0].find("measured false"), std::string::npos) << lines[0];
  ASSERT_TRUE(std::regex_match(lines[1], m, line)) << lines[1];
  EXPECT_EQ(m[1], "9");
  EXPECT_NE(lines[1].find("measured 3"), std::string::npos) << lines[1];
}

TEST(Diff, ExactForCountsAndBooleansRelativeForReals) {
  Json base = REPORT;
  base["provenance"] = {{"host", "a"}, {"wall_seconds", 1.0}};
  Json fresh = base;
  fresh["provenance"] = {{"host", "b"}, {"wall_seconds", 9.0}};
  auto same = diff_reports(base, fresh, {});
  EXPECT_TRUE(same.differences.empty()) << format_diff(same);

  fresh["tenants"][0]["workloads"][0]["latency"]["p99_s"] = 2.4 * 1.005;  // within the 1% default
  same = diff_reports(base, fresh, {});
  EXPECT_TRUE(same.differences.empty()) << format_diff(same);
  EXPECT_EQ(same.within_tolerance, 1u);

  fresh["tenants"][0]["workloads"][0]["latency"]["p99_s"] = 2.4 * 1.03;
  fresh["summary"]["slos_missed"] = 2;
  fresh["tenants"][1]["slos"][0]["met"] = false;
  auto moved = diff_reports(base, fresh, {});
  ASSERT_EQ(moved.differences.size(), 3u) << format_diff(moved);
  const std::string text = format_diff(moved);
  EXPECT_NE(text.find("~ summary.slos_missed: 1 -> 2 (+1, +100.0%)"), std::string::npos) << text;
  EXPECT_NE(text.find("~ tenants[name=chat].workloads[name=chat-svc].latency.p99_s: 2.4 -> 2.472 (+0.072, +3.0%)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("~ tenants[name=analytics].slos[name=job-turnaround].met: true -> false"), std::string::npos)
      << text;

  DiffOptions loose;
  ToleranceRule rule;
  std::string error;
  ASSERT_TRUE(parse_tolerance_rule("latency=5%", rule, error)) << error;
  loose.tolerances.push_back(rule);
  EXPECT_EQ(diff_reports(base, fresh, loose).differences.size(), 2u);
  ASSERT_TRUE(parse_tolerance_rule("*=0", rule, error));
  DiffOptions exact;
  exact.tolerances.push_back(rule);
  fresh = base;
  fresh["gpus"][1]["utilisation"] = 0.5000001;
  EXPECT_EQ(diff_reports(base, fresh, exact).differences.size(), 1u);
  EXPECT_FALSE(parse_tolerance_rule("latency", rule, error));
  EXPECT_FALSE(parse_tolerance_rule("latency=-1", rule, error));
}

TEST(Diff, AddedRemovedAndReorderedItems) {
  Json base = REPORT;
  Json fresh = REPORT;
  std::swap(fresh["tenants"][0], fresh["tenants"][1]);  // matched by name: not a difference
  EXPECT_TRUE(diff_reports(base, fresh, {}).differences.empty());
  fresh["cost"] = {{"total", 12.5}};
  fresh["gpus"].erase(1);
  const auto r = diff_reports(base, fresh, {});
  const std::string text = format_diff(r);
  EXPECT_NE(text.find("+ cost.total: 12.5"), std::string::npos) << text;
  EXPECT_NE(text.find("- gpus[index=1].utilisation: 0.5"), std::string::npos) << text;
  DiffOptions ignoring;
  ignoring.ignore = {"cost", "gpus[index=1]*"};
  EXPECT_TRUE(diff_reports(base, fresh, ignoring).differences.empty())
      << format_diff(diff_reports(base, fresh, ignoring));
}

}  // namespace
}  // namespace gtw::regress
