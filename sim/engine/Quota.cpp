#include "Quota.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace gtw {

QuotaBook::QuotaBook(const std::vector<TenantSpec>& tenants, FairSharingSpec fair_sharing)
    : fair_(std::move(fair_sharing)) {
  std::set<std::string> names;
  for (const auto& t : tenants) {
    if (!t.has_quota) continue;
    for (const auto& [name, q] : t.quotas) names.insert(name);
  }
  resources_.assign(names.begin(), names.end());
  for (const auto& name : resources_) trees_.emplace_back(tenants, name);
  for (const auto& t : tenants) {
    Tenant tq;
    tq.managed = t.has_quota;
    tq.preemption = t.preemption;
    tq.weight = t.fair_weight;
    for (const auto& name : resources_) {
      const auto it = t.quotas.find(name);
      tq.nominal.push_back(t.has_quota && it != t.quotas.end() ? it->second.nominal : -1);
    }
    tq.used.assign(resources_.size(), 0);
    tenants_.push_back(std::move(tq));
  }
  // The cohorts above each queue: the same in every resource's tree (Kueue has one tree for all resources).
  for (size_t t = 0; t < tenants.size(); ++t) {
    ancestors_.emplace_back();
    for (size_t i = 0; i < resources_.size() && ancestors_.back().empty(); ++i)
      ancestors_.back() = trees_[i].ancestors(static_cast<int>(t));
    for (const auto& list : {tenants[t].cohort_chain, tenants[t].cohort_tree})
      for (const CohortSpec& c : list)
        if (!c.cluster_queue) cohort_weights_.emplace(c.name, c.fair_weight);
  }
}

bool QuotaBook::managed(int tenant) const {
  return tenant >= 0 && static_cast<size_t>(tenant) < tenants_.size() && tenants_[static_cast<size_t>(tenant)].managed;
}

int QuotaBook::resource_index(const std::string& resource) const {
  const auto it = std::lower_bound(resources_.begin(), resources_.end(), resource);
  return it != resources_.end() && *it == resource ? static_cast<int>(it - resources_.begin()) : -1;
}

bool QuotaBook::covers(int tenant, const std::string& resource) const {
  const int r = resource_index(resource);
  return managed(tenant) && r >= 0 && tenants_[static_cast<size_t>(tenant)].nominal[static_cast<size_t>(r)] >= 0;
}

int QuotaBook::nominal(int tenant, const std::string& resource) const {
  return covers(tenant, resource)
             ? tenants_[static_cast<size_t>(tenant)].nominal[static_cast<size_t>(resource_index(resource))]
             : 0;
}

int QuotaBook::used(int tenant, const std::string& resource) const {
  const int r = resource_index(resource);
  return managed(tenant) && r >= 0 ? tenants_[static_cast<size_t>(tenant)].used[static_cast<size_t>(r)] : 0;
}

int QuotaBook::borrowed_at(int tenant, int resource) const {
  const auto& t = tenants_.at(static_cast<size_t>(tenant));
  const auto r = static_cast<size_t>(resource);
  return std::max(0, t.used[r] - std::max(0, t.nominal[r]));
}

int QuotaBook::borrowed(int tenant, const std::string& resource) const {
  const int r = resource_index(resource);
  return managed(tenant) && r >= 0 ? borrowed_at(tenant, r) : 0;
}

std::vector<int> QuotaBook::used_by_tenant(int resource) const {
  std::vector<int> used;
  used.reserve(tenants_.size());
  for (const auto& t : tenants_) used.push_back(t.used[static_cast<size_t>(resource)]);
  return used;
}

// Kueue's lendingLimit and borrowingLimit, at every level of the cohort tree (QuotaTree::available).
bool QuotaBook::fits_at(const QuotaRequest& r, int resource, bool allow_borrowing) const {
  const auto& t = tenants_.at(static_cast<size_t>(r.tenant));
  const auto i = static_cast<size_t>(resource);
  if (t.nominal[i] < 0) return false;
  if (!allow_borrowing && t.used[i] + r.amount > t.nominal[i]) return false;
  return trees_[i].available(r.tenant, used_by_tenant(resource)) >= r.amount;
}

bool QuotaBook::fits(const QuotaRequest& r, bool allow_borrowing) const {
  const int resource = resource_index(r.resource);
  return managed(r.tenant) && resource >= 0 && fits_at(r, resource, allow_borrowing);
}

// Kueue's findCandidates: its own queue's lower priorities (withinClusterQueue), and the workloads of the other
// queues of its tree that borrow the resource (reclaimWithinCohort: any of them, or those of lower priority).
std::vector<QuotaBook::Admission> QuotaBook::candidates(const QuotaRequest& r, int resource) const {
  const QuotaPreemptionSpec& policy = tenants_[static_cast<size_t>(r.tenant)].preemption;
  std::vector<Admission> out;
  for (const Admission& a : admitted_) {
    const QuotaRequest& c = a.request;
    if (c.resource != r.resource) continue;
    if (c.tenant == r.tenant) {
      if (policy.within_cluster_queue == PreemptionPolicy::NEVER || c.priority > r.priority) continue;
      const bool newer_equal =
          policy.within_cluster_queue == PreemptionPolicy::LOWER_OR_NEWER_EQUAL_PRIORITY && r.submitted < c.submitted;
      if (c.priority == r.priority && !newer_equal) continue;
    } else {
      if (policy.reclaim_within_cohort == PreemptionPolicy::NEVER) continue;
      if (!trees_[static_cast<size_t>(resource)].same_tree(c.tenant, r.tenant) || borrowed_at(c.tenant, resource) <= 0)
        continue;
      if (policy.reclaim_within_cohort == PreemptionPolicy::LOWER_PRIORITY && c.priority >= r.priority) continue;
    }
    out.push_back(a);
  }
  // Other queues' first, then lower priority, then the most recently admitted.
  std::sort(out.begin(), out.end(), [&](const Admission& a, const Admission& b) {
    const bool a_other = a.request.tenant != r.tenant, b_other = b.request.tenant != r.tenant;
    if (a_other != b_other) return a_other;
    if (a.request.priority != b.request.priority) return a.request.priority < b.request.priority;
    return a.order > b.order;
  });
  return out;
}

// Kueue's dominant resource share of a ClusterQueue, with `delta` devices of `resource` (an index; -1: none)
// added: for each resource it borrows (its usage beyond its nominal quota), borrowed x 1000 / what its cohort could
// lend it; the largest, over its weight.
double QuotaBook::share_with(int tenant, int resource, int delta) const {
  if (!managed(tenant)) return 0;
  const auto& t = tenants_[static_cast<size_t>(tenant)];
  std::vector<BorrowedResource> borrowed;
  for (size_t i = 0; i < resources_.size(); ++i) {
    if (t.nominal[i] < 0) continue;
    borrowed.push_back(
        {.borrowed = int64_t{t.used[i]} + (static_cast<int>(i) == resource ? delta : 0) - int64_t{t.nominal[i]},
         .lendable = trees_[i].lendable(tenant)});
  }
  return weighted_share(borrowed, t.weight);
}

double QuotaBook::share(int tenant, const QuotaRequest* with) const {
  if (with && with->tenant == tenant) return share_with(tenant, resource_index(with->resource), with->amount);
  return share_with(tenant, -1, 0);
}

// A queue's share, or a cohort's: what its subtree uses beyond its subtree quota, over what its parent could
// obtain, the largest over the resources, divided by the cohort's weight.
double QuotaBook::node_share(const Node& node, const Delta& delta) const {
  if (node.tenant >= 0) return share_with(node.tenant, delta.tenant == node.tenant ? delta.resource : -1, delta.amount);
  std::vector<BorrowedResource> borrowed;
  for (size_t i = 0; i < resources_.size(); ++i) {
    std::vector<int> used = used_by_tenant(static_cast<int>(i));
    if (delta.tenant >= 0 && static_cast<int>(i) == delta.resource)
      used[static_cast<size_t>(delta.tenant)] += delta.amount;
    borrowed.push_back(trees_[i].cohort_borrowed(node.cohort, used));
  }
  const auto w = cohort_weights_.find(node.cohort);
  return weighted_share(borrowed, w == cohort_weights_.end() ? 1.0 : w->second);
}

std::vector<QuotaBook::Node> QuotaBook::path(int tenant) const {
  std::vector<Node> out{Node{.tenant = tenant, .cohort = {}}};
  for (const auto& c : ancestors_[static_cast<size_t>(tenant)]) out.push_back(Node{.cohort = c});
  return out;
}

// The two nodes just below the lowest cohort that holds both queues (Kueue's "almost least common ancestors"):
// the shares a fair-sharing preemption compares. The queues themselves in a flat cohort.
std::pair<QuotaBook::Node, QuotaBook::Node> QuotaBook::below_common_cohort(int a, int b) const {
  const auto pa = path(a), pb = path(b);
  for (size_t i = 1; i < pa.size(); ++i)
    for (size_t j = 1; j < pb.size(); ++j)
      if (pa[i].cohort == pb[j].cohort) return {pa[i - 1], pb[j - 1]};
  return {pa.front(), pb.front()};
}

// The winner of one cohort's round of Kueue's tournament among `members` (indices of `heads` under it): each
// child node (a queue, or a cohort whose own winner contends) is weighed by its share with its contender's
// workload; ties go to the higher priority, then the earlier submission.
size_t QuotaBook::tournament(const std::string& cohort, const std::vector<size_t>& members,
                             const std::vector<QuotaRequest>& heads) const {
  std::map<std::string, std::vector<size_t>> below;  // child cohort -> members under it
  std::vector<std::pair<Node, size_t>> contenders;   // child node, its contender
  for (size_t h : members) {
    const auto& chain = ancestors_[static_cast<size_t>(heads[h].tenant)];
    const auto at = std::find(chain.begin(), chain.end(), cohort);
    if (at == chain.begin())
      contenders.push_back({Node{.tenant = heads[h].tenant, .cohort = {}}, h});
    else
      below[*(at - 1)].push_back(h);
  }
  for (const auto& [child, group] : below)
    contenders.push_back({Node{.cohort = child}, tournament(child, group, heads)});
  std::optional<size_t> best;
  std::tuple<double, int, double, int> best_key;
  for (const auto& [node, h] : contenders) {
    const QuotaRequest& r = heads[h];
    const std::tuple<double, int, double, int> key{
        node_share(node, {.tenant = r.tenant, .resource = resource_index(r.resource), .amount = r.amount}), -r.priority,
        r.submitted, r.workload};
    if (!best || key < best_key) best = h, best_key = key;
  }
  return *best;
}

size_t QuotaBook::fair_first(const std::vector<QuotaRequest>& heads) const {
  std::map<std::string, std::vector<size_t>> by_root;
  std::vector<size_t> finalists;
  for (size_t h = 0; h < heads.size(); ++h) {
    const auto& chain = ancestors_.at(static_cast<size_t>(heads[h].tenant));
    if (chain.empty())
      finalists.push_back(h);  // a queue without a cohort: no share
    else
      by_root[chain.back()].push_back(h);
  }
  for (const auto& [root, members] : by_root) finalists.push_back(tournament(root, members, heads));
  // Across separate trees Kueue has no order; here priority, then submission.
  return *std::min_element(finalists.begin(), finalists.end(), [&](size_t a, size_t b) {
    const QuotaRequest &x = heads[a], &y = heads[b];
    return std::make_tuple(-x.priority, x.submitted, x.workload) <
           std::make_tuple(-y.priority, y.submitted, y.workload);
  });
}

// Whether preempting `victim` gives the claimant devices back: one borrowing inside a cohort that lends nothing
// up to the claimant frees nothing for it.
bool QuotaBook::frees_for(const QuotaRequest& r, int resource, const Admission& victim) const {
  if (victim.request.tenant == r.tenant) return true;
  std::vector<int> used = used_by_tenant(resource);
  const QuotaTree& tree = trees_[static_cast<size_t>(resource)];
  const int before = tree.available(r.tenant, used);
  used[static_cast<size_t>(victim.request.tenant)] -= victim.request.amount;
  return tree.available(r.tenant, used) > before;
}

// Kueue's fill-back: from the last target but one down, each whose return still leaves the request room is
// spared, so the fewest are preempted.
std::vector<int> QuotaBook::fill_back(QuotaBook& trial, const QuotaRequest& r, int resource,
                                      std::vector<Admission> targets, bool allow_borrowing) const {
  for (size_t i = targets.size() >= 2 ? targets.size() - 1 : 0; i-- > 0;) {
    trial.add(targets[i]);
    if (trial.fits_at(r, resource, allow_borrowing))
      targets.erase(targets.begin() + static_cast<long>(i));
    else
      trial.remove(targets[i]);
  }
  std::vector<int> out;
  for (const Admission& a : targets) out.push_back(a.request.workload);
  return out;
}

// Kueue's classical candidates, in the three lists it tries in turn, each in its order (lower priority first, then
// the most recently admitted): other queues' workloads over which the claimant has a hierarchical advantage, other
// queues' workloads it may preempt by priority (reclaimWithinCohort; while borrowing only below the
// borrowWithinCohort threshold), and its own queue's (withinClusterQueue).
std::vector<std::vector<QuotaBook::Candidate>> QuotaBook::classical_candidates(const QuotaRequest& r,
                                                                               int resource) const {
  const QuotaPreemptionSpec& policy = tenants_[static_cast<size_t>(r.tenant)].preemption;
  const auto allowed = [&](PreemptionPolicy p, const QuotaRequest& c) {
    if (p == PreemptionPolicy::NEVER) return false;
    if (p == PreemptionPolicy::ANY) return true;
    const bool newer_equal =
        p == PreemptionPolicy::LOWER_OR_NEWER_EQUAL_PRIORITY && c.priority == r.priority && r.submitted < c.submitted;
    return c.priority < r.priority || newer_equal;
  };
  const auto above_threshold = [&](int priority) {
    return priority >= r.priority || (policy.max_priority_threshold && priority > *policy.max_priority_threshold);
  };
  std::vector<std::vector<Candidate>> lists(3);  // hierarchical advantage, by priority, own queue
  for (const Admission& a : admitted_)
    if (a.request.tenant == r.tenant && a.request.resource == r.resource &&
        allowed(policy.within_cluster_queue, a.request))
      lists[2].push_back({a, Variant::WITHIN_QUEUE, ""});
  if (policy.reclaim_within_cohort != PreemptionPolicy::NEVER) {
    const QuotaTree& tree = trees_[static_cast<size_t>(resource)];
    for (const auto& q : tree.reclaim_queues(r.tenant, r.amount, used_by_tenant(resource)))
      for (const Admission& a : admitted_) {
        if (a.request.tenant != q.tenant || a.request.resource != r.resource) continue;
        if (!allowed(policy.reclaim_within_cohort, a.request)) continue;
        const Variant v = q.advantage ? Variant::HIERARCHICAL_RECLAIM
                          : !policy.borrow_within_cohort || above_threshold(a.request.priority)
                              ? Variant::RECLAIM_WITHOUT_BORROWING
                              : Variant::RECLAIM_WHILE_BORROWING;
        lists[q.advantage ? 0 : 1].push_back({a, v, q.subtree_root});
      }
  }
  for (auto& list : lists)
    std::stable_sort(list.begin(), list.end(), [](const Candidate& x, const Candidate& y) {
      if (x.admission.request.priority != y.admission.request.priority)
        return x.admission.request.priority < y.admission.request.priority;
      return x.admission.order > y.admission.order;
    });
  return lists;
}

// One attempt of Kueue's classical preemption: candidates are removed in order (another queue's only while it, and
// the cohorts above it below where it was found, still borrow; while borrowing, none that may only be reclaimed
// without borrowing) until the request fits; then fill-back.
std::optional<std::vector<int>> QuotaBook::classical_attempt(const QuotaRequest& r, int resource,
                                                             const std::vector<std::vector<Candidate>>& lists,
                                                             bool borrowing) const {
  QuotaBook trial = *this;
  const QuotaTree& tree = trees_[static_cast<size_t>(resource)];
  std::vector<Admission> targets;
  for (const auto& list : lists)
    for (const Candidate& c : list) {
      const int victim = c.admission.request.tenant;
      if (victim != r.tenant) {
        if (borrowing && c.variant == Variant::RECLAIM_WITHOUT_BORROWING) continue;
        if (!tree.still_borrowing(victim, c.subtree_root, trial.used_by_tenant(resource))) continue;
      }
      trial.remove(c.admission);
      targets.push_back(c.admission);
      if (trial.fits_at(r, resource, borrowing)) return fill_back(trial, r, resource, std::move(targets), borrowing);
    }
  return std::nullopt;
}

// Kueue's classical preemption (v0.11+, with hierarchical cohorts): with no candidate of another queue, or when it
// may not borrow to preempt and is not under its nominal quota, one attempt with borrowing; when it may not borrow
// to preempt and has no hierarchical advantage, without borrowing first; otherwise with borrowing first.
std::optional<std::vector<int>> QuotaBook::classical_preemptions(const QuotaRequest& r, int resource) const {
  const auto lists = classical_candidates(r, resource);
  const auto& t = tenants_[static_cast<size_t>(r.tenant)];
  const bool borrow_forbidden = !t.preemption.borrow_within_cohort;
  const bool under_nominal = t.used[static_cast<size_t>(resource)] < t.nominal[static_cast<size_t>(resource)];
  std::vector<bool> attempts{true, false};
  if ((lists[0].empty() && lists[1].empty()) || (borrow_forbidden && !under_nominal))
    attempts = {true};
  else if (borrow_forbidden && lists[0].empty())
    attempts = {false, true};
  for (const bool borrowing : attempts)
    if (auto v = classical_attempt(r, resource, lists, borrowing)) return v;
  return std::nullopt;
}

// Kueue's order of the queues to preempt from under fair sharing: from the claimant's root cohort down, into the
// child with the highest share (the claimant's side counted with its workload; a cohort before a queue on a tie),
// past queues that do not borrow the resource (but the claimant's own) and cohorts without a share that do not
// hold the claimant. -1 when no queue with candidates is left.
int QuotaBook::target_queue(const std::string& cohort, const QuotaRequest& r, int resource,
                            const std::map<int, std::deque<Admission>>& queues) const {
  const Delta with{.tenant = r.tenant, .resource = resource, .amount = r.amount};
  const auto& claimant_cohorts = ancestors_[static_cast<size_t>(r.tenant)];
  struct Child {
    double share;
    Node node;
  };
  std::vector<Child> children;
  std::set<std::string> seen;
  for (const auto& [tenant, list] : queues) {
    if (list.empty()) continue;
    const auto& chain = ancestors_[static_cast<size_t>(tenant)];
    const auto at = std::find(chain.begin(), chain.end(), cohort);
    if (at == chain.end()) continue;
    if (at == chain.begin()) {
      const bool own = tenant == r.tenant;
      if (!own && borrowed_at(tenant, resource) <= 0) continue;
      const double s = node_share(Node{.tenant = tenant, .cohort = {}}, with);
      if (!own && s <= 0) continue;
      children.push_back({s, Node{.tenant = tenant, .cohort = {}}});
    } else if (seen.insert(*(at - 1)).second) {
      const Node child{.cohort = *(at - 1)};
      const double s = node_share(child, with);
      const bool holds_claimant =
          std::find(claimant_cohorts.begin(), claimant_cohorts.end(), child.cohort) != claimant_cohorts.end();
      if (s <= 0 && !holds_claimant) continue;
      children.push_back({s, child});
    }
  }
  std::stable_sort(children.begin(), children.end(), [](const Child& a, const Child& b) {
    if (a.share != b.share) return a.share > b.share;
    return a.node.tenant < 0 && b.node.tenant >= 0;
  });
  for (const Child& c : children) {
    if (c.node.tenant >= 0) return c.node.tenant;
    if (const int q = target_queue(c.node.cohort, r, resource, queues); q >= 0) return q;
  }
  return -1;
}

// Kueue's fair-sharing preemption. Queues are taken in target_queue's order: from the claimant's own queue, its
// next candidate is taken outright; from another queue that still borrows, its first candidate that passes the
// first strategy (the claimant's side's share with the request at most the target side's share after the
// preemption, or below it before, as configured; the sides are the nodes just below their lowest common cohort),
// and the order is weighed again. What failed may pass the second strategy: the first of each queue, once. Then
// fill-back.
std::optional<std::vector<int>> QuotaBook::fair_preemptions(const QuotaRequest& r, int resource,
                                                            const std::vector<Admission>& candidates) const {
  QuotaBook trial = *this;
  const int at = resource;
  using Queues = std::map<int, std::deque<Admission>>;  // by tenant, in candidate order
  Queues remaining, retry;
  for (const Admission& a : candidates) remaining[a.request.tenant].push_back(a);
  std::vector<Admission> targets;
  const auto take = [&](const Admission& a) {
    trial.remove(a);
    targets.push_back(a);
    return trial.fits_at(r, at, true);
  };
  const auto& claimant_cohorts = ancestors_[static_cast<size_t>(r.tenant)];
  const auto next_queue = [&](const Queues& queues) {
    if (!claimant_cohorts.empty()) return trial.target_queue(claimant_cohorts.back(), r, at, queues);
    const auto own = queues.find(r.tenant);  // no cohort: only its own queue's candidates
    return own != queues.end() && !own->second.empty() ? r.tenant : -1;
  };
  // The shares of the two sides just below the lowest cohort holding both queues (the queues, in a flat cohort).
  const auto passes = [&](FairSharingStrategy strategy, const Admission& a) {
    const int target = a.request.tenant;
    const auto [claimant_side, target_side] = trial.below_common_cohort(r.tenant, target);
    const double claimant = trial.node_share(claimant_side, {.tenant = r.tenant, .resource = at, .amount = r.amount});
    if (strategy == FairSharingStrategy::LESS_THAN_INITIAL_SHARE) return claimant < trial.node_share(target_side, {});
    return claimant <= trial.node_share(target_side, {.tenant = target, .resource = at, .amount = -a.request.amount});
  };
  for (int q; (q = next_queue(remaining)) >= 0;) {
    auto& list = remaining[q];
    while (!list.empty()) {
      const Admission a = list.front();
      list.pop_front();
      if (q != r.tenant && !trial.frees_for(r, at, a)) continue;
      if (q != r.tenant && !passes(fair_.strategies.front(), a)) {
        retry[q].push_back(a);
        continue;
      }
      if (take(a)) return fill_back(trial, r, at, std::move(targets), true);
      break;
    }
  }
  if (fair_.strategies.size() > 1) {
    for (auto& [tenant, list] : retry) list.resize(1);
    for (int q; (q = next_queue(retry)) >= 0;) {
      const Admission a = retry[q].front();
      retry[q].clear();
      if (passes(fair_.strategies[1], a) && take(a)) return fill_back(trial, r, at, std::move(targets), true);
    }
  }
  return std::nullopt;
}

// Kueue's preemption: fair sharing's when it is on, else the classical algorithm.
std::optional<std::vector<int>> QuotaBook::victims(const QuotaRequest& r) const {
  const int resource = resource_index(r.resource);
  if (!managed(r.tenant) || resource < 0 ||
      tenants_[static_cast<size_t>(r.tenant)].nominal[static_cast<size_t>(resource)] < 0)
    return std::nullopt;
  if (fits_at(r, resource, true)) return std::vector<int>{};
  if (!fair_.enabled) return classical_preemptions(r, resource);
  const std::vector<Admission> all = candidates(r, resource);
  if (all.empty()) return std::nullopt;
  return fair_preemptions(r, resource, all);
}

void QuotaBook::add(const Admission& a) {
  const int resource = resource_index(a.request.resource);
  tenants_.at(static_cast<size_t>(a.request.tenant)).used.at(static_cast<size_t>(resource)) += a.request.amount;
  admitted_.push_back(a);
}

void QuotaBook::remove(const Admission& a) {
  auto it = std::find_if(admitted_.begin(), admitted_.end(),
                         [&](const Admission& x) { return x.request.workload == a.request.workload; });
  if (it == admitted_.end()) return;
  const int resource = resource_index(it->request.resource);
  tenants_.at(static_cast<size_t>(it->request.tenant)).used.at(static_cast<size_t>(resource)) -= it->request.amount;
  admitted_.erase(it);
}

int QuotaBook::admit(const QuotaRequest& r) {
  const int resource = resource_index(r.resource);
  const int before = borrowed_at(r.tenant, resource);
  add({r, next_order_++});
  return borrowed_at(r.tenant, resource) - before;
}

bool QuotaBook::release(int workload) {
  if (!admitted(workload)) return false;
  Admission a;
  a.request.workload = workload;
  remove(a);
  return true;
}

bool QuotaBook::admitted(int workload) const {
  return std::any_of(admitted_.begin(), admitted_.end(),
                     [&](const Admission& a) { return a.request.workload == workload; });
}

}  // namespace gtw
