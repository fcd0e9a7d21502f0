#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "ComplianceWriters.hpp"
#include "Text.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

// Continuous-batching services of a tenant: the token-level view (docs/models/serving.md).
void serving_table(const Analysis& a, size_t t, std::ostream& md) {
  bool any = false;
  for (const auto& w : a.workloads) any = any || (w.tenant == static_cast<int>(t) && w.serving.replicas > 0);
  if (!any) return;
  md << "\n| workload | TTFT p50 | TTFT p99 | TPOT p50 | TPOT p99 | output tokens/s | goodput | KV use (mean/peak) | "
        "preemptions |\n|---|---|---|---|---|---|---|---|---|\n";
  char buf[64];
  for (const auto& w : a.workloads) {
    if (w.tenant != static_cast<int>(t) || w.serving.replicas == 0) continue;
    const auto ms = [&](double v) {
      std::snprintf(buf, sizeof buf, "%.1f ms", 1e3 * v);
      return std::string(buf);
    };
    md << "| " << w.name << " | " << ms(w.ttft.p50) << " | " << ms(w.ttft.p99) << " | " << ms(w.tpot.p50) << " | "
       << ms(w.tpot.p99) << " | ";
    std::snprintf(buf, sizeof buf, "%.0f", w.serving.output_tokens_per_s);
    md << buf << " | ";
    if (w.serving.goodput >= 0) {
      std::snprintf(buf, sizeof buf, "%.1f%%", 100 * w.serving.goodput);
      md << buf;
    } else {
      md << "-";
    }
    std::snprintf(buf, sizeof buf, " | %.0f%% / %.0f%% | ", 100 * w.serving.kv_utilisation, 100 * w.serving.kv_peak);
    md << buf << w.serving.preemptions << " |\n";
  }
}

std::string two_decimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

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
  if (s.unit == "ratio") return pct(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, s.unit == "x" ? "%.2fx" : "%.1f/s", v);
  return buf;
}

std::string bits_text(double bits) {
  const char* units[] = {"bit", "kbit", "Mbit", "Gbit", "Tbit", "Pbit"};
  int u = 0;
  while (bits >= 1000 && u < 5) {
    bits /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g %s", bits, units[u]);
  return buf;
}

std::string rate_text(double bps) {
  return bits_text(bps) + "/s";
}

// The names, or "-" for none.
std::string names_or_dash(const std::vector<std::string>& items) {
  const std::string out = join(items);
  return out.empty() ? "-" : out;
}

std::string tenant_of(const ScenarioSpec& spec, int t) {
  return t >= 0 && static_cast<size_t>(t) < spec.tenants.size() ? spec.tenants[static_cast<size_t>(t)].name : "-";
}

// Identity at run time: the invocations' hops, secret leaks and incidents (docs/models/identity.md).
void markdown_identity_runtime(std::ostringstream& md, const ScenarioSpec& spec, const LeakageReport& l) {
  const auto at = [](double t) { return t >= 0 ? format_duration(Seconds(t)) : std::string("never"); };
  if (!l.agents.invocations.empty()) {
    md << "\n### Invocations at run time\n\n";
    md << "| invocation | principal -> entry | calls | hops | refused | confused deputy | over-privileged | after "
          "revocation | first deputy at |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& p : l.agents.invocations) {
      std::string why;
      for (const auto& [reason, n] : p.refused_by) why += (why.empty() ? "" : ", ") + reason + " " + std::to_string(n);
      const std::string refused = std::to_string(p.refused) + (why.empty() ? "" : " (" + why + ")");
      md << "| " << p.name << " | " << p.principal << " -> " << p.entry << " | " << p.calls << " | " << p.hops << " | "
         << refused << " | " << (p.confused_deputy ? "**" + std::to_string(p.confused_deputy) + "**" : "0") << " | "
         << p.over_privileged << " | " << p.after_revocation << " | " << at(p.first_deputy_at) << " |\n";
    }
  }
  if (!l.secret_leaks.empty()) {
    md << "\n### Secret leaks\n\n";
    md << "| secret | owner -> to | leaked | known | usable until | exposed | opens |\n|---|---|---|---|---|---|---|\n";
    for (const auto& w : l.secret_leaks)
      md << "| " << spec.identity.secrets[static_cast<size_t>(w.secret)].name << " | " << tenant_of(spec, w.owner)
         << " -> " << (w.to >= 0 ? tenant_of(spec, w.to) : std::string("outsider")) << " | " << at(w.at) << " | "
         << at(w.known_at) << " | " << (w.end >= 0 ? at(w.end) + " (" + w.ended_by + ")" : "**the end of the run**")
         << " | " << format_duration(Seconds(w.exposure_s)) << " | " << names_or_dash(w.protects) << " |\n";
  }
  if (!l.incidents.empty()) {
    md << "\n### Incidents\n\n";
    md << "| kind | of | affected <- by | at | known | notified |\n|---|---|---|---|---|---|\n";
    for (const auto& in : l.incidents)
      md << "| " << in.kind << " | " << in.resource << " | " << tenant_of(spec, in.affected) << " <- "
         << (in.observer >= 0 ? tenant_of(spec, in.observer) : std::string("outsider")) << " | " << at(in.time) << " | "
         << at(in.known_at) << " | " << at(in.notified_at) << " |\n";
  }
}

void leakage_markdown(std::ostringstream& md, const ScenarioSpec& spec, const LeakageReport& l) {
  using channel::State;
  constexpr size_t MAX_ROWS = 40;
  md << "\n## Leakage surface\n\n";
  md << l.open_channels << " open channel(s) between tenants (" << l.unquantified_channels
     << " without a published capacity); bound " << bits_text(l.total_bits) << " over the run; "
     << format_bytes(Bytes(l.total_bytes)) << " of discrete exposure (unscrubbed memory, plaintext transfers).";
  // The isolation settings in force, joined with "; " (device isolation is the default, said all the same).
  std::vector<std::string> settings;
  if (l.options.scrub_on_free)
    settings.push_back("scrub on free (" + format_bytes(Bytes(l.scrubbed_bytes)) + " overwritten in " +
                       format_duration(Seconds(l.scrub_seconds)) + " of HBM time)");
  if (l.options.timer_resolution_s > 0)
    settings.push_back("timer resolution " + format_duration(Seconds(l.options.timer_resolution_s)));
  if (l.options.noise_injection_s > 0)
    settings.push_back("noise injection " + format_duration(Seconds(l.options.noise_injection_s)));
  settings.push_back(l.options.gpu_visibility == GpuVisibility::ALLOCATED
                         ? "GPU visibility: allocated GPUs only (no peer access to other tenants' GPUs)"
                         : "GPU visibility: every GPU of the node (peer access to other tenants' GPUs)");
  if (l.options.query_rate_limit > 0) settings.push_back("query rate limit");
  if (l.options.query_budget > 0) settings.push_back("query budget " + std::to_string(l.options.query_budget));
  if (l.options.weight_encryption) settings.push_back("weight encryption");
  if (l.options.api.noise_nats > 0)
    settings.push_back(format_printf("output noise %.3g nats (%.0f answers perturbed)", l.options.api.noise_nats,
                                     l.answers_perturbed));
  if (l.options.api.watermark_fraction > 0)
    settings.push_back(format_printf("watermark on %.3g of answers (%.0f answers altered)",
                                     l.options.api.watermark_fraction, l.answers_watermarked));
  md << " Isolation settings: " << join(settings, "; ") << ".";
  md << " Formulas and limits: docs/models/leakage.md.\n\n";

  md << "| tenant | can learn (as observer) | exposed (as source) | bytes received | bytes exposed |\n";
  md << "|---|---|---|---|---|\n";
  for (const auto& t : l.tenants)
    md << "| " << t.name << " | " << bits_text(t.bits_as_observer) << " | " << bits_text(t.bits_as_source) << " | "
       << format_bytes(Bytes(t.bytes_as_observer)) << " | " << format_bytes(Bytes(t.bytes_as_source)) << " |\n";

  if (!l.channels.empty()) {
    std::vector<const LeakageChannel*> rows;
    for (const auto& c : l.channels) rows.push_back(&c);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const LeakageChannel* a, const LeakageChannel* b) { return a->bound_bits > b->bound_bits; });
    md << "\n### Open channels\n\n";
    md << "| observer <- source | resource | relation | exposure | capacity | bound | capacity from |\n";
    md << "|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < rows.size() && i < MAX_ROWS; ++i) {
      const auto& c = *rows[i];
      const bool q = c.state == State::OPEN;
      md << "| " << tenant_of(spec, c.observer) << " <- " << tenant_of(spec, c.source) << " | "
         << channel::resource_description(c.resource) << " | " << channel::mode_name(c.mode) << " | "
         << format_duration(Seconds(c.exposure_s)) << " | " << (q ? rate_text(c.capacity_bps) : "unquantified") << " | "
         << (q ? bits_text(c.bound_bits) : "-")
         << (c.counted
                 ? std::string()
                 : std::string(" (same measurement as ") + channel::resource_name(c.counted_in) + ": counted once)")
         << " | " << c.capacity_source << " |\n";
    }
    if (rows.size() > MAX_ROWS) md << "\n" << rows.size() - MAX_ROWS << " more in report.json.\n";
  }

  if (!l.closed.empty()) {
    // Aggregated per channel: what the design closed while tenants were co-active.
    std::map<std::pair<std::string, std::string>, std::pair<double, std::string>> agg;
    for (const auto& c : l.closed) {
      auto& e = agg[{channel::resource_description(c.resource), channel::mode_name(c.mode)}];
      e.first += c.co_active_s;
      e.second = c.reason;
    }
    md << "\n### Closed by the design while tenants were co-active\n\n";
    md << "| resource | relation | pair-seconds | why closed |\n|---|---|---|---|\n";
    for (const auto& [k, v] : agg)
      md << "| " << k.first << " | " << k.second << " | " << format_duration(Seconds(v.first)) << " | " << v.second
         << " |\n";
  }

  if (!l.discrete.empty()) {
    md << "\n### Discrete exposures\n\n";
    md << "| observer <- source | kind | data of | bytes | status |\n|---|---|---|---|---|\n";
    for (const auto& d : l.discrete)
      md << "| " << tenant_of(spec, d.observer) << " <- " << tenant_of(spec, d.source) << " | "
         << discrete_kind_name(d.kind) << " | "
         << (d.data >= 0       ? spec.data[static_cast<size_t>(d.data)].name
             : d.workload >= 0 ? spec.workloads[static_cast<size_t>(d.workload)].name
                               : "-")
         << " | " << format_bytes(Bytes(d.bytes)) << " | " << (d.closed ? "closed: " + d.closed_reason : "**open**")
         << " |\n";
  }

  markdown_identity_runtime(md, spec, l);

  if (!l.attacks.empty()) {
    md << "\n### Attacks replayed in the simulation\n\n";
    md << "| attack | type | attacker <- victim | channel | achieved | analytic bound | within bound |\n"
          "|---|---|---|---|---|---|---|\n";
    for (const auto& r : l.attacks) {
      std::string bound = "-";
      if (r.type == "covertChannel" || r.type == "primeProbe" || r.type == "modelExtraction")
        bound = r.bound_state == "closed" ? "closed" : rate_text(r.bound_bps);
      if (r.type == "remanenceScrape") bound = format_bytes(Bytes(r.bound_bytes)) + " unscrubbed";
      if (r.type == "queryExtraction") bound = std::to_string(static_cast<long long>(r.bound_queries)) + " queries";
      md << "| " << r.name << " | " << r.type << " | " << r.attacker << " <- " << (r.victim.empty() ? "-" : r.victim)
         << " | " << r.resource << " / " << r.relation << " | " << r.outcome << " | " << bound << " | "
         << (r.within_bound ? "yes" : "**no**") << " |\n";
    }
  }

  if (!l.models.empty()) {
    md << "\n### Model IP\n\n";
    md << "| model | owner | part | channel | status | exposed to | closed by |\n|---|---|---|---|---|---|---|\n";
    for (const auto& m : l.models)
      for (const auto& x : m.exposures)
        md << "| " << m.name << " | " << m.owner << " | " << x.part << " | " << x.channel << " | "
           << (x.status == "open" ? "**open**" : x.status) << " | " << names_or_dash(x.tenants) << " | "
           << names_or_dash(x.closed_by) << " |\n";
  }
}

// Per resource, when a quota counts more than whole GPUs (MIG instances, a renamed resource): devices admitted
// of each, as Kueue keeps each resource's quota apart.
void quota_resources_markdown(std::ostringstream& md, const std::vector<QuotaResult>& quotas) {
  const bool beyond_gpus = std::any_of(quotas.begin(), quotas.end(), [](const QuotaResult& q) {
    return std::any_of(q.resources.begin(), q.resources.end(),
                       [](const QuotaResourceResult& r) { return r.resource != GPU_RESOURCE; });
  });
  if (!beyond_gpus) return;
  md << "\nBy resource (devices of each resource counted apart):\n\n";
  md << "| tenant | resource | nominal | borrowing limit | lending limit | peak | device time | borrowed |\n"
        "|---|---|---|---|---|---|---|---|\n";
  const auto limit = [](int v) { return v >= 0 ? std::to_string(v) : std::string("none"); };
  for (const auto& q : quotas)
    for (const auto& r : q.resources)
      md << "| " << q.tenant << " | " << r.resource << " | " << r.nominal << " | " << limit(r.borrowing_limit) << " | "
         << limit(r.lending_limit) << " | " << r.peak << " | " << format_duration(Seconds(r.device_seconds)) << " | "
         << format_duration(Seconds(r.borrowed_device_seconds)) << " |\n";
}

// Fair sharing: each queue's weight and weighted share (borrowed x 1000 / what its cohort could lend, over the
// weight), as Kueue reports it in status.fairSharing.weightedShare.
void quota_fair_sharing_markdown(std::ostringstream& md, const ScenarioSpec& spec,
                                 const std::vector<QuotaResult>& quotas) {
  std::string strategies;
  for (FairSharingStrategy s : spec.fair_sharing.strategies)
    strategies += (strategies.empty() ? "" : ", ") + fair_sharing_strategy_names()[static_cast<size_t>(s)];
  md << "\nFair sharing (preemption strategies: " << strategies
     << "): weighted share = borrowed x 1000 / what the cohort could lend, over the weight.\n\n";
  md << "| tenant | weight | peak share | mean share |\n|---|---|---|---|\n";
  const auto share = [](double v) {
    return std::isfinite(v) ? std::to_string(std::lround(v)) : std::string("unbounded");
  };
  for (const auto& q : quotas)
    md << "| " << q.tenant << " | " << two_decimals(q.fair_weight) << " | " << share(q.peak_share) << " | "
       << share(q.mean_share) << " |\n";
}

// One line on what the numbers rest on (report.json parameter_provenance has the names).
std::string parameter_provenance_line(const ProvenanceSummary& p) {
  if (p.total() == 0) return "";
  return "Parameters behind these numbers: " + std::to_string(p.total()) + " (" + p.describe() + "); " +
         pct(p.fitted_or_assumed_share()) + " fitted or assumed (report.json `parameter_provenance` names them).\n\n";
}

}  // namespace

std::string report_markdown(const ScenarioSpec& spec, const RunResult& run, const Analysis& a,
                            const LeakageReport* leakage, const ComplianceReport* compliance) {
  std::ostringstream md;
  md << "# gputwin report: " << spec.name << "\n\n";
  if (!spec.description.empty()) md << spec.description << "\n\n";
  md << "Scenario `" << spec.source_file << "`, seed " << spec.seed << ", " << format_duration(spec.duration)
     << " simulated (SLO windows of " << format_duration(spec.sla_window) << "), " << a.gpus.size() << " GPUs, "
     << a.tenants.size() << " tenants, placement policy `" << spec.placement.name << "`.\n\n";
  if (!run.stopped_early.empty())
    md << "**Partial results: the run was stopped at " << format_duration(Seconds(run.end_time)) << " simulated ("
       << run.stopped_early << ").** Everything below covers the simulated time until then.\n\n";
  if (a.cost.total > 0)
    md << "Cost over the run: " << two_decimals(a.cost.total) << " (" << two_decimals(a.cost.provisioned_gpu_hours)
       << " GPU-hours provisioned); " << two_decimals(a.cost.allocated) << " charged back to tenants, "
       << two_decimals(a.cost.idle) << " idle.\n\n";
  md << parameter_provenance_line(run.parameter_provenance);

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
        "on its GPUs, bytes on its storage and fabric links, during violations) |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : a.slos) {
    std::string blame;
    for (const auto& b : s.attribution) {
      if (!blame.empty()) blame += ", ";
      blame += b.who + " " + pct(b.share) + (b.via == "gpu" ? "" : " (" + b.via + ")");
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
       << format_duration(Seconds(tr.gpu_seconds)) << " of GPU time";
    // Chargeback: what the tenant held, by partition kind, whether it computed or not.
    std::string held;
    double hours = 0;
    for (const auto& [kind, h] : tr.allocated_gpu_hours) {
      held += (held.empty() ? "" : ", ") + two_decimals(h) + " " + kind;
      hours += h;
    }
    if (hours > 0) md << "; allocated " << two_decimals(hours) << " GPU-hours (" << held << ")";
    if (tr.cost > 0) md << ", cost " << two_decimals(tr.cost);
    md << ".\n\n";
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
    serving_table(a, t, md);
  }

  if (!a.faults.empty()) {
    md << "\n## Faults\n\n";
    md << "| time | GPU | faulting client | fault domain | clients ended |\n|---|---|---|---|---|\n";
    for (const auto& f : a.faults) {
      std::string ended;
      for (const auto& v : f.victims) ended += (ended.empty() ? "" : ", ") + v;
      md << "| " << format_duration(Seconds(f.time)) << " | " << f.gpu << " | " << f.tenant << "/" << f.workload << "["
         << f.replica << "] | "
         << (f.whole_node  ? "whole node"
             : f.whole_gpu ? (mig_instance(a, f.gpu) ? "whole MIG instance" : "whole GPU")
                           : "the client")
         << " | " << (ended.empty() ? "-" : ended) << " |\n";
    }
  }

  if (!a.reconfigurations.empty()) {
    md << "\n## MIG reconfigurations\n\n";
    md << "| pool | drain started | instances up | GPUs | new layout | replicas evicted | placed again |\n"
          "|---|---|---|---|---|---|---|\n";
    for (const auto& r : a.reconfigurations) {
      std::string layout;
      for (const auto& p : r.new_layout) layout += (layout.empty() ? "" : ", ") + p;
      md << "| " << r.node_pool << " | " << format_duration(Seconds(r.start)) << " | "
         << (r.done >= 0 ? format_duration(Seconds(r.done)) : std::string("not within the run")) << " | " << r.gpus
         << " | " << layout << " | " << r.replicas_evicted << " | " << r.replicas_replaced << " |\n";
    }
  }

  if (!a.quotas.empty()) {
    md << "\n## Quotas\n\n";
    md << "Kueue-like GPU quotas: workloads admitted whole within the nominal quota plus what the tenant borrowed "
          "from others' unused quota; a lender reclaims by preempting borrowers (docs/models/quotas.md).\n\n";
    md << "| tenant | nominal | borrowing limit | peak GPUs | GPU time | borrowed | admitted | queued | max wait | "
          "preempted | reclaimed | still queued |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& q : a.quotas) {
      std::string waiting;
      for (const auto& w : q.still_queued) waiting += (waiting.empty() ? "" : ", ") + w;
      md << "| " << q.tenant << " | " << q.gpu.nominal << " | "
         << (q.gpu.borrowing_limit >= 0 ? std::to_string(q.gpu.borrowing_limit) : std::string("none")) << " | "
         << q.gpu.peak << " | " << format_duration(Seconds(q.gpu.device_seconds)) << " | "
         << format_duration(Seconds(q.gpu.borrowed_device_seconds)) << " | " << q.admissions << " | " << q.queued
         << " | " << format_duration(Seconds(q.max_wait)) << " | " << q.preempted << " | " << q.reclaimed << " | "
         << (waiting.empty() ? "-" : waiting) << " |\n";
    }
    quota_resources_markdown(md, a.quotas);
    if (spec.fair_sharing.enabled) quota_fair_sharing_markdown(md, spec, a.quotas);
  }

  if (!a.boundaries.empty()) {
    md << "\n## Isolation boundaries\n\n";
    md << "Host layers shared by tenants with replicas on the same node (by their runtimes; "
          "docs/models/runtimes.md).\n\n";
    md << "| tenants | node | same GPU | runtimes | shared layers |\n|---|---|---|---|---|\n";
    for (const auto& b : a.boundaries)
      md << "| " << b.tenant_a << " / " << b.tenant_b << " | " << b.node << " | " << (b.same_gpu ? "yes" : "no")
         << " | " << names_or_dash(b.runtimes_a) << " / " << names_or_dash(b.runtimes_b) << " | "
         << names_or_dash(b.shared_layers) << " |\n";
  }

  if (leakage) leakage_markdown(md, spec, *leakage);
  if (compliance && compliance->configured) {
    md << "\n";
    compliance_markdown(md, spec, *compliance);
  }

  md << "\n## GPUs\n\n";
  md << "| GPU | node | sharing | tenants | utilisation | by tenant | context switches |\n";
  md << "|---|---|---|---|---|---|---|\n";
  for (const auto& g : a.gpus) {
    std::string tenants, by;
    for (int t : g.tenants) tenants += (tenants.empty() ? "" : ", ") + spec.tenants[static_cast<size_t>(t)].name;
    for (const auto& [t, seconds] : g.busy_by_tenant)
      if (seconds > 0)
        by += (by.empty() ? "" : ", ") + spec.tenants[static_cast<size_t>(t)].name + " " + pct(seconds / a.duration);
    std::string sharing = sharing_mode_name(g.layout.sharing);
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
