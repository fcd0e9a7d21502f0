#include "ReportModel.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "InputFile.hpp"

namespace gtw::gui {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr double INF = std::numeric_limits<double>::infinity();

// A field that is missing or of the wrong type; `where` is a JSON path such as "tenants[0].slos[1].met".
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string at(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}
std::string at(const std::string& where, size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

const json& field(const json& obj, const std::string& where, const char* key) {
  if (!obj.is_object()) throw FieldError(where + ": expected an object");
  const auto it = obj.find(key);
  if (it == obj.end()) throw FieldError("missing field '" + at(where, key) + "'");
  return *it;
}

const json& array_field(const json& obj, const std::string& where, const char* key) {
  const json& v = field(obj, where, key);
  if (!v.is_array()) throw FieldError("'" + at(where, key) + "' is not an array");
  return v;
}

std::string str(const json& obj, const std::string& where, const char* key, bool required = false) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) throw FieldError("missing field '" + at(where, key) + "'");
    return {};
  }
  if (!it->is_string()) throw FieldError("'" + at(where, key) + "' is not a string");
  return it->get<std::string>();
}

// Optional numbers default to `fallback`; null means unbounded (+inf), as the writer's num() produces.
double number(const json& obj, const std::string& where, const char* key, double fallback = NO_VALUE,
              bool required = false) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) throw FieldError("missing field '" + at(where, key) + "'");
    return fallback;
  }
  if (it->is_null()) return INF;
  if (!it->is_number()) throw FieldError("'" + at(where, key) + "' is not a number");
  return it->get<double>();
}

long long integer(const json& obj, const std::string& where, const char* key, long long fallback = 0) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_number()) throw FieldError("'" + at(where, key) + "' is not a number");
  return it->is_number_integer() ? it->get<long long>() : static_cast<long long>(it->get<double>());
}

int small_int(const json& obj, const std::string& where, const char* key, int fallback = 0) {
  return static_cast<int>(integer(obj, where, key, fallback));
}

bool boolean(const json& obj, const std::string& where, const char* key, bool required = false) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) throw FieldError("missing field '" + at(where, key) + "'");
    return false;
  }
  if (!it->is_boolean()) throw FieldError("'" + at(where, key) + "' is not true or false");
  return it->get<bool>();
}

const json& object_or_empty(const json& obj, const char* key) {
  static const json empty = json::object();
  const auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? *it : empty;
}

LatencySummary read_latency(const json& j, const std::string& where) {
  LatencySummary l;
  l.count = static_cast<long>(integer(j, where, "count"));
  l.mean_s = number(j, where, "mean_s");
  l.p50_s = number(j, where, "p50_s");
  l.p95_s = number(j, where, "p95_s");
  l.p99_s = number(j, where, "p99_s");
  l.max_s = number(j, where, "max_s");
  return l;
}

// An object that must be one when present: the serving block and its percentile summaries.
const json& object_field(const json& obj, const std::string& where, const char* key) {
  const json& v = field(obj, where, key);
  if (!v.is_object()) throw FieldError("'" + at(where, key) + "' is not an object");
  return v;
}

// A share of 0..1; null (goodput without a ttft/tpot SLO) is "no value", not unbounded.
double share(const json& obj, const std::string& where, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return NO_VALUE;
  if (!it->is_number()) throw FieldError("'" + at(where, key) + "' is not a number");
  const double v = it->get<double>();
  // A little slack for rounding in the writer; anything else is not a share.
  if (!(v >= -1e-6 && v <= 1 + 1e-6))
    throw FieldError("'" + at(where, key) + "' is " + std::to_string(v) + ", not a share between 0 and 1");
  return v;
}

ServingStats read_serving(const json& j, const std::string& where) {
  ServingStats s;
  s.batching = str(j, where, "batching");
  if (s.batching.empty()) s.batching = "continuous";
  s.ttft = read_latency(object_field(j, where, "ttft"), at(where, "ttft"));
  s.tpot = read_latency(object_field(j, where, "tpot"), at(where, "tpot"));
  // No served request: the writer's nulls mean "none", not "unbounded" as for a dropped request's latency.
  for (LatencySummary* l : {&s.ttft, &s.tpot})
    if (l->count == 0) *l = LatencySummary{};
  s.output_tokens_per_s = number(j, where, "output_tokens_per_s");
  s.generated_tokens = number(j, where, "generated_tokens");
  s.prefill_tokens = number(j, where, "prefill_tokens");
  s.steps = integer(j, where, "steps");
  s.preemptions = integer(j, where, "preemptions");
  s.kv_utilisation = share(j, where, "kv_utilisation");
  s.kv_peak = share(j, where, "kv_peak");
  s.goodput = share(j, where, "goodput");
  return s;
}

Slo read_slo(const json& j, const std::string& where, const std::string& tenant) {
  Slo s;
  s.tenant = tenant;
  s.name = str(j, where, "name", true);
  s.kind = str(j, where, "kind");
  s.workload = str(j, where, "workload");
  s.objective = str(j, where, "objective");
  s.met = boolean(j, where, "met", true);
  s.evaluated = small_int(j, where, "evaluated");
  s.violated = small_int(j, where, "violated");
  s.compliance = number(j, where, "compliance", 1);
  s.target = number(j, where, "target", 1);
  if (const auto it = j.find("error_budget_burn"); it != j.end() && it->is_number())
    s.error_budget_burn = it->get<double>();
  s.worst = number(j, where, "worst");
  s.unit = str(j, where, "unit");
  s.explanation = str(j, where, "explanation");
  // A numeric threshold, should a later 1.x report carry one, beats parsing the objective text.
  if (const auto it = j.find("threshold"); it != j.end() && it->is_number()) {
    s.threshold = it->get<double>();
    s.bound = s.kind == "throughput" ? Bound::AT_LEAST : Bound::AT_MOST;
  } else if (const auto b = parse_objective_bound(s.objective)) {
    s.threshold = b->first;
    s.bound = b->second;
  }
  if (j.contains("attribution")) {
    const json& blame = array_field(j, where, "attribution");
    for (size_t i = 0; i < blame.size(); ++i) {
      const std::string w = at(at(where, "attribution"), i);
      const std::string via = str(blame[i], w, "via");
      s.attribution.push_back(
          {str(blame[i], w, "who", true), number(blame[i], w, "share", 0, true), via.empty() ? "gpu" : via});
    }
  }
  if (j.contains("windows")) {
    const json& windows = array_field(j, where, "windows");
    s.windows.reserve(windows.size());
    for (size_t i = 0; i < windows.size(); ++i) {
      const std::string w = at(at(where, "windows"), i);
      s.windows.push_back({number(windows[i], w, "start_s", 0, true), number(windows[i], w, "value", NO_VALUE, true),
                           boolean(windows[i], w, "violated", true)});
    }
  }
  return s;
}

Workload read_workload(const json& j, const std::string& where, const std::string& tenant) {
  Workload w;
  w.tenant = tenant;
  w.name = str(j, where, "name", true);
  w.kind = str(j, where, "kind");
  w.replicas_requested = small_int(j, where, "replicas_requested");
  w.replicas_placed = small_int(j, where, "replicas_placed");
  w.replicas_failed = small_int(j, where, "replicas_failed");
  if (j.contains("gpus"))
    for (const auto& g : array_field(j, where, "gpus"))
      if (g.is_number_integer()) w.gpus.push_back(g.get<int>());
  if (const json& r = object_or_empty(j, "requests"); !r.empty()) {
    const std::string rw = at(where, "requests");
    w.requests_arrived = static_cast<long>(integer(r, rw, "arrived"));
    w.requests_completed = static_cast<long>(integer(r, rw, "completed"));
    w.requests_dropped = static_cast<long>(integer(r, rw, "dropped"));
  }
  w.latency = read_latency(object_or_empty(j, "latency"), at(where, "latency"));
  w.queueing = read_latency(object_or_empty(j, "queueing"), at(where, "queueing"));
  if (const auto it = j.find("latency_cdf"); it != j.end() && it->is_array())
    for (const auto& point : *it)
      if (point.is_array() && point.size() == 2 && point[0].is_number())
        w.latency_cdf.emplace_back(point[0].get<double>(), point[1].is_number() ? point[1].get<double>() : INF);
  w.mean_batch = number(j, where, "mean_batch");
  // Only continuously batched workloads have it; a report that has it wrong is refused, not half-read.
  if (const auto it = j.find("serving"); it != j.end() && !it->is_null()) {
    const std::string sw = at(where, "serving");
    if (!it->is_object()) throw FieldError("'" + sw + "' is not an object");
    w.serving = read_serving(*it, sw);
  }
  if (const json& jobs = object_or_empty(j, "jobs"); !jobs.empty()) {
    const std::string jw = at(where, "jobs");
    w.jobs_submitted = static_cast<long>(integer(jobs, jw, "submitted"));
    w.jobs_completed = static_cast<long>(integer(jobs, jw, "completed"));
    w.jobs_unfinished = static_cast<long>(integer(jobs, jw, "unfinished"));
    w.jobs_failed = static_cast<long>(integer(jobs, jw, "failed"));
  }
  w.mean_completion_s = number(j, where, "mean_completion_s");
  w.mean_slowdown = number(j, where, "mean_slowdown");
  w.max_slowdown = number(j, where, "max_slowdown");
  return w;
}

Gpu read_gpu(const json& j, const std::string& where) {
  Gpu g;
  g.index = small_int(j, where, "index");
  g.node = str(j, where, "node");
  g.local_index = small_int(j, where, "local_index");
  g.pool = str(j, where, "pool");
  g.region = str(j, where, "region");
  g.product = str(j, where, "product");
  g.sharing = str(j, where, "sharing");
  g.slot_count = small_int(j, where, "slots", 1);
  if (j.contains("tenants"))
    for (const auto& t : array_field(j, where, "tenants"))
      if (t.is_string()) g.tenants.push_back(t.get<std::string>());
  g.utilisation = number(j, where, "utilisation", 0);
  const std::string bw = at(where, "utilisation_by_tenant");
  // nlohmann::json sorts object keys; the report's order is restored from the tenant list by the caller.
  for (const auto& [tenant, ratio] : object_or_empty(j, "utilisation_by_tenant").items()) {
    if (!ratio.is_number()) throw FieldError("'" + at(bw, tenant) + "' is not a number");
    g.utilisation_by_tenant.push_back({tenant, ratio.get<double>()});
  }
  g.context_switches = static_cast<long>(integer(j, where, "context_switches"));
  g.context_switch_seconds = number(j, where, "context_switch_seconds", 0);
  if (const auto it = j.find("utilisation_windows"); it != j.end() && it->is_array())
    for (const auto& v : *it) g.utilisation_windows.push_back(v.is_number() ? v.get<double>() : 0.0);
  g.mig_profile = str(j, where, "mig_profile");
  return g;
}

// Any scalar or list of scalars as one line of text.
std::string flat_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return {};
  if (v.is_array()) {
    std::string out;
    for (const auto& x : v) {
      const std::string part = flat_text(x);
      if (part.empty()) continue;
      if (!out.empty()) out += ", ";
      out += part;
    }
    return out;
  }
  if (v.is_object()) {
    std::string out;
    for (const auto& [k, x] : v.items()) {
      const std::string part = flat_text(x);
      if (part.empty()) continue;
      if (!out.empty()) out += "; ";
      out += k + ": " + part;
    }
    return out;
  }
  return v.dump();
}

std::string first_text(const json& obj, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (const auto it = obj.find(k); it != obj.end() && !it->is_null()) return flat_text(*it);
  return {};
}

// The compliance section (docs/formats/report-json.md): findings from `findings` (also `results` or `rules`,
// or the section itself when it is a list, for reports of other tools), with each finding's usual keys.
std::vector<Finding> read_findings(const json& section) {
  const json* list = section.is_array() ? &section : nullptr;
  if (!list && section.is_object())
    for (const char* k : {"findings", "results", "rules"})
      if (const auto it = section.find(k); it != section.end() && it->is_array()) {
        list = &*it;
        break;
      }
  std::vector<Finding> out;
  if (!list) return out;
  for (const auto& f : *list) {
    if (!f.is_object()) continue;
    // report.json names a finding by its policy (the scenario's rule instance) and explains it in `message`.
    out.push_back({first_text(f, {"policy", "rule", "name", "id"}), first_text(f, {"status", "result", "verdict"}),
                   first_text(f, {"severity", "level"}), first_text(f, {"requirements", "references", "refs"}),
                   first_text(f, {"message", "evidence", "detail", "explanation"})});
  }
  return out;
}

// report.json `quotas[]`: per tenant, its quota, what it held and borrowed, waits and preemptions, and its
// fair-sharing share when fair sharing was on.
std::vector<QuotaRow> read_quotas(const json& list) {
  std::vector<QuotaRow> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& q = list[i];
    if (!q.is_object()) continue;
    const std::string where = "quotas[" + std::to_string(i) + "]";
    QuotaRow row;
    row.tenant = str(q, where, "tenant");
    row.nominal_gpus = integer(q, where, "nominal_gpus");
    row.peak_gpus = integer(q, where, "peak_gpus");
    row.borrowed_gpu_seconds = number(q, where, "borrowed_gpu_seconds", 0);
    row.admissions = integer(q, where, "admissions");
    row.queued = integer(q, where, "queued");
    row.max_wait_s = number(q, where, "max_wait_s", 0);
    row.preempted = integer(q, where, "preempted");
    row.reclaimed = integer(q, where, "reclaimed");
    row.still_queued = first_text(q, {"still_queued"});
    if (const auto fs = q.find("fair_sharing"); fs != q.end() && fs->is_object()) {
      row.fair_sharing = true;
      row.fair_weight = number(*fs, where + ".fair_sharing", "weight", 1);
      row.peak_share = number(*fs, where + ".fair_sharing", "peak_share", 0);
      row.mean_share = number(*fs, where + ".fair_sharing", "mean_share", 0);
    }
    out.push_back(std::move(row));
  }
  return out;
}

// The headline of an attack: the achieved number of its type beside the bound it is checked against.
void attack_headline(const json& achieved, AttackOutcome& a) {
  const auto num = [&achieved](const char* key) {
    const auto it = achieved.find(key);
    return it != achieved.end() && it->is_number() ? it->get<double>() : NO_VALUE;
  };
  if (a.type == "covertChannel") {
    a.measure = "achieved rate";
    a.achieved = num("achieved_bps");
    a.unit = "bit/s";
  } else if (a.type == "remanenceScrape") {
    a.measure = "bytes recovered";
    a.achieved = num("bytes_recovered");
    a.bound = num("bound_bytes");
    a.unit = "B";
  } else if (a.type == "primeProbe") {
    a.measure = "accuracy";
    a.achieved = num("accuracy");
    a.unit = "share";
  } else if (a.type == "modelExtraction") {
    a.measure = "parameter-count error";
    a.achieved = num("relative_error");
    a.unit = "share";
  } else if (a.type == "queryExtraction") {
    a.measure = "queries admitted";
    a.achieved = num("queries_admitted");
    a.bound = num("bound_queries");
    a.unit = "count";
    a.watermark_detection = num("watermark_detection");
    if (const auto p = achieved.find("projection"); p != achieved.end() && p->is_object()) {
      a.projection_vectors = p->value("vectors_obtained", NO_VALUE);
    }
  } else {
    a.measure = "victim p99 during";
    a.achieved = num("victim_p99_during_s");
    a.bound = num("victim_p99_before_s");  // not a bound: the victim before the attack, shown beside it
    a.unit = "s";
  }
}

AttackOutcome read_attack(const json& j, const std::string& where) {
  AttackOutcome a;
  a.name = str(j, where, "name");
  a.type = str(j, where, "type");
  a.attacker = str(j, where, "attacker");
  a.victim = str(j, where, "victim");
  a.target = str(j, where, "target");
  a.resource = str(j, where, "resource");
  a.relation = str(j, where, "relation");
  a.ran = j.value("ran", false);
  a.outcome = str(j, where, "outcome");
  a.bound_state = str(j, where, "bound_state");
  a.bound_source = str(j, where, "bound_source");
  a.within_bound = j.value("within_bound", true);
  attack_headline(object_or_empty(j, "achieved"), a);
  if (a.type == "covertChannel") a.bound = number(j, where, "bound_bps");
  return a;
}

ModelIp read_model(const json& j, const std::string& where) {
  ModelIp m;
  m.workload = str(j, where, "workload");
  m.owner = str(j, where, "owner");
  m.kind = str(j, where, "kind");
  m.weight_bytes = number(j, where, "weight_bytes", 0);
  if (const auto x = j.find("exposures"); x != j.end() && x->is_array())
    for (size_t i = 0; i < x->size(); ++i) {
      const json& ej = (*x)[i];
      const std::string ew = at(at(where, "exposures"), i);
      m.exposures.push_back({str(ej, ew, "part"), str(ej, ew, "channel"), str(ej, ew, "status"),
                             first_text(ej, {"tenants"}), number(ej, ew, "bits", 0), number(ej, ew, "bytes", 0),
                             first_text(ej, {"closed_by"}), str(ej, ew, "detail")});
    }
  return m;
}

LeakChannel read_channel(const json& cj, const std::string& cw) {
  LeakChannel c;
  c.observer = str(cj, cw, "observer");
  c.source = str(cj, cw, "source");
  c.resource = str(cj, cw, "resource");
  c.mode = str(cj, cw, "mode");
  c.state = str(cj, cw, "state");
  c.exposure_s = number(cj, cw, "exposure_s", 0);
  const auto cap = cj.find("capacity_bps");
  c.capacity_bps = cap != cj.end() && cap->is_number() ? cap->get<double>() : NO_VALUE;
  const auto bound = cj.find("bound_bits");
  c.bound_bits = bound != cj.end() && bound->is_number() ? bound->get<double>() : NO_VALUE;
  const auto counted = cj.find("counted");
  c.counted = counted == cj.end() || !counted->is_boolean() || counted->get<bool>();
  c.capacity_source = str(cj, cw, "capacity_source");
  return c;
}

// Calls read(item, where) for each item of the leakage section's array `key` (absent or not an array: none).
template <class Read>
void for_each_leakage_item(const json& l, const char* key, const Read& read) {
  if (const auto it = l.find(key); it != l.end() && it->is_array())
    for (size_t i = 0; i < it->size(); ++i) read((*it)[i], at(std::string("leakage.") + key, i));
}

// Identity at run time (docs/models/identity.md): invocations, secret leaks, incidents; absent in older reports.
void read_identity_runtime(const json& l, Report& r) {
  const json& agents = object_or_empty(l, "agents");
  if (const auto it = agents.find("invocations"); it != agents.end() && it->is_array())
    for (size_t i = 0; i < it->size(); ++i) {
      const json& j = (*it)[i];
      const std::string w = at("leakage.agents.invocations", i);
      AgentInvocation a;
      a.name = str(j, w, "name");
      a.principal = str(j, w, "principal");
      a.entry = str(j, w, "entry");
      a.calls = small_int(j, w, "calls");
      a.hops = small_int(j, w, "hops");
      a.refused = small_int(j, w, "refused");
      if (const auto by = j.find("refused_by"); by != j.end() && by->is_object())
        for (const auto& [why, n] : by->items())
          a.refused_by +=
              (a.refused_by.empty() ? "" : ", ") + why + " " + std::to_string(n.is_number() ? n.get<long long>() : 0);
      a.confused_deputy = small_int(j, w, "confused_deputy");
      a.over_privileged = small_int(j, w, "over_privileged");
      a.after_revocation = small_int(j, w, "after_revocation");
      a.first_deputy_at_s = number(j, w, "first_deputy_at_s");
      r.agents.push_back(std::move(a));
    }
  const auto each = [&l](const char* key, const auto& read) { for_each_leakage_item(l, key, read); };
  each("secret_leaks", [&r](const json& j, const std::string& w) {
    r.secret_leaks.push_back({str(j, w, "secret"), str(j, w, "owner"), str(j, w, "to"), number(j, w, "at_s", 0),
                              number(j, w, "known_at_s"), number(j, w, "end_s"), str(j, w, "ended_by"),
                              number(j, w, "exposure_s", 0), first_text(j, {"protects"})});
  });
  each("incidents", [&r](const json& j, const std::string& w) {
    r.incidents.push_back({str(j, w, "kind"), str(j, w, "resource"), str(j, w, "affected"), str(j, w, "observer"),
                           number(j, w, "time_s", 0), number(j, w, "known_at_s"), number(j, w, "notified_at_s")});
  });
}

// The leakage section (docs/models/leakage.md): totals, open and closed channels, discrete exposures, the
// model-IP view and the replayed attacks.
void read_leakage(const json& l, Report& r) {
  r.has_leakage = true;
  const json& totals = object_or_empty(l, "totals");
  r.leakage_bits = number(totals, "leakage.totals", "bits", 0);
  r.leakage_bytes = number(totals, "leakage.totals", "bytes", 0);
  r.leakage_open_channels = small_int(totals, "leakage.totals", "open_channels");
  r.leakage_unquantified_channels = small_int(totals, "leakage.totals", "unquantified_channels");
  const auto each = [&l](const char* key, const auto& read) { for_each_leakage_item(l, key, read); };
  each("channels", [&r](const json& j, const std::string& w) { r.leak_channels.push_back(read_channel(j, w)); });
  each("discrete", [&r](const json& j, const std::string& w) {
    LeakDiscrete d;
    d.observer = str(j, w, "observer");
    d.source = str(j, w, "source");
    d.kind = str(j, w, "kind");
    d.bytes = number(j, w, "bytes", 0);
    d.closed = j.value("closed", false);
    d.workload = str(j, w, "workload");
    d.gpu = small_int(j, w, "gpu", -1);
    d.closed_reason = str(j, w, "closed_reason");
    d.closed_by = first_text(j, {"closed_by"});
    d.basis = str(j, w, "basis");
    r.leak_discrete.push_back(std::move(d));
  });
  each("closed", [&r](const json& j, const std::string& w) {
    r.leak_closed.push_back({str(j, w, "observer"), str(j, w, "source"), str(j, w, "resource"), str(j, w, "mode"),
                             number(j, w, "co_active_s", 0), str(j, w, "reason")});
  });
  each("models", [&r](const json& j, const std::string& w) { r.models.push_back(read_model(j, w)); });
  each("attacks", [&r](const json& j, const std::string& w) { r.attacks.push_back(read_attack(j, w)); });
  each("identity_paths", [&r](const json& j, const std::string&) {
    ++r.identity_paths;
    r.confused_deputy_paths += j.value("confused_deputy", false) ? 1 : 0;
  });
  read_identity_runtime(l, r);
}

// One tenant -> series object, in the report's tenant order.
std::vector<TenantSeries> read_tenant_series(const json& obj, const std::string& where, const Report& r) {
  std::vector<TenantSeries> out;
  for (const auto& [tenant, values] : obj.items()) {
    if (!values.is_array()) throw FieldError("'" + at(where, tenant) + "' is not a list");
    TenantSeries series{tenant, {}};
    for (const auto& v : values) series.values.push_back(v.is_number() ? v.get<double>() : 0.0);
    out.push_back(std::move(series));
  }
  std::stable_sort(out.begin(), out.end(), [&r](const TenantSeries& a, const TenantSeries& b) {
    return static_cast<unsigned>(r.tenant_index(a.tenant)) < static_cast<unsigned>(r.tenant_index(b.tenant));
  });
  return out;
}

void read_timeline(const json& t, Report& r) {
  r.timeline.step_s = number(t, "timeline", "step_s", 0);
  r.timeline.cluster = read_tenant_series(object_or_empty(t, "busy_gpus_by_tenant"), "timeline.busy_gpus_by_tenant", r);
  if (const auto it = t.find("gpus"); it != t.end() && it->is_array())
    for (size_t i = 0; i < it->size(); ++i) {
      const std::string w = at("timeline.gpus", i);
      r.timeline.gpus.emplace_back(
          small_int((*it)[i], w, "index", -1),
          read_tenant_series(object_or_empty((*it)[i], "busy_by_tenant"), at(w, "busy_by_tenant"), r));
    }
}

// Failed compliance rules and enforced refusals at the times of their evidence (the first few of each rule).
void read_compliance_marks(const json& section, Report& r) {
  const auto findings = section.find("findings");
  if (findings == section.end() || !findings->is_array()) return;
  for (const auto& f : *findings) {
    if (!f.is_object()) continue;
    const bool failed = f.value("status", "") == "fail";
    const bool prevented = f.contains("prevented") && f["prevented"].is_number() && f["prevented"].get<double>() > 0;
    if (!failed && !prevented) continue;
    const auto evidence = f.find("evidence");
    if (evidence == f.end() || !evidence->is_array()) continue;
    int kept = 0;
    for (const auto& e : *evidence) {
      if (!e.is_object() || !e.contains("time_s") || !e["time_s"].is_number() || ++kept > 5) continue;
      r.marks.push_back({e["time_s"].get<double>(), "compliance",
                         std::string(prevented ? "refused: " : "violates: ") + first_text(f, {"policy", "rule"})});
    }
  }
}

// Faults and MIG reconfigurations, as marks on the timelines.
void read_timeline_marks(const json& root, Report& r) {
  if (const auto it = root.find("faults"); it != root.end() && it->is_array())
    for (size_t i = 0; i < it->size(); ++i) {
      const json& f = (*it)[i];
      const std::string w = at("faults", i);
      r.marks.push_back(
          {number(f, w, "time_s", 0), "fault",
           "fault on GPU " + std::to_string(small_int(f, w, "gpu", -1)) + " (" + str(f, w, "domain") + ")"});
    }
  if (const auto it = root.find("reconfigurations"); it != root.end() && it->is_array())
    for (size_t i = 0; i < it->size(); ++i) {
      const json& c = (*it)[i];
      const std::string w = at("reconfigurations", i);
      r.marks.push_back({number(c, w, "start_s", 0), "reconfiguration",
                         "MIG reconfiguration of " + str(c, w, "node_pool") + ": " + first_text(c, {"mig_layout"})});
    }
}

Report read_report(const json& root) {
  if (!root.is_object()) throw FieldError("the top level is not a JSON object");
  Report r;
  const auto version = root.find("schema_version");
  if (version == root.end() || !version->is_string()) throw FieldError("no schema_version: not a gputwin report.json");
  r.schema_version = version->get<std::string>();
  // Minor versions only add fields; a new major version may change what is here.
  if (r.schema_version.rfind("1.", 0) != 0)
    throw FieldError("unsupported schema_version '" + r.schema_version + "' (this viewer reads 1.x)");

  const json& sc = field(root, "", "scenario");
  r.scenario.name = str(sc, "scenario", "name", true);
  r.scenario.file = str(sc, "scenario", "file");
  r.scenario.sha256 = str(sc, "scenario", "sha256");
  r.scenario.seed = integer(sc, "scenario", "seed");
  r.scenario.duration_s = number(sc, "scenario", "duration_s", 0);
  r.scenario.sla_window_s = number(sc, "scenario", "sla_window_s", 0);
  r.scenario.placement_policy = str(sc, "scenario", "placement_policy");

  const json& su = object_or_empty(root, "summary");
  r.summary.tenants = small_int(su, "summary", "tenants");
  r.summary.workloads = small_int(su, "summary", "workloads");
  r.summary.gpus = small_int(su, "summary", "gpus");
  r.summary.slos = small_int(su, "summary", "slos");
  r.summary.slos_missed = small_int(su, "summary", "slos_missed");
  r.summary.events = integer(su, "summary", "events");
  r.summary.kernels = integer(su, "summary", "kernels");
  r.summary.context_switches = integer(su, "summary", "context_switches");
  r.summary.simulated_end_s = number(su, "summary", "simulated_end_s", 0);

  const json& tenants = array_field(root, "", "tenants");
  for (size_t t = 0; t < tenants.size(); ++t) {
    const std::string tw = at("tenants", t);
    const json& tj = tenants[t];
    Tenant tenant;
    tenant.name = str(tj, tw, "name", true);
    tenant.region = str(tj, tw, "region");
    tenant.classification = str(tj, tw, "classification");
    tenant.gpu_seconds = number(tj, tw, "gpu_seconds", 0);
    tenant.slos_total = small_int(tj, tw, "slos_total");
    tenant.slos_missed = small_int(tj, tw, "slos_missed");
    if (tj.contains("slos")) {
      const json& slos = array_field(tj, tw, "slos");
      for (size_t i = 0; i < slos.size(); ++i) r.slos.push_back(read_slo(slos[i], at(at(tw, "slos"), i), tenant.name));
    }
    if (tj.contains("workloads")) {
      const json& wls = array_field(tj, tw, "workloads");
      for (size_t i = 0; i < wls.size(); ++i)
        r.workloads.push_back(read_workload(wls[i], at(at(tw, "workloads"), i), tenant.name));
    }
    r.tenants.push_back(std::move(tenant));
  }

  const json& gpus = array_field(root, "", "gpus");
  for (size_t g = 0; g < gpus.size(); ++g) {
    Gpu gpu = read_gpu(gpus[g], at("gpus", g));
    // Tenant declaration order keeps stacking and colours the same on every GPU.
    std::stable_sort(gpu.utilisation_by_tenant.begin(), gpu.utilisation_by_tenant.end(),
                     [&r](const TenantShare& a, const TenantShare& b) {
                       return static_cast<unsigned>(r.tenant_index(a.tenant)) <
                              static_cast<unsigned>(r.tenant_index(b.tenant));
                     });
    r.gpus.push_back(std::move(gpu));
  }

  if (const auto it = root.find("placements"); it != root.end() && it->is_array())
    for (size_t i = 0; i < it->size(); ++i) {
      const json& pj = (*it)[i];
      const std::string pw = at("placements", i);
      Placement p;
      p.workload = str(pj, pw, "workload");
      p.tenant = str(pj, pw, "tenant");
      p.replica = small_int(pj, pw, "replica");
      p.gpu = small_int(pj, pw, "gpu", -1);
      p.start_s = number(pj, pw, "start_s", 0);
      const auto end = pj.find("end_s");
      p.end_s = end != pj.end() && end->is_number() ? end->get<double>() : NO_VALUE;
      p.end_reason = str(pj, pw, "end_reason");
      r.placements.push_back(std::move(p));
    }

  if (const auto it = root.find("leakage"); it != root.end() && it->is_object()) read_leakage(*it, r);
  read_timeline_marks(root, r);
  // An attack starts when its attacker workload is first placed (attacks are workloads of the attacker).
  for (const auto& a : r.attacks)
    for (const auto& p : r.placements)
      if (p.workload == a.name) {
        r.marks.push_back({p.start_s, "attack", "attack " + a.name + " (" + a.type + ") starts"});
        break;
      }
  std::stable_sort(r.marks.begin(), r.marks.end(),
                   [](const TimelineMark& x, const TimelineMark& y) { return x.time_s < y.time_s; });
  if (const auto it = root.find("isolation_boundaries"); it != root.end() && it->is_array())
    for (size_t i = 0; i < it->size(); ++i) {
      const json& bj = (*it)[i];
      const std::string bw = at("isolation_boundaries", i);
      Boundary b;
      if (const auto t = bj.find("tenants"); t != bj.end() && t->is_array() && t->size() == 2) {
        b.tenant_a = flat_text((*t)[0]);
        b.tenant_b = flat_text((*t)[1]);
      }
      b.node = str(bj, bw, "node");
      b.same_gpu = bj.value("same_gpu", false);
      b.shared_layers = first_text(bj, {"shared_layers"});
      r.boundaries.push_back(std::move(b));
    }
  if (const auto it = root.find("cost"); it != root.end() && it->is_object()) {
    r.cost.present = true;
    r.cost.provisioned_gpu_hours = number(*it, "cost", "provisioned_gpu_hours");
    r.cost.allocated_gpu_hours = number(*it, "cost", "allocated_gpu_hours");
    r.cost.total = number(*it, "cost", "total");
  }

  if (const auto it = root.find("quotas"); it != root.end() && it->is_array()) r.quotas = read_quotas(*it);
  if (const auto it = root.find("compliance"); it != root.end() && !it->is_null()) {
    r.has_compliance = true;
    r.findings = read_findings(*it);
    if (it->is_object()) read_compliance_marks(*it, r);
    std::stable_sort(r.marks.begin(), r.marks.end(),
                     [](const TimelineMark& x, const TimelineMark& y) { return x.time_s < y.time_s; });
  }
  if (const auto it = root.find("timeline"); it != root.end() && it->is_object()) read_timeline(*it, r);

  const json& pv = object_or_empty(root, "provenance");
  r.provenance.gputwin_version = str(pv, "provenance", "gputwin_version");
  r.provenance.simgrid_version = str(pv, "provenance", "simgrid_version");
  r.provenance.command_line = str(pv, "provenance", "command_line");
  r.provenance.host = str(pv, "provenance", "host");
  r.provenance.started_utc = str(pv, "provenance", "started_utc");
  r.provenance.wall_seconds = number(pv, "provenance", "wall_seconds", 0);
  return r;
}

}  // namespace

int Report::slos_missed() const {
  int n = 0;
  for (const auto& s : slos) n += s.met ? 0 : 1;
  return n;
}

std::map<std::pair<std::string, std::string>, PairLeakage> leakage_by_pair(const Report& r,
                                                                           const std::string& resource) {
  std::map<std::pair<std::string, std::string>, PairLeakage> cells;
  for (const auto& c : r.leak_channels) {
    if (!resource.empty() && c.resource != resource) continue;
    PairLeakage& cell = cells[{c.observer, c.source}];
    cell.open = true;
    // Over every resource a measurement seen through several resources counts once, as in the totals.
    if (std::isfinite(c.bound_bits) && (c.counted || !resource.empty()))
      cell.bits += c.bound_bits;
    else if (!std::isfinite(c.bound_bits))
      cell.unquantified = true;
  }
  // Bytes are not bits of a channel: they belong to the "all channels" view only.
  if (resource.empty())
    for (const auto& d : r.leak_discrete)
      if (!d.closed) cells[{d.observer, d.source}].bytes += d.bytes;
  return cells;
}

int Report::physical_gpus() const {
  std::set<std::pair<std::string, int>> seen;
  for (const auto& g : gpus) seen.insert({g.node, g.local_index});
  return static_cast<int>(seen.size());
}

double Report::open_exposure_bytes() const {
  double bytes = 0;
  for (const auto& d : leak_discrete) bytes += d.closed ? 0 : d.bytes;
  return bytes;
}

int Report::tenant_index(const std::string& tenant) const {
  for (size_t i = 0; i < tenants.size(); ++i)
    if (tenants[i].name == tenant) return static_cast<int>(i);
  return -1;
}

LoadResult parse_report(const std::string& text, const fs::path& source) {
  LoadResult out;
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // what() starts with "[json.exception.parse_error.101] ", which tells a user nothing.
    std::string why = e.what();
    if (const auto cut = why.find("] "); cut != std::string::npos) why.erase(0, cut + 2);
    out.error = source.string() + ": malformed JSON: " + why;
    return out;
  }
  try {
    out.report = read_report(root);
    out.report->path = source;
  } catch (const std::exception& e) {
    out.error = source.string() + ": " + e.what();
  }
  return out;
}

LoadResult load_report(const fs::path& path) {
  LoadResult out;
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) file = path / "report.json";
  if (!fs::exists(file, ec)) {
    out.error = fs::is_directory(path, ec)
                    ? "no report.json in " + path.string() + " (is it an output directory of `gputwin run`?)"
                    : path.string() + ": no such file or directory";
    return out;
  }
  // Regular files within the report cap only (sim/core/InputFile): a FIFO would hang the window.
  Diagnostics diags;
  const auto text = read_input_file(file.string(), InputKind::REPORT_JSON, diags);
  if (!text) {
    out.error = diags.all().front().message;
    return out;
  }
  if (text->empty()) {
    out.error = file.string() + ": cannot read the file (empty)";
    return out;
  }
  return parse_report(*text, file);
}

const std::vector<ServingMetric>& serving_metrics() {
  static const std::vector<ServingMetric> metrics = {
      {"TTFT p50", "s", -1, [](const ServingStats& s) { return s.ttft.p50_s; }},
      {"TTFT p99", "s", -1, [](const ServingStats& s) { return s.ttft.p99_s; }},
      {"TPOT p50", "s", -1, [](const ServingStats& s) { return s.tpot.p50_s; }},
      {"TPOT p99", "s", -1, [](const ServingStats& s) { return s.tpot.p99_s; }},
      {"Output tokens/s", "tok/s", +1, [](const ServingStats& s) { return s.output_tokens_per_s; }},
      {"Goodput", "share", +1, [](const ServingStats& s) { return s.goodput; }},
      {"KV use mean", "share", 0, [](const ServingStats& s) { return s.kv_utilisation; }},
      {"KV use peak", "share", 0, [](const ServingStats& s) { return s.kv_peak; }},
      {"Preemptions", "count", -1, [](const ServingStats& s) { return static_cast<double>(s.preemptions); }},
  };
  return metrics;
}

std::optional<std::pair<double, Bound>> parse_objective_bound(const std::string& objective) {
  Bound bound = Bound::AT_MOST;
  size_t op = objective.find("<=");
  if (op == std::string::npos) {
    op = objective.find(">=");
    bound = Bound::AT_LEAST;
  }
  if (op == std::string::npos) return std::nullopt;
  const char* begin = objective.c_str() + op + 2;
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v)) return std::nullopt;
  std::string unit;
  while (*end == ' ') ++end;
  while (*end != '\0' && *end != ' ') unit += *end++;
  // The writer formats durations with format_duration (sim/core/Units.cpp); the charts work in seconds.
  double scale = 1;
  static constexpr std::pair<const char*, double> durations[] = {
      {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"min", 60}, {"h", 3600}};
  for (const auto& [name, factor] : durations)
    if (unit == name) scale = factor;
  return std::make_pair(v * scale, bound);
}

std::string format_value(double v, const std::string& unit) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "unbounded" : "-unbounded";  // as report.md says
  // Three significant digits, as people read them ("850 ms", "2.5 s", "53.4 s", "10 min"), without
  // falling into exponents for large numbers.
  const auto sig3 = [](double x, const char* suffix) {
    char buf[64];
    std::snprintf(buf, sizeof buf, std::fabs(x) >= 1000 ? "%.0f%s" : "%.3g%s", x, suffix);
    return std::string(buf);
  };
  if (unit == "s") {
    const double a = std::fabs(v);
    if (a == 0) return "0 s";
    if (a < 1e-3) return sig3(v * 1e6, " us");
    if (a < 1) return sig3(v * 1e3, " ms");
    if (a < 120) return sig3(v, " s");
    if (a < 7200) return sig3(v / 60, " min");
    return sig3(v / 3600, " h");
  }
  // Bytes, bits and bit rates with decimal prefixes (SI, as the leakage model and report.md write them).
  if (unit == "B" || unit == "bit" || unit == "bit/s") {
    static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int p = 0;
    double x = v;
    while (std::fabs(x) >= 1000 && p < 6) {
      x /= 1000;
      ++p;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g %s%s", x, prefixes[p], unit.c_str());
    return buf;
  }
  if (unit == "1/s") return sig3(v, "/s");
  if (unit == "tok/s") return sig3(v, " tok/s");
  if (unit == "share") {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f%%", v * 100);
    return buf;
  }
  if (unit == "count") {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  if (unit == "x") {
    // Slowdowns sit near 1, where "1.04x" says more than "1x".
    char buf[64];
    std::snprintf(buf, sizeof buf, std::fabs(v) < 10 ? "%.2fx" : std::fabs(v) < 100 ? "%.1fx" : "%.0fx", v);
    return buf;
  }
  return sig3(v, unit.empty() ? "" : (" " + unit).c_str());
}

std::string format_delta(double now, double base, const std::string& unit, bool relative) {
  if (!std::isfinite(now) || !std::isfinite(base)) return "-";
  const double d = now - base;
  if (d == 0) return "\u00b10";
  const char* sign = d > 0 ? "+" : "-";
  if (unit == "share") {
    // Shares change by percentage points; a relative change of a percentage reads ambiguously.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.1f pp", sign, std::fabs(d) * 100);
    return buf;
  }
  if (unit != "count" && base != 0) {
    char buf[64];
    // One decimal below 1%: "-0.3%", not "-0%" for a change that is small but not nothing.
    const double rel = 100 * d / std::fabs(base);
    std::snprintf(buf, sizeof buf, std::fabs(rel) < 0.95 ? "%+.1f%%" : "%+.0f%%", rel);
    if (relative) return buf;
    return sign + format_value(std::fabs(d), unit) + " (" + buf + ")";
  }
  return sign + format_value(std::fabs(d), unit);
}

int delta_direction(const ServingMetric& metric, double now, double base) {
  if (!std::isfinite(now) || !std::isfinite(base) || now == base || metric.better == 0) return 0;
  return (now > base) == (metric.better > 0) ? 1 : -1;
}

}  // namespace gtw::gui
