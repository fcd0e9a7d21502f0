#pragma once
// What a run produces, independent of SimGrid: the event log, the layout of the simulated cluster
// (so analyses can name GPUs and nodes), counters and timing. Analyses and writers read only this
// and the spec.
#include <cstdint>
#include <string>
#include <vector>

#include "DataEvents.hpp"
#include "EventLog.hpp"
#include "InvocationStep.hpp"
#include "ParameterProvenance.hpp"
#include "SharingMode.hpp"

namespace gtw {

struct GpuLayout {
  int index = 0;
  int node = 0;
  int local = 0;
  std::string node_name;  // pool-name-N
  std::string pool;
  std::string product;
  SharingMode sharing = SharingMode::EXCLUSIVE;
  std::string mig_profile;  // MIG instance: its profile; the device is one instance of GPU `local`
  int mig_start = -1;       // MIG instance: first memory slice
  int nvlink_domain = 0;    // GPUs of one node with the same domain (>= 0) have NVLink peer access; -1: none
  std::string resource = "nvidia.com/gpu";  // the Kubernetes resource it is advertised as (nvidia.com/mig-<profile>)
  int slots = 1;
  double memory = 0;  // bytes
  // MIG reconfiguration: the instance exists from `available_from` (s) to `available_until` (s, < 0: the end of
  // the run); an instance of a later layout that never came up has available_from < 0.
  double available_from = 0;
  double available_until = -1;
  int layout_generation = 0;  // 0: the initial layout; k: the k-th reconfiguration of its pool
  double share = 1.0;  // share of a physical GPU one slot is (MIG: compute slices / 7; time-slicing, MPS: 1 / replicas)
  double price_per_gpu_hour = 0;  // the pool's price (cost units), for chargeback
};

struct RunCounters {
  uint64_t kernels = 0;
  uint64_t context_switches = 0;
  uint64_t transfers = 0;
};

/// One life of a continuous-batching replica (models/serving): what its engine did, recorded when its
/// server ends (the run's end, a fault, a reconfiguration).
struct ServingReplicaStats {
  int workload = -1;
  int replica = -1;
  int gpu = -1;      // its first GPU
  double start = 0;  // serving began (after bring-up)
  double end = 0;
  long long kv_blocks = 0;  // the KV cache it reserved
  long long peak_blocks = 0;
  double block_seconds = 0;  // integral of the blocks in use
  long long steps = 0;       // engine steps
  long long plans = 0;       // runs of steps the simulation executed
  double prefill_tokens = 0;
  double generated_tokens = 0;
  long long preemptions = 0;
  double swapped_bytes = 0;  // per GPU
  double busy_seconds = 0;
};

struct RunResult {
  EventLog log;
  std::vector<GpuLayout> gpus;
  RunCounters counters;
  uint64_t seed = 0;
  double arrivals_end = 0;                       // spec.duration
  double end_time = 0;                           // simulated time when the run stopped
  double wall_seconds = 0;                       // engine wall time (provenance only)
  std::vector<std::string> profile_sha256;       // per profile used, "name:sha"
  ProvenanceSummary parameter_provenance;        // the parameters the run rests on, by provenance (report.json)
  std::vector<DataMovement> data_movements;      // details of DATA_MOVE / DATA_DENIED events (docs/models/storage.md)
  std::vector<InvocationStep> invocation_steps;  // details of AGENT_CALL events (docs/models/identity.md)
  std::vector<ServingReplicaStats> serving;      // continuous-batching replicas, in the order their lives ended
  std::string stopped_early;  // why the run stopped before its end (a budget); empty: it ran to its end
};

}  // namespace gtw
