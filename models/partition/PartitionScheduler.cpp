#include "PartitionScheduler.hpp"

#include <xbt/log.h>
#include <algorithm>
#include <stdexcept>

#include "Exclusive.hpp"
#include "Mps.hpp"
#include "TimeSlicing.hpp"

XBT_LOG_EXTERNAL_CATEGORY(gtw);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(gtw_partition, gtw,
                                "partition schedulers: exclusive, time-slicing, MPS, vGPU (models/partition)");

namespace gtw {

int gpu_sms(const GpuDevice& gpu) {
  return gpu.profile().sms;
}

int PartitionScheduler::sm_share(const GpuContext&) const {
  return -1;
}

void PartitionScheduler::remove_active(GpuContext& context, const KernelPtr& kernel) {
  auto it = std::find(context.active.begin(), context.active.end(), kernel);
  if (it != context.active.end()) context.active.erase(it);
}

std::unique_ptr<PartitionScheduler> make_partition_scheduler(GpuDevice& gpu, SimContext& ctx) {
  switch (gpu.sharing().mode) {
    case SharingMode::EXCLUSIVE:
      return std::make_unique<ExclusiveScheduler>(gpu, ctx);
    case SharingMode::TIME_SLICING:
      return std::make_unique<TimeSliceScheduler>(gpu, ctx);
    case SharingMode::MPS:
      return std::make_unique<MpsScheduler>(gpu, ctx);
    case SharingMode::MIG:
      return std::make_unique<ExclusiveScheduler>(gpu, ctx);  // one instance = one device
    case SharingMode::VGPU:
      return std::make_unique<TimeSliceScheduler>(gpu, ctx);  // time-sliced vGPUs, policy in the scheduler
    case SharingMode::CONFIDENTIAL:
      return std::make_unique<ExclusiveScheduler>(gpu, ctx);  // the whole GPU to one confidential VM
    default:
      break;
  }
  // Validation refuses modes without a model; reaching this is a bug.
  throw std::logic_error(std::string("no partition scheduler for sharing mode ") +
                         sharing_mode_name(gpu.sharing().mode));
}

}  // namespace gtw
