#include "Compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gtw::gui {
namespace {

const Workload* find_workload(const Report& r, const Workload& w) {
  for (const auto& x : r.workloads)
    if (x.tenant == w.tenant && x.name == w.name) return &x;
  return nullptr;
}

const Slo* find_slo(const Report& r, const Slo& s) {
  for (const auto& x : r.slos)
    if (x.tenant == s.tenant && x.name == s.name) return &x;
  return nullptr;
}

// The union of both runs' items, the current run's order first.
template <typename T, typename Find>
std::vector<const T*> union_of(const std::vector<T>& now, const std::vector<T>* base, Find find) {
  std::vector<const T*> out;
  for (const auto& x : now) out.push_back(&x);
  if (base)
    for (const auto& x : *base)
      if (std::none_of(out.begin(), out.end(), [&](const T* y) { return find(*y, x); })) out.push_back(&x);
  return out;
}

int failed_rules(const Report& r) {
  int n = 0;
  for (const auto& f : r.findings) n += f.status == "fail" ? 1 : 0;
  return n;
}

void add(std::vector<DiffRow>& rows, std::string group, std::string metric, double base, double now, std::string unit,
         int better = -1) {
  rows.push_back({std::move(group), std::move(metric), base, now, std::move(unit), better});
}

void workload_rows(const Report& now, const Report* base, std::vector<DiffRow>& rows) {
  const auto same = [](const Workload& a, const Workload& b) { return a.tenant == b.tenant && a.name == b.name; };
  for (const Workload* w : union_of(now.workloads, base ? &base->workloads : nullptr, same)) {
    if (!w->inference()) continue;
    const Workload* n = find_workload(now, *w);
    const Workload* b = base ? find_workload(*base, *w) : nullptr;
    const std::string name = w->tenant + "/" + w->name;
    const auto value = [](const Workload* x, auto get) { return x ? get(*x) : NO_VALUE; };
    add(rows, "latency", name + " p50 latency", value(b, [](const Workload& x) { return x.latency.p50_s; }),
        value(n, [](const Workload& x) { return x.latency.p50_s; }), "s");
    add(rows, "latency", name + " p99 latency", value(b, [](const Workload& x) { return x.latency.p99_s; }),
        value(n, [](const Workload& x) { return x.latency.p99_s; }), "s");
    if ((n && n->serving) || (b && b->serving))
      for (const auto& m : serving_metrics()) {
        const auto get = [&m](const Workload* x) { return x && x->serving ? m.value(*x->serving) : NO_VALUE; };
        add(rows, "serving", name + " " + m.label, get(b), get(n), m.unit, m.better);
      }
  }
}

const AttackOutcome* find_attack(const Report* r, const AttackOutcome& a) {
  if (!r) return nullptr;
  for (const auto& x : r->attacks)
    if (x.name == a.name) return &x;
  return nullptr;
}

// Per attack: its headline number; a model-stealing client also the logit vectors it obtained and the chance
// a watermark catches its copy.
void attack_rows(const Report& now, const Report* base, std::vector<DiffRow>& rows) {
  const auto same = [](const AttackOutcome& a, const AttackOutcome& b) { return a.name == b.name; };
  for (const AttackOutcome* a : union_of(now.attacks, base ? &base->attacks : nullptr, same)) {
    const AttackOutcome* n = find_attack(&now, *a);
    const AttackOutcome* b = find_attack(base, *a);
    const auto value = [](const AttackOutcome* x, auto get) { return x ? get(*x) : NO_VALUE; };
    const int better = a->measure == "parameter-count error" ? +1 : -1;  // what helps the defender
    add(rows, "attacks", a->name + " " + a->measure, value(b, [](const AttackOutcome& x) { return x.achieved; }),
        value(n, [](const AttackOutcome& x) { return x.achieved; }), a->unit, better);
    const auto vectors = [](const AttackOutcome& x) { return x.projection_vectors; };
    if (std::isfinite(value(n, vectors)) || std::isfinite(value(b, vectors)))
      add(rows, "attacks", a->name + " logit vectors stolen (of hidden size + 1)", value(b, vectors), value(n, vectors),
          "count");
    const auto detection = [](const AttackOutcome& x) { return x.watermark_detection; };
    if (value(n, detection) > 0 || value(b, detection) > 0)
      add(rows, "attacks", a->name + " copy caught by the watermark", value(b, detection), value(n, detection), "share",
          +1);
  }
}

}  // namespace

std::vector<DiffRow> difference_rows(const Report& now, const Report* base) {
  std::vector<DiffRow> rows;
  workload_rows(now, base, rows);
  const auto same_slo = [](const Slo& a, const Slo& b) { return a.tenant == b.tenant && a.name == b.name; };
  for (const Slo* s : union_of(now.slos, base ? &base->slos : nullptr, same_slo)) {
    const Slo* n = find_slo(now, *s);
    const Slo* b = base ? find_slo(*base, *s) : nullptr;
    add(rows, "SLOs", s->tenant + "/" + s->name + " violated " + (s->per_job() ? "jobs" : "windows"),
        b ? b->violated : NO_VALUE, n ? n->violated : NO_VALUE, "count");
  }
  add(rows, "SLOs", "SLOs missed", base ? base->slos_missed() : NO_VALUE, now.slos_missed(), "count");
  const auto leak = [](const Report* r, auto get) { return r && r->has_leakage ? get(*r) : NO_VALUE; };
  add(rows, "security", "leakage bound", leak(base, [](const Report& r) { return r.leakage_bits; }),
      leak(&now, [](const Report& r) { return r.leakage_bits; }), "bit");
  add(rows, "security", "bytes exposed (open)", leak(base, [](const Report& r) { return r.leakage_bytes; }),
      leak(&now, [](const Report& r) { return r.leakage_bytes; }), "B");
  add(rows, "security", "open channels",
      leak(base, [](const Report& r) { return static_cast<double>(r.leakage_open_channels); }),
      leak(&now, [](const Report& r) { return static_cast<double>(r.leakage_open_channels); }), "count");
  add(rows, "security", "identity paths to other tenants' data",
      leak(base, [](const Report& r) { return static_cast<double>(r.identity_paths); }),
      leak(&now, [](const Report& r) { return static_cast<double>(r.identity_paths); }), "count");
  add(rows, "security", "confused-deputy paths",
      leak(base, [](const Report& r) { return static_cast<double>(r.confused_deputy_paths); }),
      leak(&now, [](const Report& r) { return static_cast<double>(r.confused_deputy_paths); }), "count");
  const auto deputy_hops = [](const Report& r) {
    double n = 0;
    for (const auto& a : r.agents) n += a.confused_deputy;
    return n;
  };
  const auto refused_hops = [](const Report& r) {
    double n = 0;
    for (const auto& a : r.agents) n += a.refused;
    return n;
  };
  const auto exposed_secret_s = [](const Report& r) {
    double s = 0;
    for (const auto& l : r.secret_leaks) s += l.exposure_s;
    return s;
  };
  if (!now.agents.empty() || (base && !base->agents.empty())) {
    add(rows, "security", "confused-deputy hops at run time", leak(base, deputy_hops), leak(&now, deputy_hops),
        "count");
    add(rows, "security", "agent hops refused", leak(base, refused_hops), leak(&now, refused_hops), "count", 0);
  }
  if (!now.secret_leaks.empty() || (base && !base->secret_leaks.empty()))
    add(rows, "security", "leaked secrets usable for", leak(base, exposed_secret_s), leak(&now, exposed_secret_s), "s");
  attack_rows(now, base, rows);
  const auto rules = [](const Report* r, bool failed) {
    if (!r || !r->has_compliance) return NO_VALUE;
    return static_cast<double>(failed ? failed_rules(*r) : static_cast<int>(r->findings.size()) - failed_rules(*r));
  };
  if (now.has_compliance || (base && base->has_compliance)) {
    add(rows, "compliance", "rules failed", rules(base, true), rules(&now, true), "count");
    add(rows, "compliance", "rules passed", rules(base, false), rules(&now, false), "count", +1);
  }
  const auto cost = [](const Report* r, auto get) { return r && r->cost.present ? get(r->cost) : NO_VALUE; };
  add(rows, "cost", "GPU-hours allocated", cost(base, [](const CostInfo& c) { return c.allocated_gpu_hours; }),
      cost(&now, [](const CostInfo& c) { return c.allocated_gpu_hours; }), "GPU-h", 0);
  add(rows, "cost", "GPU-hours provisioned", cost(base, [](const CostInfo& c) { return c.provisioned_gpu_hours; }),
      cost(&now, [](const CostInfo& c) { return c.provisioned_gpu_hours; }), "GPU-h");
  add(rows, "cost", "cost (pools' prices)", cost(base, [](const CostInfo& c) { return c.total; }),
      cost(&now, [](const CostInfo& c) { return c.total; }), "");
  return rows;
}

bool same_scenario(const Report& a, const Report& b) {
  return a.scenario.name == b.scenario.name && a.scenario.file == b.scenario.file;
}

TradeOff trade_off(const Report& r) {
  TradeOff t;
  for (const auto& w : r.workloads)
    if (w.inference() && std::isfinite(w.latency.p99_s))
      t.p99_s = std::isnan(t.p99_s) ? w.latency.p99_s : std::max(t.p99_s, w.latency.p99_s);
  t.leaked_bits = (r.has_leakage ? r.leakage_bits + 8 * r.leakage_bytes : 0);
  if (r.cost.present && r.cost.total > 0) {
    t.cost = r.cost.total;
    t.cost_unit = "cost units";
  } else if (r.cost.present) {
    t.cost = r.cost.provisioned_gpu_hours;
    t.cost_unit = "GPU-h";
  }
  return t;
}

}  // namespace gtw::gui
