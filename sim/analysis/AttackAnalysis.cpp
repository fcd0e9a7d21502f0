// What the attacker workloads achieved (their ATTACK_* and MEM_* events), beside the analytic bound of
// the channel each one used. Formulas: docs/models/leakage.md, "Attack replay".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "ApiExtraction.hpp"
#include "Leakage.hpp"

namespace gtw {

using channel::Mode;
using channel::Resource;
using channel::State;

namespace {

// The error-rate confidence the achieved rate is stated at: one-sided 99.9% (z = 3.09), so a rate that
// only sampling luck would give is not claimed.
constexpr double ACHIEVED_Z = 3.090232;

Mode relation(const GpuLayout& a, const GpuLayout& b) {
  if (a.node != b.node) return Mode::SEPARATE_NODES;
  if (a.index == b.index) return channel::mode_of_sharing(a.sharing);
  if (a.local == b.local) return Mode::MIG;
  return Mode::SEPARATE_GPUS;
}

double time_slice(const ScenarioSpec& spec, const GpuLayout& g) {
  for (const auto& pool : spec.node_pools)
    if (pool.name == g.pool) return pool.sharing_for(g.local).time_slice.value;
  return 0;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto k = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
}

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

}  // namespace

double wilson_upper(double errors, double n, double z) {
  if (n <= 0) return 1;
  const double p = errors / n;
  const double z2 = z * z;
  const double centre = p + z2 / (2 * n);
  const double spread = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return std::min(1.0, (centre + spread) / (1 + z2 / n));
}

IsolationOptions isolation_options(const ScenarioSpec& spec) {
  IsolationOptions o;
  o.scrub_on_free = spec.isolation.scrub_on_free;
  o.timer_resolution_s = spec.isolation.timer_resolution.value;
  o.query_rate_limit = spec.isolation.query_rate_limit.value;
  o.query_budget = spec.isolation.query_budget;
  o.weight_encryption = spec.isolation.weight_encryption;
  o.noise_injection_s = spec.isolation.noise_injection.value;
  o.gpu_visibility = spec.isolation.gpu_visibility;
  o.api = spec.isolation.api;
  return o;
}

namespace {

// What every attack's stage reads: the run, its index, the catalogue and the options.
struct AttackContext {
  const ScenarioSpec& spec;
  const RunResult& run;
  const RunIndex& index;
  const channel::Catalogue& catalogue;
  const IsolationOptions& options;
  const LeakageReport& surface;
  channel::RateLimits limits;

  const GpuLayout& layout(int gpu) const { return run.gpus.at(static_cast<size_t>(gpu)); }
  std::string tenant_name(int t) const {
    return t >= 0 && static_cast<size_t>(t) < spec.tenants.size() ? spec.tenants[static_cast<size_t>(t)].name
                                                                  : std::string("?");
  }
  /// The device of a replica's first placement, or -1.
  int device(int workload, int replica) const {
    const Stay* s = index.first_stay(WorkloadId(workload), replica);
    return s ? s->gpu : -1;
  }
  /// The devices of every placement of a workload, in placement order.
  std::vector<int> devices(int workload) const {
    std::vector<int> out;
    for (size_t k : index.stays_of(WorkloadId(workload))) out.push_back(index.stays()[k].gpu);
    return out;
  }
  /// The catalogue's bound for (resource, relation) on the device `gpu` (its product and time slice).
  void bound(AttackResult& r, Resource res, Mode m, int gpu) const {
    r.resource = channel::resource_name(res);
    r.relation = channel::mode_name(m);
    const auto rate = catalogue.rate(res, m, layout(gpu).product, time_slice(spec, layout(gpu)), limits);
    r.bound_state = channel::state_name(rate.state);
    r.bound_bps = rate.state == State::OPEN ? rate.capacity_bps : 0;
    r.bound_source = rate.state == State::CLOSED ? catalogue.cell(res, m).reason : rate.source;
  }
};

// A covert channel's bound: the catalogue's cell between the receiver's and the sender's devices, closed where
// an end closes it or where the receiver cannot open the sender's GPU.
void covert_bound(const AttackContext& c, const WorkloadSpec& ws, int rx_gpu, int tx_gpu, AttackResult& r) {
  auto res = channel::resource_from_name(ws.attack.channel).value_or(Resource::NVLINK);
  const auto& rx = c.layout(rx_gpu);
  const auto& tx = c.layout(tx_gpu);
  // MIG instances have no NVLink peer access, nor have GPUs outside each other's NVLink domain: their copies go
  // through host memory over PCIe (as the replay does).
  if (res == Resource::NVLINK && (!rx.mig_profile.empty() || !tx.mig_profile.empty() || rx.nvlink_domain < 0 ||
                                  rx.nvlink_domain != tx.nvlink_domain))
    res = Resource::PCIE;
  c.bound(r, res, relation(rx, tx), rx_gpu);
  // A channel through both GPUs' ends is closed where an end closes it (a confidential GPU's NVLink).
  for (const auto* end : {&rx, &tx}) {
    const auto why = c.catalogue.endpoint_closure(res, channel::mode_of_sharing(end->sharing));
    if (!why.empty() && relation(rx, tx) == Mode::SEPARATE_GPUS) {
      r.bound_state = channel::state_name(State::CLOSED);
      r.bound_bps = 0;
      r.bound_source = why;
    }
  }
  // The receiver cannot open the sender's GPU when tenants see only their allocated GPUs.
  if (const auto why = c.catalogue.peer_access_closure(res, relation(rx, tx));
      !why.empty() && c.options.gpu_visibility == GpuVisibility::ALLOCATED &&
      ws.replica_tenant(0) != ws.replica_tenant(1) && r.bound_state != channel::state_name(State::CLOSED)) {
    r.bound_state = channel::state_name(State::CLOSED);
    r.bound_bps = 0;
    r.bound_source = why;
  }
}

void covert_channel(const AttackContext& c, const WorkloadSpec& ws, int wi, const Event* done, AttackResult& r) {
  r.victim = c.tenant_name(ws.replica_tenant(0));
  const int rx = c.device(wi, 1), tx = c.device(wi, 0);
  if (rx < 0 || tx < 0) {
    r.outcome = "not run: sender or receiver not placed";
    return;
  }
  covert_bound(c, ws, rx, tx, r);
  for (const auto& e : c.run.log.events()) {
    if (e.type == EventType::ATTACK_BIT && e.workload == wi) {
      ++r.bits;
      if (e.value != payload::truth(e)) ++r.bit_errors;
    }
    // bitRate auto: one trial of the rate search (value = its rate, aux = its error rate).
    if (e.type == EventType::ATTACK_OBSERVATION && e.workload == wi) {
      const double p = std::min(e.aux, 1 - e.aux);
      r.rate_trials.push_back({e.value, e.aux, e.value * (1 - channel::binary_entropy(p))});
    }
  }
  if (!done || r.bits <= 0) {
    r.outcome = "not run to its end";
    return;
  }
  const double payload_s = done->time - payload::start_time(*done);
  r.bit_rate_bps = payload_s > 0 ? r.bits / payload_s : 0;
  r.error_rate = r.bit_errors / r.bits;
  // Errors above one half are the same channel with the symbols swapped.
  const double p = std::min(r.error_rate, 1 - r.error_rate);
  r.information_rate_bps = r.bit_rate_bps * (1 - channel::binary_entropy(p));
  const double upper = std::min(0.5, wilson_upper(std::min(r.bit_errors, r.bits - r.bit_errors), r.bits, ACHIEVED_Z));
  r.achieved_bps = r.bit_rate_bps * (1 - channel::binary_entropy(upper));
  r.within_bound = r.achieved_bps <= r.bound_bps * (1 + 1e-9);
  r.outcome = fmt("%.4g bit/s at %.2f%% bit error (%.0f bits); achieved %.4g bit/s", r.bit_rate_bps, 100 * r.error_rate,
                  r.bits, r.achieved_bps);
  if (!r.rate_trials.empty()) {
    if (const Stay* s = c.index.first_stay(WorkloadId(wi), 1)) r.search_seconds = payload::start_time(*done) - s->start;
    r.outcome += fmt("; rate found by searching %.0f rates from %.4g down to %.4g bit/s (%.3g ms before the payload)",
                     static_cast<double>(r.rate_trials.size()), r.rate_trials.front().bit_rate_bps,
                     r.rate_trials.back().bit_rate_bps, 1e3 * r.search_seconds);
  }
}

// modelExtraction's layer structure: per batch seen whole, the layers counted (replica 1) and the per-layer
// errors of the batches counted right (replica 2).
void layer_structure(const AttackContext& c, int wi, AttackResult& r) {
  std::map<int, int> layer_votes;
  for (const auto& e : c.run.log.events()) {
    if (e.type != EventType::ATTACK_OBSERVATION || e.workload != wi) continue;
    if (e.replica == 1) {  // layers counted in one batch (value) and the truth (aux)
      ++r.layer_batches;
      ++layer_votes[static_cast<int>(e.value)];
      r.layers_truth = payload::truth(e);
      if (e.value == r.layers_truth) ++r.layers_exact;
    } else if (e.replica == 2 && e.value >= 0) {  // per-layer errors of a batch counted right
      r.layer_error_mean += e.value;
      r.layer_error_max = std::max(r.layer_error_max, payload::batch_error_max(e));
    }
  }
  if (r.layers_exact > 0) r.layer_error_mean /= r.layers_exact;
  int most_votes = 0;  // the attacker's answer: the count most batches gave (the smaller on a tie)
  for (const auto& [count, n] : layer_votes)
    if (n > most_votes) {
      most_votes = n;
      r.layers_estimate = count;
    }
}

// primeProbe: accuracy, and the attacker's answer: the candidate most bursts were classified as (lowest index
// on a tie).
void prime_probe_answer(const AttackContext& c, const AttackSpec& a, const std::map<int, int>& votes, AttackResult& r) {
  r.accuracy = r.observations > 0 ? r.correct / r.observations : 0;
  int answer = -1, most = 0;
  for (const auto& [cand, n] : votes)
    if (n > most) {
      answer = cand;
      most = n;
    }
  if (answer >= 0 && static_cast<size_t>(answer) < a.candidates.size()) {
    r.guess = a.candidates[static_cast<size_t>(answer)].name;
    const auto& vm = c.spec.workloads[static_cast<size_t>(a.target_index)].model;
    const auto& gm = a.candidates[static_cast<size_t>(answer)].model;
    r.identified = gm.parameters == vm.parameters && gm.dtype == vm.dtype;
  }
  r.outcome = r.observations > 0
                  ? fmt("%.0f of %.0f bursts fingerprinted correctly (accuracy %.1f%%); answer: ", r.correct,
                        r.observations, 100 * r.accuracy) +
                        r.guess + (r.identified ? " (right)" : " (wrong)")
                  : "no contention observed: nothing to fingerprint";
}

// modelExtraction: the median estimated parameter count and the layer structure.
void extraction_estimate(const AttackContext& c, const AttackSpec& a, const std::vector<double>& estimates,
                         AttackResult& r) {
  r.truth = c.spec.workloads[static_cast<size_t>(a.target_index)].model.parameters;
  r.estimate = percentile(estimates, 50);
  r.relative_error = r.truth > 0 && !estimates.empty() ? std::abs(r.estimate - r.truth) / r.truth : 0;
  r.outcome = estimates.empty() ? "no contention observed: nothing to measure"
                                : fmt("parameter count estimated at %.3g (truth %.3g, error %.1f%%) from %.0f "
                                      "bursts",
                                      r.estimate, r.truth, 100 * r.relative_error, r.observations);
  if (r.layer_batches > 0 && (r.layers_truth > 1 || r.layers_estimate > 1))
    r.outcome += fmt("; %.0f layers (truth %.0f), counted right in %.0f of %.0f batches", r.layers_estimate,
                     r.layers_truth, r.layers_exact, r.layer_batches) +
                 (r.layers_exact > 0 ? fmt(", layer shares within %.1f%% on average (worst %.1f%%)",
                                           100 * r.layer_error_mean, 100 * r.layer_error_max)
                                     : std::string());
}

// primeProbe and modelExtraction: the bound of the relation to the victim's nearest device, then what the
// attacker's observations gave.
void fingerprint(const AttackContext& c, const AttackSpec& a, int wi, int own, AttackResult& r) {
  if (own < 0) {
    r.outcome = "not run: not placed";
    return;
  }
  // The relation to the victim's nearest device (the same device first).
  Mode m = Mode::SEPARATE_NODES;
  int best = 9;
  for (int g : c.devices(a.target_index)) {
    const Mode x = relation(c.layout(own), c.layout(g));
    const int rank = g == own ? 0 : x == Mode::MIG ? 1 : x == Mode::SEPARATE_GPUS ? 2 : 3;
    if (rank < best) {
      best = rank;
      m = x;
    }
  }
  c.bound(r, m == Mode::TIME_SLICING || m == Mode::VGPU ? Resource::SM : Resource::HBM, m, own);
  layer_structure(c, wi, r);
  std::vector<double> estimates;
  std::map<int, int> votes;
  for (const auto& e : c.run.log.events())
    if (e.type == EventType::ATTACK_OBSERVATION && e.workload == wi && e.replica == 0) {
      ++r.observations;
      if (a.type == AttackType::PRIME_PROBE) {
        if (payload::truth(e) >= 0 && e.value == payload::truth(e)) ++r.correct;
        ++votes[static_cast<int>(e.value)];
      } else {
        estimates.push_back(e.value);
        r.truth = payload::truth(e);
      }
    }
  if (a.type == AttackType::PRIME_PROBE)
    prime_probe_answer(c, a, votes, r);
  else
    extraction_estimate(c, a, estimates, r);
}

void remanence_scrape(const AttackContext& c, const WorkloadSpec& ws, int wi, int own, const Event* done,
                      AttackResult& r) {
  r.resource = channel::resource_name(Resource::REMANENCE);
  if (own >= 0) {
    const Mode m = channel::mode_of_sharing(c.layout(own).sharing);
    r.relation = channel::mode_name(m);
    r.bound_state = channel::state_name(c.catalogue.cell(Resource::REMANENCE, m).state);
  }
  std::set<std::string> sources;
  for (const auto& e : c.run.log.events())
    if (e.type == EventType::MEM_RESIDUE && e.workload == wi && payload::source_workload(e) >= 0)
      sources.insert(c.spec.workloads[static_cast<size_t>(payload::source_workload(e))].name);
  r.bytes_recovered = done ? done->value : 0;
  for (const auto& d : c.surface.discrete)
    if (d.kind == DiscreteKind::UNSCRUBBED_MEMORY && !d.closed && d.observer == ws.tenant_index)
      r.bound_bytes += d.bytes;
  r.bound_source = "unscrubbed memory the leakage surface counts for the attacker's tenant (discrete exposures)";
  std::string from;
  for (const auto& s : sources) from += (from.empty() ? "" : ", ") + s;
  r.victim = from;
  r.within_bound = r.bytes_recovered <= r.bound_bytes * (1 + 1e-9) + 1;
  r.outcome = fmt("%.4g GB of other tenants' data recovered", r.bytes_recovered / 1e9) +
              (from.empty() ? std::string(" (nothing left unscrubbed)") : " from " + from);
}

// One clause on the projection layer for the outcome line.
std::string projection_outcome(const AttackResult& r) {
  if (!r.projection_known)
    return "; the target declares no shape (model.id or model.architecture): no projection estimate";
  if (!std::isfinite(r.queries_per_vector)) return "; projection layer out of reach (" + r.projection_route + ")";
  if (r.projection_recovered)
    return fmt("; projection layer (hidden size %.0f, ", r.hidden_size) + format_bytes(Bytes(r.projection_bytes)) +
           fmt(") recovered at t=%.4g s (", r.projection_recovered_at) + r.projection_route + ")";
  return fmt("; projection layer not recovered: %.0f of %.0f logit vectors (%.4g queries needed; ", r.vectors_obtained,
             r.hidden_size + 1, r.queries_needed) +
         r.projection_route + ")";
}

// The projection layer the answers give away (Carlini et al. 2024), and a watermark's chance of catching the
// copy, when the target declares its shape. `answer_times` are the answered queries' times, in order.
void projection_extraction(const AttackContext& c, const AttackSpec& a, const std::vector<double>& answer_times,
                           AttackResult& r) {
  const auto& api = c.options.api;
  r.watermark_detection =
      threat::watermark_detection_probability(r.queries_answered, api.watermark_fraction, api.watermark_threshold);
  if (a.target_index < 0) return;
  const ModelSpec& model = c.spec.workloads[static_cast<size_t>(a.target_index)].model;
  if (model.shape.hidden_size <= 0 || model.shape.vocab_size <= 0) return;
  const auto cost = threat::projection_extraction_cost(model.shape.hidden_size, model.shape.vocab_size, api);
  r.projection_known = true;
  r.hidden_size = model.shape.hidden_size;
  r.vocab_size = model.shape.vocab_size;
  r.queries_per_vector = cost.possible ? cost.queries_per_vector : INFINITY;
  r.query_repeats = cost.repeats;
  r.queries_needed = cost.queries_needed;
  r.vectors_obtained = cost.possible ? std::floor(r.queries_answered / (cost.queries_per_vector * cost.repeats)) : 0;
  r.projection_recovered = cost.possible && static_cast<double>(answer_times.size()) >= cost.queries_needed;
  if (r.projection_recovered) r.projection_recovered_at = answer_times[static_cast<size_t>(cost.queries_needed) - 1];
  r.projection_bytes = r.hidden_size * r.vocab_size * dtype_bytes(model.dtype);
  r.projection_route = cost.how;
}

// Behaviour exposure through the service's API (model stealing): what it got answered and, for a target with
// a shape, how far that takes the projection-layer extraction (no published fidelity curve for the rest).
void query_extraction(const AttackContext& c, const AttackSpec& a, int wi, const Event* done, AttackResult& r) {
  r.resource = "queryAccess";
  r.relation = "api";
  double budget_refused = 0;  // refused once the client's queryBudget was spent (ATTACK_PROBE value 3)
  std::vector<double> answer_times;
  for (const auto& e : c.run.log.events()) {
    if (e.workload != wi) continue;
    if (e.type == EventType::ATTACK_OBSERVATION && payload::truth(e) == 1) {
      ++r.queries_answered;
      answer_times.push_back(e.time);
    }
    if (e.type == EventType::ATTACK_PROBE) ++(e.value == 1 ? r.queries_rate_limited : r.queries_refused);
    if (e.type == EventType::ATTACK_PROBE && e.value == 3) ++budget_refused;
  }
  r.queries_admitted = done ? done->value : 0;
  r.queries_sent = r.queries_admitted + r.queries_rate_limited + r.queries_refused;
  r.query_seconds = done ? done->time - payload::start_time(*done) : 0;
  r.query_goal_reached = r.queries_admitted >= a.queries;
  const double limit = c.options.query_rate_limit;
  r.bound_state = channel::state_name(State::OPEN);
  r.bound_queries = limit > 0 ? std::max(1.0, limit) + limit * r.query_seconds : r.queries_sent;
  r.bound_source = limit > 0 ? fmt("queryRateLimit %.4g/s per client (token bucket, burst of one second)", limit)
                             : std::string("no rate limit: every query sent can be admitted");
  if (const int budget = c.options.query_budget; budget > 0) {
    r.bound_queries = std::min(r.bound_queries, static_cast<double>(budget));
    r.bound_source += fmt("; queryBudget %.0f queries per client over the run", budget);
  }
  r.within_bound = r.queries_admitted <= r.bound_queries + 1e-6;  // the bound sums rounded times
  if (!done) {
    r.outcome = "not run";
    return;
  }
  projection_extraction(c, a, answer_times, r);
  r.outcome =
      fmt("%.0f queries answered (%.0f sent, %.0f refused by the rate limit", r.queries_answered, r.queries_sent,
          r.queries_rate_limited) +
      fmt(", %.0f by the query budget, %.0f otherwise) in %.4g s; ", budget_refused, r.queries_refused - budget_refused,
          r.query_seconds) +
      (r.query_goal_reached ? fmt("its %.0f queries reached", a.queries)
                            : fmt("its goal of %.0f queries not reached", a.queries)) +
      projection_outcome(r) +
      (c.options.api.watermark_fraction > 0
           ? fmt("; a copy trained on them is detected by the watermark with probability %.3g", r.watermark_detection)
           : std::string());
}

// noisyNeighbour and mpsKill: the victim's service before and during the attack (a denial of service: no bits).
void denial_of_service(const AttackContext& c, const AttackSpec& a, int own, const Event* done, AttackResult& r) {
  if (own >= 0) {
    c.bound(r, Resource::HBM, Mode::EXCLUSIVE, own);
    for (int g : c.devices(a.target_index)) {
      const Mode m = relation(c.layout(own), c.layout(g));
      r.relation = channel::mode_name(m);
      if (g == own) break;
    }
  }
  r.resource = a.type == AttackType::MPS_KILL ? "faultDomain" : "hbm";
  r.bound_state.clear();
  r.bound_bps = 0;
  r.bound_source = "a denial of service: no bits";
  if (!done) {
    r.outcome = "not run";
    return;
  }
  const double at = a.type == AttackType::MPS_KILL ? done->time : payload::start_time(*done);
  const double until = a.type == AttackType::MPS_KILL ? c.run.arrivals_end : done->time;
  const double from = c.spec.workloads[static_cast<size_t>(a.target_index)].start.value;
  std::vector<double> before, during;
  for (const auto& e : c.run.log.events()) {
    if (e.workload != a.target_index) continue;
    const bool req = e.type == EventType::REQUEST_DONE;
    const bool step = e.type == EventType::STEP_DONE;
    if (req || step) (e.time < at ? before : during).push_back(e.value);
    if (e.type == EventType::REQUEST_DROPPED && e.time >= at) ++r.victim_requests_dropped;
  }
  r.victim_p99_before_s = percentile(before, 99);
  r.victim_p99_during_s = percentile(during, 99);
  r.victim_throughput_before = at > from ? static_cast<double>(before.size()) / (at - from) : 0;
  r.victim_throughput_during = until > at ? static_cast<double>(during.size()) / (until - at) : 0;
  if (a.type == AttackType::MPS_KILL) {
    r.victim_replicas_ended = done->value;
    r.outcome =
        fmt("%.0f client(s) of other workloads ended; the victim completed %.3g/s before, %.3g/s after "
            "(%.0f requests dropped)",
            r.victim_replicas_ended, r.victim_throughput_before, r.victim_throughput_during, r.victim_requests_dropped);
  } else {
    r.outcome = fmt("victim p99 %.4g ms before, %.4g ms during the attack; throughput %.3g/s -> %.3g/s",
                    1e3 * r.victim_p99_before_s, 1e3 * r.victim_p99_during_s, r.victim_throughput_before,
                    r.victim_throughput_during);
  }
}

AttackResult attack_result(const AttackContext& c, size_t w) {
  const auto& ws = c.spec.workloads[w];
  const auto& a = ws.attack;
  const int wi = static_cast<int>(w);
  AttackResult r;
  r.workload = wi;
  r.name = ws.name;
  r.type = attack_type_name(a.type);
  r.attacker = ws.tenant;
  if (a.target_index >= 0) {
    r.target = a.target;
    r.victim = c.spec.workloads[static_cast<size_t>(a.target_index)].tenant;
  }
  std::optional<Event> last_done;  // a copy: a spilled log block may be gone once the reading moves on
  for (const auto& e : c.run.log.events())
    if (e.type == EventType::ATTACK_DONE && e.workload == wi) last_done = e;
  const Event* done = last_done ? &*last_done : nullptr;
  r.ran = done != nullptr;
  const int own = c.device(wi, a.type == AttackType::COVERT_CHANNEL ? 1 : 0);
  switch (a.type) {
    case AttackType::COVERT_CHANNEL:
      covert_channel(c, ws, wi, done, r);
      break;
    case AttackType::PRIME_PROBE:
    case AttackType::MODEL_EXTRACTION:
      fingerprint(c, a, wi, own, r);
      break;
    case AttackType::REMANENCE_SCRAPE:
      remanence_scrape(c, ws, wi, own, done, r);
      break;
    case AttackType::QUERY_EXTRACTION:
      query_extraction(c, a, wi, done, r);
      break;
    case AttackType::NOISY_NEIGHBOUR:
    case AttackType::MPS_KILL:
      denial_of_service(c, a, own, done, r);
      break;
  }
  return r;
}

}  // namespace

std::vector<AttackResult> analyse_attacks(const ScenarioSpec& spec, const RunResult& run,
                                          const channel::Catalogue& catalogue, const IsolationOptions& options,
                                          const LeakageReport& surface) {
  return analyse_attacks(spec, run, RunIndex(spec, run), catalogue, options, surface);
}

std::vector<AttackResult> analyse_attacks(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                                          const channel::Catalogue& catalogue, const IsolationOptions& options,
                                          const LeakageReport& surface) {
  AttackContext c{spec, run, index, catalogue, options, surface, {}};
  c.limits.timer_resolution_s = options.timer_resolution_s;
  std::vector<AttackResult> out;
  for (size_t w = 0; w < spec.workloads.size(); ++w)
    if (spec.workloads[w].kind == WorkloadKind::ATTACK) out.push_back(attack_result(c, w));
  return out;
}

}  // namespace gtw
