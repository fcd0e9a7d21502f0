#include "TestRun.hpp"
#include "XmlText.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

#include "Errors.hpp"
#include "InputFile.hpp"
#include "Process.hpp"
#include "StrictJson.hpp"
#include "Text.hpp"

namespace fs = std::filesystem;

namespace gtw::regress {
namespace {

std::string seconds_text(double s) {
  return format_printf("%.2f s", s);
}

std::string location_text(const SourceLoc& loc) {
  return loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

// GitHub workflow commands: the message escapes %, CR, LF; properties also ',' and ':'.
std::string gh_data(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string gh_property(const std::string& s) {
  std::string out;
  for (char c : gh_data(s)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

// JUnit's timestamp (xs:dateTime without a zone, as the schema wants it) of now in UTC; SOURCE_DATE_EPOCH (the
// reproducible-builds convention, which also pins `gputwin run`'s provenance) fixes it. `gputwin` refuses a
// malformed SOURCE_DATE_EPOCH before anything runs; here one is read as unset.
std::string junit_timestamp() {
  std::time_t t = std::time(nullptr);
  if (const char* text = std::getenv("SOURCE_DATE_EPOCH"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text, &end, 10);
    if (*end == '\0' && errno == 0 && value >= 0) t = static_cast<std::time_t>(value);
  }
  std::tm utc{};
  if (gmtime_r(&t, &utc) == nullptr) return "1970-01-01T00:00:00";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  return buf;
}

// The schema's hostname: "localhost" when it cannot be determined.
std::string junit_hostname() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

std::string expectation_title(const Expectation& e) {
  return e.name.empty() ? e.describe() : e.name + ": " + e.describe();
}

std::string status_word(TestResult::Status s) {
  switch (s) {
    case TestResult::Status::PASSED:
      return "PASS";
    case TestResult::Status::FAILED:
      return "FAIL";
    case TestResult::Status::INVALID:
      return "INVALID";
    case TestResult::Status::ERROR:
      return "ERROR";
  }
  return "?";
}

}  // namespace

size_t TestResult::failed_count() const {
  size_t n = 0;
  for (const auto& o : outcomes) n += o.passed ? 0 : 1;
  return n;
}

TestResult evaluate_report(const TestCase& test, const Json& report) {
  TestResult r;
  r.test = &test;
  for (const auto& e : test.expectations) r.outcomes.push_back(evaluate(e, report));
  r.status = r.failed_count() == 0 ? TestResult::Status::PASSED : TestResult::Status::FAILED;
  return r;
}

std::vector<std::string> output_names(const std::vector<TestCase>& tests) {
  std::vector<std::string> names;
  std::set<std::string> used;
  for (const auto& t : tests) {
    std::string base;
    for (char c : t.name)
      base += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
    if (base.empty() || base[0] == '.') base = "test" + base;
    std::string name = base;
    for (int k = 2; used.count(name); ++k) name = base + "-" + std::to_string(k);
    used.insert(name);
    names.push_back(name);
  }
  return names;
}

std::vector<TestResult> run_tests(const std::vector<TestCase>& tests, const TestRunOptions& options,
                                  const std::function<void(const TestResult&)>& on_result) {
  std::vector<TestResult> results(tests.size());
  const std::string started = junit_timestamp();  // the runs start now (they may wait for a free slot)
  std::vector<ChildJob> jobs;
  const auto names = output_names(tests);
  for (size_t i = 0; i < tests.size(); ++i) {
    const auto& t = tests[i];
    const std::string dir = (fs::path(options.out_root) / names[i]).string();
    std::error_code ec;
    fs::remove(fs::path(dir) / "report.json", ec);  // a stale report must not pass for a new one
    fs::create_directories(dir, ec);
    if (ec) throw RuntimeError("cannot create " + dir + ": " + ec.message());
    ChildJob job;
    job.argv = {options.gputwin, "run", t.scenario, "-o", dir, "--progress", "none", "--format", "json,md"};
    if (t.seed) job.argv.insert(job.argv.end(), {"--seed", std::to_string(*t.seed)});
    for (const auto& o : t.overrides) job.argv.insert(job.argv.end(), {"--set", o});
    job.stdout_path = (fs::path(dir) / "run.stdout").string();
    job.stderr_path = (fs::path(dir) / "run.stderr").string();
    job.timeout_seconds = t.timeout_seconds;
    jobs.push_back(job);
    results[i].test = &t;
    results[i].out_dir = dir;
    results[i].started_utc = started;
  }
  run_children(jobs, options.parallel, [&](size_t i, const ChildResult& child) {
    TestResult& r = results[i];
    r.seconds = child.seconds;
    const std::string report_path = (fs::path(r.out_dir) / "report.json").string();
    if (!child.ok()) {
      r.status = child.exit_code == EXIT_INVALID_INPUT ? TestResult::Status::INVALID : TestResult::Status::ERROR;
      r.error = "gputwin run " + child.describe(jobs[i].timeout_seconds);
      const std::string err = tail_of_file(jobs[i].stderr_path, 1500);
      if (!err.empty()) r.error += ": " + err;  // the first line carries the first diagnostic
    } else {
      try {
        Diagnostics diags;
        const auto text = read_input_file(report_path, InputKind::REPORT_JSON, diags);
        if (!text) throw std::runtime_error(diags.all().front().message);
        const Json report = parse_json_strict<Json>(*text);
        TestResult evaluated = evaluate_report(*r.test, report);
        r.status = evaluated.status;
        r.outcomes = std::move(evaluated.outcomes);
      } catch (const std::exception& ex) {
        r.status = TestResult::Status::ERROR;
        r.error = "cannot read " + report_path + ": " + ex.what();
      }
    }
    if (on_result) on_result(r);
  });
  return results;
}

std::string summary_text(const TestResult& r) {
  const auto& t = *r.test;
  std::string out = status_word(r.status);
  out.resize(8, ' ');
  out += t.name;
  out.resize(std::max(out.size() + 2, size_t{32}), ' ');
  if (r.status == TestResult::Status::PASSED || r.status == TestResult::Status::FAILED) {
    out += std::to_string(t.expectations.size() - r.failed_count()) + "/" + std::to_string(t.expectations.size()) +
           " expectations met";
  } else {
    out += "run failed";
  }
  out += "  " + seconds_text(r.seconds) + "  (" + t.file + ")\n";
  if (r.status == TestResult::Status::INVALID || r.status == TestResult::Status::ERROR) {
    std::string error = r.error;
    while (!error.empty() && error.back() == '\n') error.pop_back();
    for (size_t pos = 0; (pos = error.find('\n', pos)) != std::string::npos; pos += 7) error.insert(pos + 1, "      ");
    out += "    " + location_text(t.scenario_loc) + ": " + t.scenario + ": " + error + "\n";
  }
  for (size_t i = 0; i < r.outcomes.size(); ++i) {
    if (r.outcomes[i].passed) continue;
    const auto& e = t.expectations[i];
    out += "    " + location_text(e.loc) + ": " + (e.name.empty() ? "" : e.name + ": ") + r.outcomes[i].message + "\n";
  }
  return out;
}

std::string closing_line(const std::vector<TestResult>& results) {
  size_t passed = 0, failed = 0, errors = 0;
  for (const auto& r : results) {
    if (r.status == TestResult::Status::PASSED)
      ++passed;
    else if (r.status == TestResult::Status::FAILED)
      ++failed;
    else
      ++errors;
  }
  std::string out = std::to_string(passed) + " passed, " + std::to_string(failed) + " failed";
  if (errors) out += ", " + std::to_string(errors) + " errors";
  return out;
}

std::string junit_xml(const std::vector<TestResult>& results) {
  // The strict common JUnit schema (tests/fixtures/schemas/JUnit.xsd): <testsuites> carries no attributes
  // (the totals are the suites'), each suite its package and id, a timestamp without zone, the host and its time,
  // properties before the test cases and system-out / system-err after them; a test case only its name,
  // classname and time, so the expectation's file:line leads the failure text.
  const std::string host = junit_hostname();
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites>\n";
  for (size_t s = 0; s < results.size(); ++s) {
    const auto& r = results[s];
    const auto& t = *r.test;
    const bool ran = r.status == TestResult::Status::PASSED || r.status == TestResult::Status::FAILED;
    const size_t n = t.expectations.size();
    x += "  <testsuite name=\"" + xml_escape(t.name) + "\" package=\"" + xml_escape(t.file) + "\" id=\"" +
         std::to_string(s) + "\" timestamp=\"" + (r.started_utc.empty() ? junit_timestamp() : r.started_utc) +
         "\" hostname=\"" + xml_escape(host) + "\" tests=\"" + std::to_string(n) + "\" failures=\"" +
         std::to_string(ran ? r.failed_count() : 0) + "\" errors=\"" + std::to_string(ran ? 0 : n) + "\" time=\"" +
         format_printf("%.3f", r.seconds) + "\">\n";
    x += "    <properties>\n";
    x += "      <property name=\"file\" value=\"" + xml_escape(t.file) + "\"/>\n";
    x += "      <property name=\"scenario\" value=\"" + xml_escape(t.scenario) + "\"/>\n";
    if (ran && !r.out_dir.empty())
      x += "      <property name=\"report\" value=\"" + xml_escape(r.out_dir) + "/report.json\"/>\n";
    x += "    </properties>\n";
    for (size_t i = 0; i < n; ++i) {
      const auto& e = t.expectations[i];
      // Each expectation's share of the run time: the scenario runs once for all of them.
      x += "    <testcase classname=\"" + xml_escape(t.name) + "\" name=\"" + xml_escape(expectation_title(e)) +
           "\" time=\"" + format_printf("%.3f", n ? r.seconds / static_cast<double>(n) : 0.0) + "\"";
      if (!ran) {
        x += ">\n      <error message=\"" + xml_escape(r.error.substr(0, r.error.find('\n'))) + "\" type=\"run\">" +
             xml_escape(location_text(t.scenario_loc)) + ": " + xml_escape(r.error) + "</error>\n    </testcase>\n";
      } else if (!r.outcomes[i].passed) {
        const auto& o = r.outcomes[i];
        x += ">\n      <failure message=\"" + xml_escape(o.message) + "\" type=\"" +
             (o.metric_found ? "expectation" : "metric-not-found") + "\">" + xml_escape(location_text(e.loc)) + ": " +
             xml_escape(o.message) + "\nmeasured: " + xml_escape(o.measured) + "\nreport: " + xml_escape(r.out_dir) +
             "/report.json</failure>\n    </testcase>\n";
      } else {
        x += "/>\n";
      }
    }
    x += "    <system-out/>\n    <system-err/>\n";
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

std::string github_annotations(const std::vector<TestResult>& results) {
  std::string out;
  const auto annotate = [&](const SourceLoc& loc, const std::string& title, const std::string& message) {
    out += "::error file=" + gh_property(loc.file) + ",line=" + std::to_string(loc.line) +
           ",col=" + std::to_string(loc.column) + ",title=" + gh_property(title) + "::" + gh_data(message) + "\n";
  };
  for (const auto& r : results) {
    const auto& t = *r.test;
    if (r.status == TestResult::Status::INVALID || r.status == TestResult::Status::ERROR) {
      annotate(t.scenario_loc, "gputwin test " + t.name, "scenario " + t.scenario + ": " + r.error);
      continue;
    }
    for (size_t i = 0; i < r.outcomes.size(); ++i) {
      if (r.outcomes[i].passed) continue;
      const auto& e = t.expectations[i];
      annotate(e.loc, "gputwin test " + t.name,
               "scenario " + t.name + ": expectation " + expectation_title(e) + " failed: measured " +
                   r.outcomes[i].measured + (r.outcomes[i].metric_found ? "" : " (" + r.outcomes[i].message + ")"));
    }
  }
  return out;
}

int exit_code_for(const std::vector<TestResult>& results) {
  bool invalid = false, error = false, failed = false;
  for (const auto& r : results) {
    invalid = invalid || r.status == TestResult::Status::INVALID;
    error = error || r.status == TestResult::Status::ERROR;
    failed = failed || r.status == TestResult::Status::FAILED;
  }
  if (invalid) return EXIT_INVALID_INPUT;
  if (error) return EXIT_INTERNAL;
  return failed ? EXIT_EXPECTATION : EXIT_OK;
}

}  // namespace gtw::regress
