#pragma once
// Analyses over the event log and the spec (never the engine): per-workload latency and job
// statistics, SLO evaluation per window with attribution of violations to co-resident tenants,
// and GPU utilisation per tenant.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "PagedRecords.hpp"
#include "RunIndex.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw {

struct LatencyStats {
  size_t count = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};

/// Nearest-rank percentile of sorted values (p in (0, 100]); 0 for an empty vector.
double percentile_sorted(const std::vector<double>& sorted, double p);

/// Percentiles at which report.json samples each inference workload's latency distribution
/// (`latency_cdf`): 1..10, every 5 to 90, 91..99, 99.5, 99.9, 100.
const std::vector<double>& latency_cdf_percentiles();

struct WorkloadResult {
  int index = 0;
  std::string name;
  std::string kind;
  int tenant = -1;
  int replicas_requested = 0;
  int replicas_placed = 0;
  int replicas_failed = 0;  // out of memory or not placed
  std::vector<int> gpus;    // GPUs the workload was placed on (sorted, unique)
  // inference
  size_t requests_arrived = 0;
  size_t requests_completed = 0;
  size_t requests_dropped = 0;  // overflow, no live replica, or unfinished at the end
  LatencyStats latency;
  LatencyStats queueing;
  std::vector<double> latency_cdf;  // completed requests' latency at each of latency_cdf_percentiles()
  double mean_batch = 0;
  // continuous batching (docs/models/serving.md); serving.replicas == 0 for a static batcher
  LatencyStats ttft;  // time to first token of completed requests
  LatencyStats tpot;  // time per output token after the first
  struct Serving {
    int replicas = 0;                // engine lives recorded
    double output_tokens_per_s = 0;  // generated tokens over the run's duration
    double prefill_tokens = 0;       // prompt tokens computed (recomputation after preemption included)
    double generated_tokens = 0;
    long long steps = 0;
    long long plans = 0;  // runs of steps simulated
    long long preemptions = 0;
    double kv_utilisation = 0;  // mean share of the KV blocks in use while serving
    double kv_peak = 0;         // largest share in use
    double goodput = -1;        // share of arrived requests meeting every ttft and tpot SLO of the tenant (-1: none)
  } serving;
  // training / batch
  size_t jobs_submitted = 0;
  size_t jobs_completed = 0;
  size_t jobs_unfinished = 0;
  size_t jobs_failed = 0;
  double mean_completion = 0;
  double mean_slowdown = 0;
  double max_slowdown = 0;
  size_t steps_completed = 0;
  int replicas_killed_by_faults = 0;
  int replicas_evicted = 0;  // by MIG reconfigurations or quota reclaims (then placed again if they fit)
  size_t model_loads = 0;    // model swapping: loads after the first
  double model_load_seconds = 0;
};

struct ShareOfBlame {
  std::string who;   // tenant name, or "(context switches)"
  double share = 0;  // of what delayed the victim during the violating windows (below)
  // What the share is of: "gpu" (GPU time on the victim's GPUs), "storage <name>" or "fabric" (bytes on the
  // links the victim's own data movements crossed). The victim's time in the windows is split between its
  // GPUs and its I/O by the time its data movements took; each part is shared out by its own measure.
  std::string via = "gpu";
};

struct SloWindow {
  double start = 0;
  double value = 0;  // latency percentile (s), throughput (1/s), or the job's slowdown / completion time
  bool violated = false;
};

/// An SLO window as the analysis' paged table keeps it (packed: written to the spill file as bytes).
struct [[gnu::packed]] StoredSloWindow {
  double start;
  double value;
  uint8_t violated;
};

/// An SLO's windows, read in order from the analysis' paged table: they grow with simulated time (a job SLO has a
/// window per job, 1.4 M in a simulated day of 10,000 GPUs), so they are paged past the analysis tables' budget.
class SloWindows {
 public:
  using Table = PagedRecords<StoredSloWindow>;
  struct End {};
  class Iterator {
   public:
    explicit Iterator(Table::Cursor cursor) : cursor_(std::move(cursor)) {}
    SloWindow operator*() const { return {cursor_->start, cursor_->value, cursor_->violated != 0}; }
    Iterator& operator++() {
      ++cursor_;
      return *this;
    }
    bool operator!=(End) const { return cursor_.valid(); }

   private:
    Table::Cursor cursor_;
  };

  SloWindows() = default;
  SloWindows(std::shared_ptr<const Table> table, size_t owner) : table_(std::move(table)), owner_(owner) {}
  /// Windows of their own (tests, hand-built results).
  static SloWindows hold(const std::vector<SloWindow>& windows);
  size_t size() const { return table_ ? table_->size(owner_) : 0; }
  bool empty() const { return size() == 0; }
  Iterator begin() const { return Iterator(table_ ? table_->begin(owner_) : Table::Cursor{}); }
  /// From the window at `position` on.
  Iterator from(size_t position) const {
    return Iterator(table_ ? table_->from_position(owner_, position) : Table::Cursor{});
  }
  End end() const { return {}; }
  /// The i-th window (reads its page: for lookups, not for a pass over them all).
  SloWindow operator[](size_t i) const;
  SloWindow back() const { return (*this)[size() - 1]; }

 private:
  std::shared_ptr<const Table> table_;
  size_t owner_ = 0;
};

struct SloResult {
  int tenant = -1;
  std::string tenant_name;
  std::string name;
  std::string kind;
  std::string workload;           // empty = all of the tenant's matching workloads
  std::string objective;          // human text: "p99 latency <= 2.00 s per 60 s window"
  std::string unit;               // of value: "s", "1/s", "x"
  double threshold = 0;           // the bound, in `unit`
  bool higher_is_better = false;  // true for throughput floors
  size_t evaluated = 0;           // windows with traffic, or jobs
  size_t violated = 0;
  double violation_minutes = 0;  // violated windows x window length (window SLOs)
  double compliance = 1;         // 1 - violated / evaluated
  double target = 1;
  bool met = true;
  double error_budget_burn = 0;  // (violated / evaluated) / (1 - target); -1 when the budget is 0
  double worst = 0;
  SloWindows windows;
  std::vector<ShareOfBlame> attribution;
  std::string explanation;
};

/// The length of a window SLO's evaluation window (s), from the spec; 0 for per-job SLOs.
double slo_window_s(const ScenarioSpec& spec, const SloResult& s);

struct GpuResult {
  GpuLayout layout;
  double utilisation = 0;  // busy share of [0, duration], or of the device's lifetime in it
  // Seconds in [0, duration] of each tenant that ran here, by ascending tenant index: sparse, since a device
  // hosts a few of the cluster's tenants (dense rows cost GPUs x tenants, gigabytes at 10,000 GPUs).
  std::vector<std::pair<int, double>> busy_by_tenant;
  size_t context_switches = 0;
  double switch_seconds = 0;
  std::vector<int> tenants;  // placed tenants (sorted, unique)
  // Busy share of each timeline step (Analysis::timeline_step) of each tenant that ran here in [0, duration], by
  // ascending tenant index. Under MPS clients overlap, so the tenants' shares of a step can add past 1.
  std::vector<std::pair<int, std::vector<double>>> busy_by_tenant_per_step;
};

struct FaultResult {
  double time = 0;
  int gpu = -1;
  std::string tenant;  // whose client faulted
  std::string workload;
  int replica = 0;
  int clients_ended = 0;  // the fault domain
  bool whole_gpu = false;
  bool whole_node = false;           // scope node: every GPU of the node
  std::vector<std::string> victims;  // "tenant/workload[replica]" of every client ended, in context order
};

struct ReconfigurationResult {
  std::string node_pool;
  double start = 0;  // the drain began
  double done = -1;  // the new instances were up (< 0: not within the run)
  int gpus = 0;      // physical GPUs re-partitioned
  int replicas_evicted = 0;
  int replicas_replaced = 0;
  std::vector<std::string> new_layout;
};

/// The host layers two tenants' processes share on one node, from their runtimes
/// (docs/models/runtimes.md): the boundary the leakage and compliance analyses reason about.
struct BoundaryResult {
  std::string tenant_a, tenant_b;  // tenant_a < tenant_b by index
  std::string node;
  bool same_gpu = false;                            // some replicas of both on one physical GPU (any partition)
  std::vector<std::string> runtimes_a, runtimes_b;  // effective runtimes on that node (sorted, unique)
  std::vector<std::string> shared_layers;           // union over their replica pairs, in layer order
};

/// One replica's stay on one GPU (or MIG instance), from its PLACED event to the failure, fault, eviction or
/// job end that ended it (the run index's stay, RunIndex.hpp); end < 0: it stayed until the end of the run.
struct PlacementResult {
  int workload = -1;
  int tenant = -1;
  int replica = 0;
  int gpu = -1;
  double start = 0;
  double end = -1;
  std::string end_reason;  // "", done, out_of_memory, not_placed, unfinished, fault, reconfigured, preempted, ...
};

/// One resource of a tenant's quota over the run: devices of it (GPUs, MIG instances) admitted.
struct QuotaResourceResult {
  std::string resource;  // nvidia.com/gpu, nvidia.com/mig-<profile>, ...
  int nominal = 0;
  int borrowing_limit = -1;            // < 0: no limit
  int lending_limit = -1;              // < 0: all of the nominal quota may be lent
  int peak = 0;                        // devices admitted at once, at most
  double device_seconds = 0;           // admitted device time
  double borrowed_device_seconds = 0;  // of it, beyond the nominal quota
};

/// A tenant's quota over the run (docs/models/quotas.md): `gpu` is its nvidia.com/gpu resource (zero, no limits,
/// without one); `resources` has every resource of its quota.
struct QuotaResult {
  std::string tenant;
  QuotaResourceResult gpu;
  std::vector<QuotaResourceResult> resources;  // in resource name order
  int admissions = 0;
  int queued = 0;         // times one of its workloads had to wait (submission or requeue)
  double total_wait = 0;  // seconds its workloads waited for quota
  double max_wait = 0;
  int preempted = 0;                      // its workloads evicted (by another tenant or its own higher priority)
  int preempted_within_queue = 0;         // of them, by its own workloads of higher priority
  int reclaimed = 0;                      // workloads of other tenants it evicted (reclaim, borrowWithinCohort)
  std::vector<std::string> still_queued;  // workloads waiting when the run ended
  // Fair sharing (spec.fairSharing): the queue's weight and its weighted share (QuotaTree.hpp weighted_share),
  // highest and averaged over the run (infinite: weight 0 while borrowing).
  double fair_weight = 1.0;
  double peak_share = 0;
  double mean_share = 0;
};

struct TenantResult {
  std::string name;
  std::string region;
  std::string classification;
  size_t slos = 0;
  size_t slos_missed = 0;
  double gpu_seconds = 0;
  // Chargeback: GPU-hours allocated to the tenant's replicas (a slot's share of a physical GPU for as
  // long as the replica held it), by partition kind ("exclusive", "timeSlicing", "mps", "mig 3g.40gb",
  // ...), and their cost at the pools' prices.
  std::map<std::string, double> allocated_gpu_hours;
  double cost = 0;
};

/// The design's cost over the run: every provisioned GPU at its pool's price, split into what
/// tenants were allocated and what stood idle.
struct CostResult {
  double provisioned_gpu_hours = 0;
  double allocated_gpu_hours = 0;
  double total = 0;      // provisioned GPU-hours x price
  double allocated = 0;  // charged back to tenants
  double idle = 0;       // total - allocated
};

/// The step of the utilisation timelines for a run of `duration` seconds: about 60 steps on a 1-2-5 grid
/// (60 s gives 1 s, 10 min 10 s, a day 30 min), so that a short run is not one SLO window wide.
double timeline_step(double duration);

struct Analysis {
  double duration = 0;
  double window = 0;
  double timeline_step = 0;  // timeline_step(duration)
  std::vector<TenantResult> tenants;
  std::vector<WorkloadResult> workloads;
  std::vector<SloResult> slos;
  std::vector<GpuResult> gpus;
  std::vector<FaultResult> faults;
  std::vector<ReconfigurationResult> reconfigurations;
  std::vector<BoundaryResult> boundaries;
  std::vector<PlacementResult> placements;  // in event order
  std::vector<QuotaResult> quotas;          // tenants with a quota, in spec order
  CostResult cost;
  size_t slos_missed = 0;
  /// Each GPU's utilisation per spec.slaWindow, by position in gpus. They grow with simulated time (a day of 10,000
  /// GPUs in one-minute windows is 14.4 M values), so they are paged past the analysis tables' budget. Copies of an
  /// Analysis share the table; reading it is not thread-safe (a spilled owner is assembled in one buffer).
  std::shared_ptr<PagedRecords<double>> utilisation_windows;
  /// Every SLO's windows, by position in slos (SloResult::windows reads its own).
  std::shared_ptr<SloWindows::Table> slo_windows;
  /// GPU `gpu`'s utilisation per window (empty when none were computed).
  std::vector<double> utilisation_windows_of(size_t gpu) const {
    if (!utilisation_windows || gpu >= utilisation_windows->owners()) return {};
    return utilisation_windows->of(gpu);
  }
};

/// Whether device `gpu` is a MIG instance (its fault domain under time-slicing is the instance, not the GPU).
inline bool mig_instance(const Analysis& a, int gpu) {
  return gpu >= 0 && static_cast<size_t>(gpu) < a.gpus.size() &&
         !a.gpus[static_cast<size_t>(gpu)].layout.mig_profile.empty();
}

Analysis analyse(const ScenarioSpec& spec, const RunResult& run);
/// The same over a run index built once for every analysis of the run (RunIndex.hpp).
Analysis analyse(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index);
/// The quota section: admissions, waits, borrowing and preemptions from the QUOTA_* events.
std::vector<QuotaResult> analyse_quotas(const ScenarioSpec& spec, const EventLog& log, double end);

}  // namespace gtw
