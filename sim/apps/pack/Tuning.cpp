#include "Tuning.hpp"

#include <algorithm>
#include <numeric>

#include "Errors.hpp"

namespace gtw::trace {

namespace {

int64_t gpu_demand(const OpenbPod& p) {
  return p.num_gpu > 0 ? static_cast<int64_t>(p.num_gpu) * p.gpu_milli : 0;
}

std::vector<int> by_name(const std::vector<std::string>& names) {
  std::vector<int> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return names[static_cast<size_t>(a)] < names[static_cast<size_t>(b)]; });
  return order;
}

}  // namespace

TunedArrivals tune_arrivals(const std::vector<OpenbPod>& pods, int64_t gpu_capacity_milli, double ratio, GoRand& rng) {
  rng.int63();  // drawn for a debug log line whose arguments Go evaluates even when it prints nothing
  std::vector<std::string> names;
  names.reserve(pods.size());
  for (const auto& p : pods) names.push_back(p.name);
  const std::vector<int> sorted = by_name(names);
  std::vector<int> list = sorted;
  rng.shuffle(static_cast<int>(list.size()),
              [&](int i, int j) { std::swap(list[static_cast<size_t>(i)], list[static_cast<size_t>(j)]); });

  TunedArrivals out;
  out.base = list;
  for (int i : list) out.names.push_back(pods[static_cast<size_t>(i)].name);
  if (ratio <= 0 || pods.empty()) return out;
  int64_t total = 0;
  for (const auto& p : pods) total += gpu_demand(p);
  const double target = ratio * static_cast<double>(gpu_capacity_milli);
  if (total == 0)  // the reference would draw copies forever: no copy can add GPU demand
    throw InputError("the pod list asks for no GPU: nothing to tune to " + std::to_string(ratio) +
                     " x the GPU capacity (give --tune-ratio 0 to replay every pod once)");
  if (static_cast<double>(total) < target) {
    // Copies drawn from the name-sorted list; the test compares the per-GPU share (the reference does), so a
    // multi-GPU copy may pass the target and a CPU-only copy never stops the loop.
    for (int copies = 0;; ++copies) {
      const int b = sorted[static_cast<size_t>(rng.intn(static_cast<int>(sorted.size())))];
      const auto& pod = pods[static_cast<size_t>(b)];
      const int64_t share = pod.num_gpu > 0 ? pod.gpu_milli : 0;
      if (static_cast<double>(total + share) > target) break;
      total += gpu_demand(pod);
      out.base.push_back(b);
      out.names.push_back(pod.name + "-tuned-" + std::to_string(copies));
    }
  } else {
    while (static_cast<double>(total) > target && !out.base.empty()) {
      const auto k = static_cast<size_t>(rng.intn(static_cast<int>(out.base.size())));
      total -= gpu_demand(pods[static_cast<size_t>(out.base[k])]);
      out.base.erase(out.base.begin() + static_cast<std::ptrdiff_t>(k));
      out.names.erase(out.names.begin() + static_cast<std::ptrdiff_t>(k));
    }
    if (out.base.empty())
      throw InputError("tuning to " + std::to_string(ratio) + " x the GPU capacity removes every pod");
  }
  return out;
}

std::vector<int> published_node_ranks(const std::vector<OpenbNode>& nodes, GoRand& rng, int startup_draws) {
  for (int i = 0; i < startup_draws; ++i) rng.float64();
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (const auto& n : nodes) names.push_back(n.name);
  const std::vector<int> sorted = by_name(names);
  const std::vector<int> perm = rng.perm(static_cast<int>(nodes.size()));
  std::vector<int> rank(nodes.size(), 0);
  for (size_t i = 0; i < sorted.size(); ++i) rank[static_cast<size_t>(sorted[i])] = perm[i];
  return rank;
}

std::string arrivals_csv(const TunedArrivals& arrivals, const std::vector<OpenbPod>& pods) {
  std::string out = "seq,pod,base_pod\n";
  for (size_t k = 0; k < arrivals.base.size(); ++k)
    out += std::to_string(k) + "," + arrivals.names[k] + "," + pods[static_cast<size_t>(arrivals.base[k])].name + "\n";
  return out;
}

}  // namespace gtw::trace
