#pragma once
// What a run will cost, estimated from the spec before the engine starts, and the limits it must stay
// within. A scenario is data from anyone: 1e6 requests/s for a month, 10^5 replicas or a 1 ns SLO
// window are valid YAML, and the engine would run them until the machine gives out (SimGrid aborts the
// process when it cannot map an actor's stack). Refusing up front is an input error (exit 2) with the
// estimate, and `--max-events` / `--max-memory` raise the limits for a run that is meant to be big.
#include <cstdint>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Scenario.hpp"

namespace gtw {

struct RunEstimate {
  double gpus = 0;                   // GPUs of every node pool
  double actors = 0;                 // SimGrid actors alive at once (workload replicas, arrival generators, arbiters)
  double events = 0;                 // event-log records and scheduler steps (requests, kernels, slices, windows)
  double slice_events = 0;           // of which time slices: an upper bound, not certain (check_run_budget)
  double memory_bytes = 0;           // resident memory of the run (event log, per-request records, actor stacks)
  double address_bytes = 0;          // address space: memory plus every actor's stack mapping
  std::vector<std::string> largest;  // the biggest contributions, "chat-svc: 1.8e+07 requests", largest first
};

struct RunLimits {
  double max_events = 50e6;                   // --max-events
  double max_memory_bytes = 8.0 * (1 << 30);  // --max-memory
  bool detailed_trace = false;                // --trace detailed: the log the estimate counts has two events a slice
};

/// KiB of stack SimGrid maps for each actor (contexts/stack-size, set by the engine).
inline constexpr size_t ACTOR_STACK_KIB = 2048;
/// The same in sanitizer builds (GTW_SANITIZER_BUILD), whose ucontext switches clear the target stack's ASan
/// shadow (an eighth of the stack) every time: 2 MiB stacks spent 40 % of a time-sliced run in that memset. The
/// whole test suite runs in 256 KiB at -O1 (scripts/test.sh); the run estimate keeps counting ACTOR_STACK_KIB.
inline constexpr size_t SANITIZER_ACTOR_STACK_KIB = 512;

/// `detailed_trace`: the log of `--trace detailed` (a CONTEXT_SWITCH and a GPU_BUSY per time slice), else the folded
/// one (a GPU_SLICE).
RunEstimate estimate_run(const ScenarioSpec& spec, bool detailed_trace = false);

/// Records an error (exit 2) for each limit the estimate exceeds: --max-events and --max-memory without the
/// time slices (with them only, a warning: the run's own check stops it at the limit), the
/// process's address-space limit (ulimit -v) and the kernel's memory-map limit (vm.max_map_count),
/// which bounds the number of actors. Returns false when any is exceeded.
bool check_run_budget(const ScenarioSpec& spec, const RunEstimate& estimate, const RunLimits& limits,
                      Diagnostics& diags);

}  // namespace gtw
