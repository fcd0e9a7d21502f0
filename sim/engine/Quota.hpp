#pragma once
// Kueue-like quotas (docs/models/quotas.md): the bookkeeping, free of SimGrid so it can be tested alone. Each
// Kubernetes resource a quota names (nvidia.com/gpu, nvidia.com/mig-<profile>, ...) has its own tree of cohorts
// (QuotaTree: the scenario's own quotas share one implicit cohort; Kueue ClusterQueues are in their cohorts,
// which may have parents and quotas of their own). A workload asks for devices of one resource and is admitted
// whole when they fit what the tree leaves its tenant (its nominal quota, and what the cohorts above have
// unused, within the borrowing limits on the way). When they do not, Kueue's classical preemption picks victims
// by the tenant's policy (QuotaPreemptionSpec): borrowers of the subtrees where its side fits the request within
// quota (a hierarchical advantage), other borrowers by priority, lower priorities within its own queue; only as
// many as needed.
// With Kueue's fair sharing (FairSharingSpec), each queue has a share (its dominant resource's borrowed part of
// what its cohort could lend, over its weight) and preemption evens the shares instead.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "QuotaTree.hpp"
#include "Scenario.hpp"

namespace gtw {

/// What a workload asks of its tenant's quota.
struct QuotaRequest {
  int workload = -1;
  int tenant = -1;
  std::string resource = GPU_RESOURCE;
  int amount = 0;        // devices of the resource: replicas x GPUs (MIG instances) per replica
  int priority = 0;      // higher is admitted first and may preempt lower
  double submitted = 0;  // queue-order time (its start): LowerOrNewerEqualPriority spares older workloads
};

class QuotaBook {
 public:
  explicit QuotaBook(const std::vector<TenantSpec>& tenants, FairSharingSpec fair_sharing = {});

  bool fair_sharing() const { return fair_.enabled; }
  /// The tenant's weighted share under fair sharing, with the request's devices added when given: the largest,
  /// over its resources, of borrowed x 1000 / lendable (Kueue's dominant resource share), divided by its weight
  /// (infinite for weight 0 while borrowing); 0 while it borrows nothing or has no cohort.
  double share(int tenant, const QuotaRequest* with = nullptr) const;
  /// Under fair sharing, which of the queues' waiting heads Kueue admits first (its tournament): in every cohort,
  /// the contender whose child node (its queue, or the cohort below holding it) has the lowest share with its
  /// workload, then the higher priority, then the earlier submission. Returns an index into `heads`.
  size_t fair_first(const std::vector<QuotaRequest>& heads) const;

  bool managed(int tenant) const;
  /// Whether the tenant's quota has the resource (Kueue never admits a workload asking for another).
  bool covers(int tenant, const std::string& resource) const;
  /// The tenant's nominal quota of the resource (0 when it has none).
  int nominal(int tenant, const std::string& resource) const;
  /// Devices of the resource in use by the tenant's admitted workloads.
  int used(int tenant, const std::string& resource) const;
  /// Devices in use beyond the nominal quota.
  int borrowed(int tenant, const std::string& resource) const;
  /// Whether the request fits what the tenant's quota tree leaves it (without borrowing: within its nominal quota).
  bool fits(const QuotaRequest& r, bool allow_borrowing = true) const;

  /// The admitted workloads to preempt so that the request fits (Kueue's classical preemption, or its fair
  /// sharing's: the fewest of the candidates, other queues' first, lower priority first, newest first), an empty
  /// list when it fits already, or nullopt when its policy allows no set of victims that would make it fit.
  std::optional<std::vector<int>> victims(const QuotaRequest& r) const;

  /// Records an admission (its devices now count) and returns how many of them are borrowed.
  int admit(const QuotaRequest& r);
  /// Returns a workload's devices to the quota; false if it was not admitted.
  bool release(int workload);
  bool admitted(int workload) const;

 private:
  struct Admission {
    QuotaRequest request;
    uint64_t order;  // admission order: newest are preempted first
  };
  struct Tenant {
    bool managed = false;
    QuotaPreemptionSpec preemption;
    std::vector<int> nominal;  // by resource index; -1: no quota of the resource
    std::vector<int> used;     // by resource index
    double weight = 1.0;       // fairSharing.weight
  };
  int resource_index(const std::string& resource) const;
  std::vector<int> used_by_tenant(int resource) const;
  int borrowed_at(int tenant, int resource) const;
  bool fits_at(const QuotaRequest& r, int resource, bool allow_borrowing) const;
  std::vector<Admission> candidates(const QuotaRequest& r, int resource) const;
  // How a classical candidate may be preempted (Kueue's preemption variants).
  enum class Variant { WITHIN_QUEUE, HIERARCHICAL_RECLAIM, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING };
  struct Candidate {
    Admission admission;
    Variant variant;
    std::string subtree_root;  // where another queue's candidate was found (its lowest common cohort)
  };
  std::vector<std::vector<Candidate>> classical_candidates(const QuotaRequest& r, int resource) const;
  std::optional<std::vector<int>> classical_preemptions(const QuotaRequest& r, int resource) const;
  std::optional<std::vector<int>> classical_attempt(const QuotaRequest& r, int resource,
                                                    const std::vector<std::vector<Candidate>>& lists,
                                                    bool borrowing) const;
  double share_with(int tenant, int resource, int delta) const;
  // A node of the cohort tree under fair sharing: a tenant's ClusterQueue, or a cohort (tenant < 0).
  struct Node {
    int tenant = -1;
    std::string cohort;
  };
  // Devices added to (or, negative, removed from) one tenant's usage of one resource, to weigh a share with them.
  struct Delta {
    int tenant = -1;
    int resource = -1;
    int amount = 0;
  };
  double node_share(const Node& node, const Delta& delta) const;
  std::vector<Node> path(int tenant) const;  // its queue, then its cohorts up to the root
  std::pair<Node, Node> below_common_cohort(int a, int b) const;
  size_t tournament(const std::string& cohort, const std::vector<size_t>& members,
                    const std::vector<QuotaRequest>& heads) const;
  int target_queue(const std::string& cohort, const QuotaRequest& r, int resource,
                   const std::map<int, std::deque<Admission>>& queues) const;
  std::optional<std::vector<int>> fair_preemptions(const QuotaRequest& r, int resource,
                                                   const std::vector<Admission>& candidates) const;
  bool frees_for(const QuotaRequest& r, int resource, const Admission& victim) const;
  std::vector<int> fill_back(QuotaBook& trial, const QuotaRequest& r, int resource, std::vector<Admission> targets,
                             bool allow_borrowing) const;
  void add(const Admission& a);
  void remove(const Admission& a);

  std::vector<std::string> resources_;  // in name order
  std::vector<QuotaTree> trees_;        // by resource index
  std::vector<Tenant> tenants_;
  std::vector<Admission> admitted_;
  FairSharingSpec fair_;
  std::vector<std::vector<std::string>> ancestors_;  // by tenant: its cohorts, nearest first
  std::map<std::string, double> cohort_weights_;     // Cohort objects' fairSharing.weight
  uint64_t next_order_ = 0;
};

}  // namespace gtw
