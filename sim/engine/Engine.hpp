#pragma once
// The engine: owns the SimGrid engine (one per process), builds the platform from the spec and the
// hardware profiles, places workloads with the placement policy, runs, and returns a RunResult.
#include <functional>
#include <map>
#include <string>

#include "models/gpu/HardwareProfile.hpp"
#include "sim/core/RunResult.hpp"
#include "sim/scenario/Scenario.hpp"

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
};

/// Profiles by name, for every product the spec uses.
using ProfileSet = std::map<std::string, HardwareProfile>;

/// Runs the simulation. Can be called once per process (SimGrid's engine is a singleton).
RunResult run_simulation(const ScenarioSpec& spec, const ProfileSet& profiles, const RunOptions& options);

}  // namespace gtw
