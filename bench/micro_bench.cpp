// gputwin-micro-bench: Google Benchmark micro-benchmarks of the engine-independent hot paths (event log,
// analysis, report writers, arrival generators, scenario loader, placement decisions) and a bare event-loop
// baseline.
//
//   gputwin-micro-bench [--benchmark_filter=REGEX] [google benchmark flags]
//
// The analysis and writer benchmarks run over a synthetic log of 1 M events shaped like a real run of
// scenarios/examples/default.yaml (~94% time-slice CONTEXT_SWITCH + GPU_BUSY, ~4% requests, the rest
// batches, steps and jobs; a real 10-minute run has 91% and 7%). Set GTW_BENCH_SCENARIO=FILE to also
// time the loader on another file (e.g. a 1,024-GPU scenario from gputwin-bench-gen).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "Analysis.hpp"
#include "Arrivals.hpp"
#include "Loader.hpp"
#include "Placement.hpp"
#include "Rng.hpp"
#include "Writers.hpp"

#ifndef GTW_SOURCE_DIR
#define GTW_SOURCE_DIR "."
#endif

namespace {

using namespace gtw;

constexpr size_t SYNTHETIC_EVENTS = 1000000;

std::string default_scenario_path() {
  return std::string(GTW_SOURCE_DIR) + "/scenarios/examples/default.yaml";
}

ScenarioSpec load_or_throw(const std::string& path) {
  Diagnostics diags;
  ScenarioSpec spec = load_scenario(path, {}, diags);
  if (diags.has_errors()) throw std::runtime_error("cannot load " + path + ":\n" + diags.format_all());
  return spec;
}

int workload_index(const ScenarioSpec& spec, const std::string& name) {
  for (size_t i = 0; i < spec.workloads.size(); ++i)
    if (spec.workloads[i].name == name) return static_cast<int>(i);
  throw std::runtime_error("default.yaml has no workload " + name);
}

// A run of default.yaml, made up: 8 GPUs (0-5 exclusive, 6-7 time-sliced x2), the fine-tune on 0-3,
// chat on 4-7, etl on 6-7. Time-sliced GPUs alternate 2 ms slices during "bursts" whose share of time
// is chosen so that the log holds about `target` events.
struct SyntheticRun {
  ScenarioSpec spec;
  RunResult run;
};

SyntheticRun make_synthetic_run(size_t target) {
  SyntheticRun s;
  s.spec = load_or_throw(default_scenario_path());
  const auto& spec = s.spec;
  auto& run = s.run;
  const double duration = spec.duration.value;
  const double end = duration + std::max(30.0, 0.25 * duration);
  const int chat = spec.tenant_index("chat"), research = spec.tenant_index("research"),
            analytics = spec.tenant_index("analytics");
  const int w_train = workload_index(spec, "finetune"), w_chat = workload_index(spec, "chat-svc"),
            w_etl = workload_index(spec, "etl-jobs");

  for (int g = 0; g < 8; ++g) {
    GpuLayout l;
    l.index = g;
    l.node = 0;
    l.local = g;
    l.node_name = "hgx-0";
    l.pool = "hgx";
    l.product = "H100-80GB-SXM";
    l.sharing = g < 6 ? SharingMode::EXCLUSIVE : SharingMode::TIME_SLICING;
    l.slots = g < 6 ? 1 : 2;
    l.memory = 80e9;
    run.gpus.push_back(l);
  }

  std::vector<Event> ev;
  ev.reserve(target + target / 8);
  auto emit = [&ev](double t, EventType type, int tenant, int workload, int replica, int gpu, double value = 0,
                    double aux = 0) {
    ev.push_back(Event{t, 0, type, tenant, workload, replica, gpu, value, aux});
  };
  emit(0, EventType::RUN_START, -1, -1, -1, -1, duration);
  for (int g = 0; g < 4; ++g) emit(0, EventType::PLACED, research, w_train, 0, g, 60e9);
  for (int r = 0; r < 4; ++r) emit(0, EventType::PLACED, chat, w_chat, r, 4 + r, 20.8e9);
  for (int r = 0; r < 2; ++r) emit(0, EventType::PLACED, analytics, w_etl, r, 6 + r, 32e9);

  // Fine-tune: 800 steps of 0.648 s on GPUs 0-3.
  const double step = 0.648, ideal = 800 * step;
  emit(0, EventType::JOB_SUBMIT, research, w_train, 0, 0);
  emit(0, EventType::JOB_START, research, w_train, 0, 0, 0, ideal);
  for (int k = 0; k < 800; ++k) {
    const double t0 = k * step;
    for (int g = 0; g < 4; ++g) emit(t0 + 0.586, EventType::GPU_BUSY, research, w_train, 0, g, 0, t0 + 0.008);
    emit(t0 + step, EventType::STEP_DONE, research, w_train, k, 0, step);
  }
  emit(ideal, EventType::JOB_DONE, research, w_train, 0, 0, ideal, ideal);

  // Chat: Poisson 30/s, latency 0.3 s + exp(mean 0.6 s), batches of ~0.9 s per replica.
  RngStream rng = make_stream(spec.seed, "synthetic");
  int n = 0;
  for (double t = rng.exponential(30); t < duration; t += rng.exponential(30), ++n) {
    const int r = n % 4;
    const double latency = 0.3 + rng.exponential(1 / 0.6);
    emit(t, EventType::REQUEST_ARRIVAL, chat, w_chat, r, 4 + r, 3);
    emit(t + latency, EventType::REQUEST_DONE, chat, w_chat, r, 4 + r, latency, 0.3 * latency);
  }
  for (int r = 0; r < 4; ++r) {
    for (double t = 0.01 * r; t + 0.9 < end; t += 0.9) {
      emit(t, EventType::BATCH_START, chat, w_chat, r, 4 + r, 7);
      emit(t + 0.9, EventType::BATCH_DONE, chat, w_chat, r, 4 + r, 0.9);
      if (r < 2) emit(t + 0.9, EventType::GPU_BUSY, chat, w_chat, r, 4 + r, 0, t);
    }
  }

  // Time slicing on GPUs 6-7: 20 s cycles, contended for a share `busy` of each cycle.
  const double quantum = 0.002, cost = 50e-6, cycle = 20;
  const double per_contended_second = 2 * 2 / (quantum + cost);  // two GPUs, switch + busy per slice
  const double budget = static_cast<double>(target) - static_cast<double>(ev.size());
  const double busy = std::clamp(budget / per_contended_second / end, 0.0, 1.0);
  for (double c0 = 0; c0 < end; c0 += cycle) {
    const double b1 = std::min(end, c0 + busy * cycle);
    for (int g = 6; g < 8; ++g) {
      int turn = 0;
      for (double t = c0; t + quantum + cost < b1; t += quantum + cost, ++turn) {
        const bool is_chat = (turn + g) % 2 == 0;
        const int tenant = is_chat ? chat : analytics, workload = is_chat ? w_chat : w_etl;
        emit(t + cost, EventType::CONTEXT_SWITCH, tenant, workload, g - 6, g, cost);
        emit(t + cost + quantum, EventType::GPU_BUSY, tenant, workload, g - 6, g, 0, t + cost);
      }
      // Chat alone for the rest of the cycle: one long busy interval.
      if (b1 < c0 + cycle && b1 < end)
        emit(std::min(end, c0 + cycle), EventType::GPU_BUSY, chat, w_chat, g - 6, g, 0, b1);
    }
    // One etl job per second of contention.
    for (double t = c0; t < b1 && t < duration; t += 1.0) {
      const int id = static_cast<int>(t);
      emit(t, EventType::JOB_SUBMIT, analytics, w_etl, id, -1);
      emit(t, EventType::JOB_START, analytics, w_etl, id, 6 + id % 2, 0, 1.44);
      emit(std::min(end, t + 3.0), EventType::JOB_DONE, analytics, w_etl, id, 6 + id % 2, 3.0, 1.44);
    }
  }
  emit(end, EventType::RUN_END, -1, -1, -1, -1);

  std::stable_sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
  for (const auto& e : ev) run.log.append(e);
  run.arrivals_end = duration;
  run.end_time = end;
  run.seed = spec.seed;
  for (const auto& e : ev) {
    if (e.type == EventType::CONTEXT_SWITCH) ++run.counters.context_switches;
    if (e.type == EventType::STEP_DONE || e.type == EventType::BATCH_DONE) ++run.counters.kernels;
  }
  return s;
}

// Built once, on first use: the benchmarks below share it.
const SyntheticRun& synthetic() {
  static const SyntheticRun s = make_synthetic_run(SYNTHETIC_EVENTS);
  return s;
}

const Analysis& synthetic_analysis() {
  static const Analysis a = analyse(synthetic().spec, synthetic().run);
  return a;
}

Provenance bench_provenance() {
  Provenance p;
  p.gputwin_version = "bench";
  p.simgrid_version = "3.32.0";
  p.command_line = "gputwin-micro-bench";
  p.host = "bench";
  p.started_utc = "1970-01-01T00:00:00Z";
  return p;
}

// ---------------------------------------------------------------- event log

// Appends 1 M events to a fresh log per iteration (block allocation included, as in a run).
void BM_EventLogAppend(benchmark::State& state) {
  constexpr size_t N = 1000000;
  for (auto _ : state) {
    EventLog log;
    for (size_t i = 0; i < N; ++i)
      log.append(Event{static_cast<double>(i) * 1e-3, 0, EventType::GPU_BUSY, 1, 2, 0, static_cast<int32_t>(i & 7), 0.0,
                       static_cast<double>(i) * 1e-3 - 0.002});
    benchmark::DoNotOptimize(log.size());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * N));
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * N), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventLogAppend)->Unit(benchmark::kMillisecond);

// One pass over a log of 4 M events (61 blocks), all in memory (arg 1) or all spilled to the temporary file
// but the tail (arg 0): what each analysis pass costs once a long run's log is on disk.
void BM_EventLogScan(benchmark::State& state) {
  constexpr size_t N = 4000000;
  EventLog log(state.range(0) == 1 ? SIZE_MAX : 0);
  for (size_t i = 0; i < N; ++i)
    log.append(
        Event{static_cast<double>(i) * 1e-3, 0, EventType::GPU_BUSY, 1, 2, 0, static_cast<int32_t>(i & 7), 0.0, 1.0});
  for (auto _ : state) {
    double sum = 0;
    for (const Event& e : log.events()) sum += e.aux;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * N));
  state.counters["spilled_blocks"] = static_cast<double>(log.spilled_blocks());
}
BENCHMARK(BM_EventLogScan)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- analysis and writers

void BM_Analyse(benchmark::State& state) {
  const auto& s = synthetic();
  for (auto _ : state) {
    Analysis a = analyse(s.spec, s.run);
    benchmark::DoNotOptimize(a.slos.data());
  }
  const auto n = static_cast<int64_t>(s.run.log.size());
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["log_events"] = static_cast<double>(n);
}
BENCHMARK(BM_Analyse)->Unit(benchmark::kMillisecond);

void BM_ReportJson(benchmark::State& state) {
  const auto& s = synthetic();
  const auto& a = synthetic_analysis();
  const Provenance p = bench_provenance();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = report_json(s.spec, s.run, a, p);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ReportJson)->Unit(benchmark::kMillisecond);

void BM_ReportMarkdown(benchmark::State& state) {
  const auto& s = synthetic();
  const auto& a = synthetic_analysis();
  for (auto _ : state) {
    std::string text = report_markdown(s.spec, s.run, a);
    benchmark::DoNotOptimize(text.data());
  }
}
BENCHMARK(BM_ReportMarkdown)->Unit(benchmark::kMillisecond);

// results.h5 holds the whole log (chunked, shuffle + deflate): the writer cost that grows with events.
void BM_ResultsH5(benchmark::State& state) {
  const auto& s = synthetic();
  const auto& a = synthetic_analysis();
  const Provenance p = bench_provenance();
  const auto dir = std::filesystem::temp_directory_path() / ("gtw-micro-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "results.h5").string();
  for (auto _ : state) write_results_h5(path, s.spec, s.run, a, p);
  state.counters["file_mb"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove_all(dir);
  const auto n = static_cast<int64_t>(s.run.log.size());
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_ResultsH5)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- arrivals

void arrivals_bench(benchmark::State& state, const ArrivalSpec& spec) {
  ArrivalGenerator gen(spec, make_stream(1, "arrivals/bench"), 0);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
  state.SetItemsProcessed(state.iterations());
}

void BM_ArrivalsPoisson(benchmark::State& state) {
  ArrivalSpec a;
  a.process = ArrivalProcess::POISSON;
  a.rate = PerSecond(30);
  arrivals_bench(state, a);
}
BENCHMARK(BM_ArrivalsPoisson);

void BM_ArrivalsBursty(benchmark::State& state) {
  ArrivalSpec a;
  a.process = ArrivalProcess::BURSTY;
  a.rate = PerSecond(0);
  a.burst_rate = PerSecond(2);
  a.mean_burst = Seconds(5);
  a.mean_gap = Seconds(15);
  arrivals_bench(state, a);
}
BENCHMARK(BM_ArrivalsBursty);

void BM_ArrivalsConstant(benchmark::State& state) {
  ArrivalSpec a;
  a.process = ArrivalProcess::CONSTANT;
  a.rate = PerSecond(100);
  arrivals_bench(state, a);
}
BENCHMARK(BM_ArrivalsConstant);

// ---------------------------------------------------------------- scenario loader

void load_bench(benchmark::State& state, const std::string& path) {
  for (auto _ : state) {
    Diagnostics diags;
    ScenarioSpec spec = load_scenario(path, {}, diags);
    if (diags.has_errors()) {
      state.SkipWithError(("cannot load " + path).c_str());
      break;
    }
    benchmark::DoNotOptimize(spec.workloads.data());
  }
}

void BM_LoadScenarioDefault(benchmark::State& state) {
  load_bench(state, default_scenario_path());
}
BENCHMARK(BM_LoadScenarioDefault)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------- placement decisions

// One decision of a built-in placement policy on a cluster shaped like gputwin-bench-gen's: nodes of 8 GPUs,
// GPUs 0-3 exclusive, 4-7 time-sliced 2 ways, a seeded half of the slots in use. Per decision, so the cost
// a simulated day of a million jobs pays per placement reads directly (docs/PERFORMANCE.md, "Placement").
// `indexed`: the engine's view with its device index (every policy here ranks its nodes there);
// each decision is then followed by the index updates of a placement and of its release, as in a run.
void BM_Placement(benchmark::State& state, const std::string& policy_name, int gpus_per_request, bool indexed) {
  const int gpus = static_cast<int>(state.range(0));
  policy::ClusterView view;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < gpus; ++i) {
    policy::GpuView g;
    g.index = i;
    g.node = i / 8;
    g.local = i % 8;
    g.physical = i;
    g.pool_name = "hgx";
    g.mode = g.local < 4 ? SharingMode::EXCLUSIVE : SharingMode::TIME_SLICING;
    g.slots = g.local < 4 ? 1 : 2;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    g.used_slots = static_cast<int>(x % static_cast<uint64_t>(g.slots + 1)) / 2 * g.slots;
    for (int k = 0; k < g.used_slots; ++k) g.tenants.push_back(static_cast<int>((x >> (8 * k)) % 4));
    g.memory_total = 80e9;
    view.gpus.push_back(g);
  }
  const auto policy = policy::builtin_placement_registry().create(policy_name, {});
  policy::PlacementRequest request;
  request.gpus = gpus_per_request;
  request.memory = 16e9;
  request.tenant = 1;
  if (indexed && !view.build_index()) throw std::runtime_error("the benchmark view cannot be indexed");
  for (auto _ : state) {
    const auto chosen = policy->place(request, view);
    benchmark::DoNotOptimize(chosen);
    if (!indexed || !chosen) continue;
    for (int g : *chosen) {
      auto& device = view.gpus[static_cast<size_t>(g)];
      device.used_slots += 1;
      device.tenants.push_back(request.tenant);
      view.changed(static_cast<size_t>(g));
      device.used_slots -= 1;
      device.tenants.pop_back();
      view.changed(static_cast<size_t>(g));
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_Placement, spread_1gpu, std::string("spread"), 1, false)->Arg(128)->Arg(1024)->Arg(10000);
BENCHMARK_CAPTURE(BM_Placement, spread_4gpu, std::string("spread"), 4, false)->Arg(128)->Arg(1024)->Arg(10000);
BENCHMARK_CAPTURE(BM_Placement, tightest_1gpu, std::string("tightest-fit"), 1, false)->Arg(128)->Arg(1024)->Arg(10000);
BENCHMARK_CAPTURE(BM_Placement, first_fit_1gpu, std::string("first-fit"), 1, false)->Arg(128)->Arg(1024)->Arg(10000);
BENCHMARK_CAPTURE(BM_Placement, anti_affinity_1gpu, std::string("tenant-anti-affinity"), 1, false)
    ->Arg(128)
    ->Arg(1024)
    ->Arg(10000);
BENCHMARK_CAPTURE(BM_Placement, classification_1gpu, std::string("classification-aware"), 1, false)
    ->Arg(128)
    ->Arg(1024)
    ->Arg(10000);
// The indexed rows also at 100,000 GPUs, where a pass over the view is not worth timing.
void indexed_sizes(benchmark::internal::Benchmark* b) {
  for (int gpus : {128, 1024, 10000, 100000}) b->Arg(gpus);
}
BENCHMARK_CAPTURE(BM_Placement, spread_1gpu_indexed, std::string("spread"), 1, true)->Apply(indexed_sizes);
BENCHMARK_CAPTURE(BM_Placement, spread_4gpu_indexed, std::string("spread"), 4, true)->Apply(indexed_sizes);
BENCHMARK_CAPTURE(BM_Placement, tightest_1gpu_indexed, std::string("tightest-fit"), 1, true)->Apply(indexed_sizes);
BENCHMARK_CAPTURE(BM_Placement, first_fit_1gpu_indexed, std::string("first-fit"), 1, true)->Apply(indexed_sizes);
BENCHMARK_CAPTURE(BM_Placement, anti_affinity_1gpu_indexed, std::string("tenant-anti-affinity"), 1, true)
    ->Apply(indexed_sizes);
BENCHMARK_CAPTURE(BM_Placement, classification_1gpu_indexed, std::string("classification-aware"), 1, true)
    ->Apply(indexed_sizes);

// ---------------------------------------------------------------- bare event loop

// The cheapest possible discrete-event core: a binary heap of (time, entity); each event pops the
// earliest entity and reschedules it a pseudo-random delay later. What SimGrid and gputwin are compared to.
void BM_BareEventLoop(benchmark::State& state) {
  using Item = std::pair<double, uint32_t>;
  const auto entities = static_cast<uint32_t>(state.range(0));
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  auto delay = [&x] {  // xorshift64: cheap, so the heap dominates
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return 1e-3 * static_cast<double>(x >> 11) * 0x1.0p-53;
  };
  for (uint32_t i = 0; i < entities; ++i) queue.emplace(delay(), i);
  for (auto _ : state) {
    const Item top = queue.top();
    queue.pop();
    queue.emplace(top.first + delay(), top.second);
  }
  benchmark::DoNotOptimize(queue.top());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BareEventLoop)->ArgName("entities")->Arg(1)->Arg(1000)->Arg(10000)->Arg(100000);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (const char* extra = std::getenv("GTW_BENCH_SCENARIO"); extra && *extra) {
    const std::string path = extra;
    benchmark::RegisterBenchmark("BM_LoadScenarioFile", [path](benchmark::State& s) {
      load_bench(s, path);
    })->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
