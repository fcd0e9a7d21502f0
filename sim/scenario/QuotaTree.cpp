#include "QuotaTree.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <utility>

namespace gtw {

namespace {
// The cohort every tenant with the scenario's own quota (no ClusterQueue) belongs to.
const char* const IMPLICIT_COHORT = "(tenants with a quota)";

// A plain cohort (a name without a Cohort object) defines nothing: no location, parent, quota or limits.
// One file however it was named (./k.yaml, k.yaml, a link to it).
bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return !ec && same;
}

bool has_object(const CohortSpec& c) {
  return !c.loc.file.empty() || c.loc.line > 0 || !c.parent.empty() || !c.quotas.empty();
}

// The quota of one resource; a resource not listed has none (nominal 0, no limits).
ResourceQuota quota_of(const ResourceQuotas& quotas, const std::string& resource) {
  const auto it = quotas.find(resource);
  return it == quotas.end() ? ResourceQuota{} : it->second;
}
}  // namespace

int QuotaTree::find_cohort(const std::string& name) const {
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].tenant < 0 && !nodes_[i].lender_queue && nodes_[i].name == name) return static_cast<int>(i);
  return -1;
}

int QuotaTree::cohort_node(const std::string& name) {
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].tenant < 0 && !nodes_[i].lender_queue && nodes_[i].name == name) return static_cast<int>(i);
  Node n;
  n.name = name;
  nodes_.push_back(n);
  return static_cast<int>(nodes_.size() - 1);
}

// A cohort as a Cohort object gives it; a name without an object (a plain cohort) defines nothing, and one
// object read through two tenants' files must say the same both times.
void QuotaTree::define_cohort(const CohortSpec& c, std::vector<const CohortSpec*>& defined, Diagnostics* diags) {
  const int n = cohort_node(c.name);
  if (!has_object(c)) return;
  defined.resize(nodes_.size(), nullptr);
  if (const CohortSpec* before = defined[static_cast<size_t>(n)]) {
    const bool same = before->parent == c.parent && before->quotas == c.quotas && before->fair_weight == c.fair_weight;
    if (!same && diags)
      diags->error(c.loc, "Cohort[" + c.name + "]",
                   "Cohort '" + c.name + "' is defined differently here than at " + before->loc.file + ":" +
                       std::to_string(before->loc.line));
    return;
  }
  defined[static_cast<size_t>(n)] = &c;
  const int parent = c.parent.empty() ? -1 : cohort_node(c.parent);
  Node& node = nodes_[static_cast<size_t>(n)];
  const ResourceQuota q = quota_of(c.quotas, resource_);
  node.nominal = q.nominal;
  node.borrowing_limit = q.borrowing_limit;
  node.lending_limit = q.lending_limit;
  node.fair_weight = c.fair_weight;
  node.parent = parent;
  node.loc = c.loc;
}

// A ClusterQueue of a tenant's tree that no tenant has: it lends its quota and uses none.
void QuotaTree::add_lender_queue(const CohortSpec& q, const std::vector<TenantSpec>& tenants) {
  for (const auto& t : tenants)
    if (t.cluster_queue == q.name) return;  // the tenant's own leaf
  for (const auto& n : nodes_)
    if (n.lender_queue && n.name == q.name) return;
  Node n;
  n.name = q.name;
  const ResourceQuota quota = quota_of(q.quotas, resource_);
  n.nominal = quota.nominal;
  n.borrowing_limit = quota.borrowing_limit;
  n.lending_limit = quota.lending_limit;
  n.lender_queue = true;
  n.loc = q.loc;
  nodes_.push_back(n);
  const int parent = q.parent.empty() ? -1 : cohort_node(q.parent);
  nodes_.back().parent = parent;
}

QuotaTree::QuotaTree(const std::vector<TenantSpec>& tenants, std::string resource, Diagnostics* diags)
    : resource_(std::move(resource)) {
  leaf_of_.assign(tenants.size(), -1);
  std::vector<const CohortSpec*> defined;  // by node index, the Cohort object that defined it
  for (size_t t = 0; t < tenants.size(); ++t) {
    const TenantSpec& ts = tenants[t];
    const auto quota = ts.quotas.find(resource_);
    if (!ts.has_quota || quota == ts.quotas.end()) continue;  // no quota of this resource: not in its tree
    leaf_of_[t] = static_cast<int>(nodes_.size());
    Node leaf;
    leaf.name = ts.name;
    leaf.nominal = quota->second.nominal;
    leaf.borrowing_limit = quota->second.borrowing_limit;
    leaf.lending_limit = quota->second.lending_limit;
    leaf.tenant = static_cast<int>(t);
    leaf.loc = ts.cluster_queue_loc;
    nodes_.push_back(leaf);
    const std::string cohort = ts.cluster_queue.empty() && ts.cohort.empty() ? IMPLICIT_COHORT : ts.cohort;
    if (cohort.empty()) continue;  // a ClusterQueue without a cohort stands alone
    const int parent = cohort_node(cohort);
    nodes_[static_cast<size_t>(leaf_of_[t])].parent = parent;
    for (const CohortSpec& c : ts.cohort_chain) define_cohort(c, defined, diags);
    for (const CohortSpec& c : ts.cohort_tree)
      if (!c.cluster_queue) define_cohort(c, defined, diags);
  }
  for (const auto& ts : tenants)
    for (const CohortSpec& c : ts.cohort_tree)
      if (c.cluster_queue) {
        // Kueue names are cluster-wide: a queue that is a tenant's quota in one file and another queue of the
        // same name in a second file cannot both be the cluster's.
        for (const auto& other : tenants)
          if (other.cluster_queue == c.name && !same_file(other.cluster_queue_loc.file, c.loc.file) && diags)
            diags->error(c.loc, "ClusterQueue[" + c.name + "]",
                         "ClusterQueue '" + c.name + "' is tenant '" + other.name + "''s quota as " +
                             other.cluster_queue_loc.file +
                             " defines it; this file defines another queue of that "
                             "name (Kueue names are unique per kind)");
        add_lender_queue(c, tenants);
      }
  cut_cycles(diags);
  children_.assign(nodes_.size(), {});
  for (size_t n = 0; n < nodes_.size(); ++n)
    if (nodes_[n].parent >= 0) children_[static_cast<size_t>(nodes_[n].parent)].push_back(static_cast<int>(n));
  subtree_quota_.assign(nodes_.size(), 0);
  guaranteed_.assign(nodes_.size(), 0);
  for (size_t n = 0; n < nodes_.size(); ++n)
    if (nodes_[n].parent < 0) cache_quotas(static_cast<int>(n));
}

// A parent cycle would make every walk to the root endless: it is reported once, at the Cohort object where it
// closes, and cut there.
void QuotaTree::cut_cycles(Diagnostics* diags) {
  for (size_t n = 0; n < nodes_.size(); ++n) {
    std::vector<bool> seen(nodes_.size(), false);
    for (int x = static_cast<int>(n); x >= 0; x = nodes_[static_cast<size_t>(x)].parent) {
      if (!seen[static_cast<size_t>(x)]) {
        seen[static_cast<size_t>(x)] = true;
        continue;
      }
      Node& closing = nodes_[static_cast<size_t>(x)];
      std::string ring = closing.name;
      for (int y = closing.parent; y >= 0 && y != x; y = nodes_[static_cast<size_t>(y)].parent)
        ring += " -> " + nodes_[static_cast<size_t>(y)].name;
      if (diags)
        diags->error(closing.loc, "Cohort[" + closing.name + "].spec",
                     "the Kueue cohorts form a cycle of parents (" + ring + " -> " + closing.name +
                         "); Kueue's cohorts must form a tree");
      closing.parent = -1;
      break;
    }
  }
}

void QuotaTree::cache_quotas(int node) {
  const auto n = static_cast<size_t>(node);
  int64_t q = nodes_[n].nominal;
  for (int c : children_[n]) {
    cache_quotas(c);
    q += subtree_quota_[static_cast<size_t>(c)] - guaranteed_[static_cast<size_t>(c)];
  }
  subtree_quota_[n] = q;
  const int limit = nodes_[n].lending_limit;
  guaranteed_[n] = limit >= 0 ? std::max<int64_t>(0, q - limit) : 0;
}

int QuotaTree::root(int node) const {
  while (nodes_[static_cast<size_t>(node)].parent >= 0) node = nodes_[static_cast<size_t>(node)].parent;
  return node;
}

// A tenant's GPUs in use; a cohort's, what its children use beyond their guaranteed parts; a lender queue's none.
int64_t QuotaTree::usage(int node, const std::vector<int>& used) const {
  const Node& n = nodes_[static_cast<size_t>(node)];
  if (n.tenant >= 0) return static_cast<size_t>(n.tenant) < used.size() ? used[static_cast<size_t>(n.tenant)] : 0;
  int64_t u = 0;
  for (int c : children_[static_cast<size_t>(node)])
    u += std::max<int64_t>(0, usage(c, used) - guaranteed_[static_cast<size_t>(c)]);
  return u;
}

int64_t QuotaTree::available_at(int node, const std::vector<int>& used) const {
  const auto i = static_cast<size_t>(node);
  const Node& n = nodes_[i];
  const int64_t u = usage(node, used);
  if (n.parent < 0) return subtree_quota_[i] - u;
  const int64_t g = guaranteed_[i];
  const int64_t local = std::max<int64_t>(0, g - u);
  int64_t from_parent = available_at(n.parent, used);
  if (n.borrowing_limit >= 0) {
    const int64_t stored_in_parent = subtree_quota_[i] - g;
    const int64_t used_in_parent = std::max<int64_t>(0, u - g);
    from_parent = std::min(from_parent, stored_in_parent - used_in_parent + n.borrowing_limit);
  }
  return local + from_parent;
}

int QuotaTree::available(int tenant, const std::vector<int>& used) const {
  if (tenant < 0 || static_cast<size_t>(tenant) >= leaf_of_.size() || leaf_of_[static_cast<size_t>(tenant)] < 0)
    return std::numeric_limits<int>::max();
  const int64_t a = available_at(leaf_of_[static_cast<size_t>(tenant)], used);
  return static_cast<int>(std::clamp<int64_t>(a, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

bool QuotaTree::same_tree(int a, int b) const {
  const auto leaf = [&](int t) {
    return t >= 0 && static_cast<size_t>(t) < leaf_of_.size() ? leaf_of_[static_cast<size_t>(t)] : -1;
  };
  return leaf(a) >= 0 && leaf(b) >= 0 && root(leaf(a)) == root(leaf(b));
}

double weighted_share(const std::vector<BorrowedResource>& resources, double weight) {
  double dominant = 0;
  bool borrows = false;
  for (const BorrowedResource& r : resources) {
    if (r.borrowed <= 0 || r.lendable <= 0) continue;
    borrows = true;
    dominant = std::max(dominant, static_cast<double>(r.borrowed) * 1000.0 / static_cast<double>(r.lendable));
  }
  if (!borrows) return 0;
  return weight > 0 ? dominant / weight : std::numeric_limits<double>::infinity();
}

// Kueue's potentialAvailable: what a node could obtain with every other node idle.
int64_t QuotaTree::potential_available(int node) const {
  const auto i = static_cast<size_t>(node);
  const Node& n = nodes_[i];
  if (n.parent < 0) return subtree_quota_[i];
  int64_t p = guaranteed_[i] + potential_available(n.parent);
  if (n.borrowing_limit >= 0) p = std::min<int64_t>(p, subtree_quota_[i] + n.borrowing_limit);
  return p;
}

int64_t QuotaTree::lendable(int tenant) const {
  const int leaf =
      tenant >= 0 && static_cast<size_t>(tenant) < leaf_of_.size() ? leaf_of_[static_cast<size_t>(tenant)] : -1;
  if (leaf < 0) return 0;
  const int parent = nodes_[static_cast<size_t>(leaf)].parent;
  return parent < 0 ? 0 : potential_available(parent);
}

std::vector<std::string> QuotaTree::ancestors(int tenant) const {
  std::vector<std::string> out;
  const int leaf =
      tenant >= 0 && static_cast<size_t>(tenant) < leaf_of_.size() ? leaf_of_[static_cast<size_t>(tenant)] : -1;
  if (leaf < 0) return out;
  for (int n = nodes_[static_cast<size_t>(leaf)].parent; n >= 0; n = nodes_[static_cast<size_t>(n)].parent)
    out.push_back(nodes_[static_cast<size_t>(n)].name);
  return out;
}

BorrowedResource QuotaTree::cohort_borrowed(const std::string& cohort, const std::vector<int>& used) const {
  const int n = find_cohort(cohort);
  if (n < 0) return {};
  const int parent = nodes_[static_cast<size_t>(n)].parent;
  return {.borrowed = usage(n, used) - subtree_quota_[static_cast<size_t>(n)],
          .lendable = parent < 0 ? 0 : potential_available(parent)};
}

std::vector<QuotaTree::ReclaimQueue> QuotaTree::reclaim_queues(int tenant, int64_t amount,
                                                               const std::vector<int>& used) const {
  std::vector<ReclaimQueue> out;
  const int leaf =
      tenant >= 0 && static_cast<size_t>(tenant) < leaf_of_.size() ? leaf_of_[static_cast<size_t>(tenant)] : -1;
  if (leaf < 0 || nodes_[static_cast<size_t>(leaf)].parent < 0) return out;
  const auto l = static_cast<size_t>(leaf);
  const int64_t own = usage(leaf, used);
  bool advantage = own + amount <= subtree_quota_[l];
  int64_t remaining = amount - std::max<int64_t>(0, guaranteed_[l] - own);
  int searched = -1;
  for (int node = nodes_[l].parent; node >= 0; node = nodes_[static_cast<size_t>(node)].parent) {
    const auto n = static_cast<size_t>(node);
    collect_borrowers(node, nodes_[n].name, searched, tenant, advantage, used, out);
    const int64_t u = usage(node, used);
    advantage = advantage || u + remaining <= subtree_quota_[n];
    remaining -= std::max<int64_t>(0, guaranteed_[n] - u);
    searched = node;
  }
  return out;
}

// The queues under `node` that use more than their nominal quota, through the child cohorts that use more than
// theirs (a subtree within its quota borrows nothing from the claimant's side), past the subtree `skip`.
void QuotaTree::collect_borrowers(int node, const std::string& subtree_root, int skip, int claimant, bool advantage,
                                  const std::vector<int>& used, std::vector<ReclaimQueue>& out) const {
  for (int c : children_[static_cast<size_t>(node)]) {
    const Node& child = nodes_[static_cast<size_t>(c)];
    if (c == skip || child.lender_queue || child.tenant == claimant) continue;
    if (usage(c, used) <= subtree_quota_[static_cast<size_t>(c)]) continue;
    if (child.tenant >= 0)
      out.push_back({.tenant = child.tenant, .advantage = advantage, .subtree_root = subtree_root});
    else
      collect_borrowers(c, subtree_root, skip, claimant, advantage, used, out);
  }
}

bool QuotaTree::still_borrowing(int tenant, const std::string& subtree_root, const std::vector<int>& used) const {
  const int leaf =
      tenant >= 0 && static_cast<size_t>(tenant) < leaf_of_.size() ? leaf_of_[static_cast<size_t>(tenant)] : -1;
  if (leaf < 0 || usage(leaf, used) <= subtree_quota_[static_cast<size_t>(leaf)]) return false;
  for (int n = nodes_[static_cast<size_t>(leaf)].parent;
       n >= 0 && nodes_[static_cast<size_t>(n)].parent >= 0 && nodes_[static_cast<size_t>(n)].name != subtree_root;
       n = nodes_[static_cast<size_t>(n)].parent)
    if (usage(n, used) <= subtree_quota_[static_cast<size_t>(n)]) return false;
  return true;
}

double QuotaTree::cohort_weight(const std::string& cohort) const {
  const int n = find_cohort(cohort);
  return n < 0 ? 1.0 : nodes_[static_cast<size_t>(n)].fair_weight;
}

int QuotaTree::tree_quota(int tenant) const {
  const int leaf =
      tenant >= 0 && static_cast<size_t>(tenant) < leaf_of_.size() ? leaf_of_[static_cast<size_t>(tenant)] : -1;
  return leaf < 0 ? 0
                  : static_cast<int>(std::min<int64_t>(subtree_quota_[static_cast<size_t>(root(leaf))],
                                                       std::numeric_limits<int>::max()));
}

}  // namespace gtw
