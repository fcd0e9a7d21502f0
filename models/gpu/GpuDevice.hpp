#pragma once
// A simulated GPU (or, later, a MIG instance): a SimGrid host whose cores are the SMs, plus an
// "HBM" host whose speed is the achievable HBM bandwidth in bytes/s. A kernel is a decoupled
// roofline: an exec of its FLOPs on the SMs in parallel with an exec of its bytes on the HBM host;
// it ends when both end. Max-min sharing of both hosts gives contention between co-running kernels.
// (The HBM is a host rather than a link because time-slicing suspends and resumes kernels, and
// SimGrid 3.32 does not resume a suspended host-to-host transfer; see docs/models/gpu.md.)
// How contexts take turns is the partition scheduler's job.
#include <simgrid/s4u.hpp>

#include <memory>
#include <string>
#include <vector>

#include "HardwareProfile.hpp"
#include "SimContext.hpp"

namespace gtw {

namespace sg4 = simgrid::s4u;

/// The activities of one launched kernel.
struct KernelActivities {
  sg4::ExecPtr exec;    // null when the kernel has no FLOPs
  sg4::ExecPtr memory;  // null when the kernel moves no bytes
  int context = -1;
  double memory_intensity = 0;  // share of its time alone the kernel is bound by HBM bandwidth, in [0, 1]
  bool finished = false;
  void suspend();
  void resume();
};
using KernelPtr = std::shared_ptr<KernelActivities>;

class PartitionScheduler;

/// Levels of shared-L2 pressure the HBM host can express: pressure p runs the host at the speed of
/// pstate round(p x L2_PRESSURE_LEVELS).
inline constexpr int L2_PRESSURE_LEVELS = 100;
/// The HBM host's speed per pstate: achievable bandwidth / (1 + l2_contention x level / levels); one
/// pstate when the profile has no L2 interference.
std::vector<double> hbm_pstate_speeds(const HardwareProfile& profile);

/// Thrown to the actor waiting on a kernel whose client a fault has ended.
struct KernelAborted {
  int context = -1;
};

/// One process (CUDA context) on a GPU: a workload replica or a job's rank.
struct GpuContext {
  int id = -1;
  int tenant = -1;
  int workload = -1;
  int replica = -1;
  double active_thread_percentage = -1;  // MPS: this client's cap (< 0: the GPU's default)
  bool alive = true;                     // false once a fault ended the client
  std::vector<KernelPtr> active;         // launched, not finished
};

class GpuDevice {
 public:
  GpuDevice(int index, int node, int local_index, sg4::Host* sms, sg4::Host* hbm, const HardwareProfile& profile,
            const SharingSpec& sharing, SimContext& ctx);
  ~GpuDevice();
  GpuDevice(const GpuDevice&) = delete;
  GpuDevice& operator=(const GpuDevice&) = delete;

  int index() const { return index_; }
  int node() const { return node_; }
  int local_index() const { return local_index_; }
  /// GPUs of one node with the same domain (>= 0) reach each other over NVLink; -1: no NVLink peer access.
  int nvlink_domain() const { return nvlink_domain_; }
  void set_nvlink_domain(int domain) { nvlink_domain_ = domain; }
  sg4::Host* host() const { return sms_; }
  const HardwareProfile& profile() const { return profile_; }
  const SharingSpec& sharing() const { return sharing_; }
  /// One instance of a MIG-partitioned GPU (its own device; time-sliced when migReplicas shares it).
  bool mig_instance() const { return !sharing_.mig_layout.empty(); }
  /// The confidential-computing costs when this GPU runs in CC mode, else nullptr.
  const HardwareProfile::Confidential* confidential() const {
    return sharing_.mode == SharingMode::CONFIDENTIAL && profile_.confidential ? &*profile_.confidential : nullptr;
  }

  /// Registers a process on this GPU and returns its context id.
  int add_context(int tenant, int workload, int replica);
  GpuContext& context(int id) { return contexts_.at(static_cast<size_t>(id)); }
  const std::vector<GpuContext>& contexts() const { return contexts_; }

  /// Device memory: returns false (and allocates nothing) when the GPU cannot hold `bytes` more.
  /// Without an owner context: no MEM_* events and no remanence tracking.
  bool allocate(double bytes);
  void release(double bytes);
  /// The allocator with remanence tracking, for `context`'s process: freed memory keeps its owner's data
  /// until it is scrubbed; an allocation reuses freed memory first (most recently freed first: the worst
  /// case for the next tenant) and records the other tenants' bytes it hands over (MEM_RESIDUE, or
  /// MEM_SCRUBBED_REUSE when scrubbed). With scrub on free (spec.policies.isolation.scrubOnFree, always on
  /// a confidential GPU) a free starts an HBM write of the freed bytes that competes with the GPU's
  /// clients; the bytes are unusable until it ends, and an allocation that needs them waits for it.
  /// Returns the bytes of other tenants' unscrubbed data the allocation received, or a negative value when
  /// the GPU cannot hold `bytes` more (nothing is allocated).
  double allocate_for(double bytes, int context);
  void release_for(double bytes, int context);
  double memory_used() const { return memory_used_; }
  /// The memory one client may hold: its MPS client limit, its vGPU's framebuffer share, else the
  /// device's (a MIG instance is a device of its own).
  double partition_memory() const;
  /// Freed, not yet scrubbed bytes (of any owner) and bytes being scrubbed now.
  double memory_dirty() const;
  double memory_scrubbing() const { return scrubbing_; }
  bool scrubs_on_free() const;

  /// Starts a kernel for a context (it may start suspended if the context does not hold the GPU). `grid_sms`: the SMs
  /// its grid can occupy (KernelSpec::grid_sms; 0: every SM the context may use).
  KernelPtr launch(int context, double flops, double bytes, int grid_sms = 0);
  /// Blocks the calling actor until the kernel has finished.
  void wait(const KernelPtr& kernel);
  /// launch + wait.
  void run(int context, double flops, double bytes, int grid_sms = 0) { wait(launch(context, flops, bytes, grid_sms)); }
  /// The run ends now: the partition scheduler logs what it still holds back (PartitionScheduler::end_of_run).
  void end_of_run(double now);

  /// A fatal error ends the client: its kernels are cancelled (their waiters get KernelAborted) and
  /// later launches are refused. Restarting makes a fresh context alive again.
  void fail_context(int context);
  /// Whether a fatal error in one client ends every client of the GPU: yes under MPS (one server)
  /// and time-slicing (no fault isolation between replicas); no for exclusive GPUs, MIG instances
  /// (separate devices), vGPUs and CC GPUs (separate VMs).
  bool fault_domain_is_whole_gpu() const;
  /// The live contexts a fatal error in `context` ends, in context order.
  std::vector<int> fault_domain(int context) const;
  void restart_context(int context);

  /// Starts the scheduler's actors (after the platform is sealed).
  void start();

  /// Current shared-L2 pressure in [0, 1] (0 unless clients run at once).
  double l2_pressure() const { return l2_pressure_; }

 private:
  /// Recomputes the L2 pressure from the running kernels and sets the HBM host's speed accordingly.
  void update_l2_pressure();

  int index_;
  int node_;
  int local_index_;
  int nvlink_domain_ = -1;
  sg4::Host* sms_;
  sg4::Host* hbm_;
  const HardwareProfile& profile_;
  SharingSpec sharing_;
  SimContext& ctx_;
  std::vector<GpuContext> contexts_;
  double memory_used_ = 0;
  struct Region {
    int tenant = -1;
    int workload = -1;
    double bytes = 0;
  };
  std::vector<Region> dirty_;     // freed, unscrubbed, oldest first
  std::vector<Region> scrubbed_;  // freed and scrubbed, oldest first (provenance for the report)
  double scrubbing_ = 0;          // bytes whose scrub is in flight
  sg4::MutexPtr memory_mutex_;
  sg4::ConditionVariablePtr scrub_done_;
  double l2_pressure_ = 0;
  std::unique_ptr<PartitionScheduler> scheduler_;
};

}  // namespace gtw
