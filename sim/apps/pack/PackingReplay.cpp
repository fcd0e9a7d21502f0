#include "PackingReplay.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>

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
  // GPU-type constraints as the trace spells them, numbered in text order (0: none).
  const auto spelled = [](const OpenbPod& pod) {
    std::string joined;
    for (const auto& model : pod.gpu_spec) joined += (joined.empty() ? "" : "|") + model;
    return joined;
  };
  std::map<std::string, int> type_ids;
  for (const auto& pod : pods)
    if (!pod.gpu_spec.empty()) type_ids.emplace(spelled(pod), 0);
  int next_type = 0;
  for (auto& [text, id] : type_ids) id = ++next_type;
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
    if (!pod.gpu_spec.empty()) request.gpu_type = type_ids.at(spelled(pod));
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

// The target workload is the pod list as given, before the tuning's copies (the reference builds it from its
// original pods).
packing::FragDistribution target_distribution(const PackingInput& input, double popularity_percent) {
  return packing::FragDistribution::from_pods(input.pods, popularity_percent);
}

// pandas' round(2), which is numpy's: x scaled by 100, rounded half to even, scaled back. Not the correctly
// rounded decimal (printf's %.2f, Python's round()): the two disagree on a few means per run, and this one
// is what the published curves print.
double round2(double x) {
  return std::nearbyint(x * 100.0) / 100.0;
}

// A value as a log line's %.2f prints it and a CSV reader parses it back: correctly rounded to 2 decimals.
double printed2(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return std::strtod(buf, nullptr);
}

// numpy's pairwise summation (what pandas' mean adds with): blocks of 8 partial sums up to 128 values,
// halves above, so the last bits match the reference's means.
double pairwise_sum(const double* a, size_t n) {
  if (n < 8) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += a[i];
    return s;
  }
  if (n <= 128) {
    double r[8];
    for (size_t k = 0; k < 8; ++k) r[k] = a[k];
    size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (size_t k = 0; k < 8; ++k) r[k] += a[i + k];
    double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += a[i];
    return s;
  }
  size_t half = n / 2;
  half -= half % 8;
  return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
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
  if (options.tie_break == packing::TieBreak::RANK) {
    if (options.node_rank.size() != static_cast<size_t>(state_.nodes()))
      throw std::logic_error("the published tie-break needs a rank for each of the " + std::to_string(state_.nodes()) +
                             " nodes");
    context.node_rank = &options.node_rank;
  }
  policy_ = packing::make_packing_policy(policy, options.params, context);
  node_frag_.resize(static_cast<size_t>(state_.nodes()));
  for (int n = 0; n < state_.nodes(); ++n) {
    node_frag_[static_cast<size_t>(n)] = packing::weighted_frag(distribution_, state_, n);
    weighted_frag_ += node_frag_[static_cast<size_t>(n)];
  }
  result_.policy = policy;
  result_.seed = options.seed;
  result_.decisions.reserve(input.arrivals.size());
  log_arrived_.reserve(input.arrivals.size());
  log_allocated_.reserve(input.arrivals.size());
  log_frag_.reserve(input.arrivals.size());
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
  log_arrived_.push_back(arrived_gpu_milli_);
  log_allocated_.push_back(allocated_gpu_milli_);
  log_frag_.push_back(distribution_.total_weight > 0
                          ? static_cast<double>(weighted_frag_) / static_cast<double>(distribution_.total_weight)
                          : 0.0);
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
  const auto gpus = static_cast<int64_t>(state_.gpu_free.size());
  std::vector<double> allocated(log_allocated_.begin(), log_allocated_.end());
  result_.discrete.allocated = discrete_curve(log_arrived_, allocated, gpus, DiscreteValue::ALLOCATION);
  result_.discrete.frag = discrete_curve(log_arrived_, log_frag_, gpus, DiscreteValue::FRAGMENTATION);
  return result_;
}

std::vector<double> discrete_curve(const std::vector<int64_t>& arrived_milli, const std::vector<double>& value_milli,
                                   int64_t capacity_gpus, DiscreteValue kind) {
  const auto gpus = static_cast<double>(capacity_gpus);
  const bool allocation = kind == DiscreteValue::ALLOCATION;
  std::vector<int> bucket(arrived_milli.size());
  std::vector<double> value(arrived_milli.size());
  for (size_t k = 0; k < arrived_milli.size(); ++k) {
    // The reference divides by the GPU count, then by 10 (milli-GPU to percent), in that order.
    bucket[k] = static_cast<int>(std::nearbyint(static_cast<double>(arrived_milli[k]) / gpus / 10));
    // Allocation: a percentage rounded per arrival. Fragmentation: the milli-GPU amount as the log prints it
    // (%.2f, correctly rounded), converted after the mean.
    value[k] = allocation ? round2(value_milli[k] / gpus / 10) : printed2(value_milli[k]);
  }
  std::vector<double> out(MAX_ARRIVED_PCT + 1, std::numeric_limits<double>::quiet_NaN());
  std::vector<double> members;
  const auto mean_of = [&](int lo, int hi) {
    members.clear();
    for (size_t k = 0; k < bucket.size(); ++k)
      if (bucket[k] >= lo && bucket[k] <= hi) members.push_back(value[k]);
    if (members.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double mean = pairwise_sum(members.data(), members.size()) / static_cast<double>(members.size());
    return round2(allocation ? mean : 100 * mean / 1000 / gpus);
  };
  for (int c = 0; c <= MAX_ARRIVED_PCT; ++c) {
    out[static_cast<size_t>(c)] = mean_of(c, c);
    if (std::isnan(out[static_cast<size_t>(c)])) out[static_cast<size_t>(c)] = mean_of(c - 1, c + 1);
  }
  return out;
}

std::string python_float(double value) {
  if (std::isnan(value)) return "";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

PackingResult run_packing(const PackingInput& input, const std::string& policy, const ReplayOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PackingReplay replay(input, policy, options);
  PackingResult result = replay.finish();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gtw::trace
