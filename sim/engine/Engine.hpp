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
  // Limits checked while the run goes (0: none): the run stops cleanly at the first event past either, and
  // its results cover the simulated time until then (RunResult::stopped_early). The up-front estimate
  // (RunBudget.hpp) refuses most runs that would pass them; this catches the ones it underestimated.
  double max_events = 0;        // --max-events: records in the event log (deterministic)
  double max_memory_bytes = 0;  // --max-memory: the process's resident memory (checked every 65,536 events)
  // --trace detailed: a CONTEXT_SWITCH event per time-slice switch and a GPU_BUSY per slice, as the arbiter
  // works; by default a switch and the slice it opens are one GPU_SLICE event (the same analyses, fewer events).
  bool detailed_trace = false;
};

/// Profiles by name, for every product the spec uses.
using ProfileSet = std::map<std::string, HardwareProfile>;

/// Runs the simulation. Can be called once per process (SimGrid's engine is a singleton).
RunResult run_simulation(const ScenarioSpec& spec, const ProfileSet& profiles, const RunOptions& options);

/// The sharing of one device: a MIG instance that migReplicas shares is a time-sliced device of its own.
SharingSpec instance_sharing(const SharingSpec& gpu_sharing, const std::string& mig_profile);
/// The Kubernetes extended resource a device is advertised as (nvidia.com/gpu, nvidia.com/mig-<profile>, or
/// the device plugin's rename when shared); `mig_profile` empty for a whole GPU.
std::string advertised_resource(const NodePoolSpec& pool, const SharingSpec& device_sharing,
                                const std::string& mig_profile);

}  // namespace gtw
