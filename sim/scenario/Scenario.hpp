#pragma once
// ScenarioSpec: the typed form of a scenario file. Every quantity is in SI base units (parsed once
// from unit strings), every object keeps the source location it came from so later semantic checks
// can point at the right file:line:col.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ComplianceSpec.hpp"
#include "Diagnostics.hpp"
#include "FabricSpec.hpp"
#include "IdentitySpec.hpp"
#include "Registry.hpp"
#include "RequestTrace.hpp"
#include "SharingMode.hpp"
#include "Units.hpp"

namespace gtw {

inline constexpr const char* SCENARIO_API_VERSION = "gputwin.dev/v1alpha1";

/// vGPU time-slice scheduler policies (NVIDIA vGPU: best effort, equal share, fixed share).
enum class VgpuScheduler { BEST_EFFORT, EQUAL_SHARE, FIXED_SHARE };
const std::vector<std::string>& vgpu_scheduler_names();

/// How one GPU is shared. EXCLUSIVE, TIME_SLICING, MPS and MIG are simulated; VGPU and CONFIDENTIAL
/// are reserved names that validation refuses with a clear message until their models land.

struct SharingSpec {
  SharingMode mode = SharingMode::EXCLUSIVE;
  int replicas = 1;                      // time-slicing: how many workload replicas may share one GPU
  Seconds time_slice{0.002};             // time-slicing quantum (nvidia-smi compute-policy SHORT = 2 ms)
  Seconds context_switch{-1.0};          // < 0: take the hardware profile's value
  double active_thread_percentage = -1;  // MPS: per-client SM cap in percent; < 0: 100 / replicas
  Bytes pinned_memory_limit{-1};         // MPS: per-client device memory limit; < 0: memory / replicas
  std::vector<std::string> mig_layout;   // MIG: GPU-instance profiles, e.g. [3g.40gb, 3g.40gb]
  // MIG: instances time-sliced among several replicas, by profile ("all": every instance), as the device
  // plugin's timeSlicing resources nvidia.com/mig-<profile> (strategy mixed) or nvidia.com/gpu (single) share them.
  std::map<std::string, int> mig_replicas;
  VgpuScheduler vgpu_scheduler = VgpuScheduler::BEST_EFFORT;  // VGPU
  SourceLoc loc;
  SourceLoc mig_loc;
  SourceLoc mig_replicas_loc;
  /// MIG: how many replicas share one instance of `profile` (1: the instance is one replica's).
  int instance_replicas(const std::string& profile) const;
};

struct GpuSharingOverride {
  std::vector<int> gpus;  // GPU indices within each node of the pool
  SharingSpec sharing;
  SourceLoc loc;
};

/// What a node pool's NVIDIA device plugin config says beyond the sharing mode (devicePluginConfig,
/// docs/scenario.md "Kubernetes and NVIDIA files"): recorded, and checked against the workloads.
struct DevicePluginSpec {
  bool given = false;
  std::string file;                         // where the config came from (a ConfigMap or a bare config)
  std::string config;                       // the ConfigMap data key selected (empty: a bare config)
  std::string resource = "nvidia.com/gpu";  // advertised name: renameByDefault gives nvidia.com/gpu.shared
  std::string mig_strategy = "none";        // flags.migStrategy: none | single | mixed
  bool shared = false;                      // timeSlicing or mps with replicas
  bool fail_requests_greater_than_one = false;
  bool rename_by_default = false;
  std::map<std::string, int> mig_replicas;  // timeSlicing of MIG devices (as SharingSpec::mig_replicas)
  // Shared resources advertised under another name (rename, or renameByDefault's <name>.shared).
  std::map<std::string, std::string> renamed;
  SourceLoc mig_replicas_loc;
  SourceLoc loc;
  SourceLoc fail_loc;  // failRequestsGreaterThanOne (or the sharing section when absent)
};

/// One entry of a mig-parted config (`mig-configs.<name>[i]`).
struct MigPartedEntry {
  std::vector<std::string> device_filter;  // PCI device ids, upper case (0x20B010DE); empty: every product
  std::vector<int> devices;                // GPU indices; empty: all
  bool mig_enabled = false;
  std::vector<std::string> layout;  // mig-devices, one name per instance
  SourceLoc loc;
  SourceLoc layout_loc;
};

/// A node pool's mig-parted selection (migConfig: {file, config}), as the node label nvidia.com/mig.config
/// selects one. Entries with a device-filter need the product's PCI device ids (hardware profile field
/// pciDeviceIds), so they are applied at setup (apply_mig_config); without one, by the loader.
struct MigConfigSpec {
  std::string file;
  std::string config;
  std::vector<MigPartedEntry> entries;
  bool applied = false;
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
  // A Kubernetes Node read verbatim (fromNode): the GPU memory its GPU feature discovery label states (MiB,
  // < 0: none), checked against the profile at setup.
  double labelled_memory_mib = -1;
  SourceLoc labelled_memory_loc;
  std::string labelled_mig_strategy;  // nvidia.com/mig.strategy of the Node (none | single | mixed; "": no label)
  SourceLoc labelled_mig_strategy_loc;
  bool labelled_runs_mig = false;  // its labels show MIG devices (nvidia.com/mig-<profile>.count > 0)
  std::string labelled_product;    // its nvidia.com/gpu.product when the pool also names gpu (checked at setup)
  SourceLoc labelled_product_loc;
  std::string profile_key;         // key of the effective profile (the product, or product@pool when overridden)
  double price_per_gpu_hour = 0;   // cost units per GPU-hour (chargeback and the design's cost); 0: not priced
  NodeTopologySpec topology;       // inside each node (models/fabric)
  DevicePluginSpec device_plugin;  // from devicePluginConfig
  std::optional<MigConfigSpec> mig_config;  // from migConfig, until applied to sharing and gpuSharing
  SourceLoc loc;
  SourceLoc product_loc;
  /// Sharing that applies to GPU index `gpu` of a node of this pool.
  const SharingSpec& sharing_for(int gpu) const;
};

enum class Classification { PUBLIC, INTERNAL, CONFIDENTIAL, RESTRICTED };
const std::vector<std::string>& classification_names();

enum class SloKind { LATENCY, THROUGHPUT, SLOWDOWN, COMPLETION_TIME, AVAILABILITY, TTFT, TPOT };
/// SLOs over the requests of inference services, evaluated per window (the others judge each job).
inline bool is_request_slo(SloKind k) {
  return k == SloKind::LATENCY || k == SloKind::THROUGHPUT || k == SloKind::AVAILABILITY || k == SloKind::TTFT ||
         k == SloKind::TPOT;
}
const std::vector<std::string>& slo_kind_names();
const char* slo_kind_name(SloKind k);

struct SloSpec {
  std::string name;
  SloKind kind = SloKind::LATENCY;
  std::string workload;         // empty: all of the tenant's workloads of the matching kind
  double percentile = 99;       // LATENCY
  Seconds threshold{0};         // LATENCY, COMPLETION_TIME
  PerSecond min_rate{0};        // THROUGHPUT: completed requests per second per window
  double max_slowdown = 0;      // SLOWDOWN: completion time / time alone
  double min_availability = 0;  // AVAILABILITY: share of the requests of each window that must be served
  Seconds window{60};           // evaluation window (LATENCY, THROUGHPUT, AVAILABILITY)
  double target = 1.0;          // share of windows that must meet the objective (error budget = 1 - target)
  // AVAILABILITY from an OpenSLO RatioTimeslices budget: the compliance is the mean of the windows' served
  // shares (not the share of windows that meet min_availability), met when it reaches `target`.
  bool mean_of_ratios = false;
  SourceLoc loc;
  SourceLoc workload_loc;
  // From an OpenSLO document (tenants[].slos[].openslo): `whole_run`: one window over the run (an
  // Occurrences budget counts every event of its time window; check_references sets `window`);
  // `time_window`: the OpenSLO timeWindow's length (0: none), beside the run in a warning when longer.
  bool whole_run = false;
  Seconds time_window{0};
  std::string time_window_text;
  SourceLoc time_window_loc;
};

/// The Kubernetes resource of whole GPUs; MIG instances are nvidia.com/mig-<profile>.
inline constexpr const char* GPU_RESOURCE = "nvidia.com/gpu";

/// A quota of one Kubernetes resource (Kueue's resourceGroups[].flavors[].resources[] entry): the nominal
/// quota, how much more may be borrowed (< 0: no limit) and how much of the nominal quota may be lent (< 0: all).
struct ResourceQuota {
  int nominal = 0;
  int borrowing_limit = -1;
  int lending_limit = -1;
  bool operator==(const ResourceQuota&) const = default;
};
/// Quotas by resource name (nvidia.com/gpu, nvidia.com/mig-1g.10gb, a device plugin's rename), in name order.
using ResourceQuotas = std::map<std::string, ResourceQuota>;

/// Kueue's ClusterQueue preemption policy (kueue.sigs.k8s.io, concepts "Preemption"), for a tenant's quota.
enum class PreemptionPolicy { NEVER, LOWER_PRIORITY, LOWER_OR_NEWER_EQUAL_PRIORITY, ANY };
struct QuotaPreemptionSpec {
  // A workload within its nominal quota preempts other queues' borrowers: Any (the scenario's own quotas'
  // default), LowerPriority, or Never (Kueue's default).
  PreemptionPolicy reclaim_within_cohort = PreemptionPolicy::ANY;
  // A workload that does not fit preempts its own queue's: Never, LowerPriority, LowerOrNewerEqualPriority.
  PreemptionPolicy within_cluster_queue = PreemptionPolicy::NEVER;
  // borrowWithinCohort LowerPriority: a workload that must borrow preempts lower-priority workloads of the
  // cohort's borrowing queues (those at most max_priority_threshold, when given).
  bool borrow_within_cohort = false;
  std::optional<int> max_priority_threshold;
};

/// Kueue's fair-sharing preemption strategies (Configuration fairSharing.preemptionStrategies), tried in order: a
/// borrowing queue's workload is preempted when the preemptor's share with its workload would stay at or below
/// the target queue's share after the preemption (LessThanOrEqualToFinalShare), or below the target's share
/// before it (LessThanInitialShare).
enum class FairSharingStrategy { LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE };
const std::vector<std::string>& fair_sharing_strategy_names();

/// Kueue's fair sharing (Configuration fairSharing; docs/models/quotas.md): waiting workloads are admitted by
/// their queue's dominant-resource share (what it borrows over what its cohort could lend, divided by its
/// weight), and a queue under its fair share preempts from the queues above theirs.
struct FairSharingSpec {
  bool enabled = false;
  std::vector<FairSharingStrategy> strategies{FairSharingStrategy::LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
                                              FairSharingStrategy::LESS_THAN_INITIAL_SHARE};
  SourceLoc loc;  // where it was given (a scenario's spec.fairSharing, a Kueue Configuration); empty: not given
  bool same_setting(const FairSharingSpec& o) const { return enabled == o.enabled && strategies == o.strategies; }
};

/// Priority classes (Kueue WorkloadPriorityClass, Kubernetes PriorityClass) by name: cluster-wide, as in
/// Kubernetes, whichever file defines them. A workload's priorityClass names one.
struct PriorityClasses {
  std::map<std::string, int> values;
  std::map<std::string, SourceLoc> locs;
  std::optional<int> global_default;  // a PriorityClass with globalDefault: the priority of workloads naming none
};

/// A Kueue Cohort read with a tenant's ClusterQueue (quota.kueue): its parent and its own quotas, which its
/// subtree shares, with the limits on what it borrows from and lends to its parent (< 0: none).
struct CohortSpec {
  std::string name;
  std::string parent;  // "": a root cohort
  ResourceQuotas quotas;
  double fair_weight = 1.0;  // fairSharing.weight: with fair sharing, its share is what its subtree borrows over it
  SourceLoc loc;             // the Cohort object; unknown for a plain cohort (a name without an object)
  // A ClusterQueue of the tree that is no tenant's: a leaf that lends its quota and uses none (parent: its cohort).
  bool cluster_queue = false;
};

struct TenantSpec {
  std::string name;
  std::string region;
  Classification classification = Classification::INTERNAL;
  std::vector<SloSpec> slos;
  // Kueue-like quota (docs/models/quotas.md): the tenant's workloads are admitted whole while the devices of
  // their resource in use stay within its nominal quota plus what it may borrow from the unused nominal quota
  // of its cohort (ResourceQuota). No quota: admitted at start, as without quotas.
  bool has_quota = false;
  ResourceQuotas quotas;
  QuotaPreemptionSpec preemption;
  bool strict_fifo = false;  // queueingStrategy StrictFIFO: the queue's head blocks the workloads behind it
  // fairSharing.weight: its share is what it borrows divided by the weight (0: admitted last, preempted first).
  double fair_weight = 1.0;
  std::optional<FairSharingSpec> kueue_configuration;  // a Kueue Configuration document of its quota.kueue file
  SourceLoc quota_loc;
  PriorityClasses priority_classes;  // those its quota.kueue file defines
  // When the quota comes from a Kueue ClusterQueue (quota.kueue): its name, its cohort ("": none) and
  // its GPU flavor's nodeLabels (which select a node pool by name), checked across tenants by
  // check_references (one flat cohort; one ClusterQueue per tenant).
  std::string cluster_queue;
  std::string cohort;
  // Its cohort and the cohorts above it, as the file's Cohort objects give them (a name without an object is a
  // plain cohort: no quota, no parent). The quota tree (QuotaTree.hpp) joins the tenants' chains by name.
  std::vector<CohortSpec> cohort_chain;
  // The rest of the tree the file gives: every other Cohort object under the same root cohort, and every other
  // ClusterQueue in it (those no tenant has lend their quota, unused).
  std::vector<CohortSpec> cohort_tree;
  std::string gpu_flavor;  // the ResourceFlavor of the ClusterQueue's GPU quotas (nvidia.com/gpu, mig-*)
  std::vector<std::pair<std::string, std::string>> flavor_node_labels;  // the GPU flavor's nodeLabels
  SourceLoc cluster_queue_loc;
  SourceLoc flavor_loc;
  SourceLoc loc;
};

enum class ArrivalProcess { POISSON, BURSTY, CONSTANT, DIURNAL, TRACE };
const std::vector<std::string>& arrival_process_names();

struct ArrivalSpec {
  ArrivalProcess process = ArrivalProcess::POISSON;
  PerSecond rate{0};        // POISSON, CONSTANT; BURSTY: rate while idle (may be 0)
  PerSecond burst_rate{0};  // BURSTY: rate during a burst
  Seconds mean_burst{0};    // BURSTY: mean burst length (exponential)
  Seconds mean_gap{0};      // BURSTY: mean time between bursts (exponential)
  double amplitude = 0.5;   // DIURNAL: rate(t) = rate x (1 + amplitude x cos(2 pi (t - peakAt) / period))
  Seconds period{86400};    // DIURNAL
  Seconds peak_at{0};       // DIURNAL: simulated time of the first peak
  // TRACE: requests replayed from a file, with their own token counts; `speedup` compresses time
  // (60: an hour of trace in a simulated minute), `offset` skips the trace's first seconds.
  std::string trace_file;
  std::string trace_format = "azure-llm";
  double speedup = 1.0;
  Seconds trace_offset{0};
  std::shared_ptr<const RequestTrace> trace;  // read by the loader
  SourceLoc trace_loc;
  SourceLoc loc;
};

enum class WorkloadKind { INFERENCE, TRAINING, BATCH, ATTACK };
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

/// A transformer's shape (decoder-only, SwiGLU feed-forward, optional mixture of experts): what the
/// continuous-batching model prices steps and sizes the KV cache with. From the model catalogue
/// (`model.id`, calibration/models/llm.yaml) or given as `model.architecture`.
struct ModelShape {
  int hidden_size = 0;  // 0: no shape (the static batcher needs only the parameter count)
  int intermediate_size = 0;
  int attention_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int vocab_size = 0;
  int experts = 1;
  int active_experts = 1;
  bool tied_embeddings = false;
  bool qkv_bias = false;
};

struct ModelSpec {
  double parameters = 0;  // number of parameters
  DType dtype = DType::FP16;
  int layers = 0;  // layers of equal size; > 0: the prefill runs as one kernel per layer (0: one kernel)
  std::string id;  // model catalogue entry (resolved at setup: parameters, layers and shape)
  SourceLoc id_loc;
  ModelShape shape;
  bool has_shape() const { return shape.hidden_size > 0; }
  Bytes weights() const { return Bytes(parameters * dtype_bytes(dtype)); }
};

/// How an inference replica batches (docs/models/serving.md). `static`: a batch of up to maxBatch
/// requests runs prefill then decodes until its longest request ends (the first model, kept for its
/// scenarios). `continuous`: iteration-level batching with a paged KV cache, as vLLM, TensorRT-LLM and
/// SGLang serve; the default when the model has a shape.
enum class BatchingMode { STATIC, CONTINUOUS };
const std::vector<std::string>& batching_mode_names();

struct ServingSpec {
  BatchingMode mode = BatchingMode::STATIC;
  bool mode_given = false;
  SourceLoc mode_loc;
  int max_num_seqs = 256;
  int max_num_batched_tokens = 8192;
  bool chunked_prefill = true;
  bool priority_order = false;  // batching.order: priority (lower request priority first), else fcfs
  // batching.engine: the serving engine family whose host time per step applies (hostOverhead: of
  // calibration/serving/targets.yaml); "none": the GPU's time only. Resolved at setup.
  std::string engine = "vllm-v1";
  std::string step_overhead_source;  // where the family's host time comes from (hostOverhead: source)
  SourceLoc engine_loc;
  double step_overhead_s = 0;
  double gpu_time_share = 1;
  double priority_share = 0;  // request.priorityShare: share of requests with the urgent priority 0 (others 1)
  // kvCache
  int block_size = 16;
  double gpu_memory_utilization = 0.9;
  bool kv_fp8 = false;           // kvCache.dtype fp8 (else 16-bit)
  bool swap_preemption = false;  // kvCache.preemption: swap (else recompute)
  double prefix_hit_ratio = 0;
  Bytes workspace{0};  // activations and workspace per GPU beside weights and KV
  // disaggregation: the first prefill_replicas replicas only prefill (and produce the first token), the
  // others only decode; a request's KV cache moves from one to the other over the GPU links or the fabric
  int prefill_replicas = 0;
  SourceLoc disaggregation_loc;
  // parallelism
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  SourceLoc parallelism_loc;
};

struct KernelSpec {
  Flops flops{0};
  Bytes bytes{0};
  /// The kernel's grid: thread blocks, and how many of them one SM holds at once (0 blocks: not given, the grid
  /// fills every SM).
  int blocks = 0;
  int blocks_per_sm = 1;
  /// The SMs the grid occupies on a GPU of `sms` SMs: ceil(blocks / blocks_per_sm), at most `sms`.
  int grid_sms(int sms) const {
    if (blocks <= 0) return sms;
    const int per_sm = std::max(1, blocks_per_sm);
    return std::min(sms, blocks / per_sm + (blocks % per_sm != 0 ? 1 : 0));
  }
};

/// Attacks an attacker workload (`kind: attack`) runs inside the simulation (docs/models/leakage.md,
/// "Attack replay"; ../shared/reference/attacks.md).
enum class AttackType {
  COVERT_CHANNEL,
  PRIME_PROBE,
  REMANENCE_SCRAPE,
  NOISY_NEIGHBOUR,
  MPS_KILL,
  MODEL_EXTRACTION,
  QUERY_EXTRACTION
};
const std::vector<std::string>& attack_type_names();
const char* attack_type_name(AttackType t);

/// A model the prime+probe attacker can tell apart (its fingerprint library).
struct AttackCandidate {
  std::string name;
  ModelSpec model;
  SourceLoc loc;
};

struct AttackSpec {
  AttackType type = AttackType::COVERT_CHANNEL;
  std::string channel;  // covertChannel: the resource modulated and probed (nvlink | pcie | l2 | hbm)
  // covertChannel: replica 0 is the sender (a trojan running as `senderTenant`, default the attacker's own
  // tenant), replica 1 the receiver (the attacker's tenant).
  std::string sender_tenant;
  int sender_tenant_index = -1;    // resolved by validation
  std::string target;              // primeProbe, noisyNeighbour, mpsKill, modelExtraction: the victim workload
  int target_index = -1;           // resolved by validation
  int bits = 4096;                 // covertChannel: payload bits
  int preamble = 64;               // covertChannel: alternating training bits that set the decision threshold
  PerSecond bit_rate{0};           // covertChannel: symbols per second; 0 = the reference measurement's rate
  bool adaptive_rate = false;      // covertChannel, `bitRate: auto`: the attacker searches for its best rate
  int training_bits = 256;         // covertChannel, `bitRate: auto`: known bits per trial of the search
  std::string reference;           // covertChannel: attack id (attacks.md) whose rate and error calibrate it
  Seconds noise{-1};               // probe-latency noise (std dev); < 0: calibrated (docs/models/leakage.md)
  Seconds probe_interval{0.0005};  // primeProbe / modelExtraction: time between probes
  Bytes bytes{0};             // remanenceScrape: bytes to allocate (0 = all free); noisyNeighbour: bytes per kernel
  Flops flops{0};             // noisyNeighbour: FLOPs per kernel
  Seconds at{-1};             // mpsKill: when the attacker's own client faults (< 0: at its start)
  Seconds interval{0};        // remanenceScrape: re-scrape period (0 = once)
  int queries = 1000;         // queryExtraction: queries the attacker wants answered
  PerSecond query_rate{100};  // queryExtraction: queries it sends per second (retrying refused ones)
  std::vector<AttackCandidate> candidates;  // primeProbe: models it tells apart (the victim's may be one)
  SourceLoc loc;
  SourceLoc channel_loc;
  SourceLoc sender_loc;
  SourceLoc target_loc;
  SourceLoc reference_loc;
};

/// An injected attestation failure (docs/models/compliance.md): from `at` on, every attestation of the
/// replica's GPUs fails (a firmware measurement that no longer matches its reference, say).
struct AttestationFailureSpec {
  Seconds at{0};
  int replica = -1;  // < 0: every replica of the workload
  SourceLoc loc;
};

struct WorkloadSpec {
  std::string name;
  WorkloadKind kind = WorkloadKind::INFERENCE;
  std::string tenant;
  int tenant_index = -1;  // resolved by validation
  std::string purpose;    // purpose of its processing (GDPR Art. 30(1)(b)); empty: its kind's name
  int replicas = 1;       // inference: serving replicas; training: 1 job; batch: worker slots
  int gpus = 1;           // GPUs per replica (training: data-parallel width)
  SourceLoc gpus_loc;
  Bytes memory{0};                           // device memory per GPU; 0 = derived from the model / job
  std::vector<SharingMode> allowed_sharing;  // placement constraint; empty = any
  RuntimeKind runtime = RuntimeKind::AUTO;
  SourceLoc runtime_loc;
  std::string node_pool;    // placement constraint; empty = any
  std::string mig_profile;  // placement constraint: a MIG instance of this profile
  SourceLoc mig_profile_loc;
  // Placement constraint as a pod's resources.limits names it: devices advertised as this Kubernetes resource
  // (nvidia.com/gpu, nvidia.com/mig-<profile>, or a device plugin's rename such as nvidia.com/gpu.shared).
  std::string k8s_resource;
  SourceLoc k8s_resource_loc;
  Seconds start{0};
  // Quota priority (Kueue's workload priority): `priority`, or the value of `priority_class` in the tenant's
  // Kueue file (resolved by validation). Higher is admitted first and may preempt lower (QuotaPreemptionSpec).
  int priority = 0;
  std::string priority_class;
  SourceLoc priority_loc;

  /// The Kubernetes resource its quota counts: the resource its pods name, a MIG profile's, else whole GPUs.
  std::string quota_resource() const {
    if (!k8s_resource.empty()) return k8s_resource;
    if (!mig_profile.empty()) return "nvidia.com/mig-" + mig_profile;
    return GPU_RESOURCE;
  }

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
  ServingSpec serving;  // batching.mode and the continuous batcher's settings
  bool continuous() const { return kind == WorkloadKind::INFERENCE && serving.mode == BatchingMode::CONTINUOUS; }
  // TRAINING
  int iterations = 0;
  KernelSpec step;          // per GPU per step
  Bytes data_per_step{0};   // input batch read from host memory over PCIe, per GPU
  Bytes gradient_bytes{0};  // all-reduced over NVLink each step when gpus > 1
  // BATCH (jobs arrive by `arrival`, each runs `kernels` kernels of `kernel` cost)
  int kernels_per_job = 1;
  KernelSpec kernel;
  // ATTACK
  AttackSpec attack;
  // Storage and network I/O (models/fabric, models/storage)
  WorkloadIoSpec io;
  int nodes = 1;                       // training: nodes the job spans (gpus split evenly)
  std::vector<std::string> pin_nodes;  // placement.nodes: node names (pool-N) the replica must use
  std::vector<std::string> secrets;    // secrets (spec.identity.secrets) each replica fetches at start (key release)
  SourceLoc secrets_loc;
  std::vector<AttestationFailureSpec> attestation_failures;  // injected: attestations that fail
  SourceLoc nodes_loc;

  /// The tenant a replica runs as: the attacker's, except a covert channel's sender (replica 0), which
  /// runs as the sender tenant.
  int replica_tenant(int replica) const {
    return kind == WorkloadKind::ATTACK && attack.type == AttackType::COVERT_CHANNEL && replica == 0 &&
                   attack.sender_tenant_index >= 0
               ? attack.sender_tenant_index
               : tenant_index;
  }

  SourceLoc loc;
  SourceLoc tenant_loc;
  SourceLoc node_pool_loc;
};

/// An injected fatal GPU error (e.g. an illegal memory access, Xid 13/31) in one client. Its fault
/// domain ends with it: every client on the GPU under MPS or time-slicing, only itself on an exclusive
/// GPU or a MIG instance.
enum class FaultScope { GPU, NODE };  // "gpu", "node"
const std::vector<std::string>& fault_scope_names();

struct FaultSpec {
  Seconds at{0};
  std::string workload;
  int replica = 0;
  Seconds restart_after{-1};  // < 0: the ended clients stay down
  // >= 0: failover: the ended clients are placed again elsewhere after this delay (detection and rescheduling),
  // the faulted devices out of service for the rest of the run
  Seconds failover{-1};
  FaultScope scope = FaultScope::GPU;  // node: every client of every GPU of the node ends
  // A secret leak instead of a GPU fault (workload empty): the secret's value (or its latest leased
  // credential) reaches `to` (a tenant; empty: unknown outsider); known `detected_after` later (< 0: never).
  std::string secret;
  std::string to;
  Seconds detected_after{-1};
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

/// Which GPUs of its node a tenant's processes can open (spec.policies.isolation.gpuVisibility). NODE: every
/// GPU of the node (bare metal, no device cgroup: CUDA peer access to a neighbour's GPU is possible);
/// ALLOCATED: only the GPUs allocated to it (k8s device plugin, CUDA_VISIBLE_DEVICES with cgroup device
/// isolation, one VM per GPU), so it cannot enable peer access to another tenant's GPU.
enum class GpuVisibility { NODE, ALLOCATED };
const std::vector<std::string>& gpu_visibility_names();

/// What an inference API returns with each generated token, and how it marks its answers
/// (docs/models/leakage.md, "Model IP"): the inputs of the projection-layer extraction and of watermark
/// detection.
enum class ApiLogprobs { FULL, TOP, NONE };
const std::vector<std::string>& api_logprobs_names();  // full | top | none

struct ApiOutputPolicy {
  ApiLogprobs logprobs = ApiLogprobs::TOP;  // every logprob, the top K, or none
  int top_logprobs = 20;                    // K (assumed: the common API maximum of 20)
  bool logit_bias = true;                   // the API accepts a per-token logit bias
  double noise_nats = 0;                    // std dev of Gaussian noise added to each returned logprob
  double watermark_fraction = 0;            // share of answers that carry the owner's watermark
  int watermark_threshold = 10;             // marked answers a suspect copy must have learnt for detection
};

/// Isolation mitigations in force (spec.policies.isolation; docs/models/leakage.md, "Mitigations").
struct IsolationPolicySpec {
  // The device plugin's isolation (docs/models/leakage.md, "Exposure", step 5); `node` for bare metal.
  GpuVisibility gpu_visibility = GpuVisibility::ALLOCATED;
  bool scrub_on_free = false;     // freed device memory is overwritten (HBM write time) before reuse
  Seconds timer_resolution{0};    // coarsest timer a tenant can read; 0 = native timers
  Seconds noise_injection{0};     // std dev of random delay added to every timed operation a tenant sees
  PerSecond query_rate_limit{0};  // per-client queries/s on inference services; 0 = unlimited
  int query_budget = 0;           // per-client queries answered in the whole run; 0 = unlimited
  // Model weights (weights and checkpoint data items) are encrypted by their owner at rest and in transit and
  // decrypted on the replica's host at `decrypt_bandwidth` when loaded (docs/models/leakage.md, "Model IP").
  bool weight_encryption = false;
  BytesPerSecond decrypt_bandwidth{2e9};  // assumed: AES-GCM on a few host cores
  ApiOutputPolicy api;                    // inference APIs' outputs (logprobs, noise, watermark)
  SourceLoc loc;
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
  PriorityClasses priority_classes;  // spec.priorityClasses.file (tenants' Kueue files add theirs)
  FairSharingSpec fair_sharing;      // spec.fairSharing or a Kueue Configuration (spec.kueueConfiguration.file)
  std::vector<FaultSpec> faults;
  std::vector<ReconfigurationSpec> reconfigurations;
  PolicyRef placement{"first-fit", {}, {}, {}};
  FabricSpec fabric;                                // spec.cluster.fabric
  std::vector<StorageSpec> storage;                 // spec.cluster.storage
  std::vector<DataSpec> data;                       // spec.data: tagged data items
  std::vector<NetworkPolicySpec> network_policies;  // spec.networkPolicies
  IsolationPolicySpec isolation;
  IdentitySpec identity;                   // spec.identity (models/threat)
  AuditSpec audit;                         // spec.audit (models/threat/AuditLog)
  IncidentResponseSpec incident_response;  // spec.incidentResponse
  ComplianceSpec compliance;               // spec.compliance (policies/compliance)
  std::string source_file;
  std::string source_sha256;  // of the main file's bytes, for provenance
  std::vector<std::string> included_files;

  int tenant_index(const std::string& name) const;
  int total_gpus() const;
};

}  // namespace gtw
