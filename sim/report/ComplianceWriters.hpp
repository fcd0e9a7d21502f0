#pragma once
// The compliance section in every output: report.json, report.md, policyreport.yaml (Kubernetes
// PolicyReport shape), junit.xml (one test case per rule and per SLO) and SARIF results
// (docs/models/compliance.md, "Outputs"). Internal to sim/report.
#include <hdf5.h>
#include <nlohmann/json_fwd.hpp>  // declarations only: the writers that build JSON include json.hpp

#include <sstream>
#include <string>

#include "Analysis.hpp"
#include "ComplianceEvaluation.hpp"
#include "Leakage.hpp"
#include "Scenario.hpp"

namespace gtw {

nlohmann::ordered_json compliance_json(const ScenarioSpec& spec, const ComplianceReport& c);
void compliance_markdown(std::ostringstream& md, const ScenarioSpec& spec, const ComplianceReport& c);
/// SARIF rules (by id) and results for every failed or warned rule, appended to the given containers.
void compliance_sarif(const ScenarioSpec& spec, const ComplianceReport& c,
                      std::map<std::string, nlohmann::ordered_json>& rules, nlohmann::ordered_json& results);
/// The /compliance group of results.h5 (findings and evidence tables).
void write_compliance_group(hid_t root, const ComplianceReport& c);
/// The absolute file: URI of a page of the project's documentation, `relative` to docs/ (e.g.
/// "models/compliance.md"): SARIF's helpUri and informationUri must be absolute URIs. The base is the docs/
/// folder of the source tree the binary was built from (GTW_DOCS_DIR, as models/hardware finds its profiles),
/// the one published location of the docs; docs/formats/findings-sarif.md.
std::string docs_uri(const std::string& relative);
/// A SARIF physicalLocation at a scenario line (`fallback_file` when the location has no file).
nlohmann::ordered_json sarif_location(const SourceLoc& loc, const std::string& fallback_file);
/// Whether a replayed attack achieved something against the design (findings.sarif: an error, else a note;
/// junit.xml: a failed test case): bits or bytes recovered, the victim identified or slowed, replicas ended.
bool attack_succeeded(const ScenarioSpec& spec, const AttackResult& r);
/// One line of evidence: "t=1.5 s event 42 record 7 gpu:3: what".
std::string evidence_text(const policy::ComplianceEvidence& e);
/// "file:line:col" of a location, relative as written in the scenario ("" when unknown).
std::string source_location_text(const SourceLoc& loc);

}  // namespace gtw
