#include "PackingReplay.hpp"

#include <chrono>
#include <cmath>
#include <map>

#include "Errors.hpp"

namespace gtw::trace {

PackingInput build_packing_input(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                                 const std::vector<int>& arrivals) {
  PackingInput input;
  std::map<std::string, int> model_ids;  // ordered lookup; ids follow first appearance
  const auto intern = [&](const std::string& name) {
    auto [it, inserted] = model_ids.emplace(name, static_cast<int>(input.cluster.model_names.size()));
    if (inserted) input.cluster.model_names.push_back(name);
    return it->second;
  };
  for (const auto& node : nodes)
    input.cluster.add_node(node.name, node.cpu_milli, node.memory_mib, node.gpus,
                           node.gpus > 0 ? intern(node.model) : packing::NO_GPU_MODEL);
  for (const auto& pod : pods) {
    packing::PodRequest request;
    request.cpu_milli = pod.cpu_milli;
    request.memory_mib = pod.memory_mib;
    request.num_gpu = pod.num_gpu;
    request.gpu_milli = pod.num_gpu > 0 ? pod.gpu_milli : 0;
    for (const auto& model : pod.gpu_spec) {
      const int id = intern(model);
      if (id >= 64) throw InputError("pod '" + pod.name + "': more than 64 distinct GPU models in the trace");
      request.model_mask |= uint64_t{1} << id;
    }
    input.pods.push_back(request);
    input.pod_names.push_back(pod.name);
  }
  if (input.cluster.model_names.size() > 64) throw InputError("more than 64 distinct GPU models in the trace");
  if (arrivals.empty()) {
    for (size_t i = 0; i < pods.size(); ++i) input.arrivals.push_back(static_cast<int>(i));
  } else {
    input.arrivals = arrivals;
  }
  return input;
}

namespace {

packing::FragDistribution target_distribution(const PackingInput& input, double popularity_percent) {
  std::vector<packing::PodRequest> workload;
  workload.reserve(input.arrivals.size());
  for (int pod : input.arrivals) workload.push_back(input.pods[static_cast<size_t>(pod)]);
  return packing::FragDistribution::from_pods(workload, popularity_percent);
}

double percent(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

}  // namespace

PackingReplay::PackingReplay(const PackingInput& input, const std::string& policy, const ReplayOptions& options)
    : input_(input),
      state_(input.cluster),
      distribution_(target_distribution(input, options.popularity_percent)),
      rng_(make_stream(options.seed, "packing/" + policy)) {
  packing::PackingContext context;
  context.distribution = &distribution_;
  context.tie_break = options.tie_break;
  policy_ = packing::make_packing_policy(policy, options.params, context);
  node_frag_.resize(static_cast<size_t>(state_.nodes()));
  for (int n = 0; n < state_.nodes(); ++n) {
    node_frag_[static_cast<size_t>(n)] = packing::weighted_frag(distribution_, state_, n);
    weighted_frag_ += node_frag_[static_cast<size_t>(n)];
  }
  result_.policy = policy;
  result_.seed = options.seed;
  result_.decisions.reserve(input.arrivals.size());
}

int64_t PackingReplay::weighted_frag_full() const {
  int64_t sum = 0;
  for (int n = 0; n < state_.nodes(); ++n) sum += packing::weighted_frag(distribution_, state_, n);
  return sum;
}

void PackingReplay::step() {
  const auto& pod = input_.pods[static_cast<size_t>(input_.arrivals[next_])];
  ++next_;
  arrived_gpu_milli_ += pod.total_gpu_milli();
  auto where = policy_->place(state_, pod, rng_);
  if (!where) {
    ++result_.failed_pods;
    if (!pod.cpu_only()) ++result_.failed_gpu_pods;
    result_.decisions.push_back(-1);
  } else {
    if (!packing::fits(state_, where->node, pod))
      throw std::logic_error("policy " + result_.policy + " placed a pod on a node it does not fit");
    packing::apply(state_, pod, *where);
    policy_->placed(state_, pod, *where);
    allocated_gpu_milli_ += pod.total_gpu_milli();
    allocated_cpu_milli_ += pod.cpu_milli;
    // Only this node changed: replace its share of the cluster's fragmentation.
    auto& frag = node_frag_[static_cast<size_t>(where->node)];
    weighted_frag_ -= frag;
    frag = packing::weighted_frag(distribution_, state_, where->node);
    weighted_frag_ += frag;
    result_.decisions.push_back(where->node);
  }
  sample(false);
}

void PackingReplay::sample(bool final) {
  const double capacity = static_cast<double>(state_.total_gpu_milli());
  const double arrived = percent(static_cast<double>(arrived_gpu_milli_), capacity);
  const auto point = [&](int x) {
    const double frag_milli = distribution_.total_weight > 0 ? static_cast<double>(weighted_frag_) /
                                                                   static_cast<double>(distribution_.total_weight)
                                                             : 0.0;
    CurvePoint p;
    p.arrived_pct = x;
    p.arrived_exact_pct = arrived;
    p.allocated_pct = percent(static_cast<double>(allocated_gpu_milli_), capacity);
    p.frag_pct = percent(frag_milli, capacity);
    p.frag_idle_pct = percent(frag_milli, capacity - static_cast<double>(allocated_gpu_milli_));
    p.failed_pods = result_.failed_pods;
    p.arrivals = static_cast<int64_t>(next_);
    return p;
  };
  while (next_sample_ <= MAX_ARRIVED_PCT && arrived >= next_sample_) result_.curve.push_back(point(next_sample_++));
  // The published arrival order ends a hair short of 130 %: the final state stands for the last point.
  if (final && next_sample_ <= MAX_ARRIVED_PCT && std::lround(arrived) >= next_sample_)
    result_.curve.push_back(point(next_sample_++));
}

PackingResult PackingReplay::finish() {
  while (has_next()) step();
  sample(true);
  const double capacity = static_cast<double>(state_.total_gpu_milli());
  int64_t cpu_capacity = 0;
  for (auto c : state_.cpu_capacity) cpu_capacity += c;
  result_.arrivals = static_cast<int64_t>(next_);
  result_.arrived_pct = percent(static_cast<double>(arrived_gpu_milli_), capacity);
  result_.allocated_pct = percent(static_cast<double>(allocated_gpu_milli_), capacity);
  result_.cpu_allocated_pct = percent(static_cast<double>(allocated_cpu_milli_), static_cast<double>(cpu_capacity));
  const double frag_milli = distribution_.total_weight > 0
                                ? static_cast<double>(weighted_frag_) / static_cast<double>(distribution_.total_weight)
                                : 0.0;
  result_.frag_pct = percent(frag_milli, capacity);
  result_.frag_idle_pct = percent(frag_milli, capacity - static_cast<double>(allocated_gpu_milli_));
  return result_;
}

PackingResult run_packing(const PackingInput& input, const std::string& policy, const ReplayOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PackingReplay replay(input, policy, options);
  PackingResult result = replay.finish();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gtw::trace
