#include "Attack.hpp"

#include <xbt/log.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "RateSearch.hpp"
#include "Rng.hpp"

XBT_LOG_EXTERNAL_CATEGORY(gtw);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(gtw_attack, gtw, "attacker workloads replayed in the simulation (models/attack)");

namespace gtw {

using channel::Mode;
using channel::Resource;

channel::Mode device_relation(const GpuDevice& a, const GpuDevice& b) {
  if (a.node() != b.node()) return Mode::SEPARATE_NODES;
  if (&a == &b) return channel::mode_of_sharing(a.sharing().mode);
  if (a.local_index() == b.local_index()) return Mode::MIG;  // two instances of one physical GPU
  return Mode::SEPARATE_GPUS;
}

const channel::Measurement* covert_reference(Resource r, Mode m, const std::string& reference) {
  if (!reference.empty()) {
    try {
      return &channel::published(reference);
    } catch (const std::logic_error&) {
      return nullptr;  // validated at setup; an unknown id falls back to nothing
    }
  }
  const auto& cat = channel::Catalogue::defaults();
  auto best_of = [](const std::vector<channel::Measurement>& ms) -> const channel::Measurement* {
    const channel::Measurement* best = nullptr;
    for (const auto& x : ms)
      if (!best || x.capacity() > best->capacity()) best = &x;
    return best;
  };
  if (const auto* b = best_of(cat.cell(r, m).measurements)) return b;
  const channel::Measurement* best = nullptr;
  for (int mode = 0; mode < channel::MODE_COUNT; ++mode)
    if (const auto* b = best_of(cat.cell(r, static_cast<Mode>(mode)).measurements))
      if (!best || b->capacity() > best->capacity()) best = b;
  return best;
}

double inverse_q(double p) {
  if (p <= 0) return std::numeric_limits<double>::infinity();
  if (p >= 0.5) return 0;
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    // threshold_error(2 x, 1) = Q(x)
    if (channel::threshold_error(2 * mid, 1) > p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

namespace {

// Share of a covert-channel symbol period the receiver's probe takes alone, and where it starts: the
// sender's traffic is established by then, and a probe slowed twofold still ends inside the period.
constexpr double PROBE_SHARE = 0.2;
constexpr double PROBE_OFFSET = 0.4;
// The sender keeps the resource busy with chunks of this share of the period (it checks the clock
// between chunks, so a contended last chunk spills into the next period: inter-symbol interference).
constexpr double CHUNK_SHARE = 0.125;
// Prime+probe: the probe is a memory-bound kernel of this many seconds alone on the GPU's HBM.
constexpr double FINGERPRINT_PROBE_SECONDS = 10e-6;
// modelExtraction: quiet stretches shorter than this are inside one batch (the compute of one layer of a
// prefill run layer by layer).
constexpr double LAYER_GAP_MAX = 10e-3;
// A probe counts as contended when it takes this much longer than alone (plus three noise deviations).
constexpr double BUSY_FACTOR = 1.5;

}  // namespace

double calibrated_probe_noise(double rate, double error_rate) {
  const double x = inverse_q(error_rate);
  return std::isfinite(x) && x > 0 ? PROBE_SHARE / rate / (2 * x) : 0;
}

namespace {

class Attack final : public Workload {
 public:
  Attack(SimContext& ctx, int index, std::vector<ReplicaPlacement> places, AttackEnv env)
      : ctx_(ctx),
        index_(index),
        spec_(ctx.spec.workloads[static_cast<size_t>(index)]),
        a_(spec_.attack),
        places_(std::move(places)),
        env_(std::move(env)),
        alive_(places_.size(), false) {}

  void start() override {
    for (size_t i = 0; i < places_.size(); ++i) {
      auto& p = places_[i];
      // A remanence scraper allocates what it scrapes itself; every other attacker holds its buffer.
      if (a_.type == AttackType::REMANENCE_SCRAPE) {
        alive_[i] = true;
        continue;
      }
      alive_[i] = p.gpus[0]->allocate_for(workload_memory(spec_), p.contexts[0]) >= 0;
      if (!alive_[i])
        ctx_.emit({.time = sg4::Engine::get_clock(),
                   .type = EventType::WORKLOAD_FAILED,
                   .tenant = spec_.replica_tenant(static_cast<int>(i)),
                   .workload = index_,
                   .replica = static_cast<int>(i),
                   .gpu = p.gpus[0]->index(),
                   .aux = static_cast<double>(FailureReason::OUT_OF_MEMORY)});
    }
    const bool all = !places_.empty() && std::all_of(alive_.begin(), alive_.end(), [](bool b) { return b; });
    const size_t needed = a_.type == AttackType::COVERT_CHANNEL ? 2 : 1;
    if (!all || places_.size() < needed) return;
    sg4::Host* host = places_.back().gpus[0]->host();
    switch (a_.type) {
      case AttackType::COVERT_CHANNEL:
        start_covert();
        break;
      case AttackType::PRIME_PROBE:
      case AttackType::MODEL_EXTRACTION:
        sg4::Actor::create(spec_.name + "-probe", host, [this] { guarded([this] { fingerprint(); }); });
        break;
      case AttackType::REMANENCE_SCRAPE:
        sg4::Actor::create(spec_.name + "-scrape", host, [this] { guarded([this] { scrape(); }); });
        break;
      case AttackType::NOISY_NEIGHBOUR:
        sg4::Actor::create(spec_.name + "-hammer", host, [this] { guarded([this] { hammer(); }); });
        break;
      case AttackType::MPS_KILL:
        sg4::Actor::create(spec_.name + "-kill", host, [this] { guarded([this] { kill(); }); });
        break;
      case AttackType::QUERY_EXTRACTION:
        sg4::Actor::create(spec_.name + "-query", host, [this] { guarded([this] { query(); }); });
        break;
    }
  }

  void finish(double) override {}

  const ReplicaPlacement* placement(int replica) const override {
    return replica >= 0 && replica < static_cast<int>(places_.size()) ? &places_[static_cast<size_t>(replica)]
                                                                      : nullptr;
  }

  void kill_replica(int replica, FailureReason reason) override {
    const auto r = static_cast<size_t>(replica);
    if (r >= places_.size() || !alive_[r]) return;
    alive_[r] = false;
    auto& p = places_[r];
    ctx_.emit({.time = sg4::Engine::get_clock(),
               .type = EventType::WORKLOAD_FAILED,
               .tenant = spec_.replica_tenant(replica),
               .workload = index_,
               .replica = replica,
               .gpu = p.gpus[0]->index(),
               .aux = static_cast<double>(reason)});
    p.gpus[0]->fail_context(p.contexts[0]);
    const double bytes = a_.type == AttackType::REMANENCE_SCRAPE ? held_[r] : workload_memory(spec_);
    if (bytes > 0) p.gpus[0]->release_for(bytes, p.contexts[0]);
    held_[r] = 0;
  }
  void restart_replica(int) override {}  // an attacker that was caught does not come back in this model
  void drain_replica(int) override {}
  bool replica_idle(int replica) const override { return !alive_.at(static_cast<size_t>(replica)); }
  bool move_replica(int, ReplicaPlacement) override { return false; }

 private:
  template <class F>
  void guarded(F body) {
    try {
      body();
    } catch (const KernelAborted&) {
      // a fault ended the attacker's client (kill_replica recorded it)
    }
  }

  double now() const { return sg4::Engine::get_clock(); }

  // The latency the attacker reads for an operation that took `d` seconds: its timer noise, the
  // injected noise of the isolation policy, then the timer's resolution (rounded down).
  double observed(double d, double noise, RngStream& rng) const {
    double x = d;
    if (noise > 0) x += rng.normal(0, noise);
    const auto& iso = ctx_.spec.isolation;
    if (iso.noise_injection.value > 0) x += rng.normal(0, iso.noise_injection.value);
    if (iso.timer_resolution.value > 0) x = std::floor(x / iso.timer_resolution.value) * iso.timer_resolution.value;
    return x;
  }

  // ------------------------------------------------------------------ covert channel
  // Replica 0 (the sender) modulates the resource with a bit stream: for a 1 it keeps it busy for the
  // symbol period, for a 0 it stays idle. Replica 1 (the receiver) times one probe per period and
  // decodes with a threshold halfway between the mean latencies of the preamble's 1s and 0s.

  // One run of symbols at one rate: the payload, or (bitRate: auto) a trial of the rate search.
  struct Phase {
    double period = 0;
    double start = 0;  // first symbol
    std::vector<int> symbols;
    bool payload = true;
    double end() const { return start + static_cast<double>(symbols.size()) * period; }
  };

  struct Covert {
    Resource resource = Resource::NVLINK;
    GpuDevice* sender = nullptr;
    GpuDevice* receiver = nullptr;
    GpuDevice* peer = nullptr;  // nvlink: the third GPU both write to
    sg4::Host* cpu = nullptr;   // pcie: host memory side
    double fastest = 0;         // the reference's probe rate: the attacker signals no faster
    double bandwidth = 0;       // of the modulated resource, alone
    double noise = 0;           // probe-latency standard deviation
    Phase payload;              // the payload at the rate given (auto: its symbols, the rate decided later)
    Phase next;                 // auto: the phase the receiver announced last
    int announced = 0;          // auto: phases announced so far
    sg4::MutexPtr mutex;        // auto: guards next and announced
    sg4::ConditionVariablePtr cv;
  } cv_;

  void start_covert() {
    auto& c = cv_;
    c.sender = places_[0].gpus[0];
    c.receiver = places_[1].gpus[0];
    c.resource = channel::resource_from_name(a_.channel).value_or(Resource::NVLINK);
    // MIG instances have no NVLink peer access (P2P = No), nor have GPUs outside each other's NVLink domain
    // (no NVLink on the product, or another bridged pair): their device-to-device copies are staged through
    // host memory over the GPU's PCIe link, so an NVLink channel between them is a PCIe one.
    if (c.resource == Resource::NVLINK &&
        (c.sender->nvlink_domain() < 0 || c.sender->nvlink_domain() != c.receiver->nvlink_domain()))
      c.resource = Resource::PCIE;
    const Mode relation = device_relation(*c.sender, *c.receiver);
    const auto& profile = c.receiver->profile();
    switch (c.resource) {
      case Resource::NVLINK:
        c.bandwidth = profile.nvlink_achievable.value;
        for (auto* d : env_.devices) {
          if (d->node() != c.sender->node() || d->local_index() == c.sender->local_index() ||
              d->local_index() == c.receiver->local_index() || d->nvlink_domain() != c.sender->nvlink_domain())
            continue;
          c.peer = d;
          break;
        }
        break;
      case Resource::PCIE:
        c.bandwidth = profile.pcie_h2d_achievable.value;
        c.cpu = env_.node_cpus.at(static_cast<size_t>(c.receiver->node()));
        break;
      default:
        c.bandwidth = profile.hbm_achievable.value;
        break;
    }
    // The fastest probe loop known on the resource is the reference's (its probe rate); a time-sliced
    // cell without a measurement sees one switch per slice. The attacker may signal slower, not faster.
    const bool per_slice =
        channel::Catalogue::defaults().cell(c.resource, relation).probe_per_time_slice && a_.reference.empty();
    const channel::Measurement* ref = per_slice ? nullptr : covert_reference(c.resource, relation, a_.reference);
    c.fastest = ref ? ref->bit_rate() : 1 / c.receiver->sharing().time_slice.value;
    const double rate = a_.bit_rate.value > 0 ? std::min(a_.bit_rate.value, c.fastest) : c.fastest;
    // Calibrated noise, in seconds per probe: the deviation at which a threshold detector errs with the
    // reference's error rate when signalling at the reference's rate, on the simulated signal of one
    // competing flow (max-min sharing doubles the probe: signal = its time alone). It does not shrink
    // when the attacker signals faster, so faster signalling errs more.
    if (a_.noise.value >= 0) {
      c.noise = a_.noise.value;
    } else {
      c.noise = calibrated_probe_noise(c.fastest, ref ? ref->error_rate : 0);
    }
    auto rng = make_stream(ctx_.spec.seed, "attack/" + spec_.name + "/payload");
    c.payload.symbols = with_preamble(a_.bits, rng);
    c.payload.period = 1 / rate;
    // Both ends agree on the start (a shared clock: the published attacks synchronise with a handshake).
    c.payload.start = now() + c.payload.period;
    if (a_.adaptive_rate) {
      c.mutex = sg4::Mutex::create();
      c.cv = sg4::ConditionVariable::create();
    }
    sg4::Actor::create(spec_.name + "-sender", c.sender->host(), [this] { guarded([this] { covert_send(); }); });
    sg4::Actor::create(spec_.name + "-receiver", c.receiver->host(), [this] { guarded([this] { covert_receive(); }); });
  }

  // The preamble (alternating 1, 0) then `bits` drawn from `rng`.
  std::vector<int> with_preamble(int bits, RngStream& rng) const {
    std::vector<int> symbols;
    for (int i = 0; i < a_.preamble; ++i) symbols.push_back(i % 2 == 0 ? 1 : 0);
    for (int i = 0; i < bits; ++i) symbols.push_back(rng.uniform() < 0.5 ? 1 : 0);
    return symbols;
  }

  // One busy-making operation of `bytes` on the channel's resource from `gpu` (context `context`).
  // Returns false when the resource cannot be reached from there (nothing was done).
  bool channel_op(GpuDevice* gpu, int context, double bytes) {
    auto& c = cv_;
    switch (c.resource) {
      case Resource::NVLINK:
        // A confidential GPU's NVLink belongs to its CVM (PPCIe): no peer access to or from another tenant's GPU.
        if (!c.peer || gpu->confidential() || c.peer->confidential()) return false;
        sg4::Comm::sendto(gpu->host(), c.peer->host(), static_cast<uint64_t>(std::max(1.0, bytes)));
        return true;
      case Resource::PCIE:
        sg4::Comm::sendto(c.cpu, gpu->host(), static_cast<uint64_t>(std::max(1.0, bytes)));
        return true;
      default:
        gpu->run(context, 0, bytes);
        return true;
    }
  }

  void covert_send() {
    if (!a_.adaptive_rate) {
      send_phase(cv_.payload);
      return;
    }
    // bitRate auto: each phase the receiver announces (the trials, then the payload at the rate it chose).
    for (int done = 0;; ++done) {
      Phase phase;
      {
        const std::unique_lock lock(*cv_.mutex);
        while (cv_.announced <= done) cv_.cv->wait(lock);
        phase = cv_.next;
      }
      send_phase(phase);
      if (phase.payload) return;
    }
  }

  void send_phase(const Phase& ph) {
    auto& c = cv_;
    const double chunk = CHUNK_SHARE * ph.period * c.bandwidth;
    for (size_t k = 0; k < ph.symbols.size(); ++k) {
      const double slot = ph.start + static_cast<double>(k) * ph.period;
      if (now() < slot) sg4::this_actor::sleep_until(slot);
      if (ph.symbols[k] == 0) continue;
      while (now() < slot + ph.period && alive_[0])
        if (!channel_op(c.sender, places_[0].contexts[0], chunk)) sg4::this_actor::sleep_until(slot + ph.period);
    }
  }

  // bitRate auto: tells the sender the next phase (the handshake of the published attacks, taken as free).
  void announce(const Phase& ph) {
    const std::unique_lock lock(*cv_.mutex);
    cv_.next = ph;
    ++cv_.announced;
    cv_.cv->notify_all();
  }

  // The receiver times one probe per symbol of a phase, `PROBE_OFFSET` into its period; returns the latencies
  // it read.
  std::vector<double> probe_phase(const Phase& ph, RngStream& noise) {
    auto& c = cv_;
    const double probe_bytes = PROBE_SHARE * ph.period * c.bandwidth;
    std::vector<double> latency(ph.symbols.size());
    for (size_t k = 0; k < ph.symbols.size(); ++k) {
      const double at = ph.start + (static_cast<double>(k) + PROBE_OFFSET) * ph.period;
      if (now() < at) sg4::this_actor::sleep_until(at);
      const double t = now();
      channel_op(c.receiver, places_[1].contexts[0], probe_bytes);
      latency[k] = observed(now() - t, c.noise, noise);
      ctx_.emit(who(1, c.receiver->index()), {.time = now(),
                                              .type = EventType::ATTACK_PROBE,
                                              .value = latency[k],
                                              .aux = static_cast<double>(ph.symbols[k])});
    }
    return latency;
  }

  // The bits after the preamble, decoded against a threshold halfway between the mean latency of the
  // preamble's 1s and of its 0s.
  std::vector<int> decode(const Phase& ph, const std::vector<double>& latency) const {
    double ones = 0, zeros = 0;
    int n1 = 0, n0 = 0;
    for (int i = 0; i < a_.preamble; ++i) {
      (ph.symbols[static_cast<size_t>(i)] ? ones : zeros) += latency[static_cast<size_t>(i)];
      ++(ph.symbols[static_cast<size_t>(i)] ? n1 : n0);
    }
    const double m1 = n1 ? ones / n1 : 0, m0 = n0 ? zeros / n0 : 0;
    const double threshold = 0.5 * (m1 + m0);
    const bool inverted = m1 < m0;
    std::vector<int> bits;
    for (size_t k = static_cast<size_t>(a_.preamble); k < ph.symbols.size(); ++k)
      bits.push_back((latency[k] > threshold) != inverted ? 1 : 0);
    return bits;
  }

  // bitRate auto: trials from the fastest rate down (RateSearch), each with known bits; returns the payload
  // phase at the rate that carried the most information, announced to the sender. A trial's rate and error
  // are logged (ATTACK_OBSERVATION of the receiver). The search stops early at a rate whose trial and payload
  // would not end before arrivals end.
  Phase search_rate(RngStream& noise) {
    auto& c = cv_;
    auto training = make_stream(ctx_.spec.seed, "attack/" + spec_.name + "/training");
    RateSearch search(c.fastest);
    double free_at = now();  // when the last phase ended
    for (bool more = true; more;) {
      Phase trial;
      trial.payload = false;
      trial.period = 1 / search.rate();
      trial.start = std::max(now(), free_at) + trial.period;
      trial.symbols = with_preamble(a_.training_bits, training);
      if (!search.trials().empty() && trial.end() + (a_.preamble + a_.bits) * trial.period > ctx_.arrivals_end) break;
      announce(trial);
      const auto bits = decode(trial, probe_phase(trial, noise));
      int errors = 0;
      for (size_t k = 0; k < bits.size(); ++k)
        errors += bits[k] != trial.symbols[static_cast<size_t>(a_.preamble) + k] ? 1 : 0;
      const double error_rate = static_cast<double>(errors) / static_cast<double>(bits.size());
      ctx_.emit(who(1, c.receiver->index()),
                {.time = now(), .type = EventType::ATTACK_OBSERVATION, .value = search.rate(), .aux = error_rate});
      more = search.record(error_rate);
      free_at = trial.end();
    }
    Phase payload = c.payload;
    payload.period = 1 / search.chosen();
    payload.start = std::max(now(), free_at) + payload.period;
    announce(payload);
    return payload;
  }

  void covert_receive() {
    auto& c = cv_;
    auto noise = make_stream(ctx_.spec.seed, "attack/" + spec_.name + "/noise");
    const Phase ph = a_.adaptive_rate ? search_rate(noise) : c.payload;
    const auto bits = decode(ph, probe_phase(ph, noise));
    for (size_t k = 0; k < bits.size(); ++k)
      ctx_.emit(who(1, c.receiver->index()),
                {.time = now(),
                 .type = EventType::ATTACK_BIT,
                 .value = static_cast<double>(bits[k]),
                 .aux = static_cast<double>(ph.symbols[static_cast<size_t>(a_.preamble) + k])});
    const double payload_start = ph.start + a_.preamble * ph.period;
    XBT_VERB("%s: covert channel sent %zu symbols from GPU %d to GPU %d", spec_.name.c_str(), ph.symbols.size(),
             c.sender->index(), c.receiver->index());
    if (now() < ph.end()) sg4::this_actor::sleep_until(ph.end());
    ctx_.emit(
        who(1, c.receiver->index()),
        {.time = now(), .type = EventType::ATTACK_DONE, .value = static_cast<double>(a_.bits), .aux = payload_start});
  }

  // ------------------------------------------------------------------ prime+probe / model extraction
  // The attacker times a short memory-bound probe every probeInterval. A run of slow probes is a burst
  // of the victim's work (one inference batch: prefill then decode); its length tells the model apart
  // (primeProbe: nearest candidate by the roofline batch time for batch sizes 1..maxBatch) or gives its
  // size (modelExtraction: the decode reads the weights once per output token).

  void fingerprint() {
    auto& p = places_[0];
    GpuDevice& gpu = *p.gpus[0];
    const int context = p.contexts[0];
    const auto& victim = ctx_.spec.workloads[static_cast<size_t>(a_.target_index)];
    const auto& profile = gpu.profile();
    const double bw = profile.hbm_achievable.value;
    // A probe of at most 40% of the interval (fine probe loops for the layer structure take shorter probes).
    const double t0 = std::min(FINGERPRINT_PROBE_SECONDS, 0.4 * a_.probe_interval.value);
    const double probe_bytes = t0 * bw;
    const double noise_sd = std::max(0.0, a_.noise.value);
    const double threshold = BUSY_FACTOR * t0 + 3 * std::hypot(noise_sd, ctx_.spec.isolation.noise_injection.value);
    // The attacker's own probes take this share of the bandwidth: the victim runs that much slower.
    const double duty = t0 / a_.probe_interval.value;
    auto rng = make_stream(ctx_.spec.seed, "attack/" + spec_.name + "/noise");
    // Truth: which candidate the victim is (-1: none of them).
    int truth = -1;
    for (size_t i = 0; i < a_.candidates.size(); ++i) {
      const auto& m = a_.candidates[i].model;
      if (m.parameters == victim.model.parameters && m.dtype == victim.model.dtype) truth = static_cast<int>(i);
    }
    // One batch shows as the prefill's weight read, a quiet compute-bound stretch, then the decode: quiet
    // gaps shorter than the longest prefill compute of the library (at the largest batch), and at least
    // 20 probes, are inside one burst.
    // modelExtraction has no library: 10 ms of quiet at least (a prefill run layer by layer leaves gaps of
    // each layer's compute between its weight reads).
    double quiet =
        std::max(20 * a_.probe_interval.value, a_.type == AttackType::MODEL_EXTRACTION ? LAYER_GAP_MAX : 0.0);
    for (const auto& cand : a_.candidates) {
      WorkloadSpec w = victim;
      w.model = cand.model;
      const auto cost = inference_batch_cost(w, profile, victim.max_batch);
      quiet = std::max(quiet, profile.roofline_time(Flops(cost.prefill_flops), Bytes(0)).value);
    }
    const double started = now();
    double burst_start = -1, last_busy = -1;
    int guesses = 0;
    auto close_burst = [&] {
      if (burst_start < 0) return;
      const double length = last_busy - burst_start + a_.probe_interval.value;
      ++guesses;
      if (a_.type == AttackType::PRIME_PROBE) {
        ctx_.emit(who(0, gpu.index()), {.time = now(),
                                        .type = EventType::ATTACK_OBSERVATION,
                                        .value = static_cast<double>(classify(length / (1 + duty), victim, profile)),
                                        .aux = static_cast<double>(truth)});
      } else {
        // Decode reads the weights output_tokens times, prefill once: bytes = weights x (out + 1).
        // A contended probe takes twice its time alone at half the bandwidth: the victim keeps 1 - duty of it.
        const double weights = length * (1 - duty) * bw / (victim.output_tokens + 1.0);
        ctx_.emit(who(0, gpu.index()), {.time = now(),
                                        .type = EventType::ATTACK_OBSERVATION,
                                        .value = weights / dtype_bytes(victim.model.dtype),
                                        .aux = victim.model.parameters});
      }
      burst_start = last_busy = -1;
    };
    // Runs of contended probes (one quiet probe does not end a run: noise can hide one contended probe).
    std::vector<std::pair<double, double>> runs;
    int quiet_probes = 2;
    const double first_probe = now();
    for (double t = now(); t < ctx_.arrivals_end && alive_[0]; t += a_.probe_interval.value) {
      if (now() < t) sg4::this_actor::sleep_until(t);
      const double s = now();
      gpu.run(context, 0, probe_bytes);
      const double latency = observed(now() - s, noise_sd, rng);
      if (latency > threshold) {
        if (burst_start < 0) burst_start = s;
        last_busy = s;
        if (quiet_probes >= 2) runs.emplace_back(s, s);
        runs.back().second = s + a_.probe_interval.value;
        quiet_probes = 0;
      } else {
        ++quiet_probes;
        if (burst_start >= 0 && s - last_busy > quiet) close_burst();
      }
    }
    close_burst();
    if (a_.type == AttackType::MODEL_EXTRACTION) extract_layers(runs, first_probe, victim, gpu.index());
    ctx_.emit(who(0, gpu.index()),
              {.time = now(), .type = EventType::ATTACK_DONE, .value = static_cast<double>(guesses), .aux = started});
  }

  // Layer structure from the runs of contended probes. A batch shows as one short run per layer (the
  // layer's weight read at its start; its compute leaves the HBM quiet) and then the decode, one long run
  // (it reads the weights once per output token): runs of at least a tenth of the longest are decodes.
  // Between two decodes, each run starts a layer, which lasts until the next run starts (the last one
  // until the decode): durations proportional to the layers' sizes (FLOPs), so a layer's share of the
  // batch's prefill is its share of the model's parameters. One observation per batch seen whole (not
  // one in progress when the attacker started): layers counted (value) against the truth (aux), replica
  // 1; the mean and largest relative error of the layers' shares when the count is right (-1 otherwise),
  // replica 2.
  void extract_layers(const std::vector<std::pair<double, double>>& runs, double first_probe,
                      const WorkloadSpec& victim, int gpu) {
    double longest = 0;
    for (const auto& [a, b] : runs) longest = std::max(longest, b - a);
    const int truth = std::max(1, victim.model.layers);
    size_t begin = 0;  // first run of the current batch
    for (size_t k = 0; k < runs.size(); ++k) {
      if (runs[k].second - runs[k].first < 0.1 * longest) continue;
      // The first batch counts when its first run started after the attacker's first quiet stretch.
      const bool whole = begin > 0 || runs[begin].first > first_probe + LAYER_GAP_MAX;
      const size_t layers = k - begin;
      const size_t first = begin;
      begin = k + 1;
      if (!whole || layers == 0) continue;
      const double total = runs[k].first - runs[first].first;
      double mean = -1, worst = -1;
      if (static_cast<int>(layers) == truth && total > 0) {
        mean = worst = 0;
        for (size_t i = first; i < k; ++i) {
          const double share = (runs[i + 1].first - runs[i].first) / total;
          const double err = std::abs(share * truth - 1);  // layers of equal size: each 1 / truth
          mean += err / static_cast<double>(layers);
          worst = std::max(worst, err);
        }
      }
      ctx_.emit(who(1, gpu), {.time = now(),
                              .type = EventType::ATTACK_OBSERVATION,
                              .value = static_cast<double>(layers),
                              .aux = static_cast<double>(truth)});
      ctx_.emit(who(2, gpu), {.time = now(), .type = EventType::ATTACK_OBSERVATION, .value = mean, .aux = worst});
    }
  }

  // The candidate whose batch time (roofline, batch 1..maxBatch, the victim's request shape) is nearest
  // to `length` on a log scale.
  int classify(double length, const WorkloadSpec& victim, const HardwareProfile& profile) const {
    int best = -1;
    double best_d = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < a_.candidates.size(); ++i) {
      WorkloadSpec w = victim;
      w.model = a_.candidates[i].model;
      for (int b = 1; b <= victim.max_batch; ++b) {
        const auto cost = inference_batch_cost(w, profile, b);
        const double t = profile.roofline_time(Flops(cost.prefill_flops), Bytes(cost.prefill_bytes)).value +
                         profile.roofline_time(Flops(cost.decode_flops), Bytes(cost.decode_bytes)).value;
        const double d = std::abs(std::log(length / t));
        if (d < best_d) {
          best_d = d;
          best = static_cast<int>(i);
        }
      }
    }
    return best;
  }

  // ------------------------------------------------------------------ remanence scraping
  // Allocates memory (all that is free by default) and reads it: whatever earlier tenants freed without
  // a scrub comes back with their data (the allocator logs MEM_RESIDUE per source). Optionally frees
  // and scrapes again every interval.
  void scrape() {
    auto& p = places_[0];
    GpuDevice& gpu = *p.gpus[0];
    const int context = p.contexts[0];
    const double started = now();
    double recovered = 0;
    for (;;) {
      const double free_bytes = gpu.profile().memory.value - gpu.memory_used() - gpu.memory_scrubbing();
      double want = a_.bytes.value > 0 ? a_.bytes.value : free_bytes;
      if (gpu.sharing().mode == SharingMode::MPS) want = std::min(want, gpu.sharing().pinned_memory_limit.value);
      if (gpu.sharing().mode == SharingMode::VGPU)
        want = std::min(want, gpu.profile().memory.value / std::max(1, gpu.sharing().replicas));
      const double residue = want > 0 ? gpu.allocate_for(want, context) : -1;
      if (residue >= 0) {
        held_[0] = want;
        gpu.run(context, 0, want);  // read it back
        recovered += residue;
      }
      if (a_.interval.value <= 0 || now() + a_.interval.value >= ctx_.arrivals_end || !alive_[0]) break;
      sg4::this_actor::sleep_for(a_.interval.value);
      if (held_[0] > 0) gpu.release_for(held_[0], context);
      held_[0] = 0;
    }
    ctx_.emit(who(0, gpu.index()), {.time = now(), .type = EventType::ATTACK_DONE, .value = recovered, .aux = started});
  }

  // ------------------------------------------------------------------ noisy neighbour
  void hammer() {
    auto& p = places_[0];
    GpuDevice& gpu = *p.gpus[0];
    const double bytes = a_.bytes.value > 0 || a_.flops.value > 0 ? a_.bytes.value : 1024.0 * 1024.0 * 1024.0;
    const double started = now();
    double kernels = 0;
    while (now() < ctx_.arrivals_end && alive_[0]) {
      gpu.run(p.contexts[0], a_.flops.value, bytes);
      ++kernels;
    }
    ctx_.emit(who(0, gpu.index()), {.time = now(), .type = EventType::ATTACK_DONE, .value = kernels, .aux = started});
  }

  // ------------------------------------------------------------------ MPS fault-domain kill
  // The attacker's own client raises a fatal error (an illegal address, Xid 13/31): its fault domain
  // ends with it, every client of the GPU under MPS or time-slicing.
  void kill() {
    auto& p = places_[0];
    GpuDevice& gpu = *p.gpus[0];
    const double started = now();
    if (a_.at.value > now()) sg4::this_actor::sleep_until(a_.at.value);
    std::vector<std::pair<int, int>> ended;
    for (int id : gpu.fault_domain(p.contexts[0])) {
      const auto& c = gpu.contexts()[static_cast<size_t>(id)];
      ended.emplace_back(c.workload, c.replica);
    }
    ctx_.emit(who(0, gpu.index()), {.time = now(),
                                    .type = EventType::GPU_FAULT,
                                    .value = static_cast<double>(ended.size()),
                                    .aux = gpu.fault_domain_is_whole_gpu() ? 1.0 : 0.0});
    const double at = now();
    int victims = 0;
    for (const auto& [w, r] : ended) {
      if (w == index_) continue;
      if (Workload* other = env_.workload(w)) {
        other->kill_replica(r);
        ++victims;
      }
    }
    ctx_.emit(who(0, gpu.index()),
              {.time = at, .type = EventType::ATTACK_DONE, .value = static_cast<double>(victims), .aux = started});
    kill_replica(0, FailureReason::FAULT);
  }

  // ------------------------------------------------------------------ query extraction
  // Model stealing through the service's API: the client sends queryRate queries per second to the
  // victim service, which serves the admitted ones like its own requests (the service logs an
  // ATTACK_OBSERVATION per answer). A refused query (the per-client rate limit, or a full queue) is logged
  // (ATTACK_PROBE: value 1 rate-limited, 2 refused, 3 the per-client query budget spent) and the next send slot
  // retries. It stops once `queries` were admitted, its budget is spent or arrivals end: a rate limit below
  // queryRate costs it time.
  void query() {
    const double started = now();
    const double period = 1 / a_.query_rate.value;
    const int gpu = places_[0].gpus[0]->index();
    int admitted = 0;
    for (double t = now(); admitted < a_.queries && t < ctx_.arrivals_end && alive_[0]; t += period) {
      if (now() < t) sg4::this_actor::sleep_until(t);
      Workload* victim = env_.workload(a_.target_index);
      const auto answer = victim ? victim->submit_query(index_) : Workload::Admission::REFUSED;
      if (answer == Workload::Admission::ADMITTED) {
        ++admitted;
      } else {
        ctx_.emit(who(0, gpu), {.time = now(),
                                .type = EventType::ATTACK_PROBE,
                                .value = answer == Workload::Admission::RATE_LIMITED   ? 1.0
                                         : answer == Workload::Admission::BUDGET_SPENT ? 3.0
                                                                                       : 2.0});
        if (answer == Workload::Admission::BUDGET_SPENT) break;  // no later query will be answered
      }
    }
    ctx_.emit(who(0, gpu),
              {.time = now(), .type = EventType::ATTACK_DONE, .value = static_cast<double>(admitted), .aux = started});
  }

  SimContext& ctx_;
  int index_;
  const WorkloadSpec& spec_;
  // The subject of this workload's events: one of its replicas, on a GPU (-1: none).
  Subject who(int replica, int gpu = -1) const { return {spec_.tenant_index, index_, replica, gpu}; }
  const AttackSpec& a_;
  std::vector<ReplicaPlacement> places_;
  AttackEnv env_;
  std::vector<bool> alive_;
  std::vector<double> held_ = std::vector<double>(places_.size(), 0.0);  // scraper: bytes it holds
};

}  // namespace

std::unique_ptr<Workload> make_attack(SimContext& ctx, int workload_index, std::vector<ReplicaPlacement> replicas,
                                      AttackEnv env) {
  return std::make_unique<Attack>(ctx, workload_index, std::move(replicas), std::move(env));
}

}  // namespace gtw
