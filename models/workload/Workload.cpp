#include "Workload.hpp"

#include "Runtime.hpp"

#include <xbt/log.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

#include "Arrivals.hpp"
#include "Comms.hpp"
#include "DataPath.hpp"
#include "Platform.hpp"
#include "ServingSpecs.hpp"
#include "TokenBucket.hpp"

XBT_LOG_EXTERNAL_CATEGORY(gtw);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(gtw_workload, gtw,
                                "workload replicas: requests, batches, training steps, model loads (models/workload)");

namespace gtw {

InferenceBatchCost inference_batch_cost(const WorkloadSpec& w, const HardwareProfile& profile, int batch) {
  return inference_batch_cost(w, profile, static_cast<double>(batch) * w.prompt_tokens,
                              static_cast<double>(batch) * w.output_tokens, w.output_tokens);
}

InferenceBatchCost inference_batch_cost(const WorkloadSpec& w, const HardwareProfile& profile, double prompt_tokens,
                                        double output_tokens, int decode_steps) {
  const double n = w.model.parameters;
  const double weights = w.model.weights().value;
  // The GPU host computes at the FP16 rate; other precisions scale the FLOP count.
  const double scale = profile.achievable_rate(DType::FP16).value / profile.achievable_rate(w.model.dtype).value;
  InferenceBatchCost c;
  c.prefill_flops = 2.0 * n * prompt_tokens * scale;
  c.prefill_bytes = weights;
  c.decode_flops = 2.0 * n * output_tokens * scale;
  c.decode_bytes = weights * decode_steps;
  return c;
}

double workload_memory(const WorkloadSpec& w) {
  if (w.memory.value > 0) return w.memory.value;
  if (w.kind == WorkloadKind::ATTACK) return ATTACK_DEFAULT_MEMORY;
  // Continuous batching: what it needs at least (the placement's view); it takes its reservation at start.
  if (w.continuous()) return serving::minimum_bytes(w);
  // Weights of every resident model plus 30% of one model's for the KV cache and activations.
  const int resident = w.swap_models >= 2 ? w.resident_models : 1;
  return w.model.weights().value * (resident + 0.3);
}

namespace {

// Bytes a replica holds on a GPU: a continuous-batching server takes its share of the partition at start
// (vLLM's gpu_memory_utilization), every other workload its workload_memory.
double replica_memory(const WorkloadSpec& w, const GpuDevice& gpu) {
  return w.continuous() ? serving::reservation_bytes(w, gpu.partition_memory()) : workload_memory(w);
}

// A kernel alone on a GPU: its roofline on the SMs its grid occupies.
Seconds kernel_time(const KernelSpec& k, const HardwareProfile& p) {
  if (k.blocks <= 0) return p.roofline_time(k.flops, k.bytes);
  const int sms = std::max(1, p.sms);
  return p.roofline_time(Flops(k.flops.value * sms / k.grid_sms(sms)), k.bytes);
}

double ring_allreduce_bytes(const WorkloadSpec& w) {
  if (w.gpus < 2) return 0;
  return 2.0 * (w.gpus - 1) / w.gpus * w.gradient_bytes.value;
}

}  // namespace

double training_step_ideal(const WorkloadSpec& w, const HardwareProfile& p, bool data_from_host) {
  double t = w.data_per_step.value > 0 && data_from_host
                 ? PCIE_LATENCY_SECONDS + w.data_per_step.value / p.pcie_h2d_achievable.value
                 : 0;
  t += kernel_time(w.step, p).value;
  t += ring_allreduce_bytes(w) / p.peer_achievable(std::max(1, w.gpus));
  return t;
}

namespace {

// Allocates the replica's memory on each of its GPUs; on failure releases what it took, records
// the out-of-memory event and returns false.
bool allocate_replica(SimContext& ctx, const WorkloadSpec& spec, int workload, int replica,
                      const ReplicaPlacement& place) {
  for (size_t i = 0; i < place.gpus.size(); ++i) {
    const double bytes = replica_memory(spec, *place.gpus[i]);
    if (place.gpus[i]->allocate_for(bytes, place.contexts[i]) < 0) {
      for (size_t j = 0; j < i; ++j)
        place.gpus[j]->release_for(replica_memory(spec, *place.gpus[j]), place.contexts[j]);
      const double now = sg4::Engine::get_clock();
      ctx.emit({.time = now,
                .type = EventType::OUT_OF_MEMORY,
                .tenant = spec.tenant_index,
                .workload = workload,
                .replica = replica,
                .gpu = place.gpus[i]->index(),
                .value = bytes,
                .aux = place.gpus[i]->memory_used()});
      ctx.emit({.time = now,
                .type = EventType::WORKLOAD_FAILED,
                .tenant = spec.tenant_index,
                .workload = workload,
                .replica = replica,
                .gpu = place.gpus[i]->index(),
                .aux = static_cast<double>(FailureReason::OUT_OF_MEMORY)});
      return false;
    }
  }
  return true;
}

// The runtime a replica runs in, resolved on its (first) GPU.
const RuntimeModel& replica_runtime(const WorkloadSpec& spec, const ReplicaPlacement& place) {
  const SharingMode mode = place.gpus.empty() ? SharingMode::EXCLUSIVE : place.gpus[0]->sharing().mode;
  return runtime_model(effective_runtime(spec.runtime, mode));
}

// Copies `bytes` from host memory to the replica's GPU. In confidential-computing mode the copy goes
// through encrypted bounce buffers: CPU-side encryption at the bounce bandwidth plus a fixed cost
// per transfer, instead of the plain PCIe link. The runtime adds its interposition cost per copy and
// may reach less than the link's bandwidth (a VM's I/O path).
void host_to_device(const WorkloadSpec& spec, const ReplicaPlacement& place, size_t g, double bytes, SimContext& ctx) {
  GpuDevice& gpu = *place.gpus[g];
  const RuntimeModel& runtime = replica_runtime(spec, place);
  if (runtime.transfer_overhead_s > 0) sg4::this_actor::sleep_for(runtime.transfer_overhead_s);
  if (const auto* cc = gpu.confidential()) {
    sg4::this_actor::sleep_for(cc->transfer_latency.value + bytes / cc->bounce_bandwidth.value);
  } else if (place.node_cpu && bytes > 0) {
    sg4::Comm::sendto(place.node_cpu, gpu.host(), static_cast<uint64_t>(bytes / runtime.io_efficiency));
  }
  ++ctx.counters.transfers;
}

// A replica starting on a GPU: its runtime starts (container, sandbox or VM boot), then in CC mode
// the GPU is attested, then its weights are loaded.
void bring_up(const WorkloadSpec& spec, const ReplicaPlacement& place, double weight_bytes, SimContext& ctx) {
  sg4::this_actor::sleep_for(replica_runtime(spec, place).startup_s);
  // Weights kept on a store (io.weights) are read from it, tagged (models/storage); under CC they take
  // the encrypted bounce-buffer path from host memory as before.
  const int weights = storage::data_index(ctx.spec, spec.io.weights);
  if (weights >= 0 && weight_bytes > 0 && ctx.platform && !place.gpus.empty() && !place.gpus[0]->confidential()) {
    const auto mover = storage::mover_of(ctx, static_cast<int>(&spec - ctx.spec.workloads.data()), -1);
    storage::read_to_gpus(ctx, mover, weights, place.gpus, weight_bytes);
    ctx.counters.transfers += place.gpus.size();
    // Owner-encrypted weights are decrypted on the host before they are usable: the cost of weightEncryption.
    if (storage::owner_encrypted(ctx.spec, weights))
      sg4::this_actor::sleep_for(weight_bytes * static_cast<double>(place.gpus.size()) /
                                 ctx.spec.isolation.decrypt_bandwidth.value);
    return;
  }
  // A replica over several GPUs (tensor parallelism) loads its shards at once, each over its GPU's link.
  const RuntimeModel& runtime = replica_runtime(spec, place);
  if (place.gpus.size() > 1 && !place.gpus[0]->confidential() && place.node_cpu && weight_bytes > 0) {
    if (runtime.transfer_overhead_s > 0) sg4::this_actor::sleep_for(runtime.transfer_overhead_s);
    std::vector<sg4::CommPtr> loads;
    for (auto* gpu : place.gpus)
      loads.push_back(sg4::Comm::sendto_async(place.node_cpu, gpu->host(),
                                              static_cast<uint64_t>(weight_bytes / runtime.io_efficiency)));
    fabric::wait_all(loads);
    ctx.counters.transfers += loads.size();
    return;
  }
  for (size_t g = 0; g < place.gpus.size(); ++g) {
    if (const auto* cc = place.gpus[g]->confidential()) sg4::this_actor::sleep_for(cc->attestation.value);
    if (weight_bytes > 0) host_to_device(spec, place, g, weight_bytes, ctx);
  }
}

// Fails every context of a replica and releases its memory (after a fault).
void fail_replica_contexts(const WorkloadSpec& spec, const ReplicaPlacement& place) {
  for (size_t i = 0; i < place.gpus.size(); ++i) {
    place.gpus[i]->fail_context(place.contexts[i]);
    place.gpus[i]->release_for(replica_memory(spec, *place.gpus[i]), place.contexts[i]);
  }
}

// ---------------------------------------------------------------- inference

class InferenceService final : public Workload {
 public:
  InferenceService(SimContext& ctx, int index, std::vector<ReplicaPlacement> places)
      : ctx_(ctx), index_(index), spec_(ctx.spec.workloads[static_cast<size_t>(index)]) {
    for (auto& p : places) {
      auto r = std::make_unique<Replica>();
      r->place = std::move(p);
      r->mutex = sg4::Mutex::create();
      r->cv = sg4::ConditionVariable::create();
      replicas_.push_back(std::move(r));
    }
  }

  const ReplicaPlacement* placement(int replica) const override {
    return replica >= 0 && replica < static_cast<int>(replicas_.size())
               ? &replicas_[static_cast<size_t>(replica)]->place
               : nullptr;
  }

  void kill_replica(int replica, FailureReason reason) override {
    auto& r = *replicas_.at(static_cast<size_t>(replica));
    if (!r.alive) return;
    const double now = sg4::Engine::get_clock();
    r.alive = false;
    r.draining = false;
    ++r.generation;
    ctx_.emit(who(replica, gpu_of(r)),
              {.time = now, .type = EventType::WORKLOAD_FAILED, .aux = static_cast<double>(reason)});
    for (const auto& req : r.in_service)
      ctx_.emit(who(replica, gpu_of(r)),
                {.time = now, .type = EventType::REQUEST_DROPPED, .value = now - req.arrival, .aux = req.arrival});
    for (const auto& req : r.queue)
      ctx_.emit(who(replica, gpu_of(r)),
                {.time = now, .type = EventType::REQUEST_DROPPED, .value = now - req.arrival, .aux = req.arrival});
    drop_engine(replica, r, now);
    r.in_service.clear();
    r.queue.clear();
    fail_replica_contexts(spec_, r.place);
    r.cv->notify_all();  // an idle server wakes up and ends
  }

  void restart_replica(int replica) override {
    auto& r = *replicas_.at(static_cast<size_t>(replica));
    if (r.alive || r.place.gpus.empty()) return;
    for (size_t i = 0; i < r.place.gpus.size(); ++i) r.place.gpus[i]->restart_context(r.place.contexts[i]);
    if (!allocate_replica(ctx_, spec_, index_, replica, r.place)) return;
    r.alive = true;
    launch_server(static_cast<size_t>(replica));
  }

  void drain_replica(int replica) override { replicas_.at(static_cast<size_t>(replica))->draining = true; }

  bool replica_idle(int replica) const override {
    const auto& r = *replicas_.at(static_cast<size_t>(replica));
    return !r.alive || (r.queue.empty() && r.in_service.empty() && (!r.engine || r.engine->idle()));
  }

  bool move_replica(int replica, ReplicaPlacement place) override {
    auto& r = *replicas_.at(static_cast<size_t>(replica));
    if (r.alive) return false;
    r.place = std::move(place);
    r.draining = false;
    restart_replica(replica);
    return true;
  }

  void start() override {
    for (size_t i = 0; i < replicas_.size(); ++i) {
      auto& r = *replicas_[i];
      r.alive = allocate_replica(ctx_, spec_, index_, static_cast<int>(i), r.place);
      if (r.alive) launch_server(i);
    }
    sg4::Actor::create(spec_.name + "-arrivals",
                       replicas_.empty() ? sg4::Host::current() : replicas_[0]->place.gpus[0]->host(),
                       [this] { arrivals(); });
  }

  void finish(double now) override {
    for (size_t i = 0; i < replicas_.size(); ++i) {
      auto& r = *replicas_[i];
      for (const auto& req : r.queue)
        ctx_.emit(who(static_cast<int>(i), gpu_of(r)),
                  {.time = now, .type = EventType::REQUEST_DROPPED, .value = now - req.arrival, .aux = req.arrival});
      for (const auto& req : r.in_service)
        ctx_.emit(who(static_cast<int>(i), gpu_of(r)),
                  {.time = now, .type = EventType::REQUEST_DROPPED, .value = now - req.arrival, .aux = req.arrival});
      r.queue.clear();
      r.in_service.clear();
      drop_engine(static_cast<int>(i), r, now);
    }
  }

 private:
  struct Request {
    double arrival;
    int model = 0;  // which of the service's models (model swapping)
    int prompt_tokens = 0;
    int output_tokens = 0;
    int client = -1;   // another tenant's client workload (submit_query), -1: the service's own arrivals
    int priority = 1;  // continuous batching with batching.order priority: 0 urgent, 1 normal
    // Disaggregated serving: set by the prefill replica when the request moves to a decode replica.
    bool prefilled = false;
    double first_token = -1;
    double scheduled = -1;
  };
  struct Replica {
    ReplicaPlacement place;
    bool alive = false;
    bool draining = false;      // takes no new requests (a reconfiguration is coming)
    int generation = 0;         // bumped by each kill, so a server of a previous life ends
    std::vector<int> resident;  // models in memory, least recently used first (model swapping)
    std::deque<Request> queue;
    std::vector<Request> in_service;
    sg4::MutexPtr mutex;
    sg4::ConditionVariablePtr cv;
    // Continuous batching: the engine of the current life and the requests it holds, by id.
    std::unique_ptr<serving::ContinuousBatcher> engine;
    std::map<uint64_t, Request> held;
    uint64_t next_id = 0;
    double serving_since = 0;
    double kv_bytes_per_token = 0;  // per GPU (the KV a disaggregated hand-off moves)
    // A decode replica's runs of steps end when a hand-off is due (estimated at the link's bandwidth).
    int handoffs_pending = 0;
    double handoff_due = std::numeric_limits<double>::infinity();
  };

  static int gpu_of(const Replica& r) { return r.place.gpus.empty() ? -1 : r.place.gpus[0]->index(); }

  void launch_server(size_t i) {
    const int generation = replicas_[i]->generation;
    sg4::Actor::create(spec_.name + "-r" + std::to_string(i), replicas_[i]->place.gpus[0]->host(),
                       [this, i, generation] {
                         if (spec_.continuous()) {
                           serve_continuous(static_cast<int>(i), generation);
                         } else {
                           serve(static_cast<int>(i), generation);
                         }
                       });
  }

  Admission submit_query(int client) override {
    const double t = sg4::Engine::get_clock();
    const double limit = ctx_.spec.isolation.query_rate_limit.value;
    if (limit > 0) {
      auto it = buckets_.try_emplace(client, limit, 0.0, t).first;
      if (!it->second.take(t)) return Admission::RATE_LIMITED;
    }
    const int budget = ctx_.spec.isolation.query_budget;
    if (budget > 0 && answered_[client] >= budget) return Admission::BUDGET_SPENT;
    const int best = shortest_queue();
    if (best < 0) return Admission::REFUSED;
    auto& r = *replicas_[static_cast<size_t>(best)];
    if (static_cast<int>(r.queue.size()) >= spec_.max_queue) return Admission::REFUSED;
    std::unique_lock lock(*r.mutex);
    r.queue.push_back({t, 0, spec_.prompt_tokens, spec_.output_tokens, client});
    ctx_.emit(who(best, gpu_of(r)),
              {.time = t, .type = EventType::REQUEST_ARRIVAL, .value = static_cast<double>(r.queue.size())});
    r.cv->notify_all();
    ++answered_[client];
    return Admission::ADMITTED;
  }

  // Disaggregated serving: the first prefillReplicas replicas prefill, the others decode.
  enum class Role { ANY, PREFILL, DECODE };
  Role role_of(size_t i) const {
    const size_t prefill = static_cast<size_t>(spec_.continuous() ? spec_.serving.prefill_replicas : 0);
    if (prefill == 0) return Role::ANY;
    return i < prefill ? Role::PREFILL : Role::DECODE;
  }

  // Join-the-shortest-queue over the live replicas (ties: lowest index); -1 when none takes requests. New
  // requests go to the replicas that prefill (all of them unless serving is disaggregated).
  int shortest_queue(Role role = Role::PREFILL) const {
    int best = -1;
    size_t best_load = std::numeric_limits<size_t>::max();
    for (size_t i = 0; i < replicas_.size(); ++i) {
      const auto& r = *replicas_[i];
      if (role_of(i) != Role::ANY && role_of(i) != role) continue;
      if (!r.alive || r.draining) continue;
      const size_t load = r.queue.size() + r.in_service.size() + (r.engine ? r.engine->in_flight() : 0);
      if (load < best_load) {
        best = static_cast<int>(i);
        best_load = load;
      }
    }
    return best;
  }

  void arrivals() {
    ArrivalGenerator gen(spec_.arrival, make_stream(ctx_.spec.seed, "arrivals/" + spec_.name),
                         sg4::Engine::get_clock());
    auto model_stream = make_stream(ctx_.spec.seed, "models/" + spec_.name);
    auto priority_stream = make_stream(ctx_.spec.seed, "priorities/" + spec_.name);
    // The front end delays each request on its way to a replica; its latency counts from the client's send (t).
    const double front_end = spec_.io.front_end.value;
    for (;;) {
      const double t = gen.next();
      if (!(t < ctx_.arrivals_end)) {
        next_arrival_ = std::numeric_limits<double>::infinity();
        return;
      }
      const double at_replica = t + front_end;
      next_arrival_ = at_replica;  // continuous batching: a run of decode steps ends before it
      sg4::this_actor::sleep_until(at_replica);
      const int model =
          spec_.swap_models >= 2 ? static_cast<int>(model_stream.uniform() * spec_.swap_models) % spec_.swap_models : 0;
      const int best = shortest_queue();
      if (best < 0) {
        ctx_.emit(who(-1), {.time = at_replica, .type = EventType::REQUEST_DROPPED, .aux = t});
        continue;
      }
      auto& r = *replicas_[static_cast<size_t>(best)];
      if (static_cast<int>(r.queue.size()) >= spec_.max_queue) {
        ctx_.emit(who(best, gpu_of(r)), {.time = at_replica, .type = EventType::REQUEST_DROPPED, .aux = t});
        continue;
      }
      std::unique_lock lock(*r.mutex);
      const int priority =
          spec_.serving.priority_share > 0 && priority_stream.uniform() < spec_.serving.priority_share ? 0 : 1;
      r.queue.push_back(
          {t, model, gen.prompt_tokens(spec_.prompt_tokens), gen.output_tokens(spec_.output_tokens), -1, priority});
      ctx_.emit(who(best, gpu_of(r)),
                {.time = at_replica, .type = EventType::REQUEST_ARRIVAL, .value = static_cast<double>(r.queue.size())});
      r.cv->notify_all();
    }
  }

  void serve(int replica_index, int generation) {
    auto& r = *replicas_[static_cast<size_t>(replica_index)];
    GpuDevice& gpu = *r.place.gpus[0];
    const int context = r.place.contexts[0];
    const int max_batch = spec_.max_batch;
    // The replica loads its weights before serving; requests that arrive meanwhile queue.
    XBT_VERB("%s[%d] (generation %d) starts serving on GPU %d, batches of up to %d", spec_.name.c_str(), replica_index,
             generation, gpu.index(), max_batch);
    bring_up(spec_, r.place, spec_.model.weights().value, ctx_);
    r.resident.assign(1, 0);  // bring-up loaded the first model
    // Under CC every host-device transfer pays the bounce-buffer cost: the prompt in, then one token
    // out per decode step (the serving loop synchronises with the host every step).
    const auto* cc = gpu.confidential();
    std::unique_lock lock(*r.mutex);
    for (;;) {
      const auto live = [&] { return r.alive && r.generation == generation; };
      while (r.queue.empty() && live()) r.cv->wait(lock);
      if (!live()) return;  // a fault ended this replica
      // Dynamic batching: wait for a full batch, at most `timeout` after the oldest request arrived. A
      // batch holds requests of one model: the oldest request's.
      // The timeout runs from the request's arrival at the replica (after the front end).
      const double deadline = r.queue.front().arrival + spec_.io.front_end.value + spec_.batch_timeout.value;
      const int model = r.queue.front().model;
      const auto same_model = [&] {
        // One model: every queued request counts (no scan of a long queue at every arrival).
        if (spec_.swap_models < 2) return static_cast<int>(r.queue.size());
        int n = 0;
        for (const auto& q : r.queue) n += q.model == model;
        return n;
      };
      while (same_model() < max_batch && sg4::Engine::get_clock() < deadline && live()) {
        r.cv->wait_until(lock, deadline);
      }
      if (!live()) return;
      if (r.queue.empty()) continue;
      r.in_service.clear();
      for (auto it = r.queue.begin(); it != r.queue.end() && static_cast<int>(r.in_service.size()) < max_batch;) {
        if (it->model == model) {
          r.in_service.push_back(*it);
          it = r.queue.erase(it);
        } else {
          ++it;
        }
      }
      const int batch = static_cast<int>(r.in_service.size());
      lock.unlock();
      // Model swapping: load the batch's model if it is not in memory (evicting the least recently used).
      if (spec_.swap_models >= 2) {
        auto hit = std::find(r.resident.begin(), r.resident.end(), model);
        if (hit != r.resident.end()) {
          r.resident.erase(hit);
        } else {
          if (static_cast<int>(r.resident.size()) >= spec_.resident_models) r.resident.erase(r.resident.begin());
          const double load_start = sg4::Engine::get_clock();
          host_to_device(spec_, r.place, 0, spec_.model.weights().value, ctx_);
          ctx_.emit(who(replica_index, gpu.index()), {.time = sg4::Engine::get_clock(),
                                                      .type = EventType::MODEL_LOAD,
                                                      .value = spec_.model.weights().value,
                                                      .aux = load_start});
          if (!live()) return;  // killed while loading: kill_replica recorded the batch
        }
        r.resident.push_back(model);
      }

      const double started = sg4::Engine::get_clock();
      ctx_.emit(who(replica_index, gpu.index()),
                {.time = started, .type = EventType::BATCH_START, .value = static_cast<double>(batch)});
      double prompt_tokens = 0, output_tokens = 0;
      int decode_steps = 0;
      for (const auto& req : r.in_service) {
        prompt_tokens += req.prompt_tokens;
        output_tokens += req.output_tokens;
        decode_steps = std::max(decode_steps, req.output_tokens);
      }
      const auto cost = inference_batch_cost(spec_, gpu.profile(), prompt_tokens, output_tokens, decode_steps);
      const double cc_per_batch = cc ? (1.0 + decode_steps) * cc->transfer_latency.value : 0.0;
      // Requests in and responses out over the front-end network (io.requestBytes / responseBytes).
      const auto mover = storage::mover_of(ctx_, index_, replica_index);
      storage::frontend_transfer(ctx_, mover, &gpu, spec_.io.request_bytes.value * batch, true);
      try {
        // A model with layers runs its prefill layer by layer (each reads its weights, then computes):
        // the layer structure the modelExtraction attack recovers from contention timing.
        const int layers = std::max(1, spec_.model.layers);
        for (int l = 0; l < layers; ++l) gpu.run(context, cost.prefill_flops / layers, cost.prefill_bytes / layers);
        gpu.run(context, cost.decode_flops, cost.decode_bytes);
        if (cc_per_batch > 0) sg4::this_actor::sleep_for(cc_per_batch);
      } catch (const KernelAborted&) {
        return;  // kill_replica already recorded the batch as dropped
      }
      storage::frontend_transfer(ctx_, mover, &gpu, spec_.io.response_bytes.value * batch, false);
      const double done = sg4::Engine::get_clock();
      for (const auto& req : r.in_service) {
        ctx_.emit(who(replica_index, gpu.index()), {.time = done,
                                                    .type = EventType::REQUEST_DONE,
                                                    .value = done - req.arrival,
                                                    .aux = started - req.arrival - spec_.io.front_end.value});
        // The answer reaches the querying client (a queryExtraction attacker): one observation for it.
        if (req.client >= 0)
          ctx_.emit({.time = done,
                     .type = EventType::ATTACK_OBSERVATION,
                     .tenant = ctx_.spec.workloads[static_cast<size_t>(req.client)].tenant_index,
                     .workload = req.client,
                     .replica = 0,
                     .gpu = gpu.index(),
                     .value = done - req.arrival,
                     .aux = 1});
      }
      ctx_.emit(who(replica_index, gpu.index()),
                {.time = done, .type = EventType::BATCH_DONE, .value = done - started});
      lock.lock();
      r.in_service.clear();
    }
  }

  // ---- continuous batching (docs/models/serving.md) ----

  // The end of an engine's life: its requests are dropped (recorded now) and its statistics kept.
  void drop_engine(int replica, Replica& r, double now) {
    if (!r.engine) return;
    for (const auto& q : r.engine->drain())
      ctx_.emit(who(replica, gpu_of(r)),
                {.time = now, .type = EventType::REQUEST_DROPPED, .value = now - q.arrival, .aux = q.arrival});
    record_engine(replica, r, now);
    r.engine.reset();
    r.held.clear();
  }

  void record_engine(int replica, const Replica& r, double now) {
    if (!ctx_.serving || !r.engine) return;
    const auto& st = r.engine->stats();
    ctx_.serving->push_back({.workload = index_,
                             .replica = replica,
                             .gpu = gpu_of(r),
                             .start = r.serving_since,
                             .end = now,
                             .kv_blocks = r.engine->config().kv_blocks,
                             .peak_blocks = st.peak_blocks,
                             .block_seconds = st.block_seconds,
                             .steps = st.steps,
                             .plans = st.plans,
                             .prefill_tokens = st.prefill_tokens,
                             .generated_tokens = st.generated_tokens,
                             .preemptions = st.preemptions,
                             .swapped_bytes = st.swapped_bytes,
                             .busy_seconds = st.busy_seconds});
  }

  // Moves the replica's queue into its engine (ids in arrival order); a request longer than the whole KV
  // cache can never run and is dropped (a server refuses it).
  void admit_queued(int replica, Replica& r) {
    auto& engine = *r.engine;
    while (!r.queue.empty()) {
      const Request q = r.queue.front();
      r.queue.pop_front();
      const long long tokens = static_cast<long long>(q.prompt_tokens) + std::max(1, q.output_tokens) - 1;
      if (engine.blocks_for(tokens) > engine.config().kv_blocks) {
        const double now = sg4::Engine::get_clock();
        ctx_.emit(who(replica, gpu_of(r)),
                  {.time = now, .type = EventType::REQUEST_DROPPED, .value = now - q.arrival, .aux = q.arrival});
        continue;
      }
      const uint64_t id = r.next_id++;
      if (q.prefilled) {
        engine.enqueue_prefilled({id, q.arrival, q.prompt_tokens, q.output_tokens, q.priority});
      } else {
        // A prefill replica of a disaggregated service stops at the first token.
        const bool prefill_only = role_of(static_cast<size_t>(replica)) == Role::PREFILL;
        engine.enqueue({id, q.arrival, q.prompt_tokens, prefill_only ? 1 : std::max(1, q.output_tokens), q.priority});
      }
      r.held.emplace(id, q);
    }
  }

  // Runs one plan on the replica's GPUs: swap traffic over PCIe, then each pipeline stage's kernels on its
  // tensor-parallel GPUs and the stage's all-reduces over the node's GPU links. The FLOPs are scaled to
  // the FP16 rate the GPU model computes at (FP8 GEMMs run twice as fast).
  void run_plan(Replica& r, const serving::StepPlan& plan, const ModelArchitecture& arch, const ServingConfig& cfg) {
    const auto& place = r.place;
    GpuDevice& first = *place.gpus[0];
    const double swap = plan.swap_in_bytes + plan.swap_out_bytes;
    if (swap > 0)
      for (size_t g = 0; g < place.gpus.size(); ++g) host_to_device(spec_, place, g, swap, ctx_);
    const StepCost cost = step_cost(arch, first.profile(), cfg, plan.batch);
    const double scale =
        first.profile().achievable_rate(DType::FP16).value / first.profile().achievable_rate(cfg.weights).value;
    const double steps = plan.steps;
    const size_t tp = static_cast<size_t>(cfg.tp);
    const double tokens = plan.batch.decode_tokens + plan.batch.prefill_tokens;
    // Attention runs at the 16-bit rate whatever the weights' precision (ServingStep). The memory-bound
    // kernels ride in the attention kernel: adding their bytes to its bytes and the FLOPs the 16-bit rate
    // does in the same time to its FLOPs adds exactly their time to its roofline, with one launch.
    const double elementwise_flops = cost.elementwise_bytes * first.profile().achievable_rate(DType::FP16).value /
                                     first.profile().hbm_achievable.value;
    for (size_t stage = 0; stage * tp < place.gpus.size(); ++stage) {
      // The GEMMs, then attention: kernels that follow each other, as ServingStep sums their rooflines.
      for (const auto& [flops, bytes] :
           {std::pair{cost.gemm_flops * scale, cost.gemm_bytes},
            std::pair{cost.attention_flops + elementwise_flops, cost.attention_bytes + cost.elementwise_bytes}}) {
        std::vector<KernelPtr> kernels;
        for (size_t g = stage * tp; g < (stage + 1) * tp; ++g)
          kernels.push_back(place.gpus[g]->launch(place.contexts[g], steps * flops, steps * bytes));
        for (size_t k = 0; k < kernels.size(); ++k) place.gpus[stage * tp + k]->wait(kernels[k]);
      }
      if (tp > 1 && tokens > 0) {
        // Two ring all-reduces per layer of the stage, as one transfer per link for the whole plan (the
        // bandwidth term on the modelled links) plus what NCCL's ring model adds to it per all-reduce
        // (latencies, protocol overhead: ServingStep's all_reduce_latency at the profile's NVLink bandwidth).
        const double layers = static_cast<double>(arch.layers) / cfg.pp;
        const double buffer = tokens * arch.hidden_size * 2.0;
        const double ring = steps * 2.0 * layers * 2.0 * (tp - 1) / tp * buffer;
        std::vector<sg4::CommPtr> comms;
        for (size_t g = 0; g < tp; ++g)
          comms.push_back(sg4::Comm::sendto_async(place.gpus[stage * tp + g]->host(),
                                                  place.gpus[stage * tp + (g + 1) % tp]->host(),
                                                  static_cast<uint64_t>(ring)));
        fabric::wait_all(comms);
        ctx_.counters.transfers += comms.size();
        sg4::this_actor::sleep_for(steps * 2.0 * layers *
                                   all_reduce_latency(buffer, cfg.tp, first.profile().peer_achievable(cfg.tp)));
      }
    }
    // Host time proportional to the GPU's (ServingConfig::gpu_time_share; 1 by default: none), at the
    // roofline estimate of the plan.
    if (cfg.gpu_time_share < 1)
      sg4::this_actor::sleep_for(steps * cost.total_s * (1 - std::max(cfg.gpu_time_share, 1e-3)));
    // The engine's host time per step (batching.engine; scheduling, sampling, launches): the GPU idles.
    if (spec_.serving.step_overhead_s > 0) sg4::this_actor::sleep_for(steps * spec_.serving.step_overhead_s);
    // Under CC the server synchronises with the host every step through the bounce buffers.
    if (const auto* cc = first.confidential()) sg4::this_actor::sleep_for(steps * cc->transfer_latency.value);
  }

  void emit_completion(int replica, Replica& r, const serving::Completion& c) {
    const auto it = r.held.find(c.request.id);
    Request q = it->second;
    r.held.erase(it);
    if (role_of(static_cast<size_t>(replica)) == Role::PREFILL && q.output_tokens > 1) {
      q.first_token = c.first_token;
      q.scheduled = c.scheduled;
      hand_off(replica, q);
      return;
    }
    const int gpu = gpu_of(r);
    const double first = q.first_token >= 0 ? q.first_token : c.first_token;
    const double scheduled = q.scheduled >= 0 ? q.scheduled : c.scheduled;
    const double tpot = q.output_tokens > 1 ? (c.done - first) / (q.output_tokens - 1) : 0;
    ctx_.emit(who(replica, gpu), {.time = c.done,
                                  .type = EventType::REQUEST_DONE,
                                  .value = c.done - q.arrival,
                                  .aux = scheduled - q.arrival - spec_.io.front_end.value});
    ctx_.emit(who(replica, gpu),
              {.time = c.done, .type = EventType::REQUEST_TOKENS, .value = first - q.arrival, .aux = tpot});
    if (q.client >= 0)
      ctx_.emit({.time = c.done,
                 .type = EventType::ATTACK_OBSERVATION,
                 .tenant = ctx_.spec.workloads[static_cast<size_t>(q.client)].tenant_index,
                 .workload = q.client,
                 .replica = 0,
                 .gpu = gpu,
                 .value = c.done - q.arrival,
                 .aux = 1});
  }

  // Disaggregated serving: the prompt's KV moves from the prefill replica's GPUs to those of the decode
  // replica with the fewest requests (GPU g to GPU g of the groups; NVLink inside a node, staged over the
  // fabric between nodes), then the request joins that replica's queue. One short actor per hand-off, so
  // the prefill replica's steps go on meanwhile.
  void hand_off(int from, Request q) {
    auto& src = *replicas_[static_cast<size_t>(from)];
    const double bytes = static_cast<double>(q.prompt_tokens) * src.kv_bytes_per_token;
    std::vector<GpuDevice*> gpus = src.place.gpus;
    sg4::Actor::create(spec_.name + "-kv", gpus[0]->host(), [this, from, q, bytes, gpus] {
      Request moved = q;
      moved.prefilled = true;
      const int to = shortest_queue(Role::DECODE);
      const auto drop = [&](int replica, int gpu) {
        const double now = sg4::Engine::get_clock();
        ctx_.emit(who(replica, gpu),
                  {.time = now, .type = EventType::REQUEST_DROPPED, .value = now - q.arrival, .aux = q.arrival});
      };
      if (to < 0) return drop(from, gpus[0]->index());
      auto& dst = *replicas_[static_cast<size_t>(to)];
      const bool same_node = gpus[0]->node() == dst.place.gpus[0]->node();
      const auto& profile = gpus[0]->profile();
      const double link = same_node ? profile.peer_achievable() : profile.pcie_h2d_achievable.value;
      ++dst.handoffs_pending;
      dst.handoff_due = std::min(dst.handoff_due, sg4::Engine::get_clock() + (link > 0 ? bytes / link : 0));
      const auto landed = [&dst] {
        if (--dst.handoffs_pending == 0) dst.handoff_due = std::numeric_limits<double>::infinity();
      };
      std::vector<std::pair<GpuDevice*, GpuDevice*>> pairs;
      for (size_t g = 0; g < gpus.size() && g < dst.place.gpus.size(); ++g)
        pairs.emplace_back(gpus[g], dst.place.gpus[g]);
      storage::transfer_between_gpus(ctx_, storage::mover_of(ctx_, index_, from), -1, pairs, bytes);
      landed();
      if (!dst.alive || dst.draining) return drop(to, gpu_of(dst));
      std::unique_lock lock(*dst.mutex);
      dst.queue.push_back(moved);
      dst.cv->notify_all();
    });
  }

  void serve_continuous(int replica_index, int generation) {
    auto& r = *replicas_[static_cast<size_t>(replica_index)];
    const ModelArchitecture arch = serving::architecture_of(spec_.model, spec_.name);
    ServingConfig cfg = serving::step_config(spec_);
    // The KV cache is what the reservation leaves after the weight shard and the workspace.
    const double reserved = replica_memory(spec_, *r.place.gpus[0]);
    ServingConfig sizing = cfg;
    sizing.gpu_memory_utilization = 1.0;
    const KvCapacity kv = kv_capacity(arch, reserved, sizing);
    bring_up(spec_, r.place, kv.weights_per_gpu, ctx_);
    if (!(r.alive && r.generation == generation)) return;
    r.engine = std::make_unique<serving::ContinuousBatcher>(serving::batcher_config(spec_, kv, cfg.block_size));
    r.kv_bytes_per_token = kv.kv_bytes_per_token_per_gpu;
    r.serving_since = sg4::Engine::get_clock();
    XBT_VERB("%s[%d] (generation %d) serves with continuous batching on %zu GPU(s): %lld KV blocks of %d tokens",
             spec_.name.c_str(), replica_index, generation, r.place.gpus.size(), kv.blocks, cfg.block_size);
    const auto live = [&] { return r.alive && r.generation == generation; };
    std::unique_lock lock(*r.mutex);
    for (;;) {
      while (r.queue.empty() && r.engine->idle() && live()) r.cv->wait(lock);
      if (!live()) return;  // a fault ended this replica (kill_replica dropped the engine)
      admit_queued(replica_index, r);
      auto& engine = *r.engine;
      const double start = sg4::Engine::get_clock();
      serving::StepPlan plan = engine.plan(start, std::numeric_limits<int>::max());
      if (plan.steps == 0) {
        r.cv->wait(lock);  // nothing fits yet: wait for a change
        continue;
      }
      // A run of decode steps ends at the service's next arrival (estimated at the roofline alone).
      // An arrival due now (its actor has not run yet at this instant) ends the run after one step.
      if (plan.steps > 1) {
        const double per_step =
            step_cost(arch, r.place.gpus[0]->profile(), cfg, plan.batch).total_s + spec_.serving.step_overhead_s;
        const double due = role_of(static_cast<size_t>(replica_index)) == Role::DECODE
                               ? r.handoff_due
                               : std::min(next_arrival_, r.handoff_due);
        const double until = std::max(0.0, due - start);
        if (per_step > 0 && plan.steps * per_step > until)
          engine.shorten(plan, static_cast<int>(std::floor(until / per_step)) + 1);
      }
      if (plan.preempted > 0)
        ctx_.emit(who(replica_index, gpu_of(r)),
                  {.time = start, .type = EventType::REQUEST_PREEMPTED, .value = static_cast<double>(plan.preempted)});
      lock.unlock();
      try {
        run_plan(r, plan, arch, cfg);
      } catch (const KernelAborted&) {
        return;  // kill_replica already dropped what the engine held
      }
      lock.lock();
      if (!live()) return;
      const double end = sg4::Engine::get_clock();
      for (const auto& c : r.engine->complete(plan, start, end)) emit_completion(replica_index, r, c);
    }
  }

  SimContext& ctx_;
  int index_;
  const WorkloadSpec& spec_;
  // The subject of this workload's events: one of its replicas, on a GPU (-1: none).
  Subject who(int replica, int gpu = -1) const { return {spec_.tenant_index, index_, replica, gpu}; }
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::map<int, TokenBucket> buckets_;  // per client workload (queryRateLimit)
  std::map<int, int> answered_;         // per client workload: queries admitted (queryBudget)
  double next_arrival_ = 0;             // the service's next own arrival (continuous batching's run horizon)
};

// ---------------------------------------------------------------- training

class TrainingJob final : public Workload {
 public:
  TrainingJob(SimContext& ctx, int index, ReplicaPlacement place)
      : ctx_(ctx), index_(index), spec_(ctx.spec.workloads[static_cast<size_t>(index)]), place_(std::move(place)) {}

  const ReplicaPlacement* placement(int replica) const override { return replica == 0 ? &place_ : nullptr; }

  void kill_replica(int, FailureReason reason) override {
    if (!running_) return;
    running_ = false;
    killed_ = true;
    ctx_.emit(who(0, place_.gpus[0]->index()), {.time = sg4::Engine::get_clock(),
                                                .type = EventType::WORKLOAD_FAILED,
                                                .value = static_cast<double>(steps_done_),
                                                .aux = static_cast<double>(reason)});
    fail_replica_contexts(spec_, place_);
  }

  void restart_replica(int) override {}  // a failed job is resubmitted by its owner, not modelled here
  void drain_replica(int) override {}    // a job's steps run to its end: a drain only waits for it
  bool replica_idle(int) const override { return !running_; }
  bool move_replica(int, ReplicaPlacement) override { return false; }

  void start() override {
    submitted_ = sg4::Engine::get_clock();
    ctx_.emit(who(0, place_.gpus[0]->index()), {.time = submitted_, .type = EventType::JOB_SUBMIT});
    if (!allocate_replica(ctx_, spec_, index_, 0, place_)) return;
    running_ = true;
    sg4::Actor::create(spec_.name + "-job", place_.gpus[0]->host(), [this] { run(); });
  }

  void finish(double now) override {
    if (running_) {
      // Unfinished at the end of the run: its completion time is at least this.
      ctx_.emit(who(0, place_.gpus[0]->index()), {.time = now,
                                                  .type = EventType::WORKLOAD_FAILED,
                                                  .value = static_cast<double>(steps_done_),
                                                  .aux = static_cast<double>(FailureReason::UNFINISHED)});
      running_ = false;
    }
  }

 private:
  void run() {
    try {
      run_steps();
    } catch (const KernelAborted&) {
      // kill_replica recorded the failure
    }
  }

  void run_steps() {
    const auto& profile = place_.gpus[0]->profile();
    const RuntimeModel& runtime = replica_runtime(spec_, place_);
    sg4::this_actor::sleep_for(runtime.startup_s);
    // Alone, in the same runtime: its start-up plus each step's input copy at the runtime's I/O cost.
    const double data_extra = spec_.data_per_step.value > 0
                                  ? runtime.transfer_overhead_s + spec_.data_per_step.value /
                                                                      profile.pcie_h2d_achievable.value *
                                                                      (1.0 / runtime.io_efficiency - 1.0)
                                  : 0.0;
    const size_t n = place_.gpus.size();
    // Storage and fabric I/O (models/storage): dataset reads, checkpoints, all-reduce between nodes.
    const auto mover = storage::mover_of(ctx_, index_, 0);
    const int dataset = storage::data_index(ctx_.spec, spec_.io.dataset);
    const bool dataset_on_storage =
        dataset >= 0 && (ctx_.spec.data[static_cast<size_t>(dataset)].store != HOST_MEMORY_STORE ||
                         ctx_.spec.data[static_cast<size_t>(dataset)].socket >= 0);  // pinned to a socket
    const int checkpoint = storage::data_index(ctx_.spec, spec_.io.checkpoint);
    const int nodes = std::max(1, spec_.nodes);
    const double io_extra =
        storage::ideal_step_io_seconds(ctx_, mover, spec_, dataset_on_storage ? dataset : -1, checkpoint, place_.gpus);
    // A dataset on a store is timed by io_extra (its reads go store to GPU), not as a host-memory copy.
    const double ideal = runtime.startup_s +
                         spec_.iterations * (training_step_ideal(spec_, profile, !dataset_on_storage) + data_extra) +
                         io_extra;
    ctx_.emit(who(0, place_.gpus[0]->index()),
              {.time = sg4::Engine::get_clock(), .type = EventType::JOB_START, .aux = ideal});
    const double ring_bytes = spec_.gpus > 1 ? 2.0 * (spec_.gpus - 1) / spec_.gpus * spec_.gradient_bytes.value : 0;
    for (int step = 0; step < spec_.iterations; ++step) {
      const double step_start = sg4::Engine::get_clock();
      // 1. Input batch from host memory to every GPU, over each GPU's PCIe link.
      if (spec_.data_per_step.value > 0 && place_.gpus[0]->confidential()) {
        for (size_t g = 0; g < n; ++g) host_to_device(spec_, place_, g, spec_.data_per_step.value, ctx_);
      } else if (spec_.data_per_step.value > 0 && dataset_on_storage) {
        // From the dataset's store (shared file system, object store or local NVMe), tagged.
        if (runtime.transfer_overhead_s > 0) sg4::this_actor::sleep_for(runtime.transfer_overhead_s);
        storage::read_to_gpus(ctx_, mover, dataset, place_.gpus, spec_.data_per_step.value / runtime.io_efficiency);
        ctx_.counters.transfers += n;
      } else if (spec_.data_per_step.value > 0 && place_.node_cpu) {
        if (runtime.transfer_overhead_s > 0) sg4::this_actor::sleep_for(runtime.transfer_overhead_s);
        std::vector<sg4::CommPtr> loads;
        // Each GPU from its own node's host memory (a job may span nodes).
        for (auto* gpu : place_.gpus)
          loads.push_back(sg4::Comm::sendto_async(
              ctx_.platform ? ctx_.platform->node(gpu->node()).cpu : place_.node_cpu, gpu->host(),
              static_cast<uint64_t>(spec_.data_per_step.value / runtime.io_efficiency)));
        fabric::wait_all(loads);
        ctx_.counters.transfers += loads.size();
      }
      // 2. Forward and backward on every GPU, in parallel.
      std::vector<KernelPtr> kernels;
      for (size_t g = 0; g < n; ++g)
        kernels.push_back(place_.gpus[g]->launch(place_.contexts[g], spec_.step.flops.value, spec_.step.bytes.value,
                                                 spec_.step.grid_sms(place_.gpus[g]->profile().sms)));
      for (size_t g = 0; g < n; ++g) place_.gpus[g]->wait(kernels[g]);
      if (killed_) return;
      // 3. Ring all-reduce of the gradients over NVLink: each GPU sends 2(n-1)/n of them to its
      //    ring successor (bandwidth term; per-hop latency is negligible at these sizes).
      if (nodes > 1 && spec_.gradient_bytes.value > 0) {
        hierarchical_allreduce(mover, dataset, nodes);
      } else if (ring_bytes > 0) {
        std::vector<sg4::CommPtr> ring;
        for (size_t g = 0; g < n; ++g)
          ring.push_back(sg4::Comm::sendto_async(place_.gpus[g]->host(), place_.gpus[(g + 1) % n]->host(),
                                                 static_cast<uint64_t>(ring_bytes)));
        fabric::wait_all(ring);
        ctx_.counters.transfers += ring.size();
      }
      // 4. Checkpoint: every GPU writes its shard to the checkpoint's store (synchronous).
      if (checkpoint >= 0 && spec_.io.checkpoint_every > 0 && (step + 1) % spec_.io.checkpoint_every == 0)
        storage::write_from_gpus(ctx_, mover, checkpoint, place_.gpus, spec_.io.checkpoint_bytes.value);
      ++steps_done_;
      const double now = sg4::Engine::get_clock();
      ctx_.emit(who(step, place_.gpus[0]->index()),
                {.time = now, .type = EventType::STEP_DONE, .value = now - step_start});
    }
    const double now = sg4::Engine::get_clock();
    running_ = false;
    for (size_t g = 0; g < place_.gpus.size(); ++g)
      place_.gpus[g]->release_for(workload_memory(spec_), place_.contexts[g]);
    ctx_.emit(who(0, place_.gpus[0]->index()),
              {.time = now, .type = EventType::JOB_DONE, .value = now - submitted_, .aux = ideal});
  }

  // All-reduce of a job spanning nodes (NCCL-style hierarchical ring): reduce-scatter inside each node
  // over NVLink, all-reduce of each GPU's shard with the same-rank GPU of the other nodes over the
  // fabric (rail-aligned), all-gather inside each node.
  void hierarchical_allreduce(const storage::Mover& mover, int tag, int nodes) {
    std::map<int, std::vector<GpuDevice*>> by_node;
    for (auto* g : place_.gpus) by_node[g->node()].push_back(g);
    std::vector<std::vector<GpuDevice*>> groups;
    for (auto& [node, gpus] : by_node) groups.push_back(gpus);
    const size_t m = groups[0].size();
    const double grad = spec_.gradient_bytes.value;
    const auto intra = [&](double bytes) {
      if (m < 2 || bytes <= 0) return;
      std::vector<sg4::CommPtr> ring;
      for (const auto& grp : groups)
        for (size_t g = 0; g < grp.size(); ++g)
          ring.push_back(
              sg4::Comm::sendto_async(grp[g]->host(), grp[(g + 1) % grp.size()]->host(), static_cast<uint64_t>(bytes)));
      fabric::wait_all(ring);
      ctx_.counters.transfers += ring.size();
    };
    intra(grad * static_cast<double>(m - 1) / static_cast<double>(m));
    std::vector<std::pair<GpuDevice*, GpuDevice*>> pairs;
    for (size_t k = 0; k < groups.size(); ++k)
      for (size_t r = 0; r < std::min(m, groups[(k + 1) % groups.size()].size()); ++r)
        pairs.emplace_back(groups[k][r], groups[(k + 1) % groups.size()][r]);
    const double inter = 2.0 * (nodes - 1) / nodes * grad / static_cast<double>(m);
    storage::transfer_between_gpus(ctx_, mover, tag, pairs, inter);
    ctx_.counters.transfers += pairs.size();
    intra(grad * static_cast<double>(m - 1) / static_cast<double>(m));
  }

  SimContext& ctx_;
  int index_;
  const WorkloadSpec& spec_;
  // The subject of this workload's events: one of its replicas, on a GPU (-1: none).
  Subject who(int replica, int gpu = -1) const { return {spec_.tenant_index, index_, replica, gpu}; }
  ReplicaPlacement place_;
  double submitted_ = 0;
  bool running_ = false;
  bool killed_ = false;
  int steps_done_ = 0;
};

// ---------------------------------------------------------------- batch

class BatchWorkload final : public Workload {
 public:
  BatchWorkload(SimContext& ctx, int index, std::vector<ReplicaPlacement> places)
      : ctx_(ctx),
        index_(index),
        spec_(ctx.spec.workloads[static_cast<size_t>(index)]),
        places_(std::move(places)),
        workers_(places_.size()),
        mutex_(sg4::Mutex::create()),
        cv_(sg4::ConditionVariable::create()) {}

  void start() override {
    for (size_t i = 0; i < places_.size(); ++i) {
      if (!allocate_replica(ctx_, spec_, index_, static_cast<int>(i), places_[i])) continue;
      workers_[i].alive = true;
      launch_worker(i);
    }
    sg4::Actor::create(spec_.name + "-arrivals", places_.empty() ? sg4::Host::current() : places_[0].gpus[0]->host(),
                       [this] { arrivals(); });
  }

  void finish(double now) override {
    for (const auto& job : queue_)
      ctx_.emit(who(job.id), {.time = now,
                              .type = EventType::WORKLOAD_FAILED,
                              .value = now - job.submitted,
                              .aux = static_cast<double>(FailureReason::UNFINISHED)});
    for (auto& w : workers_) {
      if (w.running)
        ctx_.emit(who(w.running->id), {.time = now,
                                       .type = EventType::WORKLOAD_FAILED,
                                       .value = now - w.running->submitted,
                                       .aux = static_cast<double>(FailureReason::UNFINISHED)});
      w.running.reset();
    }
    queue_.clear();
  }

  const ReplicaPlacement* placement(int replica) const override {
    return replica >= 0 && replica < static_cast<int>(places_.size()) ? &places_[static_cast<size_t>(replica)]
                                                                      : nullptr;
  }

  void kill_replica(int replica, FailureReason reason) override {
    auto& w = workers_.at(static_cast<size_t>(replica));
    if (!w.alive) return;
    const double now = sg4::Engine::get_clock();
    const int gpu = places_[static_cast<size_t>(replica)].gpus[0]->index();
    w.alive = false;
    w.draining = false;
    ++w.generation;
    ctx_.emit(who(replica, gpu), {.time = now, .type = EventType::WORKLOAD_FAILED, .aux = static_cast<double>(reason)});
    if (w.running) {
      // The job it was running is lost (gpu -1: a job, not a worker slot).
      ctx_.emit(who(w.running->id), {.time = now,
                                     .type = EventType::WORKLOAD_FAILED,
                                     .value = now - w.running->submitted,
                                     .aux = static_cast<double>(reason)});
      w.running.reset();
    }
    fail_replica_contexts(spec_, places_[static_cast<size_t>(replica)]);
    cv_->notify_all();
  }

  void restart_replica(int replica) override {
    auto& w = workers_.at(static_cast<size_t>(replica));
    auto& place = places_[static_cast<size_t>(replica)];
    if (w.alive || place.gpus.empty()) return;
    for (size_t i = 0; i < place.gpus.size(); ++i) place.gpus[i]->restart_context(place.contexts[i]);
    if (!allocate_replica(ctx_, spec_, index_, replica, place)) return;
    w.alive = true;
    launch_worker(static_cast<size_t>(replica));
  }

  void drain_replica(int replica) override { workers_.at(static_cast<size_t>(replica)).draining = true; }

  bool replica_idle(int replica) const override { return !workers_.at(static_cast<size_t>(replica)).running; }

  bool move_replica(int replica, ReplicaPlacement place) override {
    auto& w = workers_.at(static_cast<size_t>(replica));
    if (w.alive) return false;
    places_[static_cast<size_t>(replica)] = std::move(place);
    restart_replica(replica);
    return true;
  }

 private:
  struct Job {
    int id;
    double submitted;
  };
  struct Worker {
    bool alive = false;
    bool draining = false;  // takes no new jobs (a reconfiguration is coming)
    int generation = 0;
    std::optional<Job> running;
  };

  bool any_worker_alive() const {
    for (const auto& w : workers_)
      if (w.alive) return true;
    return false;
  }

  void launch_worker(size_t i) {
    const int generation = workers_[i].generation;
    sg4::Actor::create(spec_.name + "-w" + std::to_string(i), places_[i].gpus[0]->host(),
                       [this, i, generation] { work(static_cast<int>(i), generation); });
  }

  void arrivals() {
    ArrivalGenerator gen(spec_.arrival, make_stream(ctx_.spec.seed, "arrivals/" + spec_.name),
                         sg4::Engine::get_clock());
    int next_id = 0;
    bool ever_alive = any_worker_alive();
    for (;;) {
      const double t = gen.next();
      if (!(t < ctx_.arrivals_end)) return;
      sg4::this_actor::sleep_until(t);
      const int id = next_id++;
      ctx_.emit(
          {.time = t, .type = EventType::JOB_SUBMIT, .tenant = spec_.tenant_index, .workload = index_, .replica = id});
      if (!ever_alive) {
        // No worker could ever start (out of memory at placement): the job cannot run.
        ctx_.emit(
            who(id),
            {.time = t, .type = EventType::WORKLOAD_FAILED, .aux = static_cast<double>(FailureReason::OUT_OF_MEMORY)});
        continue;
      }
      std::unique_lock lock(*mutex_);
      queue_.push_back({id, t});
      cv_->notify_all();
    }
  }

  void work(int worker, int generation) {
    auto& place = places_[static_cast<size_t>(worker)];
    auto& me = workers_[static_cast<size_t>(worker)];
    GpuDevice& gpu = *place.gpus[0];
    const double ideal = spec_.kernels_per_job * kernel_time(spec_.kernel, gpu.profile()).value;
    const auto live = [&] { return me.alive && me.generation == generation; };
    sg4::this_actor::sleep_for(replica_runtime(spec_, place).startup_s);  // the worker's process starts
    std::unique_lock lock(*mutex_);
    for (;;) {
      while ((queue_.empty() || me.draining) && live()) cv_->wait(lock);
      if (!live()) return;
      const Job job = queue_.front();
      queue_.pop_front();
      me.running = job;
      lock.unlock();
      ctx_.emit(who(job.id, gpu.index()),
                {.time = sg4::Engine::get_clock(), .type = EventType::JOB_START, .aux = ideal});
      try {
        for (int k = 0; k < spec_.kernels_per_job; ++k)
          gpu.run(place.contexts[0], spec_.kernel.flops.value, spec_.kernel.bytes.value,
                  spec_.kernel.grid_sms(gpu.profile().sms));
      } catch (const KernelAborted&) {
        return;  // kill_replica recorded the job as failed
      }
      const double now = sg4::Engine::get_clock();
      ctx_.emit(who(job.id, gpu.index()),
                {.time = now, .type = EventType::JOB_DONE, .value = now - job.submitted, .aux = ideal});
      lock.lock();
      me.running.reset();
    }
  }

  SimContext& ctx_;
  int index_;
  const WorkloadSpec& spec_;
  // The subject of this workload's events: one of its replicas, on a GPU (-1: none).
  Subject who(int replica, int gpu = -1) const { return {spec_.tenant_index, index_, replica, gpu}; }
  std::vector<ReplicaPlacement> places_;
  std::vector<Worker> workers_;
  sg4::MutexPtr mutex_;
  sg4::ConditionVariablePtr cv_;
  std::deque<Job> queue_;
};

}  // namespace

std::unique_ptr<Workload> make_workload(SimContext& ctx, int workload_index, std::vector<ReplicaPlacement> replicas) {
  const auto& spec = ctx.spec.workloads[static_cast<size_t>(workload_index)];
  switch (spec.kind) {
    case WorkloadKind::INFERENCE:
      return std::make_unique<InferenceService>(ctx, workload_index, std::move(replicas));
    case WorkloadKind::TRAINING:
      return std::make_unique<TrainingJob>(ctx, workload_index, std::move(replicas.at(0)));
    case WorkloadKind::BATCH:
      return std::make_unique<BatchWorkload>(ctx, workload_index, std::move(replicas));
    case WorkloadKind::ATTACK:
      return nullptr;  // attacks need the cluster around them: the engine builds them with make_attack
  }
  return nullptr;
}

}  // namespace gtw
