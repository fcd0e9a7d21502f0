#include "QuotaTree.hpp"

#include <algorithm>
#include <limits>

namespace gtw {

namespace {
// The cohort every tenant with the scenario's own quota (no ClusterQueue) belongs to.
const char* const IMPLICIT_COHORT = "(tenants with a quota)";
}  // namespace

int QuotaTree::cohort_node(const std::string& name) {
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].tenant < 0 && nodes_[i].name == name) return static_cast<int>(i);
  nodes_.push_back({name, -1, 0, -1, -1, -1});
  return static_cast<int>(nodes_.size() - 1);
}

QuotaTree::QuotaTree(const std::vector<TenantSpec>& tenants, Diagnostics* diags) {
  leaf_of_.assign(tenants.size(), -1);
  std::vector<const CohortSpec*> defined;  // by node index, the Cohort object that defined it
  for (size_t t = 0; t < tenants.size(); ++t) {
    const TenantSpec& ts = tenants[t];
    if (ts.quota_gpus < 0) continue;
    leaf_of_[t] = static_cast<int>(nodes_.size());
    nodes_.push_back({ts.name, -1, ts.quota_gpus, ts.borrowing_limit, ts.lending_limit, static_cast<int>(t)});
    const std::string cohort = ts.cluster_queue.empty() && ts.cohort.empty() ? IMPLICIT_COHORT : ts.cohort;
    if (cohort.empty()) continue;  // a ClusterQueue without a cohort stands alone
    nodes_[static_cast<size_t>(leaf_of_[t])].parent = cohort_node(cohort);
    for (const CohortSpec& c : ts.cohort_chain) {
      const int n = cohort_node(c.name);
      defined.resize(nodes_.size(), nullptr);
      if (const CohortSpec* before = defined[static_cast<size_t>(n)]) {
        const bool same = before->parent == c.parent && before->quota_gpus == c.quota_gpus &&
                          before->borrowing_limit == c.borrowing_limit && before->lending_limit == c.lending_limit;
        if (!same && diags)
          diags->error(c.loc, "spec.tenants[" + std::to_string(t) + "].quota.kueue",
                       "Cohort '" + c.name + "' is defined differently here than for another tenant's ClusterQueue");
        continue;
      }
      defined[static_cast<size_t>(n)] = &c;
      Node& node = nodes_[static_cast<size_t>(n)];
      node.nominal = c.quota_gpus;
      node.borrowing_limit = c.borrowing_limit;
      node.lending_limit = c.lending_limit;
      if (!c.parent.empty()) {
        const int p = cohort_node(c.parent);
        nodes_[static_cast<size_t>(n)].parent = p;
      }
    }
  }
  // A parent cycle would make every walk to the root endless: cut it where it closes.
  for (size_t n = 0; n < nodes_.size(); ++n) {
    std::vector<bool> seen(nodes_.size(), false);
    for (int x = static_cast<int>(n); x >= 0; x = nodes_[static_cast<size_t>(x)].parent) {
      if (seen[static_cast<size_t>(x)]) {
        if (diags)
          diags->error(SourceLoc{}, "spec.tenants",
                       "the Kueue cohorts above '" + nodes_[n].name + "' form a cycle through '" +
                           nodes_[static_cast<size_t>(x)].name + "'");
        for (auto& node : nodes_)
          if (node.parent == x) node.parent = -1;
        break;
      }
      seen[static_cast<size_t>(x)] = true;
    }
  }
  children_.assign(nodes_.size(), {});
  for (size_t n = 0; n < nodes_.size(); ++n)
    if (nodes_[n].parent >= 0) children_[static_cast<size_t>(nodes_[n].parent)].push_back(static_cast<int>(n));
}

int QuotaTree::root(int node) const {
  while (nodes_[static_cast<size_t>(node)].parent >= 0) node = nodes_[static_cast<size_t>(node)].parent;
  return node;
}

int QuotaTree::subtree_quota(int node) const {
  int q = nodes_[static_cast<size_t>(node)].nominal;
  for (int c : children_[static_cast<size_t>(node)]) q += subtree_quota(c) - guaranteed(c);
  return q;
}

// The part of a node's subtree quota its lendingLimit keeps for it (all of it is lent without a limit).
int QuotaTree::guaranteed(int node) const {
  const int limit = nodes_[static_cast<size_t>(node)].lending_limit;
  return limit >= 0 ? std::max(0, subtree_quota(node) - limit) : 0;
}

// A leaf's GPUs in use; a cohort's, what its children use beyond their guaranteed parts.
int QuotaTree::usage(int node, const std::vector<int>& used) const {
  const Node& n = nodes_[static_cast<size_t>(node)];
  if (n.tenant >= 0) return static_cast<size_t>(n.tenant) < used.size() ? used[static_cast<size_t>(n.tenant)] : 0;
  int u = 0;
  for (int c : children_[static_cast<size_t>(node)]) u += std::max(0, usage(c, used) - guaranteed(c));
  return u;
}

int QuotaTree::available_at(int node, const std::vector<int>& used) const {
  const Node& n = nodes_[static_cast<size_t>(node)];
  const int u = usage(node, used);
  if (n.parent < 0) return subtree_quota(node) - u;
  const int g = guaranteed(node);
  const int local = std::max(0, g - u);
  int from_parent = available_at(n.parent, used);
  if (n.borrowing_limit >= 0) {
    const int stored_in_parent = subtree_quota(node) - g;
    const int used_in_parent = std::max(0, u - g);
    from_parent = std::min(from_parent, stored_in_parent - used_in_parent + n.borrowing_limit);
  }
  return local + from_parent;
}

int QuotaTree::available(int tenant, const std::vector<int>& used) const {
  if (tenant < 0 || static_cast<size_t>(tenant) >= leaf_of_.size() || leaf_of_[static_cast<size_t>(tenant)] < 0)
    return std::numeric_limits<int>::max();
  return available_at(leaf_of_[static_cast<size_t>(tenant)], used);
}

bool QuotaTree::same_tree(int a, int b) const {
  const auto leaf = [&](int t) {
    return t >= 0 && static_cast<size_t>(t) < leaf_of_.size() ? leaf_of_[static_cast<size_t>(t)] : -1;
  };
  return leaf(a) >= 0 && leaf(b) >= 0 && root(leaf(a)) == root(leaf(b));
}

int QuotaTree::tree_quota(int tenant) const {
  const int leaf =
      tenant >= 0 && static_cast<size_t>(tenant) < leaf_of_.size() ? leaf_of_[static_cast<size_t>(tenant)] : -1;
  return leaf < 0 ? 0 : subtree_quota(root(leaf));
}

}  // namespace gtw
