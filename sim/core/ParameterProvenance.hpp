#pragma once
// Where a model parameter comes from (docs/models/gpu.md, "Provenance"). Every number of a hardware profile
// says it in its source, which starts with the kind in parentheses, qualifiers after a comma:
// "(datasheet) NVIDIA H100 datasheet ...", "(derived, unverified) 1.555TB/s x 0.767 ...".
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gtw {

enum class ProvenanceKind {
  DATASHEET,  // a vendor document (or a secondary source quoting one)
  MEASURED,   // a published or recorded measurement, named in the source
  DERIVED,    // arithmetic on sourced values
  FITTED,     // chosen to reproduce a named target: a calibration, not a prediction
  ASSUMED,    // a modelling choice awaiting a measurement
  SYNTHETIC,  // from a synthetic recording (tests of the calibration pipeline)
  SCENARIO,   // set by the scenario (hardwareOverrides)
};

/// The names as written in sources, in enum order: datasheet, measured, derived, fitted, assumed, synthetic,
/// scenario.
const std::vector<std::string>& provenance_names();
const std::string& provenance_name(ProvenanceKind p);
/// "(datasheet), (measured), ..., (scenario)": the valid markers, for error messages.
std::string provenance_markers();
/// The kind a source starts with; `(assumption)` is read as assumed. Nothing when the source does not start
/// with one of provenance_names() in parentheses.
std::optional<ProvenanceKind> provenance_of(const std::string& source);

/// What the parameters behind a run are: counts per kind and the fitted and assumed ones by name
/// ("H100-80GB-SXM.l2Contention"), for report.json's parameter_provenance.
struct ProvenanceSummary {
  std::map<std::string, int> by_kind;  // every kind, 0 included
  std::vector<std::string> fitted;
  std::vector<std::string> assumed;
  int total() const;
  void add(const std::string& parameter, const std::string& source);
  /// "12 datasheet, 4 measured, 1 derived, 2 fitted, 4 assumed": the kinds present, in provenance order.
  std::string describe() const;
  /// Share of the parameters that are fitted or assumed (0 without parameters).
  double fitted_or_assumed_share() const;
};

}  // namespace gtw
