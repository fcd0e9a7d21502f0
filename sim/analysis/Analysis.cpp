#include "Analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "AnalysisStages.hpp"
#include "PagedRecords.hpp"
#include "Runtime.hpp"

namespace gtw {

double percentile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t idx = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size()))) - 1;
  return sorted[idx];
}

double slo_window_s(const ScenarioSpec& spec, const SloResult& s) {
  if (s.tenant < 0 || static_cast<size_t>(s.tenant) >= spec.tenants.size()) return 0;
  for (const auto& slo : spec.tenants[static_cast<size_t>(s.tenant)].slos)
    if (slo.name == s.name) return is_request_slo(slo.kind) ? slo.window.value : 0;
  return 0;
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

// Every GPU's context switches: when each ended, paged as the busy intervals are, and its cost. A GPU's switches
// all cost the same (its profile's context switch), so the costs are stored only once they differ: 8 bytes per
// switch instead of 16.
struct SwitchEnd {
  double operator()(double at) const { return at; }
};
class SwitchLogs {
 public:
  using Cursor = PagedRecords<double, SwitchEnd>::Cursor;
  /// 2 M switch times (16 MB) stay in memory before pages of 256 of a GPU's spill.
  static constexpr SpillBudget BUDGET{size_t{1} << 21, 256};

  explicit SwitchLogs(size_t gpus = 0)
      : times_(gpus, analysis_spill_budget(BUDGET), "gputwin-switches"), costs_(gpus) {}
  void expect(const std::vector<size_t>& per_gpu) { times_.expect(per_gpu); }
  void add(size_t gpu, double at, double cost) {
    Costs& c = costs_[gpu];
    if (times_.size(gpu) == 0) c.first = cost;
    if (c.each.empty() && cost != c.first) c.each.assign(times_.size(gpu), c.first);
    times_.add(gpu, at);
    if (!c.each.empty()) c.each.push_back(cost);
  }
  size_t size(size_t gpu) const { return times_.size(gpu); }
  double cost(size_t gpu, size_t i) const {
    const Costs& c = costs_[gpu];
    return c.each.empty() ? c.first : c.each[i];
  }
  /// The GPU's switches from the first ending after `time`.
  Cursor after(size_t gpu, double time) const { return times_.after(gpu, time); }

 private:
  struct Costs {
    double first = 0;
    std::vector<double> each;  // empty while every cost is `first`
  };
  PagedRecords<double, SwitchEnd> times_;
  std::vector<Costs> costs_;
};

// Per pair of tenants and node where both had replicas: the host layers their runtimes share.
std::vector<BoundaryResult> isolation_boundaries(const ScenarioSpec& spec, const RunResult& run,
                                                 const RunIndex& index) {
  struct Placed {
    int tenant;
    int node;
    int local;
    RuntimeKind runtime;
  };
  std::vector<Placed> placed;
  for (const auto& s : index.stays()) {
    const auto& layout = run.gpus.at(static_cast<size_t>(s.gpu));
    placed.push_back({s.tenant, layout.node, layout.local,
                      effective_runtime(spec.workloads[static_cast<size_t>(s.workload)].runtime, layout.sharing)});
  }
  std::map<std::tuple<int, int, int>, BoundaryResult> pairs;  // (tenant a, tenant b, node)
  std::map<std::tuple<int, int, int>, std::set<SharedLayer>> layers;
  // Pairs meet only on a node: each placement looks at its node's placements, not the cluster's (quadratic).
  std::map<int, std::vector<const Placed*>> on_node;
  for (const auto& x : placed) on_node[x.node].push_back(&x);
  for (const auto& x : placed)
    for (const Placed* other : on_node.at(x.node)) {
      const Placed& y = *other;
      if (x.tenant >= y.tenant) continue;
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

// ---- the event tally: everything the workload, GPU and SLO stages need from the log but the stays

// Per workload, each request as the SLOs, the blame and the goodput read it. Packed (44 bytes, not 48): ten million
// of them in a simulated day of 10,000 GPUs, paged to the spill file past their budget. Read members by value.
struct [[gnu::packed]] RequestRecord {
  double at;          // completion time when served, arrival time when dropped
  double latency;     // +inf when dropped
  double queueing;    // served only
  double ttft, tpot;  // continuous batching's REQUEST_TOKENS; +inf when not served or not measured
  int gpu;
  bool served() const { return latency != INF; }
  // As the event gave it: completion - latency (computed the same way each time: the same bits).
  double arrival() const { return served() ? at - latency : at; }
};
static_assert(sizeof(RequestRecord) == 44);
// Per job: completion (+inf when it failed or was unfinished), ideal time alone, submission, for job SLOs.
struct JobOutcome {
  double completion, ideal, submitted;
};
struct WorkloadTally {
  double preempted = 0;
  double batch_sum = 0, batch_count = 0, completion_sum = 0, slowdown_sum = 0;
  // The latest request, held until the next one: its REQUEST_TOKENS follows its REQUEST_DONE.
  std::optional<RequestRecord> latest;
  std::set<int> placed_replicas, failed_replicas;
};
struct Tally {
  const RunIndex* index = nullptr;  // its busy intervals: per GPU, in order of their ends
  SwitchLogs switches;              // per GPU
  std::vector<WorkloadTally> workloads;
  PagedRecords<RequestRecord> requests;  // per workload, in the order they were served or dropped
  PagedRecords<JobOutcome> jobs;         // per workload
  /// 1 M requests (44 MB) and 1 M jobs (24 MB) stay in memory; a page holds 128 of a workload's.
  static constexpr SpillBudget REQUESTS_BUDGET{size_t{1} << 20, 128};
  static constexpr SpillBudget JOBS_BUDGET{size_t{1} << 20, 128};

  // Files the workload's latest request (before the next one, and at the end of the log).
  void settle_request(size_t w) {
    auto& latest = workloads[w].latest;
    if (!latest) return;
    requests.add(w, *latest);
    latest.reset();
  }
  void add_request(size_t w, const RequestRecord& r) {
    settle_request(w);
    workloads[w].latest = r;
  }
};

// The results' skeleton: one row per GPU and per workload, from the layout and the spec.
Analysis skeleton(const ScenarioSpec& spec, const RunResult& run) {
  Analysis a;
  a.duration = spec.duration.value;
  a.window = spec.sla_window.value;
  a.timeline_step = timeline_step(a.duration);
  a.gpus.resize(run.gpus.size());
  for (size_t g = 0; g < run.gpus.size(); ++g) {
    a.gpus[g].layout = run.gpus[g];
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
  return a;
}

void on_job_done(const Event& e, size_t w, Tally& t, WorkloadResult& wr) {
  ++wr.jobs_completed;
  auto& wt = t.workloads[w];
  wt.completion_sum += e.value;
  const double ideal = payload::ideal_time(e);
  const double slowdown = ideal > 0 ? e.value / ideal : 1.0;
  wt.slowdown_sum += slowdown;
  wr.max_slowdown = std::max(wr.max_slowdown, slowdown);
  t.jobs.add(w, {e.value, ideal, e.time - e.value});
}

void on_fault(const ScenarioSpec& spec, const Event& e, Analysis& a) {
  FaultResult f;
  f.time = e.time;
  f.gpu = e.gpu;
  f.tenant = e.tenant >= 0 ? spec.tenants[static_cast<size_t>(e.tenant)].name : "";
  f.workload = e.workload >= 0 ? spec.workloads[static_cast<size_t>(e.workload)].name : "";
  f.replica = e.replica;
  f.clients_ended = static_cast<int>(e.value);
  f.whole_gpu = payload::whole_gpu(e);
  f.whole_node = payload::whole_node(e);
  a.faults.push_back(f);
}

void on_reconfigure_start(const ScenarioSpec& spec, const Event& e, Analysis& a) {
  const auto& rc = spec.reconfigurations.at(static_cast<size_t>(e.replica));
  ReconfigurationResult r;
  r.node_pool = rc.node_pool;
  r.start = e.time;
  r.gpus = payload::reconfigured_gpus(e);
  r.replicas_evicted = static_cast<int>(e.value);
  r.new_layout = rc.mig_layout;
  a.reconfigurations.push_back(r);
}

void on_reconfigure_done(const Event& e, Analysis& a) {
  for (auto& r : a.reconfigurations)
    if (r.start == payload::drain_start(e) && r.done < 0) {
      r.done = e.time;
      r.replicas_replaced = static_cast<int>(e.value);
      break;
    }
}

// A failure's effect on the workload's counters (the stays it ended are the run index's).
void on_failure(const ScenarioSpec& spec, const Event& e, size_t w, Analysis& a, Tally& tally) {
  WorkloadTally& t = tally.workloads[w];
  const auto& ws = spec.workloads[w];
  const auto reason = payload::failure_reason(e);
  auto& wr = a.workloads[w];
  // A serving replica or batch worker evicted by a reconfiguration is placed again: not a failure.
  // Likewise one preempted by a quota reclaim: it is requeued.
  if ((reason == FailureReason::RECONFIGURED || reason == FailureReason::PREEMPTED) && e.gpu >= 0 &&
      ws.kind != WorkloadKind::TRAINING) {
    ++wr.replicas_evicted;
    return;
  }
  if (reason == FailureReason::FAULT && e.gpu >= 0) {
    ++wr.replicas_killed_by_faults;
    // Clients ended by the most recent fault at this instant belong to its domain.
    if (!a.faults.empty() && a.faults.back().time == e.time)
      a.faults.back().victims.push_back(spec.tenants[static_cast<size_t>(ws.tenant_index)].name + "/" + ws.name + "[" +
                                        std::to_string(e.replica) + "]");
  }
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (ws.kind == WorkloadKind::INFERENCE) {
    t.failed_replicas.insert(e.replica);
  } else if (reason == FailureReason::UNFINISHED) {
    ++wr.jobs_unfinished;
    tally.jobs.add(w, {inf, 0, 0});
  } else {
    if (ws.kind == WorkloadKind::TRAINING) {
      ++wr.jobs_failed;
      tally.jobs.add(w, {inf, 0, 0});
    } else if (e.replica >= 0 && e.gpu >= 0) {
      t.failed_replicas.insert(e.replica);  // a batch worker slot that could not start
    } else {
      ++wr.jobs_failed;
      tally.jobs.add(w, {inf, 0, 0});
    }
    if (ws.kind == WorkloadKind::TRAINING) t.failed_replicas.insert(0);
  }
}

// Request and job events of one workload.
void on_workload_event(const Event& e, size_t w, Tally& tally, WorkloadResult& wr) {
  WorkloadTally& t = tally.workloads[w];
  switch (e.type) {
    case EventType::REQUEST_ARRIVAL:
      ++wr.requests_arrived;
      break;
    case EventType::REQUEST_DONE:
      ++wr.requests_completed;
      tally.add_request(w, {e.time, e.value, payload::queueing_delay(e), INF, INF, e.gpu});
      break;
    case EventType::REQUEST_TOKENS:
      // Emitted right after the request's REQUEST_DONE, by the same replica.
      if (t.latest) {
        t.latest->ttft = e.value;
        t.latest->tpot = e.aux;
      }
      break;
    case EventType::REQUEST_PREEMPTED:
      t.preempted += e.value;
      break;
    case EventType::REQUEST_DROPPED:
      ++wr.requests_dropped;
      // Dropped the instant it arrived (no live replica, or a full queue): it never had a REQUEST_ARRIVAL,
      // but it arrived.
      if (e.value == 0 && payload::arrival_time(e) == e.time) ++wr.requests_arrived;
      tally.add_request(w, {payload::arrival_time(e), INF, 0, INF, INF, e.gpu});
      break;
    case EventType::BATCH_START:
      t.batch_sum += e.value;
      t.batch_count += 1;
      break;
    case EventType::JOB_SUBMIT:
      ++wr.jobs_submitted;
      break;
    case EventType::STEP_DONE:
      ++wr.steps_completed;
      break;
    case EventType::JOB_DONE:
      on_job_done(e, w, tally, wr);
      break;
    case EventType::MODEL_LOAD:
      ++wr.model_loads;
      wr.model_load_seconds += e.time - payload::start_time(e);
      break;
    default:
      break;
  }
}

// The tally's per-GPU and per-workload tables, sized by a counting pass first: a long run's log holds millions of
// busy intervals and requests, and growing the arrays by doubling left up to half of them unused.
void reserve_tally(const RunResult& run, Tally& t) {
  std::vector<size_t> switches(run.gpus.size(), 0), requests(t.workloads.size(), 0), jobs(t.workloads.size(), 0);
  for (const auto& e : run.log.events()) {
    const auto g = static_cast<size_t>(e.gpu);
    const auto w = static_cast<size_t>(e.workload);
    if (payload::context_switch(e) && payload::switch_cost(e) > 0 && g < switches.size()) ++switches[g];
    if (w >= requests.size()) continue;
    requests[w] += e.type == EventType::REQUEST_DONE || e.type == EventType::REQUEST_DROPPED;
    jobs[w] += e.type == EventType::JOB_DONE || e.type == EventType::WORKLOAD_FAILED;
  }
  t.switches.expect(switches);
  t.requests.expect(requests);
  t.jobs.expect(jobs);
}

// One pass over the log for what the run index does not say: switches, requests, jobs, faults,
// reconfigurations, failures.
Tally tally_events(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index, Analysis& a) {
  Tally t;
  const size_t gpus = run.gpus.size(), workloads = spec.workloads.size();
  t.index = &index;
  t.switches = SwitchLogs(gpus);
  t.workloads.resize(workloads);
  t.requests =
      PagedRecords<RequestRecord>(workloads, analysis_spill_budget(Tally::REQUESTS_BUDGET), "gputwin-requests");
  t.jobs = PagedRecords<JobOutcome>(workloads, analysis_spill_budget(Tally::JOBS_BUDGET), "gputwin-jobs");
  reserve_tally(run, t);
  for (const auto& e : run.log.events()) {
    const size_t w = e.workload >= 0 ? static_cast<size_t>(e.workload) : 0;
    switch (e.type) {
      case EventType::GPU_BUSY:
        break;  // the run index keeps them
      case EventType::CONTEXT_SWITCH:
      case EventType::GPU_SLICE:  // the busy part is the run index's
        if (payload::switch_cost(e) > 0)
          t.switches.add(static_cast<size_t>(e.gpu), payload::switch_time(e), payload::switch_cost(e));
        break;
      case EventType::GPU_FAULT:
        on_fault(spec, e, a);
        break;
      case EventType::RECONFIGURE_START:
        on_reconfigure_start(spec, e, a);
        break;
      case EventType::RECONFIGURE_DONE:
        on_reconfigure_done(e, a);
        break;
      case EventType::WORKLOAD_FAILED:
        if (w < t.workloads.size()) on_failure(spec, e, w, a, t);
        break;
      default:
        if (w < t.workloads.size()) on_workload_event(e, w, t, a.workloads[w]);
        break;
    }
  }
  for (size_t w = 0; w < workloads; ++w) t.settle_request(w);
  return t;
}

// Where each workload was placed (GPUs, replicas) and who was placed on each GPU, from the stays.
void record_placements(const RunIndex& index, Analysis& a, Tally& t) {
  a.placements = placement_results(index);
  for (const auto& s : index.stays()) {
    a.workloads[static_cast<size_t>(s.workload)].gpus.push_back(s.gpu);
    t.workloads[static_cast<size_t>(s.workload)].placed_replicas.insert(s.replica);
    if (s.tenant >= 0) a.gpus[static_cast<size_t>(s.gpu)].tenants.push_back(s.tenant);
  }
}

void summarise_workloads(Analysis& a, Tally& t) {
  for (size_t w = 0; w < a.workloads.size(); ++w) {
    auto& wr = a.workloads[w];
    auto& wt = t.workloads[w];
    std::sort(wr.gpus.begin(), wr.gpus.end());
    wr.gpus.erase(std::unique(wr.gpus.begin(), wr.gpus.end()), wr.gpus.end());
    wr.replicas_placed = static_cast<int>(wt.placed_replicas.size());
    wr.replicas_failed = wr.replicas_requested - wr.replicas_placed + static_cast<int>(wt.failed_replicas.size());
    // The completed requests' latencies, queueing delays, TTFT and TPOT, in completion order (a dropped request
    // has none; one without REQUEST_TOKENS has no TTFT and TPOT).
    std::vector<double> latencies, queueing, ttft, tpot;
    latencies.reserve(static_cast<size_t>(wr.requests_completed));
    queueing.reserve(static_cast<size_t>(wr.requests_completed));
    t.requests.for_each(w, [&](const RequestRecord& o) {
      if (!o.served()) return;
      latencies.push_back(o.latency);
      queueing.push_back(o.queueing);
      if (o.ttft == INF) return;
      ttft.push_back(o.ttft);
      tpot.push_back(o.tpot);
    });
    wr.latency = stats_of(latencies);
    if (!latencies.empty()) {
      std::sort(latencies.begin(), latencies.end());
      for (double p : latency_cdf_percentiles()) wr.latency_cdf.push_back(percentile_sorted(latencies, p));
    }
    wr.queueing = stats_of(std::move(queueing));
    wr.ttft = stats_of(ttft);
    wr.tpot = stats_of(tpot);
    wr.mean_batch = wt.batch_count > 0 ? wt.batch_sum / wt.batch_count : 0;
    if (wr.jobs_completed > 0) {
      wr.mean_completion = wt.completion_sum / static_cast<double>(wr.jobs_completed);
      wr.mean_slowdown = wt.slowdown_sum / static_cast<double>(wr.jobs_completed);
    }
  }
}

// The entry of `tenant` in a device's sparse per-tenant row (added with `empty` at the end when missing; the
// caller sorts the row by tenant once it is complete). A device has a few tenants: a linear search.
template <class T>
T& tenant_entry(std::vector<std::pair<int, T>>& row, int tenant, T empty) {
  for (auto& [t, value] : row)
    if (t == tenant) return value;
  row.emplace_back(tenant, std::move(empty));
  return row.back().second;
}

// The union of a GPU's busy intervals (under MPS clients' intervals overlap), with each tenant's own busy time
// (its intervals' sum) added to `gr`.
std::vector<std::pair<double, double>> busy_union(const std::vector<BusyInterval>& busy, double duration,
                                                  GpuResult& gr) {
  std::vector<std::pair<double, double>> spans, merged;
  for (const auto& b : busy) {
    if (b.tenant >= 0) tenant_entry(gr.busy_by_tenant, b.tenant, 0.0) += overlap(b.start, b.end, 0, duration);
    spans.emplace_back(b.start, b.end);
  }
  std::sort(gr.busy_by_tenant.begin(), gr.busy_by_tenant.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  std::sort(spans.begin(), spans.end());
  for (const auto& sp : spans) {
    if (!merged.empty() && sp.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, sp.second);
    } else {
      merged.push_back(sp);
    }
  }
  return merged;
}

// Each tenant's busy share of each timeline step of one device.
void tenant_timeline(const std::vector<BusyInterval>& busy, const Analysis& a, GpuResult& gr) {
  const double step = a.timeline_step;
  const size_t n_steps = static_cast<size_t>(std::ceil(a.duration / step - 1e-9));
  gr.busy_by_tenant_per_step.clear();
  for (const auto& b : busy) {
    if (b.tenant < 0 || b.end <= 0 || b.start >= a.duration) continue;
    auto& row = tenant_entry(gr.busy_by_tenant_per_step, b.tenant, std::vector<double>{});
    if (row.empty()) row.assign(n_steps, 0.0);
    for (size_t k = static_cast<size_t>(std::max(0.0, b.start) / step); k < n_steps; ++k) {
      const double s0 = static_cast<double>(k) * step;
      if (s0 >= b.end) break;
      row[k] += overlap(b.start, b.end, s0, std::min(s0 + step, a.duration));
    }
  }
  std::sort(gr.busy_by_tenant_per_step.begin(), gr.busy_by_tenant_per_step.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [tenant, row] : gr.busy_by_tenant_per_step)
    for (size_t k = 0; k < row.size(); ++k) {
      const double s0 = static_cast<double>(k) * step;
      row[k] /= std::min(s0 + step, a.duration) - s0;
    }
}

// SLO windows held in memory before pages of them spill: 17 MB.
constexpr SpillBudget SLO_WINDOWS_BUDGET{size_t{1} << 20, 256};

// Utilisation windows held in memory before pages of them spill: 32 MB.
constexpr SpillBudget UTILISATION_WINDOWS_BUDGET{size_t{1} << 22, 256};

// GPU utilisation over [0, duration] (a MIG instance: over its lifetime), per window and per tenant.
void gpu_utilisation(const RunResult& run, const Tally& t, Analysis& a) {
  const size_t n_windows = static_cast<size_t>(std::ceil(a.duration / a.window - 1e-9));
  a.utilisation_windows = std::make_shared<PagedRecords<double>>(
      a.gpus.size(), analysis_spill_budget(UTILISATION_WINDOWS_BUDGET), "gputwin-utilisation");
  a.utilisation_windows->expect(std::vector<size_t>(a.gpus.size(), n_windows));
  std::vector<double> busy_per_window;
  for (size_t g = 0; g < a.gpus.size(); ++g) {
    auto& gr = a.gpus[g];
    busy_per_window.assign(n_windows, 0.0);
    const auto& busy = t.index->busy().of(g);
    const auto merged = busy_union(busy, a.duration, gr);
    tenant_timeline(busy, a, gr);
    double total = 0;
    for (const auto& [s0, s1] : merged) {
      total += overlap(s0, s1, 0, a.duration);
      const size_t first = static_cast<size_t>(std::max(0.0, s0) / a.window);
      for (size_t k = first; k < n_windows; ++k) {
        const double w0 = static_cast<double>(k) * a.window;
        if (w0 >= s1) break;
        busy_per_window[k] += overlap(s0, s1, w0, std::min(w0 + a.window, a.duration));
      }
    }
    for (size_t k = 0; k < n_windows; ++k) {
      const double w0 = static_cast<double>(k) * a.window;
      busy_per_window[k] /= std::min(w0 + a.window, a.duration) - w0;
    }
    for (double w : busy_per_window) a.utilisation_windows->add(g, w);
    // Over the device's lifetime: a MIG instance exists from its layout's start to its replacement.
    const auto& layout = run.gpus[g];
    const double alive_from = std::max(0.0, layout.available_from);
    const double alive_until = layout.available_until < 0 ? a.duration : std::min(layout.available_until, a.duration);
    const double lifetime = layout.available_from < 0 ? 0.0 : std::max(0.0, alive_until - alive_from);
    gr.utilisation = lifetime > 0 ? total / lifetime : 0;
    gr.context_switches = t.switches.size(g);
    for (size_t i = 0; i < gr.context_switches; ++i) gr.switch_seconds += t.switches.cost(g, i);
    std::sort(gr.tenants.begin(), gr.tenants.end());
    gr.tenants.erase(std::unique(gr.tenants.begin(), gr.tenants.end()), gr.tenants.end());
  }
}

void tenant_results(const ScenarioSpec& spec, Analysis& a) {
  // Summed device by device, in device order, as the dense rows were.
  std::vector<double> gpu_seconds(spec.tenants.size(), 0.0);
  for (const auto& gr : a.gpus)
    for (const auto& [t, seconds] : gr.busy_by_tenant)
      if (static_cast<size_t>(t) < gpu_seconds.size()) gpu_seconds[static_cast<size_t>(t)] += seconds;
  for (size_t t = 0; t < spec.tenants.size(); ++t) {
    TenantResult tr;
    tr.name = spec.tenants[t].name;
    tr.region = spec.tenants[t].region;
    tr.classification = classification_names()[static_cast<size_t>(spec.tenants[t].classification)];
    tr.gpu_seconds = gpu_seconds[t];
    a.tenants.push_back(tr);
  }
}

// ---- SLOs

// What one SLO is judged over: the tenant's workloads it covers, its windows.
struct SloScope {
  const TenantSpec& tenant;
  const SloSpec& slo;
  std::vector<size_t> matching;
  double W = 0;   // the SLO's window
  size_t nw = 0;  // windows in [0, duration]
  bool request_slo = false;
};

SloResult slo_header(size_t t, const SloScope& s) {
  SloResult r;
  r.tenant = static_cast<int>(t);
  r.tenant_name = s.tenant.name;
  r.name = s.slo.name;
  r.kind = slo_kind_name(s.slo.kind);
  r.workload = s.slo.workload;
  r.target = s.slo.target;
  r.higher_is_better = s.slo.kind == SloKind::THROUGHPUT || s.slo.kind == SloKind::AVAILABILITY;
  r.threshold = s.slo.kind == SloKind::THROUGHPUT     ? s.slo.min_rate.value
                : s.slo.kind == SloKind::AVAILABILITY ? s.slo.min_availability
                : s.slo.kind == SloKind::SLOWDOWN     ? s.slo.max_slowdown
                                                      : s.slo.threshold.value;
  return r;
}

SloScope slo_scope(const ScenarioSpec& spec, size_t t, const SloSpec& slo, double duration) {
  SloScope s{spec.tenants[t], slo, {}, slo.window.value, 0, is_request_slo(slo.kind)};
  for (size_t w = 0; w < spec.workloads.size(); ++w) {
    const auto& ws = spec.workloads[w];
    if (ws.tenant_index != static_cast<int>(t)) continue;
    if (!slo.workload.empty() && ws.name != slo.workload) continue;
    if ((ws.kind == WorkloadKind::INFERENCE) != s.request_slo) continue;
    s.matching.push_back(w);
  }
  s.nw = static_cast<size_t>(std::ceil(duration / s.W - 1e-9));
  return s;
}

void latency_windows(const SloScope& s, const Tally& t, double duration, SloResult& r, std::vector<SloWindow>& out) {
  const auto& slo = s.slo;
  r.unit = "s";
  r.objective = "p" + fmt("%g", slo.percentile) + " latency <= " + format_duration(slo.threshold) + " per " +
                format_duration(slo.window) + " window";
  std::vector<std::vector<double>> per_window(s.nw);
  for (size_t w : s.matching)
    t.requests.for_each(w, [&](const RequestRecord& o) {
      const double arrival = o.arrival();
      if (arrival >= 0 && arrival < duration)
        per_window[std::min(s.nw - 1, static_cast<size_t>(arrival / s.W))].push_back(o.latency);
    });
  for (size_t k = 0; k < s.nw; ++k) {
    if (per_window[k].empty()) continue;
    std::sort(per_window[k].begin(), per_window[k].end());
    const double v = percentile_sorted(per_window[k], slo.percentile);
    out.push_back({static_cast<double>(k) * s.W, v, v > slo.threshold.value});
  }
}

// ttft / tpot: the percentile of each window's served requests' time to first token or per output token
// (a dropped request has neither: the availability SLO counts it).
void token_windows(const SloScope& s, const Tally& t, double duration, SloResult& r, std::vector<SloWindow>& out) {
  const auto& slo = s.slo;
  const bool ttft = slo.kind == SloKind::TTFT;
  r.unit = "s";
  r.objective = "p" + fmt("%g", slo.percentile) + (ttft ? " time to first token" : " time per output token") +
                " <= " + format_duration(slo.threshold) + " per " + format_duration(slo.window) + " window";
  std::vector<std::vector<double>> per_window(s.nw);
  for (size_t w : s.matching)
    t.requests.for_each(w, [&](const RequestRecord& o) {
      const double arrival = o.arrival();
      const double v = ttft ? o.ttft : o.tpot;
      if (arrival >= 0 && arrival < duration && std::isfinite(v))
        per_window[std::min(s.nw - 1, static_cast<size_t>(arrival / s.W))].push_back(v);
    });
  for (size_t k = 0; k < s.nw; ++k) {
    if (per_window[k].empty()) continue;
    std::sort(per_window[k].begin(), per_window[k].end());
    const double v = percentile_sorted(per_window[k], slo.percentile);
    out.push_back({static_cast<double>(k) * s.W, v, v > slo.threshold.value});
  }
}

void availability_windows(const SloScope& s, const Tally& t, double duration, SloResult& r,
                          std::vector<SloWindow>& out) {
  const auto& slo = s.slo;
  r.unit = "ratio";
  r.objective = slo.mean_of_ratios ? "mean share of served requests over the " + format_duration(slo.window) +
                                         " windows >= " + fmt("%g", 100 * slo.target) + "%"
                                   : "served requests >= " + fmt("%g", 100 * slo.min_availability) + "% per " +
                                         format_duration(slo.window) + " window";
  std::vector<double> arrived(s.nw, 0.0), served(s.nw, 0.0);
  for (size_t w : s.matching)
    t.requests.for_each(w, [&](const RequestRecord& o) {
      const double arrival = o.arrival();
      if (arrival >= 0 && arrival < duration) {
        const size_t k = std::min(s.nw - 1, static_cast<size_t>(arrival / s.W));
        arrived[k] += 1;
        if (o.served()) served[k] += 1;
      }
    });
  for (size_t k = 0; k < s.nw; ++k) {
    if (arrived[k] == 0) continue;  // no request: nothing to judge
    const double v = served[k] / arrived[k];
    out.push_back({static_cast<double>(k) * s.W, v, v < slo.min_availability});
  }
}

void throughput_windows(const SloScope& s, const Tally& t, double duration, SloResult& r, std::vector<SloWindow>& out) {
  const auto& slo = s.slo;
  r.unit = "1/s";
  r.objective =
      "completed requests >= " + fmt("%g", slo.min_rate.value) + "/s per " + format_duration(slo.window) + " window";
  std::vector<double> count(s.nw, 0.0);
  for (size_t w : s.matching)
    t.requests.for_each(w, [&](const RequestRecord& o) {
      const double completion = o.at;
      if (o.served() && completion < duration) count[std::min(s.nw - 1, static_cast<size_t>(completion / s.W))] += 1;
    });
  for (size_t k = 0; k < s.nw; ++k) {
    const double len = std::min(s.W, duration - static_cast<double>(k) * s.W);
    const double rate = count[k] / len;
    out.push_back({static_cast<double>(k) * s.W, rate, rate < slo.min_rate.value});
  }
}

void job_windows(const SloScope& s, const Tally& t, double duration, SloResult& r, std::vector<SloWindow>& out) {
  const auto& slo = s.slo;
  const bool slowdown = slo.kind == SloKind::SLOWDOWN;
  r.unit = slowdown ? "x" : "s";
  r.objective = slowdown ? "job slowdown vs alone <= " + fmt("%g", slo.max_slowdown) + "x"
                         : "job completion <= " + format_duration(slo.threshold);
  for (size_t w : s.matching) {
    t.jobs.for_each(w, [&](const JobOutcome& j) {
      const double v = slowdown ? (j.ideal > 0 ? j.completion / j.ideal : INF) : j.completion;
      const bool violated = slowdown ? !(v <= slo.max_slowdown) : !(v <= slo.threshold.value);
      out.push_back({std::isfinite(j.completion) ? j.submitted : duration, v, violated});
    });
  }
}

// Counts, worst value, compliance, whether it is met and the error budget burnt, from the windows.
void score_slo(const SloScope& s, SloResult& r) {
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
  if (s.request_slo) r.violation_minutes = static_cast<double>(r.violated) * s.W / 60.0;
  r.compliance = r.evaluated ? 1.0 - static_cast<double>(r.violated) / static_cast<double>(r.evaluated) : 1.0;
  if (r.evaluated == 0 && !s.matching.empty()) {
    // No traffic at all: a throughput floor is missed, a latency bound has nothing to judge.
    r.compliance = 1.0;
  }
  if (s.slo.mean_of_ratios && r.evaluated) {
    // RatioTimeslices: the mean of the windows' shares (each window with traffic weighs the same).
    double sum = 0;
    for (const auto& w : r.windows) sum += w.value;
    r.compliance = sum / static_cast<double>(r.evaluated);
  }
  r.met = r.compliance + 1e-12 >= s.slo.target;
  const double budget = 1.0 - s.slo.target;
  const double bad = s.slo.mean_of_ratios ? 1.0 - r.compliance
                     : r.evaluated        ? static_cast<double>(r.violated) / static_cast<double>(r.evaluated)
                                          : 0.0;
  r.error_budget_burn = budget > 1e-12 ? bad / budget : (bad > 0 ? -1.0 : 0.0);
}

// The (gpu, start, end) spans during which the SLO was being missed. For latency SLOs the lifetimes of the
// requests slower than the threshold in violating windows, each on the GPU that served it; otherwise the
// violating windows (or jobs) on every GPU the SLO's workloads ran on.
std::vector<std::tuple<int, double, double>> violation_spans(const SloScope& s, const SloResult& r, const Tally& t,
                                                             const Analysis& a, double run_end_time) {
  std::vector<std::tuple<int, double, double>> spans;
  const double W = s.W;
  if (s.slo.kind == SloKind::LATENCY) {
    std::set<size_t> bad_windows;
    for (const auto& win : r.windows)
      if (win.violated) bad_windows.insert(static_cast<size_t>(win.start / W + 0.5));
    for (size_t w : s.matching)
      t.requests.for_each(w, [&](const RequestRecord& o) {
        const double arrival = o.arrival(), latency = o.latency;
        if (o.gpu < 0 || !(latency > s.slo.threshold.value) || arrival >= a.duration) return;
        if (!bad_windows.count(std::min(s.nw - 1, static_cast<size_t>(arrival / W)))) return;
        const double end = std::isfinite(latency) ? arrival + latency : run_end_time;
        spans.emplace_back(int{o.gpu}, arrival, end);
      });
    return spans;
  }
  std::set<int> victim_gpus;
  for (size_t w : s.matching)
    for (int g : a.workloads[w].gpus) victim_gpus.insert(g);
  for (const auto& win : r.windows) {
    if (!win.violated) continue;
    double s1 = std::min(win.start + W, a.duration);
    if (!s.request_slo)
      s1 = std::isfinite(win.value) && s.slo.kind == SloKind::COMPLETION_TIME
               ? std::min(a.duration, win.start + win.value)
               : a.duration;
    for (int g : victim_gpus) spans.emplace_back(g, win.start, s1);
  }
  return spans;
}

// Who held the GPUs during the spans: each tenant's share of the busy time, and the context switches'.
// Returns the GPU time it shared out (busy and switching time on the victim's GPUs in the spans).
double attribute(const std::vector<std::tuple<int, double, double>>& spans, const ScenarioSpec& spec, const Tally& t,
                 SloResult& r) {
  if (spans.empty()) return 0;
  const size_t n_tenants = spec.tenants.size();
  std::vector<double> by_tenant(n_tenants, 0.0);
  double switching = 0, total = 0;
  for (const auto& [g, s0, s1] : spans) {
    // Busy intervals and switches on a GPU are disjoint and in time order: found by time.
    // Intervals are appended when they end, so they are sorted by end; under MPS they may
    // overlap, so scan until an interval ends later than s1 + the longest interval.
    const double horizon = s1 + t.index->longest_busy(static_cast<size_t>(g));
    for (auto it = t.index->busy().after(static_cast<size_t>(g), s0); it.valid() && it->end < horizon + 1e-12; ++it) {
      const double o = overlap(it->start, it->end, s0, s1);
      if (o > 0 && it->tenant >= 0) {
        by_tenant[static_cast<size_t>(it->tenant)] += o;
        total += o;
      }
    }
    const auto gpu = static_cast<size_t>(g);
    for (auto it = t.switches.after(gpu, s0); it.valid(); ++it) {
      const double at = *it, cost = t.switches.cost(gpu, it.index());
      if (!(at - cost < s1)) break;
      const double o = overlap(at - cost, at, s0, s1);
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
  return total;
}

// The I/O part of the blame: the victim's time moving data in the violating spans against its GPUs' busy time
// there (`gpu_time`), and, of the bytes on the links those movements crossed in the spans, each tenant's share
// (pro rata of each movement's time in a span; a shared store's movements name it, others are fabric). The GPU
// part is scaled to the rest.
// The victim's replicas starting up inside the spans, on the spans' GPUs: from placement to the first busy
// interval of the replica's tenant there (runtime start, a confidential VM's boot and attestation, the weight
// load), as a union of time.
double cold_start_time(const std::vector<std::tuple<int, double, double>>& spans, const SloScope& s, const Analysis& a,
                       const Tally& t) {
  const std::set<size_t> victims(s.matching.begin(), s.matching.end());
  // The spans of each GPU, in their order: a placement looks at its own GPU's only (a training tenant's slowdown
  // SLO has a span per GPU and violated window, so scanning every span per placement was quadratic in the cluster).
  std::map<int, std::vector<std::pair<double, double>>> spans_of_gpu;
  for (const auto& [g, s0, s1] : spans) spans_of_gpu[g].emplace_back(s0, s1);
  std::vector<std::pair<double, double>> cold;
  for (const auto& pl : a.placements) {
    if (pl.workload < 0 || pl.gpu < 0 || !victims.count(static_cast<size_t>(pl.workload))) continue;
    const auto own = spans_of_gpu.find(pl.gpu);
    if (own == spans_of_gpu.end()) continue;
    // A replica that never ran there gives no start-up to measure (it failed, or the log has no busy time).
    double ready = INF;
    for (auto it = t.index->busy().after(static_cast<size_t>(pl.gpu), pl.start); it.valid(); ++it)
      if (it->tenant == pl.tenant && it->start >= pl.start - 1e-12) {
        ready = it->start;
        break;
      }
    if (!std::isfinite(ready)) continue;
    for (const auto& [s0, s1] : own->second)
      if (overlap(pl.start, ready, s0, s1) > 0) cold.emplace_back(std::max(pl.start, s0), std::min(ready, s1));
  }
  std::sort(cold.begin(), cold.end());
  double time = 0, reach = -INF;
  for (const auto& [c0, c1] : cold) {
    if (c1 <= reach) continue;
    time += c1 - std::max(c0, reach);
    reach = c1;
  }
  return time;
}

void attribute_io(const std::vector<std::tuple<int, double, double>>& spans, const ScenarioSpec& spec,
                  const RunResult& run, const SloScope& s, double gpu_time, double cold_time, SloResult& r) {
  if (spans.empty()) return;
  std::set<std::pair<double, double>> times;
  for (const auto& [g, s0, s1] : spans) times.insert({s0, s1});
  const std::set<size_t> victims(s.matching.begin(), s.matching.end());
  const auto in_spans = [&times](const DataMovement& m) {
    double o = 0;
    for (const auto& [s0, s1] : times) o += overlap(m.start, m.end, s0, s1);
    return o;
  };
  std::set<std::string> links;
  std::vector<std::pair<double, double>> busy;  // the victim's movements, clipped to the spans
  for (const auto& m : run.data_movements) {
    if (!m.allowed || m.workload < 0 || !victims.count(static_cast<size_t>(m.workload)) || !(m.end > m.start)) continue;
    if (in_spans(m) <= 0) continue;
    links.insert(m.links.begin(), m.links.end());
    for (const auto& [s0, s1] : times)
      if (overlap(m.start, m.end, s0, s1) > 0) busy.emplace_back(std::max(m.start, s0), std::min(m.end, s1));
  }
  std::sort(busy.begin(), busy.end());
  double io_time = 0, reach = -INF;
  for (const auto& [b0, b1] : busy) {  // the union: concurrent movements count once
    if (b1 <= reach) continue;
    io_time += b1 - std::max(b0, reach);
    reach = b1;
  }
  const double whole = io_time + gpu_time + cold_time;
  std::map<std::pair<int, std::string>, double> bytes;  // (tenant, storage NAME | fabric)
  double total = 0;
  for (const auto& m : run.data_movements) {
    if (!m.allowed || m.tenant < 0 || !(m.end > m.start)) continue;
    const bool crosses =
        std::any_of(m.links.begin(), m.links.end(), [&links](const std::string& l) { return links.count(l); });
    const double o = crosses ? in_spans(m) : 0;
    if (o <= 0) continue;
    const double b = m.bytes * o / (m.end - m.start);
    const bool shared_store = !m.store.empty() && m.store != HOST_MEMORY_STORE && m.store != LOCAL_NVME_STORE;
    bytes[{m.tenant, shared_store ? "storage " + m.store : "fabric"}] += b;
    total += b;
  }
  if (!(whole > 0) || (!(total > 0) && !(cold_time > 0))) return;
  const double io_share = total > 0 ? io_time / whole : 0;
  for (auto& b : r.attribution) b.share *= gpu_time / whole;
  for (const auto& [key, b] : bytes)
    r.attribution.push_back({spec.tenants[static_cast<size_t>(key.first)].name, io_share * b / total, key.second});
  if (cold_time > 0) r.attribution.push_back({s.tenant.name, cold_time / whole, "cold start"});
  std::stable_sort(r.attribution.begin(), r.attribution.end(),
                   [](const ShareOfBlame& x, const ShareOfBlame& y) { return x.share > y.share; });
}

// "ended by a GPU fault of ...": the faulting clients whose domain ended replicas of the SLO's workloads.
std::string fault_culprits(const ScenarioSpec& spec, const SloScope& s, const Analysis& a) {
  std::string by;
  for (const auto& f : a.faults) {
    for (size_t w : s.matching) {
      const std::string mine = s.tenant.name + "/" + spec.workloads[w].name + "[";
      bool hit = false;
      for (const auto& v : f.victims) hit = hit || v.rfind(mine, 0) == 0;
      if (hit && by.find(f.tenant + "/" + f.workload) == std::string::npos)
        by += (by.empty() ? "" : ", ") + f.tenant + "/" + f.workload + " on GPU " + std::to_string(f.gpu) +
              (f.whole_node  ? " (the whole node was lost)"
               : f.whole_gpu ? " (one fault domain for the whole GPU)"
                             : "");
    }
  }
  return by;
}

// A one-line "why" a newcomer can read.
std::string explain_slo(const ScenarioSpec& spec, const SloScope& s, const SloResult& r, const Analysis& a) {
  if (r.met && r.violated == 0) return "met in every " + std::string(s.request_slo ? "window" : "job");
  // Co-tenants on its GPUs, and neighbours on the storage and fabric links it used, named apart.
  std::string who, io;
  double cold = 0;
  for (const auto& b : r.attribution) {
    if (b.via == "cold start") cold += b.share;
    if (b.who == s.tenant.name) continue;
    std::string& list = b.via == "gpu" ? who : io;
    if (!list.empty()) list += ", ";
    list += b.who + " " + fmt("%.0f%%", 100 * b.share) + (b.via == "gpu" ? "" : " (" + b.via + ")");
  }
  size_t failed = 0, killed = 0;
  for (size_t w : s.matching) failed += static_cast<size_t>(a.workloads[w].replicas_failed);
  for (size_t w : s.matching) killed += static_cast<size_t>(a.workloads[w].replicas_killed_by_faults);
  std::string text = std::to_string(r.violated) + " of " + std::to_string(r.evaluated) +
                     (s.request_slo ? " windows" : " jobs") + " violated";
  if (s.slo.mean_of_ratios)  // RatioTimeslices judges the mean share, not the windows one by one
    text = "the mean served share over the windows, " + fmt("%.2f%%", 100 * r.compliance) +
           (r.met ? ", meets" : ", misses") + " the target of " + fmt("%g%%", 100 * s.slo.target) + "; " +
           std::to_string(r.violated) + " of " + std::to_string(r.evaluated) + " windows were below it";
  if (killed > 0)
    text += "; " + std::to_string(killed) + " replica(s) ended by a GPU fault of " + fault_culprits(spec, s, a);
  if (failed > killed)
    text += "; " + std::to_string(failed - killed) + " replica(s) failed (out of memory or unplaced)";
  if (!who.empty()) text += "; co-tenants held the shared GPUs during violations: " + who;
  if (!io.empty()) text += "; neighbours' traffic on the storage and network links it used: " + io;
  if (cold > 0)
    text += "; its replicas were starting (runtime, VM boot and attestation, weight load) for " +
            fmt("%.0f%%", 100 * cold) + " of it";
  if (who.empty() && io.empty() && failed == 0)
    text += cold > 0 ? "; no co-tenant on its GPUs and no neighbour on its links: its start-up and the backlog of "
                       "requests that arrived meanwhile"
                     : "; no co-tenant on its GPUs and no neighbour on its links: its own load exceeds its capacity";
  return text;
}

SloResult evaluate_slo(const ScenarioSpec& spec, const RunResult& run, size_t t, const SloSpec& slo, const Tally& tally,
                       const Analysis& a, size_t slo_index) {
  // The windows go to the analysis' paged table as soon as they are computed; the scoring and blame read them there.
  auto& slo_windows = *a.slo_windows;
  const std::shared_ptr<const SloWindows::Table> shared_windows = a.slo_windows;
  const SloScope s = slo_scope(spec, t, slo, a.duration);
  SloResult r = slo_header(t, s);
  std::vector<SloWindow> windows;
  if (slo.kind == SloKind::LATENCY)
    latency_windows(s, tally, a.duration, r, windows);
  else if (slo.kind == SloKind::TTFT || slo.kind == SloKind::TPOT)
    token_windows(s, tally, a.duration, r, windows);
  else if (slo.kind == SloKind::AVAILABILITY)
    availability_windows(s, tally, a.duration, r, windows);
  else if (slo.kind == SloKind::THROUGHPUT)
    throughput_windows(s, tally, a.duration, r, windows);
  else
    job_windows(s, tally, a.duration, r, windows);
  for (const auto& w : windows) slo_windows.add(slo_index, {w.start, w.value, static_cast<uint8_t>(w.violated)});
  std::vector<SloWindow>().swap(windows);
  r.windows = SloWindows(shared_windows, slo_index);
  score_slo(s, r);
  const auto spans = violation_spans(s, r, tally, a, run.end_time);
  const double gpu_time = attribute(spans, spec, tally, r);
  attribute_io(spans, spec, run, s, gpu_time, cold_start_time(spans, s, a, tally), r);
  r.explanation = explain_slo(spec, s, r, a);
  return r;
}

void evaluate_slos(const ScenarioSpec& spec, const RunResult& run, const Tally& tally, Analysis& a) {
  size_t n_slos = 0;
  for (const auto& tenant : spec.tenants) n_slos += tenant.slos.size();
  a.slo_windows =
      std::make_shared<SloWindows::Table>(n_slos, analysis_spill_budget(SLO_WINDOWS_BUDGET), "gputwin-slo-windows");
  for (size_t t = 0; t < spec.tenants.size(); ++t) {
    for (const auto& slo : spec.tenants[t].slos) {
      SloResult r = evaluate_slo(spec, run, t, slo, tally, a, a.slos.size());
      if (!r.met) ++a.tenants[t].slos_missed;
      ++a.tenants[t].slos;
      if (!r.met) ++a.slos_missed;
      a.slos.push_back(std::move(r));
    }
  }
}

}  // namespace

double timeline_step(double duration) {
  if (!(duration > 0)) return 1;
  const double raw = duration / 60;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw * (1 - 1e-9)) return m * decade;
  return 10 * decade;
}

std::vector<PlacementResult> placement_results(const RunIndex& index) {
  std::vector<PlacementResult> out;
  for (const auto& s : index.stays()) {
    PlacementResult p{s.workload, s.tenant, s.replica, s.gpu, s.start, -1.0, ""};
    if (s.how == StayEnd::DONE) {
      p.end = s.end;
      p.end_reason = "done";
    } else if (s.how == StayEnd::FAILED) {
      p.end = s.end;
      p.end_reason = failure_reason_name(s.reason);
    }
    out.push_back(std::move(p));
  }
  return out;
}

void chargeback(const RunResult& run, double end, Analysis& a) {
  // Each stay of a replica on a device, at the share of a physical GPU its slot is.
  for (const auto& pl : a.placements) {
    if (pl.tenant < 0 || pl.gpu < 0) continue;
    const auto& layout = run.gpus[static_cast<size_t>(pl.gpu)];
    const double hours = std::max(0.0, (pl.end >= 0 ? pl.end : end) - pl.start) / 3600.0 * layout.share;
    auto& tr = a.tenants[static_cast<size_t>(pl.tenant)];
    tr.allocated_gpu_hours[layout.mig_profile.empty() ? std::string(sharing_mode_name(layout.sharing))
                                                      : "mig " + layout.mig_profile] += hours;
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
}

// Continuous-batching replicas: their engines' lives summed per workload, and the goodput: the share of
// the requests that arrived in the run meeting every ttft and tpot SLO the tenant sets on the workload.
void serving_results(const ScenarioSpec& spec, const RunResult& run, const Tally& t, Analysis& a) {
  std::vector<double> block_seconds(spec.workloads.size(), 0.0), capacity_seconds(spec.workloads.size(), 0.0);
  for (const auto& life : run.serving) {
    if (life.workload < 0 || static_cast<size_t>(life.workload) >= a.workloads.size()) continue;
    auto& s = a.workloads[static_cast<size_t>(life.workload)].serving;
    ++s.replicas;
    s.prefill_tokens += life.prefill_tokens;
    s.generated_tokens += life.generated_tokens;
    s.steps += life.steps;
    s.plans += life.plans;
    s.preemptions += life.preemptions;
    block_seconds[static_cast<size_t>(life.workload)] += life.block_seconds;
    capacity_seconds[static_cast<size_t>(life.workload)] +=
        static_cast<double>(life.kv_blocks) * std::max(0.0, life.end - life.start);
    if (life.kv_blocks > 0)
      s.kv_peak = std::max(s.kv_peak, static_cast<double>(life.peak_blocks) / static_cast<double>(life.kv_blocks));
  }
  for (size_t w = 0; w < a.workloads.size(); ++w) {
    auto& s = a.workloads[w].serving;
    if (s.replicas == 0) continue;
    s.output_tokens_per_s = a.duration > 0 ? s.generated_tokens / a.duration : 0;
    s.kv_utilisation = capacity_seconds[w] > 0 ? block_seconds[w] / capacity_seconds[w] : 0;
    const auto& ws = spec.workloads[w];
    std::vector<const SloSpec*> bounds;
    for (const auto& slo : spec.tenants[static_cast<size_t>(ws.tenant_index)].slos)
      if ((slo.kind == SloKind::TTFT || slo.kind == SloKind::TPOT) && (slo.workload.empty() || slo.workload == ws.name))
        bounds.push_back(&slo);
    if (bounds.empty()) continue;
    double arrived = 0, good = 0;
    t.requests.for_each(w, [&](const RequestRecord& o) {
      const double arrival = o.arrival();
      if (arrival < 0 || arrival >= a.duration) return;
      arrived += 1;
      bool ok = true;
      for (const SloSpec* b : bounds) ok = ok && ((b->kind == SloKind::TTFT ? o.ttft : o.tpot) <= b->threshold.value);
      good += ok;
    });
    s.goodput = arrived > 0 ? good / arrived : 1.0;
  }
}

Analysis analyse(const ScenarioSpec& spec, const RunResult& run) {
  return analyse(spec, run, RunIndex(spec, run));
}

Analysis analyse(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index) {
  Analysis a = skeleton(spec, run);
  Tally tally = tally_events(spec, run, index, a);
  record_placements(index, a, tally);
  summarise_workloads(a, tally);
  serving_results(spec, run, tally, a);
  gpu_utilisation(run, tally, a);
  tenant_results(spec, a);
  evaluate_slos(spec, run, tally, a);
  a.boundaries = isolation_boundaries(spec, run, index);
  double end = spec.duration.value;
  for (const auto& e : run.log.events())
    if (e.type == EventType::RUN_END) end = e.time;
  a.quotas = analyse_quotas(spec, run.log, end);
  chargeback(run, end, a);
  return a;
}

SloWindows SloWindows::hold(const std::vector<SloWindow>& windows) {
  auto table = std::make_shared<Table>(1);
  for (const auto& w : windows) table->add(0, {w.start, w.value, static_cast<uint8_t>(w.violated)});
  return SloWindows(std::move(table), 0);
}

SloWindow SloWindows::operator[](size_t i) const {
  if (i >= size()) throw std::out_of_range("SLO window " + std::to_string(i) + " of " + std::to_string(size()));
  const auto at = table_->from_position(owner_, i);
  return {at->start, at->value, at->violated != 0};
}

}  // namespace gtw
