#pragma once
// Writers for the result files. Each is a plain function of the spec, the run and its analysis,
// and every file is written to a temporary name in the output directory and renamed into place,
// so a reader never sees a half-written file.
#include <string>

#include "sim/analysis/Analysis.hpp"
#include "sim/core/RunResult.hpp"
#include "sim/scenario/Scenario.hpp"

namespace gtw {

inline constexpr const char* REPORT_SCHEMA_VERSION = "1.0";

struct Provenance {
  std::string gputwin_version;
  std::string simgrid_version;
  std::string command_line;
  std::string host;
  std::string started_utc;
  double wall_seconds = 0;
};

/// Writes `content` to `path` atomically (temporary file + rename); throws RuntimeError on failure.
void write_file_atomic(const std::string& path, const std::string& content);

std::string report_json(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                        const Provenance& provenance);
std::string report_markdown(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis);
/// results.h5: the event log, time series and tables (layout in docs/formats/results-h5.md).
void write_results_h5(const std::string& path, const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                      const Provenance& provenance);

}  // namespace gtw
