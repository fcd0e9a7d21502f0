#include "Exclusive.hpp"

namespace gtw {

// Busy accounting: the GPU is busy for a tenant from the first kernel launched after an idle
// period until the last running kernel finishes.
void ExclusiveScheduler::on_launch(GpuContext& context, const KernelPtr& kernel) {
  context.active.push_back(kernel);
  if (running_++ == 0) {
    busy_since_ = sg4::Engine::get_clock();
    busy_tenant_ = context.tenant;
  }
}

void ExclusiveScheduler::on_finish(GpuContext& context, const KernelPtr& kernel) {
  remove_active(context, kernel);
  if (--running_ == 0) {
    ctx_.emit({.time = sg4::Engine::get_clock(),
               .type = EventType::GPU_BUSY,
               .tenant = busy_tenant_,
               .workload = context.workload,
               .replica = context.replica,
               .gpu = gpu_.index(),
               .aux = busy_since_});
  }
}

}  // namespace gtw
