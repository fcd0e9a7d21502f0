#pragma once
// Writers for the result files. Each is a plain function of the spec, the run and its analysis,
// and every file is written to a temporary name in the output directory and renamed into place,
// so a reader never sees a half-written file.
#include <iosfwd>
#include <string>
#include <vector>

#include "Analysis.hpp"
#include "AtomicFile.hpp"
#include "ComplianceEvaluation.hpp"
#include "Leakage.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw {

class RunIndex;

inline constexpr const char* REPORT_SCHEMA_VERSION = "1.0";

struct Provenance {
  std::string gputwin_version;
  std::string simgrid_version;
  std::string allocator;  // the process's malloc (timings depend on it): active_allocator()
  std::string command_line;
  std::string host;
  std::string started_utc;
  double wall_seconds = 0;
};

// `leakage`, when given, adds the leakage surface section (docs/models/leakage.md).
// `compliance`, when given and configured, adds the compliance section (docs/models/compliance.md).
std::string report_json(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                        const Provenance& provenance, const LeakageReport* leakage = nullptr,
                        const ComplianceReport* compliance = nullptr);
/// The same bytes written to `out` a section at a time: a large run's report never exists whole in memory.
void write_report_json(std::ostream& out, const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                       const Provenance& provenance, const LeakageReport* leakage = nullptr,
                       const ComplianceReport* compliance = nullptr);
std::string report_markdown(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                            const LeakageReport* leakage = nullptr, const ComplianceReport* compliance = nullptr);
/// results.h5: the event log, time series and tables (layout in docs/formats/results-h5.md).
void write_results_h5(const std::string& path, const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                      const Provenance& provenance, const LeakageReport* leakage = nullptr,
                      const ComplianceReport* compliance = nullptr);
/// findings.sarif (SARIF 2.1.0): one result per open channel with a nonzero bound and per open
/// discrete exposure, located at the scenario line that sets the sharing which opens it.
/// Failed compliance rules (when `compliance` is given) are results too, at the scenario lines that caused them.
std::string findings_sarif(const ScenarioSpec& spec, const RunResult& run, const LeakageReport& leakage,
                           const std::string& tool_version, const ComplianceReport* compliance = nullptr);
/// policyreport.yaml: the compliance findings as a Kubernetes PolicyReport (wgpolicyk8s.io/v1alpha2).
std::string policy_report_yaml(const ScenarioSpec& spec, const RunResult& run, const ComplianceReport& compliance);
/// junit.xml of a run, valid under the strict common JUnit schema (tests/fixtures/schemas/JUnit.xsd): one test
/// case per SLO, per compliance rule (failures carry the evidence) and per replayed attack (`leakage`); the suite's
/// timestamp, hostname and time are the provenance's.
std::string run_junit_xml(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                          const Provenance& provenance, const LeakageReport* leakage,
                          const ComplianceReport* compliance);

/// trace.json: the run in the Chrome Trace Event format (Perfetto UI, chrome://tracing); layout in
/// docs/formats/trace-json.md.
std::string trace_json(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index);

/// metrics.prom: OpenMetrics text with timestamps, DCGM exporter names where they apply, and the twin's
/// request and SLO series (docs/formats/metrics-prom.md).
std::string metrics_openmetrics(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                                const RunIndex& index);

/// One CSV file of `--format csv`: its name in the output directory and its text.
struct CsvFile {
  std::string name;
  std::string text;
};
/// The run's tables as CSV (docs/formats/csv.md): tenants, workloads, slos, slo_windows, gpus, placements,
/// jobs, and with `leakage` leakage_channels, leakage_discrete, attacks; with configured `compliance`, compliance.
std::vector<CsvFile> csv_tables(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                                const LeakageReport* leakage, const ComplianceReport* compliance);

}  // namespace gtw
