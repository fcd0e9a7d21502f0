#include "TimeReplay.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <queue>
#include <sstream>

#include "Errors.hpp"

namespace gtw::trace {

TimeReplayResult run_time_replay(const PackingInput& input, const std::vector<OpenbPod>& pods,
                                 const std::string& policy, const TimeReplayOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (!(options.arrival_speedup > 0)) throw InputError("arrival speed-up: expected a number > 0");
  if (!(options.sample_every > 0)) throw InputError("sample interval: expected a number > 0");
  const size_t n = input.arrivals.size();
  std::vector<double> arrive(n), lifetime(n);
  double t0 = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    const auto& pod = pods.at(static_cast<size_t>(input.arrivals[i]));
    if (pod.creation_time < 0)
      throw InputError("pod '" + pod.name + "' has no creation_time: a time-based replay needs a pod list with times");
    t0 = std::min(t0, static_cast<double>(pod.creation_time));
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& pod = pods[static_cast<size_t>(input.arrivals[i])];
    arrive[i] = t0 + (static_cast<double>(pod.creation_time) - t0) / options.arrival_speedup;
    lifetime[i] = pod.deletion_time >= 0 ? static_cast<double>(pod.deletion_time - pod.creation_time)
                                         : std::numeric_limits<double>::infinity();
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return arrive[a] < arrive[b]; });
  // The series has one point per sample interval of the arrival span: bound it before allocating it.
  if (n > 0) {
    const double span = arrive[order[n - 1]] - arrive[order[0]];
    const double points = span / options.sample_every;
    if (!std::isfinite(span) || points > static_cast<double>(MAX_SERIES_POINTS)) {
      std::ostringstream msg;
      msg << "the replay spans " << span << " s of arrivals; sampling every " << options.sample_every << " s gives "
          << points << " points of timereplay.csv, more than " << MAX_SERIES_POINTS
          << " (raise --sample-every or --speedup)";
      throw InputError(msg.str());
    }
  }

  // The fragmentation measure's target workload: every arriving pod, as in the packing experiment.
  std::vector<packing::PodRequest> workload;
  for (int p : input.arrivals) workload.push_back(input.pods[static_cast<size_t>(p)]);
  const auto distribution = packing::FragDistribution::from_pods(workload, options.replay.popularity_percent);
  packing::PackingContext context;
  context.distribution = &distribution;
  context.tie_break = options.replay.tie_break;
  auto placer = packing::make_packing_policy(policy, options.replay.params, context);
  RngStream rng = make_stream(options.replay.seed, "packing/" + policy);

  packing::ClusterState state = input.cluster;
  std::vector<int64_t> node_frag(static_cast<size_t>(state.nodes()));
  int64_t weighted_frag = 0;
  for (int node = 0; node < state.nodes(); ++node) {
    node_frag[static_cast<size_t>(node)] = packing::weighted_frag(distribution, state, node);
    weighted_frag += node_frag[static_cast<size_t>(node)];
  }
  const auto refresh = [&](int node) {  // only this node changed
    auto& f = node_frag[static_cast<size_t>(node)];
    weighted_frag -= f;
    f = packing::weighted_frag(distribution, state, node);
    weighted_frag += f;
  };
  const double capacity = static_cast<double>(state.total_gpu_milli());
  const auto pct = [&](double milli) { return capacity > 0 ? 100.0 * milli / capacity : 0.0; };
  const auto frag_milli = [&] {
    return distribution.total_weight > 0
               ? static_cast<double>(weighted_frag) / static_cast<double>(distribution.total_weight)
               : 0.0;
  };

  TimeReplayResult r;
  r.policy = policy;
  r.arrival_speedup = options.arrival_speedup;
  r.decisions.assign(n, -1);
  std::vector<std::optional<packing::Placement>> where(n);
  using Departure = std::pair<double, size_t>;  // (time, pod in arrival order): earliest first, then lowest
  std::priority_queue<Departure, std::vector<Departure>, std::greater<>> departures;
  int64_t allocated = 0, running = 0;
  const double first = n ? arrive[order[0]] : 0, last = n ? arrive[order[n - 1]] : 0;
  r.span = last - first;
  double now = first, area_alloc = 0, area_frag = 0, next_sample = first;
  const auto advance = [&](double t) {
    // Sample points inside (now, t] see the state before the event at t; integrals up to the last arrival.
    while (next_sample <= t && next_sample <= last) {
      r.series.push_back({next_sample - first, pct(static_cast<double>(allocated)), pct(frag_milli()), running,
                          r.arrivals, r.failed_pods});
      next_sample += options.sample_every;
    }
    const double until = std::min(t, last);
    if (until > now) {
      area_alloc += static_cast<double>(allocated) * (until - now);
      area_frag += frag_milli() * (until - now);
    }
    now = std::max(now, t);
  };
  size_t next = 0;
  while (next < n) {
    const size_t i = order[next];
    // Departures first when they are due no later than the arrival: they free what it may need.
    if (!departures.empty() && departures.top().first <= arrive[i]) {
      const auto [t, j] = departures.top();
      departures.pop();
      advance(t);
      const auto& pod = input.pods[static_cast<size_t>(input.arrivals[j])];
      packing::release(state, pod, *where[j]);
      placer->released(state, pod, *where[j]);
      refresh(where[j]->node);
      allocated -= pod.total_gpu_milli();
      --running;
      ++r.departures;
      continue;
    }
    advance(arrive[i]);
    ++next;
    ++r.arrivals;
    const auto& pod = input.pods[static_cast<size_t>(input.arrivals[i])];
    auto placed = placer->place(state, pod, rng);
    if (!placed) {
      ++r.failed_pods;
      if (!pod.cpu_only()) ++r.failed_gpu_pods;
      continue;
    }
    if (!packing::fits(state, placed->node, pod))
      throw std::logic_error("policy " + policy + " placed a pod on a node it does not fit");
    packing::apply(state, pod, *placed);
    placer->placed(state, pod, *placed);
    refresh(placed->node);
    allocated += pod.total_gpu_milli();
    ++running;
    r.decisions[i] = placed->node;
    r.peak_allocated_pct = std::max(r.peak_allocated_pct, pct(static_cast<double>(allocated)));
    where[i] = std::move(placed);
    departures.push({arrive[i] + lifetime[i], i});
  }
  advance(last);
  r.series.push_back(
      {last - first, pct(static_cast<double>(allocated)), pct(frag_milli()), running, r.arrivals, r.failed_pods});
  if (r.span > 0) {
    r.mean_allocated_pct = pct(area_alloc / r.span);
    r.mean_frag_pct = pct(area_frag / r.span);
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

}  // namespace gtw::trace
