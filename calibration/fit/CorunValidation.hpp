#pragma once
// Validation loop: the co-run pairs measured on the GPU are simulated with the fitted profile
// (one `gputwin run` child per pair: SimGrid allows one engine per process) and the simulated
// times are compared with the measured ones. Stream pairs (concurrent kernels of one process) run
// as two MPS clients with activeThreadPercentage 100; process pairs as two time-sliced replicas.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "Fit.hpp"

namespace gtw::calib {

/// The simulator's view of the fitted profile (what `gputwin run` will use).
struct SimRates {
  double fp16_achievable = 0;  // FLOP/s: training steps run at the FP16 tensor rate x efficiency
  double hbm_achievable = 0;   // bytes/s
  double time_slice = 0;       // s, for process pairs (0: the scenario default)
};

struct ValidationCase {
  std::string id;    // stream-compute-memory
  std::string mode;  // stream | process
  std::string a, b;
  double measured_a = NaN, measured_b = NaN;  // s: median per launch (stream), loop total (process)
  double simulated_a = NaN, simulated_b = NaN;
  double alone_model_error_a = NaN, alone_model_error_b = NaN;  // roofline alone vs measured alone
  std::string scenario;                                         // the generated scenario file
  std::string error;                                            // why the simulation did not give a number
  double error_a() const { return std::fabs(simulated_a - measured_a) / measured_a; }
  double error_b() const { return std::fabs(simulated_b - measured_b) / measured_b; }
  double worst() const { return std::max(error_a(), error_b()); }
  bool ok() const { return error.empty() && std::isfinite(simulated_a) && std::isfinite(simulated_b); }
};

struct ValidationReport {
  std::string profile;
  std::vector<ValidationCase> cases;
  double median_error = NaN;  // median over pairs of the pair's larger relative error
  double goal = 0.10;
  bool synthetic = false;
  std::vector<std::string> notes;
  bool pass() const { return std::isfinite(median_error) && median_error < goal; }
};

/// Scenario YAML of one pair. Each kernel is anchored to its measured time alone (its counted
/// flops and bytes scaled so that the fitted roofline gives that time, intensity kept), then
/// expressed in the simulator's units (FP16-equivalent flops for the training step).
std::string pair_scenario_yaml(const CorunPair& p, const std::string& profile_name, const FitResult& fit,
                               const SimRates& sim, bool* usable = nullptr);

/// Reads `/events` of a results.h5 and returns the step times (seconds) of each workload row.
bool read_step_times(const std::string& results_h5, std::vector<std::vector<double>>& steps, std::string& error);

struct ValidationOptions {
  std::string gputwin;      // the gputwin executable
  std::string work_dir;     // scenarios and run outputs go here
  std::string profile_dir;  // put on GPUTWIN_PROFILE_PATH for the children
  std::string profile_name;
  SimRates sim;
  int parallel = 2;
  double timeout_s = 300;
};

/// Builds the cases (measured side) from the fit; no simulation.
std::vector<ValidationCase> validation_cases(const FitResult& fit, const SimRates& sim);
/// Fills simulated_a/b of `cases` from the run outputs (tests call this with prepared files).
void compare(std::vector<ValidationCase>& cases, const std::vector<std::vector<std::vector<double>>>& step_times);
/// Median error and pass/fail.
void summarize_report(ValidationReport& report);
/// Runs everything: scenarios, children, comparison.
ValidationReport run_validation(const FitResult& fit, const ValidationOptions& options, bool synthetic);

std::string validation_markdown(const ValidationReport& r);
std::string validation_json(const ValidationReport& r);

}  // namespace gtw::calib
