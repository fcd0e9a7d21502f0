#pragma once
// The tree of one resource's quotas that Kueue's cohorts form (docs/models/quotas.md): ClusterQueues are its leaves
// (the tenants', and those of the file that no tenant has, which lend their quota unused), cohorts its inner nodes. A
// node's subtree quota is its own nominal quota plus what its children lend (their subtree quota less the part their
// lendingLimit keeps back, the guaranteed part); its usage counts against its guaranteed part first and the rest
// against its parent. What a tenant may still take is its guaranteed part left plus what its parent has left, capped by
// its borrowingLimit, up to the root: Kueue's hierarchical-cohort rule for one resource (Kueue keeps each resource's
// quota apart: one tree per resource). Tenants whose quota is the scenario's own (no ClusterQueue) share one implicit
// cohort, as the flat model always had them; a ClusterQueue without a cohort stands alone.
#include <cstdint>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Scenario.hpp"

namespace gtw {

/// One resource of a ClusterQueue under fair sharing: devices it uses beyond its nominal quota (<= 0: none), and
/// what its cohort could lend it (QuotaTree::lendable).
struct BorrowedResource {
  int64_t borrowed = 0;
  int64_t lendable = 0;
};
/// Kueue's weighted dominant resource share: the largest, over the resources it borrows, of borrowed x 1000 /
/// lendable, divided by the queue's weight; infinite for weight 0 while borrowing; 0 while it borrows nothing.
double weighted_share(const std::vector<BorrowedResource>& resources, double weight);

class QuotaTree {
 public:
  /// The tree of `tenants`' quotas of `resource` (tenants without a quota of it are not in it); inconsistent
  /// cohort definitions (one name, two definitions; a parent cycle) are reported to `diags` when given.
  QuotaTree(const std::vector<TenantSpec>& tenants, std::string resource, Diagnostics* diags = nullptr);

  const std::string& resource() const { return resource_; }
  /// Devices the tenant may still take with `used[t]` in use per tenant (0 for a tenant without a quota).
  int available(int tenant, const std::vector<int>& used) const;
  /// Whether two tenants' quotas are in one tree (they lend to and borrow from each other, directly or not).
  bool same_tree(int a, int b) const;
  /// What the tenant's cohort could obtain at most (Kueue's lendable resources, the denominator of a ClusterQueue's
  /// fair-sharing share): a root cohort's subtree quota; below it, its guaranteed part plus what its parent could
  /// obtain, within its borrowingLimit. 0 for a tenant without a cohort (no share).
  int64_t lendable(int tenant) const;
  /// The cohorts above the tenant's queue, nearest first (the root last); empty without a cohort.
  std::vector<std::string> ancestors(int tenant) const;
  /// A cohort's borrowing with `used[t]` in use per tenant: what its subtree uses beyond its subtree quota, and
  /// what its parent could obtain (0 for a root: no share). Zeros for a cohort not in this tree.
  BorrowedResource cohort_borrowed(const std::string& cohort, const std::vector<int>& used) const;
  /// Kueue's hierarchical reclaim (classical preemption): the other queues whose workloads the tenant's request
  /// may preempt, found cohort by cohort from its own up (in each, the subtrees that borrow, past the one already
  /// searched). `advantage`: the claimant's side fits the request within quota at or below `subtree_root`, so it
  /// may preempt them whatever their priority and while borrowing.
  struct ReclaimQueue {
    int tenant = -1;
    bool advantage = false;
    std::string subtree_root;
  };
  std::vector<ReclaimQueue> reclaim_queues(int tenant, int64_t amount, const std::vector<int>& used) const;
  /// Whether the tenant's queue, and every cohort above it below `subtree_root`, still use more than their quota.
  bool still_borrowing(int tenant, const std::string& subtree_root, const std::vector<int>& used) const;
  /// A cohort's fairSharing.weight (1 without a Cohort object that gives one).
  double cohort_weight(const std::string& cohort) const;
  /// The quota shared by the tenant's whole tree (every nominal quota in it that is lent upwards to the root).
  int tree_quota(int tenant) const;

 private:
  struct Node {
    std::string name;
    int parent = -1;
    int nominal = 0;
    int borrowing_limit = -1;
    int lending_limit = -1;
    double fair_weight = 1.0;   // a Cohort object's fairSharing.weight
    int tenant = -1;            // a tenant's leaf
    bool lender_queue = false;  // a ClusterQueue no tenant has: a leaf with no usage
    SourceLoc loc;              // where the node is defined (a Cohort object, a ClusterQueue)
  };
  int cohort_node(const std::string& name);
  int find_cohort(const std::string& name) const;
  void define_cohort(const CohortSpec& c, std::vector<const CohortSpec*>& defined, Diagnostics* diags);
  void add_lender_queue(const CohortSpec& q, const std::vector<TenantSpec>& tenants);
  void cut_cycles(Diagnostics* diags);
  void cache_quotas(int node);
  int root(int node) const;
  // Sums in 64 bits: many queues of up to 9,999,999 GPUs each would pass an int.
  int64_t usage(int node, const std::vector<int>& used) const;
  int64_t available_at(int node, const std::vector<int>& used) const;
  int64_t potential_available(int node) const;
  void collect_borrowers(int node, const std::string& subtree_root, int skip, int claimant, bool advantage,
                         const std::vector<int>& used, std::vector<ReclaimQueue>& out) const;

  std::string resource_;
  std::vector<Node> nodes_;
  std::vector<std::vector<int>> children_;
  std::vector<int64_t> subtree_quota_;  // own nominal + what the children lend
  std::vector<int64_t> guaranteed_;     // the part of the subtree quota the lendingLimit keeps back
  std::vector<int> leaf_of_;            // tenant -> node, -1 without a quota
};

}  // namespace gtw
