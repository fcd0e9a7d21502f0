#pragma once
#include <simgrid/s4u.hpp>

#include <cmath>
#include <mutex>

#include "PartitionScheduler.hpp"

namespace gtw {

/// Time-slicing (the CUDA time-slice scheduler behind the k8s device plugin's `timeSlicing`):
/// contexts with work hold the whole GPU in turn for at most one quantum; a context that runs out
/// of work yields early; every change of context costs `contextSwitch`, during which the GPU runs
/// nothing. A context keeps the GPU beyond its quantum while nobody else waits. Kernels of a
/// context that does not hold the GPU are suspended, so a request arriving during a neighbour's
/// slice waits for it: the latency tail the fluid fair-share model would hide.
class TimeSliceScheduler final : public PartitionScheduler {
 public:
  TimeSliceScheduler(GpuDevice& gpu, SimContext& ctx);
  void on_launch(GpuContext& context, const KernelPtr& kernel) override;
  void on_finish(GpuContext& context, const KernelPtr& kernel) override;
  void start() override;
  void end_of_run(double now) override;

 private:
  void arbiter();
  void arbiter_strict();  // vGPU equal / fixed share: every slot gets its quantum, used or not
  bool has_work(int context) const;
  bool other_waits() const;    // a context other than the current one has kernels pending
  int next_with_work() const;  // round-robin after current_, current_ last; -1 if none
  void set_running(int context, bool running);
  void open_slice(double now);   // the loaded context's slice; it takes in the switch that ended now, if any
  void close_slice(double now);  // logs the slice (GPU_BUSY, or GPU_SLICE when it took in its switch)
  void record_switch(int slot);  // after the switch cost: log (or hold back), count and remember the loaded context
  void log_held_switch();        // a held-back switch whose slice did not open with it: CONTEXT_SWITCH on its own
  void log(EventType type, double time, double value, double aux);  // about the loaded context
  bool mutex_free() const;  // nobody holds the mutex, waits for it or is about to get it
  void notify_arbiter();
  void arbiter_wait(std::unique_lock<sg4::Mutex>& lock, double until = INFINITY);
  void arbiter_sleep(std::unique_lock<sg4::Mutex>& lock, double time, bool until);  // sleep_until or sleep_for

  GpuDevice& gpu_;
  SimContext& ctx_;
  double quantum_;
  double switch_cost_;
  sg4::MutexPtr mutex_;
  sg4::ConditionVariablePtr cv_;
  int current_ = -1;  // context holding the GPU (its kernels run), -1 during a switch
  int last_ = -1;     // context whose state is loaded on the GPU
  bool slice_open_ = false;
  double slice_start_ = 0;
  // The folded log (SimContext::fold_slices): a switch is held back until the slice it opens is logged with it.
  bool switch_held_ = false;
  double held_switch_time_ = 0;
  double held_switch_cost_ = 0;
  bool slice_has_switch_ = false;  // the open slice took in the switch that began it
  double slice_switch_cost_ = 0;
  // Who holds or wants the mutex (mutex_free): the arbiter, a signal that hands it the mutex, launchers.
  bool arbiter_holds_ = false;
  bool arbiter_waiting_ = false;  // in a wait on cv_ (until arbiter_deadline_)
  bool arbiter_signalled_ = false;
  double arbiter_deadline_ = 0;
  int launchers_in_ = 0;  // launchers and finishers holding or waiting for the mutex
};

}  // namespace gtw
