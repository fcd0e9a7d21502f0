#pragma once
// How the contexts on one GPU take turns. Each sharing mode is one scheduler:
//  - exclusive: one context, runs whenever it has work;
//  - time-slicing: contexts take round-robin quanta with a context-switch cost in between;
//  - (MPS, MIG, vGPU and confidential computing come with their own schedulers.)
// The scheduler also records when the GPU was busy and for which tenant (GPU_BUSY events).
#include <memory>

#include "GpuDevice.hpp"
#include "SimContext.hpp"

namespace gtw {

class PartitionScheduler {
 public:
  virtual ~PartitionScheduler() = default;
  /// Called right after the kernel's activities were started by the launching actor, in the same
  /// simulated instant: the scheduler adds the kernel to the context's active list and suspends
  /// it if the context may not run now.
  virtual void on_launch(GpuContext& context, const KernelPtr& kernel) = 0;
  /// Called when a kernel of the context finished: removes it from the active list.
  virtual void on_finish(GpuContext& context, const KernelPtr& kernel) = 0;
  /// Starts helper actors, if any.
  virtual void start() {}
  /// The run ends at `now`: logs what the scheduler held back for a later event (a folded log's context switch
  /// whose slice is still open), so that the log holds every switch.
  virtual void end_of_run(double /*now*/) {}
  /// SMs a kernel of this context may occupy (all of them unless the mode caps clients).
  virtual int sm_share(const GpuContext& context) const;

 protected:
  static void remove_active(GpuContext& context, const KernelPtr& kernel);
};

std::unique_ptr<PartitionScheduler> make_partition_scheduler(GpuDevice& gpu, SimContext& ctx);

/// The SMs of the GPU the scheduler belongs to (helper for sm_share overrides).
int gpu_sms(const GpuDevice& gpu);

}  // namespace gtw
