#include "sim/analysis/Analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "models/workload/Runtime.hpp"

namespace gtw {

double percentile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t idx = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size()))) - 1;
  return sorted[idx];
}

const std::vector<double>& latency_cdf_percentiles() {
  static const std::vector<double> ps = [] {
    std::vector<double> v;
    for (int p = 1; p <= 10; ++p) v.push_back(p);
    for (int p = 15; p <= 90; p += 5) v.push_back(p);
    for (int p = 91; p <= 99; ++p) v.push_back(p);
    v.insert(v.end(), {99.5, 99.9, 100});
    return v;
  }();
  return ps;
}

namespace {

constexpr double INF = std::numeric_limits<double>::infinity();

const char* failure_reason_name(FailureReason r) {
  switch (r) {
    case FailureReason::OUT_OF_MEMORY:
      return "out_of_memory";
    case FailureReason::NOT_PLACED:
      return "not_placed";
    case FailureReason::UNFINISHED:
      return "unfinished";
    case FailureReason::FAULT:
      return "fault";
    case FailureReason::RECONFIGURED:
      return "reconfigured";
    case FailureReason::PREEMPTED:
      return "preempted";
    case FailureReason::KEY_REFUSED:
      return "key_refused";
    default:
      return "";
  }
}

LatencyStats stats_of(std::vector<double> values) {
  LatencyStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  s.p50 = percentile_sorted(values, 50);
  s.p95 = percentile_sorted(values, 95);
  s.p99 = percentile_sorted(values, 99);
  s.max = values.back();
  return s;
}

std::string fmt(const char* f, double v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double overlap(double a0, double a1, double b0, double b1) {
  return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

struct BusyInterval {
  double start, end;
  int tenant;
};

}  // namespace

namespace {

// Per pair of tenants and node where both had replicas: the host layers their runtimes share.
std::vector<BoundaryResult> isolation_boundaries(const ScenarioSpec& spec, const RunResult& run) {
  struct Placed {
    int tenant;
    int node;
    int local;
    RuntimeKind runtime;
  };
  std::vector<Placed> placed;
  for (const auto& e : run.log.events()) {
    if (e.type != EventType::PLACED || e.gpu < 0 || e.workload < 0) continue;
    const auto& layout = run.gpus.at(static_cast<size_t>(e.gpu));
    const auto& modes = sharing_mode_names();
    const auto mode_it = std::find(modes.begin(), modes.end(), layout.sharing);
    const auto mode =
        mode_it == modes.end() ? SharingMode::EXCLUSIVE : static_cast<SharingMode>(mode_it - modes.begin());
    placed.push_back({e.tenant, layout.node, layout.local,
                      effective_runtime(spec.workloads[static_cast<size_t>(e.workload)].runtime, mode)});
  }
  std::map<std::tuple<int, int, int>, BoundaryResult> pairs;  // (tenant a, tenant b, node)
  std::map<std::tuple<int, int, int>, std::set<SharedLayer>> layers;
  for (const auto& x : placed)
    for (const auto& y : placed) {
      if (x.tenant >= y.tenant || x.node != y.node) continue;
      const auto key = std::make_tuple(x.tenant, y.tenant, x.node);
      auto& b = pairs[key];
      b.tenant_a = spec.tenants[static_cast<size_t>(x.tenant)].name;
      b.tenant_b = spec.tenants[static_cast<size_t>(y.tenant)].name;
      b.same_gpu |= x.local == y.local;
      b.runtimes_a.emplace_back(runtime_kind_name(x.runtime));
      b.runtimes_b.emplace_back(runtime_kind_name(y.runtime));
      for (SharedLayer l : shared_layers(x.runtime, y.runtime, true)) layers[key].insert(l);
    }
  std::vector<std::string> node_names(static_cast<size_t>(run.gpus.empty() ? 0 : run.gpus.back().node + 1));
  for (const auto& g : run.gpus) node_names[static_cast<size_t>(g.node)] = g.node_name;
  std::vector<BoundaryResult> out;
  for (auto& [key, b] : pairs) {
    b.node = node_names[static_cast<size_t>(std::get<2>(key))];
    for (auto* list : {&b.runtimes_a, &b.runtimes_b}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    for (SharedLayer l : layers[key]) b.shared_layers.emplace_back(shared_layer_name(l));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

Analysis analyse(const ScenarioSpec& spec, const RunResult& run) {
  Analysis a;
  a.duration = spec.duration.value;
  a.window = spec.sla_window.value;
  const auto& events = run.log.events();
  const size_t n_tenants = spec.tenants.size();

  // ---- GPUs: busy intervals, switches, placements
  std::vector<std::vector<BusyInterval>> busy(run.gpus.size());
  std::vector<std::vector<std::pair<double, double>>> switches(run.gpus.size());  // (time, cost)
  a.gpus.resize(run.gpus.size());
  for (size_t g = 0; g < run.gpus.size(); ++g) {
    a.gpus[g].layout = run.gpus[g];
    a.gpus[g].busy_by_tenant.assign(n_tenants, 0.0);
  }
  a.workloads.resize(spec.workloads.size());
  for (size_t w = 0; w < spec.workloads.size(); ++w) {
    auto& wr = a.workloads[w];
    const auto& ws = spec.workloads[w];
    wr.index = static_cast<int>(w);
    wr.name = ws.name;
    wr.kind = workload_kind_name(ws.kind);
    wr.tenant = ws.tenant_index;
    wr.replicas_requested = ws.kind == WorkloadKind::TRAINING ? 1 : ws.replicas;
  }
  std::vector<std::vector<double>> latencies(spec.workloads.size()), queueing(spec.workloads.size());
  std::vector<double> batch_sum(spec.workloads.size(), 0.0), batch_count(spec.workloads.size(), 0.0);
  std::vector<double> completion_sum(spec.workloads.size(), 0.0), slowdown_sum(spec.workloads.size(), 0.0);
  // Per workload: each request's arrival, latency (+inf when dropped) and GPU, for window SLOs.
  struct RequestOutcome {
    double arrival, latency;
    int gpu;
  };
  std::vector<std::vector<RequestOutcome>> request_outcomes(spec.workloads.size());
  std::vector<std::vector<double>> completions(spec.workloads.size());
  // Per workload: (completion or +inf, ideal, submitted) per job, for job SLOs.
  struct JobOutcome {
    double completion, ideal, submitted;
  };
  std::vector<std::vector<JobOutcome>> jobs(spec.workloads.size());
  std::vector<std::set<int>> placed_replicas(spec.workloads.size());
  std::vector<std::set<int>> failed_replicas(spec.workloads.size());

  for (const auto& e : events) {
    const size_t w = e.workload >= 0 ? static_cast<size_t>(e.workload) : 0;
    switch (e.type) {
      case EventType::GPU_BUSY:
        busy[static_cast<size_t>(e.gpu)].push_back({e.aux, e.time, e.tenant});
        break;
      case EventType::CONTEXT_SWITCH:
        if (e.value > 0) switches[static_cast<size_t>(e.gpu)].push_back({e.time, e.value});
        break;
      case EventType::PLACED:
        a.placements.push_back({e.workload, e.tenant, e.replica, e.gpu, e.time, -1.0, ""});
        a.workloads[w].gpus.push_back(e.gpu);
        placed_replicas[w].insert(e.replica);
        if (e.tenant >= 0) a.gpus[static_cast<size_t>(e.gpu)].tenants.push_back(e.tenant);
        break;
      case EventType::REQUEST_ARRIVAL:
        ++a.workloads[w].requests_arrived;
        break;
      case EventType::REQUEST_DONE:
        ++a.workloads[w].requests_completed;
        latencies[w].push_back(e.value);
        queueing[w].push_back(e.aux);
        request_outcomes[w].push_back({e.time - e.value, e.value, e.gpu});
        completions[w].push_back(e.time);
        break;
      case EventType::REQUEST_DROPPED:
        ++a.workloads[w].requests_dropped;
        request_outcomes[w].push_back({e.aux, INF, e.gpu});
        break;
      case EventType::BATCH_START:
        batch_sum[w] += e.value;
        batch_count[w] += 1;
        break;
      case EventType::JOB_SUBMIT:
        ++a.workloads[w].jobs_submitted;
        break;
      case EventType::STEP_DONE:
        ++a.workloads[w].steps_completed;
        break;
      case EventType::JOB_DONE: {
        auto& wr = a.workloads[w];
        ++wr.jobs_completed;
        completion_sum[w] += e.value;
        const double slowdown = e.aux > 0 ? e.value / e.aux : 1.0;
        slowdown_sum[w] += slowdown;
        wr.max_slowdown = std::max(wr.max_slowdown, slowdown);
        jobs[w].push_back({e.value, e.aux, e.time - e.value});
        if (spec.workloads[w].kind == WorkloadKind::TRAINING)
          for (auto& pl : a.placements)  // a finished training job gives its GPUs back
            if (pl.end < 0 && pl.workload == e.workload) {
              pl.end = e.time;
              pl.end_reason = "done";
            }
        break;
      }
      case EventType::GPU_FAULT: {
        FaultResult f;
        f.time = e.time;
        f.gpu = e.gpu;
        f.tenant = e.tenant >= 0 ? spec.tenants[static_cast<size_t>(e.tenant)].name : "";
        f.workload = e.workload >= 0 ? spec.workloads[w].name : "";
        f.replica = e.replica;
        f.clients_ended = static_cast<int>(e.value);
        f.whole_gpu = e.aux > 0.5;
        a.faults.push_back(f);
        break;
      }
      case EventType::MODEL_LOAD:
        ++a.workloads[w].model_loads;
        a.workloads[w].model_load_seconds += e.time - e.aux;
        break;
      case EventType::RECONFIGURE_START: {
        const auto& rc = spec.reconfigurations.at(static_cast<size_t>(e.replica));
        ReconfigurationResult r;
        r.node_pool = rc.node_pool;
        r.start = e.time;
        r.gpus = static_cast<int>(e.aux);
        r.replicas_evicted = static_cast<int>(e.value);
        r.new_layout = rc.mig_layout;
        a.reconfigurations.push_back(r);
        break;
      }
      case EventType::RECONFIGURE_DONE: {
        for (auto& r : a.reconfigurations)
          if (r.start == e.aux && r.done < 0) {
            r.done = e.time;
            r.replicas_replaced = static_cast<int>(e.value);
            break;
          }
        break;
      }
      case EventType::WORKLOAD_FAILED: {
        const auto reason = static_cast<FailureReason>(static_cast<int>(e.aux));
        for (auto& pl : a.placements)  // the replica's stays on its GPUs end here
          if (pl.end < 0 && pl.workload == e.workload && pl.replica == e.replica &&
              (e.gpu < 0 || pl.gpu == e.gpu || spec.workloads[w].gpus > 1)) {
            pl.end = e.time;
            pl.end_reason = failure_reason_name(reason);
          }
        auto& wr = a.workloads[w];
        // A serving replica or batch worker evicted by a reconfiguration is placed again: not a failure.
        // Likewise one preempted by a quota reclaim: it is requeued.
        if ((reason == FailureReason::RECONFIGURED || reason == FailureReason::PREEMPTED) && e.gpu >= 0 &&
            spec.workloads[w].kind != WorkloadKind::TRAINING) {
          ++wr.replicas_evicted;
          break;
        }
        if (reason == FailureReason::FAULT && e.gpu >= 0) {
          ++wr.replicas_killed_by_faults;
          // Clients ended by the most recent fault at this instant belong to its domain.
          if (!a.faults.empty() && a.faults.back().time == e.time) {
            const auto& ws = spec.workloads[w];
            a.faults.back().victims.push_back(spec.tenants[static_cast<size_t>(ws.tenant_index)].name + "/" + ws.name +
                                              "[" + std::to_string(e.replica) + "]");
          }
        }
        if (spec.workloads[w].kind == WorkloadKind::INFERENCE) {
          failed_replicas[w].insert(e.replica);
        } else if (reason == FailureReason::UNFINISHED) {
          ++wr.jobs_unfinished;
          jobs[w].push_back({INF, 0, 0});
        } else {
          if (spec.workloads[w].kind == WorkloadKind::TRAINING) {
            ++wr.jobs_failed;
            jobs[w].push_back({INF, 0, 0});
          } else if (e.replica >= 0 && e.gpu >= 0) {
            failed_replicas[w].insert(e.replica);  // a batch worker slot that could not start
          } else {
            ++wr.jobs_failed;
            jobs[w].push_back({INF, 0, 0});
          }
          if (spec.workloads[w].kind == WorkloadKind::TRAINING) failed_replicas[w].insert(0);
        }
        break;
      }
      default:
        break;
    }
  }

  std::vector<double> longest(run.gpus.size(), 0.0);  // longest busy interval per GPU
  for (size_t g = 0; g < busy.size(); ++g)
    for (const auto& b : busy[g]) longest[g] = std::max(longest[g], b.end - b.start);

  for (size_t w = 0; w < a.workloads.size(); ++w) {
    auto& wr = a.workloads[w];
    std::sort(wr.gpus.begin(), wr.gpus.end());
    wr.gpus.erase(std::unique(wr.gpus.begin(), wr.gpus.end()), wr.gpus.end());
    wr.replicas_placed = static_cast<int>(placed_replicas[w].size());
    wr.replicas_failed = wr.replicas_requested - wr.replicas_placed + static_cast<int>(failed_replicas[w].size());
    wr.latency = stats_of(latencies[w]);
    if (!latencies[w].empty()) {
      std::sort(latencies[w].begin(), latencies[w].end());
      for (double p : latency_cdf_percentiles()) wr.latency_cdf.push_back(percentile_sorted(latencies[w], p));
    }
    wr.queueing = stats_of(queueing[w]);
    wr.mean_batch = batch_count[w] > 0 ? batch_sum[w] / batch_count[w] : 0;
    if (wr.jobs_completed > 0) {
      wr.mean_completion = completion_sum[w] / static_cast<double>(wr.jobs_completed);
      wr.mean_slowdown = slowdown_sum[w] / static_cast<double>(wr.jobs_completed);
    }
  }

  // ---- GPU utilisation over [0, duration] (a MIG instance: over its lifetime). Under MPS clients' busy intervals
  // overlap: the GPU is busy during their union, while each tenant's own busy time is its intervals' sum.
  const size_t n_windows = static_cast<size_t>(std::ceil(a.duration / a.window - 1e-9));
  for (size_t g = 0; g < a.gpus.size(); ++g) {
    auto& gr = a.gpus[g];
    gr.busy_per_window.assign(n_windows, 0.0);
    std::vector<std::pair<double, double>> merged;
    {
      std::vector<std::pair<double, double>> spans;
      for (const auto& b : busy[g]) {
        if (b.tenant >= 0) gr.busy_by_tenant[static_cast<size_t>(b.tenant)] += overlap(b.start, b.end, 0, a.duration);
        spans.emplace_back(b.start, b.end);
      }
      std::sort(spans.begin(), spans.end());
      for (const auto& sp : spans) {
        if (!merged.empty() && sp.first <= merged.back().second) {
          merged.back().second = std::max(merged.back().second, sp.second);
        } else {
          merged.push_back(sp);
        }
      }
    }
    double total = 0;
    for (const auto& [s0, s1] : merged) {
      total += overlap(s0, s1, 0, a.duration);
      const size_t first = static_cast<size_t>(std::max(0.0, s0) / a.window);
      for (size_t k = first; k < n_windows; ++k) {
        const double w0 = static_cast<double>(k) * a.window;
        if (w0 >= s1) break;
        gr.busy_per_window[k] += overlap(s0, s1, w0, std::min(w0 + a.window, a.duration));
      }
    }
    for (size_t k = 0; k < n_windows; ++k) {
      const double w0 = static_cast<double>(k) * a.window;
      gr.busy_per_window[k] /= std::min(w0 + a.window, a.duration) - w0;
    }
    // Over the device's lifetime: a MIG instance exists from its layout's start to its replacement.
    const auto& layout = run.gpus[g];
    const double alive_from = std::max(0.0, layout.available_from);
    const double alive_until = layout.available_until < 0 ? a.duration : std::min(layout.available_until, a.duration);
    const double lifetime = layout.available_from < 0 ? 0.0 : std::max(0.0, alive_until - alive_from);
    gr.utilisation = lifetime > 0 ? total / lifetime : 0;
    gr.context_switches = switches[g].size();
    for (const auto& sw : switches[g]) gr.switch_seconds += sw.second;
    std::sort(gr.tenants.begin(), gr.tenants.end());
    gr.tenants.erase(std::unique(gr.tenants.begin(), gr.tenants.end()), gr.tenants.end());
  }

  // ---- tenants
  for (size_t t = 0; t < n_tenants; ++t) {
    TenantResult tr;
    tr.name = spec.tenants[t].name;
    tr.region = spec.tenants[t].region;
    tr.classification = classification_names()[static_cast<size_t>(spec.tenants[t].classification)];
    for (const auto& gr : a.gpus) tr.gpu_seconds += gr.busy_by_tenant[t];
    a.tenants.push_back(tr);
  }

  // ---- SLOs
  for (size_t t = 0; t < n_tenants; ++t) {
    const auto& tenant = spec.tenants[t];
    for (const auto& slo : tenant.slos) {
      SloResult r;
      r.tenant = static_cast<int>(t);
      r.tenant_name = tenant.name;
      r.name = slo.name;
      r.kind = slo_kind_name(slo.kind);
      r.workload = slo.workload;
      r.target = slo.target;
      const bool request_slo = is_request_slo(slo.kind);
      r.higher_is_better = slo.kind == SloKind::THROUGHPUT || slo.kind == SloKind::AVAILABILITY;
      r.threshold = slo.kind == SloKind::THROUGHPUT     ? slo.min_rate.value
                    : slo.kind == SloKind::AVAILABILITY ? slo.min_availability
                    : slo.kind == SloKind::SLOWDOWN     ? slo.max_slowdown
                                                        : slo.threshold.value;
      std::vector<size_t> matching;
      for (size_t w = 0; w < spec.workloads.size(); ++w) {
        const auto& ws = spec.workloads[w];
        if (ws.tenant_index != static_cast<int>(t)) continue;
        if (!slo.workload.empty() && ws.name != slo.workload) continue;
        if ((ws.kind == WorkloadKind::INFERENCE) != request_slo) continue;
        matching.push_back(w);
      }
      const double W = slo.window.value;
      const size_t nw = static_cast<size_t>(std::ceil(a.duration / W - 1e-9));
      if (slo.kind == SloKind::LATENCY) {
        r.unit = "s";
        r.objective = "p" + fmt("%g", slo.percentile) + " latency <= " + format_duration(slo.threshold) + " per " +
                      format_duration(slo.window) + " window";
        std::vector<std::vector<double>> per_window(nw);
        for (size_t w : matching)
          for (const auto& o : request_outcomes[w])
            if (o.arrival >= 0 && o.arrival < a.duration)
              per_window[std::min(nw - 1, static_cast<size_t>(o.arrival / W))].push_back(o.latency);
        for (size_t k = 0; k < nw; ++k) {
          if (per_window[k].empty()) continue;
          std::sort(per_window[k].begin(), per_window[k].end());
          const double v = percentile_sorted(per_window[k], slo.percentile);
          r.windows.push_back({static_cast<double>(k) * W, v, v > slo.threshold.value});
        }
      } else if (slo.kind == SloKind::AVAILABILITY) {
        r.unit = "ratio";
        r.objective = "served requests >= " + fmt("%g", 100 * slo.min_availability) + "% per " +
                      format_duration(slo.window) + " window";
        std::vector<double> arrived(nw, 0.0), served(nw, 0.0);
        for (size_t w : matching)
          for (const auto& o : request_outcomes[w])
            if (o.arrival >= 0 && o.arrival < a.duration) {
              const size_t k = std::min(nw - 1, static_cast<size_t>(o.arrival / W));
              arrived[k] += 1;
              if (std::isfinite(o.latency)) served[k] += 1;
            }
        for (size_t k = 0; k < nw; ++k) {
          if (arrived[k] == 0) continue;  // no request: nothing to judge
          const double v = served[k] / arrived[k];
          r.windows.push_back({static_cast<double>(k) * W, v, v < slo.min_availability});
        }
      } else if (slo.kind == SloKind::THROUGHPUT) {
        r.unit = "1/s";
        r.objective = "completed requests >= " + fmt("%g", slo.min_rate.value) + "/s per " +
                      format_duration(slo.window) + " window";
        std::vector<double> count(nw, 0.0);
        for (size_t w : matching)
          for (double c : completions[w])
            if (c < a.duration) count[std::min(nw - 1, static_cast<size_t>(c / W))] += 1;
        for (size_t k = 0; k < nw; ++k) {
          const double len = std::min(W, a.duration - static_cast<double>(k) * W);
          const double rate = count[k] / len;
          r.windows.push_back({static_cast<double>(k) * W, rate, rate < slo.min_rate.value});
        }
      } else {
        const bool slowdown = slo.kind == SloKind::SLOWDOWN;
        r.unit = slowdown ? "x" : "s";
        r.objective = slowdown ? "job slowdown vs alone <= " + fmt("%g", slo.max_slowdown) + "x"
                               : "job completion <= " + format_duration(slo.threshold);
        for (size_t w : matching) {
          for (const auto& j : jobs[w]) {
            const double v = slowdown ? (j.ideal > 0 ? j.completion / j.ideal : INF) : j.completion;
            const bool violated = slowdown ? !(v <= slo.max_slowdown) : !(v <= slo.threshold.value);
            r.windows.push_back({std::isfinite(j.completion) ? j.submitted : a.duration, v, violated});
          }
        }
      }
      r.evaluated = r.windows.size();
      double worst = 0;
      bool worst_set = false;
      for (const auto& w : r.windows) {
        if (w.violated) ++r.violated;
        const bool worse = r.higher_is_better ? (!worst_set || w.value < worst) : (w.value > worst);
        if (worse) worst = w.value;
        worst_set = true;
      }
      r.worst = worst;
      const bool window_slo = request_slo;
      if (window_slo) r.violation_minutes = static_cast<double>(r.violated) * W / 60.0;
      r.compliance = r.evaluated ? 1.0 - static_cast<double>(r.violated) / static_cast<double>(r.evaluated) : 1.0;
      if (r.evaluated == 0 && !matching.empty()) {
        // No traffic at all: a throughput floor is missed, a latency bound has nothing to judge.
        r.compliance = 1.0;
      }
      r.met = r.compliance + 1e-12 >= slo.target;
      const double budget = 1.0 - slo.target;
      const double bad = r.evaluated ? static_cast<double>(r.violated) / static_cast<double>(r.evaluated) : 0.0;
      r.error_budget_burn = budget > 1e-12 ? bad / budget : (bad > 0 ? -1.0 : 0.0);

      // Attribution: who held the GPUs while the SLO was being missed. For latency SLOs the spans
      // are the lifetimes of the requests slower than the threshold in violating windows, each on
      // the GPU that served it; otherwise the violating windows (or jobs) on every GPU the SLO's
      // workloads ran on.
      std::vector<std::tuple<int, double, double>> spans;  // (gpu, start, end)
      std::set<int> victim_gpus;
      for (size_t w : matching)
        for (int g : a.workloads[w].gpus) victim_gpus.insert(g);
      if (slo.kind == SloKind::LATENCY) {
        std::set<size_t> bad_windows;
        for (const auto& win : r.windows)
          if (win.violated) bad_windows.insert(static_cast<size_t>(win.start / W + 0.5));
        for (size_t w : matching)
          for (const auto& o : request_outcomes[w]) {
            if (o.gpu < 0 || !(o.latency > slo.threshold.value) || o.arrival >= a.duration) continue;
            if (!bad_windows.count(std::min(nw - 1, static_cast<size_t>(o.arrival / W)))) continue;
            const double end = std::isfinite(o.latency) ? o.arrival + o.latency : run.end_time;
            spans.emplace_back(o.gpu, o.arrival, end);
          }
      } else {
        for (const auto& win : r.windows) {
          if (!win.violated) continue;
          double s1 = std::min(win.start + W, a.duration);
          if (!window_slo)
            s1 = std::isfinite(win.value) && slo.kind == SloKind::COMPLETION_TIME
                     ? std::min(a.duration, win.start + win.value)
                     : a.duration;
          for (int g : victim_gpus) spans.emplace_back(g, win.start, s1);
        }
      }
      if (!spans.empty()) {
        std::vector<double> by_tenant(n_tenants, 0.0);
        double switching = 0, total = 0;
        for (const auto& [g, s0, s1] : spans) {
          // Busy intervals and switches on a GPU are disjoint and in time order: binary search.
          // Intervals are appended when they end, so they are sorted by end; under MPS they may
          // overlap, so scan until an interval ends later than s1 + the longest interval.
          const auto& intervals = busy[static_cast<size_t>(g)];
          const double horizon = s1 + longest[static_cast<size_t>(g)];
          auto it = std::lower_bound(intervals.begin(), intervals.end(), s0,
                                     [](const BusyInterval& b, double at) { return b.end <= at; });
          for (; it != intervals.end() && it->end < horizon + 1e-12; ++it) {
            const double o = overlap(it->start, it->end, s0, s1);
            if (o > 0 && it->tenant >= 0) {
              by_tenant[static_cast<size_t>(it->tenant)] += o;
              total += o;
            }
          }
          const auto& sw = switches[static_cast<size_t>(g)];
          auto si = std::lower_bound(sw.begin(), sw.end(), s0,
                                     [](const std::pair<double, double>& x, double at) { return x.first <= at; });
          for (; si != sw.end() && si->first - si->second < s1; ++si) {
            const double o = overlap(si->first - si->second, si->first, s0, s1);
            switching += o;
            total += o;
          }
        }
        if (total > 0) {
          for (size_t k = 0; k < n_tenants; ++k)
            if (by_tenant[k] > 0) r.attribution.push_back({spec.tenants[k].name, by_tenant[k] / total});
          if (switching > 0) r.attribution.push_back({"(context switches)", switching / total});
          std::stable_sort(r.attribution.begin(), r.attribution.end(),
                           [](const ShareOfBlame& x, const ShareOfBlame& y) { return x.share > y.share; });
        }
      }
      // A one-line "why" a newcomer can read.
      if (r.met && r.violated == 0) {
        r.explanation = "met in every " + std::string(window_slo ? "window" : "job");
      } else {
        std::string who;
        for (const auto& s : r.attribution) {
          if (s.who == tenant.name) continue;
          if (!who.empty()) who += ", ";
          who += s.who + " " + fmt("%.0f%%", 100 * s.share);
        }
        size_t failed = 0;
        for (size_t w : matching) failed += static_cast<size_t>(a.workloads[w].replicas_failed);
        r.explanation = std::to_string(r.violated) + " of " + std::to_string(r.evaluated) +
                        (window_slo ? " windows" : " jobs") + " violated";
        size_t killed = 0;
        for (size_t w : matching) killed += static_cast<size_t>(a.workloads[w].replicas_killed_by_faults);
        if (killed > 0) {
          std::string by;
          for (const auto& f : a.faults) {
            for (size_t w : matching) {
              const std::string mine = tenant.name + "/" + spec.workloads[w].name + "[";
              bool hit = false;
              for (const auto& v : f.victims) hit = hit || v.rfind(mine, 0) == 0;
              if (hit && by.find(f.tenant + "/" + f.workload) == std::string::npos)
                by += (by.empty() ? "" : ", ") + f.tenant + "/" + f.workload + " on GPU " + std::to_string(f.gpu) +
                      (f.whole_gpu ? " (one fault domain for the whole GPU)" : "");
            }
          }
          r.explanation += "; " + std::to_string(killed) + " replica(s) ended by a GPU fault of " + by;
        }
        if (failed > killed) {
          r.explanation += "; " + std::to_string(failed - killed) + " replica(s) failed (out of memory or unplaced)";
        }
        if (!who.empty()) {
          r.explanation += "; co-tenants held the shared GPUs during violations: " + who;
        } else if (failed == 0) {
          r.explanation += "; no co-tenant on its GPUs: its own load exceeds its capacity";
        }
      }
      if (!r.met) ++a.tenants[t].slos_missed;
      ++a.tenants[t].slos;
      if (!r.met) ++a.slos_missed;
      a.slos.push_back(std::move(r));
    }
  }
  a.boundaries = isolation_boundaries(spec, run);
  double end = spec.duration.value;
  for (const auto& e : events)
    if (e.type == EventType::RUN_END) end = e.time;
  a.quotas = analyse_quotas(spec, run.log, end);

  // ---- Chargeback: each stay of a replica on a device, at the share of a physical GPU its slot is.
  for (const auto& pl : a.placements) {
    if (pl.tenant < 0 || pl.gpu < 0) continue;
    const auto& layout = run.gpus[static_cast<size_t>(pl.gpu)];
    const double hours = std::max(0.0, (pl.end >= 0 ? pl.end : end) - pl.start) / 3600.0 * layout.share;
    auto& tr = a.tenants[static_cast<size_t>(pl.tenant)];
    tr.allocated_gpu_hours[layout.mig_profile.empty() ? layout.sharing : "mig " + layout.mig_profile] += hours;
    tr.cost += hours * layout.price_per_gpu_hour;
    a.cost.allocated_gpu_hours += hours;
    a.cost.allocated += hours * layout.price_per_gpu_hour;
  }
  std::map<std::pair<int, int>, double> physical;  // (node, GPU) -> price
  for (const auto& layout : run.gpus) physical[{layout.node, layout.local}] = layout.price_per_gpu_hour;
  for (const auto& [gpu, price] : physical) {
    a.cost.provisioned_gpu_hours += end / 3600.0;
    a.cost.total += end / 3600.0 * price;
  }
  a.cost.idle = a.cost.total - a.cost.allocated;
  return a;
}

}  // namespace gtw
