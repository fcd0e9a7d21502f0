#pragma once
// The run index: one pass over the event log that answers "which replica was where, when" for every
// analysis (sim/analysis) and compliance rule (policies/compliance), so that they all read the same
// stays, by the same rule, instead of re-deriving them each by its own.
//
// A stay is one replica on one device (a GPU or a MIG instance), from its PLACED event to the first end
// event of that (workload, replica) after it in the log (by seq, so an end at the same instant but earlier
// in the log belongs to an earlier stay):
//   - WORKLOAD_FAILED on the stay's device; a failure with gpu < 0, or of a workload spanning several GPUs
//     (the engine reports it on the first one), ends every open stay of the replica. A BATCH workload's
//     failures with gpu < 0 are its jobs' (replica = job id), not a worker's: they end no stay;
//   - JOB_DONE of a TRAINING workload (a job holds its GPUs until it is done; batch workers keep theirs);
//   - otherwise the end of the run, max(run.end_time, spec.duration).
// A replica placed again after it ended (evicted by a MIG reconfiguration or a quota preemption, then
// placed again) has one stay per placement. A replica restarted in place after a fault (faults[].restartAfter)
// is not placed again: the engine logs no PLACED for it, so its stay ends at the fault.
//
// It also keeps every GPU's busy intervals (GPU_BUSY), paged to a spill file past their budget
// (BusyIntervals.hpp): the SLO blame and the leakage analysis both read them, so the log is read for them once.
//
// The index keeps positions into `run.log` and `run.data_movements`: it must not outlive the run.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "BusyIntervals.hpp"
#include "Ids.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw {

/// How a stay ended.
enum class StayEnd : uint8_t {
  RUN_END,  // still there when the run ended
  FAILED,   // WORKLOAD_FAILED (see `reason`)
  DONE,     // JOB_DONE of a training job
};

struct Stay {
  int tenant = -1;  // the PLACED event's tenant (a covert-channel sender runs as a tenant of its own)
  int workload = -1;
  int replica = -1;
  int gpu = -1;
  double start = 0;
  double end = 0;  // the end event's time, or RunIndex::run_end() when none
  StayEnd how = StayEnd::RUN_END;
  FailureReason reason = FailureReason::NONE;  // FAILED: why
  uint64_t seq = 0;                            // the PLACED event
  int64_t end_seq = -1;                        // the event that ended it (-1: none)
  double memory = 0;                           // bytes reserved (the PLACED value)
  std::vector<size_t> loads;                   // its model loads, indices into RunIndex::loads()

  bool ended() const { return how != StayEnd::RUN_END; }
  /// False when the replica failed before it held its memory (out of memory, not placed).
  bool held_memory() const {
    return !(how == StayEnd::FAILED && (reason == FailureReason::OUT_OF_MEMORY || reason == FailureReason::NOT_PLACED));
  }
};

/// A MODEL_LOAD event: a replica of a model-swapping service loaded one of its models. The first load, at
/// bring-up, is not an event (the engine logs MODEL_LOAD only for swaps).
struct ModelLoad {
  double start = 0, end = 0;  // the host-to-device copy
  double bytes = 0;
  int tenant = -1, workload = -1, replica = -1, gpu = -1;
  uint64_t seq = 0;
  int stay = -1;  // index into RunIndex::stays(): the replica's open stay on that device (-1: none)
};

/// A DATA_MOVE or DATA_DENIED event with its record.
struct DataRecord {
  size_t event = 0;                // index into run.log.events()
  std::optional<size_t> movement;  // index into run.data_movements, when the event names a valid one
};

class RunIndex {
 public:
  RunIndex(const ScenarioSpec& spec, const RunResult& run);

  /// max(run.end_time, spec.duration): where a stay without an end event ends.
  double run_end() const { return run_end_; }
  /// Every stay, in the order of their PLACED events (time order). PLACED events naming no workload or
  /// device of the run are left out (the engine emits none).
  const std::vector<Stay>& stays() const { return stays_; }
  /// Indices into stays() of one replica's stays, in placement order (empty when never placed).
  const std::vector<size_t>& stays_of(WorkloadId workload, int replica) const;
  /// Indices into stays() of every stay of a workload, in placement order.
  const std::vector<size_t>& stays_of(WorkloadId workload) const;
  /// The replica's first stay, or null.
  const Stay* first_stay(WorkloadId workload, int replica) const;
  /// The tenant of the workload's latest stay on `gpu` (the owner of memory it freed there), or `fallback`.
  TenantId tenant_on(WorkloadId workload, GpuId gpu, TenantId fallback) const;
  /// Model loads (MODEL_LOAD), in log order.
  const std::vector<ModelLoad>& loads() const { return loads_; }
  /// Bytes a stay copied to its device: `initial` (the load at bring-up, not an event) plus its MODEL_LOADs.
  double bytes_loaded(const Stay& stay, double initial) const;
  /// DATA_MOVE and DATA_DENIED events, in log order.
  const std::vector<DataRecord>& data() const { return data_; }
  /// STEP_DONE events of a workload.
  size_t steps(int workload) const;
  /// Every GPU's busy intervals (GPU_BUSY and GPU_SLICE events on a GPU of the run), in log order, which is the order
  /// of their ends.
  const BusyIntervals& busy() const { return busy_; }
  /// The GPU's longest busy interval (0 when none).
  double longest_busy(size_t gpu) const { return longest_busy_[gpu]; }
  /// The GPU's most expensive context switch (CONTEXT_SWITCH or GPU_SLICE value; 0 when none).
  double max_switch_cost(size_t gpu) const { return max_switch_cost_[gpu]; }

 private:
  void place(const Event& e);
  void fail(const ScenarioSpec& spec, const Event& e);
  void finish_job(const Event& e);
  void load(const Event& e);
  void count_busy(const RunResult& run);
  void add_busy(const Event& e);
  void add_switch(const Event& e);  // CONTEXT_SWITCH or GPU_SLICE: the GPU's most expensive switch
  void end_stay(size_t stay, const Event& e, StayEnd how, FailureReason reason);

  double run_end_ = 0;
  std::vector<Stay> stays_;
  std::vector<ModelLoad> loads_;
  std::vector<DataRecord> data_;
  std::vector<size_t> steps_;
  std::vector<std::vector<size_t>> by_workload_;
  std::map<std::pair<int, int>, std::vector<size_t>> by_replica_;
  std::map<std::pair<int, int>, std::vector<size_t>> open_;  // (workload, replica) -> stays not ended yet
  size_t gpus_ = 0;
  BusyIntervals busy_;
  std::vector<double> longest_busy_, max_switch_cost_;
};

}  // namespace gtw
