#pragma once
#include "PartitionScheduler.hpp"

namespace gtw {

/// MPS (Volta+): clients run concurrently with no context switches, each capped to its active
/// thread percentage of the SMs (a kernel of a capped client occupies at most that share of the
/// SM cores; oversubscribed caps share the cores max-min), and all share HBM bandwidth. Memory is
/// limited per client (the pinned device memory limit); faults are one domain for the GPU.
class MpsScheduler final : public PartitionScheduler {
 public:
  MpsScheduler(GpuDevice& gpu, SimContext& ctx);
  void on_launch(GpuContext& context, const KernelPtr& kernel) override;
  void on_finish(GpuContext& context, const KernelPtr& kernel) override;
  int sm_share(const GpuContext& context) const override;

 private:
  void busy_changed(const GpuContext& context, int delta);

  GpuDevice& gpu_;
  SimContext& ctx_;
  double default_percentage_;
  std::vector<int> running_;        // per context: kernels in flight
  std::vector<double> busy_since_;  // per context
};

}  // namespace gtw
