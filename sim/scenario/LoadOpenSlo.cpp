// OpenSLO v1 documents read verbatim as a tenant's SLOs (docs/scenario.md, "OpenSLO"): the SLO named by
// `tenants[].slos[].openslo`, its indicator inline or an SLI of the same file (`indicatorRef`), its budgeting
// method and objectives. OpenSLO's metricSource names an external system whose query the twin cannot run,
// so an indicator is accepted only when it maps to a metric the twin computes itself: a metricSource of
// type `gputwin`, a Prometheus query over the twin's own metrics.prom series, or `openslo.metric` in the
// scenario. Anything else is refused at its location; nothing is guessed.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

#include "LoaderInternal.hpp"

namespace gtw {

namespace {

std::string doc_field(const YAML::Node& doc, const char* key) {
  const YAML::Node k = doc.IsMap() ? doc[key] : YAML::Node();
  return k && k.IsScalar() ? k.Scalar() : std::string();
}

std::string doc_name(const YAML::Node& doc) {
  const YAML::Node meta = doc.IsMap() ? doc["metadata"] : YAML::Node();
  return meta && meta.IsMap() ? doc_field(meta, "name") : std::string();
}

const std::vector<std::string>& twin_metric_names() {
  static const std::vector<std::string> names{"latency",      "ttft",           "tpot",    "throughput",
                                              "availability", "completionTime", "slowdown"};
  return names;
}

SloKind kind_of_metric(const std::string& name) {
  static const std::map<std::string, SloKind> kinds{{"latency", SloKind::LATENCY},
                                                    {"ttft", SloKind::TTFT},
                                                    {"tpot", SloKind::TPOT},
                                                    {"throughput", SloKind::THROUGHPUT},
                                                    {"availability", SloKind::AVAILABILITY},
                                                    {"completionTime", SloKind::COMPLETION_TIME},
                                                    {"slowdown", SloKind::SLOWDOWN}};
  return kinds.at(name);
}

// The twin's own series (docs/formats/metrics-prom.md) that a Prometheus query may name.
struct TwinSeries {
  const char* name;
  SloKind kind;
  double percentile;
};
const std::vector<TwinSeries>& twin_series() {
  static const std::vector<TwinSeries> series{{"gputwin_request_latency_p99_seconds", SloKind::LATENCY, 99},
                                              {"gputwin_request_latency_p50_seconds", SloKind::LATENCY, 50},
                                              {"gputwin_request_ttft_p99_seconds", SloKind::TTFT, 99},
                                              {"gputwin_request_ttft_p50_seconds", SloKind::TTFT, 50},
                                              {"gputwin_request_tpot_p99_seconds", SloKind::TPOT, 99},
                                              {"gputwin_request_tpot_p50_seconds", SloKind::TPOT, 50},
                                              {"gputwin_requests_completed_per_second", SloKind::THROUGHPUT, -1}};
  return series;
}

std::vector<std::string> twin_series_names() {
  std::vector<std::string> out;
  for (const auto& s : twin_series()) out.emplace_back(s.name);
  return out;
}

bool smaller_is_better(SloKind k) {
  return k == SloKind::LATENCY || k == SloKind::TTFT || k == SloKind::TPOT || k == SloKind::COMPLETION_TIME ||
         k == SloKind::SLOWDOWN;
}

bool per_request_duration(SloKind k) {
  return k == SloKind::LATENCY || k == SloKind::TTFT || k == SloKind::TPOT;
}

std::string where(const SourceLoc& at) {
  return at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

const char* expected_source() {
  return "map it to a metric the twin computes: metricSource {type: gputwin, spec: {metric: latency|ttft|tpot|"
         "throughput|availability|completionTime|slowdown, percentile, workload, unit}}, a Prometheus query over "
         "the twin's series (gputwin_request_latency_p99_seconds, gputwin_request_latency_p50_seconds, "
         "gputwin_request_ttft_p99_seconds, gputwin_request_ttft_p50_seconds, gputwin_request_tpot_p99_seconds, "
         "gputwin_request_tpot_p50_seconds, gputwin_requests_completed_per_second), or openslo.metric in the "
         "scenario";
}

}  // namespace

// Every document of an OpenSLO file, a top-level list of documents flattened, each named KIND[name] in paths.
// SLO and SLI documents must be openslo/v1; documents of other kinds are named in a warning.
std::vector<Ctx> Loader::openslo_documents(const K8sFile& f) {
  std::vector<Ctx> flat;
  for (const auto& doc : f.documents) {
    if (doc.node.IsSequence()) {
      for (auto& item : items(doc)) flat.push_back(std::move(item));
    } else {
      flat.push_back(doc);
    }
  }
  std::vector<Ctx> out;
  for (auto& doc : flat) {
    if (!expect_map(doc)) continue;
    const std::string kind = doc_field(doc.node, "kind");
    doc.path = doc.alt_path = (kind.empty() ? std::string("(no kind)") : kind) + "[" + doc_name(doc.node) + "]";
    if (kind != "SLO" && kind != "SLI") {
      d_.warning(doc.loc(), doc.path,
                 "a document of kind '" + (kind.empty() ? std::string("(none)") : kind) +
                     "' is not read here (openslo reads an SLO and the SLIs it refers to)");
      continue;
    }
    const std::string api = doc_field(doc.node, "apiVersion");
    if (api != "openslo/v1") {
      const auto at = child(doc, "apiVersion");
      d_.error(at ? at->loc() : doc.loc(), doc.path + ".apiVersion",
               "apiVersion '" + api + "' is not read; expected openslo/v1");
      continue;
    }
    out.push_back(doc);
  }
  return out;
}

// tenants[].slos[].openslo: {file, name, metric, percentile, unit, workload}: one twin SLO per objective of
// the named OpenSLO SLO.
void Loader::read_openslo(const Ctx& sel, std::vector<SloSpec>& out) {
  if (!check_map(sel)) return;
  std::string name;
  get_string(sel, "name", name, false);
  TwinMetric mapped;
  read_openslo_mapping(sel, mapped);
  auto f = read_k8s_file(sel, "file");
  if (!f) return;
  const auto docs = openslo_documents(*f);
  std::vector<std::string> names;
  std::optional<Ctx> slo;
  for (const auto& doc : docs) {
    if (doc_field(doc.node, "kind") != "SLO") continue;
    names.push_back(doc_name(doc.node));
    if (name.empty() || names.back() == name) slo = doc;
  }
  if (!name.empty() && !slo) {
    const auto at = child(sel, "name");
    d_.error(at->loc(), at->path, "no OpenSLO SLO named '" + name + "' in " + f->file + suggest(name, names));
    return;
  }
  if (name.empty() && names.size() != 1) {
    d_.error(sel.loc(), sel.path + ".name",
             names.empty() ? "no openslo/v1 SLO in " + f->file
                           : f->file + " holds " + std::to_string(names.size()) +
                                 " SLOs; choose one with openslo.name" + suggest("", names));
    return;
  }
  if (!slo) return;
  auto spec = child(*slo, "spec");
  if (!spec) {
    missing(*slo, "spec");
    return;
  }
  if (!expect_map(*spec)) return;
  allow_keys(*spec,
             {"description", "service", "indicator", "indicatorRef", "timeWindow", "budgetingMethod", "objectives",
              "alertPolicies"},
             "an OpenSLO SLO");
  TwinMetric m = mapped;
  auto sli = openslo_indicator(*spec, docs);
  if (!sli || !read_openslo_sli(*sli, sel, m)) return;
  std::string workload;
  get_string(sel, "workload", workload, false);
  const auto workload_at = child(sel, "workload");
  if (!workload.empty() && !m.workload.empty() && workload != m.workload) {
    d_.error(workload_at->loc(), workload_at->path,
             "the indicator names workload '" + m.workload + "' (" + m.source + "); give one workload");
    return;
  }
  if (workload.empty()) workload = m.workload;
  SloSpec proto;  // what every objective's SLO shares
  read_openslo_time_window(*spec, proto);
  std::string budgeting;
  if (!read_openslo_budgeting(*spec, budgeting)) return;
  if (auto ap = child(*spec, "alertPolicies"); ap && ap->node.IsSequence() && ap->node.size() > 0)
    d_.warning(ap->loc(), ap->path, "alert policies are not simulated; the report gives each SLO's violations");
  auto objectives = child(*spec, "objectives");
  if (!objectives) {
    missing(*spec, "objectives");
    return;
  }
  const auto list = items(*objectives);
  for (size_t i = 0; i < list.size(); ++i) {
    SloSpec s = proto;
    s.name = names.empty() ? name : doc_name(slo->node);
    if (list.size() > 1) s.name += "-" + std::to_string(i + 1);
    s.workload = workload;
    s.workload_loc = workload_at ? workload_at->loc() : sel.loc();
    read_openslo_objective(list[i], budgeting, m, s);
    out.push_back(std::move(s));
  }
}

// timeWindow: [{duration, isRolling, calendar}]; only its length is kept (noted when longer than the run).
void Loader::read_openslo_time_window(const Ctx& spec, SloSpec& proto) {
  auto tw = child(spec, "timeWindow");
  if (!tw) return;
  const auto list = items(*tw);
  if (tw->node.IsSequence() && list.size() != 1)
    d_.error(tw->loc(), tw->path, "expected exactly one time window, got " + std::to_string(list.size()));
  for (const auto& w : list) {
    if (!expect_map(w)) continue;
    allow_keys(w, {"duration", "isRolling", "calendar"}, "an OpenSLO time window");
    auto d = child(w, "duration");
    if (!d) {
      missing(w, "duration");
      continue;
    }
    if (auto len = openslo_duration(*d)) proto.time_window = *len;
    proto.time_window_text = d->node.IsScalar() ? d->node.Scalar() : "";
    proto.time_window_loc = d->loc();
  }
}

// budgetingMethod: Occurrences, Timeslices or RatioTimeslices (a ratio indicator's mean over the slices).
bool Loader::read_openslo_budgeting(const Ctx& spec, std::string& budgeting) {
  get_string(spec, "budgetingMethod", budgeting, true);
  const auto at = child(spec, "budgetingMethod");
  if (!at || budgeting.empty()) return false;
  const std::vector<std::string> methods{"Occurrences", "Timeslices", "RatioTimeslices"};
  if (std::find(methods.begin(), methods.end(), budgeting) == methods.end()) {
    d_.error(at->loc(), at->path, "unknown budgeting method '" + budgeting + "'" + suggest(budgeting, methods));
    return false;
  }
  return true;
}

// openslo.metric / percentile / unit / workload: the scenario's own mapping of the indicator.
void Loader::read_openslo_mapping(const Ctx& sel, TwinMetric& m) {
  std::string metric;
  get_string(sel, "metric", metric, false);
  if (auto at = child(sel, "metric"); at && !metric.empty()) {
    const auto& names = twin_metric_names();
    if (std::find(names.begin(), names.end(), metric) == names.end()) {
      d_.error(at->loc(), at->path, "unknown twin metric '" + metric + "'" + suggest(metric, names));
    } else {
      m.known = true;
      m.kind = kind_of_metric(metric);
      m.source = "openslo.metric at " + where(at->loc());
    }
  }
  if (child(sel, "percentile")) get_number(sel, "percentile", m.percentile, false);
  std::string unit;
  get_string(sel, "unit", unit, false);
  if (auto at = child(sel, "unit"); at && !unit.empty()) {
    const std::map<std::string, double> units{{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}};
    if (auto it = units.find(unit); it != units.end())
      m.unit = it->second;
    else
      d_.error(at->loc(), at->path, "unknown unit '" + unit + "'" + suggest(unit, {"s", "ms", "us"}));
  }
  for (const char* key : {"percentile", "unit"})
    if (auto at = child(sel, key); at && !child(sel, "metric"))
      d_.error(at->loc(), at->path,
               "applies to a metric mapped by openslo.metric; give it there or in the metricSource");
}

// The SLI spec of the SLO: `indicator` inline, or `indicatorRef` to an SLI document of the same file.
std::optional<Ctx> Loader::openslo_indicator(const Ctx& spec, const std::vector<Ctx>& docs) {
  auto inline_sli = child(spec, "indicator");
  auto ref = child(spec, "indicatorRef");
  if (inline_sli && ref) {
    d_.error(ref->loc(), ref->path, "give indicator or indicatorRef, not both");
    return std::nullopt;
  }
  if (inline_sli) {
    if (!expect_map(*inline_sli)) return std::nullopt;
    allow_keys(*inline_sli, {"metadata", "spec"}, "an OpenSLO indicator");
    auto s = child(*inline_sli, "spec");
    if (!s) missing(*inline_sli, "spec");
    return s;
  }
  if (!ref) {
    d_.error(spec.loc(), spec.path + ".indicator", "an SLO needs indicator or indicatorRef");
    return std::nullopt;
  }
  std::string name;
  if (!scalar(*ref, name, "the name of an SLI")) return std::nullopt;
  std::vector<std::string> slis;
  for (const auto& doc : docs) {
    if (doc_field(doc.node, "kind") != "SLI") continue;
    slis.push_back(doc_name(doc.node));
    if (slis.back() != name) continue;
    auto s = child(doc, "spec");
    if (!s) missing(doc, "spec");
    return s;
  }
  d_.error(ref->loc(), ref->path,
           "no SLI named '" + name + "' in this file (indicatorRef refers to an SLI document of the same file)" +
               suggest(name, slis));
  return std::nullopt;
}

// An SLI spec: thresholdMetric or ratioMetric (good/total, or raw success ratio), mapped to a twin metric.
bool Loader::read_openslo_sli(const Ctx& sli, const Ctx& sel, TwinMetric& m) {
  if (!expect_map(sli)) return false;
  allow_keys(sli, {"description", "thresholdMetric", "ratioMetric"}, "an OpenSLO SLI");
  auto threshold = child(sli, "thresholdMetric");
  auto ratio = child(sli, "ratioMetric");
  if (threshold && ratio) {
    d_.error(ratio->loc(), ratio->path, "give thresholdMetric or ratioMetric, not both");
    return false;
  }
  if (threshold) {
    if (!expect_map(*threshold)) return false;
    allow_keys(*threshold, {"metricSource"}, "an OpenSLO thresholdMetric");
    return read_metric_source(*threshold, m, "");
  }
  if (!ratio) {
    d_.error(sli.loc(), sli.path, "an SLI needs thresholdMetric or ratioMetric");
    return false;
  }
  if (!expect_map(*ratio)) return false;
  allow_keys(*ratio, {"counter", "good", "bad", "total", "raw", "rawType"}, "an OpenSLO ratioMetric");
  m.ratio = true;
  if (m.known && m.kind != SloKind::AVAILABILITY) {
    const auto at = child(sel, "metric");
    d_.error(at->loc(), at->path,
             "a ratioMetric is a share of good events: it maps to the twin's availability (the share of requests "
             "served), not to " +
                 std::string(slo_kind_name(m.kind)));
    return false;
  }
  if (auto bad = child(*ratio, "bad")) {
    d_.error(bad->loc(), bad->path, "bad/total is not mapped: give good/total (good: the requests served)");
    return false;
  }
  if (auto raw = child(*ratio, "raw")) {
    std::string type;
    get_string(*ratio, "rawType", type, true);
    if (!type.empty() && type != "success") {
      const auto at = child(*ratio, "rawType");
      d_.error(at->loc(), at->path, "rawType '" + type + "' is not mapped: the twin's availability is a success ratio");
      return false;
    }
    return read_metric_source(*raw, m, "raw");
  }
  bool ok = true;
  for (const char* side : {"good", "total"}) {
    auto part = child(*ratio, side);
    if (!part) {
      missing(*ratio, side);
      ok = false;
    } else if (expect_map(*part)) {
      allow_keys(*part, {"metricSource"}, "an OpenSLO ratio part");
      ok = read_metric_source(*part, m, side) && ok;
    }
  }
  m.kind = SloKind::AVAILABILITY;
  return ok;
}

// holder.metricSource: {metricSourceRef, type, spec}. `side`: "" (threshold), "good", "total" or "raw".
bool Loader::read_metric_source(const Ctx& holder, TwinMetric& m, const char* side) {
  auto ms = child(holder, "metricSource");
  if (!ms) {
    missing(holder, "metricSource");
    return false;
  }
  if (!expect_map(*ms)) return false;
  allow_keys(*ms, {"metricSourceRef", "type", "spec"}, "an OpenSLO metricSource");
  std::string type;
  get_string(*ms, "type", type, true);
  const auto type_at = child(*ms, "type");
  if (!type_at) return false;
  auto spec = child(*ms, "spec");
  TwinMetric found;
  bool ok = true;
  if (type == "gputwin") {
    ok = spec ? read_gputwin_source(*spec, found) : (missing(*ms, "spec"), false);
    if (ok && *side) {
      // A ratio's parts: the requests served over the requests submitted, i.e. the twin's availability.
      // A raw ratio is the share itself: the twin's availability.
      const std::string part = side;
      const std::string want = part == "total" ? "requests" : part == "raw" ? "availability" : "servedRequests";
      const auto metric = child(*spec, "metric");
      if (!metric || !metric->node.IsScalar() || metric->node.Scalar() != want) {
        d_.error(metric ? metric->loc() : spec->loc(), spec->path + ".metric",
                 std::string("the ") + side + " part of a ratio maps to metric '" + want + "'");
        return false;
      }
      found.kind = SloKind::AVAILABILITY;
    }
  } else if (auto query = spec ? child(*spec, "query") : std::nullopt;
             type == "Prometheus" && query && query->node.IsScalar() &&
             query->node.Scalar().find("gputwin_") != std::string::npos) {
    ok = read_prometheus_query(*query, found);
    if (ok && *side) {
      d_.error(query->loc(), query->path,
               "the twin's series give no counts of good and total requests; map a ratio with type gputwin "
               "(servedRequests/requests) or openslo.metric: availability");
      return false;
    }
  }
  if (!ok) return false;
  if (found.known) {
    if (m.known && m.source.rfind("openslo.metric", 0) == 0) {
      d_.error(type_at->loc(), type_at->path, "the indicator maps to a twin metric already; drop " + m.source);
      return false;
    }
    if (*side && m.known) return true;  // the other part of the ratio mapped it
    found.ratio = m.ratio;
    m = found;
    return true;
  }
  if (m.known) {
    d_.warning(type_at->loc(), type_at->path,
               "metricSource type '" + type + "' is not queried: the twin measures its own " + slo_kind_name(m.kind) +
                   " (" + m.source + ")");
    return true;
  }
  d_.error(
      type_at->loc(), type_at->path,
      (type == "Prometheus" ? std::string("the Prometheus query names none of the twin's own series; ")
                            : "metricSource type '" + type + "' names a system whose query the twin cannot run; ") +
          expected_source());
  return false;
}

// metricSource {type: gputwin, spec: {metric, percentile, workload, unit}}.
bool Loader::read_gputwin_source(const Ctx& spec, TwinMetric& m) {
  if (!expect_map(spec)) return false;
  allow_keys(spec, {"metric", "percentile", "workload", "unit"}, "a gputwin metricSource spec");
  std::string metric;
  get_string(spec, "metric", metric, true);
  const auto at = child(spec, "metric");
  if (!at) return false;
  std::vector<std::string> names = twin_metric_names();
  names.insert(names.end(), {"servedRequests", "requests"});
  if (std::find(names.begin(), names.end(), metric) == names.end()) {
    d_.error(at->loc(), at->path, "unknown twin metric '" + metric + "'" + suggest(metric, names));
    return false;
  }
  m.known = true;
  m.kind = metric == "servedRequests" || metric == "requests" ? SloKind::AVAILABILITY : kind_of_metric(metric);
  m.source = "metricSource type gputwin at " + where(at->loc());
  if (child(spec, "percentile") && !openslo_number(spec, "percentile", m.percentile, 1e-9, 100)) return false;
  get_string(spec, "workload", m.workload, false);
  std::string unit;
  get_string(spec, "unit", unit, false);
  if (!unit.empty()) {
    const std::map<std::string, double> units{{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}};
    auto it = units.find(unit);
    if (it == units.end()) {
      const auto u = child(spec, "unit");
      d_.error(u->loc(), u->path, "unknown unit '" + unit + "'" + suggest(unit, {"s", "ms", "us"}));
      return false;
    }
    m.unit = it->second;
  }
  return true;
}

// A Prometheus query over one of the twin's own series, recognised by name; `workload="x"` selects the workload.
bool Loader::read_prometheus_query(const Ctx& query, TwinMetric& m) {
  const std::string q = query.node.Scalar();
  std::vector<std::string> named;
  for (size_t pos = q.find("gputwin_"); pos != std::string::npos; pos = q.find("gputwin_", pos + 1)) {
    size_t end = pos;
    while (end < q.size() && (std::isalnum(static_cast<unsigned char>(q[end])) != 0 || q[end] == '_')) ++end;
    const std::string series = q.substr(pos, end - pos);
    if (std::find(named.begin(), named.end(), series) == named.end()) named.push_back(series);
    pos = end - 1;
  }
  if (named.size() != 1) {
    d_.error(query.loc(), query.path,
             "the query names " + std::to_string(named.size()) +
                 " of the twin's series; one series maps to one twin metric");
    return false;
  }
  const auto& all = twin_series();
  const auto it = std::find_if(all.begin(), all.end(), [&](const TwinSeries& s) { return named[0] == s.name; });
  if (it == all.end()) {
    d_.error(query.loc(), query.path,
             "series '" + named[0] + "' is not one an SLO can be mapped to" + suggest(named[0], twin_series_names()));
    return false;
  }
  m.known = true;
  m.kind = it->kind;
  m.percentile = it->percentile;
  m.source = std::string("Prometheus series ") + it->name;
  if (const size_t w = q.find("workload=\""); w != std::string::npos) {
    const size_t start = w + 10;
    const size_t end = q.find('"', start);
    if (end != std::string::npos) m.workload = q.substr(start, end - start);
  }
  return true;
}

bool Loader::openslo_number(const Ctx& parent, const std::string& key, double& out, double min, double max) {
  auto c = child(parent, key);
  if (!c) return false;
  std::string s;
  if (!scalar(*c, s, "a number")) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < min || v > max) {
    d_.error(c->loc(), c->path,
             "expected a number in [" + number_text(min) + ", " + number_text(max) + "], got \"" + s + "\"");
    return false;
  }
  out = v;
  return true;
}

// OpenSLO's duration shorthand: a positive integer and m (minute), h, d, w, M (month), Q (quarter) or Y
// (year). A month, quarter or year is not a fixed length: it gives its shortest (28d, 89d, 365d).
std::optional<Seconds> Loader::openslo_duration(const Ctx& c) {
  std::string s;
  if (!scalar(c, s, "an OpenSLO duration such as 1m, 2w")) return std::nullopt;
  static const std::map<char, double> unit{{'m', 60},           {'h', 3600},         {'d', 86400},
                                           {'w', 7 * 86400.0},  {'M', 28 * 86400.0}, {'Q', 89 * 86400.0},
                                           {'Y', 365 * 86400.0}};
  const bool digits = s.size() >= 2 && s[0] >= '1' && s[0] <= '9' &&
                      std::all_of(s.begin(), s.end() - 1, [](char ch) { return ch >= '0' && ch <= '9'; });
  const auto u = s.empty() ? unit.end() : unit.find(s.back());
  if (!digits || u == unit.end() || s.size() > 10) {
    d_.error(c.loc(), c.path,
             "expected an OpenSLO duration: a positive integer and m (minute), h, d, w, M (month), Q or Y, got \"" + s +
                 "\"");
    return std::nullopt;
  }
  return Seconds(std::strtod(s.c_str(), nullptr) * u->second);
}

// One objective: {displayName, op, value, target | targetPercent, timeSliceTarget, timeSliceWindow}. target
// becomes the share of windows (or jobs) that must meet the bound. Occurrences counts every event of the
// time window: a per-request duration becomes the percentile 100 x target over one window of the whole run.
// Timeslices: each timeSliceWindow is a twin SLO window; timeSliceTarget is the share of a slice's requests
// that must be good (a percentile, or the availability floor).
void Loader::read_openslo_objective(const Ctx& obj, const std::string& budgeting, const TwinMetric& m, SloSpec& slo) {
  slo.loc = obj.loc();
  slo.kind = m.kind;
  slo.window = Seconds(-1);
  if (!expect_map(obj)) return;
  allow_keys(obj,
             {"displayName", "op", "value", "target", "targetPercent", "timeSliceTarget", "timeSliceWindow",
              "indicator", "indicatorRef", "compositeWeight"},
             "an OpenSLO objective");
  for (const char* key : {"indicator", "indicatorRef", "compositeWeight"})
    if (auto at = child(obj, key)) {
      d_.error(at->loc(), at->path, "composite SLOs (an indicator per objective) are not mapped; give one SLO each");
      return;
    }
  double target = -1;
  if (child(obj, "target")) {
    if (!openslo_number(obj, "target", target, 1e-9, 1)) return;
  } else if (child(obj, "targetPercent")) {
    if (!openslo_number(obj, "targetPercent", target, 1e-7, 100)) return;
    target /= 100;
  } else {
    missing(obj, "target");
    return;
  }
  double slice_target = -1;
  if (child(obj, "timeSliceTarget") && !openslo_number(obj, "timeSliceTarget", slice_target, 1e-9, 1)) return;
  const auto slice_at = child(obj, "timeSliceTarget");
  const auto slice_window = child(obj, "timeSliceWindow");
  openslo_bound(obj, m, slo);
  const bool jobs = slo.kind == SloKind::COMPLETION_TIME || slo.kind == SloKind::SLOWDOWN;
  const auto refuse = [&](const Ctx& at, const std::string& why) { d_.error(at.loc(), at.path, why); };
  const auto percentile = [&](double p, const Ctx& at) {
    if (m.percentile > 0 && std::abs(m.percentile - p) > 1e-9)
      refuse(at, "says the " + number_text(p) + "th percentile, but the indicator is the " + number_text(m.percentile) +
                     "th (" + m.source + ")");
    slo.percentile = p;
  };
  if (budgeting == "Occurrences") {
    for (const auto& at : {slice_at, slice_window})
      if (at) d_.warning(at->loc(), at->path, "ignored: only Timeslices budgets time slices");
    if (jobs) {
      slo.target = target;  // the share of jobs that must meet the bound
    } else if (per_request_duration(slo.kind) || (m.ratio && slo.kind == SloKind::AVAILABILITY)) {
      if (m.ratio) slo.min_availability = target;
      const auto target_at = child(obj, "target") ? child(obj, "target") : child(obj, "targetPercent");
      if (!m.ratio) percentile(100 * target, *target_at);
      slo.target = 1;
      slo.whole_run = true;
    } else {
      refuse(obj, std::string(slo_kind_name(slo.kind)) +
                      " is measured over a window, not counted per event: use budgetingMethod Timeslices");
    }
    return;
  }
  if (!slice_window) {
    missing(obj, "timeSliceWindow");
    return;
  }
  if (jobs) {
    refuse(*slice_window,
           std::string(slo_kind_name(slo.kind)) + " judges each job, not time slices: use budgetingMethod Occurrences");
    return;
  }
  if (auto w = openslo_duration(*slice_window)) {
    const char u = slice_window->node.Scalar().back();
    if (u == 'M' || u == 'Q' || u == 'Y')
      refuse(*slice_window, "a month, quarter or year has no fixed length; give the slice in m, h, d or w");
    slo.window = *w;
  }
  slo.target = target;
  if (budgeting == "RatioTimeslices") {
    // The mean of the slices' good/total shares against target: defined for ratio indicators only.
    if (!m.ratio || slo.kind != SloKind::AVAILABILITY) {
      refuse(obj,
             "RatioTimeslices averages the good/total share of each slice: it needs a ratioMetric indicator "
             "of served requests; this one is " +
                 (m.ratio ? "a ratioMetric mapped to the twin's " + std::string(slo_kind_name(slo.kind))
                          : "a thresholdMetric (the twin's " + std::string(slo_kind_name(slo.kind)) + ")") +
                 "; use Timeslices");
      return;
    }
    if (slice_at)
      d_.warning(slice_at->loc(), slice_at->path, "ignored: RatioTimeslices compares the mean share with target");
    slo.mean_of_ratios = true;
    slo.min_availability = target;  // a slice below the target is marked (for the attribution), not counted
  } else if (m.ratio) {
    if (!slice_at) missing(obj, "timeSliceTarget");
    slo.min_availability = slice_target;
  } else if (per_request_duration(slo.kind)) {
    if (slice_at)
      percentile(100 * slice_target, *slice_at);
    else if (m.percentile > 0)
      slo.percentile = m.percentile;
    else
      refuse(obj,
             "needs timeSliceTarget (the share of a slice's requests that must be good) or a percentile in "
             "the metric's mapping");
  } else if (slice_at) {
    refuse(*slice_at, std::string("timeSliceTarget has no meaning for ") + slo_kind_name(slo.kind) +
                          ": the slice is judged by op and value");
  }
}

// op and value: the bound of the twin SLO. A ratio has no value (good/total is compared with the targets).
void Loader::openslo_bound(const Ctx& obj, const TwinMetric& m, SloSpec& slo) {
  std::string op;
  get_string(obj, "op", op, false);
  const auto op_at = child(obj, "op");
  const auto value_at = child(obj, "value");
  const std::vector<std::string> ops{"lt", "lte", "gt", "gte"};
  if (op_at && std::find(ops.begin(), ops.end(), op) == ops.end()) {
    d_.error(op_at->loc(), op_at->path, "unknown op '" + op + "'" + suggest(op, ops));
    return;
  }
  const bool smaller = smaller_is_better(slo.kind);
  if (op_at && (op[0] == 'l') != smaller) {
    d_.error(op_at->loc(), op_at->path,
             "op '" + op + "' does not fit " + slo_kind_name(slo.kind) + ", which is better " +
                 (smaller ? "smaller: expected lt or lte" : "larger: expected gt or gte"));
    return;
  }
  if (m.ratio) {
    if (value_at)
      d_.error(value_at->loc(), value_at->path,
               "a ratioMetric has no value: its good/total share is compared with target / timeSliceTarget");
    return;
  }
  if (!op_at) missing(obj, "op");
  double value = 0;
  if (!value_at) {
    missing(obj, "value");
    return;
  }
  if (!openslo_number(obj, "value", value, 1e-12, 1e12)) return;
  switch (slo.kind) {
    case SloKind::THROUGHPUT:
      slo.min_rate = PerSecond(value);
      break;
    case SloKind::SLOWDOWN:
      if (value < 1) d_.error(value_at->loc(), value_at->path, "a slowdown bound is at least 1 (the job alone)");
      slo.max_slowdown = value;
      break;
    case SloKind::AVAILABILITY:
      if (value > 1) d_.error(value_at->loc(), value_at->path, "availability is a share: expected a value in (0, 1]");
      slo.min_availability = value;
      break;
    default:
      slo.threshold = Seconds(value * m.unit);
  }
}

}  // namespace gtw
