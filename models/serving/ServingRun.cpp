#include "ServingRun.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gtw::serving {

BatcherConfig batcher_for(const EngineSetup& setup) {
  BatcherConfig b = setup.batcher;
  const KvCapacity kv = kv_capacity(*setup.model, setup.gpu->memory.value, setup.step);
  if (b.kv_blocks <= 0) b.kv_blocks = kv.blocks;
  b.block_size = setup.step.block_size;
  if (b.kv_bytes_per_token_per_gpu <= 0) b.kv_bytes_per_token_per_gpu = kv.kv_bytes_per_token_per_gpu;
  return b;
}

double plan_seconds(const EngineSetup& setup, const StepPlan& plan) {
  if (plan.steps == 0) return 0;
  const StepCost cost = step_cost(*setup.model, *setup.gpu, setup.step, plan.batch);
  const double swap = (plan.swap_in_bytes + plan.swap_out_bytes) / setup.gpu->pcie_h2d_achievable.value;
  return plan.steps * (cost.total_s + setup.step_overhead_s) + swap;
}

EngineRun run_engine(const EngineSetup& setup, std::vector<SequenceRequest> requests, int concurrency) {
  ContinuousBatcher batcher(batcher_for(setup));
  EngineRun run;
  const long long capacity = batcher.config().kv_blocks;
  const double front_end = std::max(0.0, setup.front_end_s);
  // Requests are admitted in order; [next, sent) were sent by a client and are on their way to the scheduler, their
  // `arrival` the time they reach it (open loop: every request is sent at its arrival).
  size_t next = 0, sent = concurrency > 0 ? 0 : requests.size();
  if (concurrency <= 0 && front_end > 0)
    for (auto& r : requests) r.arrival += front_end;
  double now = 0;
  const auto admit = [&](const SequenceRequest& r) {
    if (batcher.blocks_for(static_cast<long long>(r.prompt_tokens) + r.output_tokens - 1) > capacity) {
      run.refused.push_back(r);
      return;
    }
    batcher.enqueue(r);
  };
  for (;;) {
    // A refused request frees its client at once: send again until the clients are busy.
    for (bool refill = true; refill;) {
      refill = false;
      if (concurrency > 0)
        while (sent < requests.size() && static_cast<int>(batcher.in_flight() + (sent - next)) < concurrency)
          requests[sent++].arrival = now + front_end;
      while (next < sent && requests[next].arrival <= now) {
        admit(requests[next++]);
        refill = concurrency > 0;
      }
    }
    if (batcher.idle()) {
      if (next >= requests.size()) break;
      now = std::max(now, requests[next].arrival);
      continue;
    }
    StepPlan plan = batcher.plan(now, std::numeric_limits<int>::max());
    if (plan.steps == 0) break;  // cannot happen with the refusal above; guards an endless loop
    double seconds = plan_seconds(setup, plan);
    // An arrival inside a run of decode steps joins at the step after it: cut the run there.
    if (next < sent && plan.steps > 1 && now + seconds > requests[next].arrival) {
      const double per_step = seconds / plan.steps;
      batcher.shorten(plan, static_cast<int>(std::floor((requests[next].arrival - now) / per_step)) + 1);
      seconds = plan_seconds(setup, plan);
    }
    auto done = batcher.complete(plan, now, now + seconds, &run.gaps);
    now += seconds;
    for (auto& c : done) run.completions.push_back(c);
  }
  if (front_end > 0) {  // the clients' send times
    for (auto& c : run.completions) c.request.arrival -= front_end;
    for (auto& r : run.refused) r.arrival -= front_end;
  }
  run.stats = batcher.stats();
  run.end = now;
  return run;
}

}  // namespace gtw::serving
