#pragma once
// The packing experiment of "Beware of Fragmentation" (Weng et al., USENIX ATC'23) on the openb trace:
// pods arrive in a fixed order, never leave, and each is placed by a packing policy or fails when it
// fits nowhere. After every arrival the replay updates the cluster's fragmentation (frag_gpu_milli against
// the target workload) incrementally: only the node that took the pod is recomputed.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "OpenbCsv.hpp"
#include "PackingApi.hpp"

namespace gtw::trace {

/// Cluster and workload of one experiment, converted from the openb files.
struct PackingInput {
  packing::ClusterState cluster;          // every resource free
  std::vector<packing::PodRequest> pods;  // the pod list
  std::vector<std::string> pod_names;
  std::vector<int> arrivals;  // index into pods, in arrival order
};

/// Builds the input; `arrivals` empty means every pod once, in list order. GPU models are interned in
/// order of first appearance (nodes first); a pod constraint naming a model no node has can never be met.
PackingInput build_packing_input(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                                 const std::vector<int>& arrivals);

struct ReplayOptions {
  uint64_t seed = 42;  // random stream of the policies: make_stream(seed, "packing/<policy>")
  // Share of the target workload's pods whose (most popular) classes the frag measure keeps; 95 as in the
  // reference simulator's configuration (typicalPodsConfig.podPopularityThreshold).
  double popularity_percent = 95;
  Params params;  // policy parameters
  // Among equally scored nodes. RANK with the published run's node ranks (Tuning.hpp) is what the published
  // simulator does (docs/validation/openb.md); FIRST takes the lowest-numbered node; RANDOM is the Kubernetes
  // scheduler's documented rule.
  packing::TieBreak tie_break = packing::TieBreak::FIRST;
  std::vector<int> node_rank;  // per node, for RANK
};

/// State after the first arrival whose cumulative GPU demand reached `arrived_pct` of capacity.
struct CurvePoint {
  int arrived_pct = 0;           // sample point: arrived GPU demand, % of GPU capacity
  double arrived_exact_pct = 0;  // the demand actually arrived at that moment
  double allocated_pct = 0;      // allocated GPU milli, % of capacity
  double frag_pct = 0;           // frag_gpu_milli, % of capacity
  double frag_idle_pct = 0;      // frag_gpu_milli, % of the idle GPU milli
  int64_t failed_pods = 0;
  int64_t arrivals = 0;
};

/// The published curves' sampling (the reference's merge_alloc_discrete.py, in pandas): each arrival k gets its
/// arrived GPU demand in whole percent of capacity (rounded half to even) and its allocation (and
/// fragmentation) in percent rounded to 2 decimals as numpy rounds; column c is the mean (pairwise sum) over
/// the arrivals at c %, or at c +- 1 when none is, rounded likewise; NaN when neither.
struct DiscreteCurves {
  std::vector<double> allocated;  // columns 0..MAX_ARRIVED_PCT
  std::vector<double> frag;
};

struct PackingResult {
  std::string policy;
  uint64_t seed = 0;
  int64_t arrivals = 0;
  int64_t failed_pods = 0;
  int64_t failed_gpu_pods = 0;  // failed pods that asked for GPUs
  double arrived_pct = 0;       // GPU demand of every arrival, % of capacity
  double allocated_pct = 0;     // final GPU allocation ratio, % of capacity
  double cpu_allocated_pct = 0;
  double frag_pct = 0;            // final frag_gpu_milli, % of capacity
  double frag_idle_pct = 0;       // final frag_gpu_milli, % of the idle GPU milli
  std::vector<CurvePoint> curve;  // at arrived demand 0, 1, ..., 130 % (as far as the arrivals reach)
  DiscreteCurves discrete;        // the same, sampled as the published curves are
  std::vector<int> decisions;     // node of each arrival, -1 when it failed
  double wall_seconds = 0;
};

/// Step-by-step replay of one policy (tests inspect the state between arrivals).
class PackingReplay {
 public:
  PackingReplay(const PackingInput& input, const std::string& policy, const ReplayOptions& options);
  bool has_next() const { return next_ < input_.arrivals.size(); }
  /// Places the next arrival (or records its failure) and updates the metrics.
  void step();
  size_t position() const { return next_; }
  const packing::ClusterState& state() const { return state_; }
  const packing::FragDistribution& distribution() const { return distribution_; }
  /// frag_gpu_milli of the cluster times the distribution's total weight, maintained incrementally.
  int64_t weighted_frag() const { return weighted_frag_; }
  /// The same, recomputed over every node (for checks).
  int64_t weighted_frag_full() const;
  /// Runs the remaining arrivals and returns the result.
  PackingResult finish();

 private:
  void sample(bool final);

  const PackingInput& input_;
  packing::ClusterState state_;
  packing::FragDistribution distribution_;
  std::unique_ptr<packing::PackingPolicy> policy_;
  RngStream rng_;
  std::vector<int64_t> node_frag_;  // weighted frag per node
  int64_t weighted_frag_ = 0;
  int64_t allocated_gpu_milli_ = 0;
  int64_t allocated_cpu_milli_ = 0;
  int64_t arrived_gpu_milli_ = 0;
  // Per arrival, for the published sampling: arrived and allocated GPU milli, fragmentation (GPU milli).
  std::vector<int64_t> log_arrived_, log_allocated_;
  std::vector<double> log_frag_;
  size_t next_ = 0;
  int next_sample_ = 0;
  PackingResult result_;
};

/// The highest sample point of the curves (the paper's 130 % of capacity).
inline constexpr int MAX_ARRIVED_PCT = 130;

PackingResult run_packing(const PackingInput& input, const std::string& policy, const ReplayOptions& options);

/// Which published curve a value is sampled for: the reference converts allocation to percent per arrival,
/// fragmentation after the mean (merge_alloc_discrete.py and merge_frag_discrete.py).
enum class DiscreteValue { ALLOCATION, FRAGMENTATION };
/// The published sampling of per-arrival values in milli-GPU (see DiscreteCurves); `capacity_gpus` is the
/// GPU count.
std::vector<double> discrete_curve(const std::vector<int64_t>& arrived_milli, const std::vector<double>& value_milli,
                                   int64_t capacity_gpus, DiscreteValue kind);
/// A value as the reference's Python prints it: shortest repr of the double, ".0" when whole, "" for NaN.
std::string python_float(double value);

}  // namespace gtw::trace
