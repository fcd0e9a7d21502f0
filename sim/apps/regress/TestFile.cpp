#include "TestFile.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "Units.hpp"
#include "YamlInput.hpp"

namespace fs = std::filesystem;

namespace gtw::regress {
namespace {

const std::vector<std::string> TOP_KEYS = {"apiVersion", "kind", "metadata", "name",    "description",
                                           "scenario",   "seed", "set",      "timeout", "expect"};
const std::vector<std::string> COMPARISON_KEYS = {"op", "value", "max", "min", "equals", "notEquals", "below", "above"};
const std::vector<std::string> SHORTHAND_KEYS = {"slo",         "allSlosMet",  "latency",        "slowdown",
                                                 "utilisation", "faultCount",  "replicasFailed", "jobsFailed",
                                                 "compliance",  "allCompliant"};
const std::vector<std::string> MODIFIER_KEYS = {"name", "metric", "tolerance",  "aggregate",
                                                "met",  "field",  "percentile", "tenant"};

std::vector<std::string> expectation_keys() {
  std::vector<std::string> keys = MODIFIER_KEYS;
  keys.insert(keys.end(), COMPARISON_KEYS.begin(), COMPARISON_KEYS.end());
  keys.insert(keys.end(), SHORTHAND_KEYS.begin(), SHORTHAND_KEYS.end());
  return keys;
}

SourceLoc loc_of(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null() || m.line < 0) return SourceLoc{file, 0, 0};
  return SourceLoc{file, m.line + 1, m.column + 1};
}

bool is_quoted(const YAML::Node& n) {
  return n.IsScalar() && n.Tag() == "!";  // yaml-cpp tags quoted scalars "!" (non-plain)
}

// Flow-style YAML text of a node, for --set values given as mappings or lists.
std::string flow_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

class TestParser {
 public:
  TestParser(const std::string& file, Diagnostics& diags) : file_(file), d_(diags) {}

  void parse(const YAML::Node& root, TestCase& out) {
    if (!root.IsMap()) {
      d_.error(loc_of(file_, root), "", "a test file is a YAML mapping with scenario: and expect:");
      return;
    }
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (std::find(TOP_KEYS.begin(), TOP_KEYS.end(), key) == TOP_KEYS.end())
        d_.error(loc_of(file_, kv.first), key, "unknown key" + suggest(key, TOP_KEYS));
    }
    if (const auto kind = root["kind"]; kind && (!kind.IsScalar() || kind.Scalar() != "Test")) {
      d_.error(loc_of(file_, kind), "kind",
               "expected 'Test'" + std::string(kind.IsScalar() && kind.Scalar() == "Scenario"
                                                   ? " (this is a scenario; its expectations go in a .test.yaml "
                                                     "file beside it)"
                                                   : ""));
    }
    out.file = file_;
    out.name = fs::path(file_).filename().string();
    if (out.name.size() > std::string(TEST_FILE_SUFFIX).size() && out.name.ends_with(TEST_FILE_SUFFIX))
      out.name.resize(out.name.size() - std::string(TEST_FILE_SUFFIX).size());
    if (const auto md = root["metadata"]; md && md.IsMap() && md["name"] && md["name"].IsScalar())
      out.name = md["name"].Scalar();
    if (const auto n = root["name"]) scalar(n, "name", out.name);

    if (const auto s = root["scenario"]) {
      std::string rel;
      if (scalar(s, "scenario", rel)) {
        out.scenario_loc = loc_of(file_, s);
        fs::path p(rel);
        if (p.is_relative()) p = fs::path(file_).parent_path() / p;
        out.scenario = p.lexically_normal().string();
        std::error_code ec;
        if (!fs::is_regular_file(out.scenario, ec))
          d_.error(out.scenario_loc, "scenario", "no scenario file '" + out.scenario + "' (relative to the test file)");
      }
    } else {
      d_.error(SourceLoc{file_, 1, 1}, "scenario", "missing: the scenario file this test runs");
    }
    if (const auto s = root["seed"]) {
      std::string text;
      if (scalar(s, "seed", text)) {
        try {
          size_t used = 0;
          const unsigned long long v = std::stoull(text, &used);
          if (used != text.size() || text[0] == '-') throw std::invalid_argument(text);
          out.seed = v;
        } catch (const std::exception&) {
          d_.error(loc_of(file_, s), "seed", "expected a non-negative integer, got '" + text + "'");
        }
      }
    }
    if (const auto t = root["timeout"]) {
      std::string text;
      if (scalar(t, "timeout", text)) {
        auto d = parse_duration(text);
        if (d && d.quantity->value > 0)
          out.timeout_seconds = d.quantity->value;
        else
          d_.error(loc_of(file_, t), "timeout", "expected a positive duration such as 60s or 5m");
      }
    }
    if (const auto set = root["set"]) read_overrides(set, out);
    const auto expect = root["expect"];
    if (!expect) {
      d_.error(SourceLoc{file_, 1, 1}, "expect", "missing: the list of expectations");
    } else if (!expect.IsSequence() || expect.size() == 0) {
      d_.error(loc_of(file_, expect), "expect", "expected a non-empty list of expectations");
    } else {
      for (size_t i = 0; i < expect.size(); ++i) {
        Expectation e;
        if (read_expectation(expect[i], "expect[" + std::to_string(i) + "]", e)) out.expectations.push_back(e);
      }
    }
  }

 private:
  std::string file_;
  Diagnostics& d_;

  bool scalar(const YAML::Node& n, const std::string& path, std::string& out) {
    if (!n.IsScalar()) {
      d_.error(loc_of(file_, n), path, "expected a scalar value");
      return false;
    }
    out = n.Scalar();
    return true;
  }

  void read_overrides(const YAML::Node& set, TestCase& out) {
    if (set.IsMap()) {
      for (const auto& kv : set) out.overrides.push_back(kv.first.Scalar() + "=" + flow_text(kv.second));
    } else if (set.IsSequence()) {
      for (size_t i = 0; i < set.size(); ++i) {
        std::string text;
        if (!scalar(set[i], "set[" + std::to_string(i) + "]", text)) continue;
        if (text.find('=') == std::string::npos || text[0] == '=')
          d_.error(loc_of(file_, set[i]), "set[" + std::to_string(i) + "]", "expected path=value, got '" + text + "'");
        else
          out.overrides.push_back(text);
      }
    } else {
      d_.error(loc_of(file_, set), "set", "expected a mapping of scenario path: value (or a list of path=value)");
    }
  }

  // A shorthand or the general form, into metric + comparison.
  bool read_expectation(const YAML::Node& n, const std::string& path, Expectation& e) {
    e.loc = loc_of(file_, n);
    if (!n.IsMap()) {
      d_.error(e.loc, path, "expected a mapping such as {metric: summary.slos_missed, op: '==', value: 0}");
      return false;
    }
    const size_t errors_before = d_.error_count();
    const auto keys = expectation_keys();
    std::map<std::string, YAML::Node> given;
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        d_.error(loc_of(file_, kv.first), path, "unknown key '" + key + "'" + suggest(key, keys));
        continue;
      }
      given[key] = kv.second;
    }
    const auto text_of = [&](const std::string& key) -> std::optional<std::string> {
      auto it = given.find(key);
      if (it == given.end()) return std::nullopt;
      std::string s;
      if (!scalar(it->second, path + "." + key, s)) return std::nullopt;
      return s;
    };
    if (auto name = text_of("name")) e.name = *name;

    // Which form: the general `metric:` or exactly one shorthand.
    std::vector<std::string> forms;
    for (const auto& k : SHORTHAND_KEYS)
      if (given.count(k)) forms.push_back(k);
    if (given.count("metric")) forms.push_back("metric");
    if (forms.size() != 1) {
      d_.error(e.loc, path,
               forms.empty() ? "expected 'metric:' or one of the shorthands (slo, allSlosMet, compliance, "
                               "allCompliant, latency, slowdown, "
                               "utilisation, faultCount, replicasFailed, jobsFailed)"
                             : "give one of '" + forms[0] + "' and '" + forms[1] + "', not both");
      return false;
    }
    const std::string form = forms[0];
    const YAML::Node subject_node = given[form];
    std::string subject;
    if (!scalar(subject_node, path + "." + form, subject)) return false;

    // Modifiers that belong to one shorthand only.
    const std::map<std::string, std::vector<std::string>> modifier_owner = {
        {"met", {"slo"}}, {"field", {"slo"}}, {"percentile", {"latency"}}, {"tenant", {"utilisation"}}};
    for (const auto& [modifier, owners] : modifier_owner) {
      if (given.count(modifier) && std::find(owners.begin(), owners.end(), form) == owners.end())
        d_.error(loc_of(file_, given[modifier]), path + "." + modifier, "applies only to '" + owners[0] + ":'");
    }

    std::string metric;
    std::optional<std::pair<Op, std::string>> implied;  // comparison when none is written
    bool value_node_quoted = false;
    if (form == "metric") {
      metric = subject;
    } else if (form == "slo") {
      const auto slash = subject.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == subject.size()) {
        d_.error(loc_of(file_, subject_node), path + ".slo", "expected TENANT/SLO, e.g. chat/p99-latency");
        return false;
      }
      const std::string field = text_of("field").value_or("met");
      metric = "tenants[name=" + subject.substr(0, slash) + "].slos[name=" + subject.substr(slash + 1) + "]." + field;
      if (auto met = text_of("met")) {
        if (given.count("field")) d_.error(e.loc, path, "give 'met:' or 'field:', not both");
        if (*met != "true" && *met != "false")
          d_.error(loc_of(file_, given["met"]), path + ".met", "expected true or false");
        implied = {Op::EQ, *met};
      } else if (field == "met") {
        implied = {Op::EQ, "true"};
      }
    } else if (form == "allSlosMet") {
      if (subject != "true" && subject != "false") {
        d_.error(loc_of(file_, subject_node), path + ".allSlosMet", "expected true or false");
        return false;
      }
      metric = "summary.slos_missed";
      implied = subject == "true" ? std::pair{Op::EQ, std::string("0")} : std::pair{Op::GT, std::string("0")};
    } else if (form == "latency") {
      std::string p = text_of("percentile").value_or("99");
      if (!p.empty() && p[0] == 'p') p.erase(0, 1);
      if (p != "50" && p != "95" && p != "99" && p != "max" && p != "mean") {
        d_.error(loc_of(file_, given["percentile"]), path + ".percentile", "expected 50, 95, 99, max or mean");
        return false;
      }
      metric = "tenants[*].workloads[name=" + subject + "].latency." + (p == "max" || p == "mean" ? p : "p" + p) + "_s";
    } else if (form == "slowdown") {
      metric = "tenants[*].workloads[name=" + subject + "].max_slowdown";
    } else if (form == "utilisation") {
      const std::string gpu = subject == "*" ? "gpus[*]" : "gpus[index=" + subject + "]";
      if (auto tenant = text_of("tenant"))
        metric = gpu + ".utilisation_by_tenant." + *tenant;
      else
        metric = gpu + ".utilisation";
    } else if (form == "compliance") {
      // `compliance: POLICY` reads as "the rule passed"; `equals: fail` expects it to fail.
      metric = "compliance.findings[policy=" + subject + "].status";
      implied = {Op::EQ, "pass"};
    } else if (form == "allCompliant") {
      if (subject != "true" && subject != "false") {
        d_.error(loc_of(file_, subject_node), path + ".allCompliant", "expected true or false");
        return false;
      }
      metric = "compliance.summary.fail";
      implied = subject == "true" ? std::pair{Op::EQ, std::string("0")} : std::pair{Op::GT, std::string("0")};
    } else if (form == "faultCount") {
      // `faultCount: 1` reads as "exactly one fault"; a comparison key may replace the number.
      metric = "faults";
      e.aggregate = Aggregate::COUNT;
      if (subject != "count") implied = {Op::EQ, subject};
    } else if (form == "replicasFailed") {
      metric = "tenants[*].workloads[name=" + subject + "].replicas_failed";
      implied = {Op::EQ, "0"};
    } else if (form == "jobsFailed") {
      metric = "tenants[*].workloads[name=" + subject + "].jobs.failed";
      implied = {Op::EQ, "0"};
    }
    if (form != "metric") e.shorthand = form + " " + subject;

    std::string error;
    int column = 0;
    auto parsed = parse_report_path(metric, error, column);
    if (!parsed) {
      SourceLoc at = loc_of(file_, subject_node);
      if (form == "metric" && at.column > 0 && !is_quoted(subject_node)) at.column += column - 1;
      d_.error(at, path + "." + form, error + " in '" + metric + "'");
      return false;
    }
    e.metric = *parsed;
    const std::string last_key = [&] {
      for (auto it = e.metric.segments.rbegin(); it != e.metric.segments.rend(); ++it)
        if (it->kind == PathSegment::Kind::KEY) return it->key;
      return std::string();
    }();

    if (auto agg = text_of("aggregate")) {
      auto a = parse_aggregate(*agg);
      if (!a) {
        d_.error(
            loc_of(file_, given["aggregate"]), path + ".aggregate",
            "unknown aggregate '" + *agg + "'" + suggest(*agg, {"all", "any", "max", "min", "sum", "mean", "count"}));
      } else {
        e.aggregate = *a;
      }
    }

    // The comparison: op + value, or one of max/min/equals/notEquals/below/above.
    const std::vector<std::pair<std::string, Op>> named = {{"max", Op::LE},       {"min", Op::GE},   {"equals", Op::EQ},
                                                           {"notEquals", Op::NE}, {"below", Op::LT}, {"above", Op::GT}};
    std::vector<std::string> comparisons;
    for (const auto& [k, op] : named)
      if (given.count(k)) comparisons.push_back(k);
    if (given.count("op") || given.count("value")) comparisons.push_back("op/value");
    std::string value_text;
    YAML::Node value_node;
    if (comparisons.size() > 1) {
      d_.error(e.loc, path, "give one comparison, found " + comparisons[0] + " and " + comparisons[1]);
      return false;
    }
    if (comparisons.empty()) {
      if (!implied) {
        d_.error(e.loc, path,
                 "no comparison: add op: and value:, or one of max:, min:, equals:, notEquals:, below:, above:");
        return false;
      }
      e.op = implied->first;
      value_text = implied->second;
      value_node = subject_node;
    } else if (comparisons[0] == "op/value") {
      if (!given.count("op") || !given.count("value")) {
        d_.error(e.loc, path, "'op:' and 'value:' go together");
        return false;
      }
      auto op_text_given = text_of("op");
      if (!op_text_given) return false;
      auto op = parse_op(*op_text_given);
      if (!op) {
        d_.error(loc_of(file_, given["op"]), path + ".op",
                 "unknown operator '" + *op_text_given +
                     "'; valid operators: <=, <, >=, >, ==, != (quote them: '>=') or le, lt, ge, gt, eq, ne");
        return false;
      }
      e.op = *op;
      value_node = given["value"];
    } else {
      for (const auto& [k, op] : named)
        if (k == comparisons[0]) e.op = op;
      value_node = given[comparisons[0]];
    }
    if (value_text.empty()) {
      if (!scalar(value_node, path + ".value", value_text)) return false;
      value_node_quoted = is_quoted(value_node);
    }
    auto value = parse_expected_value(value_text, value_node_quoted, last_key, error);
    if (!value) {
      d_.error(loc_of(file_, value_node), path + ".value", error);
      return false;
    }
    e.value = *value;
    if (e.value.kind != ExpectedValue::Kind::NUMBER && e.op != Op::EQ && e.op != Op::NE) {
      d_.error(loc_of(file_, value_node), path + ".value",
               std::string("'") + op_text(e.op) + "' compares numbers; '" + value_text + "' is not a number");
      return false;
    }
    if (auto tol = text_of("tolerance")) {
      auto t = parse_tolerance(*tol, error);
      if (!t)
        d_.error(loc_of(file_, given["tolerance"]), path + ".tolerance", error);
      else if (e.value.kind != ExpectedValue::Kind::NUMBER)
        d_.error(loc_of(file_, given["tolerance"]), path + ".tolerance", "a tolerance applies to numbers only");
      else
        e.tolerance = *t;
    }
    return d_.error_count() == errors_before;
  }
};

}  // namespace

bool parse_test_text(const std::string& text, const std::string& path, TestCase& out, Diagnostics& diags) {
  const size_t before = diags.error_count();
  const auto root = parse_yaml_input(text, path, "scenario: and expect:", diags);
  if (!root) return false;
  TestParser(path, diags).parse(*root, out);
  return diags.error_count() == before;
}

bool load_test_file(const std::string& path, TestCase& out, Diagnostics& diags) {
  const auto text = read_yaml_input(path, diags);
  return text && parse_test_text(*text, path, out, diags);
}

std::vector<std::string> discover_test_files(const std::vector<std::string>& args, Diagnostics& diags) {
  std::vector<std::string> files;
  for (const auto& arg : args) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(arg, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->is_regular_file(ec) && name.ends_with(TEST_FILE_SUFFIX)) found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());  // directory order is not deterministic
      if (found.empty()) diags.error(SourceLoc{arg, 0, 0}, "", "no *.test.yaml files in this folder");
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(arg, ec)) {
      if (arg.ends_with(TEST_FILE_SUFFIX)) {
        files.push_back(arg);
        continue;
      }
      // A scenario: its expectations live beside it in <stem>.test.yaml.
      const fs::path p(arg);
      const fs::path sibling = p.parent_path() / (p.stem().string() + TEST_FILE_SUFFIX);
      if (fs::is_regular_file(sibling, ec))
        files.push_back(sibling.string());
      else
        diags.error(SourceLoc{arg, 0, 0}, "",
                    "not a test file (*.test.yaml) and no " + sibling.filename().string() + " beside it");
    } else {
      diags.error(SourceLoc{arg, 0, 0}, "", "no such file or folder");
    }
  }
  // The same test named twice (a folder and a file in it) runs once.
  std::vector<std::string> unique;
  for (const auto& f : files) {
    const std::string norm = fs::path(f).lexically_normal().string();
    if (std::find(unique.begin(), unique.end(), norm) == unique.end()) unique.push_back(norm);
  }
  return unique;
}

}  // namespace gtw::regress
