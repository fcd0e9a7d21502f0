#pragma once
// The tree of GPU quotas that Kueue's cohorts form (docs/models/quotas.md): tenants with a quota are its leaves,
// cohorts its inner nodes. A node's subtree quota is its own nominal quota plus what its children lend
// (their subtree quota less the part their lendingLimit keeps back, the guaranteed part); its usage counts
// against its guaranteed part first and the rest against its parent. What a tenant may still take is its
// guaranteed part left plus what its parent has left, capped by its borrowingLimit, up to the root: Kueue's
// hierarchical-cohort rule for one resource. Tenants whose quota is the scenario's own (no ClusterQueue) share
// one implicit cohort, as the flat model always had them; a ClusterQueue without a cohort stands alone.
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Scenario.hpp"

namespace gtw {

class QuotaTree {
 public:
  /// The tree of `tenants`' quotas; inconsistent cohort definitions (one name, two definitions; a parent cycle)
  /// are reported to `diags` when given.
  explicit QuotaTree(const std::vector<TenantSpec>& tenants, Diagnostics* diags = nullptr);

  /// GPUs the tenant may still take with `used[t]` GPUs in use per tenant (0 for a tenant without a quota).
  int available(int tenant, const std::vector<int>& used) const;
  /// Whether two tenants' quotas are in one tree (they lend to and borrow from each other, directly or not).
  bool same_tree(int a, int b) const;
  /// The quota shared by the tenant's whole tree (every nominal quota in it that is lent upwards to the root).
  int tree_quota(int tenant) const;

 private:
  struct Node {
    std::string name;
    int parent = -1;
    int nominal = 0;
    int borrowing_limit = -1;
    int lending_limit = -1;
    int tenant = -1;  // a leaf's tenant
  };
  int cohort_node(const std::string& name);
  int root(int node) const;
  int subtree_quota(int node) const;
  int guaranteed(int node) const;
  int usage(int node, const std::vector<int>& used) const;
  int available_at(int node, const std::vector<int>& used) const;

  std::vector<Node> nodes_;
  std::vector<std::vector<int>> children_;
  std::vector<int> leaf_of_;  // tenant -> node, -1 without a quota
};

}  // namespace gtw
