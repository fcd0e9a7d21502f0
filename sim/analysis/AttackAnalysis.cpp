// What the attacker workloads achieved (their ATTACK_* and MEM_* events), beside the analytic bound of
// the channel each one used. Formulas: docs/models/leakage.md, "Attack replay".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sim/analysis/Leakage.hpp"

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
  if (a.index == b.index) return channel::mode_of_sharing(a.sharing).value_or(Mode::EXCLUSIVE);
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
  o.noise_injection_s = spec.isolation.noise_injection.value;
  o.gpu_visibility = spec.isolation.gpu_visibility;
  return o;
}

std::vector<AttackResult> analyse_attacks(const ScenarioSpec& spec, const RunResult& run,
                                          const channel::Catalogue& catalogue, const IsolationOptions& options,
                                          const LeakageReport& surface) {
  std::vector<AttackResult> out;
  const auto& events = run.log.events();
  channel::RateLimits limits;
  limits.timer_resolution_s = options.timer_resolution_s;
  auto tenant_name = [&](int t) {
    return t >= 0 && static_cast<size_t>(t) < spec.tenants.size() ? spec.tenants[static_cast<size_t>(t)].name
                                                                  : std::string("?");
  };
  // Devices of each (workload, replica), from PLACED events (the first placement).
  std::map<std::pair<int, int>, int> device;
  std::map<int, std::vector<int>> workload_devices;
  for (const auto& e : events)
    if (e.type == EventType::PLACED) {
      device.emplace(std::make_pair(e.workload, e.replica), e.gpu);
      workload_devices[e.workload].push_back(e.gpu);
    }
  auto layout = [&](int gpu) -> const GpuLayout& { return run.gpus.at(static_cast<size_t>(gpu)); };
  // The catalogue's bound for (resource, relation) on the device `gpu` (its product and time slice).
  auto bound = [&](AttackResult& r, Resource res, Mode m, int gpu) {
    r.resource = channel::resource_name(res);
    r.relation = channel::mode_name(m);
    const auto rate = catalogue.rate(res, m, layout(gpu).product, time_slice(spec, layout(gpu)), limits);
    r.bound_state = channel::state_name(rate.state);
    r.bound_bps = rate.state == State::OPEN ? rate.capacity_bps : 0;
    r.bound_source = rate.state == State::CLOSED ? catalogue.cell(res, m).reason : rate.source;
  };

  for (size_t w = 0; w < spec.workloads.size(); ++w) {
    const auto& ws = spec.workloads[w];
    if (ws.kind != WorkloadKind::ATTACK) continue;
    const auto& a = ws.attack;
    const int wi = static_cast<int>(w);
    AttackResult r;
    r.workload = wi;
    r.name = ws.name;
    r.type = attack_type_name(a.type);
    r.attacker = ws.tenant;
    if (a.target_index >= 0) {
      r.target = a.target;
      r.victim = spec.workloads[static_cast<size_t>(a.target_index)].tenant;
    }
    const Event* done = nullptr;
    for (const auto& e : events)
      if (e.type == EventType::ATTACK_DONE && e.workload == wi) done = &e;
    r.ran = done != nullptr;
    const auto own = device.find({wi, a.type == AttackType::COVERT_CHANNEL ? 1 : 0});

    switch (a.type) {
      case AttackType::COVERT_CHANNEL: {
        r.victim = tenant_name(ws.replica_tenant(0));
        const auto snd = device.find({wi, 0});
        auto res = channel::resource_from_name(a.channel).value_or(Resource::NVLINK);
        if (own == device.end() || snd == device.end()) {
          r.outcome = "not run: sender or receiver not placed";
          break;
        }
        const auto& rx = layout(own->second);
        const auto& tx = layout(snd->second);
        // MIG instances have no NVLink peer access: their copies go through host memory over PCIe.
        if (res == Resource::NVLINK && (!rx.mig_profile.empty() || !tx.mig_profile.empty())) res = Resource::PCIE;
        bound(r, res, relation(rx, tx), own->second);
        // A channel through both GPUs' ends is closed where an end closes it (a confidential GPU's NVLink).
        for (const auto* end : {&rx, &tx}) {
          const auto why =
              catalogue.endpoint_closure(res, channel::mode_of_sharing(end->sharing).value_or(Mode::EXCLUSIVE));
          if (!why.empty() && relation(rx, tx) == Mode::SEPARATE_GPUS) {
            r.bound_state = channel::state_name(State::CLOSED);
            r.bound_bps = 0;
            r.bound_source = why;
          }
        }
        // The receiver cannot open the sender's GPU when tenants see only their allocated GPUs.
        if (const auto why = catalogue.peer_access_closure(res, relation(rx, tx));
            !why.empty() && options.gpu_visibility == GpuVisibility::ALLOCATED &&
            ws.replica_tenant(0) != ws.replica_tenant(1) && r.bound_state != channel::state_name(State::CLOSED)) {
          r.bound_state = channel::state_name(State::CLOSED);
          r.bound_bps = 0;
          r.bound_source = why;
        }
        for (const auto& e : events)
          if (e.type == EventType::ATTACK_BIT && e.workload == wi) {
            ++r.bits;
            if (e.value != e.aux) ++r.bit_errors;
          }
        if (!done || r.bits <= 0) {
          r.outcome = "not run to its end";
          break;
        }
        const double payload_s = done->time - done->aux;
        r.bit_rate_bps = payload_s > 0 ? r.bits / payload_s : 0;
        r.error_rate = r.bit_errors / r.bits;
        // Errors above one half are the same channel with the symbols swapped.
        const double p = std::min(r.error_rate, 1 - r.error_rate);
        r.information_rate_bps = r.bit_rate_bps * (1 - channel::binary_entropy(p));
        const double upper =
            std::min(0.5, wilson_upper(std::min(r.bit_errors, r.bits - r.bit_errors), r.bits, ACHIEVED_Z));
        r.achieved_bps = r.bit_rate_bps * (1 - channel::binary_entropy(upper));
        r.within_bound = r.achieved_bps <= r.bound_bps * (1 + 1e-9);
        r.outcome = fmt("%.4g bit/s at %.2f%% bit error (%.0f bits); achieved %.4g bit/s", r.bit_rate_bps,
                        100 * r.error_rate, r.bits, r.achieved_bps);
        break;
      }
      case AttackType::PRIME_PROBE:
      case AttackType::MODEL_EXTRACTION: {
        if (own == device.end()) {
          r.outcome = "not run: not placed";
          break;
        }
        // The relation to the victim's nearest device (the same device first).
        Mode m = Mode::SEPARATE_NODES;
        int best = 9;
        for (int g : workload_devices[a.target_index]) {
          const Mode x = relation(layout(own->second), layout(g));
          const int rank = g == own->second ? 0 : x == Mode::MIG ? 1 : x == Mode::SEPARATE_GPUS ? 2 : 3;
          if (rank < best) {
            best = rank;
            m = x;
          }
        }
        bound(r, m == Mode::TIME_SLICING || m == Mode::VGPU ? Resource::SM : Resource::HBM, m, own->second);
        std::vector<double> estimates;
        std::map<int, int> votes;
        std::map<int, int> layer_votes;
        for (const auto& e : events) {
          if (e.type != EventType::ATTACK_OBSERVATION || e.workload != wi) continue;
          if (e.replica == 1) {  // modelExtraction: layers counted in one batch (value) and the truth (aux)
            ++r.layer_batches;
            ++layer_votes[static_cast<int>(e.value)];
            r.layers_truth = e.aux;
            if (e.value == e.aux) ++r.layers_exact;
          } else if (e.replica == 2 && e.value >= 0) {  // per-layer errors of a batch counted right
            r.layer_error_mean += e.value;
            r.layer_error_max = std::max(r.layer_error_max, e.aux);
          }
        }
        if (r.layers_exact > 0) r.layer_error_mean /= r.layers_exact;
        int most_votes = 0;  // the attacker's answer: the count most batches gave (the smaller on a tie)
        for (const auto& [count, n] : layer_votes)
          if (n > most_votes) {
            most_votes = n;
            r.layers_estimate = count;
          }
        for (const auto& e : events)
          if (e.type == EventType::ATTACK_OBSERVATION && e.workload == wi && e.replica == 0) {
            ++r.observations;
            if (a.type == AttackType::PRIME_PROBE) {
              if (e.aux >= 0 && e.value == e.aux) ++r.correct;
              ++votes[static_cast<int>(e.value)];
            } else {
              estimates.push_back(e.value);
              r.truth = e.aux;
            }
          }
        if (a.type == AttackType::PRIME_PROBE) {
          r.accuracy = r.observations > 0 ? r.correct / r.observations : 0;
          // The attacker's answer: the candidate most bursts were classified as (lowest index on a tie).
          int answer = -1, most = 0;
          for (const auto& [c, n] : votes)
            if (n > most) {
              answer = c;
              most = n;
            }
          if (answer >= 0 && static_cast<size_t>(answer) < a.candidates.size()) {
            r.guess = a.candidates[static_cast<size_t>(answer)].name;
            const auto& vm = spec.workloads[static_cast<size_t>(a.target_index)].model;
            const auto& gm = a.candidates[static_cast<size_t>(answer)].model;
            r.identified = gm.parameters == vm.parameters && gm.dtype == vm.dtype;
          }
          r.outcome = r.observations > 0
                          ? fmt("%.0f of %.0f bursts fingerprinted correctly (accuracy %.1f%%); answer: ", r.correct,
                                r.observations, 100 * r.accuracy) +
                                r.guess + (r.identified ? " (right)" : " (wrong)")
                          : "no contention observed: nothing to fingerprint";
        } else {
          r.truth = spec.workloads[static_cast<size_t>(a.target_index)].model.parameters;
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
        break;
      }
      case AttackType::REMANENCE_SCRAPE: {
        r.resource = channel::resource_name(Resource::REMANENCE);
        if (own != device.end()) {
          const Mode m = channel::mode_of_sharing(layout(own->second).sharing).value_or(Mode::EXCLUSIVE);
          r.relation = channel::mode_name(m);
          r.bound_state = channel::state_name(catalogue.cell(Resource::REMANENCE, m).state);
        }
        std::set<std::string> sources;
        for (const auto& e : events)
          if (e.type == EventType::MEM_RESIDUE && e.workload == wi && e.aux >= 0)
            sources.insert(spec.workloads[static_cast<size_t>(e.aux)].name);
        r.bytes_recovered = done ? done->value : 0;
        for (const auto& d : surface.discrete)
          if (d.kind == DiscreteKind::UNSCRUBBED_MEMORY && !d.closed && d.observer == ws.tenant_index)
            r.bound_bytes += d.bytes;
        r.bound_source = "unscrubbed memory the leakage surface counts for the attacker's tenant (discrete exposures)";
        std::string from;
        for (const auto& s : sources) from += (from.empty() ? "" : ", ") + s;
        r.victim = from;
        r.within_bound = r.bytes_recovered <= r.bound_bytes * (1 + 1e-9) + 1;
        r.outcome = fmt("%.4g GB of other tenants' data recovered", r.bytes_recovered / 1e9) +
                    (from.empty() ? std::string(" (nothing left unscrubbed)") : " from " + from);
        break;
      }
      case AttackType::QUERY_EXTRACTION: {
        // Behaviour exposure through the service's API (model stealing): what it got answered. attacks.md
        // has no published query-budget-to-fidelity curve, so no fidelity is claimed: queries only.
        r.resource = "queryAccess";
        r.relation = "api";
        for (const auto& e : events) {
          if (e.workload != wi) continue;
          if (e.type == EventType::ATTACK_OBSERVATION && e.aux == 1) ++r.queries_answered;
          if (e.type == EventType::ATTACK_PROBE) ++(e.value == 1 ? r.queries_rate_limited : r.queries_refused);
        }
        r.queries_admitted = done ? done->value : 0;
        r.queries_sent = r.queries_admitted + r.queries_rate_limited + r.queries_refused;
        r.query_seconds = done ? done->time - done->aux : 0;
        r.query_goal_reached = r.queries_admitted >= a.queries;
        const double limit = options.query_rate_limit;
        r.bound_state = channel::state_name(State::OPEN);
        r.bound_queries = limit > 0 ? std::max(1.0, limit) + limit * r.query_seconds : r.queries_sent;
        r.bound_source = limit > 0 ? fmt("queryRateLimit %.4g/s per client (token bucket, burst of one second)", limit)
                                   : std::string("no rate limit: every query sent can be admitted");
        r.within_bound = r.queries_admitted <= r.bound_queries + 1e-6;  // the bound sums rounded times
        if (!done) {
          r.outcome = "not run";
          break;
        }
        r.outcome = fmt("%.0f queries answered (%.0f sent, %.0f refused by the rate limit", r.queries_answered,
                        r.queries_sent, r.queries_rate_limited) +
                    fmt(", %.0f otherwise) in %.4g s; ", r.queries_refused, r.query_seconds) +
                    (r.query_goal_reached ? fmt("its %.0f queries reached", a.queries)
                                          : fmt("its goal of %.0f queries not reached", a.queries)) +
                    "; fidelity not estimated (no published query-budget curve)";
        break;
      }
      case AttackType::NOISY_NEIGHBOUR:
      case AttackType::MPS_KILL: {
        if (own != device.end()) bound(r, Resource::HBM, Mode::EXCLUSIVE, own->second);
        if (own != device.end()) {
          for (int g : workload_devices[a.target_index]) {
            const Mode m = relation(layout(own->second), layout(g));
            r.relation = channel::mode_name(m);
            if (g == own->second) break;
          }
        }
        r.resource = a.type == AttackType::MPS_KILL ? "faultDomain" : "hbm";
        r.bound_state.clear();
        r.bound_bps = 0;
        r.bound_source = "a denial of service: no bits";
        if (!done) {
          r.outcome = "not run";
          break;
        }
        const double at = a.type == AttackType::MPS_KILL ? done->time : done->aux;
        const double until = a.type == AttackType::MPS_KILL ? run.arrivals_end : done->time;
        const auto& victim = spec.workloads[static_cast<size_t>(a.target_index)];
        const double from = victim.start.value;
        std::vector<double> before, during;
        for (const auto& e : events) {
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
                  r.victim_replicas_ended, r.victim_throughput_before, r.victim_throughput_during,
                  r.victim_requests_dropped);
        } else {
          r.outcome = fmt("victim p99 %.4g ms before, %.4g ms during the attack; throughput %.3g/s -> %.3g/s",
                          1e3 * r.victim_p99_before_s, 1e3 * r.victim_p99_during_s, r.victim_throughput_before,
                          r.victim_throughput_during);
        }
        break;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace gtw
