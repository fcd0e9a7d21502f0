#include "models/partition/TimeSlicing.hpp"

#include <mutex>

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

void TimeSliceScheduler::close_slice(double now) {
  if (!slice_open_) return;
  slice_open_ = false;
  const auto& c = gpu_.contexts()[static_cast<size_t>(last_)];
  if (now > slice_start_) {
    ctx_.emit(now, EventType::GPU_BUSY, c.tenant, c.workload, c.replica, gpu_.index(), 0, slice_start_);
  }
}

void TimeSliceScheduler::on_launch(GpuContext& context, const KernelPtr& kernel) {
  // Same simulated instant as the start: suspending now means the kernel never ran. The mutex
  // orders this against the arbiter's resume/suspend of the context's kernels.
  std::unique_lock lock(*mutex_);
  context.active.push_back(kernel);
  if (context.id != current_) kernel->suspend();
  cv_->notify_all();
}

void TimeSliceScheduler::on_finish(GpuContext& context, const KernelPtr& kernel) {
  std::unique_lock lock(*mutex_);
  remove_active(context, kernel);
  cv_->notify_all();
}

void TimeSliceScheduler::start() {
  sg4::Actor::create("timeslice-" + gpu_.host()->get_name(), gpu_.host(), [this] { arbiter(); })->daemonize();
}

void TimeSliceScheduler::arbiter() {
  std::unique_lock lock(*mutex_);
  while (true) {
    int next = next_with_work();
    while (next < 0) {
      close_slice(sg4::Engine::get_clock());
      cv_->wait(lock);
      next = next_with_work();
    }
    // If the loaded context has work and nobody else does, next_with_work returns it (it is last
    // in the round-robin order): no switch.
    if (next != last_ || current_ != next) {
      if (next != last_) {
        close_slice(sg4::Engine::get_clock());
        if (current_ >= 0) set_running(current_, false);  // it may have launched new work meanwhile
        current_ = -1;
        if (last_ >= 0 && switch_cost_ > 0) {
          // Save the outgoing context and restore the incoming one: the GPU runs nothing meanwhile.
          lock.unlock();
          sg4::this_actor::sleep_for(switch_cost_);
          lock.lock();
        }
        const auto& incoming = gpu_.contexts()[static_cast<size_t>(next)];
        ctx_.emit(sg4::Engine::get_clock(), EventType::CONTEXT_SWITCH, incoming.tenant, incoming.workload,
                  incoming.replica, gpu_.index(), last_ >= 0 ? switch_cost_ : 0.0);
        ++ctx_.counters.context_switches;
        last_ = next;
      }
      current_ = next;
      set_running(current_, true);
    }
    if (!slice_open_) {
      slice_open_ = true;
      slice_start_ = sg4::Engine::get_clock();
    }
    // Run the slice: until the quantum expires or the context runs out of work.
    const double deadline = sg4::Engine::get_clock() + quantum_;
    while (has_work(current_) && sg4::Engine::get_clock() < deadline) {
      cv_->wait_until(lock, deadline);
    }
    if (!has_work(current_)) {
      close_slice(sg4::Engine::get_clock());
      continue;  // yields early; stays loaded until someone else needs the GPU
    }
    // Quantum expired with work left: preempt only if another context waits.
    bool other_waits = false;
    for (const auto& c : gpu_.contexts())
      if (c.id != current_ && !c.active.empty()) other_waits = true;
    if (other_waits) {
      set_running(current_, false);
      close_slice(sg4::Engine::get_clock());
      current_ = -1;
    }
  }
}

}  // namespace gtw
