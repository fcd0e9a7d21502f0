// The run's tables as CSV files for spreadsheet users (`--format csv`; docs/formats/csv.md): RFC 4180
// quoting, a header row, column names as report.json's keys, times in seconds, empty cells for
// "none" (null in report.json).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ComplianceApi.hpp"
#include "RunIndex.hpp"
#include "Text.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

struct Null {};
using Cell = std::variant<Null, std::string, double, long long, bool>;

std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string cell_text(const Cell& c) {
  if (std::holds_alternative<std::string>(c)) return quoted(std::get<std::string>(c));
  if (std::holds_alternative<double>(c)) {
    const double v = std::get<double>(c);
    if (!std::isfinite(v)) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
  }
  if (std::holds_alternative<long long>(c)) return std::to_string(std::get<long long>(c));
  if (std::holds_alternative<bool>(c)) return std::get<bool>(c) ? "true" : "false";
  return "";
}

class Table {
 public:
  Table(std::string file, std::initializer_list<const char*> columns) : file_(std::move(file)) {
    std::string header;
    for (const char* c : columns) header += (header.empty() ? "" : ",") + std::string(c);
    text_ = header + "\r\n";
    columns_ = columns.size();
  }
  void row(std::initializer_list<Cell> cells) {
    if (cells.size() != columns_) throw std::logic_error(file_ + ": a row's width differs from the header's");
    std::string line;
    bool first = true;
    for (const auto& c : cells) {
      line += (first ? "" : ",") + cell_text(c);
      first = false;
    }
    text_ += line + "\r\n";
  }
  CsvFile done() { return {file_, std::move(text_)}; }

 private:
  std::string file_;
  std::string text_;
  size_t columns_ = 0;
};

long long n(size_t v) {
  return static_cast<long long>(v);
}
long long n(int v) {
  return v;
}
Cell or_null(double v, bool present) {
  return present ? Cell(v) : Cell(Null{});
}

std::string name_of(const ScenarioSpec& spec, int tenant) {
  return tenant >= 0 && static_cast<size_t>(tenant) < spec.tenants.size()
             ? spec.tenants[static_cast<size_t>(tenant)].name
             : std::string();
}

CsvFile tenants_table(const Analysis& a) {
  Table t("tenants.csv", {"name", "region", "classification", "gpu_seconds", "slos_total", "slos_missed", "cost"});
  for (const auto& x : a.tenants)
    t.row({x.name, x.region, x.classification, x.gpu_seconds, n(x.slos), n(x.slos_missed), x.cost});
  return t.done();
}

CsvFile workloads_table(const ScenarioSpec& spec, const Analysis& a) {
  Table t("workloads.csv", {"tenant",
                            "name",
                            "kind",
                            "replicas_requested",
                            "replicas_placed",
                            "replicas_failed",
                            "requests_arrived",
                            "requests_completed",
                            "requests_dropped",
                            "latency_mean_s",
                            "latency_p50_s",
                            "latency_p95_s",
                            "latency_p99_s",
                            "latency_max_s",
                            "ttft_p50_s",
                            "ttft_p99_s",
                            "tpot_p50_s",
                            "tpot_p99_s",
                            "output_tokens_per_s",
                            "preemptions",
                            "goodput",
                            "jobs_submitted",
                            "jobs_completed",
                            "jobs_unfinished",
                            "jobs_failed",
                            "mean_completion_s",
                            "mean_slowdown",
                            "max_slowdown"});
  for (const auto& w : a.workloads) {
    const bool requests = w.requests_completed > 0, serving = w.serving.replicas > 0;
    const bool jobs = w.jobs_completed > 0;
    t.row({name_of(spec, w.tenant),
           w.name,
           w.kind,
           n(w.replicas_requested),
           n(w.replicas_placed),
           n(w.replicas_failed),
           n(w.requests_arrived),
           n(w.requests_completed),
           n(w.requests_dropped),
           or_null(w.latency.mean, requests),
           or_null(w.latency.p50, requests),
           or_null(w.latency.p95, requests),
           or_null(w.latency.p99, requests),
           or_null(w.latency.max, requests),
           or_null(w.ttft.p50, serving),
           or_null(w.ttft.p99, serving),
           or_null(w.tpot.p50, serving),
           or_null(w.tpot.p99, serving),
           or_null(w.serving.output_tokens_per_s, serving),
           or_null(static_cast<double>(w.serving.preemptions), serving),
           or_null(w.serving.goodput, w.serving.goodput >= 0),
           n(w.jobs_submitted),
           n(w.jobs_completed),
           n(w.jobs_unfinished),
           n(w.jobs_failed),
           or_null(w.mean_completion, jobs),
           or_null(w.mean_slowdown, jobs),
           or_null(w.max_slowdown, jobs)});
  }
  return t.done();
}

std::vector<CsvFile> slo_tables(const ScenarioSpec& spec, const Analysis& a) {
  Table slos("slos.csv", {"tenant", "name", "kind", "workload", "objective", "met", "evaluated", "violated",
                          "violation_minutes", "compliance", "target", "threshold", "unit", "worst"});
  Table windows("slo_windows.csv", {"tenant", "slo", "start_s", "end_s", "value", "unit", "violated"});
  for (const auto& s : a.slos) {
    slos.row({s.tenant_name, s.name, s.kind, s.workload, s.objective, s.met, n(s.evaluated), n(s.violated),
              s.violation_minutes, s.compliance, s.target, s.threshold, s.unit, s.worst});
    const double length = slo_window_s(spec, s);
    for (const auto& w : s.windows)
      windows.row({s.tenant_name, s.name, w.start, or_null(w.start + length, length > 0), w.value, s.unit, w.violated});
  }
  return {slos.done(), windows.done()};
}

CsvFile gpus_table(const Analysis& a) {
  Table t("gpus.csv",
          {"index", "node", "local_index", "pool", "product", "sharing", "mig_profile", "k8s_resource", "slots",
           "memory_bytes", "utilisation", "context_switches", "context_switch_seconds", "tenants"});
  for (const auto& g : a.gpus) {
    const GpuLayout& l = g.layout;
    std::vector<std::string> tenants;
    for (const int x : g.tenants)
      if (x >= 0 && static_cast<size_t>(x) < a.tenants.size())
        tenants.push_back(a.tenants[static_cast<size_t>(x)].name);
    t.row({n(l.index), l.node_name, n(l.local), l.pool, l.product, std::string(sharing_mode_name(l.sharing)),
           l.mig_profile, l.resource, n(l.slots), l.memory, g.utilisation, n(g.context_switches), g.switch_seconds,
           join(tenants, ";")});
  }
  return t.done();
}

CsvFile placements_table(const ScenarioSpec& spec, const RunResult& run, const Analysis& a) {
  Table t("placements.csv", {"tenant", "workload", "replica", "gpu", "node", "start_s", "end_s", "end_reason"});
  for (const auto& p : a.placements) {
    const bool valid_gpu = p.gpu >= 0 && static_cast<size_t>(p.gpu) < run.gpus.size();
    const std::string workload = p.workload >= 0 && static_cast<size_t>(p.workload) < spec.workloads.size()
                                     ? spec.workloads[static_cast<size_t>(p.workload)].name
                                     : std::string();
    t.row({name_of(spec, p.tenant), workload, n(p.replica), n(p.gpu),
           valid_gpu ? run.gpus[static_cast<size_t>(p.gpu)].node_name : std::string(), p.start,
           or_null(p.end, p.end >= 0), p.end_reason});
  }
  return t.done();
}

/// Jobs of training and batch workloads, one row per job (as a batch scheduler's job table).
CsvFile jobs_table(const ScenarioSpec& spec, const RunResult& run) {
  Table t("jobs.csv", {"tenant", "workload", "job", "submit_s", "start_s", "end_s", "ideal_s", "slowdown", "state"});
  struct Job {
    int tenant = -1;
    double submit = NAN, start = NAN, end = NAN, ideal = NAN;
    std::string state = "submitted";
  };
  std::map<std::pair<int, int>, Job> jobs;  // (workload, job)
  for (const auto& e : run.log.events()) {
    if (e.workload < 0 || static_cast<size_t>(e.workload) >= spec.workloads.size()) continue;
    const auto kind = spec.workloads[static_cast<size_t>(e.workload)].kind;
    if (kind != WorkloadKind::TRAINING && kind != WorkloadKind::BATCH) continue;
    const auto key = std::make_pair(e.workload, e.replica);
    if (e.type == EventType::JOB_SUBMIT) {
      jobs[key].tenant = e.tenant;
      jobs[key].submit = e.time;
    } else if (e.type == EventType::JOB_START && jobs.count(key)) {
      jobs[key].start = e.time;
      jobs[key].state = "running";
    } else if (e.type == EventType::JOB_DONE && jobs.count(key)) {
      jobs[key].end = e.time;
      jobs[key].ideal = payload::ideal_time(e);
      jobs[key].state = "completed";
    } else if (e.type == EventType::WORKLOAD_FAILED && e.gpu < 0 && jobs.count(key)) {
      jobs[key].end = e.time;
      jobs[key].state = failure_reason_name(payload::failure_reason(e));
    }
  }
  for (const auto& [key, j] : jobs) {
    const double taken = j.end - j.submit;
    const bool done = j.state == "completed" && j.ideal > 0;
    t.row({name_of(spec, j.tenant), spec.workloads[static_cast<size_t>(key.first)].name, n(key.second), j.submit,
           j.start, j.end, j.ideal, or_null(taken / j.ideal, done), j.state});
  }
  return t.done();
}

std::vector<CsvFile> leakage_tables(const ScenarioSpec& spec, const LeakageReport& l) {
  Table channels("leakage_channels.csv",
                 {"observer", "source", "resource", "mode", "state", "exposure_s", "bit_rate_bps", "error_rate",
                  "capacity_bps", "bound_bits", "counted", "capacity_source"});
  for (const auto& c : l.channels) {
    const bool quantified = c.state == channel::State::OPEN;
    channels.row({name_of(spec, c.observer), name_of(spec, c.source), std::string(channel::resource_name(c.resource)),
                  std::string(channel::mode_name(c.mode)), std::string(channel::state_name(c.state)), c.exposure_s,
                  or_null(c.bit_rate_bps, quantified), or_null(c.error_rate, quantified),
                  or_null(c.capacity_bps, quantified), or_null(c.bound_bits, quantified), c.counted,
                  c.capacity_source});
  }
  Table discrete("leakage_discrete.csv",
                 {"observer", "source", "kind", "workload", "gpu", "bytes", "closed", "closed_reason", "data"});
  for (const auto& d : l.discrete) {
    const std::string workload = d.workload >= 0 && static_cast<size_t>(d.workload) < spec.workloads.size()
                                     ? spec.workloads[static_cast<size_t>(d.workload)].name
                                     : std::string();
    discrete.row({name_of(spec, d.observer), name_of(spec, d.source), std::string(discrete_kind_name(d.kind)), workload,
                  n(d.gpu), d.bytes, d.closed, d.closed_reason, d.data_name});
  }
  Table attacks("attacks.csv", {"name", "type", "attacker", "victim", "target", "resource", "relation", "ran",
                                "outcome", "bound_state", "bound_bps", "bound_source", "within_bound"});
  for (const auto& a : l.attacks)
    attacks.row({a.name, a.type, a.attacker, a.victim, a.target, a.resource, a.relation, a.ran, a.outcome,
                 a.bound_state, a.bound_bps, a.bound_source, a.within_bound});
  return {channels.done(), discrete.done(), attacks.done()};
}

CsvFile compliance_table(const ComplianceReport& c) {
  Table t("compliance.csv", {"policy", "rule", "rule_id", "title", "status", "severity", "action", "requirements",
                             "checked", "violations", "prevented", "message"});
  for (const auto& f : c.findings)
    t.row({f.policy, f.rule, f.rule_id, f.title, std::string(policy::compliance_status_name(f.status)), f.severity,
           std::string(f.action == ComplianceAction::ENFORCE ? "enforce" : "audit"), join(f.requirements, ";"),
           n(f.checked), n(f.violations), n(f.prevented), f.message});
  return t.done();
}

}  // namespace

std::vector<CsvFile> csv_tables(const ScenarioSpec& spec, const RunResult& run, const Analysis& analysis,
                                const LeakageReport* leakage, const ComplianceReport* compliance) {
  std::vector<CsvFile> files{tenants_table(analysis), workloads_table(spec, analysis)};
  for (auto& f : slo_tables(spec, analysis)) files.push_back(std::move(f));
  files.push_back(gpus_table(analysis));
  files.push_back(placements_table(spec, run, analysis));
  files.push_back(jobs_table(spec, run));
  if (leakage)
    for (auto& f : leakage_tables(spec, *leakage)) files.push_back(std::move(f));
  if (compliance && compliance->configured) files.push_back(compliance_table(*compliance));
  return files;
}

}  // namespace gtw
