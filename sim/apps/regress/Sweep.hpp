#pragma once
// Design sweeps: a sweep file names a base scenario and what to vary (a grid, random samples with a
// seed, or listed designs), with seeds per design. Each point is one `gputwin run` in its own process;
// results merge into sweep.csv, sweep.h5 and sweep.md (Pareto front of cost vs worst SLO vs leakage).
// Format and metric definitions: docs/regression.md.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Diagnostics.hpp"
#include "ReportPath.hpp"

namespace gtw::regress {

/// Designs of one sweep (grid product, random samples or listed designs), and runs (designs x seeds).
inline constexpr size_t MAX_SWEEP_DESIGNS = 100000;
inline constexpr size_t MAX_SWEEP_POINTS = 1000000;

struct SweepParameter {
  std::string path;                 // scenario path, as for --set
  std::vector<std::string> values;  // grid values, or random choices
  bool range = false;               // random: uniform in [min, max] (log-uniform when log)
  double min = 0, max = 0;
  bool log = false;
  bool integer = false;
  std::string unit;  // appended to a sampled number ("/s", "GiB")
};

struct SweepDesign {
  std::string name;
  std::vector<std::pair<std::string, std::string>> overrides;  // path, value
};

struct SweepSpec {
  enum class Kind { GRID, RANDOM, DESIGNS };
  std::string file;
  std::string name;
  std::string scenario;  // resolved against the sweep file's folder
  std::vector<uint64_t> seeds;
  Kind kind = Kind::GRID;
  std::vector<SweepParameter> parameters;                   // GRID, RANDOM
  size_t samples = 0;                                       // RANDOM
  uint64_t random_seed = 1;                                 // RANDOM
  std::vector<SweepDesign> designs;                         // DESIGNS (and the expansion of GRID / RANDOM)
  std::vector<std::pair<std::string, ReportPath>> metrics;  // extra columns: name, path
  double timeout_seconds = 600;
};

bool load_sweep(const std::string& path, SweepSpec& out, Diagnostics& diags);
bool parse_sweep_text(const std::string& text, const std::string& path, SweepSpec& out, Diagnostics& diags);

struct SweepPoint {
  size_t id = 0;  // design * seeds + seed index: stable across runs of the same sweep file
  size_t design = 0;
  uint64_t seed = 0;
};

/// Every point, design-major: design 0 with each seed, then design 1, ...
std::vector<SweepPoint> sweep_points(const SweepSpec& spec);

/// Orders point ids longest first: by their design's cost (`cost_by_design`; missing or NaN: 0),
/// largest first, ties by id. The longest-processing-time rule: with N parallel slots its makespan is at
/// most 4/3 of the best, where id order can leave every slot but one idle behind a long last point.
void order_longest_first(std::vector<size_t>& ids, const std::vector<SweepPoint>& points,
                         const std::map<size_t, double>& cost_by_design);

/// The parameter columns of the results: every overridden path, in order of first appearance.
std::vector<std::string> parameter_columns(const SweepSpec& spec);

/// Metric columns every sweep reports (before the sweep's own `metrics:`).
const std::vector<std::string>& builtin_metric_names();

struct PointResult {
  SweepPoint point;
  bool ok = false;
  std::string detail;                          // why it failed
  std::vector<std::optional<double>> metrics;  // builtin_metric_names() then spec.metrics; empty when absent
};

/// The metric values of one report (see builtin_metric_names() for the definitions).
std::vector<std::optional<double>> extract_metrics(const SweepSpec& spec, const Json& report);

/// sweep.csv: one row per point in point order, no wall-clock values, so a resumed sweep gives the
/// same bytes as an uninterrupted one.
std::string sweep_csv(const SweepSpec& spec, const std::vector<PointResult>& results);

/// Designs on the Pareto front (minimising cost, worst SLO ratio and, where every design has it,
/// leakage bits), each design judged by its worst seed. Returns design indices in order.
std::vector<size_t> pareto_front(const SweepSpec& spec, const std::vector<PointResult>& results);

std::string sweep_markdown(const SweepSpec& spec, const std::vector<PointResult>& results);
/// A scatter chart of cost against worst SLO ratio, the front highlighted (SVG).
std::string sweep_chart_svg(const SweepSpec& spec, const std::vector<PointResult>& results);
/// sweep.h5 (HDF5 C API): /points/{id,design,seed,ok}, /metrics/<name>, /parameters/<column>; written to
/// a temporary file and renamed into place. Throws RuntimeError on failure.
void write_sweep_h5(const std::string& path, const SweepSpec& spec, const std::vector<PointResult>& results);

}  // namespace gtw::regress
