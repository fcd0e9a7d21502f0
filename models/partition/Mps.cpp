#include "Mps.hpp"

#include <xbt/log.h>
#include <cmath>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(gtw_partition);

namespace gtw {

MpsScheduler::MpsScheduler(GpuDevice& gpu, SimContext& ctx)
    : gpu_(gpu), ctx_(ctx), default_percentage_(gpu.sharing().active_thread_percentage) {}

// The lower of the daemon's default and the client's own percentage wins, as in MPS.
int MpsScheduler::sm_share(const GpuContext& context) const {
  double pct = default_percentage_ > 0 ? default_percentage_ : 100.0;
  if (context.active_thread_percentage > 0) pct = std::min(pct, context.active_thread_percentage);
  return std::max(1, static_cast<int>(std::lround(pct / 100.0 * gpu_sms(gpu_))));
}

// Busy accounting per client: clients overlap in time under MPS, so each client's busy intervals
// are recorded separately (a GPU's busy time can then exceed wall time; utilisation uses the union).
void MpsScheduler::busy_changed(const GpuContext& context, int delta) {
  const auto id = static_cast<size_t>(context.id);
  if (running_.size() <= id) {
    running_.resize(id + 1, 0);
    busy_since_.resize(id + 1, 0.0);
  }
  const double now = sg4::Engine::get_clock();
  if (delta > 0 && running_[id]++ == 0) busy_since_[id] = now;
  if (delta < 0 && --running_[id] == 0)
    ctx_.emit({.time = now,
               .type = EventType::GPU_BUSY,
               .tenant = context.tenant,
               .workload = context.workload,
               .replica = context.replica,
               .gpu = gpu_.index(),
               .value = 1,
               .aux = busy_since_[id]});
}

void MpsScheduler::on_launch(GpuContext& context, const KernelPtr& kernel) {
  context.active.push_back(kernel);
  busy_changed(context, +1);
}

void MpsScheduler::on_finish(GpuContext& context, const KernelPtr& kernel) {
  remove_active(context, kernel);
  busy_changed(context, -1);
}

}  // namespace gtw
