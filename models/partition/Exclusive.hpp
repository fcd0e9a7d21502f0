#pragma once
#include "PartitionScheduler.hpp"

namespace gtw {

/// Whole GPU to one context: kernels run as soon as they are launched; concurrent kernels of the
/// context share SMs and HBM bandwidth max-min (SimGrid's fluid model).
class ExclusiveScheduler final : public PartitionScheduler {
 public:
  ExclusiveScheduler(GpuDevice& gpu, SimContext& ctx) : gpu_(gpu), ctx_(ctx) {}
  void on_launch(GpuContext& context, const KernelPtr& kernel) override;
  void on_finish(GpuContext& context, const KernelPtr& kernel) override;

 private:
  GpuDevice& gpu_;
  SimContext& ctx_;
  int running_ = 0;
  double busy_since_ = 0;
  int busy_tenant_ = -1;
};

}  // namespace gtw
