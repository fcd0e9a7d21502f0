#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <tuple>

#include "PackingApi.hpp"

namespace gtw::packing {

void ClusterState::add_node(std::string name, int64_t cpu_milli, int64_t memory_mib, int gpu_count, int gpu_model) {
  if (gpu_begin.empty()) gpu_begin.push_back(0);
  node_names.push_back(std::move(name));
  model.push_back(gpu_count > 0 ? gpu_model : NO_GPU_MODEL);
  cpu_capacity.push_back(cpu_milli);
  cpu_left.push_back(cpu_milli);
  memory_capacity.push_back(memory_mib);
  memory_left.push_back(memory_mib);
  gpu_free.insert(gpu_free.end(), static_cast<size_t>(gpu_count), MILLI);
  gpu_begin.push_back(static_cast<int>(gpu_free.size()));
  version.push_back(0);
}

bool model_accepts(uint64_t model_mask, int node_model) {
  if (model_mask == 0) return true;
  if (node_model < 0 || node_model >= 64) return false;
  return ((model_mask >> node_model) & 1U) != 0;
}

bool fits(const ClusterState& state, int node, const PodRequest& pod) {
  const auto n = static_cast<size_t>(node);
  if (state.cpu_left[n] < pod.cpu_milli || state.memory_left[n] < pod.memory_mib) return false;
  if (pod.cpu_only()) return true;
  if (!model_accepts(pod.model_mask, state.model[n])) return false;
  const int* free = state.free(node);
  int usable = 0;
  for (int g = 0, count = state.gpus(node); g < count; ++g)
    if (free[g] >= pod.gpu_milli) ++usable;
  return usable >= pod.num_gpu;
}

FragDistribution FragDistribution::from_pods(const std::vector<PodRequest>& pods, double popularity_percent, int step) {
  using Key = std::tuple<int64_t, int, int, int>;
  std::map<Key, std::pair<int64_t, uint64_t>, std::greater<>> counts;  // larger key first: count, model mask
  for (const auto& pod : pods) {
    const bool cpu_only = pod.cpu_only();
    const int64_t cpu = pod.cpu_milli > 0 ? pod.cpu_milli : 100;  // the reference's default CPU request
    auto& entry =
        counts[Key{cpu, cpu_only ? 0 : pod.gpu_milli, cpu_only ? 0 : pod.num_gpu, cpu_only ? 0 : pod.gpu_type}];
    ++entry.first;
    entry.second = cpu_only ? 0 : pod.model_mask;
  }
  std::vector<FragClass> all;
  for (const auto& [key, value] : counts)
    all.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), value.second, value.first, std::get<3>(key)});
  // Most popular first; stable on the map's (descending) key order, so equal counts go larger key first.
  std::stable_sort(all.begin(), all.end(), [](const FragClass& a, const FragClass& b) { return a.weight > b.weight; });

  int64_t total = 0;
  for (const auto& c : all) total += c.weight;
  // The reference simulator adds classes `step` at a time until they cover the popularity threshold (the
  // class that crosses it is kept).
  const double expected = popularity_percent * static_cast<double>(total) / 100.0;
  const size_t stride = static_cast<size_t>(std::max(1, step));
  size_t kept = 0;
  int64_t covered = 0;
  while (static_cast<double>(covered) < expected && kept < all.size()) {
    const size_t step_end = std::min(all.size(), kept + stride);
    for (; kept < step_end; ++kept) covered += all[kept].weight;
  }
  FragDistribution out;
  out.classes.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(kept));
  out.total_weight = covered;
  // The reference's shares: two float divisions when classes were cut, one otherwise.
  for (const auto& c : out.classes) {
    double share = static_cast<double>(c.weight) / static_cast<double>(total);
    if (kept < all.size()) share /= static_cast<double>(covered) / static_cast<double>(total);
    out.share.push_back(share);
  }
  out.prepare();
  return out;
}

void FragDistribution::prepare() {
  if (share.size() != classes.size()) {  // classes given by hand: each its weight's share
    share.clear();
    for (const auto& c : classes)
      share.push_back(total_weight > 0 ? static_cast<double>(c.weight) / static_cast<double>(total_weight) : 0.0);
  }
  milli_values.clear();
  for (const auto& c : classes)
    if (c.gpu_milli > 0) milli_values.push_back(c.gpu_milli);
  std::sort(milli_values.begin(), milli_values.end());
  milli_values.erase(std::unique(milli_values.begin(), milli_values.end()), milli_values.end());
  class_milli.clear();
  for (const auto& c : classes) {
    const auto it = std::lower_bound(milli_values.begin(), milli_values.end(), c.gpu_milli);
    class_milli.push_back(c.gpu_milli > 0 ? static_cast<int>(it - milli_values.begin()) : -1);
  }
}

int64_t weighted_frag(const FragDistribution& dist, int node_model, int64_t cpu_left, const int* gpu_free,
                      int gpu_count) {
  if (dist.class_milli.size() != dist.classes.size())
    throw std::logic_error("FragDistribution::prepare() was not called after its classes changed");
  int64_t idle = 0;
  for (int g = 0; g < gpu_count; ++g) idle += gpu_free[g];
  if (idle == 0) return 0;
  // Per distinct request m: GPUs with at least m free, and the free milli of the others.
  thread_local std::vector<int> enough;
  thread_local std::vector<int64_t> below;
  const size_t kinds = dist.milli_values.size();
  enough.assign(kinds, 0);
  below.assign(kinds, 0);
  for (size_t k = 0; k < kinds; ++k) {
    const int m = dist.milli_values[k];
    for (int g = 0; g < gpu_count; ++g) {
      if (gpu_free[g] >= m)
        ++enough[k];
      else
        below[k] += gpu_free[g];
    }
  }
  int64_t sum = 0;
  for (size_t i = 0; i < dist.classes.size(); ++i) {
    const FragClass& c = dist.classes[i];
    const int k = dist.class_milli[i];
    int64_t unusable = idle;  // CPU-only classes, inaccessible models and classes that do not fit
    if (k >= 0 && model_accepts(c.model_mask, node_model) && enough[static_cast<size_t>(k)] >= c.num_gpu &&
        cpu_left >= c.cpu_milli)
      unusable = below[static_cast<size_t>(k)];  // it fits: only GPUs with too small a share are fragment
    sum += c.weight * unusable;
  }
  return sum;
}

double reference_frag(const FragDistribution& dist, int node_model, int64_t cpu_left, const int* gpu_free,
                      int gpu_count) {
  if (dist.share.size() != dist.classes.size() || dist.class_milli.size() != dist.classes.size())
    throw std::logic_error("FragDistribution::prepare() was not called after its classes changed");
  int64_t idle = 0;
  for (int g = 0; g < gpu_count; ++g) idle += gpu_free[g];
  enum Bucket { LACK_BOTH, LACK_GPU, FITS_USABLE, LACK_CPU, CPU_ONLY_FITS, CPU_ONLY_LACKS_CPU, NO_ACCESS, BUCKETS };
  double bucket[BUCKETS] = {};
  for (size_t i = 0; i < dist.classes.size(); ++i) {
    const FragClass& c = dist.classes[i];
    const double share = dist.share[i];
    const bool cpu_fits = cpu_left >= c.cpu_milli;
    if (c.gpu_milli == 0) {
      bucket[cpu_fits ? CPU_ONLY_FITS : CPU_ONLY_LACKS_CPU] += share * static_cast<double>(idle);
      continue;
    }
    if (!model_accepts(c.model_mask, node_model)) {
      bucket[NO_ACCESS] += share * static_cast<double>(idle);
      continue;
    }
    int enough = 0;
    int64_t below = 0;
    for (int g = 0; g < gpu_count; ++g) {
      if (gpu_free[g] >= c.gpu_milli)
        ++enough;
      else
        below += gpu_free[g];
    }
    if (enough >= c.num_gpu && cpu_fits) {
      bucket[LACK_GPU] += share * static_cast<double>(below);  // the reference books this part with LACK_GPU
      bucket[FITS_USABLE] += share * static_cast<double>(idle - below);
    } else {
      const Bucket b = enough >= c.num_gpu ? LACK_CPU : (cpu_fits ? LACK_GPU : LACK_BOTH);
      bucket[b] += share * static_cast<double>(idle);
    }
  }
  double sum = 0.0;
  for (int b : {LACK_BOTH, LACK_GPU, LACK_CPU, CPU_ONLY_FITS, CPU_ONLY_LACKS_CPU, NO_ACCESS}) sum += bucket[b];
  return sum;
}

std::vector<int> default_gpu_choice(const ClusterState& state, int node, const PodRequest& pod) {
  std::vector<int> out;
  if (pod.cpu_only()) return out;
  const int* free = state.free(node);
  const int count = state.gpus(node);
  if (pod.fractional()) {
    int best = -1;
    for (int g = 0; g < count; ++g)
      if (free[g] >= pod.gpu_milli && (best < 0 || free[g] < free[best])) best = g;
    if (best >= 0) out.push_back(best);
    return out;
  }
  for (int g = 0; g < count && static_cast<int>(out.size()) < pod.num_gpu; ++g)
    if (free[g] >= pod.gpu_milli) out.push_back(g);
  return out;
}

void apply(ClusterState& state, const PodRequest& pod, const Placement& where) {
  const auto n = static_cast<size_t>(where.node);
  state.cpu_left[n] -= pod.cpu_milli;
  state.memory_left[n] -= pod.memory_mib;
  int* free = state.gpu_free.data() + state.gpu_begin[n];
  if (!pod.cpu_only()) {
    if (static_cast<int>(where.gpus.size()) != pod.num_gpu) throw std::logic_error("placement with wrong GPU count");
    for (int g : where.gpus) {
      if (g < 0 || g >= state.gpus(where.node) || free[g] < pod.gpu_milli)
        throw std::logic_error("placement on a GPU without the free share");
      free[g] -= pod.gpu_milli;
    }
  }
  if (state.cpu_left[n] < 0 || state.memory_left[n] < 0) throw std::logic_error("placement beyond CPU or memory");
  ++state.version[n];
}

void release(ClusterState& state, const PodRequest& pod, const Placement& where) {
  const auto n = static_cast<size_t>(where.node);
  state.cpu_left[n] += pod.cpu_milli;
  state.memory_left[n] += pod.memory_mib;
  int* free = state.gpu_free.data() + state.gpu_begin[n];
  if (!pod.cpu_only())
    for (int g : where.gpus) {
      free[g] += pod.gpu_milli;
      if (free[g] > 1000) throw std::logic_error("release of a GPU share that was not taken");
    }
  ++state.version[n];
}

}  // namespace gtw::packing
