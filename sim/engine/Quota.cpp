#include "Quota.hpp"

#include <algorithm>

namespace gtw {

QuotaBook::QuotaBook(const std::vector<TenantSpec>& tenants) : tree_(tenants) {
  for (const auto& t : tenants) tenants_.push_back({t.quota_gpus, t.borrowing_limit, t.lending_limit, 0});
}

bool QuotaBook::managed(int tenant) const {
  return tenant >= 0 && static_cast<size_t>(tenant) < tenants_.size() &&
         tenants_[static_cast<size_t>(tenant)].nominal >= 0;
}

int QuotaBook::borrowed(int tenant) const {
  const auto& t = tenants_.at(static_cast<size_t>(tenant));
  return std::max(0, t.used - t.nominal);
}

std::vector<int> QuotaBook::used_gpus() const {
  std::vector<int> used;
  used.reserve(tenants_.size());
  for (const auto& t : tenants_) used.push_back(t.used);
  return used;
}

// Kueue's lendingLimit and borrowingLimit, at every level of the cohort tree (QuotaTree::available).
bool QuotaBook::fits(int tenant, int gpus) const {
  return tree_.available(tenant, used_gpus()) >= gpus;
}

bool QuotaBook::within_nominal(int tenant, int gpus) const {
  const auto& t = tenants_.at(static_cast<size_t>(tenant));
  return t.used + gpus <= t.nominal;
}

std::optional<std::vector<int>> QuotaBook::victims(int tenant, int gpus) const {
  if (!within_nominal(tenant, gpus)) return std::nullopt;
  // Simulate the releases on a copy, newest admission first.
  QuotaBook trial = *this;
  std::vector<Admission> newest = admitted_;
  std::sort(newest.begin(), newest.end(), [](const Admission& a, const Admission& b) { return a.order > b.order; });
  std::vector<int> out;
  for (const auto& a : newest) {
    if (trial.fits(tenant, gpus)) break;
    if (a.tenant == tenant || trial.borrowed(a.tenant) <= 0 || !tree_.same_tree(a.tenant, tenant)) continue;
    // Only a borrower whose GPUs would come back to this tenant is preempted: one that borrows inside a cohort
    // that lends nothing up to it (lendingLimit) frees nothing here.
    std::vector<int> used = trial.used_gpus();
    const int before = tree_.available(tenant, used);
    used[static_cast<size_t>(a.tenant)] -= a.gpus;
    if (tree_.available(tenant, used) <= before) continue;
    trial.release(a.workload);
    out.push_back(a.workload);
  }
  if (!trial.fits(tenant, gpus)) return std::nullopt;
  return out;
}

int QuotaBook::admit(int workload, int tenant, int gpus) {
  auto& t = tenants_.at(static_cast<size_t>(tenant));
  const int before = std::max(0, t.used - t.nominal);
  t.used += gpus;
  admitted_.push_back({workload, tenant, gpus, next_order_++});
  return std::max(0, t.used - t.nominal) - before;
}

bool QuotaBook::release(int workload) {
  auto it =
      std::find_if(admitted_.begin(), admitted_.end(), [&](const Admission& a) { return a.workload == workload; });
  if (it == admitted_.end()) return false;
  tenants_.at(static_cast<size_t>(it->tenant)).used -= it->gpus;
  admitted_.erase(it);
  return true;
}

bool QuotaBook::admitted(int workload) const {
  return std::any_of(admitted_.begin(), admitted_.end(), [&](const Admission& a) { return a.workload == workload; });
}

}  // namespace gtw
