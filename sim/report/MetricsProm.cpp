// metrics.prom: the run as OpenMetrics text with timestamps (docs/formats/metrics-prom.md), under the
// DCGM exporter's metric and label names where a DCGM field means what the twin models, so that
// `promtool tsdb create-blocks-from openmetrics` loads it and a DCGM dashboard shows it.
//
// Every series is sampled on one grid of whole seconds (so the file also parses as the Prometheus text
// format, whose timestamps are integers): a sample at t covers (t - step, t]. Simulated time 0 is
// METRICS_EPOCH (2026-01-01T00:00:00Z), a fixed instant so that two runs give the same file.
// Only gauges: a counter's family name differs between OpenMetrics (`x`) and the text format (`x_total`).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "RunIndex.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

constexpr int64_t METRICS_EPOCH = 1767225600;  // 2026-01-01T00:00:00Z
constexpr double MAX_SAMPLES_PER_SERIES = 2000;
constexpr double MIB = 1024.0 * 1024.0;

std::string label_value(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// The sampling grid: whole seconds, at most MAX_SAMPLES_PER_SERIES points over the run.
struct Grid {
  int64_t step = 1;
  int64_t points = 0;
  explicit Grid(double end) {
    step = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(end / MAX_SAMPLES_PER_SERIES)));
    points = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(end / static_cast<double>(step))));
  }
  double sample_time(int64_t k) const { return static_cast<double>((k + 1) * step); }  // end of bucket k
  int64_t bucket(double t) const {
    return std::clamp<int64_t>(static_cast<int64_t>(std::floor(t / static_cast<double>(step))), 0, points - 1);
  }
};

/// Seconds of each bucket covered by the union of `intervals` (sorted and merged here).
std::vector<double> covered_per_bucket(std::vector<std::pair<double, double>> intervals, const Grid& grid) {
  std::vector<double> covered(static_cast<size_t>(grid.points), 0.0);
  std::sort(intervals.begin(), intervals.end());
  double open_start = 0, open_end = -1;
  const auto add = [&](double a, double b) {
    const double step = static_cast<double>(grid.step);
    for (int64_t k = grid.bucket(a); k < grid.points && static_cast<double>(k) * step < b; ++k) {
      const double lo = std::max(a, static_cast<double>(k) * step), hi = std::min(b, static_cast<double>(k + 1) * step);
      if (hi > lo) covered[static_cast<size_t>(k)] += hi - lo;
    }
  };
  for (const auto& [a, b] : intervals) {
    if (a > open_end) {
      if (open_end > open_start) add(open_start, open_end);
      open_start = a;
      open_end = b;
    } else {
      open_end = std::max(open_end, b);
    }
  }
  if (open_end > open_start) add(open_start, open_end);
  return covered;
}

class Writer {
 public:
  explicit Writer(const Grid& grid) : grid_(grid) {}

  void family(const std::string& name, const std::string& help) {
    out_ += "# TYPE " + name + " gauge\n# HELP " + name + " " + help + "\n";
    name_ = name;
    last_.clear();
  }
  /// One series: a value per bucket; NaN leaves the bucket out.
  void series(const std::string& labels, const std::vector<double>& values) {
    for (size_t k = 0; k < values.size(); ++k) {
      if (std::isnan(values[k])) continue;
      point(labels, static_cast<double>(grid_.sample_time(static_cast<int64_t>(k))), values[k]);
    }
  }
  /// One sample at simulated time t (rounded up to a whole second).
  void point(const std::string& labels, double t, double value) {
    const int64_t ts = METRICS_EPOCH + static_cast<int64_t>(std::ceil(t - 1e-9));
    // A series' timestamps must increase: of samples that round to one second, the first is kept.
    if (auto [it, inserted] = last_.emplace(labels, ts); !inserted) {
      if (ts <= it->second) return;
      it->second = ts;
    }
    out_ += name_ + "{" + labels + "} " + number(value) + " " + std::to_string(ts) + "\n";
  }
  std::string finish() { return out_ + "# EOF\n"; }

 private:
  const Grid& grid_;
  std::string out_;
  std::string name_;
  std::map<std::string, int64_t> last_;  // labels -> last timestamp in the current family
};

/// The DCGM exporter's labels of a device (a whole GPU or a MIG instance), plus the twin's pool and device.
std::string device_labels(const GpuLayout& g) {
  std::string l = "gpu=\"" + std::to_string(g.local) + "\",UUID=\"GPU-gputwin-" + label_value(g.node_name) + "-" +
                  std::to_string(g.local) + "\",device=\"nvidia" + std::to_string(g.local) + "\",model_name=\"" +
                  label_value(g.product) + "\",Hostname=\"" + label_value(g.node_name) + "\"";
  if (!g.mig_profile.empty())
    l += ",GPU_I_PROFILE=\"" + label_value(g.mig_profile) + "\",GPU_I_ID=\"" + std::to_string(g.mig_start) + "\"";
  l += ",pool=\"" + label_value(g.pool) + "\",sharing=\"" + sharing_mode_name(g.sharing) + "\",gputwin_device=\"" +
       std::to_string(g.index) + "\"";
  return l;
}

void write_device_metrics(Writer& w, const Grid& grid, const ScenarioSpec& spec, const RunResult& run,
                          const RunIndex& index) {
  const size_t devices = run.gpus.size();
  std::vector<std::vector<std::pair<double, double>>> busy(devices);
  std::map<std::pair<size_t, int>, std::vector<std::pair<double, double>>> busy_by_tenant;
  for (const auto& e : run.log.events()) {
    if (!payload::busy(e) || e.gpu < 0 || static_cast<size_t>(e.gpu) >= devices) continue;
    busy[static_cast<size_t>(e.gpu)].emplace_back(payload::start_time(e), e.time);
    busy_by_tenant[{static_cast<size_t>(e.gpu), e.tenant}].emplace_back(payload::start_time(e), e.time);
  }
  std::vector<std::vector<double>> util(devices);
  for (size_t d = 0; d < devices; ++d) {
    util[d] = covered_per_bucket(std::move(busy[d]), grid);
    for (auto& v : util[d]) v /= static_cast<double>(grid.step);
  }
  // Memory held by the replicas on each device at each sample time (their PLACED reservations).
  std::vector<std::vector<double>> used(devices, std::vector<double>(static_cast<size_t>(grid.points), 0.0));
  for (const auto& s : index.stays()) {
    if (s.gpu < 0 || static_cast<size_t>(s.gpu) >= devices || !s.held_memory()) continue;
    for (int64_t k = 0; k < grid.points; ++k) {
      const double t = grid.sample_time(k);
      if (s.start <= t && t < s.end) used[static_cast<size_t>(s.gpu)][static_cast<size_t>(k)] += s.memory;
    }
  }
  w.family("DCGM_FI_DEV_GPU_UTIL",
           "GPU utilization (in %): share of the sample period with at least one kernel running on the device");
  for (size_t d = 0; d < devices; ++d) {
    auto percent = util[d];
    for (auto& v : percent) v *= 100.0;
    w.series(device_labels(run.gpus[d]), percent);
  }
  w.family("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active (twin: the busy share)");
  for (size_t d = 0; d < devices; ++d) w.series(device_labels(run.gpus[d]), util[d]);
  w.family("DCGM_FI_PROF_SM_ACTIVE",
           "Ratio of cycles an SM has at least one warp assigned (twin: the busy share; a kernel grid smaller than "
           "the partition is not reflected)");
  for (size_t d = 0; d < devices; ++d) w.series(device_labels(run.gpus[d]), util[d]);
  w.family("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB): the memory the placed replicas reserved");
  for (size_t d = 0; d < devices; ++d) {
    auto mib = used[d];
    for (auto& v : mib) v /= MIB;
    w.series(device_labels(run.gpus[d]), mib);
  }
  w.family("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)");
  for (size_t d = 0; d < devices; ++d) {
    auto mib = used[d];
    for (auto& v : mib) v = std::max(0.0, run.gpus[d].memory - v) / MIB;
    w.series(device_labels(run.gpus[d]), mib);
  }
  w.family("gputwin_tenant_gpu_busy_ratio", "Share of the sample period a tenant had work running on the device");
  for (auto& [key, intervals] : busy_by_tenant) {
    auto share = covered_per_bucket(std::move(intervals), grid);
    for (auto& v : share) v /= static_cast<double>(grid.step);
    const int t = key.second;
    const std::string tenant =
        t >= 0 && static_cast<size_t>(t) < spec.tenants.size() ? spec.tenants[static_cast<size_t>(t)].name : "";
    w.series(device_labels(run.gpus[key.first]) + ",tenant=\"" + label_value(tenant) + "\"", share);
  }
}

// Per workload, per sample bucket: the values of the requests completed in it.
using Buckets = std::map<int, std::vector<std::vector<double>>>;

// The p50 and p99 families of one per-request measure (absent where no request completed).
void write_percentiles(Writer& w, const Buckets& buckets, const std::string& stem, const std::string& what,
                       const std::function<std::string(int)>& labels) {
  for (const double q : {0.5, 0.99}) {
    w.family(stem + (q == 0.5 ? "_p50_seconds" : "_p99_seconds"),
             what + " of the requests completed in the sample period, " + (q == 0.5 ? "median" : "99th percentile") +
                 " (absent when none completed)");
    for (const auto& [workload, per_bucket] : buckets) {
      std::vector<double> values;
      for (auto b : per_bucket) {
        std::sort(b.begin(), b.end());
        values.push_back(b.empty() ? std::nan("") : percentile_sorted(b, q * 100.0));
      }
      w.series(labels(workload), values);
    }
  }
}

void write_request_metrics(Writer& w, const Grid& grid, const ScenarioSpec& spec, const RunResult& run) {
  Buckets latencies, ttft, tpot;
  const auto add = [&](Buckets& into, const Event& e, double value) {
    auto& per_bucket = into[e.workload];
    if (per_bucket.empty()) per_bucket.resize(static_cast<size_t>(grid.points));
    per_bucket[static_cast<size_t>(grid.bucket(e.time))].push_back(value);
  };
  for (const auto& e : run.log.events()) {
    if (e.workload < 0 || static_cast<size_t>(e.workload) >= spec.workloads.size()) continue;
    if (e.type == EventType::REQUEST_DONE) add(latencies, e, e.value);
    if (e.type == EventType::REQUEST_TOKENS) {  // continuous batching: time to first token, time per output token
      add(ttft, e, e.value);
      add(tpot, e, e.aux);
    }
  }
  const auto labels = [&](int workload) {
    const auto& ws = spec.workloads[static_cast<size_t>(workload)];
    return "tenant=\"" + label_value(ws.tenant) + "\",workload=\"" + label_value(ws.name) + "\"";
  };
  w.family("gputwin_requests_completed_per_second", "Requests completed in the sample period, per second");
  for (const auto& [workload, buckets] : latencies) {
    std::vector<double> rate;
    for (const auto& b : buckets) rate.push_back(static_cast<double>(b.size()) / static_cast<double>(grid.step));
    w.series(labels(workload), rate);
  }
  write_percentiles(w, latencies, "gputwin_request_latency", "Latency", labels);
  if (!ttft.empty()) {
    write_percentiles(w, ttft, "gputwin_request_ttft", "Time to first token", labels);
    write_percentiles(w, tpot, "gputwin_request_tpot", "Time per output token after the first", labels);
  }
}

void write_slo_metrics(Writer& w, const ScenarioSpec& spec, const Analysis& analysis) {
  const auto labels = [](const SloResult& s) {
    return "tenant=\"" + label_value(s.tenant_name) + "\",slo=\"" + label_value(s.name) + "\",kind=\"" +
           label_value(s.kind) + "\",unit=\"" + label_value(s.unit) + "\"";
  };
  const auto for_windows = [&](const char* name, const char* help, auto value) {
    w.family(name, help);
    for (const auto& s : analysis.slos) {
      const double length = slo_window_s(spec, s);
      if (length <= 0) continue;
      for (const auto& win : s.windows) w.point(labels(s), win.start + length, value(win));
    }
  };
  for_windows("gputwin_slo_window_value",
              "The SLO's measured value over its window, at the window's end (its unit label)",
              [](const SloWindow& win) { return win.value; });
  for_windows("gputwin_slo_window_violated", "1 when the SLO's window was violated, 0 when met, at the window's end",
              [](const SloWindow& win) { return win.violated ? 1.0 : 0.0; });
  w.family("gputwin_slo_threshold", "The SLO's bound, in its unit (one sample at the end of the run)");
  for (const auto& s : analysis.slos) {
    const double length = slo_window_s(spec, s);
    if (length > 0 && !s.windows.empty()) w.point(labels(s), s.windows.back().start + length, s.threshold);
  }
}

}  // namespace

std::string metrics_openmetrics(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                                const RunIndex& index) {
  const Grid grid(std::max(run.end_time, spec.duration.value));
  Writer w(grid);
  write_device_metrics(w, grid, spec, run, index);
  write_request_metrics(w, grid, spec, run);
  write_slo_metrics(w, spec, analysis);
  return w.finish();
}

}  // namespace gtw
