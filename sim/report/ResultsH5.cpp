// results.h5 writer (HDF5 C API). The layout is documented in docs/formats/results-h5.md; keep the
// two in step. Content is deterministic: object timestamps are off and every file datatype is packed
// and little-endian, so two runs with the same inputs and provenance give byte-identical files.
#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "ComplianceWriters.hpp"
#include "Errors.hpp"
#include "H5Util.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

using namespace h5;  // NOLINT(google-build-using-namespace): the shared HDF5 helpers

constexpr const char* RESULTS_FORMAT_VERSION = "1.0";
constexpr const char* RESULTS_SCHEMA = "gputwin.results";

// From the comments in sim/core/EventLog.hpp (plus what the emitters put in aux), so a reader of the
// file needs no source.
// What value and aux mean per event type, generated from sim/core/EventLog.hpp by scripts/gen-event-types.py
// (the event-types-doc test fails when it is stale).
constexpr const char* EVENT_SEMANTICS =
#include "EventSemantics.inc"
    ;

constexpr const char* EVENT_UNITS =
    "time: s (simulated); seq: append order; value, aux: per type, see attribute 'semantics'";

/// Turns off HDF5's automatic error printing for the lifetime of the object, then restores it
/// (other code in the process may rely on the default).
H5Id event_type_enum(hid_t base) {
  H5Id t(H5Tenum_create(base), H5Tclose, "cannot create event type enum");
  for (int i = 0; i < EVENT_TYPE_COUNT; ++i) {
    const uint8_t v = static_cast<uint8_t>(i);
    check(H5Tenum_insert(t.get(), event_type_name(static_cast<EventType>(v)), &v), "cannot build event type enum");
  }
  return t;
}

// In-memory rows. Strings point into the analysis (alive for the whole write).
struct TenantRow {
  const char* name;
  const char* region;
  const char* classification;
  double gpu_seconds;
  uint64_t slos_total;
  uint64_t slos_missed;
};

struct WorkloadRow {
  const char* name;
  const char* kind;
  int32_t tenant;
  int32_t replicas_requested;
  int32_t replicas_placed;
  int32_t replicas_failed;
  uint64_t requests_arrived;
  uint64_t requests_completed;
  uint64_t requests_dropped;
  double latency_mean_s;
  double latency_p50_s;
  double latency_p95_s;
  double latency_p99_s;
  double latency_max_s;
  uint64_t jobs_submitted;
  uint64_t jobs_completed;
  uint64_t jobs_unfinished;
  uint64_t jobs_failed;
  double mean_completion_s;
  double mean_slowdown;
  double ttft_p50_s;  // continuous batching (0 for a static batcher)
  double ttft_p99_s;
  double tpot_p50_s;
  double tpot_p99_s;
  double output_tokens_per_s;
  uint64_t preemptions;
};

struct GpuRow {
  int32_t index;
  const char* node;
  int32_t local_index;
  const char* pool;
  const char* product;
  const char* sharing;
  int32_t slots;
  double memory_bytes;
  double utilisation;
  uint64_t context_switches;
  double context_switch_seconds;
};

struct SloRow {
  const char* tenant;
  const char* name;
  const char* kind;
  uint8_t met;
  uint64_t evaluated;
  uint64_t violated;
  double compliance;
  double target;
  double worst;
  double violation_minutes;
  const char* workload;
  const char* unit;
  double window_s;
  const char* objective;
};

struct WindowRow {
  uint32_t slo_index;
  double start_s;
  double value;
  uint8_t violated;
};

void write_meta(hid_t root, const ScenarioSpec& spec, const RunResult& run, const Provenance& prov) {
  const H5Id meta = make_group(root, "meta");
  const hid_t m = meta.get();
  attr_string(m, "scenario_name", spec.name);
  attr_string(m, "scenario_file", spec.source_file);
  attr_string(m, "scenario_sha256", spec.source_sha256);
  attr_u64(m, "seed", spec.seed);
  attr_f64(m, "duration_s", spec.duration.value);
  attr_f64(m, "sla_window_s", spec.sla_window.value);
  attr_string(m, "placement_policy", spec.placement.name);
  attr_f64(m, "simulated_end_s", run.end_time);
  if (!run.stopped_early.empty()) attr_string(m, "stopped_early", run.stopped_early);
  std::string profiles;
  for (size_t i = 0; i < run.profile_sha256.size(); ++i) profiles += (i ? "\n" : "") + run.profile_sha256[i];
  attr_string(m, "hardware_profiles", profiles);
  attr_u64(m, "events", run.log.size());
  attr_u64(m, "kernels", run.counters.kernels);
  attr_u64(m, "context_switches", run.counters.context_switches);
  attr_u64(m, "transfers", run.counters.transfers);

  // Everything that differs between two otherwise identical runs lives here.
  const H5Id provenance = make_group(m, "provenance");
  const hid_t p = provenance.get();
  attr_string(p, "gputwin_version", prov.gputwin_version);
  attr_string(p, "simgrid_version", prov.simgrid_version);
  attr_string(p, "allocator", prov.allocator);
  attr_string(p, "command_line", prov.command_line);
  attr_string(p, "host", prov.host);
  attr_string(p, "started_utc", prov.started_utc);
  attr_f64(p, "wall_seconds", prov.wall_seconds);
}

void write_events(hid_t root, const RunResult& run) {
  const H5Id mem_enum = event_type_enum(H5T_NATIVE_UINT8);
  const H5Id file_enum = event_type_enum(H5T_STD_U8LE);
  // Written straight from the log's blocks, one at a time (spilled ones read back): no copy of what may be
  // millions of events.
  EventLog::BlockView current;
  const auto block_at = [&](size_t k) {
    current = run.log.block(k);
    return h5::RowBlock{current.data(), current.size()};
  };
  const H5Id dset = write_table(
      root, "events", run.log.size(), run.log.block_count(), block_at, sizeof(Event),
      {GTW_FIELD(Event, time, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE),
       GTW_FIELD(Event, seq, H5T_NATIVE_UINT64, H5T_STD_U64LE), GTW_FIELD(Event, type, mem_enum.get(), file_enum.get()),
       GTW_FIELD(Event, tenant, H5T_NATIVE_INT32, H5T_STD_I32LE),
       GTW_FIELD(Event, workload, H5T_NATIVE_INT32, H5T_STD_I32LE),
       GTW_FIELD(Event, replica, H5T_NATIVE_INT32, H5T_STD_I32LE),
       GTW_FIELD(Event, gpu, H5T_NATIVE_INT32, H5T_STD_I32LE),
       GTW_FIELD(Event, value, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE),
       GTW_FIELD(Event, aux, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE)},
      TableOptions{true});
  attr_string(dset.get(), "units", EVENT_UNITS);
  attr_string(dset.get(), "semantics", EVENT_SEMANTICS);
}

void write_tenants(hid_t root, const Analysis& a, hid_t str) {
  std::vector<TenantRow> rows;
  rows.reserve(a.tenants.size());
  for (const auto& t : a.tenants)
    rows.push_back({t.name.c_str(), t.region.c_str(), t.classification.c_str(), t.gpu_seconds, t.slos, t.slos_missed});
  write_table(root, "tenants", rows,
              {GTW_FIELD(TenantRow, name, str, str), GTW_FIELD(TenantRow, region, str, str),
               GTW_FIELD(TenantRow, classification, str, str),
               GTW_FIELD(TenantRow, gpu_seconds, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE),
               GTW_FIELD(TenantRow, slos_total, H5T_NATIVE_UINT64, H5T_STD_U64LE),
               GTW_FIELD(TenantRow, slos_missed, H5T_NATIVE_UINT64, H5T_STD_U64LE)});
}

void write_workloads(hid_t root, const Analysis& a, hid_t str) {
  std::vector<WorkloadRow> rows;
  rows.reserve(a.workloads.size());
  for (const auto& w : a.workloads)
    rows.push_back({w.name.c_str(),
                    w.kind.c_str(),
                    w.tenant,
                    w.replicas_requested,
                    w.replicas_placed,
                    w.replicas_failed,
                    w.requests_arrived,
                    w.requests_completed,
                    w.requests_dropped,
                    w.latency.mean,
                    w.latency.p50,
                    w.latency.p95,
                    w.latency.p99,
                    w.latency.max,
                    w.jobs_submitted,
                    w.jobs_completed,
                    w.jobs_unfinished,
                    w.jobs_failed,
                    w.mean_completion,
                    w.mean_slowdown,
                    w.ttft.p50,
                    w.ttft.p99,
                    w.tpot.p50,
                    w.tpot.p99,
                    w.serving.output_tokens_per_s,
                    static_cast<uint64_t>(w.serving.preemptions)});
  const hid_t i32 = H5T_NATIVE_INT32, u64 = H5T_NATIVE_UINT64, f64 = H5T_NATIVE_DOUBLE;
  const hid_t fi32 = H5T_STD_I32LE, fu64 = H5T_STD_U64LE, ff64 = H5T_IEEE_F64LE;
  write_table(root, "workloads", rows,
              {GTW_FIELD(WorkloadRow, name, str, str),
               GTW_FIELD(WorkloadRow, kind, str, str),
               GTW_FIELD(WorkloadRow, tenant, i32, fi32),
               GTW_FIELD(WorkloadRow, replicas_requested, i32, fi32),
               GTW_FIELD(WorkloadRow, replicas_placed, i32, fi32),
               GTW_FIELD(WorkloadRow, replicas_failed, i32, fi32),
               GTW_FIELD(WorkloadRow, requests_arrived, u64, fu64),
               GTW_FIELD(WorkloadRow, requests_completed, u64, fu64),
               GTW_FIELD(WorkloadRow, requests_dropped, u64, fu64),
               GTW_FIELD(WorkloadRow, latency_mean_s, f64, ff64),
               GTW_FIELD(WorkloadRow, latency_p50_s, f64, ff64),
               GTW_FIELD(WorkloadRow, latency_p95_s, f64, ff64),
               GTW_FIELD(WorkloadRow, latency_p99_s, f64, ff64),
               GTW_FIELD(WorkloadRow, latency_max_s, f64, ff64),
               GTW_FIELD(WorkloadRow, jobs_submitted, u64, fu64),
               GTW_FIELD(WorkloadRow, jobs_completed, u64, fu64),
               GTW_FIELD(WorkloadRow, jobs_unfinished, u64, fu64),
               GTW_FIELD(WorkloadRow, jobs_failed, u64, fu64),
               GTW_FIELD(WorkloadRow, mean_completion_s, f64, ff64),
               GTW_FIELD(WorkloadRow, mean_slowdown, f64, ff64),
               GTW_FIELD(WorkloadRow, ttft_p50_s, f64, ff64),
               GTW_FIELD(WorkloadRow, ttft_p99_s, f64, ff64),
               GTW_FIELD(WorkloadRow, tpot_p50_s, f64, ff64),
               GTW_FIELD(WorkloadRow, tpot_p99_s, f64, ff64),
               GTW_FIELD(WorkloadRow, output_tokens_per_s, f64, ff64),
               GTW_FIELD(WorkloadRow, preemptions, u64, fu64)});
}

void write_gpus(hid_t root, const Analysis& a, hid_t str) {
  std::vector<GpuRow> rows;
  rows.reserve(a.gpus.size());
  for (const auto& g : a.gpus) {
    const GpuLayout& l = g.layout;
    rows.push_back({l.index, l.node_name.c_str(), l.local, l.pool.c_str(), l.product.c_str(),
                    sharing_mode_name(l.sharing), l.slots, l.memory, g.utilisation, g.context_switches,
                    g.switch_seconds});
  }
  write_table(root, "gpus", rows,
              {GTW_FIELD(GpuRow, index, H5T_NATIVE_INT32, H5T_STD_I32LE), GTW_FIELD(GpuRow, node, str, str),
               GTW_FIELD(GpuRow, local_index, H5T_NATIVE_INT32, H5T_STD_I32LE), GTW_FIELD(GpuRow, pool, str, str),
               GTW_FIELD(GpuRow, product, str, str), GTW_FIELD(GpuRow, sharing, str, str),
               GTW_FIELD(GpuRow, slots, H5T_NATIVE_INT32, H5T_STD_I32LE),
               GTW_FIELD(GpuRow, memory_bytes, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE),
               GTW_FIELD(GpuRow, utilisation, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE),
               GTW_FIELD(GpuRow, context_switches, H5T_NATIVE_UINT64, H5T_STD_U64LE),
               GTW_FIELD(GpuRow, context_switch_seconds, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE)});
}

void write_sla(hid_t root, const ScenarioSpec& spec, const Analysis& a, hid_t str) {
  const H5Id sla = make_group(root, "sla");
  std::vector<SloRow> slos;
  slos.reserve(a.slos.size());
  // The windows table in blocks of at most WINDOW_BLOCK rows, each built when written: the analysis pages the
  // windows (a job SLO has one per job), so they are never all in memory at once.
  constexpr size_t WINDOW_BLOCK = 65536;
  struct Block {
    size_t slo, first, count;
  };
  std::vector<Block> blocks;
  size_t n_windows = 0;
  for (size_t i = 0; i < a.slos.size(); ++i) {
    const SloResult& s = a.slos[i];
    slos.push_back({s.tenant_name.c_str(), s.name.c_str(), s.kind.c_str(), static_cast<uint8_t>(s.met), s.evaluated,
                    s.violated, s.compliance, s.target, s.worst, s.violation_minutes, s.workload.c_str(),
                    s.unit.c_str(), slo_window_s(spec, s), s.objective.c_str()});
    for (size_t first = 0; first < s.windows.size(); first += WINDOW_BLOCK)
      blocks.push_back({i, first, std::min(WINDOW_BLOCK, s.windows.size() - first)});
    n_windows += s.windows.size();
  }
  std::vector<WindowRow> rows;
  const auto block_at = [&](size_t k) {
    const Block& b = blocks[k];
    rows.clear();
    auto w = a.slos[b.slo].windows.from(b.first);
    for (size_t j = 0; j < b.count; ++j, ++w) {
      const SloWindow window = *w;
      rows.push_back({static_cast<uint32_t>(b.slo), window.start, window.value, static_cast<uint8_t>(window.violated)});
    }
    return h5::RowBlock{rows.data(), rows.size()};
  };
  const hid_t u8 = H5T_NATIVE_UINT8, u64 = H5T_NATIVE_UINT64, f64 = H5T_NATIVE_DOUBLE;
  const hid_t fu8 = H5T_STD_U8LE, fu64 = H5T_STD_U64LE, ff64 = H5T_IEEE_F64LE;
  write_table(
      sla.get(), "slos", slos,
      {GTW_FIELD(SloRow, tenant, str, str), GTW_FIELD(SloRow, name, str, str), GTW_FIELD(SloRow, kind, str, str),
       GTW_FIELD(SloRow, met, u8, fu8), GTW_FIELD(SloRow, evaluated, u64, fu64), GTW_FIELD(SloRow, violated, u64, fu64),
       GTW_FIELD(SloRow, compliance, f64, ff64), GTW_FIELD(SloRow, target, f64, ff64),
       GTW_FIELD(SloRow, worst, f64, ff64), GTW_FIELD(SloRow, violation_minutes, f64, ff64),
       GTW_FIELD(SloRow, workload, str, str), GTW_FIELD(SloRow, unit, str, str), GTW_FIELD(SloRow, window_s, f64, ff64),
       GTW_FIELD(SloRow, objective, str, str)});
  write_table(
      sla.get(), "windows", n_windows, blocks.size(), block_at, sizeof(WindowRow),
      {GTW_FIELD(WindowRow, slo_index, H5T_NATIVE_UINT32, H5T_STD_U32LE), GTW_FIELD(WindowRow, start_s, f64, ff64),
       GTW_FIELD(WindowRow, value, f64, ff64), GTW_FIELD(WindowRow, violated, u8, fu8)});
}

struct LeakChannelRow {
  int32_t observer;
  int32_t source;
  const char* resource;
  const char* mode;
  const char* state;
  double exposure_s;
  double bit_rate_bps;
  double error_rate;
  double capacity_bps;
  double bound_bits;
  const char* capacity_source;
  uint8_t counted;  // 0: its measurement counts in another resource's channel of the pair
};

struct LeakClosedRow {
  int32_t observer;
  int32_t source;
  const char* resource;
  const char* mode;
  double co_active_s;
  const char* reason;
};

struct LeakDiscreteRow {
  int32_t observer;
  int32_t source;
  const char* kind;
  int32_t workload;
  int32_t gpu;
  double bytes;
  uint8_t closed;
  const char* basis;
  const char* data;  // data item (plaintextNetwork / plaintextStorage), "" otherwise
};

struct LeakTenantRow {
  const char* name;
  double bits_as_observer;
  double bits_as_source;
  double bytes_as_observer;
  double bytes_as_source;
};

struct LeakModelRow {
  int32_t workload;
  const char* owner;
  const char* part;
  const char* channel;
  const char* status;
  double bits;
  double bytes;
  const char* tenants;
};

struct LeakAttackRow {
  int32_t workload;
  const char* name;
  const char* type;
  const char* attacker;
  const char* victim;
  const char* resource;
  const char* relation;
  uint8_t ran;
  double bit_rate_bps;
  double error_rate;
  double achieved_bps;
  double accuracy;
  double bytes_recovered;
  double bound_bps;
  double bound_bytes;
  uint8_t within_bound;
  const char* outcome;
};

// Unquantified channels have no capacity: NaN in the file (null in report.json).
void write_leakage(hid_t root, const LeakageReport& l, hid_t str) {
  using channel::State;
  const H5Id g = make_group(root, "leakage");
  attr_f64(g.get(), "total_bits", l.total_bits);
  attr_f64(g.get(), "total_bytes", l.total_bytes);
  attr_u64(g.get(), "open_channels", l.open_channels);
  attr_u64(g.get(), "unquantified_channels", l.unquantified_channels);
  attr_u64(g.get(), "scrub_on_free", l.options.scrub_on_free ? 1 : 0);
  attr_f64(g.get(), "timer_resolution_s", l.options.timer_resolution_s);
  attr_f64(g.get(), "query_rate_limit_per_s", l.options.query_rate_limit);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<LeakChannelRow> channels;
  for (const auto& c : l.channels) {
    const bool q = c.state == State::OPEN;
    channels.push_back({c.observer, c.source, channel::resource_name(c.resource), channel::mode_name(c.mode),
                        channel::state_name(c.state), c.exposure_s, q ? c.bit_rate_bps : nan, q ? c.error_rate : nan,
                        q ? c.capacity_bps : nan, q ? c.bound_bits : nan, c.capacity_source.c_str(),
                        static_cast<uint8_t>(c.counted ? 1 : 0)});
  }
  const hid_t i32 = H5T_NATIVE_INT32, f64 = H5T_NATIVE_DOUBLE, u8 = H5T_NATIVE_UINT8;
  const hid_t fi32 = H5T_STD_I32LE, ff64 = H5T_IEEE_F64LE, fu8 = H5T_STD_U8LE;
  write_table(g.get(), "channels", channels,
              {GTW_FIELD(LeakChannelRow, observer, i32, fi32), GTW_FIELD(LeakChannelRow, source, i32, fi32),
               GTW_FIELD(LeakChannelRow, resource, str, str), GTW_FIELD(LeakChannelRow, mode, str, str),
               GTW_FIELD(LeakChannelRow, state, str, str), GTW_FIELD(LeakChannelRow, exposure_s, f64, ff64),
               GTW_FIELD(LeakChannelRow, bit_rate_bps, f64, ff64), GTW_FIELD(LeakChannelRow, error_rate, f64, ff64),
               GTW_FIELD(LeakChannelRow, capacity_bps, f64, ff64), GTW_FIELD(LeakChannelRow, bound_bits, f64, ff64),
               GTW_FIELD(LeakChannelRow, capacity_source, str, str), GTW_FIELD(LeakChannelRow, counted, u8, fu8)});
  std::vector<LeakClosedRow> closed;
  for (const auto& c : l.closed)
    closed.push_back({c.observer, c.source, channel::resource_name(c.resource), channel::mode_name(c.mode),
                      c.co_active_s, c.reason.c_str()});
  write_table(g.get(), "closed", closed,
              {GTW_FIELD(LeakClosedRow, observer, i32, fi32), GTW_FIELD(LeakClosedRow, source, i32, fi32),
               GTW_FIELD(LeakClosedRow, resource, str, str), GTW_FIELD(LeakClosedRow, mode, str, str),
               GTW_FIELD(LeakClosedRow, co_active_s, f64, ff64), GTW_FIELD(LeakClosedRow, reason, str, str)});
  std::vector<LeakDiscreteRow> discrete;
  for (const auto& d : l.discrete)
    discrete.push_back({d.observer, d.source, discrete_kind_name(d.kind), d.workload, d.gpu, d.bytes,
                        static_cast<uint8_t>(d.closed), d.basis.c_str(), d.data_name.c_str()});
  write_table(g.get(), "discrete", discrete,
              {GTW_FIELD(LeakDiscreteRow, observer, i32, fi32), GTW_FIELD(LeakDiscreteRow, source, i32, fi32),
               GTW_FIELD(LeakDiscreteRow, kind, str, str), GTW_FIELD(LeakDiscreteRow, workload, i32, fi32),
               GTW_FIELD(LeakDiscreteRow, gpu, i32, fi32), GTW_FIELD(LeakDiscreteRow, bytes, f64, ff64),
               GTW_FIELD(LeakDiscreteRow, closed, u8, fu8), GTW_FIELD(LeakDiscreteRow, basis, str, str),
               GTW_FIELD(LeakDiscreteRow, data, str, str)});
  std::vector<LeakTenantRow> tenants;
  for (const auto& t : l.tenants)
    tenants.push_back({t.name.c_str(), t.bits_as_observer, t.bits_as_source, t.bytes_as_observer, t.bytes_as_source});
  write_table(
      g.get(), "tenants", tenants,
      {GTW_FIELD(LeakTenantRow, name, str, str), GTW_FIELD(LeakTenantRow, bits_as_observer, f64, ff64),
       GTW_FIELD(LeakTenantRow, bits_as_source, f64, ff64), GTW_FIELD(LeakTenantRow, bytes_as_observer, f64, ff64),
       GTW_FIELD(LeakTenantRow, bytes_as_source, f64, ff64)});
  attr_f64(g.get(), "noise_injection_s", l.options.noise_injection_s);
  attr_string(g.get(), "gpu_visibility", gpu_visibility_names()[static_cast<size_t>(l.options.gpu_visibility)]);
  attr_f64(g.get(), "scrubbed_bytes", l.scrubbed_bytes);
  attr_f64(g.get(), "scrub_seconds", l.scrub_seconds);
  std::vector<LeakAttackRow> attacks;
  for (const auto& r : l.attacks)
    attacks.push_back({r.workload, r.name.c_str(), r.type.c_str(), r.attacker.c_str(), r.victim.c_str(),
                       r.resource.c_str(), r.relation.c_str(), static_cast<uint8_t>(r.ran), r.bit_rate_bps,
                       r.error_rate, r.achieved_bps, r.accuracy, r.bytes_recovered, r.bound_bps, r.bound_bytes,
                       static_cast<uint8_t>(r.within_bound), r.outcome.c_str()});
  write_table(g.get(), "attacks", attacks,
              {GTW_FIELD(LeakAttackRow, workload, i32, fi32), GTW_FIELD(LeakAttackRow, name, str, str),
               GTW_FIELD(LeakAttackRow, type, str, str), GTW_FIELD(LeakAttackRow, attacker, str, str),
               GTW_FIELD(LeakAttackRow, victim, str, str), GTW_FIELD(LeakAttackRow, resource, str, str),
               GTW_FIELD(LeakAttackRow, relation, str, str), GTW_FIELD(LeakAttackRow, ran, u8, fu8),
               GTW_FIELD(LeakAttackRow, bit_rate_bps, f64, ff64), GTW_FIELD(LeakAttackRow, error_rate, f64, ff64),
               GTW_FIELD(LeakAttackRow, achieved_bps, f64, ff64), GTW_FIELD(LeakAttackRow, accuracy, f64, ff64),
               GTW_FIELD(LeakAttackRow, bytes_recovered, f64, ff64), GTW_FIELD(LeakAttackRow, bound_bps, f64, ff64),
               GTW_FIELD(LeakAttackRow, bound_bytes, f64, ff64), GTW_FIELD(LeakAttackRow, within_bound, u8, fu8),
               GTW_FIELD(LeakAttackRow, outcome, str, str)});
  // Exposed-to lists joined with commas; the strings must outlive the write.
  std::vector<std::string> joined;
  for (const auto& m : l.models)
    for (const auto& x : m.exposures) {
      std::string s;
      for (const auto& t : x.tenants) s += (s.empty() ? "" : ",") + t;
      joined.push_back(s);
    }
  std::vector<LeakModelRow> models;
  size_t k = 0;
  for (const auto& m : l.models)
    for (const auto& x : m.exposures)
      models.push_back({m.workload, m.owner.c_str(), x.part.c_str(), x.channel.c_str(), x.status.c_str(), x.bits,
                        x.bytes, joined[k++].c_str()});
  write_table(g.get(), "models", models,
              {GTW_FIELD(LeakModelRow, workload, i32, fi32), GTW_FIELD(LeakModelRow, owner, str, str),
               GTW_FIELD(LeakModelRow, part, str, str), GTW_FIELD(LeakModelRow, channel, str, str),
               GTW_FIELD(LeakModelRow, status, str, str), GTW_FIELD(LeakModelRow, bits, f64, ff64),
               GTW_FIELD(LeakModelRow, bytes, f64, ff64), GTW_FIELD(LeakModelRow, tenants, str, str)});
}

#undef GTW_FIELD

H5Id write_f64_array(hid_t loc, const char* name, const std::vector<double>& data, int rank, const hsize_t* dims) {
  const H5Id space(H5Screate_simple(rank, dims, nullptr), H5Sclose, std::string("cannot create dataspace for ") + name);
  const H5Id dcpl = dataset_props();
  H5Id dset(H5Dcreate2(loc, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose,
            std::string("cannot create dataset ") + name);
  if (!data.empty())
    check(H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
          std::string("cannot write ") + name);
  return dset;
}

// The [window][gpu] utilisation matrix, written in blocks of windows: a long run's matrix is as large as its
// utilisation windows, which the analysis pages (a day of 10,000 GPUs: 115 MB), so it is never built whole.
H5Id write_utilisation(hid_t loc, const Analysis& a, size_t n_windows) {
  const size_t n_gpus = a.gpus.size();
  const hsize_t dims[2] = {n_windows, n_gpus};
  const H5Id space(H5Screate_simple(2, dims, nullptr), H5Sclose, "cannot create dataspace for gpu_utilisation");
  const H5Id dcpl = dataset_props();
  H5Id dset(H5Dcreate2(loc, "gpu_utilisation", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
            H5Dclose, "cannot create dataset gpu_utilisation");
  if (n_windows == 0 || n_gpus == 0) return dset;
  constexpr size_t BLOCK_VALUES = size_t{1} << 20;  // 8 MB
  const size_t rows = std::max<size_t>(1, BLOCK_VALUES / n_gpus);
  std::vector<double> block;
  for (size_t k0 = 0; k0 < n_windows; k0 += rows) {
    const size_t k1 = std::min(n_windows, k0 + rows);
    // A GPU without a value for a window (not expected) reads NaN.
    block.assign((k1 - k0) * n_gpus, std::numeric_limits<double>::quiet_NaN());
    for (size_t g = 0; g < n_gpus && a.utilisation_windows && g < a.utilisation_windows->owners(); ++g) {
      auto it = a.utilisation_windows->from_position(g, k0);
      for (size_t k = k0; k < k1 && it.valid(); ++k, ++it) block[(k - k0) * n_gpus + g] = *it;
    }
    if (k0 == 0 && k1 == n_windows) {  // one block: the whole dataset, as a single write
      check(H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, block.data()),
            "cannot write gpu_utilisation");
      break;
    }
    const hsize_t start[2] = {k0, 0};
    const hsize_t count[2] = {k1 - k0, n_gpus};
    const H5Id file_space(H5Dget_space(dset.get()), H5Sclose, "cannot get the dataspace of gpu_utilisation");
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
          "cannot select windows of gpu_utilisation");
    const H5Id memory_space(H5Screate_simple(2, count, nullptr), H5Sclose, "cannot create a block's dataspace");
    check(H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT, block.data()),
          "cannot write gpu_utilisation");
  }
  return dset;
}

void write_timeseries(hid_t root, const Analysis& a) {
  const H5Id ts = make_group(root, "timeseries");
  size_t n_windows = 0;
  for (size_t g = 0; a.utilisation_windows && g < std::min(a.gpus.size(), a.utilisation_windows->owners()); ++g)
    n_windows = std::max(n_windows, a.utilisation_windows->size(g));
  std::vector<double> time(n_windows);
  for (size_t k = 0; k < n_windows; ++k) time[k] = static_cast<double>(k) * a.window;

  const hsize_t time_dims[1] = {n_windows};
  const H5Id time_ds = write_f64_array(ts.get(), "time", time, 1, time_dims);
  attr_string(time_ds.get(), "units", "s");
  attr_f64(time_ds.get(), "window_s", a.window);

  const H5Id util_ds = write_utilisation(ts.get(), a, n_windows);
  attr_string(util_ds.get(), "units", "ratio");
  attr_f64(util_ds.get(), "window_s", a.window);
  attr_string(util_ds.get(), "axes", "time,gpu");
}

void write_h5(const std::string& file_name, const ScenarioSpec& spec, const RunResult& run, const Analysis& a,
              const Provenance& prov, const LeakageReport* leakage, const ComplianceReport* compliance) {
  const H5Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "cannot create file properties");
  // A file creation list is also a group creation list (the root group's): no timestamp there either.
  check(H5Pset_obj_track_times(fcpl.get(), false), "cannot disable root group time tracking");
  H5Id file(H5Fcreate(file_name.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose,
            "cannot create " + file_name);
  {
    const H5Id root(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose, "cannot open root group");
    attr_string(root.get(), "format_version", RESULTS_FORMAT_VERSION);
    attr_string(root.get(), "schema", RESULTS_SCHEMA);
    const H5Id str = vlen_string_type();
    write_meta(root.get(), spec, run, prov);
    write_events(root.get(), run);
    write_tenants(root.get(), a, str.get());
    write_workloads(root.get(), a, str.get());
    write_gpus(root.get(), a, str.get());
    write_sla(root.get(), spec, a, str.get());
    write_timeseries(root.get(), a);
    if (leakage) write_leakage(root.get(), *leakage, str.get());
    write_audit_group(root.get(), spec, run, compliance ? &compliance->audit : nullptr,
                      compliance ? &compliance->chain : nullptr);
    if (compliance && compliance->configured) write_compliance_group(root.get(), *compliance);
  }
  file.close("cannot close " + file_name);
}

}  // namespace

void write_results_h5(const std::string& path, const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                      const Provenance& provenance, const LeakageReport* leakage, const ComplianceReport* compliance) {
  produce_file_atomic(path, [&](const std::string& tmp) {
    const QuietHdf5Errors quiet;
    write_h5(tmp, spec, run, analysis, provenance, leakage, compliance);
  });
}

}  // namespace gtw
