#include "Quota.hpp"

#include <algorithm>

namespace gtw {

QuotaBook::QuotaBook(const std::vector<TenantSpec>& tenants) {
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

// Kueue's lendingLimit: of a nominal quota N with lending limit L, N - L is guaranteed to its tenant and
// L goes to the cohort's pool (all of N without a limit). A tenant's use counts against its guaranteed part
// first, the rest against the pool.
int QuotaBook::guaranteed(const Tenant& t) {
  return t.lending_limit >= 0 ? std::max(0, t.nominal - t.lending_limit) : 0;
}

int QuotaBook::cohort_nominal() const {
  int n = 0;
  for (const auto& t : tenants_)
    if (t.nominal >= 0) n += t.nominal - guaranteed(t);
  return n;
}

int QuotaBook::cohort_used() const {
  int n = 0;
  for (const auto& t : tenants_)
    if (t.nominal >= 0) n += std::max(0, t.used - guaranteed(t));
  return n;
}

bool QuotaBook::fits(int tenant, int gpus) const {
  const auto& t = tenants_.at(static_cast<size_t>(tenant));
  if (t.borrowing_limit >= 0 && t.used + gpus > t.nominal + t.borrowing_limit) return false;
  // The GPUs beyond the tenant's guaranteed part come from the pool.
  const int from_pool = std::max(0, t.used + gpus - guaranteed(t)) - std::max(0, t.used - guaranteed(t));
  return cohort_used() + from_pool <= cohort_nominal();
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
    if (a.tenant == tenant || trial.borrowed(a.tenant) <= 0) continue;
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
