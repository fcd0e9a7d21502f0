// The six policies of the packing evaluation of "Beware of Fragmentation" (Weng et al., USENIX ATC'23),
// re-implemented from the scoring rules of the published simulator (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/*_score.go): each scores every feasible node with an integer in [0, 100], the
// highest score wins and equal scores are broken uniformly at random, as the Kubernetes scheduler does.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

#include "Diagnostics.hpp"
#include "Errors.hpp"
#include "PackingApi.hpp"

namespace gtw::packing {

namespace {

constexpr int64_t MAX_NODE_SCORE = 100;

// How equally scored nodes are told apart.
struct Ties {
  TieBreak rule = TieBreak::RANDOM;
  const std::vector<int>* rank = nullptr;  // TieBreak::RANK
};

// Highest-scored feasible node. Equal scores go to a uniformly random one (TieBreak::RANDOM, the Kubernetes
// scheduler's rule), to the lowest-numbered one (FIRST) or to the one of lowest rank (RANK, the published
// simulator's smallest renamed node). `score(node)` returns an integer score.
template <class ScoreFn>
std::optional<int> best_node(const ClusterState& state, const PodRequest& pod, RngStream& rng, Ties tie_break,
                             std::vector<int>& ties, ScoreFn&& score) {
  ties.clear();
  int64_t best = std::numeric_limits<int64_t>::min();
  for (int n = 0, count = state.nodes(); n < count; ++n) {
    if (!fits(state, n, pod)) continue;
    const int64_t s = score(n);
    if (s > best) {
      best = s;
      ties.clear();
    }
    if (s == best) ties.push_back(n);
  }
  if (ties.empty()) return std::nullopt;
  if (tie_break.rule == TieBreak::FIRST) return ties.front();
  if (tie_break.rule == TieBreak::RANK) {
    const auto& rank = *tie_break.rank;
    return *std::min_element(ties.begin(), ties.end(),
                             [&](int a, int b) { return rank[static_cast<size_t>(a)] < rank[static_cast<size_t>(b)]; });
  }
  return ties[static_cast<size_t>(rng.next_u64() % ties.size())];
}

// Shared by the policies: the tie-break rule of the replay and a reusable buffer of tied nodes.
class ScoringPolicy : public PackingPolicy {
 public:
  void bind(const PackingContext& context) override {
    if (context.tie_break == TieBreak::RANK && !context.node_rank)
      throw std::logic_error("TieBreak::RANK without node ranks");
    tie_break_ = {context.tie_break, context.node_rank};
  }

 protected:
  Ties tie_break_;
  std::vector<int> ties_;
};

int64_t gpu_milli_left(const ClusterState& state, int node) {
  int64_t left = 0;
  const int* free = state.free(node);
  for (int g = 0, count = state.gpus(node); g < count; ++g) left += free[g];
  return left;
}

// Random-fit: a uniformly random feasible node; a fractional pod goes to a uniformly random GPU among those
// with enough free share, whole-GPU pods to the lowest-numbered free GPUs.
class RandomFit final : public ScoringPolicy {
 public:
  std::optional<Placement> place(const ClusterState& state, const PodRequest& pod, RngStream& rng) override {
    // The choice is the policy itself, not a tie-break: always uniform.
    auto node = best_node(state, pod, rng, Ties{}, ties_, [](int) { return int64_t{0}; });
    if (!node) return std::nullopt;
    if (!pod.fractional()) return Placement{*node, default_gpu_choice(state, *node, pod)};
    std::vector<int> candidates;
    const int* free = state.free(*node);
    for (int g = 0, count = state.gpus(*node); g < count; ++g)
      if (free[g] >= pod.gpu_milli) candidates.push_back(g);
    return Placement{*node, {candidates[static_cast<size_t>(rng.next_u64() % candidates.size())]}};
  }

 private:
};

// Dot-product (Tetris): the node whose free (CPU, total GPU) vector, normalised by the largest node,
// has the smallest dot product with the pod's demand, i.e. the node the pod fills most.
class DotProduct final : public ScoringPolicy {
 public:
  DotProduct(double max_cpu, double max_gpu) : max_cpu_(max_cpu), max_gpu_(max_gpu) {}
  std::optional<Placement> place(const ClusterState& state, const PodRequest& pod, RngStream& rng) override {
    const double pod_cpu = static_cast<double>(pod.cpu_milli) / max_cpu_;
    const double pod_gpu = static_cast<double>(pod.total_gpu_milli()) / max_gpu_;
    auto node = best_node(state, pod, rng, tie_break_, ties_, [&](int n) {
      const double node_cpu = static_cast<double>(state.cpu_left[static_cast<size_t>(n)]) / max_cpu_;
      const double node_gpu = static_cast<double>(gpu_milli_left(state, n)) / max_gpu_;
      const double dot = (node_cpu * pod_cpu + node_gpu * pod_gpu) / 2.0;
      return static_cast<int64_t>(static_cast<double>(MAX_NODE_SCORE) * (1.0 - dot));
    });
    if (!node) return std::nullopt;
    return Placement{*node, default_gpu_choice(state, *node, pod)};
  }

 private:
  double max_cpu_, max_gpu_;
};

// GPU clustering: pods of the same GPU-request kind go together (kinds: a GPU share, or 1, 2, 4, 8 whole GPUs). Tiers:
// a node hosting only this request kind (75, 100], a node hosting it among others (50, 75], an idle node (25, 50],
// other nodes [0, 25]; inside a tier, the less GPU left the better.
class GpuClustering final : public ScoringPolicy {
 public:
  explicit GpuClustering(int64_t max_gpu) : max_gpu_(max_gpu) {}
  std::optional<Placement> place(const ClusterState& state, const PodRequest& pod, RngStream& rng) override {
    if (kinds_.size() != static_cast<size_t>(state.nodes())) kinds_.resize(static_cast<size_t>(state.nodes()));
    const int kind = request_kind(pod);
    auto node = best_node(state, pod, rng, tie_break_, ties_, [&](int n) -> int64_t {
      if (pod.cpu_only()) return 0;
      const auto& on_node = kinds_[static_cast<size_t>(n)];
      const int64_t fill = MAX_NODE_SCORE / 4 * (max_gpu_ - gpu_milli_left(state, n)) / max_gpu_;
      const bool hosts_kind = on_node.count(kind) != 0;
      if (hosts_kind) return fill + (on_node.size() == 1 ? MAX_NODE_SCORE * 3 / 4 : MAX_NODE_SCORE * 2 / 4);
      return fill + (on_node.empty() ? MAX_NODE_SCORE / 4 : 0);
    });
    if (!node) return std::nullopt;
    return Placement{*node, default_gpu_choice(state, *node, pod)};
  }
  void placed(const ClusterState& state, const PodRequest& pod, const Placement& where) override {
    if (kinds_.size() != static_cast<size_t>(state.nodes())) kinds_.resize(static_cast<size_t>(state.nodes()));
    if (!pod.cpu_only()) ++kinds_[static_cast<size_t>(where.node)][request_kind(pod)];
  }
  void released(const ClusterState&, const PodRequest& pod, const Placement& where) override {
    if (pod.cpu_only() || static_cast<size_t>(where.node) >= kinds_.size()) return;
    auto& kinds = kinds_[static_cast<size_t>(where.node)];
    if (auto it = kinds.find(request_kind(pod)); it != kinds.end() && --it->second <= 0) kinds.erase(it);
  }

 private:
  // All fractional pods share one kind; whole-GPU pods are grouped by GPU count.
  static int request_kind(const PodRequest& pod) { return pod.fractional() ? 0 : pod.num_gpu; }
  int64_t max_gpu_;
  std::vector<std::map<int, int>> kinds_;  // per node: request kind -> pods
};

// GPU packing: first GPUs already shared (the fuller the better), then free GPUs on a used node (the
// fewer the better), then idle nodes (the fewer GPUs the better).
class GpuPacking final : public ScoringPolicy {
 public:
  std::optional<Placement> place(const ClusterState& state, const PodRequest& pod, RngStream& rng) override {
    auto node = best_node(state, pod, rng, tie_break_, ties_, [&](int n) { return score(state, n, pod); });
    if (!node) return std::nullopt;
    return Placement{*node, default_gpu_choice(state, *node, pod)};
  }

 private:
  int64_t score(const ClusterState& state, int node, const PodRequest& pod) {
    if (pod.cpu_only()) return 0;
    const int* free = state.free(node);
    const int count = state.gpus(node);
    int64_t fully_free = 0;
    for (int g = 0; g < count; ++g)
      if (free[g] == MILLI) ++fully_free;
    if (fully_free == count) return std::max(MAX_NODE_SCORE / 3 - fully_free, fully_free);
    order_.resize(static_cast<size_t>(count));
    for (int g = 0; g < count; ++g) order_[static_cast<size_t>(g)] = g;
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return free[a] < free[b]; });
    int needed = pod.num_gpu;
    int64_t fully_free_used = 0, free_ratio_used = 0;
    for (int g : order_) {
      if (needed == 0) break;
      if (free[g] < pod.gpu_milli) continue;
      --needed;
      if (free[g] == MILLI) ++fully_free_used;
      free_ratio_used += static_cast<int64_t>(free[g]) * 100 / MILLI;
    }
    if (fully_free_used > 0) return std::max(MAX_NODE_SCORE / 2 - fully_free_used, MAX_NODE_SCORE / 3);
    return std::max(MAX_NODE_SCORE - free_ratio_used / 10, MAX_NODE_SCORE / 2);
  }
  std::vector<int> order_;
};

// Best-fit: the node left with the least free CPU and GPU after placement (equal weights, each
// normalised by the largest node).
class BestFit final : public ScoringPolicy {
 public:
  BestFit(double max_cpu, double max_gpu) : max_cpu_(max_cpu), max_gpu_(max_gpu) {}
  std::optional<Placement> place(const ClusterState& state, const PodRequest& pod, RngStream& rng) override {
    // The reference min-max normalises the scores afterwards; that keeps the set of top nodes unchanged.
    auto node = best_node(state, pod, rng, tie_break_, ties_, [&](int n) {
      const double cpu = static_cast<double>(state.cpu_left[static_cast<size_t>(n)] - pod.cpu_milli) / max_cpu_;
      const double gpu = static_cast<double>(gpu_milli_left(state, n) - pod.total_gpu_milli()) / max_gpu_;
      const double leftover = 0.5 * cpu + 0.5 * gpu;
      return static_cast<int64_t>((1.0 - leftover) * static_cast<double>(MAX_NODE_SCORE));
    });
    if (!node) return std::nullopt;
    return Placement{*node, default_gpu_choice(state, *node, pod)};
  }

 private:
  double max_cpu_, max_gpu_;
};

// FGD: the node and GPU whose fragmentation (frag_gpu_milli against the target workload) grows least,
// scored sigmoid(-delta / 1000) * 100. A node's score for a request kind changes only when the node
// does, so it is cached per (request kind, node) and checked against the node's version.
class Fgd final : public ScoringPolicy {
 public:
  void bind(const PackingContext& context) override {
    ScoringPolicy::bind(context);
    dist_ = context.distribution;
  }

  std::optional<Placement> place(const ClusterState& state, const PodRequest& pod, RngStream& rng) override {
    if (!dist_) throw std::logic_error("fgd: no target workload distribution bound");
    const auto nodes = static_cast<size_t>(state.nodes());
    if (frag_.size() != nodes) {
      frag_.assign(nodes, Cached{});
      for (auto& per_kind : cache_) per_kind.assign(nodes, Cached{});
    }
    auto& cache = cache_for(pod, nodes);
    auto node = best_node(state, pod, rng, tie_break_, ties_, [&](int n) {
      auto& entry = cache[static_cast<size_t>(n)];
      if (!entry.valid || entry.version != state.version[static_cast<size_t>(n)]) {
        evaluate(state, n, pod, entry);
        entry.valid = true;
        entry.version = state.version[static_cast<size_t>(n)];
      }
      return entry.value;
    });
    if (!node) return std::nullopt;
    Placement out{*node, {}};
    if (pod.fractional())
      out.gpus.push_back(cache[static_cast<size_t>(*node)].gpu);
    else
      out.gpus = default_gpu_choice(state, *node, pod);
    return out;
  }

 private:
  struct Cached {
    bool valid = false;
    uint32_t version = 0;
    int64_t value = 0;  // score
    double frag = 0;    // in frag_: the node's fragmentation (reference_frag)
    int gpu = -1;
  };

  std::vector<Cached>& cache_for(const PodRequest& pod, size_t nodes) {
    const auto key = std::make_tuple(pod.cpu_milli, pod.gpu_milli, pod.num_gpu, pod.model_mask);  // what scores see
    auto [it, inserted] = kinds_.emplace(key, cache_.size());
    if (inserted) cache_.emplace_back(nodes, Cached{});
    return cache_[it->second];
  }

  // The node's fragmentation in the reference's float arithmetic (reference_frag), cached per node version.
  double node_frag(const ClusterState& state, int n) {
    auto& entry = frag_[static_cast<size_t>(n)];
    if (!entry.valid || entry.version != state.version[static_cast<size_t>(n)]) {
      entry.frag = reference_frag(*dist_, state.model[static_cast<size_t>(n)], state.cpu_left[static_cast<size_t>(n)],
                                  state.free(n), state.gpus(n));
      entry.valid = true;
      entry.version = state.version[static_cast<size_t>(n)];
    }
    return entry.frag;
  }

  // 100 x sigmoid of the fragmentation removed (in GPUs), truncated as the reference's int64 conversion does.
  static int64_t score_of(double before, double after) {
    const double sigmoid = 1.0 / (1.0 + std::exp(-((before - after) / 1000.0)));
    return static_cast<int64_t>(sigmoid * static_cast<double>(MAX_NODE_SCORE));
  }

  void evaluate(const ClusterState& state, int n, const PodRequest& pod, Cached& entry) {
    const double before = node_frag(state, n);
    const int count = state.gpus(n);
    const int* free = state.free(n);
    const int model = state.model[static_cast<size_t>(n)];
    const int64_t cpu_after = state.cpu_left[static_cast<size_t>(n)] - pod.cpu_milli;
    scratch_.assign(free, free + count);
    if (pod.fractional()) {
      entry.gpu = -1;
      for (int g = 0; g < count; ++g) {
        if (free[g] < pod.gpu_milli) continue;
        // A GPU with the same free share as an earlier one gives the same frag; the earlier one wins ties.
        bool seen = false;
        for (int h = 0; h < g && !seen; ++h) seen = free[h] == free[g] && free[h] >= pod.gpu_milli;
        if (seen) continue;
        scratch_[static_cast<size_t>(g)] -= pod.gpu_milli;
        const int64_t score = score_of(before, reference_frag(*dist_, model, cpu_after, scratch_.data(), count));
        scratch_[static_cast<size_t>(g)] += pod.gpu_milli;
        if (entry.gpu < 0 || score > entry.value) {
          entry.value = score;
          entry.gpu = g;
        }
      }
      return;
    }
    for (int g : default_gpu_choice(state, n, pod)) scratch_[static_cast<size_t>(g)] -= pod.gpu_milli;
    entry.value = score_of(before, reference_frag(*dist_, model, cpu_after, scratch_.data(), count));
    entry.gpu = -1;
  }

  const FragDistribution* dist_ = nullptr;
  std::map<std::tuple<int64_t, int, int, uint64_t>, size_t> kinds_;
  std::vector<std::vector<Cached>> cache_;  // [request kind][node]
  std::vector<Cached> frag_;                // [node]
  std::vector<int> scratch_;
};

ParamSpec number_param(std::string name, double default_value, std::string help, double min, double max) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = ParamType::NUMBER;
  spec.default_value = default_value;
  spec.help = std::move(help);
  spec.min = min;
  spec.max = max;
  return spec;
}

PackingRegistry build_registry() {
  PackingRegistry r;
  const auto max_cpu = [] {
    return number_param("max_cpu_milli", 128000, "CPU of the largest node (milli-CPU), normalises the CPU dimension", 1,
                        1e9);
  };
  const auto max_gpu = [] {
    return number_param("max_gpu_milli", 8000, "GPUs of the largest node (milli-GPU), normalises the GPU dimension", 1,
                        1e9);
  };
  r.add({"random-fit",
         "A uniformly random feasible node; a random GPU for a GPU share, the lowest free GPUs otherwise (the "
         "paper's Random).",
         {}},
        [](const Params&) { return std::make_unique<RandomFit>(); });
  r.add({"dot-product",
         "Tetris dot product of the node's free (CPU, GPU) and the pod's demand, smallest first; best-fit GPU.",
         {max_cpu(), max_gpu()}},
        [](const Params& p) {
          return std::make_unique<DotProduct>(param_number(p, "max_cpu_milli"), param_number(p, "max_gpu_milli"));
        });
  r.add({"gpu-clustering",
         "Pods of one GPU-request kind (a share, or n whole GPUs) share nodes (tiers: same-only, mixed, idle, "
         "other); best-fit GPU.",
         {max_gpu()}},
        [](const Params& p) {
          return std::make_unique<GpuClustering>(static_cast<int64_t>(param_number(p, "max_gpu_milli")));
        });
  r.add({"gpu-packing",
         "Already-shared GPUs first, then free GPUs of used nodes, then idle nodes with fewest GPUs; best-fit GPU.",
         {}},
        [](const Params&) { return std::make_unique<GpuPacking>(); });
  r.add({"best-fit",
         "Node left with the least free CPU and GPU after placement (equal weights); best-fit GPU.",
         {max_cpu(), max_gpu()}},
        [](const Params& p) {
          return std::make_unique<BestFit>(param_number(p, "max_cpu_milli"), param_number(p, "max_gpu_milli"));
        });
  r.add({"fgd",
         "Fragmentation gradient descent: node and GPU whose frag_gpu_milli (against the target workload) grows "
         "least.",
         {}},
        [](const Params&) { return std::make_unique<Fgd>(); });
  return r;
}

}  // namespace

const PackingRegistry& packing_registry() {
  static const PackingRegistry registry = build_registry();
  return registry;
}

std::vector<std::string> packing_policy_order() {
  return {"random-fit", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"};
}

std::unique_ptr<PackingPolicy> make_packing_policy(const std::string& name, const Params& params,
                                                   const PackingContext& context) {
  const auto& registry = packing_registry();
  const PluginInfo* info = registry.find(name);
  if (!info) throw InputError("unknown packing policy '" + name + "'" + suggest(name, packing_policy_order()));
  for (const auto& [key, value] : params) {
    const std::string& wanted = key;  // clang 14 does not capture structured bindings
    const auto spec =
        std::find_if(info->params.begin(), info->params.end(), [&](const ParamSpec& s) { return s.name == wanted; });
    if (spec == info->params.end()) {
      std::vector<std::string> known;
      for (const auto& s : info->params) known.push_back(s.name);
      throw InputError("policy '" + name + "' has no parameter '" + key + "'" +
                       (known.empty() ? std::string("; it takes none") : suggest(key, known)));
    }
    if (spec->type == ParamType::NUMBER) {
      const double* number = std::get_if<double>(&value);
      if (!number) throw InputError("policy '" + name + "': parameter '" + key + "' must be a number");
      if (*number < spec->min || *number > spec->max)
        throw InputError("policy '" + name + "': parameter '" + key + "' out of range [" + std::to_string(spec->min) +
                         ", " + std::to_string(spec->max) + "]");
    }
  }
  auto policy = registry.create(name, params);
  policy->bind(context);
  return policy;
}

}  // namespace gtw::packing
