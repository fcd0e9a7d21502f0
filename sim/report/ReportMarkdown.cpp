#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/report/Writers.hpp"

namespace gtw {
namespace {

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
  return buf;
}

std::string secs(double v) {
  return std::isfinite(v) ? format_duration(Seconds(v)) : "unbounded";
}

std::string value_text(const SloResult& s, double v) {
  if (!std::isfinite(v)) return "unbounded";
  if (s.unit == "s") return format_duration(Seconds(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, s.unit == "x" ? "%.2fx" : "%.1f/s", v);
  return buf;
}

}  // namespace

std::string report_markdown(const ScenarioSpec& spec, const RunResult& run, const Analysis& a) {
  std::ostringstream md;
  md << "# gputwin report: " << spec.name << "\n\n";
  if (!spec.description.empty()) md << spec.description << "\n\n";
  md << "Scenario `" << spec.source_file << "`, seed " << spec.seed << ", " << format_duration(spec.duration)
     << " simulated (SLO windows of " << format_duration(spec.sla_window) << "), " << a.gpus.size() << " GPUs, "
     << a.tenants.size() << " tenants, placement policy `" << spec.placement.name << "`.\n\n";

  md << "## Verdict\n\n";
  if (a.slos_missed == 0) {
    md << "Every SLO was met.\n\n";
  } else {
    md << "**" << a.slos_missed << " of " << a.slos.size() << " SLOs missed.**\n\n";
    for (const auto& s : a.slos) {
      if (s.met) continue;
      md << "- **" << s.tenant_name << " / " << s.name << "** (" << s.objective << "): " << s.explanation << ".\n";
    }
    md << "\n";
  }

  md << "## SLOs\n\n";
  md << "| tenant | SLO | objective | met | violated | compliance | target | worst | violation min | blame (GPU time "
        "on its GPUs during violations) |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : a.slos) {
    std::string blame;
    for (const auto& b : s.attribution) {
      if (!blame.empty()) blame += ", ";
      blame += b.who + " " + pct(b.share);
    }
    char vm[32];
    std::snprintf(vm, sizeof vm, "%.1f", s.violation_minutes);
    md << "| " << s.tenant_name << " | " << s.name << " | " << s.objective << " | " << (s.met ? "yes" : "**NO**")
       << " | " << s.violated << "/" << s.evaluated << " | " << pct(s.compliance) << " | " << pct(s.target) << " | "
       << value_text(s, s.worst) << " | " << vm << " | " << (blame.empty() ? "-" : blame) << " |\n";
  }

  for (size_t t = 0; t < a.tenants.size(); ++t) {
    const auto& tr = a.tenants[t];
    md << "\n## Tenant " << tr.name << "\n\n";
    md << "Region " << (tr.region.empty() ? "-" : tr.region) << ", classification " << tr.classification << ", "
       << format_duration(Seconds(tr.gpu_seconds)) << " of GPU time.\n\n";
    md << "| workload | kind | replicas (placed/failed) | GPUs | completed | dropped | p50 | p95 | p99 | max | mean "
          "slowdown |\n";
    md << "|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& w : a.workloads) {
      if (w.tenant != static_cast<int>(t)) continue;
      std::string gpus;
      for (int g : w.gpus) gpus += (gpus.empty() ? "" : " ") + std::to_string(g);
      md << "| " << w.name << " | " << w.kind << " | " << w.replicas_requested << " (" << w.replicas_placed << "/"
         << w.replicas_failed << ") | " << (gpus.empty() ? "-" : gpus) << " | ";
      if (w.kind == "inference") {
        md << w.requests_completed << " req | " << w.requests_dropped << " | " << secs(w.latency.p50) << " | "
           << secs(w.latency.p95) << " | " << secs(w.latency.p99) << " | " << secs(w.latency.max) << " | - |\n";
      } else {
        char sd[32];
        std::snprintf(sd, sizeof sd, "%.2fx", w.mean_slowdown);
        md << w.jobs_completed << " jobs | " << w.jobs_unfinished + w.jobs_failed << " | - | - | - | - | "
           << (w.jobs_completed ? sd : "-") << " |\n";
      }
    }
  }

  if (!a.faults.empty()) {
    md << "\n## Faults\n\n";
    md << "| time | GPU | faulting client | fault domain | clients ended |\n|---|---|---|---|---|\n";
    for (const auto& f : a.faults) {
      std::string ended;
      for (const auto& v : f.victims) ended += (ended.empty() ? "" : ", ") + v;
      md << "| " << format_duration(Seconds(f.time)) << " | " << f.gpu << " | " << f.tenant << "/" << f.workload << "["
         << f.replica << "] | " << (f.whole_gpu ? "whole GPU" : "the client") << " | " << (ended.empty() ? "-" : ended)
         << " |\n";
    }
  }

  md << "\n## GPUs\n\n";
  md << "| GPU | node | sharing | tenants | utilisation | by tenant | context switches |\n";
  md << "|---|---|---|---|---|---|---|\n";
  for (const auto& g : a.gpus) {
    std::string tenants, by;
    for (int t : g.tenants) tenants += (tenants.empty() ? "" : ", ") + spec.tenants[static_cast<size_t>(t)].name;
    for (size_t t = 0; t < g.busy_by_tenant.size(); ++t)
      if (g.busy_by_tenant[t] > 0)
        by += (by.empty() ? "" : ", ") + spec.tenants[t].name + " " + pct(g.busy_by_tenant[t] / a.duration);
    std::string sharing = g.layout.sharing;
    if (g.layout.slots > 1) sharing += " x" + std::to_string(g.layout.slots);
    md << "| " << g.layout.index << " | " << g.layout.node_name << " | " << sharing << " | "
       << (tenants.empty() ? "-" : tenants) << " | " << pct(g.utilisation) << " | " << (by.empty() ? "-" : by) << " | "
       << g.context_switches << " |\n";
  }
  md << "\n"
     << run.log.size() << " events, " << run.counters.kernels << " kernels, " << run.counters.context_switches
     << " context switches; simulation stopped at " << format_duration(Seconds(run.end_time)) << ".\n";
  return md.str();
}

}  // namespace gtw
