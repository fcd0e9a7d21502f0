#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include <cmath>

#include "ComplianceWriters.hpp"
#include "DataExposure.hpp"
#include "Writers.hpp"

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

json tenant_name(const ScenarioSpec& spec, int t) {
  return t >= 0 && static_cast<size_t>(t) < spec.tenants.size() ? json(spec.tenants[static_cast<size_t>(t)].name)
                                                                : json(nullptr);
}

// The region of a node pool ("" when the pool declares none).
std::string pool_region(const ScenarioSpec& spec, const std::string& pool) {
  for (const auto& p : spec.node_pools)
    if (p.name == pool) return p.region;
  return {};
}

// Utilisation by tenant per timeline step: cluster-wide (busy GPU-equivalents), and per device for runs small
// enough to chart device by device.
constexpr size_t TIMELINE_MAX_DEVICES = 256;

json timeline_json(const ScenarioSpec& spec, const Analysis& a) {
  const size_t n_steps = static_cast<size_t>(std::ceil(a.duration / a.timeline_step - 1e-9));
  std::vector<std::vector<double>> cluster(spec.tenants.size());
  json devices = json::array();
  for (const auto& g : a.gpus) {
    json by_tenant = json::object();
    for (const auto& [tenant, row] : g.busy_by_tenant_per_step) {
      const auto t = static_cast<size_t>(tenant);
      if (row.empty()) continue;
      if (cluster[t].empty()) cluster[t].assign(n_steps, 0.0);
      for (size_t k = 0; k < row.size() && k < n_steps; ++k) cluster[t][k] += row[k];
      by_tenant[spec.tenants[t].name] = row;
    }
    if (a.gpus.size() <= TIMELINE_MAX_DEVICES && !by_tenant.empty())
      devices.push_back({{"index", g.layout.index}, {"busy_by_tenant", by_tenant}});
  }
  json tenants = json::object();
  for (size_t t = 0; t < cluster.size(); ++t)
    if (!cluster[t].empty()) tenants[spec.tenants[t].name] = cluster[t];
  return {{"step_s", a.timeline_step},
          {"busy_gpus_by_tenant", tenants},
          {"gpus", a.gpus.size() <= TIMELINE_MAX_DEVICES ? devices : json(nullptr)}};
}

json time_or_null(double t) {
  return t >= 0 ? json(t) : json(nullptr);
}

// Identity at run time (docs/models/identity.md, "Invocations at run time").
json agents_json(const ScenarioSpec& spec, const RunResult& run, const AgentRuntimeSummary& a) {
  json invocations = json::array();
  for (const auto& p : a.invocations)
    invocations.push_back({{"name", p.name},
                           {"principal", p.principal},
                           {"entry", p.entry},
                           {"calls", p.calls},
                           {"hops", p.hops},
                           {"refused", p.refused},
                           {"refused_by", p.refused_by},
                           {"confused_deputy", p.confused_deputy},
                           {"over_privileged", p.over_privileged},
                           {"after_revocation", p.after_revocation},
                           {"first_deputy_at_s", time_or_null(p.first_deputy_at)}});
  json flagged = json::array();
  for (size_t i : a.flagged) {
    const auto& s = run.invocation_steps[i];
    const std::string flag = !s.allowed          ? "refused"
                             : s.confused_deputy ? "confusedDeputy"
                             : s.over_privileged ? "overPrivileged"
                                                 : "afterRevocation";
    flagged.push_back({{"time_s", s.time},
                       {"invocation", spec.identity.invocations[static_cast<size_t>(s.invocation)].name},
                       {"call", s.call},
                       {"hop", s.hop},
                       {"principal", s.principal},
                       {"from", s.from},
                       {"to", s.to},
                       {"target_kind", s.target_kind},
                       {"owner", tenant_name(spec, s.owner)},
                       {"action", s.action},
                       {"propagation", s.propagation},
                       {"identity", s.identity},
                       {"token_expires_s", s.token_expires},
                       {"flag", flag},
                       {"reason", s.reason}});
  }
  json sessions = json::array();
  for (const auto& p : a.sessions)
    sessions.push_back({{"principal", p.principal},
                        {"sessions", p.sessions},
                        {"calls", p.calls},
                        {"longest_idle_s", p.longest_idle_s},
                        {"ended_by", p.ended_by}});
  return {{"invocations", invocations},
          {"sessions", sessions},
          {"flagged", flagged},
          {"flagged_omitted", a.flagged_omitted}};
}

json secret_leaks_json(const ScenarioSpec& spec, const std::vector<identity::SecretLeakWindow>& leaks) {
  json out = json::array();
  for (const auto& w : leaks)
    out.push_back({{"secret", spec.identity.secrets[static_cast<size_t>(w.secret)].name},
                   {"owner", tenant_name(spec, w.owner)},
                   {"to", tenant_name(spec, w.to)},
                   {"at_s", w.at},
                   {"known_at_s", time_or_null(w.known_at)},
                   {"credential_issued_s", time_or_null(w.credential_issued)},
                   {"end_s", time_or_null(w.end)},
                   {"ended_by", w.ended_by},
                   {"exposure_s", w.exposure_s},
                   {"reads_before", w.reads_before},
                   {"protects", w.protects}});
  return out;
}

json incidents_json(const ScenarioSpec& spec, const std::vector<identity::Incident>& incidents) {
  json out = json::array();
  for (const auto& in : incidents)
    out.push_back({{"kind", in.kind},
                   {"time_s", in.time},
                   {"known_at_s", time_or_null(in.known_at)},
                   {"notified_at_s", time_or_null(in.notified_at)},
                   {"affected", tenant_name(spec, in.affected)},
                   {"observer", tenant_name(spec, in.observer)},
                   {"event", in.event},
                   {"resource", in.resource},
                   {"detail", in.detail}});
  return out;
}

// The projection-layer extraction of a queryExtraction attacker (null when the target has no shape).
json projection_json(const AttackResult& r) {
  if (!r.projection_known) return nullptr;
  const bool possible = std::isfinite(r.queries_per_vector);
  return {{"hidden_size", r.hidden_size},
          {"vocab_size", r.vocab_size},
          {"queries_per_vector", possible ? json(r.queries_per_vector) : json()},
          {"repeats", r.query_repeats},
          {"queries_needed", possible ? json(r.queries_needed) : json()},
          {"vectors_obtained", r.vectors_obtained},
          {"recovered", r.projection_recovered},
          {"recovered_at_s", time_or_null(r.projection_recovered_at)},
          {"bytes", r.projection_bytes},
          {"route", r.projection_route}};
}

// The leakage section's long lists, an element at a time (write_leakage): a large cluster's run has a channel per
// pair of co-active tenants, resource and relation (22 MB of text for a simulated day of 10,000 GPUs).
// A covert channel's payload and, with bitRate auto, its rate search.
json covert_achieved_json(const AttackResult& r) {
  json j = {{"bits", r.bits},
            {"bit_errors", r.bit_errors},
            {"bit_rate_bps", r.bit_rate_bps},
            {"error_rate", r.error_rate},
            {"information_rate_bps", r.information_rate_bps},
            {"achieved_bps", r.achieved_bps}};
  if (r.rate_trials.empty()) return j;
  json trials = json::array();
  for (const auto& t : r.rate_trials)
    trials.push_back({{"bit_rate_bps", t.bit_rate_bps},
                      {"error_rate", t.error_rate},
                      {"information_rate_bps", t.information_rate_bps}});
  j["rate_search"] = {{"trials", trials}, {"seconds", r.search_seconds}};
  return j;
}

json leakage_channel_json(const ScenarioSpec& spec, const LeakageChannel& c) {
  const bool quantified = c.state == channel::State::OPEN;
  return {{"observer", tenant_name(spec, c.observer)},
          {"source", tenant_name(spec, c.source)},
          {"resource", channel::resource_name(c.resource)},
          {"mode", channel::mode_name(c.mode)},
          {"state", channel::state_name(c.state)},
          {"exposure_s", c.exposure_s},
          {"bit_rate_bps", quantified ? json(c.bit_rate_bps) : json(nullptr)},
          {"error_rate", quantified ? json(c.error_rate) : json(nullptr)},
          {"capacity_bps", quantified ? json(c.capacity_bps) : json(nullptr)},
          {"bound_bits", quantified ? json(c.bound_bits) : json(nullptr)},
          {"capacity_source", c.capacity_source},
          {"counted", c.counted},
          {"same_measurement_as", c.counted ? json(nullptr) : json(channel::resource_name(c.counted_in))},
          {"gpus", c.gpus}};
}

json leakage_closed_json(const ScenarioSpec& spec, const ClosedChannel& c) {
  return {{"observer", tenant_name(spec, c.observer)},
          {"source", tenant_name(spec, c.source)},
          {"resource", channel::resource_name(c.resource)},
          {"mode", channel::mode_name(c.mode)},
          {"co_active_s", c.co_active_s},
          {"reason", c.reason}};
}

json leakage_discrete_json(const ScenarioSpec& spec, const DiscreteExposure& d) {
  return {{"observer", tenant_name(spec, d.observer)},
          {"source", tenant_name(spec, d.source)},
          {"kind", discrete_kind_name(d.kind)},
          {"workload", d.workload >= 0 ? json(spec.workloads[static_cast<size_t>(d.workload)].name) : json(nullptr)},
          {"gpu", d.gpu},
          {"bytes", d.bytes},
          {"closed", d.closed},
          {"closed_reason", d.closed_reason},
          {"closed_by", d.closed_by},
          {"basis", d.basis},
          {"data", d.data >= 0 ? json(spec.data[static_cast<size_t>(d.data)].name) : json(nullptr)},
          {"paths", d.paths}};
}

json leakage_model_json(const ModelAsset& m) {
  json exposures = json::array();
  for (const auto& x : m.exposures)
    exposures.push_back({{"part", x.part},
                         {"channel", x.channel},
                         {"status", x.status},
                         {"tenants", x.tenants},
                         {"bits", x.bits},
                         {"bytes", x.bytes},
                         {"closed_by", x.closed_by},
                         {"detail", x.detail}});
  return {{"workload", m.name},
          {"owner", m.owner},
          {"kind", m.kind},
          {"weight_bytes", m.weight_bytes},
          {"exposures", exposures}};
}

// The leakage section, its channels, closed channels, discrete exposures and models left empty: write_leakage
// writes them an element at a time.
json leakage_json(const ScenarioSpec& spec, const RunResult& run, const LeakageReport& l) {
  using channel::State;
  json out;
  out["options"] = {{"scrub_on_free", l.options.scrub_on_free},
                    {"timer_resolution_s", l.options.timer_resolution_s},
                    {"query_rate_limit_per_s", l.options.query_rate_limit},
                    {"query_budget", l.options.query_budget},
                    {"weight_encryption", l.options.weight_encryption},
                    {"noise_injection_s", l.options.noise_injection_s},
                    {"gpu_visibility", gpu_visibility_names()[static_cast<size_t>(l.options.gpu_visibility)]},
                    {"api",
                     {{"logprobs", api_logprobs_names()[static_cast<size_t>(l.options.api.logprobs)]},
                      {"top_logprobs", l.options.api.top_logprobs},
                      {"logit_bias", l.options.api.logit_bias},
                      {"output_noise_nats", l.options.api.noise_nats},
                      {"watermark_fraction", l.options.api.watermark_fraction},
                      {"watermark_threshold", l.options.api.watermark_threshold}}}};
  out["mitigation_costs"] = {{"scrubbed_bytes", l.scrubbed_bytes},
                             {"scrub_seconds", l.scrub_seconds},
                             {"answers_watermarked", l.answers_watermarked},
                             {"answers_perturbed", l.answers_perturbed}};
  out["totals"] = {{"bits", l.total_bits},
                   {"bytes", l.total_bytes},
                   {"open_channels", l.open_channels},
                   {"unquantified_channels", l.unquantified_channels}};
  json tenants = json::array();
  for (const auto& t : l.tenants)
    tenants.push_back({{"name", t.name},
                       {"bits_as_observer", t.bits_as_observer},
                       {"bits_as_source", t.bits_as_source},
                       {"bytes_as_observer", t.bytes_as_observer},
                       {"bytes_as_source", t.bytes_as_source},
                       {"open_channels_as_source", t.open_channels_as_source}});
  out["tenants"] = tenants;
  out["channels"] = json::array();  // written element by element (write_leakage)
  out["closed"] = json::array();
  out["discrete"] = json::array();
  json identity_paths = json::array();  // the identity channel (docs/models/identity.md)
  for (const auto& p : l.identity_paths)
    identity_paths.push_back({{"observer", tenant_name(spec, p.observer_tenant)},
                              {"source", tenant_name(spec, p.source_tenant)},
                              {"principal", p.principal},
                              {"target", p.target},
                              {"target_kind", p.target_kind},
                              {"action", p.action},
                              {"hops", p.hops},
                              {"propagation", p.propagation},
                              {"effective_identity", p.effective_identity},
                              {"granted", p.granted},
                              {"confused_deputy", p.confused_deputy}});
  out["identity_paths"] = identity_paths;
  out["agents"] = agents_json(spec, run, l.agents);
  out["secret_leaks"] = secret_leaks_json(spec, l.secret_leaks);
  out["incidents"] = incidents_json(spec, l.incidents);
  out["models"] = json::array();
  json catalogue = json::array();
  for (const auto& e : l.catalogue) {
    const bool rated = e.state == State::OPEN && e.capacity_bps > 0;
    catalogue.push_back({{"resource", channel::resource_name(e.resource)},
                         {"mode", channel::mode_name(e.mode)},
                         {"state", channel::state_name(e.state)},
                         {"per_time_slice", e.per_time_slice},
                         {"bit_rate_bps", rated ? json(e.bit_rate_bps) : json(nullptr)},
                         {"error_rate", rated ? json(e.error_rate) : json(nullptr)},
                         {"capacity_bps", rated ? json(e.capacity_bps) : json(nullptr)},
                         {"source", e.source},
                         {"measured_on", e.measured_on},
                         {"transfer_rule", e.transfer_rule},
                         {"reason", e.reason},
                         {"closed_by", e.closed_by},
                         {"atlas", e.atlas}});
  }
  out["catalogue"] = catalogue;
  json attacks = json::array();
  for (const auto& r : l.attacks) {
    json j = {{"name", r.name},
              {"type", r.type},
              {"attacker", r.attacker},
              {"victim", r.victim},
              {"target", r.target.empty() ? json(nullptr) : json(r.target)},
              {"resource", r.resource},
              {"relation", r.relation},
              {"ran", r.ran},
              {"outcome", r.outcome},
              {"bound_state", r.bound_state},
              {"bound_bps", r.bound_bps},
              {"bound_source", r.bound_source},
              {"within_bound", r.within_bound}};
    if (r.type == "covertChannel")
      j["achieved"] = covert_achieved_json(r);
    else if (r.type == "primeProbe")
      j["achieved"] = {{"observations", r.observations},
                       {"correct", r.correct},
                       {"accuracy", r.accuracy},
                       {"answer", r.guess.empty() ? json(nullptr) : json(r.guess)},
                       {"identified", r.identified}};
    else if (r.type == "modelExtraction")
      j["achieved"] = {{"observations", r.observations},
                       {"estimated_parameters", r.estimate},
                       {"parameters", r.truth},
                       {"relative_error", r.relative_error},
                       {"layers",
                        {{"batches", r.layer_batches},
                         {"truth", r.layers_truth},
                         {"estimate", r.layers_estimate},
                         {"exact", r.layers_exact},
                         {"error_mean", r.layer_error_mean},
                         {"error_max", r.layer_error_max}}}};
    else if (r.type == "queryExtraction")
      j["achieved"] = {{"queries_sent", r.queries_sent},         {"queries_admitted", r.queries_admitted},
                       {"queries_answered", r.queries_answered}, {"queries_rate_limited", r.queries_rate_limited},
                       {"queries_refused", r.queries_refused},   {"query_seconds", r.query_seconds},
                       {"goal_reached", r.query_goal_reached},   {"bound_queries", r.bound_queries},
                       {"projection", projection_json(r)},       {"watermark_detection", r.watermark_detection}};
    else if (r.type == "remanenceScrape")
      j["achieved"] = {{"bytes_recovered", r.bytes_recovered}, {"bound_bytes", r.bound_bytes}};
    else
      j["achieved"] = {{"victim_p99_before_s", r.victim_p99_before_s},
                       {"victim_p99_during_s", r.victim_p99_during_s},
                       {"victim_throughput_before_per_s", r.victim_throughput_before},
                       {"victim_throughput_during_per_s", r.victim_throughput_during},
                       {"victim_replicas_ended", r.victim_replicas_ended},
                       {"victim_requests_dropped", r.victim_requests_dropped}};
    attacks.push_back(std::move(j));
  }
  out["attacks"] = attacks;
  out["notes"] = l.notes;
  return out;
}

}  // namespace

// Movements of tagged data (docs/models/storage.md, "Data events"): one record per DATA_MOVE /
// DATA_DENIED event, in event order.
namespace {
json data_movement_json(const ScenarioSpec& spec, const RunResult& run, size_t i) {
  const auto& m = run.data_movements[i];
  json j = {{"start_s", m.start},
            {"end_s", m.end},
            {"data", m.data >= 0 ? json(spec.data[static_cast<size_t>(m.data)].name) : json()},
            {"kind", m.data >= 0 ? json(data_kind_name(spec.data[static_cast<size_t>(m.data)].kind)) : json()},
            {"owner", tenant_name(spec, m.owner)},
            {"classification", m.data >= 0 ? json(spec.data[static_cast<size_t>(m.data)].classification) : json()},
            {"data_region", m.data >= 0 ? json(spec.data[static_cast<size_t>(m.data)].region) : json()},
            {"tenant", tenant_name(spec, m.tenant)},
            {"workload", m.workload >= 0 ? json(spec.workloads[static_cast<size_t>(m.workload)].name) : json()},
            {"identity", m.identity},
            {"operation", m.operation},
            {"from", m.from},
            {"to", m.to},
            {"store", m.store},
            {"store_region", m.region},
            {"bytes", m.bytes},
            {"encrypted_in_transit", m.encrypted_in_transit},
            {"encrypted_at_rest", m.encrypted_at_rest},
            {"gpu_direct", m.gpu_direct},
            {"segment", m.segment},
            {"allowed", m.allowed},
            {"links", m.links}};
  if (!m.allowed) j["reason"] = m.reason;
  return j;
}

// What the run's parameters rest on: counts by provenance, the shares a reader should weigh (fitted:
// calibrated to a target, not predicted; assumed: no source yet), and those parameters by name.
json parameter_provenance_json(const ProvenanceSummary& p) {
  const int total = p.total();
  const auto share = [total](size_t n) { return total > 0 ? static_cast<double>(n) / total : 0.0; };
  json by_kind = json::object();
  for (const auto& [kind, count] : p.by_kind) by_kind[kind] = count;
  return {{"parameters", total},
          {"by_kind", by_kind},
          {"fitted_share", share(p.fitted.size())},
          {"assumed_share", share(p.assumed.size())},
          {"fitted_or_assumed_share", p.fitted_or_assumed_share()},
          {"fitted", p.fitted},
          {"assumed", p.assumed}};
}

// `value.dump(2)` as it reads at depth `depth` of a document dumped with indent 2 (every line after the first
// indented by 2 x depth more spaces). Arrays and objects near the top are written an element or member at a
// time, so that no section's text exists whole (a simulated day's GPU and SLO rows are hundreds of MB); deeper
// values are dumped whole. Byte for byte what the whole document's dump has there.
//
// `deferred` names values of the tree (placeholders) that a writer replaces: it writes, at their depth, what their
// dump would be, without the tree ever holding it (a tenant's SLO windows: one per job of a job SLO, hundreds of
// thousands in a simulated day).
using DeferredWriters = std::map<const json*, std::function<void(std::ostream&, int depth)>>;

void write_nested(std::ostream& out, const json& value, int depth = 1, const DeferredWriters* deferred = nullptr) {
  constexpr int STREAMED_DEPTH = 4;
  if (deferred != nullptr) {
    const auto writer = deferred->find(&value);
    if (writer != deferred->end()) {
      writer->second(out, depth);
      return;
    }
  }
  const std::string pad(static_cast<size_t>(2 * depth), ' ');
  if (depth <= STREAMED_DEPTH && value.is_array() && !value.empty()) {
    out << "[\n";
    for (size_t i = 0; i < value.size(); ++i) {
      out << pad << "  ";
      write_nested(out, value[i], depth + 1, deferred);
      out << (i + 1 < value.size() ? ",\n" : "\n");
    }
    out << pad << "]";
    return;
  }
  if (depth <= STREAMED_DEPTH && value.is_object() && !value.empty()) {
    out << "{\n";
    size_t i = 0;
    for (const auto& item : value.items()) {
      out << pad << "  " << json(item.key()).dump() << ": ";
      write_nested(out, item.value(), depth + 1, deferred);
      out << (++i < value.size() ? ",\n" : "\n");
    }
    out << pad << "}";
    return;
  }
  const std::string text = value.dump(2);
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
    out << pad;
    from = nl + 1;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

// The largest sections are arrays whose elements are built one at a time when the writer reaches them
// (write_report_json): a tenant with its SLO windows, a GPU with its utilisation windows, a placement, a data
// movement.
json tenant_json(const ScenarioSpec& spec, const Analysis& a, size_t t) {
  const auto& tr = a.tenants[t];
  json tj = {{"name", tr.name},
             {"region", tr.region},
             {"classification", tr.classification},
             {"gpu_seconds", tr.gpu_seconds},
             {"chargeback", {{"allocated_gpu_hours", tr.allocated_gpu_hours}, {"cost", tr.cost}}},
             {"slos_total", tr.slos},
             {"slos_missed", tr.slos_missed}};
  json slos = json::array();
  for (const auto& s : a.slos) {
    if (s.tenant != static_cast<int>(t)) continue;
    json blame = json::array();
    for (const auto& b : s.attribution) blame.push_back({{"who", b.who}, {"share", b.share}, {"via", b.via}});
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
                    {"windows", json::array()}});  // written by write_tenant, window by window
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
               {"replicas_evicted", w.replicas_evicted},
               {"runtime", runtime_kind_name(spec.workloads[static_cast<size_t>(w.index)].runtime)},
               {"gpus", w.gpus}};
    if (w.kind == "inference") {
      wj["requests"] = {
          {"arrived", w.requests_arrived}, {"completed", w.requests_completed}, {"dropped", w.requests_dropped}};
      wj["latency"] = latency_json(w.latency);
      wj["queueing"] = latency_json(w.queueing);
      json cdf = json::array();
      for (size_t i = 0; i < w.latency_cdf.size(); ++i)
        cdf.push_back({latency_cdf_percentiles()[i], num(w.latency_cdf[i])});
      wj["latency_cdf"] = cdf;
      wj["mean_batch"] = w.mean_batch;
      if (w.serving.replicas > 0) {
        const auto& sv = w.serving;
        wj["serving"] = {{"batching", "continuous"},
                         {"ttft", latency_json(w.ttft)},
                         {"tpot", latency_json(w.tpot)},
                         {"output_tokens_per_s", sv.output_tokens_per_s},
                         {"generated_tokens", sv.generated_tokens},
                         {"prefill_tokens", sv.prefill_tokens},
                         {"steps", sv.steps},
                         {"preemptions", sv.preemptions},
                         {"kv_utilisation", sv.kv_utilisation},
                         {"kv_peak", sv.kv_peak},
                         {"goodput", sv.goodput >= 0 ? json(sv.goodput) : json(nullptr)}};
      }
      if (spec.workloads[static_cast<size_t>(w.index)].swap_models >= 2)
        wj["model_swapping"] = {{"loads", w.model_loads}, {"load_seconds", w.model_load_seconds}};
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
  return tj;
}

json gpu_json(const ScenarioSpec& spec, const Analysis& a, size_t i) {
  const auto& g = a.gpus[i];
  json by_tenant = json::object();
  for (const auto& [t, seconds] : g.busy_by_tenant)
    if (seconds > 0) by_tenant[spec.tenants[static_cast<size_t>(t)].name] = seconds / a.duration;
  json tenant_names = json::array();
  for (int t : g.tenants) tenant_names.push_back(spec.tenants[static_cast<size_t>(t)].name);
  json gpu({{"index", g.layout.index},
            {"node", g.layout.node_name},
            {"local_index", g.layout.local},
            {"pool", g.layout.pool},
            {"region", pool_region(spec, g.layout.pool)},
            {"product", g.layout.product},
            {"sharing", sharing_mode_name(g.layout.sharing)},
            {"k8s_resource", g.layout.resource},
            {"nvlink_domain", g.layout.nvlink_domain >= 0 ? json(g.layout.nvlink_domain) : json()},
            {"slots", g.layout.slots},
            {"tenants", tenant_names},
            {"utilisation", g.utilisation},
            {"utilisation_by_tenant", by_tenant},
            {"context_switches", g.context_switches},
            {"context_switch_seconds", g.switch_seconds},
            {"utilisation_windows", a.utilisation_windows_of(i)}});
  if (!g.layout.mig_profile.empty()) {
    gpu["mig_profile"] = g.layout.mig_profile;
    gpu["mig_start"] = g.layout.mig_start;
    gpu["layout_generation"] = g.layout.layout_generation;
    gpu["available_from_s"] = g.layout.available_from >= 0 ? json(g.layout.available_from) : json();
    gpu["available_until_s"] = g.layout.available_until >= 0 ? json(g.layout.available_until) : json();
  }
  return gpu;
}

json placement_json(const ScenarioSpec& spec, const Analysis& a, size_t i) {
  const auto& pl = a.placements[i];
  const auto& ws = spec.workloads[static_cast<size_t>(pl.workload)];
  return {{"workload", ws.name},        {"tenant", tenant_name(spec, pl.tenant)},
          {"replica", pl.replica},      {"gpu", pl.gpu},
          {"start_s", pl.start},        {"end_s", pl.end >= 0 ? json(pl.end) : json()},
          {"end_reason", pl.end_reason}};
}

// An array at `depth` of `n` elements, `write(out, i, depth + 1)` writing each when its turn comes: byte for byte
// what write_nested writes for the whole array.
template <class Write>
void write_array(std::ostream& out, size_t n, int depth, Write write) {
  if (n == 0) {
    out << "[]";
    return;
  }
  const std::string pad(static_cast<size_t>(2 * depth), ' ');
  out << "[\n";
  for (size_t i = 0; i < n; ++i) {
    out << pad << "  ";
    write(out, i, depth + 1);
    out << (i + 1 < n ? ",\n" : "\n");
  }
  out << pad << "]";
}

// A top-level array section, its elements built one at a time (`element(i)`) and freed once written.
template <class Element>
void write_array_section(std::ostream& out, size_t n, Element element) {
  write_array(out, n, 1, [&](std::ostream& o, size_t i, int depth) { write_nested(o, element(i), depth); });
}

// A tenant with its SLOs' windows written one at a time into the placeholders tenant_json leaves.
void write_tenant(std::ostream& out, const ScenarioSpec& spec, const Analysis& a, size_t t, int depth) {
  const json tj = tenant_json(spec, a, t);
  DeferredWriters deferred;
  size_t k = 0;
  for (const auto& s : a.slos) {
    if (s.tenant != static_cast<int>(t)) continue;
    deferred[&tj["slos"][k++]["windows"]] = [&s](std::ostream& o, int d) {
      auto next = s.windows.begin();  // write_array asks for the windows in order
      write_array(o, s.windows.size(), d, [&](std::ostream& oo, size_t, int dd) {
        const SloWindow w = *next;
        ++next;
        write_nested(oo, json{{"start_s", w.start}, {"value", num(w.value)}, {"violated", w.violated}}, dd);
      });
    };
  }
  write_nested(out, tj, depth, &deferred);
}

// The leakage section with its long lists written an element at a time into the placeholders leakage_json leaves.
void write_leakage(std::ostream& out, const ScenarioSpec& spec, const RunResult& run, const LeakageReport& l) {
  const json section = leakage_json(spec, run, l);
  DeferredWriters deferred;
  const auto list = [&](const char* key, size_t n, auto element) {
    deferred[&section.at(key)] = [n, element](std::ostream& o, int depth) {
      write_array(o, n, depth, [&](std::ostream& oo, size_t i, int d) { write_nested(oo, element(i), d); });
    };
  };
  list("channels", l.channels.size(), [&](size_t i) { return leakage_channel_json(spec, l.channels[i]); });
  list("closed", l.closed.size(), [&](size_t i) { return leakage_closed_json(spec, l.closed[i]); });
  list("discrete", l.discrete.size(), [&](size_t i) { return leakage_discrete_json(spec, l.discrete[i]); });
  list("models", l.models.size(), [&](size_t i) { return leakage_model_json(l.models[i]); });
  write_nested(out, section, 1, &deferred);
}
}  // namespace

// The document is written a top-level key at a time, in the document's own key order, each section freed
// once written, and the large ones (tenants with their SLO windows, GPUs with their utilisation windows, the
// timeline, placements, data movements, leakage) built only when their turn comes: the whole report never exists
// as one string, and no large section's tree beside another's.
void write_report_json(std::ostream& out, const ScenarioSpec& spec, const RunResult& run, const Analysis& a,
                       const Provenance& p, const LeakageReport* leakage, const ComplianceReport* compliance) {
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
  // Only on a run a budget stopped (RunOptions::max_events), so complete runs keep their bytes.
  if (!run.stopped_early.empty()) summary["stopped_early"] = {{"reason", run.stopped_early}, {"at_s", run.end_time}};
  root["summary"] = summary;

  root["tenants"] = nullptr;  // built when written

  root["gpus"] = nullptr;      // built when written
  root["timeline"] = nullptr;  // built when written
  json reconfigurations = json::array();
  for (const auto& r : a.reconfigurations)
    reconfigurations.push_back({{"node_pool", r.node_pool},
                                {"start_s", r.start},
                                {"done_s", r.done >= 0 ? json(r.done) : json()},
                                {"gpus", r.gpus},
                                {"mig_layout", r.new_layout},
                                {"replicas_evicted", r.replicas_evicted},
                                {"replicas_replaced", r.replicas_replaced}});
  root["reconfigurations"] = reconfigurations;
  root["placements"] = nullptr;  // built when written
  if (!run.data_movements.empty()) {
    root["data_movements"] = nullptr;  // built when written
    json exposures = json::array();
    for (const auto& e : data_exposures(spec, run))
      exposures.push_back({{"observer", tenant_name(spec, e.observer)},
                           {"source", tenant_name(spec, e.source)},
                           {"plaintext_link_bytes", e.plaintext_link_bytes},
                           {"plaintext_storage_bytes", e.plaintext_storage_bytes},
                           {"links", e.links},
                           {"stores", e.stores}});
    root["data_exposures"] = exposures;
  }
  json boundaries = json::array();
  for (const auto& b : a.boundaries)
    boundaries.push_back({{"tenants", {b.tenant_a, b.tenant_b}},
                          {"node", b.node},
                          {"same_gpu", b.same_gpu},
                          {"runtimes", {b.runtimes_a, b.runtimes_b}},
                          {"shared_layers", b.shared_layers}});
  root["isolation_boundaries"] = boundaries;
  root["cost"] = {{"provisioned_gpu_hours", a.cost.provisioned_gpu_hours},
                  {"allocated_gpu_hours", a.cost.allocated_gpu_hours},
                  {"total", a.cost.total},
                  {"allocated", a.cost.allocated},
                  {"idle", a.cost.idle}};
  if (!a.quotas.empty()) {
    json quotas = json::array();
    for (const auto& q : a.quotas) {
      json resources = json::array();
      for (const auto& r : q.resources)
        resources.push_back({{"resource", r.resource},
                             {"nominal", r.nominal},
                             {"borrowing_limit", r.borrowing_limit >= 0 ? json(r.borrowing_limit) : json()},
                             {"lending_limit", r.lending_limit >= 0 ? json(r.lending_limit) : json()},
                             {"peak", r.peak},
                             {"device_seconds", r.device_seconds},
                             {"borrowed_device_seconds", r.borrowed_device_seconds}});
      quotas.push_back({{"tenant", q.tenant},
                        {"nominal_gpus", q.gpu.nominal},
                        {"borrowing_limit", q.gpu.borrowing_limit >= 0 ? json(q.gpu.borrowing_limit) : json()},
                        {"lending_limit", q.gpu.lending_limit >= 0 ? json(q.gpu.lending_limit) : json()},
                        {"peak_gpus", q.gpu.peak},
                        {"gpu_seconds", q.gpu.device_seconds},
                        {"borrowed_gpu_seconds", q.gpu.borrowed_device_seconds},
                        {"admissions", q.admissions},
                        {"queued", q.queued},
                        {"total_wait_s", q.total_wait},
                        {"max_wait_s", q.max_wait},
                        {"preempted", q.preempted},
                        {"preempted_within_queue", q.preempted_within_queue},
                        {"reclaimed", q.reclaimed},
                        {"still_queued", q.still_queued},
                        {"resources", resources}});
      if (spec.fair_sharing.enabled)  // an infinite share (weight 0 while borrowing) is null
        quotas.back()["fair_sharing"] = {
            {"weight", q.fair_weight}, {"peak_share", num(q.peak_share)}, {"mean_share", num(q.mean_share)}};
    }
    root["quotas"] = quotas;
  }
  json faults = json::array();
  for (const auto& f : a.faults) {
    faults.push_back({{"time_s", f.time},
                      {"gpu", f.gpu},
                      {"tenant", f.tenant},
                      {"workload", f.workload},
                      {"replica", f.replica},
                      {"domain", f.whole_node  ? "node"
                                 : f.whole_gpu ? (mig_instance(a, f.gpu) ? "migInstance" : "gpu")
                                               : "client"},
                      {"clients_ended", f.clients_ended},
                      {"ended", f.victims}});
  }
  root["faults"] = faults;
  json profiles = json::array();
  for (const auto& s : run.profile_sha256) profiles.push_back(s);
  root["hardware_profiles"] = profiles;
  root["parameter_provenance"] = parameter_provenance_json(run.parameter_provenance);
  if (leakage) root["leakage"] = nullptr;  // built when written
  // null when the scenario declares no compliance rules (readers tell "not evaluated" from "all passed").
  root["compliance"] = compliance && compliance->configured ? compliance_json(spec, *compliance) : json();
  root["provenance"] = {{"gputwin_version", p.gputwin_version},
                        {"simgrid_version", p.simgrid_version},
                        {"allocator", p.allocator},
                        {"command_line", p.command_line},
                        {"host", p.host},
                        {"started_utc", p.started_utc},
                        {"wall_seconds", p.wall_seconds}};
  std::vector<std::string> keys;
  for (const auto& item : root.items()) keys.push_back(item.key());
  out << "{";
  for (size_t k = 0; k < keys.size(); ++k) {
    out << (k ? ",\n  " : "\n  ") << json(keys[k]).dump() << ": ";
    const std::string& key = keys[k];
    if (key == "tenants") {
      write_array(out, a.tenants.size(), 1,
                  [&](std::ostream& o, size_t i, int depth) { write_tenant(o, spec, a, i, depth); });
    } else if (key == "gpus") {
      write_array_section(out, a.gpus.size(), [&](size_t i) { return gpu_json(spec, a, i); });
    } else if (key == "placements") {
      write_array_section(out, a.placements.size(), [&](size_t i) { return placement_json(spec, a, i); });
    } else if (key == "data_movements") {
      write_array_section(out, run.data_movements.size(), [&](size_t i) { return data_movement_json(spec, run, i); });
    } else if (key == "leakage" && leakage) {
      write_leakage(out, spec, run, *leakage);
    } else {
      json& section = root[key];
      if (key == "timeline") section = timeline_json(spec, a);
      write_nested(out, section);
      section = nullptr;
    }
  }
  out << (keys.empty() ? "}\n" : "\n}\n");
}

std::string report_json(const ScenarioSpec& spec, const RunResult& run, const Analysis& a, const Provenance& p,
                        const LeakageReport* leakage, const ComplianceReport* compliance) {
  std::ostringstream out;
  write_report_json(out, spec, run, a, p, leakage, compliance);
  return out.str();
}

}  // namespace gtw
