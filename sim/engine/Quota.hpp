#pragma once
// Kueue-like GPU quotas (docs/models/quotas.md): the bookkeeping, free of SimGrid so it can be tested
// alone. Tenants with a quota are the leaves of a tree of cohorts (QuotaTree: the scenario's own quotas
// share one implicit cohort; Kueue ClusterQueues are in their cohorts, which may have parents and quotas of
// their own): a workload is admitted whole when its GPUs fit what the tree leaves its tenant (its nominal
// quota, and what the cohorts above have unused, within the borrowing limits on the way). A tenant asking for
// GPUs within its nominal quota reclaims them from borrowers of its tree: their most recently admitted
// workloads are preempted, only as many as needed and only while their tenant is still borrowing.
#include <cstdint>
#include <optional>
#include <vector>

#include "QuotaTree.hpp"
#include "Scenario.hpp"

namespace gtw {

class QuotaBook {
 public:
  explicit QuotaBook(const std::vector<TenantSpec>& tenants);

  bool managed(int tenant) const;
  int nominal(int tenant) const { return tenants_.at(static_cast<size_t>(tenant)).nominal; }
  int used(int tenant) const { return tenants_.at(static_cast<size_t>(tenant)).used; }
  /// GPUs in use beyond the nominal quota.
  int borrowed(int tenant) const;
  /// Whether `gpus` more GPUs for the tenant fit what its quota tree leaves it.
  bool fits(int tenant, int gpus) const;
  /// Whether `gpus` more stay within the tenant's nominal quota (it may then reclaim).
  bool within_nominal(int tenant, int gpus) const;

  /// The admitted workloads to preempt so that `gpus` more fit for the tenant (newest first), or
  /// nullopt when it is not entitled to reclaim or preempting every borrower would not be enough.
  std::optional<std::vector<int>> victims(int tenant, int gpus) const;

  /// Records an admission (the workload's GPUs now count) and returns the GPUs of it borrowed.
  int admit(int workload, int tenant, int gpus);
  /// Returns a workload's GPUs to the quota; false if it was not admitted.
  bool release(int workload);
  bool admitted(int workload) const;

 private:
  struct Tenant {
    int nominal = -1;
    int borrowing_limit = -1;
    int lending_limit = -1;  // < 0: all of the nominal quota may be lent
    int used = 0;
  };
  struct Admission {
    int workload;
    int tenant;
    int gpus;
    uint64_t order;  // admission order: newest are preempted first
  };
  std::vector<int> used_gpus() const;

  QuotaTree tree_;
  std::vector<Tenant> tenants_;
  std::vector<Admission> admitted_;
  uint64_t next_order_ = 0;
};

}  // namespace gtw
