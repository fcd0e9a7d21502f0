#include "TimeSlicing.hpp"

#include <xbt/log.h>
#include <algorithm>
#include <cmath>
#include <mutex>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(gtw_partition);

namespace gtw {

TimeSliceScheduler::TimeSliceScheduler(GpuDevice& gpu, SimContext& ctx)
    : gpu_(gpu),
      ctx_(ctx),
      quantum_(gpu.sharing().time_slice.value),
      switch_cost_(gpu.sharing().context_switch.value),
      mutex_(sg4::Mutex::create()),
      cv_(sg4::ConditionVariable::create()) {}

bool TimeSliceScheduler::has_work(int context) const {
  return context >= 0 && !gpu_.contexts()[static_cast<size_t>(context)].active.empty();
}

bool TimeSliceScheduler::other_waits() const {
  for (const auto& c : gpu_.contexts())
    if (c.id != current_ && !c.active.empty()) return true;
  return false;
}

int TimeSliceScheduler::next_with_work() const {
  const int n = static_cast<int>(gpu_.contexts().size());
  const int from = last_ < 0 ? 0 : last_ + 1;
  for (int k = 0; k < n; ++k) {
    const int c = (from + k) % n;
    if (has_work(c)) return c;
  }
  return -1;
}

void TimeSliceScheduler::set_running(int context, bool running) {
  // Copy: suspend/resume are simcalls, during which other actors may finish kernels.
  const auto kernels = gpu_.context(context).active;
  for (const auto& kernel : kernels) running ? kernel->resume() : kernel->suspend();
}

void TimeSliceScheduler::open_slice(double now) {
  slice_open_ = true;
  slice_start_ = now;
  slice_has_switch_ = switch_held_ && held_switch_time_ == now;
  if (slice_has_switch_) {
    slice_switch_cost_ = held_switch_cost_;
    switch_held_ = false;
  }
}

void TimeSliceScheduler::close_slice(double now) {
  if (!slice_open_) return;
  slice_open_ = false;
  const bool with_switch = slice_has_switch_;
  slice_has_switch_ = false;
  if (now > slice_start_) {
    log(with_switch ? EventType::GPU_SLICE : EventType::GPU_BUSY, now, with_switch ? slice_switch_cost_ : 0.0,
        slice_start_);
  } else if (with_switch) {  // an empty slice: its switch alone
    log(EventType::CONTEXT_SWITCH, now, slice_switch_cost_, slice_start_);
  }
}

// The mutex orders a launcher's or a finisher's change of the contexts' kernel lists against the arbiter,
// which holds it across simcalls (suspending and resuming kernels). While nobody holds it, has asked for it
// or is about to get it, a change that does not yield before its notification is made without it: SimGrid
// runs one actor at a time, so the change is as atomic as under the mutex, and the lock and unlock simcalls
// (four of a time-sliced kernel's simcalls) are saved.
bool TimeSliceScheduler::mutex_free() const {
  return !arbiter_holds_ && !arbiter_signalled_ && launchers_in_ == 0 &&
         !(arbiter_waiting_ && sg4::Engine::get_clock() >= arbiter_deadline_);  // a timed-out wait re-locks
}

void TimeSliceScheduler::notify_arbiter() {
  if (arbiter_waiting_) arbiter_signalled_ = true;  // the signal hands it the mutex
  cv_->notify_all();
}

void TimeSliceScheduler::on_launch(GpuContext& context, const KernelPtr& kernel) {
  if (context.id == current_ && mutex_free()) {
    context.active.push_back(kernel);  // it runs: the context holds the GPU
    notify_arbiter();
    return;
  }
  // Same simulated instant as the start: suspending now means the kernel never ran. The mutex
  // orders this against the arbiter's resume/suspend of the context's kernels.
  ++launchers_in_;
  std::unique_lock lock(*mutex_);
  context.active.push_back(kernel);
  if (context.id != current_) kernel->suspend();
  notify_arbiter();
  --launchers_in_;
}

void TimeSliceScheduler::on_finish(GpuContext& context, const KernelPtr& kernel) {
  if (mutex_free()) {
    remove_active(context, kernel);
    notify_arbiter();
    return;
  }
  ++launchers_in_;
  std::unique_lock lock(*mutex_);
  remove_active(context, kernel);
  notify_arbiter();
  --launchers_in_;
}

// The arbiter's ways of releasing the mutex and taking it back, which keep the flags mutex_free() reads.
void TimeSliceScheduler::arbiter_wait(std::unique_lock<sg4::Mutex>& lock, double until) {
  arbiter_holds_ = false;
  arbiter_waiting_ = true;
  arbiter_deadline_ = until;
  if (std::isinf(until)) {
    cv_->wait(lock);
  } else {
    cv_->wait_until(lock, until);
  }
  arbiter_waiting_ = false;
  arbiter_signalled_ = false;
  arbiter_holds_ = true;
}

void TimeSliceScheduler::arbiter_sleep(std::unique_lock<sg4::Mutex>& lock, double time, bool until) {
  arbiter_holds_ = false;
  lock.unlock();
  until ? sg4::this_actor::sleep_until(time) : sg4::this_actor::sleep_for(time);
  arbiter_holds_ = true;  // asks for it: holds it for mutex_free() from now on
  lock.lock();
}

void TimeSliceScheduler::start() {
  const bool strict =
      gpu_.sharing().mode == SharingMode::VGPU && gpu_.sharing().vgpu_scheduler != VgpuScheduler::BEST_EFFORT;
  sg4::Actor::create("timeslice-" + gpu_.host()->get_name(), gpu_.host(), [this, strict] {
    strict ? arbiter_strict() : arbiter();
  })->daemonize();
}

// vGPU equal share rotates over the vGPUs that exist on the GPU, fixed share over all `replicas`
// slots of the vGPU type; each slot lasts one quantum whether its vGPU has work or not, so a vGPU's
// share does not depend on its neighbours' load (performance isolation at the cost of idle time).
// A context switch is paid whenever the loaded context changes. While no vGPU has work the GPU idles
// and the slots go on in time: work that arrives after an idle spell waits for its own vGPU's next
// slot, so even then a vGPU's timeline does not depend on whether its neighbours had work.
void TimeSliceScheduler::arbiter_strict() {
  arbiter_holds_ = true;
  std::unique_lock lock(*mutex_);
  int slot = -1;
  double slot_end = -1;  // end of the previous slot: the slots form a fixed grid in time
  while (true) {
    bool idled = false;
    while (next_with_work() < 0) {
      close_slice(sg4::Engine::get_clock());
      arbiter_wait(lock);
      idled = true;
    }
    const int contexts = static_cast<int>(gpu_.contexts().size());
    const int slots = gpu_.sharing().vgpu_scheduler == VgpuScheduler::FIXED_SHARE
                          ? std::max(contexts, gpu_.sharing().replicas)
                          : contexts;
    const double now = sg4::Engine::get_clock();
    if (slot_end < 0) slot_end = now;  // the grid starts with the first work
    if (idled && now > slot_end) {
      // The slots that passed while the GPU idled.
      const auto passed = static_cast<long long>(std::floor((now - slot_end) / quantum_));
      slot = static_cast<int>((slot + passed) % std::max(1, slots));
      slot_end += static_cast<double>(passed) * quantum_;
      // The GPU went through those slots' vGPUs: the last of them is the one loaded now.
      if (passed > 0 && slot >= 0 && slot < contexts && gpu_.contexts()[static_cast<size_t>(slot)].alive) last_ = slot;
    }
    slot = (slot + 1) % std::max(1, slots);
    slot_end += quantum_;
    if (slot >= contexts || !gpu_.contexts()[static_cast<size_t>(slot)].alive) {
      arbiter_sleep(lock, slot_end, true);  // an empty or dead vGPU slot: the GPU idles
      continue;
    }
    if (slot != last_) {
      close_slice(sg4::Engine::get_clock());
      if (current_ >= 0) set_running(current_, false);
      current_ = -1;
      if (last_ >= 0 && switch_cost_ > 0) arbiter_sleep(lock, switch_cost_, false);
      record_switch(slot);
    }
    current_ = slot;
    set_running(current_, true);
    if (has_work(current_) && !slice_open_) open_slice(sg4::Engine::get_clock());
    log_held_switch();  // the vGPU had no work when its slot began
    // The slot lasts its quantum; work launched during it runs, the rest of an idle slot is lost.
    while (sg4::Engine::get_clock() < slot_end) {
      if (!has_work(current_)) close_slice(sg4::Engine::get_clock());
      arbiter_wait(lock, slot_end);
      if (has_work(current_) && !slice_open_) open_slice(sg4::Engine::get_clock());
    }
    set_running(current_, false);
    close_slice(sg4::Engine::get_clock());
    current_ = -1;
  }
}

void TimeSliceScheduler::arbiter() {
  arbiter_holds_ = true;
  std::unique_lock lock(*mutex_);
  while (true) {
    int next = next_with_work();
    while (next < 0) {
      close_slice(sg4::Engine::get_clock());
      arbiter_wait(lock);
      next = next_with_work();
    }
    // If the loaded context has work and nobody else does, next_with_work returns it (it is last
    // in the round-robin order): no switch.
    if (next != last_ || current_ != next) {
      if (next != last_) {
        close_slice(sg4::Engine::get_clock());
        if (current_ >= 0) set_running(current_, false);  // it may have launched new work meanwhile
        current_ = -1;
        // Save the outgoing context and restore the incoming one: the GPU runs nothing meanwhile.
        if (last_ >= 0 && switch_cost_ > 0) arbiter_sleep(lock, switch_cost_, false);
        record_switch(next);
      }
      current_ = next;
      set_running(current_, true);
    }
    if (!slice_open_) open_slice(sg4::Engine::get_clock());
    log_held_switch();  // none: a switch is followed by a new slice
    // Run the turn: quanta start at turn_start; the context is preempted at the first quantum
    // boundary at which another context waits, or yields when it runs out of work. While nobody
    // else waits no timer is armed (a 2 ms timer that fires for nothing was half of the engine's
    // work in the 128-GPU benchmark); a launch by another context wakes the arbiter, which then
    // waits for the next boundary.
    const double turn_start = sg4::Engine::get_clock();
    while (has_work(current_)) {
      if (!other_waits()) {
        arbiter_wait(lock);
        continue;
      }
      const double now = sg4::Engine::get_clock();
      const double quanta = std::max(1.0, std::ceil((now - turn_start) / quantum_ - 1e-9));
      const double boundary = turn_start + quanta * quantum_;
      if (now < boundary) arbiter_wait(lock, boundary);
      if (sg4::Engine::get_clock() >= boundary && has_work(current_) && other_waits()) break;
    }
    if (!has_work(current_)) {
      close_slice(sg4::Engine::get_clock());
      continue;  // yields early; stays loaded until someone else needs the GPU
    }
    // A quantum boundary passed with work left and another context waiting: preempt.
    set_running(current_, false);
    close_slice(sg4::Engine::get_clock());
    current_ = -1;
  }
}

// The GPU's state now holds context `slot`: the CONTEXT_SWITCH event (its cost, 0 for the first load), or, in a
// folded log, the switch held back for the slice that begins now.
void TimeSliceScheduler::record_switch(int slot) {
  const auto& incoming = gpu_.contexts()[static_cast<size_t>(slot)];
  XBT_VERB("GPU %d: slice to workload %d[%d] (tenant %d)", gpu_.index(), incoming.workload, incoming.replica,
           incoming.tenant);
  const double now = sg4::Engine::get_clock();
  const double cost = last_ >= 0 ? switch_cost_ : 0.0;
  ++ctx_.counters.context_switches;
  last_ = slot;
  if (ctx_.fold_slices) {
    switch_held_ = true;
    held_switch_time_ = now;
    held_switch_cost_ = cost;
    return;
  }
  log(EventType::CONTEXT_SWITCH, now, cost, now);
}

void TimeSliceScheduler::log_held_switch() {
  if (!switch_held_) return;
  switch_held_ = false;
  log(EventType::CONTEXT_SWITCH, sg4::Engine::get_clock(), held_switch_cost_, held_switch_time_);
}

// A slice still open is not logged (the run ended inside it), but the switch it took in is: logged now, with the
// time it ended.
void TimeSliceScheduler::end_of_run(double now) {
  log_held_switch();
  if (!slice_open_ || !slice_has_switch_) return;
  slice_has_switch_ = false;
  log(EventType::CONTEXT_SWITCH, now, slice_switch_cost_, slice_start_);
}

// An event about the context loaded on the GPU (last_).
void TimeSliceScheduler::log(EventType type, double time, double value, double aux) {
  const auto& c = gpu_.contexts()[static_cast<size_t>(last_)];
  ctx_.emit({.time = time,
             .type = type,
             .tenant = c.tenant,
             .workload = c.workload,
             .replica = c.replica,
             .gpu = gpu_.index(),
             .value = value,
             .aux = aux});
}

}  // namespace gtw
