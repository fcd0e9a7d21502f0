#include <nlohmann/json.hpp>

#include <cmath>

#include "sim/report/Writers.hpp"

namespace gtw {
namespace {

using json = nlohmann::ordered_json;

// JSON has no infinity: unbounded values (a dropped request's latency) are written as null.
json num(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json latency_json(const LatencyStats& s) {
  return json{{"count", s.count},    {"mean_s", num(s.mean)}, {"p50_s", num(s.p50)},
              {"p95_s", num(s.p95)}, {"p99_s", num(s.p99)},   {"max_s", num(s.max)}};
}

}  // namespace

std::string report_json(const ScenarioSpec& spec, const RunResult& run, const Analysis& a, const Provenance& p) {
  json root;
  root["schema_version"] = REPORT_SCHEMA_VERSION;
  root["scenario"] = {{"name", spec.name},
                      {"file", spec.source_file},
                      {"sha256", spec.source_sha256},
                      {"seed", spec.seed},
                      {"duration_s", spec.duration.value},
                      {"sla_window_s", spec.sla_window.value},
                      {"placement_policy", spec.placement.name}};
  json summary = {{"tenants", a.tenants.size()},     {"workloads", a.workloads.size()},
                  {"gpus", a.gpus.size()},           {"slos", a.slos.size()},
                  {"slos_missed", a.slos_missed},    {"events", run.log.size()},
                  {"kernels", run.counters.kernels}, {"context_switches", run.counters.context_switches},
                  {"simulated_end_s", run.end_time}};
  root["summary"] = summary;

  json tenants = json::array();
  for (size_t t = 0; t < a.tenants.size(); ++t) {
    const auto& tr = a.tenants[t];
    json tj = {{"name", tr.name},
               {"region", tr.region},
               {"classification", tr.classification},
               {"gpu_seconds", tr.gpu_seconds},
               {"slos_total", tr.slos},
               {"slos_missed", tr.slos_missed}};
    json slos = json::array();
    for (const auto& s : a.slos) {
      if (s.tenant != static_cast<int>(t)) continue;
      json windows = json::array();
      for (const auto& w : s.windows)
        windows.push_back({{"start_s", w.start}, {"value", num(w.value)}, {"violated", w.violated}});
      json blame = json::array();
      for (const auto& b : s.attribution) blame.push_back({{"who", b.who}, {"share", b.share}});
      slos.push_back({{"name", s.name},
                      {"kind", s.kind},
                      {"workload", s.workload},
                      {"objective", s.objective},
                      {"met", s.met},
                      {"evaluated", s.evaluated},
                      {"violated", s.violated},
                      {"violation_minutes", s.violation_minutes},
                      {"compliance", s.compliance},
                      {"target", s.target},
                      {"error_budget_burn", s.error_budget_burn < 0 ? json(nullptr) : json(s.error_budget_burn)},
                      {"worst", num(s.worst)},
                      {"unit", s.unit},
                      {"threshold", s.threshold},
                      {"higher_is_better", s.higher_is_better},
                      {"explanation", s.explanation},
                      {"attribution", blame},
                      {"windows", windows}});
    }
    tj["slos"] = slos;
    json workloads = json::array();
    for (const auto& w : a.workloads) {
      if (w.tenant != static_cast<int>(t)) continue;
      json wj = {{"name", w.name},
                 {"kind", w.kind},
                 {"replicas_requested", w.replicas_requested},
                 {"replicas_placed", w.replicas_placed},
                 {"replicas_failed", w.replicas_failed},
                 {"replicas_killed_by_faults", w.replicas_killed_by_faults},
                 {"gpus", w.gpus}};
      if (w.kind == "inference") {
        wj["requests"] = {
            {"arrived", w.requests_arrived}, {"completed", w.requests_completed}, {"dropped", w.requests_dropped}};
        wj["latency"] = latency_json(w.latency);
        wj["queueing"] = latency_json(w.queueing);
        wj["mean_batch"] = w.mean_batch;
      } else {
        wj["jobs"] = {{"submitted", w.jobs_submitted},
                      {"completed", w.jobs_completed},
                      {"unfinished", w.jobs_unfinished},
                      {"failed", w.jobs_failed}};
        wj["mean_completion_s"] = w.mean_completion;
        wj["mean_slowdown"] = w.mean_slowdown;
        wj["max_slowdown"] = w.max_slowdown;
        if (w.kind == "training") wj["steps_completed"] = w.steps_completed;
      }
      workloads.push_back(wj);
    }
    tj["workloads"] = workloads;
    tenants.push_back(tj);
  }
  root["tenants"] = tenants;

  json gpus = json::array();
  for (const auto& g : a.gpus) {
    json by_tenant = json::object();
    for (size_t t = 0; t < g.busy_by_tenant.size(); ++t)
      if (g.busy_by_tenant[t] > 0) by_tenant[spec.tenants[t].name] = g.busy_by_tenant[t] / a.duration;
    json tenant_names = json::array();
    for (int t : g.tenants) tenant_names.push_back(spec.tenants[static_cast<size_t>(t)].name);
    gpus.push_back({{"index", g.layout.index},
                    {"node", g.layout.node_name},
                    {"local_index", g.layout.local},
                    {"pool", g.layout.pool},
                    {"product", g.layout.product},
                    {"sharing", g.layout.sharing},
                    {"slots", g.layout.slots},
                    {"tenants", tenant_names},
                    {"utilisation", g.utilisation},
                    {"utilisation_by_tenant", by_tenant},
                    {"context_switches", g.context_switches},
                    {"context_switch_seconds", g.switch_seconds}});
  }
  root["gpus"] = gpus;
  json faults = json::array();
  for (const auto& f : a.faults) {
    faults.push_back({{"time_s", f.time},
                      {"gpu", f.gpu},
                      {"tenant", f.tenant},
                      {"workload", f.workload},
                      {"replica", f.replica},
                      {"domain", f.whole_gpu ? "gpu" : "client"},
                      {"clients_ended", f.clients_ended},
                      {"ended", f.victims}});
  }
  root["faults"] = faults;
  json profiles = json::array();
  for (const auto& s : run.profile_sha256) profiles.push_back(s);
  root["hardware_profiles"] = profiles;
  root["provenance"] = {{"gputwin_version", p.gputwin_version}, {"simgrid_version", p.simgrid_version},
                        {"command_line", p.command_line},       {"host", p.host},
                        {"started_utc", p.started_utc},         {"wall_seconds", p.wall_seconds}};
  return root.dump(2) + "\n";
}

}  // namespace gtw
