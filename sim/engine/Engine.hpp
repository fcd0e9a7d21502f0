#pragma once
// The engine: owns the SimGrid engine (one per process), builds the platform from the spec and the
// hardware profiles, places workloads with the placement policy, runs, and returns a RunResult.
#include <functional>
#include <map>
#include <string>

#include "HardwareProfile.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw {

struct Progress {
  double sim_time = 0;
  double sim_end = 0;
  uint64_t events = 0;
  double wall_seconds = 0;
};

struct RunOptions {
  std::function<void(const Progress&)> on_progress;  // called about 100 times per run
  double drain = -1;  // seconds after spec.duration to finish in-flight work (< 0: default)
  // SimGrid log settings applied after the engine silences its own logs, e.g. "gtw.thres:verbose" turns on
  // every category of the project (gtw_engine, gtw_gpu, gtw_partition, gtw_workload, gtw_fabric,
  // gtw_storage, gtw_attack, gtw_events); `gputwin run --log` (docs/cli.md).
  std::vector<std::string> log_settings;
};

/// Profiles by name, for every product the spec uses.
using ProfileSet = std::map<std::string, HardwareProfile>;

/// Runs the simulation. Can be called once per process (SimGrid's engine is a singleton).
RunResult run_simulation(const ScenarioSpec& spec, const ProfileSet& profiles, const RunOptions& options);

}  // namespace gtw
