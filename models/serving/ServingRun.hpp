#pragma once
// A serving engine alone, without the cluster: one replica (a tensor-parallel group) takes requests at
// their arrival times, or from clients that keep a fixed number in flight (a benchmark's concurrency),
// and runs its steps at the roofline of step_cost. What `gputwin serving` and the validation table
// (docs/validation/serving.md) run; the cluster simulation drives the same batcher with GPU kernels.
#include <functional>
#include <vector>

#include "ContinuousBatcher.hpp"

namespace gtw::serving {

struct EngineSetup {
  const ModelArchitecture* model = nullptr;
  const HardwareProfile* gpu = nullptr;
  ServingConfig step;          // tp, precisions, memory use
  BatcherConfig batcher;       // kv_blocks and bytes filled from kv_capacity when 0
  double step_overhead_s = 0;  // host-side time per step (scheduling, sampling, launch), assumed
  // Per request, outside the engine's steps: the serving front end (HTTP or gRPC, tokenisation, a Triton ensemble's
  // pre- and post-processing) between the client and the scheduler. A request reaches the scheduler this long after
  // the client sent it; it does not occupy the engine.
  double front_end_s = 0;
};

struct EngineRun {
  std::vector<Completion> completions;  // in completion order
  BatcherStats stats;
  double end = 0;                        // when the last request ended
  std::vector<SequenceRequest> refused;  // longer than the whole KV cache
  TokenGaps gaps;                        // every gap between two output tokens of a request (ITL)
};

/// The batcher configured for a setup: KV blocks from kv_capacity over the GPU's memory.
BatcherConfig batcher_for(const EngineSetup& setup);

/// Runs `requests` (sorted by arrival) to completion. `concurrency` > 0: closed loop, the arrivals are
/// ignored and a client sends a request whenever fewer than `concurrency` are in flight (sent, not done).
/// Arrivals are the clients' send times: each request reaches the scheduler setup.front_end_s later, and the
/// completions carry the send time as `request.arrival` (TTFT and end-to-end latency as the client measures them).
EngineRun run_engine(const EngineSetup& setup, std::vector<SequenceRequest> requests, int concurrency = 0);

/// Seconds one plan takes on the group alone: its steps at the roofline, plus swap traffic over PCIe.
double plan_seconds(const EngineSetup& setup, const StepPlan& plan);

}  // namespace gtw::serving
