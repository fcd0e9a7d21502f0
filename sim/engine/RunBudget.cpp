#include "RunBudget.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <utility>

#include "HardwareProfile.hpp"
#include "Units.hpp"

namespace gtw {

namespace {

// Per-item costs, upper bounds read off the event types (sim/core/EventLog.hpp): a request is an
// arrival and a completion plus, at worst one per request, a batch start, end and GPU-busy interval;
// an iteration a step and a busy interval per GPU; a job submit, start, end and a busy interval per kernel.
constexpr double EVENTS_PER_REQUEST = 5;
// A covert channel's rate search (bitRate: auto): trials expected (half-octave rungs, docs/models/leakage.md).
constexpr double SEARCH_TRIALS_EXPECTED = 6;
// A slice's GPU_BUSY interval and its CONTEXT_SWITCH (`--trace detailed`); the default folded log has one GPU_SLICE
// for both (a switch that opens no slice is one event too).
constexpr double EVENTS_PER_SLICE_DETAILED = 2;
constexpr double EVENTS_PER_SLICE_FOLDED = 1;
// The log itself spills to a temporary file past its first million events (sim/core/EventLog.hpp); what stays
// per event is the analysis' arrays (busy intervals, request latencies) and the leakage analysis' intervals, at
// most ~40 bytes when every event is a busy interval (28-53 bytes all told measured on the day load,
// docs/PERFORMANCE.md): 100 is an upper bound with margin.
constexpr double BYTES_PER_EVENT = 100;
constexpr double BYTES_PER_GPU = 64 * 1024;             // platform hosts, links, device state
constexpr double RESIDENT_BYTES_PER_ACTOR = 64 * 1024;  // the touched part of each stack, actor state
constexpr double BASE_BYTES = 64.0 * (1 << 20);         // the process, SimGrid, the loaded scenario

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 1e6 ? "%.0f" : "%.2g", v);
  return buf;
}

// Mean arrival rate of an arrival process over the run (requests or jobs per second).
double mean_rate(const ArrivalSpec& a, double seconds) {
  switch (a.process) {
    case ArrivalProcess::BURSTY: {
      const double cycle = a.mean_burst.value + a.mean_gap.value;
      return cycle > 0 ? (a.rate.value * a.mean_gap.value + a.burst_rate.value * a.mean_burst.value) / cycle
                       : a.rate.value;
    }
    case ArrivalProcess::TRACE: {
      if (!a.trace || seconds <= 0) return 0;
      const double speedup = a.speedup > 0 ? a.speedup : 1;
      size_t in_run = 0;
      for (const auto& r : a.trace->requests)
        if ((r.time - a.trace_offset.value) / speedup <= seconds) ++in_run;
      return static_cast<double>(in_run) / seconds;
    }
    default:  // POISSON, CONSTANT; DIURNAL at its peak rate (an upper bound for runs shorter than a period)
      return a.rate.value * (a.process == ArrivalProcess::DIURNAL ? 1 + a.amplitude : 1);
  }
}

// Time-sliced devices of one GPU: the GPU itself (time-slicing, vGPU), or its MIG instances that migReplicas shares.
double sliced_devices(const SharingSpec& s) {
  if (s.mode == SharingMode::TIME_SLICING || s.mode == SharingMode::VGPU) return 1;
  if (s.mode != SharingMode::MIG) return 0;
  double n = 0;
  for (const auto& profile : s.mig_layout) n += s.instance_replicas(profile) > 1 ? 1 : 0;
  return n;
}

// Context switches of one GPU's time-sliced devices: one per slice at most.
double slices(const SharingSpec& s, double seconds) {
  return s.time_slice.value > 0 ? sliced_devices(s) * seconds / s.time_slice.value : 0;
}

bool may_time_slice(const WorkloadSpec& w) {
  if (w.allowed_sharing.empty()) return true;
  return std::any_of(w.allowed_sharing.begin(), w.allowed_sharing.end(), [](SharingMode m) {
    return m == SharingMode::TIME_SLICING || m == SharingMode::VGPU || m == SharingMode::MIG;
  });
}

// The slowest whole GPU among the time-sliced pools: {FP16 FLOP/s, HBM B/s, vGPU slots per GPU (a strict vGPU
// scheduler gives every slot its quantum, used or not)}; nullopt when a pool's profile does not load or its
// sliced devices are MIG instances (slower than the GPU by an instance's share).
struct SlicedSpeed {
  double flops = 0, bytes = 0, slots = 1;
  int sms = 1;  // the most SMs of one GPU: a small kernel grid is slowest there against the GPU's rate
};
std::optional<SlicedSpeed> slowest_sliced_gpu(const ScenarioSpec& spec) {
  SlicedSpeed out;
  bool any = false;
  const auto consider = [&](const NodePoolSpec& pool, const SharingSpec& s) {
    if (sliced_devices(s) <= 0) return true;
    if (s.mode == SharingMode::MIG) return false;
    HardwareProfile p;
    Diagnostics quiet;
    if (!load_profile(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key, {}, "", p, quiet)) return false;
    const double flops = p.achievable_rate(DType::FP16).value, bytes = p.hbm_achievable.value;
    out.flops = any ? std::min(out.flops, flops) : flops;
    out.sms = std::max(out.sms, p.sms);
    out.bytes = any ? std::min(out.bytes, bytes) : bytes;
    if (s.mode == SharingMode::VGPU) out.slots = std::max(out.slots, static_cast<double>(std::max(1, s.replicas)));
    any = true;
    return true;
  };
  for (const auto& pool : spec.node_pools) {
    if (!consider(pool, pool.sharing)) return std::nullopt;
    for (const auto& o : pool.gpu_sharing)
      if (!consider(pool, o.sharing)) return std::nullopt;
  }
  if (!any || !(out.flops > 0) || !(out.bytes > 0)) return std::nullopt;
  return out;
}

// A bound on the context switches the time-sliced devices can make from the work that may run on them: a
// switch ends a quantum of work or follows a context running out of work, so there are at most (GPU time of
// that work) / quantum + (its kernels, batches and steps) of them, times the slots of a strict vGPU scheduler.
// The GPU time is the work's roofline on the slowest sliced GPU without batching (batching only shortens it).
// nullopt when the work cannot be bounded (an attacker's probes, MIG instances, an unknown profile).
std::optional<double> slices_from_work(const ScenarioSpec& spec, double seconds) {
  const auto speed = slowest_sliced_gpu(spec);
  if (!speed) return std::nullopt;
  const auto roofline = [&](double flops, double bytes) {
    return std::max(flops / speed->flops, bytes / speed->bytes);
  };
  const auto grid_roofline = [&](const KernelSpec& k) {  // on the SMs the kernel's grid occupies
    const double flops = k.blocks > 0 ? k.flops.value * speed->sms / k.grid_sms(speed->sms) : k.flops.value;
    return roofline(flops, k.bytes.value);
  };
  double gpu_seconds = 0, items = 0, quantum = 0;
  const auto shortest = [&](const SharingSpec& s) {  // the smallest quantum of the sliced devices
    if (sliced_devices(s) > 0 && s.time_slice.value > 0)
      quantum = quantum > 0 ? std::min(quantum, s.time_slice.value) : s.time_slice.value;
  };
  for (const auto& pool : spec.node_pools) {
    shortest(pool.sharing);
    for (const auto& o : pool.gpu_sharing) shortest(o.sharing);
  }
  if (!(quantum > 0)) return std::nullopt;
  for (const auto& w : spec.workloads) {
    if (!may_time_slice(w)) continue;
    const double active = std::max(0.0, seconds - w.start.value);
    switch (w.kind) {
      case WorkloadKind::INFERENCE: {
        const double requests = mean_rate(w.arrival, active) * active;
        const double weights = w.model.weights().value, params = w.model.parameters;
        const double prompt = w.prompt_tokens, output = w.output_tokens;
        gpu_seconds += requests * (roofline(2 * params * prompt, weights) + output * roofline(2 * params, weights));
        items += requests * (1 + output);  // a batch, or a continuous-batching step per token
        break;
      }
      case WorkloadKind::TRAINING: {
        const double steps = std::max(1, w.replicas) * std::max(0, w.iterations) * std::max(1, w.gpus);
        gpu_seconds += steps * grid_roofline(w.step);
        items += steps;
        break;
      }
      case WorkloadKind::BATCH: {
        const double kernels = mean_rate(w.arrival, active) * active * std::max(1, w.kernels_per_job);
        gpu_seconds += kernels * grid_roofline(w.kernel);
        items += kernels;
        break;
      }
      case WorkloadKind::ATTACK:
        return std::nullopt;
    }
  }
  return speed->slots * (gpu_seconds / quantum + items);
}

}  // namespace

RunEstimate estimate_run(const ScenarioSpec& spec, bool detailed_trace) {
  RunEstimate e;
  const double events_per_slice = detailed_trace ? EVENTS_PER_SLICE_DETAILED : EVENTS_PER_SLICE_FOLDED;
  const double seconds = std::max(0.0, spec.duration.value);
  std::vector<std::pair<double, std::string>> parts;  // events by contributor
  const auto add = [&](double events, std::string what) {
    if (!(events > 0)) return;
    e.events += events;
    parts.emplace_back(events, std::move(what));
  };
  double gpus = 0, sliced_gpus = 0, device_slices = 0;
  for (const auto& pool : spec.node_pools) {
    const double n = static_cast<double>(pool.count) * pool.gpus_per_node;
    gpus += n;
    // Per-GPU exceptions change the mode of some GPUs; bound by counting the pool's mode for all of them
    // and every exception's mode for its GPUs on top.
    double pool_slices = n * slices(pool.sharing, seconds);
    double pool_sliced = n * sliced_devices(pool.sharing);
    for (const auto& o : pool.gpu_sharing) {
      const double m = static_cast<double>(pool.count) * static_cast<double>(o.gpus.size());
      pool_slices += m * slices(o.sharing, seconds);
      pool_sliced += m * sliced_devices(o.sharing);
    }
    sliced_gpus += pool_sliced;
    device_slices += pool_slices;
  }
  // Each slice logs one event (two in the detailed log: the slice and the switch that opened it). At most one slice
  // per quantum of every sliced device, and at most what the work that may run there can cause.
  double slices = device_slices;
  if (const auto from_work = slices > 0 ? slices_from_work(spec, seconds) : std::nullopt)
    slices = std::min(slices, *from_work);
  add(events_per_slice * slices, number(slices) + " time slices");
  e.slice_events = slices > 0 ? events_per_slice * slices : 0;
  e.actors = 8 + sliced_gpus;
  for (const auto& w : spec.workloads) {
    const double active = std::max(0.0, seconds - w.start.value);
    const double replicas = std::max(1, w.replicas);
    switch (w.kind) {
      case WorkloadKind::INFERENCE: {
        const double requests = mean_rate(w.arrival, active) * active;
        add(requests * EVENTS_PER_REQUEST, w.name + ": " + number(requests) + " requests");
        e.actors += 1 + replicas;
        break;
      }
      case WorkloadKind::TRAINING: {
        const double steps = replicas * std::max(0, w.iterations);
        add(steps * (2 + std::max(1, w.gpus)), w.name + ": " + number(steps) + " training steps");
        e.actors += replicas;
        break;
      }
      case WorkloadKind::BATCH: {
        const double jobs = mean_rate(w.arrival, active) * active;
        add(jobs * (3 + std::max(1, w.kernels_per_job)), w.name + ": " + number(jobs) + " batch jobs");
        e.actors += 1 + replicas;
        break;
      }
      case WorkloadKind::ATTACK: {
        const auto& a = w.attack;
        double probes = 0;
        if (a.type == AttackType::COVERT_CHANNEL) probes = 4.0 * (a.bits + a.preamble);
        // bitRate auto: the rate search's trials, typically a few half-octave rungs (at most 21).
        if (a.type == AttackType::COVERT_CHANNEL && a.adaptive_rate)
          probes += 4.0 * SEARCH_TRIALS_EXPECTED * (a.training_bits + a.preamble);
        if ((a.type == AttackType::PRIME_PROBE || a.type == AttackType::MODEL_EXTRACTION) && a.probe_interval.value > 0)
          probes = active / a.probe_interval.value;
        if (a.type == AttackType::QUERY_EXTRACTION) probes = 2.0 * a.queries;
        if (a.type == AttackType::REMANENCE_SCRAPE && a.interval.value > 0) probes = active / a.interval.value;
        add(probes, w.name + ": " + number(probes) + " attack probes");
        e.actors += 2;
        break;
      }
    }
  }
  for (const auto& t : spec.tenants) {
    for (const auto& s : t.slos) {
      const double window = s.window.value > 0 ? s.window.value : spec.sla_window.value;
      if (window > 0) add(seconds / window, t.name + "/" + s.name + ": " + number(seconds / window) + " SLO windows");
    }
  }
  e.gpus = gpus;
  e.memory_bytes = BASE_BYTES + e.events * BYTES_PER_EVENT + gpus * BYTES_PER_GPU + e.actors * RESIDENT_BYTES_PER_ACTOR;
  e.address_bytes = e.memory_bytes + e.actors * ACTOR_STACK_KIB * 1024.0;
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < parts.size() && i < 3; ++i) e.largest.push_back(parts[i].second);
  return e;
}

namespace {

// vm.max_map_count: each actor's stack is a mapping plus its guard page; half the maps are the budget.
double actor_limit() {
  long maps = 65530;  // the kernel's default
  std::ifstream in("/proc/sys/vm/max_map_count");
  if (in) in >> maps;
  return std::max(1000.0, static_cast<double>(maps) / 2 - 2000);
}

std::string largest_text(const RunEstimate& e) {
  std::string out;
  for (const auto& p : e.largest) out += (out.empty() ? "" : "; ") + p;
  return out.empty() ? "" : " (largest: " + out + ")";
}

}  // namespace

bool check_run_budget(const ScenarioSpec& spec, const RunEstimate& e, const RunLimits& limits, Diagnostics& diags) {
  const SourceLoc at{spec.source_file, 0, 0};
  bool ok = true;
  // Refused up front: what the arrivals, steps and windows make whatever the load. The time slices are an upper
  // bound (every sliced GPU contended, or all the work that may run there contended); beyond the limits only
  // with them, the run starts and stops at the limit with partial results (exit 3) if it gets there.
  const double certain = e.events - e.slice_events;
  const double certain_memory = e.memory_bytes - e.slice_events * BYTES_PER_EVENT;
  if (certain > limits.max_events) {
    diags.error(at, "spec",
                "the run would simulate about " + number(e.events) + " events, more than --max-events " +
                    number(limits.max_events) + largest_text(e) +
                    "; shorten spec.duration, lower the load, or raise --max-events");
    ok = false;
  } else if (e.events > limits.max_events) {
    diags.warning(at, "spec",
                  "the run may simulate up to " + number(e.events) + " events, more than --max-events " +
                      number(limits.max_events) + ", " + number(e.slice_events) +
                      " of them time slices (an upper bound: they happen only while tenants contend for a GPU); if "
                      "it gets there it stops with partial results (exit 3)");
  }
  const std::string memory_parts =
      " (" + number(e.gpus) + " GPUs: " + format_bytes(Bytes(e.gpus * BYTES_PER_GPU)) + "; " + number(e.events) +
      " events: " + format_bytes(Bytes(e.events * BYTES_PER_EVENT)) + "; " + number(e.actors) +
      " simulated processes: " + format_bytes(Bytes(e.actors * RESIDENT_BYTES_PER_ACTOR)) + ")";
  if (certain_memory > limits.max_memory_bytes) {
    diags.error(at, "spec",
                "the run would need about " + format_bytes(Bytes(e.memory_bytes)) +
                    " of memory, more than --max-memory " + format_bytes(Bytes(limits.max_memory_bytes)) +
                    memory_parts + "; raise --max-memory if the machine has it");
    ok = false;
  } else if (e.memory_bytes > limits.max_memory_bytes) {
    diags.warning(at, "spec",
                  "the run may need up to " + format_bytes(Bytes(e.memory_bytes)) +
                      " of memory, more than --max-memory " + format_bytes(Bytes(limits.max_memory_bytes)) +
                      memory_parts +
                      ", counting every possible time slice; if it gets there it stops with partial results (exit 3)");
  }
  if (e.actors > actor_limit()) {
    diags.error(at, "spec",
                "the run needs about " + number(e.actors) +
                    " simulated processes (workload replicas, arrival "
                    "generators, time-slice arbiters), more than this machine's memory-map limit allows (" +
                    number(actor_limit()) + ", from vm.max_map_count); use fewer replicas or workloads");
    ok = false;
  }
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
      e.address_bytes > static_cast<double>(as.rlim_cur)) {
    diags.error(at, "spec",
                "the run needs about " + format_bytes(Bytes(e.address_bytes)) + " of address space (" +
                    number(e.actors) + " simulated processes with " + std::to_string(ACTOR_STACK_KIB / 1024) +
                    " MiB stacks, and the event log), more than the process limit (ulimit -v) of " +
                    format_bytes(Bytes(static_cast<double>(as.rlim_cur))));
    ok = false;
  }
  return ok;
}

}  // namespace gtw
