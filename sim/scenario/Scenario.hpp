#pragma once
// ScenarioSpec: the typed form of a scenario file. Every quantity is in SI base units (parsed once
// from unit strings), every object keeps the source location it came from so later semantic checks
// can point at the right file:line:col.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/Diagnostics.hpp"
#include "sim/core/Registry.hpp"
#include "sim/core/Units.hpp"

namespace gtw {

inline constexpr const char* SCENARIO_API_VERSION = "gputwin.dev/v1alpha1";

/// vGPU time-slice scheduler policies (NVIDIA vGPU: best effort, equal share, fixed share).
enum class VgpuScheduler { BEST_EFFORT, EQUAL_SHARE, FIXED_SHARE };
const std::vector<std::string>& vgpu_scheduler_names();

/// How one GPU is shared. EXCLUSIVE, TIME_SLICING, MPS and MIG are simulated; VGPU and CONFIDENTIAL
/// are reserved names that validation refuses with a clear message until their models land.
enum class SharingMode { EXCLUSIVE, TIME_SLICING, MPS, MIG, VGPU, CONFIDENTIAL };
const char* sharing_mode_name(SharingMode m);
const std::vector<std::string>& sharing_mode_names();

struct SharingSpec {
  SharingMode mode = SharingMode::EXCLUSIVE;
  int replicas = 1;                      // time-slicing: how many workload replicas may share one GPU
  Seconds time_slice{0.002};             // time-slicing quantum (nvidia-smi compute-policy SHORT = 2 ms)
  Seconds context_switch{-1.0};          // < 0: take the hardware profile's value
  double active_thread_percentage = -1;  // MPS: per-client SM cap in percent; < 0: 100 / replicas
  Bytes pinned_memory_limit{-1};         // MPS: per-client device memory limit; < 0: memory / replicas
  std::vector<std::string> mig_layout;   // MIG: GPU-instance profiles, e.g. [3g.40gb, 3g.40gb]
  VgpuScheduler vgpu_scheduler = VgpuScheduler::BEST_EFFORT;  // VGPU
  SourceLoc loc;
  SourceLoc mig_loc;
};

struct GpuSharingOverride {
  std::vector<int> gpus;  // GPU indices within each node of the pool
  SharingSpec sharing;
  SourceLoc loc;
};

struct NodePoolSpec {
  std::string name;
  int count = 1;
  std::string gpu_product;  // hardware profile name, e.g. H100-80GB-SXM
  int gpus_per_node = 8;
  std::string region;
  SharingSpec sharing;                          // default for every GPU of the pool
  std::vector<GpuSharingOverride> gpu_sharing;  // per-GPU-index exceptions
  std::map<std::string, std::string> hardware;  // overrides of hardware profile fields
  std::map<std::string, SourceLoc> hardware_locs;
  std::string profile_key;  // key of the effective profile (the product, or product@pool when overridden)
  SourceLoc loc;
  SourceLoc product_loc;
  /// Sharing that applies to GPU index `gpu` of a node of this pool.
  const SharingSpec& sharing_for(int gpu) const;
};

enum class Classification { PUBLIC, INTERNAL, CONFIDENTIAL, RESTRICTED };
const std::vector<std::string>& classification_names();

enum class SloKind { LATENCY, THROUGHPUT, SLOWDOWN, COMPLETION_TIME };
const std::vector<std::string>& slo_kind_names();
const char* slo_kind_name(SloKind k);

struct SloSpec {
  std::string name;
  SloKind kind = SloKind::LATENCY;
  std::string workload;     // empty: all of the tenant's workloads of the matching kind
  double percentile = 99;   // LATENCY
  Seconds threshold{0};     // LATENCY, COMPLETION_TIME
  PerSecond min_rate{0};    // THROUGHPUT: completed requests per second per window
  double max_slowdown = 0;  // SLOWDOWN: completion time / time alone
  Seconds window{60};       // evaluation window (LATENCY, THROUGHPUT)
  double target = 1.0;      // share of windows that must meet the objective (error budget = 1 - target)
  SourceLoc loc;
  SourceLoc workload_loc;
};

struct TenantSpec {
  std::string name;
  std::string region;
  Classification classification = Classification::INTERNAL;
  std::vector<SloSpec> slos;
  SourceLoc loc;
};

enum class ArrivalProcess { POISSON, BURSTY, CONSTANT };
const std::vector<std::string>& arrival_process_names();

struct ArrivalSpec {
  ArrivalProcess process = ArrivalProcess::POISSON;
  PerSecond rate{0};        // POISSON, CONSTANT; BURSTY: rate while idle (may be 0)
  PerSecond burst_rate{0};  // BURSTY: rate during a burst
  Seconds mean_burst{0};    // BURSTY: mean burst length (exponential)
  Seconds mean_gap{0};      // BURSTY: mean time between bursts (exponential)
  SourceLoc loc;
};

enum class WorkloadKind { INFERENCE, TRAINING, BATCH };
const std::vector<std::string>& workload_kind_names();
const char* workload_kind_name(WorkloadKind k);

/// The runtime a workload's processes run in (docs/models/runtimes.md). AUTO: a runc container, or
/// the confidential VM a GPU in confidential-computing mode requires.
enum class RuntimeKind { AUTO, RUNC, GVISOR, KATA, VM, CVM };
const std::vector<std::string>& runtime_kind_names();
const char* runtime_kind_name(RuntimeKind k);

enum class DType { FP32, FP16, BF16, FP8 };
const std::vector<std::string>& dtype_names();
double dtype_bytes(DType d);

struct ModelSpec {
  double parameters = 0;  // number of parameters
  DType dtype = DType::FP16;
  Bytes weights() const { return Bytes(parameters * dtype_bytes(dtype)); }
};

struct KernelSpec {
  Flops flops{0};
  Bytes bytes{0};
};

struct WorkloadSpec {
  std::string name;
  WorkloadKind kind = WorkloadKind::INFERENCE;
  std::string tenant;
  int tenant_index = -1;                     // resolved by validation
  int replicas = 1;                          // inference: serving replicas; training: 1 job; batch: worker slots
  int gpus = 1;                              // GPUs per replica (training: data-parallel width)
  Bytes memory{0};                           // device memory per GPU; 0 = derived from the model / job
  std::vector<SharingMode> allowed_sharing;  // placement constraint; empty = any
  RuntimeKind runtime = RuntimeKind::AUTO;
  SourceLoc runtime_loc;
  std::string node_pool;    // placement constraint; empty = any
  std::string mig_profile;  // placement constraint: a MIG instance of this profile
  SourceLoc mig_profile_loc;
  Seconds start{0};

  // INFERENCE
  ModelSpec model;
  ArrivalSpec arrival;
  int max_batch = 8;
  Seconds batch_timeout{0.005};
  int prompt_tokens = 512;
  int output_tokens = 128;
  int max_queue = 10000;
  // Model swapping: the service hosts `swap_models` models of the model's size (0: one model); each
  // request asks for one of them uniformly; a replica keeps `resident_models` in memory and loads a
  // missing one (evicting the least recently used) before a batch for it.
  int swap_models = 0;
  int resident_models = 1;
  // TRAINING
  int iterations = 0;
  KernelSpec step;          // per GPU per step
  Bytes data_per_step{0};   // input batch read from host memory over PCIe, per GPU
  Bytes gradient_bytes{0};  // all-reduced over NVLink each step when gpus > 1
  // BATCH (jobs arrive by `arrival`, each runs `kernels` kernels of `kernel` cost)
  int kernels_per_job = 1;
  KernelSpec kernel;

  SourceLoc loc;
  SourceLoc tenant_loc;
  SourceLoc node_pool_loc;
};

/// An injected fatal GPU error (e.g. an illegal memory access, Xid 13/31) in one client. Its fault
/// domain ends with it: every client on the GPU under MPS or time-slicing, only itself on an exclusive
/// GPU or a MIG instance.
struct FaultSpec {
  Seconds at{0};
  std::string workload;
  int replica = 0;
  Seconds restart_after{-1};  // < 0: the ended clients stay down
  SourceLoc loc;
  SourceLoc workload_loc;
};

/// A MIG re-partitioning of every MIG GPU of a node pool: the replicas on the old instances are
/// drained (no new work, at most `drain_timeout` for the work in flight), evicted, the GPUs are
/// re-partitioned (the profile's MIG reconfiguration time), and the evicted replicas placed again.
struct ReconfigurationSpec {
  Seconds at{0};
  std::string node_pool;
  std::vector<std::string> mig_layout;
  Seconds drain_timeout{30};
  SourceLoc loc;
  SourceLoc node_pool_loc;
  SourceLoc mig_loc;
};

struct PolicyRef {
  std::string name;
  Params params;
  SourceLoc loc;
  std::map<std::string, SourceLoc> param_locs;
};

struct ScenarioSpec {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string description;
  uint64_t seed = 1;
  Seconds duration{60};
  Seconds sla_window{60};  // default SLO window
  std::vector<NodePoolSpec> node_pools;
  std::vector<TenantSpec> tenants;
  std::vector<WorkloadSpec> workloads;
  std::vector<FaultSpec> faults;
  std::vector<ReconfigurationSpec> reconfigurations;
  PolicyRef placement{"first-fit", {}, {}, {}};
  std::string source_file;
  std::string source_sha256;  // of the main file's bytes, for provenance
  std::vector<std::string> included_files;

  int tenant_index(const std::string& name) const;
  int total_gpus() const;
};

}  // namespace gtw
