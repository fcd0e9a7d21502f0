#include "Quota.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <set>
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

// Kueue's minimalPreemptions: remove candidates in order until the request fits (another queue's workload only
// while that queue still borrows, and only when its release gives the claimant devices back: one borrowing
// inside a cohort that lends nothing up to the claimant frees nothing for it), then put back, from the last but
// one down, each whose return still leaves room. While borrowing (borrowWithinCohort), a victim at or above
// `borrow_below_priority` in another queue means the request must then fit without borrowing.
std::optional<std::vector<int>> QuotaBook::minimal_preemptions(const QuotaRequest& r, int resource,
                                                               const std::vector<Admission>& candidates,
                                                               bool allow_borrowing,
                                                               std::optional<int> borrow_below_priority) const {
  QuotaBook trial = *this;
  std::vector<Admission> targets;
  bool fits = false;
  for (const Admission& a : candidates) {
    const int victim_tenant = a.request.tenant;
    if (victim_tenant != r.tenant) {
      if (trial.borrowed_at(victim_tenant, resource) <= 0 || !trial.frees_for(r, resource, a)) continue;
      if (borrow_below_priority && a.request.priority >= *borrow_below_priority) allow_borrowing = false;
    }
    trial.remove(a);
    targets.push_back(a);
    if (trial.fits_at(r, resource, allow_borrowing)) {
      fits = true;
      break;
    }
  }
  if (!fits) return std::nullopt;
  return fill_back(trial, r, resource, std::move(targets), allow_borrowing);
}

// Kueue's fair-sharing preemption. The queue with the highest share goes first (the claimant's own counted with
// the request): from its own queue, its next candidate is taken outright; from another queue that still borrows,
// its first candidate that passes the first strategy (the claimant's share with the request at most the target's
// share after the preemption, or below it before, as configured), and the order is weighed again. What failed may
// pass the second strategy: the first of each queue, once. Then fill-back.
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
  const auto highest_share = [&](const Queues& queues) {
    int best = -1;
    double best_share = 0;
    for (const auto& [tenant, list] : queues) {
      if (list.empty()) continue;
      const bool own = tenant == r.tenant;
      if (!own && trial.borrowed_at(tenant, at) <= 0) continue;
      const double s = own ? trial.share(tenant, &r) : trial.share_with(tenant, -1, 0);
      if (!own && s <= 0) continue;
      if (best < 0 || s > best_share) best = tenant, best_share = s;
    }
    return best;
  };
  const auto passes = [&](FairSharingStrategy strategy, const Admission& a) {
    const double claimant = trial.share(r.tenant, &r);
    const int target = a.request.tenant;
    if (strategy == FairSharingStrategy::LESS_THAN_INITIAL_SHARE) return claimant < trial.share_with(target, -1, 0);
    return claimant <= trial.share_with(target, at, -a.request.amount);
  };
  for (int q; (q = highest_share(remaining)) >= 0;) {
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
    for (int q; (q = highest_share(retry)) >= 0;) {
      const Admission a = retry[q].front();
      retry[q].clear();
      if (passes(fair_.strategies[1], a) && take(a)) return fill_back(trial, r, at, std::move(targets), true);
    }
  }
  return std::nullopt;
}

// Kueue's classical preemption (GetTargets): when every candidate is the tenant's own, preempt them and borrow;
// with borrowWithinCohort, try lower priorities of the cohort while borrowing; otherwise reclaim only while
// under the nominal quota, without borrowing; last, the tenant's own workloads, borrowing.
std::optional<std::vector<int>> QuotaBook::victims(const QuotaRequest& r) const {
  const int resource = resource_index(r.resource);
  if (!managed(r.tenant) || resource < 0 ||
      tenants_[static_cast<size_t>(r.tenant)].nominal[static_cast<size_t>(resource)] < 0)
    return std::nullopt;
  if (fits_at(r, resource, true)) return std::vector<int>{};
  const std::vector<Admission> all = candidates(r, resource);
  if (all.empty()) return std::nullopt;
  if (fair_.enabled) return fair_preemptions(r, resource, all);
  std::vector<Admission> own;
  for (const Admission& a : all)
    if (a.request.tenant == r.tenant) own.push_back(a);
  if (own.size() == all.size()) return minimal_preemptions(r, resource, all, true, std::nullopt);
  const QuotaPreemptionSpec& policy = tenants_[static_cast<size_t>(r.tenant)].preemption;
  const auto& t = tenants_[static_cast<size_t>(r.tenant)];
  if (policy.borrow_within_cohort) {
    int threshold = r.priority;
    if (policy.max_priority_threshold && *policy.max_priority_threshold < threshold)
      threshold = *policy.max_priority_threshold + 1;
    if (auto v = minimal_preemptions(r, resource, all, true, threshold)) return v;
  } else if (t.used[static_cast<size_t>(resource)] < t.nominal[static_cast<size_t>(resource)]) {
    if (auto v = minimal_preemptions(r, resource, all, false, std::nullopt)) return v;
  }
  return minimal_preemptions(r, resource, own, true, std::nullopt);
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
