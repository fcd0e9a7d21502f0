// trace.json: the run as a Chrome trace (Trace Event Format, JSON object form), which Perfetto UI and
// chrome://tracing open. Layout (docs/formats/trace-json.md):
//   - one process per physical GPU, a thread per replica stay track, per tenant's busy time, per attacker;
//   - one process per workload: its requests and jobs on lanes (overlapping intervals never share a lane);
//   - a "cluster" process: placement failures, quota, reconfigurations, compliance refusals;
//   - a "network" process: one track per shared link, data movements on it.
// Slices are named after their tenant, so Perfetto (which colours by name) gives each tenant one colour;
// `cname` carries the same choice for chrome://tracing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "RunIndex.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

constexpr int CLUSTER_PID = 1;
constexpr int NETWORK_PID = 2;
constexpr int FIRST_WORKLOAD_PID = 10;
constexpr int FIRST_GPU_PID = 100000;
constexpr size_t MAX_LANES = 64;                // per workload or link: more overlap is counted, not drawn
constexpr size_t MAX_REQUEST_SLICES = 200'000;  // above this, every k-th request is drawn (k in otherData)
// Simulated seconds to whole nanoseconds (the file writes microseconds with three decimals).
int64_t nanoseconds(double seconds) {
  return std::llround(seconds * 1e9);
}

std::string microseconds(int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  return buf;
}

// Colour names chrome://tracing reserves (Perfetto ignores them and colours by slice name).
constexpr const char* TENANT_COLOURS[] = {
    "thread_state_running", "rail_response", "rail_animation", "yellow", "olive", "rail_load", "startup", "good", "bad",
    "generic_work",         "rail_idle",     "terrible"};

std::string quote(const std::string& s) {
  return nlohmann::json(s).dump();
}

std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// A JSON object built field by field (keys are fixed identifiers, values quoted or numbers).
class Args {
 public:
  Args& text(const char* key, const std::string& value) { return raw(key, quote(value)); }
  Args& num(const char* key, double value) { return raw(key, number(value)); }
  Args& raw(const char* key, const std::string& json) {
    body_ += (body_.empty() ? "" : ",") + std::string("\"") + key + "\":" + json;
    return *this;
  }
  std::string str() const { return "{" + body_ + "}"; }
  bool empty() const { return body_.empty(); }

 private:
  std::string body_;
};

struct TraceEvent {
  int pid = 0;
  int tid = 0;
  char ph = 'X';
  int64_t ts = 0;   // ns: start and end are rounded, and the duration taken between them, so that slices that
  int64_t dur = 0;  // abut in the run still abut in the file (X only)
  std::string name;
  const char* cat = "";
  std::string args;             // JSON object or empty
  const char* scope = nullptr;  // instants: "g", "p" or "t"
  const char* cname = nullptr;
  size_t order = 0;  // insertion order: ties keep it
};

struct Interval {
  double start = 0, end = 0;
  std::string name;
  const char* cat = "";
  std::string args;
  const char* cname = nullptr;
};

class TraceBuilder {
 public:
  TraceBuilder(const ScenarioSpec& spec, const RunResult& run) : spec_(spec), run_(run) {
    for (const auto& g : run.gpus) physical_.emplace(std::make_pair(g.node, g.local), 0);
    int next = FIRST_GPU_PID;
    for (auto& [key, pid] : physical_) pid = next++;
  }

  // --- names ---
  std::string tenant(int t) const {
    return t >= 0 && static_cast<size_t>(t) < spec_.tenants.size() ? spec_.tenants[static_cast<size_t>(t)].name
                                                                   : std::string("(no tenant)");
  }
  std::string workload(int w) const {
    return w >= 0 && static_cast<size_t>(w) < spec_.workloads.size() ? spec_.workloads[static_cast<size_t>(w)].name
                                                                     : std::string("(no workload)");
  }
  std::string replica_name(int t, int w, int r) const {
    return tenant(t) + "/" + workload(w) + "#" + std::to_string(r);
  }
  static const char* colour(int t) {
    constexpr size_t n = sizeof TENANT_COLOURS / sizeof TENANT_COLOURS[0];
    return t < 0 ? "grey" : TENANT_COLOURS[static_cast<size_t>(t) % n];
  }
  bool valid_gpu(int gpu) const { return gpu >= 0 && static_cast<size_t>(gpu) < run_.gpus.size(); }
  /// The device's place on its physical GPU: "" for a whole GPU, " [mig 3g.40gb @4]" for a MIG instance.
  std::string device_suffix(int gpu) const {
    const GpuLayout& g = run_.gpus[static_cast<size_t>(gpu)];
    if (g.mig_profile.empty()) return "";
    return " [mig " + g.mig_profile + " @" + std::to_string(g.mig_start) + " gen " +
           std::to_string(g.layout_generation) + "]";
  }
  int gpu_pid(int gpu) const {
    const GpuLayout& g = run_.gpus[static_cast<size_t>(gpu)];
    return physical_.at({g.node, g.local});
  }
  int workload_pid(int w) const { return FIRST_WORKLOAD_PID + w; }

  /// The thread id of a named track in a process (created on first use, numbered in that order).
  int track(int pid, const std::string& name) {
    auto& tracks = tracks_[pid];
    auto [it, inserted] = tracks.emplace(name, static_cast<int>(tracks.size()) + 1);
    return it->second;
  }

  void slice(int pid, int tid, const Interval& i) {
    const int64_t start = nanoseconds(i.start);
    TraceEvent e{.pid = pid,
                 .tid = tid,
                 .ph = 'X',
                 .ts = start,
                 .dur = std::max<int64_t>(0, nanoseconds(i.end) - start),
                 .name = i.name,
                 .cat = i.cat,
                 .args = i.args,
                 .cname = i.cname};
    push(std::move(e));
  }
  void instant(int pid, int tid, double t, std::string name, const char* cat, const Args& args, const char* scope,
               const char* cname = nullptr) {
    push({.pid = pid,
          .tid = tid,
          .ph = 'i',
          .ts = nanoseconds(t),
          .name = std::move(name),
          .cat = cat,
          .args = args.empty() ? "" : args.str(),
          .scope = scope,
          .cname = cname});
  }
  void counter(int pid, double t, std::string name, const Args& values) {
    push({.pid = pid,
          .tid = 0,
          .ph = 'C',
          .ts = nanoseconds(t),
          .name = std::move(name),
          .cat = "counter",
          .args = values.str()});
  }

  /// Intervals of one group that may overlap, laid out on lanes ("<prefix> <lane>") of process `pid`:
  /// each interval takes the first lane free at its start. Returns how many found no lane.
  size_t lanes(int pid, const std::string& prefix, std::vector<Interval> intervals) {
    std::stable_sort(intervals.begin(), intervals.end(),
                     [](const Interval& a, const Interval& b) { return a.start < b.start; });
    std::vector<double> lane_end;
    size_t dropped = 0;
    for (const auto& i : intervals) {
      size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > i.start) ++lane;
      if (lane == lane_end.size()) {
        if (lane_end.size() == MAX_LANES) {
          ++dropped;
          continue;
        }
        lane_end.push_back(0);
      }
      lane_end[lane] = i.end;
      slice(pid, track(pid, prefix + " " + std::to_string(lane)), i);
    }
    return dropped;
  }

  void name_processes(const std::map<int, std::string>& workload_pids) {
    meta_process(CLUSTER_PID, "cluster", 0);
    if (tracks_.count(NETWORK_PID)) meta_process(NETWORK_PID, "network (shared links)", 1);
    for (const auto& [pid, name] : workload_pids) meta_process(pid, name, pid);
    std::map<int, std::string> gpu_names;
    for (const auto& g : run_.gpus) {
      const int pid = physical_.at({g.node, g.local});
      if (gpu_names.count(pid)) continue;
      gpu_names[pid] =
          g.node_name + "/gpu" + std::to_string(g.local) + " (" + g.product + ", " + sharing_mode_name(g.sharing) + ")";
    }
    for (const auto& [pid, name] : gpu_names) meta_process(pid, name, pid);
    for (const auto& [pid, tracks] : tracks_)
      for (const auto& [name, tid] : tracks) {
        meta.push_back(
            {.pid = pid, .tid = tid, .ph = 'M', .name = "thread_name", .args = Args().text("name", name).str()});
        meta.push_back({.pid = pid,
                        .tid = tid,
                        .ph = 'M',
                        .name = "thread_sort_index",
                        .args = Args().num("sort_index", tid).str()});
      }
  }

  std::string serialise(const Args& other_data) {
    std::stable_sort(events_.begin(), events_.end(), [](const TraceEvent& a, const TraceEvent& b) {
      // Enclosing slices first: at one start, the longer slice opens before the shorter it contains.
      return std::tie(a.pid, a.tid, a.ts, b.dur, a.order) < std::tie(b.pid, b.tid, b.ts, a.dur, b.order);
    });
    std::string out = "{\"displayTimeUnit\":\"ms\",\"otherData\":" + other_data.str() + ",\"traceEvents\":[\n";
    bool first = true;
    const auto write = [&](const TraceEvent& e) {
      out += first ? "" : ",\n";
      first = false;
      out += "{\"ph\":\"";
      out += e.ph;
      out += "\",\"pid\":" + std::to_string(e.pid) + ",\"tid\":" + std::to_string(e.tid) + ",\"name\":" + quote(e.name);
      if (e.ph != 'M') {
        out += ",\"ts\":" + microseconds(e.ts);
        out += ",\"cat\":" + quote(e.cat);
      }
      if (e.ph == 'X') {
        out += ",\"dur\":" + microseconds(e.dur);
      }
      if (e.scope) out += ",\"s\":\"" + std::string(e.scope) + "\"";
      if (e.cname) out += ",\"cname\":\"" + std::string(e.cname) + "\"";
      if (!e.args.empty()) out += ",\"args\":" + e.args;
      out += "}";
    };
    for (const auto& e : meta) write(e);
    for (const auto& e : events_) write(e);
    out += "\n]}\n";
    return out;
  }

  std::vector<TraceEvent> meta;

 private:
  void push(TraceEvent e) {
    e.order = events_.size();
    events_.push_back(std::move(e));
  }
  void meta_process(int pid, const std::string& name, int sort) {
    meta.push_back({.pid = pid, .ph = 'M', .name = "process_name", .args = Args().text("name", name).str()});
    meta.push_back({.pid = pid, .ph = 'M', .name = "process_sort_index", .args = Args().num("sort_index", sort).str()});
  }

  const ScenarioSpec& spec_;
  const RunResult& run_;
  std::map<std::pair<int, int>, int> physical_;  // (node, local GPU) -> pid
  std::map<int, std::map<std::string, int>> tracks_;
  std::vector<TraceEvent> events_;
};

const char* stay_end_name(const Stay& s) {
  switch (s.how) {
    case StayEnd::RUN_END:
      return "run_end";
    case StayEnd::DONE:
      return "done";
    case StayEnd::FAILED:
      return failure_reason_name(s.reason);
  }
  return "";
}

void add_stays(TraceBuilder& b, const RunIndex& index, const RunResult& run) {
  for (const auto& s : index.stays()) {
    if (!b.valid_gpu(s.gpu)) continue;
    const int pid = b.gpu_pid(s.gpu);
    const int tid = b.track(pid, b.replica_name(s.tenant, s.workload, s.replica) + b.device_suffix(s.gpu));
    b.slice(pid, tid,
            {.start = s.start,
             .end = s.end,
             .name = b.tenant(s.tenant),
             .cat = "placement",
             .args = Args()
                         .text("workload", b.workload(s.workload))
                         .num("replica", s.replica)
                         .num("device", s.gpu)
                         .text("sharing", sharing_mode_name(run.gpus[static_cast<size_t>(s.gpu)].sharing))
                         .num("memory_GiB", s.memory / (1024.0 * 1024 * 1024))
                         .text("ended", stay_end_name(s))
                         .str(),
             .cname = TraceBuilder::colour(s.tenant)});
  }
}

/// Per-workload intervals (requests, jobs) gathered from the log, laid out on lanes afterwards.
struct WorkloadIntervals {
  std::vector<Interval> requests;
  std::vector<Interval> jobs;
  size_t requests_seen = 0;
};

struct Collected {
  std::map<int, WorkloadIntervals> workloads;
  std::map<std::string, std::vector<Interval>> links;
  std::map<std::pair<int, std::string>, std::vector<Interval>> busy;  // (GPU pid, track prefix)
};

size_t count_requests(const EventLog& log) {
  size_t n = 0;
  for (const auto& e : log.events()) n += e.type == EventType::REQUEST_DONE;
  return n;
}

// Memory in use per device and tenant, for the counter tracks.
class MemoryCounters {
 public:
  void change(TraceBuilder& b, const Event& e, double delta) {
    if (!b.valid_gpu(e.gpu)) return;
    auto& per_tenant = used_[e.gpu];
    per_tenant[b.tenant(e.tenant)] += delta;
    Args values;
    for (const auto& [tenant, bytes] : per_tenant) values.num(tenant.c_str(), std::max(0.0, bytes) / 1e9);
    b.counter(b.gpu_pid(e.gpu), e.time, "memory used (GB) device " + std::to_string(e.gpu) + b.device_suffix(e.gpu),
              values);
  }

 private:
  std::map<int, std::map<std::string, double>> used_;
};

void add_log_events(TraceBuilder& b, const ScenarioSpec& spec, const RunResult& run, size_t sample_every,
                    Collected& out) {
  const auto& events = run.log.events();
  std::map<std::pair<int, int>, double> job_start;  // (workload, job) -> JOB_START time
  MemoryCounters memory;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const int gpu_pid = b.valid_gpu(e.gpu) ? b.gpu_pid(e.gpu) : -1;
    const auto replica_track = [&] {
      return b.track(gpu_pid, b.replica_name(e.tenant, e.workload, e.replica) + b.device_suffix(e.gpu));
    };
    switch (e.type) {
      case EventType::GPU_BUSY:
      case EventType::GPU_SLICE:
        if (gpu_pid < 0) break;
        // A tenant's workloads on one device may be busy at once: their intervals go on lanes.
        out.busy[{gpu_pid, "busy: " + b.tenant(e.tenant) + b.device_suffix(e.gpu)}].push_back(
            {.start = payload::start_time(e),
             .end = e.time,
             .name = b.tenant(e.tenant),
             .cat = "gpu",
             .args = Args().text("workload", b.workload(e.workload)).str(),
             .cname = TraceBuilder::colour(e.tenant)});
        break;
      case EventType::MODEL_LOAD:
        if (gpu_pid < 0) break;
        b.slice(gpu_pid, replica_track(),
                {.start = payload::start_time(e),
                 .end = e.time,
                 .name = "model load",
                 .cat = "transfer",
                 .args = Args().num("bytes", e.value).str()});
        break;
      case EventType::STEP_DONE:
        if (gpu_pid < 0) break;
        b.slice(gpu_pid, replica_track(),
                {.start = e.time - e.value,
                 .end = e.time,
                 .name = "step",
                 .cat = "step",
                 .args = {},
                 .cname = TraceBuilder::colour(e.tenant)});
        break;
      case EventType::REQUEST_DONE: {
        auto& w = out.workloads[e.workload];
        if (w.requests_seen++ % sample_every != 0) break;
        Args args;
        args.num("latency_s", e.value).num("queueing_s", payload::queueing_delay(e)).num("replica", e.replica);
        if (i + 1 < events.size() && events[i + 1].type == EventType::REQUEST_TOKENS &&
            events[i + 1].workload == e.workload)
          args.num("ttft_s", events[i + 1].value).num("tpot_s", events[i + 1].aux);
        w.requests.push_back({.start = e.time - e.value,
                              .end = e.time,
                              .name = b.tenant(e.tenant),
                              .cat = "request",
                              .args = args.str(),
                              .cname = TraceBuilder::colour(e.tenant)});
        break;
      }
      case EventType::REQUEST_DROPPED:
        out.workloads[e.workload];
        b.instant(b.workload_pid(e.workload), b.track(b.workload_pid(e.workload), "dropped"), e.time, "dropped",
                  "request", Args().num("arrival_s", payload::arrival_time(e)), "t");
        break;
      case EventType::JOB_START:
        job_start[{e.workload, e.replica}] = e.time;
        break;
      case EventType::JOB_DONE: {
        const auto it = job_start.find({e.workload, e.replica});
        if (it == job_start.end()) break;
        out.workloads[e.workload].jobs.push_back(
            {.start = it->second,
             .end = e.time,
             .name = b.tenant(e.tenant),
             .cat = "job",
             .args = Args().num("job", e.replica).num("ideal_s", payload::ideal_time(e)).str(),
             .cname = TraceBuilder::colour(e.tenant)});
        job_start.erase(it);
        break;
      }
      case EventType::PLACEMENT_FAILED:
        b.instant(CLUSTER_PID, b.track(CLUSTER_PID, "placement"), e.time,
                  "placement failed: " + b.replica_name(e.tenant, e.workload, e.replica), "placement",
                  Args().num("memory_asked_GB", e.value / 1e9), "t", "bad");
        break;
      case EventType::OUT_OF_MEMORY:
      case EventType::WORKLOAD_FAILED:
      case EventType::GPU_FAULT: {
        Args args;
        args.text("client", b.replica_name(e.tenant, e.workload, e.replica));
        std::string name = event_type_name(e.type);
        if (e.type == EventType::WORKLOAD_FAILED)
          name += std::string(": ") + failure_reason_name(payload::failure_reason(e));
        if (e.type == EventType::GPU_FAULT) args.num("clients_ended", e.value).num("whole_gpu", payload::whole_gpu(e));
        if (gpu_pid >= 0)
          b.instant(gpu_pid, replica_track(), e.time, name, "fault", args, "p", "terrible");
        else
          b.instant(CLUSTER_PID, b.track(CLUSTER_PID, "placement"), e.time, name, "fault", args, "t", "terrible");
        break;
      }
      case EventType::RECONFIGURE_DONE:
        b.slice(CLUSTER_PID, b.track(CLUSTER_PID, "MIG reconfiguration"),
                {.start = payload::drain_start(e),
                 .end = e.time,
                 .name = "MIG reconfiguration",
                 .cat = "reconfigure",
                 .args = Args().num("replicas_placed_again", e.value).str()});
        break;
      case EventType::MEM_ALLOC:
        memory.change(b, e, e.value);
        break;
      case EventType::MEM_FREE:
        memory.change(b, e, -e.value);
        break;
      case EventType::MEM_RESIDUE:
        if (gpu_pid < 0) break;
        b.instant(gpu_pid, replica_track(), e.time, "residue handed over", "leakage",
                  Args().num("bytes", e.value).text("from_workload", b.workload(payload::source_workload(e))), "t",
                  "terrible");
        break;
      case EventType::ATTACK_DONE: {
        const std::string kind = e.workload >= 0 && static_cast<size_t>(e.workload) < spec.workloads.size()
                                     ? attack_type_name(spec.workloads[static_cast<size_t>(e.workload)].attack.type)
                                     : "attack";
        const int pid = gpu_pid >= 0 ? gpu_pid : CLUSTER_PID;
        b.slice(pid, b.track(pid, "attack: " + b.replica_name(e.tenant, e.workload, e.replica)),
                {.start = payload::start_time(e),
                 .end = e.time,
                 .name = std::string("attack: ") + kind,
                 .cat = "attack",
                 .args = Args().num("summary", e.value).str(),
                 .cname = "terrible"});
        break;
      }
      case EventType::ATTACK_RECOVERED: {
        const int pid = gpu_pid >= 0 ? gpu_pid : CLUSTER_PID;
        b.instant(pid, b.track(pid, "attack: " + b.replica_name(e.tenant, e.workload, e.replica)), e.time, "recovered",
                  "attack", Args().num("bytes", e.value).text("from_workload", b.workload(payload::source_workload(e))),
                  "t", "terrible");
        break;
      }
      case EventType::COMPLIANCE_REFUSED: {
        const size_t rule = payload::refusing_rule(e);
        const std::string rule_name =
            rule < spec.compliance.rules.size() ? spec.compliance.rules[rule].name : std::string("(unknown rule)");
        static constexpr const char* WHAT[] = {"placement", "data access", "key release"};
        const auto what = payload::refused(e);
        b.instant(CLUSTER_PID, b.track(CLUSTER_PID, "compliance"), e.time, "refused by " + rule_name, "compliance",
                  Args()
                      .text("refused", what ? WHAT[static_cast<int>(*what)] : "unknown")
                      .text("client", b.replica_name(e.tenant, e.workload, e.replica))
                      .num("device", e.gpu),
                  "t", "bad");
        break;
      }
      case EventType::QUOTA_QUEUED:
      case EventType::QUOTA_ADMITTED:
      case EventType::QUOTA_PREEMPTED:
        b.instant(CLUSTER_PID, b.track(CLUSTER_PID, "quota: " + b.tenant(e.tenant)), e.time,
                  std::string(event_type_name(e.type)) + ": " + b.workload(e.workload), "quota",
                  Args().num("gpus", e.value), "t");
        break;
      case EventType::ATTESTATION:
      case EventType::KEY_RELEASE:
        if (gpu_pid < 0) break;
        b.instant(gpu_pid, replica_track(), e.time, event_type_name(e.type), "identity", Args().num("granted", e.value),
                  "t", e.value > 0.5 ? "good" : "bad");
        break;
      case EventType::AGENT_CALL:
        if (const auto step = payload::invocation_step(e, run.invocation_steps.size())) {
          const InvocationStep& s = run.invocation_steps[*step];
          const std::string flag = !s.allowed           ? "refused: " + s.reason
                                   : s.confused_deputy  ? "confused deputy"
                                   : s.over_privileged  ? "over-privileged"
                                   : s.after_revocation ? "after revocation"
                                                        : "";
          b.instant(
              CLUSTER_PID,
              b.track(CLUSTER_PID, "identity: " + spec.identity.invocations[static_cast<size_t>(s.invocation)].name),
              e.time, s.from + " -> " + s.to, "identity",
              Args()
                  .text("principal", s.principal)
                  .text("action", s.action)
                  .text("propagation", s.propagation)
                  .text("identity", s.identity)
                  .num("call", s.call)
                  .text("flag", flag),
              "t", flag.empty() ? "good" : "bad");
        }
        break;
      case EventType::SECRET_ROTATED:
      case EventType::SECRET_LEAKED:
        if (const auto secret = payload::secret(e, spec.identity.secrets.size())) {
          const bool leak = e.type == EventType::SECRET_LEAKED;
          b.instant(CLUSTER_PID, b.track(CLUSTER_PID, "secrets"), e.time,
                    std::string(leak ? "leaked: " : "rotated: ") + spec.identity.secrets[*secret].name, "identity",
                    leak ? Args().text("to", b.tenant(e.tenant)) : Args().num("emergency", e.value), "t",
                    leak ? "terrible" : "good");
        }
        break;
      case EventType::DATA_MOVE:
        if (const auto m = payload::data_movement(e, run.data_movements.size())) {
          const DataMovement& d = run.data_movements[*m];
          for (const auto& link : d.links)
            out.links[link].push_back({.start = d.start,
                                       .end = d.end,
                                       .name = b.tenant(d.tenant),
                                       .cat = "data",
                                       .args = Args()
                                                   .text("operation", d.operation)
                                                   .text("from", d.from)
                                                   .text("to", d.to)
                                                   .num("bytes", d.bytes)
                                                   .num("encrypted_in_transit", d.encrypted_in_transit)
                                                   .str(),
                                       .cname = TraceBuilder::colour(d.tenant)});
        }
        break;
      default:
        break;
    }
  }
}

}  // namespace

std::string trace_json(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index) {
  TraceBuilder b(spec, run);
  const size_t requests = count_requests(run.log);
  const size_t sample_every = std::max<size_t>(1, (requests + MAX_REQUEST_SLICES - 1) / MAX_REQUEST_SLICES);
  add_stays(b, index, run);
  Collected collected;
  add_log_events(b, spec, run, sample_every, collected);

  size_t not_drawn = 0;
  std::map<int, std::string> workload_pids;
  for (auto& [w, intervals] : collected.workloads) {
    const int pid = b.workload_pid(w);
    workload_pids[pid] =
        (w >= 0 && static_cast<size_t>(w) < spec.workloads.size() ? spec.workloads[static_cast<size_t>(w)].tenant + "/"
                                                                  : std::string()) +
        b.workload(w) + (intervals.requests.empty() ? " jobs" : " requests");
    not_drawn += b.lanes(pid, "requests", std::move(intervals.requests));
    not_drawn += b.lanes(pid, "jobs", std::move(intervals.jobs));
  }
  for (auto& [track, intervals] : collected.busy) not_drawn += b.lanes(track.first, track.second, std::move(intervals));
  for (auto& [link, intervals] : collected.links) not_drawn += b.lanes(NETWORK_PID, link, std::move(intervals));
  b.name_processes(workload_pids);

  Args other;
  other.text("generator", "gputwin")
      .text("scenario", spec.name)
      .text("seed", std::to_string(run.seed))
      .num("simulated_end_s", run.end_time)
      .num("requests", static_cast<double>(requests))
      .num("requests_drawn_one_in", static_cast<double>(sample_every))
      .num("slices_not_drawn_lanes_full", static_cast<double>(not_drawn))
      .num("max_lanes", static_cast<double>(MAX_LANES));
  if (!run.stopped_early.empty()) other.text("stopped_early", run.stopped_early);
  return b.serialise(other);
}

}  // namespace gtw
