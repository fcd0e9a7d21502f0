// Compliance outputs. Every finding carries its evidence (event seq, audit record, time, resource)
// so a reader can go from a failed rule to the exact events in report.json / results.h5 / audit.jsonl.
#include "ComplianceWriters.hpp"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "XmlText.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include "Text.hpp"
#include "Writers.hpp"

namespace gtw {

namespace {

using json = nlohmann::ordered_json;

std::string short_number(double v) {
  return format_printf("%.6g", v);
}

// SARIF security-severity (0-10) per PolicyReport severity, so code scanning ranks them
// (Critical >= 9, High >= 7, Medium >= 4, Low < 4).
double security_severity(const std::string& severity) {
  if (severity == "critical") return 9.5;
  if (severity == "high") return 8.0;
  if (severity == "medium") return 5.5;
  if (severity == "low") return 3.0;
  return 1.0;
}

std::string uri_of(const std::string& path) {
  std::string out = path.rfind('/', 0) == 0 ? "file://" : "";
  for (char c : path) {
    if (c == ' ')
      out += "%20";
    else if (c == '%')
      out += "%25";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string docs_uri(const std::string& relative) {
#ifdef GTW_DOCS_DIR
  const std::string base = GTW_DOCS_DIR;
#else
#error "GTW_DOCS_DIR (the source tree's docs/ folder) must be defined by sim/report/CMakeLists.txt"
#endif
  return uri_of(base + "/" + relative);
}

json sarif_location(const SourceLoc& loc, const std::string& fallback_file) {
  json region = {{"startLine", loc.line > 0 ? loc.line : 1}};
  if (loc.column > 0) region["startColumn"] = loc.column;
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", uri_of(loc.file.empty() ? fallback_file : loc.file)}}}, {"region", region}}}};
}

std::string evidence_text(const policy::ComplianceEvidence& e) {
  std::string s = "t=" + format_duration(Seconds(e.time));
  if (e.event >= 0) s += " event " + std::to_string(e.event);
  if (e.audit_record >= 0) s += " record " + std::to_string(e.audit_record);
  if (!e.resource.empty()) s += " " + e.resource;
  if (!e.detail.empty()) s += ": " + e.detail;
  return s;
}

std::string source_location_text(const SourceLoc& loc) {
  if (loc.file.empty() && loc.line <= 0) return {};
  return loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

json compliance_json(const ScenarioSpec& spec, const ComplianceReport& c) {
  (void)spec;
  json out;
  out["summary"] = {
      {"pass", c.passed}, {"fail", c.failed}, {"warn", c.warned}, {"error", c.errored}, {"skip", c.skipped}};
  json findings = json::array();
  for (const auto& f : c.findings) {
    json evidence = json::array();
    for (const auto& e : f.evidence) {
      json ej = {{"time_s", e.time},
                 {"event", e.event >= 0 ? json(e.event) : json()},
                 {"audit_record", e.audit_record >= 0 ? json(e.audit_record) : json()},
                 {"resource", e.resource},
                 {"detail", e.detail}};
      if (!e.kind.empty()) ej["kind"] = e.kind;
      if (const auto where = source_location_text(e.loc); !where.empty()) ej["location"] = where;
      evidence.push_back(std::move(ej));
    }
    findings.push_back({{"policy", f.policy},
                        {"rule", f.rule},
                        {"rule_id", f.rule_id},
                        {"title", f.title},
                        {"status", policy::compliance_status_name(f.status)},
                        {"severity", f.severity},
                        {"action", f.action == ComplianceAction::ENFORCE ? "enforce" : "audit"},
                        {"requirements", f.requirements},
                        {"message", f.message},
                        {"checked", f.checked},
                        {"violations", f.violations},
                        {"prevented", f.prevented},
                        {"evidence", evidence},
                        {"evidence_omitted", f.evidence_omitted},
                        {"location", source_location_text(f.loc)}});
  }
  out["findings"] = findings;
  json enforcement = json::array();
  for (const auto& e : c.enforcement)
    enforcement.push_back({{"policy", e.policy},
                           {"placements_refused", e.placements_refused},
                           {"accesses_refused", e.accesses_refused},
                           {"key_releases_refused", e.key_releases_refused},
                           {"workloads_affected", e.workloads_affected}});
  out["enforcement"] = enforcement;
  out["audit"] = {{"records", c.audit.records.size()},
                  {"lost", c.audit.lost.size()},
                  {"tampered", c.audit.tampered},
                  {"chain",
                   {{"intact", c.chain.intact},
                    {"first_bad_record", c.chain.first_bad >= 0 ? json(c.chain.first_bad) : json()},
                    {"reason", c.chain.reason}}}};
  return out;
}

void compliance_markdown(std::ostringstream& md, const ScenarioSpec& spec, const ComplianceReport& c) {
  (void)spec;
  md << "## Compliance\n\n";
  md << c.passed << " passed, " << c.failed << " failed, " << c.warned << " warned, " << c.errored << " errors, "
     << c.skipped << " skipped. Audit stream: " << c.audit.records.size() << " records, " << c.audit.lost.size()
     << " lost, chain " << (c.chain.intact ? "intact" : "broken at record " + std::to_string(c.chain.first_bad))
     << ". Rules and formulas: docs/models/compliance.md.\n\n";
  md << "| policy | rule | result | severity | action | checked | violations | prevented | requirements |\n";
  md << "|---|---|---|---|---|---:|---:|---:|---|\n";
  for (const auto& f : c.findings) {
    std::string reqs;
    for (const auto& r : f.requirements) reqs += (reqs.empty() ? "" : "; ") + r;
    md << "| " << f.policy << " | " << f.rule_id << " " << f.rule << " | **" << policy::compliance_status_name(f.status)
       << "** | " << f.severity << " | " << (f.action == ComplianceAction::ENFORCE ? "enforce" : "audit") << " | "
       << f.checked << " | " << f.violations << " | " << f.prevented << " | " << reqs << " |\n";
  }
  md << "\n";
  for (const auto& f : c.findings) {
    if (f.status != policy::ComplianceStatus::FAIL && f.status != policy::ComplianceStatus::WARN &&
        f.status != policy::ComplianceStatus::ERROR)
      continue;
    md << "**" << f.policy << "** (" << f.rule_id << ", " << policy::compliance_status_name(f.status)
       << "): " << f.message << "\n\n";
    for (const auto& e : f.evidence) md << "- " << evidence_text(e) << "\n";
    if (f.evidence_omitted > 0) md << "- ... and " << f.evidence_omitted << " more\n";
    md << "\n";
  }
  if (!c.enforcement.empty()) {
    md << "Enforcement (what `enforce` refused, and so what it cost):\n\n";
    md << "| policy | placements refused | accesses refused | key releases refused | workloads affected |\n";
    md << "|---|---:|---:|---:|---|\n";
    for (const auto& e : c.enforcement) {
      std::string w;
      for (const auto& x : e.workloads_affected) w += (w.empty() ? "" : ", ") + x;
      md << "| " << e.policy << " | " << e.placements_refused << " | " << e.accesses_refused << " | "
         << e.key_releases_refused << " | " << (w.empty() ? "-" : w) << " |\n";
    }
    md << "\n";
  }
}

void compliance_sarif(const ScenarioSpec& spec, const ComplianceReport& c, std::map<std::string, json>& rules,
                      json& results) {
  for (const auto& f : c.findings) {
    if (f.status == policy::ComplianceStatus::PASS || f.status == policy::ComplianceStatus::SKIP) continue;
    const std::string id = "GTW-COMP-" + f.rule;
    if (!rules.count(id)) {
      std::string reqs;
      for (const auto& r : f.requirements) reqs += (reqs.empty() ? "" : "; ") + r;
      rules[id] = {{"id", id},
                   {"name", f.rule},
                   {"shortDescription", {{"text", f.rule_id + " " + f.title}}},
                   {"fullDescription", {{"text", f.title + " (" + reqs + ")"}}},
                   {"help",
                    {{"text",
                      "Change the design so that no decision violates it, or give the rule `action: "
                      "enforce` so that the twin refuses the violating placements, accesses and key "
                      "releases (docs/models/compliance.md, rule " +
                          f.rule + ")."}}},
                   {"helpUri", docs_uri("models/compliance.md")},
                   {"properties",
                    {{"tags", json::array({"compliance", f.rule_id})},
                     {"security-severity", short_number(security_severity(f.severity))},
                     {"requirements", f.requirements}}}};
    }
    const std::string level = f.status == policy::ComplianceStatus::FAIL
                                  ? (f.severity == "low" || f.severity == "info" ? "warning" : "error")
                                  : "warning";
    // The primary location is the scenario line that caused the first violation (a workload, pool or data
    // item) when known, else the rule's entry; the rule's entry and further causes are related locations.
    SourceLoc primary = f.loc;
    for (const auto& e : f.evidence)
      if (e.loc.line > 0) {
        primary = e.loc;
        break;
      }
    json related = json::array();
    int rid = 0;
    if (primary.line != f.loc.line || primary.file != f.loc.file) {
      json r = sarif_location(f.loc, spec.source_file);
      r["id"] = rid++;
      r["message"] = {{"text", "rule " + f.policy}};
      related.push_back(std::move(r));
    }
    for (const auto& e : f.evidence) {
      if (e.loc.line <= 0 || rid >= 10) continue;
      json r = sarif_location(e.loc, spec.source_file);
      r["id"] = rid++;
      r["message"] = {{"text", evidence_text(e)}};
      related.push_back(std::move(r));
    }
    std::string text = f.policy + ": " + f.message;
    if (!f.evidence.empty()) text += " First: " + evidence_text(f.evidence.front()) + ".";
    json result = {{"ruleId", id},
                   {"level", level},
                   {"message", {{"text", text}}},
                   {"locations", json::array({sarif_location(primary, spec.source_file)})},
                   {"partialFingerprints", {{"compliancePolicy/v1", f.policy + "/" + f.rule}}},
                   {"properties",
                    {{"violations", f.violations},
                     {"action", f.action == ComplianceAction::ENFORCE ? "enforce" : "audit"},
                     {"tags", json::array({"compliance", f.rule_id})}}}};
    if (!related.empty()) result["relatedLocations"] = related;
    results.push_back(std::move(result));
  }
}

}  // namespace gtw

namespace gtw {

namespace {

std::string k8s_name(const std::string& s) {
  std::string out;
  for (char c : s) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += (std::isalnum(static_cast<unsigned char>(l)) || l == '-' || l == '.') ? l : '-';
  }
  return out.empty() ? "run" : out;
}

}  // namespace

std::string policy_report_yaml(const ScenarioSpec& spec, const RunResult& run, const ComplianceReport& c) {
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::Comment(
      "Compliance results of one gputwin run in the Kubernetes PolicyReport shape (wgpolicyk8s.io/v1alpha2).");
  // PolicyReport properties, annotations and labels are string maps: every value quoted as a string.
  const auto str = [&y](const std::string& key, const std::string& value) {
    y << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
  };
  y << YAML::BeginMap;
  str("apiVersion", "wgpolicyk8s.io/v1alpha2");
  str("kind", "PolicyReport");
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  str("name", "gputwin-" + k8s_name(spec.name));
  y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  str("app.kubernetes.io/managed-by", "gputwin");
  y << YAML::EndMap << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
  str("gputwin.dev/scenario", spec.source_file);
  str("gputwin.dev/scenario-sha256", spec.source_sha256);
  str("gputwin.dev/seed", std::to_string(run.seed));
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "summary" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, n] : {std::pair{"pass", c.passed}, std::pair{"fail", c.failed}, std::pair{"warn", c.warned},
                               std::pair{"error", c.errored}, std::pair{"skip", c.skipped}})
    y << YAML::Key << key << YAML::Value << n;
  y << YAML::EndMap;
  y << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
  for (const auto& f : c.findings) {
    y << YAML::BeginMap;
    str("policy", f.policy);
    str("rule", f.rule);
    str("result", policy::compliance_status_name(f.status));
    str("severity", f.severity);
    str("category", "compliance");
    str("source", "gputwin");
    y << YAML::Key << "scored" << YAML::Value << true;
    str("message", f.message);
    std::string reqs;
    for (const auto& r : f.requirements) reqs += (reqs.empty() ? "" : "; ") + r;
    y << YAML::Key << "properties" << YAML::Value << YAML::BeginMap;
    str("ruleId", f.rule_id);
    str("action", f.action == ComplianceAction::ENFORCE ? "enforce" : "audit");
    str("requirements", reqs);
    str("checked", std::to_string(f.checked));
    str("violations", std::to_string(f.violations));
    str("prevented", std::to_string(f.prevented));
    if (!f.evidence.empty()) {
      std::string ev;
      for (const auto& e : f.evidence) ev += (ev.empty() ? "" : " | ") + evidence_text(e);
      str("evidence", ev);
    }
    if (const auto where = source_location_text(f.loc); !where.empty()) str("location", where);
    y << YAML::EndMap;
    // Resources named by the evidence, each once, in evidence order.
    std::vector<std::string> names;
    for (const auto& e : f.evidence)
      if (!e.resource.empty() && std::find(names.begin(), names.end(), e.resource) == names.end())
        names.push_back(e.resource);
    if (!names.empty()) {
      y << YAML::Key << "resources" << YAML::Value << YAML::BeginSeq;
      for (const auto& n : names) {
        y << YAML::BeginMap;
        str("kind", "SimulatedResource");
        str("name", n);
        y << YAML::EndMap;
      }
      y << YAML::EndSeq;
    }
    y << YAML::EndMap;
  }
  y << YAML::EndSeq << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

namespace {

// The JUnit schema's timestamp has no zone (xs:dateTime matching [0-9]{4}-..T..:..:..): the provenance's UTC
// time without its 'Z'. "unknown" (gmtime failed) cannot be written; the epoch stands in.
std::string junit_timestamp(const std::string& started_utc) {
  if (started_utc.size() == 20 && started_utc.back() == 'Z') return started_utc.substr(0, 19);
  return "1970-01-01T00:00:00";
}

}  // namespace

std::string run_junit_xml(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                          const Provenance& provenance, const LeakageReport* leakage,
                          const ComplianceReport* compliance) {
  struct Case {
    std::string classname, name, failure, type, detail;
    bool skipped = false;
  };
  std::vector<Case> cases;
  for (const auto& s : analysis.slos) {
    Case k{"SLO/" + s.tenant_name, s.name, {}, "slo", {}, false};
    if (!s.met) {
      k.failure = s.objective + ": " + short_number(100 * s.compliance) + "% of windows met, target " +
                  short_number(100 * s.target) + "%";
      k.detail = s.explanation;
    }
    cases.push_back(std::move(k));
  }
  if (compliance)
    for (const auto& f : compliance->findings) {
      Case k{"compliance/" + f.rule_id, f.policy, {}, "compliance", {}, false};
      if (f.status == policy::ComplianceStatus::FAIL || f.status == policy::ComplianceStatus::ERROR) {
        k.failure = f.message;
        // The schema allows no file or line attribute on a test case: the rule's location heads the text.
        if (const auto where = source_location_text(f.loc); !where.empty())
          k.detail = where + ": rule " + f.policy + "\n";
        for (const auto& e : f.evidence) k.detail += evidence_text(e) + "\n";
      }
      k.skipped = f.status == policy::ComplianceStatus::SKIP;
      cases.push_back(std::move(k));
    }
  // One test case per replayed attack (docs/models/leakage.md, "Attack replay"): it fails when the attack
  // achieved something against the design (as findings.sarif rates it an error), is skipped when it did not run.
  if (leakage)
    for (const auto& r : leakage->attacks) {
      Case k{"attack/" + r.type, r.name, {}, "attack", {}, !r.ran};
      if (r.ran && attack_succeeded(spec, r)) {
        k.failure = r.outcome;
        k.detail =
            r.attacker + " <- " + (r.victim.empty() ? std::string("-") : r.victim) + " through " +
            (r.resource.empty() ? std::string("-") : r.resource) + " (" +
            (r.relation.empty() ? std::string("-") : r.relation) + "); bound " +
            (r.bound_state.empty() ? std::string("none") : r.bound_state + " " + short_number(r.bound_bps) + " bit/s") +
            (r.within_bound ? "" : "; beyond the analytic bound") + "\n";
      } else if (!r.ran) {
        k.detail = r.outcome;
      }
      cases.push_back(std::move(k));
    }
  size_t failures = 0, skipped = 0;
  for (const auto& k : cases) {
    failures += k.failure.empty() ? 0 : 1;
    skipped += k.skipped ? 1 : 0;
  }
  // The strict common JUnit schema (tests/fixtures/schemas/JUnit.xsd): timestamp, hostname and time are
  // required. They are the run's provenance (report.json's `provenance`), so SOURCE_DATE_EPOCH pins the
  // timestamp and zeroes the time, and the file is byte-identical for a scenario and seed on one host.
  // The test cases are evaluations of the one run, not timed apart: time 0.
  const std::string host = provenance.host.empty() || provenance.host == "unknown" ? "localhost" : provenance.host;
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuite name=\"" + xml_escape("gputwin run " + spec.name) + "\" timestamp=\"" +
       junit_timestamp(provenance.started_utc) + "\" hostname=\"" + xml_escape(host) + "\" tests=\"" +
       std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"0\" skipped=\"" +
       std::to_string(skipped) + "\" time=\"" + format_printf("%.3f", provenance.wall_seconds) + "\">\n";
  x += "  <properties>\n";
  x += "    <property name=\"seed\" value=\"" + std::to_string(run.seed) + "\"/>\n";
  x += "    <property name=\"scenario\" value=\"" + xml_escape(spec.source_file) + "\"/>\n";
  x += "    <property name=\"scenario_sha256\" value=\"" + xml_escape(spec.source_sha256) + "\"/>\n";
  x += "    <property name=\"gputwin_version\" value=\"" + xml_escape(provenance.gputwin_version) + "\"/>\n";
  x += "  </properties>\n";
  for (const auto& k : cases) {
    x += "  <testcase classname=\"" + xml_escape(k.classname) + "\" name=\"" + xml_escape(k.name) + "\" time=\"0\"";
    if (k.failure.empty() && !k.skipped) {
      x += "/>\n";
      continue;
    }
    x += ">\n";
    if (k.skipped)
      x += k.detail.empty() ? "    <skipped/>\n" : "    <skipped message=\"" + xml_escape(k.detail) + "\"/>\n";
    else
      x += "    <failure message=\"" + xml_escape(k.failure) + "\" type=\"" + k.type + "\">" + xml_escape(k.detail) +
           "</failure>\n";
    x += "  </testcase>\n";
  }
  x += "  <system-out/>\n  <system-err/>\n";
  x += "</testsuite>\n";
  return x;
}

}  // namespace gtw
