#pragma once
// The packing-experiment interface of "Beware of Fragmentation" (Weng et al., USENIX ATC'23): pods
// arrive one by one on a cluster of nodes with CPU, memory and GPUs that can be shared in milli-GPU
// units, never leave, and a policy picks a node and the GPUs on it. Everything a packing policy needs
// is here: the cluster state as flat arrays, the pod request, the feasibility rule and the
// fragmentation measure (frag_gpu_milli) that FGD descends and the replay reports.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Registry.hpp"
#include "Rng.hpp"

namespace gtw::packing {

/// One GPU in milli-GPU units.
inline constexpr int MILLI = 1000;
/// Node GPU-model id of a node without GPUs.
inline constexpr int NO_GPU_MODEL = -1;

/// What a pod asks for. A fractional pod (num_gpu == 1, gpu_milli < 1000) must fit inside one GPU's free
/// share; an n-GPU pod needs n GPUs each fully free.
struct PodRequest {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;
  int gpu_milli = 0;        // per GPU, 0..1000; 0 for a CPU-only pod
  uint64_t model_mask = 0;  // bit m set: GPU model m accepted; 0 = any model
  // The GPU-model constraint as the trace writes it (its models joined by '|', order and repeats kept), as an
  // id that sorts as the text does (0: none). Two spellings of one model set are two target-workload classes
  // in the reference simulator, so they are here too.
  int gpu_type = 0;
  bool cpu_only() const { return num_gpu == 0 || gpu_milli == 0; }
  bool fractional() const { return num_gpu == 1 && gpu_milli > 0 && gpu_milli < MILLI; }
  int64_t total_gpu_milli() const { return cpu_only() ? 0 : static_cast<int64_t>(num_gpu) * gpu_milli; }
};

/// The cluster as flat arrays, one entry per node; GPUs of node n are free[gpu_begin[n] .. gpu_begin[n+1]).
struct ClusterState {
  std::vector<std::string> node_names;
  std::vector<std::string> model_names;  // GPU model id -> name
  std::vector<int> model;                // per node: GPU model id, NO_GPU_MODEL without GPUs
  std::vector<int64_t> cpu_capacity, cpu_left;
  std::vector<int64_t> memory_capacity, memory_left;
  std::vector<int> gpu_begin;     // size nodes + 1
  std::vector<int> gpu_free;      // milli-GPU free per GPU
  std::vector<uint32_t> version;  // bumped whenever a node changes, so policies can cache per node

  int nodes() const { return static_cast<int>(model.size()); }
  int gpus(int node) const { return gpu_begin[static_cast<size_t>(node) + 1] - gpu_begin[static_cast<size_t>(node)]; }
  const int* free(int node) const { return gpu_free.data() + gpu_begin[static_cast<size_t>(node)]; }
  int64_t total_gpu_milli() const { return static_cast<int64_t>(gpu_free.size()) * MILLI; }

  /// Appends a node with all its resources free.
  void add_node(std::string name, int64_t cpu_milli, int64_t memory_mib, int gpu_count, int gpu_model);
};

/// True when the node's GPU model is acceptable to the pod (a pod with a model constraint never runs
/// on a node without GPUs).
bool model_accepts(uint64_t model_mask, int node_model);

/// True when the pod fits the node: CPU, memory, GPU model and GPU shares (see PodRequest).
bool fits(const ClusterState& state, int node, const PodRequest& pod);

/// The pod's target workload as classes of (cpu, per-GPU milli, GPU count, accepted models) with
/// integer weights (pod counts), so fragmentation sums are exact and order-independent.
struct FragClass {
  int64_t cpu_milli = 0;
  int gpu_milli = 0;  // per GPU; 0: CPU-only class
  int num_gpu = 0;
  uint64_t model_mask = 0;
  int64_t weight = 0;
  int gpu_type = 0;  // PodRequest::gpu_type, part of the class key
};

struct FragDistribution {
  std::vector<FragClass> classes;  // by decreasing weight, then by key: deterministic
  int64_t total_weight = 0;
  // Each class's share as the reference simulator computes it in floating point (count / pods, divided by
  // the kept share when classes were cut), for the FGD score's float arithmetic (reference_frag).
  std::vector<double> share;
  // Filled by prepare(): the distinct per-GPU requests, and each class's index among them (-1 for CPU-only),
  // so a node's GPUs are scanned once per distinct request instead of once per class.
  std::vector<int> milli_values;
  std::vector<int> class_milli;

  /// Must be called after `classes` change (from_pods does); gives each class its weight's share unless
  /// `share` already has one per class.
  void prepare();

  /// Classes of the given pods weighted by how often each occurs (a pod without a CPU request counts as
  /// 100 milli-CPU, as the reference simulator's typical pods do). popularity_percent < 100 keeps only the
  /// most popular classes, added `step` at a time (1 in the published experiments), until they cover that
  /// share of the pods; equally popular classes go larger key first (CPU, GPU milli, GPU count, GPU type).
  static FragDistribution from_pods(const std::vector<PodRequest>& pods, double popularity_percent = 100, int step = 1);
};

/// frag_gpu_milli of one node state times FragDistribution::total_weight (an exact integer): for every
/// class, the node's idle GPU milli that this class could not use, weighted by the class frequency.
/// A class that fits (enough GPUs with share >= its request, enough CPU) leaves only the GPUs whose
/// free share is below its request as fragment; a class that does not fit, or a CPU-only class, leaves
/// all idle GPU milli as fragment. Memory does not enter the measure (as in the paper).
int64_t weighted_frag(const FragDistribution& dist, int node_model, int64_t cpu_left, const int* gpu_free,
                      int gpu_count);
inline int64_t weighted_frag(const FragDistribution& dist, const ClusterState& state, int node) {
  return weighted_frag(dist, state.model[static_cast<size_t>(node)], state.cpu_left[static_cast<size_t>(node)],
                       state.free(node), state.gpus(node));
}

/// The same measure (GPU milli, not times the weight) as the reference simulator computes it in floating point:
/// class by class in the distribution's order, each class's share times its amount added to one of seven
/// buckets (lacking GPU and CPU, lacking GPU, fitting: fragment and usable parts, lacking CPU, CPU-only fitting,
/// CPU-only lacking CPU, model not accepted), then the buckets but the usable part summed in that order. Exact
/// arithmetic gives weighted_frag / total_weight; the float rounding differs by ~1e-13, and FGD's integer
/// score, a truncated sigmoid, turns on it when a pod moves a class between two fragment buckets (a change
/// that is exactly zero): the published runs were scored this way.
double reference_frag(const FragDistribution& dist, int node_model, int64_t cpu_left, const int* gpu_free,
                      int gpu_count);

/// Where a pod goes: a node and, for a GPU pod, the local GPU indices on it.
struct Placement {
  int node = -1;
  std::vector<int> gpus;  // local indices within the node
};

/// How a policy chooses among equally scored nodes: uniformly at random from the replay's seeded stream
/// (the Kubernetes scheduler's rule), the lowest-numbered node, or the node of lowest rank (RANK: the
/// published simulator renames nodes with a random prefix and keeps the smallest name among equal scores).
enum class TieBreak { RANDOM, FIRST, RANK };

/// Context shared by every policy of one replay.
struct PackingContext {
  const FragDistribution* distribution = nullptr;  // the target workload (FGD)
  TieBreak tie_break = TieBreak::RANDOM;
  const std::vector<int>* node_rank = nullptr;  // per node, for TieBreak::RANK
};

class PackingPolicy {
 public:
  virtual ~PackingPolicy() = default;
  /// Gives the policy the replay's context before the first pod.
  virtual void bind(const PackingContext& /*context*/) {}
  /// A node that fits the pod and its GPUs, or nullopt when the pod fits nowhere. `rng` breaks ties
  /// between equally scored nodes.
  virtual std::optional<Placement> place(const ClusterState& state, const PodRequest& pod, RngStream& rng) = 0;
  /// Called after the placement was applied to the state.
  virtual void placed(const ClusterState& /*state*/, const PodRequest& /*pod*/, const Placement& /*where*/) {}
  /// Called after a placed pod left (time-based replay), for policies that track what nodes hold.
  virtual void released(const ClusterState& /*state*/, const PodRequest& /*pod*/, const Placement& /*where*/) {}
};

using PackingRegistry = Registry<PackingPolicy>;
const PackingRegistry& packing_registry();
/// The six policies of the paper's evaluation; throws InputError for an unknown name or bad parameter.
std::unique_ptr<PackingPolicy> make_packing_policy(const std::string& name, const Params& params,
                                                   const PackingContext& context);
/// The registered names in the paper's order (random-fit ... fgd).
std::vector<std::string> packing_policy_order();

/// GPUs the default GPU selection picks for the pod on the node (the node must fit): for a fractional
/// pod the GPU with the least free share that still fits (best fit, lowest index on ties); for an
/// n-GPU pod the n lowest-indexed fully free GPUs.
std::vector<int> default_gpu_choice(const ClusterState& state, int node, const PodRequest& pod);

/// Applies a placement to the state (subtracts CPU, memory and GPU shares, bumps the node version).
void apply(ClusterState& state, const PodRequest& pod, const Placement& where);
/// Undoes `apply` when the pod leaves (time-based replay).
void release(ClusterState& state, const PodRequest& pod, const Placement& where);

}  // namespace gtw::packing
