#pragma once
// Workload models: inference services, training jobs and batch workloads. Each is a handful of
// SimGrid actors (one arrival generator, one per replica or job), never one per request.
#include <simgrid/s4u.hpp>

#include <deque>
#include <memory>
#include <vector>

#include "GpuDevice.hpp"
#include "SimContext.hpp"

namespace gtw {

/// Where one replica (or one training job) runs: its GPUs and its context on each.
struct ReplicaPlacement {
  std::vector<GpuDevice*> gpus;
  std::vector<int> contexts;
  sg4::Host* node_cpu = nullptr;  // host memory side of the PCIe links
};

class Workload {
 public:
  virtual ~Workload() = default;
  /// Allocates device memory and starts the actors (called at the workload's start time).
  virtual void start() = 0;
  /// At the hard end of the run: records requests and jobs still in flight as unfinished.
  virtual void finish(double now) = 0;
  /// Where a replica runs (nullptr if it was never placed).
  virtual const ReplicaPlacement* placement(int replica) const = 0;
  /// A fault ended the replica's client: its in-flight and queued work is lost (recorded now), its
  /// GPU contexts are failed and its memory released; the replica stays down until restarted.
  virtual void kill_replica(int replica, FailureReason reason = FailureReason::FAULT) = 0;
  /// Brings a killed replica back (allocates again; may fail out of memory). Training jobs do not restart.
  virtual void restart_replica(int replica) = 0;
  /// A reconfiguration is coming: the replica takes no new work but finishes what it has.
  virtual void drain_replica(int replica) = 0;
  /// Whether the replica has no work in flight (or queued on it).
  virtual bool replica_idle(int replica) const = 0;
  /// Starts a killed replica again on a new placement (after a reconfiguration). False if the
  /// workload cannot move (training jobs end with their GPUs).
  virtual bool move_replica(int replica, ReplicaPlacement place) = 0;
  /// A query from another tenant's client (`client`: its workload, a queryExtraction attacker) to an
  /// inference service: queued and served like the service's own requests, within the client's rate limit
  /// (spec.policies.isolation.queryRateLimit). Returns whether it was admitted; the service logs an
  /// ATTACK_OBSERVATION for the client when it answers (docs/models/leakage.md, "Query extraction").
  enum class Admission { ADMITTED, RATE_LIMITED, REFUSED, BUDGET_SPENT };
  virtual Admission submit_query(int client) {
    (void)client;
    return Admission::REFUSED;
  }
};

/// Cost of one inference batch, as two kernels (prefill, then the aggregated decode).
struct InferenceBatchCost {
  double prefill_flops = 0, prefill_bytes = 0;
  double decode_flops = 0, decode_bytes = 0;
};
/// Prefill: 2 N b Lin FLOPs and one read of the weights. Decode of Lout tokens: 2 N b Lout FLOPs
/// and Lout reads of the weights (memory-bound at small batch). FLOPs are scaled to the FP16
/// rate the GPU host runs at, so FP8 weights compute twice as fast.
InferenceBatchCost inference_batch_cost(const WorkloadSpec& w, const HardwareProfile& profile, int batch);
/// The same for a batch of requests with their own token counts (a replayed trace): prefill over the
/// sum of the prompts; decode runs as many steps as the longest output, each reading the weights once,
/// and computes every request's tokens.
InferenceBatchCost inference_batch_cost(const WorkloadSpec& w, const HardwareProfile& profile, double prompt_tokens,
                                        double output_tokens, int decode_steps);
/// Device memory an attacker process takes when its spec gives none (a probe buffer and a CUDA context).
inline constexpr double ATTACK_DEFAULT_MEMORY = 1024.0 * 1024.0 * 1024.0;
/// Device memory a workload needs per GPU (the spec's `memory`, or weights x 1.3 for inference).
double workload_memory(const WorkloadSpec& w);
/// Time of one training step alone: data over PCIe, then compute (roofline), then ring all-reduce.
double training_step_ideal(const WorkloadSpec& w, const HardwareProfile& profile, bool data_from_host = true);

std::unique_ptr<Workload> make_workload(SimContext& ctx, int workload_index, std::vector<ReplicaPlacement> replicas);

}  // namespace gtw
