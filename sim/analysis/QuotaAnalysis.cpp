// The quota section of the report, from the QUOTA_* events the engine emits (docs/models/quotas.md).
#include <algorithm>
#include <map>

#include "Analysis.hpp"
#include "QuotaTree.hpp"

namespace gtw {

namespace {

// Devices of one resource a tenant holds, integrated over time.
struct ResourceUse {
  QuotaResourceResult* row = nullptr;
  int used = 0;
  double since = 0;  // time of the last change of `used`
  void advance(double now) {
    row->device_seconds += used * (now - since);
    row->borrowed_device_seconds += std::max(0, used - row->nominal) * (now - since);
    since = now;
  }
};

std::vector<QuotaResult> quota_rows(const ScenarioSpec& spec, std::map<int, size_t>& row_of) {
  std::vector<QuotaResult> out;
  for (size_t t = 0; t < spec.tenants.size(); ++t) {
    const auto& ts = spec.tenants[t];
    if (!ts.has_quota) continue;
    row_of[static_cast<int>(t)] = out.size();
    QuotaResult q;
    q.tenant = ts.name;
    q.fair_weight = ts.fair_weight;
    for (const auto& [name, quota] : ts.quotas)
      q.resources.push_back({.resource = name,
                             .nominal = quota.nominal,
                             .borrowing_limit = quota.borrowing_limit,
                             .lending_limit = quota.lending_limit});
    out.push_back(std::move(q));
  }
  return out;
}

// A queue's weighted share under fair sharing, integrated over time: it changes only with its own usage (what its
// cohort could lend is fixed by the quotas).
class ShareTracks {
 public:
  ShareTracks(const ScenarioSpec& spec, const std::vector<QuotaResult>& rows) : spec_(spec) {
    if (!spec.fair_sharing.enabled) return;
    for (const auto& q : rows)
      for (const auto& r : q.resources)
        if (!trees_.count(r.resource)) trees_.emplace(r.resource, QuotaTree(spec.tenants, r.resource));
  }
  // Call after the tenant's devices in use changed at `now`.
  template <class UsedOf>
  void update(int tenant, QuotaResult& q, double now, const UsedOf& used_of) {
    if (trees_.empty()) return;
    Track& t = tracks_[tenant];
    advance(t, now);
    std::vector<BorrowedResource> borrowed;
    for (const auto& r : q.resources)
      borrowed.push_back(
          {.borrowed = used_of(r.resource) - r.nominal, .lendable = trees_.at(r.resource).lendable(tenant)});
    t.share = weighted_share(borrowed, spec_.tenants[static_cast<size_t>(tenant)].fair_weight);
    q.peak_share = std::max(q.peak_share, t.share);
  }
  void finish(const std::map<int, size_t>& row_of, std::vector<QuotaResult>& out, double end) {
    for (auto& [tenant, t] : tracks_) {
      QuotaResult& q = out[row_of.at(tenant)];
      advance(t, end);
      q.mean_share = end > 0 ? t.integral / end : 0;
    }
  }

 private:
  struct Track {
    double share = 0, since = 0, integral = 0;
  };
  static void advance(Track& t, double now) {
    if (now > t.since && t.share > 0) t.integral += t.share * (now - t.since);
    t.since = now;
  }
  const ScenarioSpec& spec_;
  std::map<std::string, QuotaTree> trees_;
  std::map<int, Track> tracks_;
};

}  // namespace

std::vector<QuotaResult> analyse_quotas(const ScenarioSpec& spec, const EventLog& log, double end) {
  std::map<int, size_t> row_of;  // tenant index -> row
  std::vector<QuotaResult> out = quota_rows(spec, row_of);
  if (out.empty()) return out;
  std::map<std::pair<int, std::string>, ResourceUse> use;  // (tenant, resource)
  for (const auto& [t, row] : row_of)
    for (auto& r : out[row].resources) use[{t, r.resource}].row = &r;
  std::map<int, double> waiting_since;  // workload -> queued at
  std::map<int, int> admitted;          // workload -> devices
  ShareTracks shares(spec, out);
  const auto used_of = [&](int tenant) {
    return [&use, tenant](const std::string& resource) { return use.at({tenant, resource}).used; };
  };
  const auto use_of = [&](const Event& e) -> ResourceUse* {
    const auto it = use.find({e.tenant, spec.workloads[static_cast<size_t>(e.workload)].quota_resource()});
    return it == use.end() ? nullptr : &it->second;
  };
  for (const auto& e : log.events()) {
    if (e.tenant < 0 || !row_of.count(e.tenant)) continue;
    auto& q = out[row_of.at(e.tenant)];
    switch (e.type) {
      case EventType::QUOTA_QUEUED:
        ++q.queued;
        waiting_since[e.workload] = e.time;
        break;
      case EventType::QUOTA_ADMITTED: {
        ++q.admissions;
        const int devices = static_cast<int>(e.value);
        if (ResourceUse* u = use_of(e)) {
          u->advance(e.time);
          u->used += devices;
          u->row->peak = std::max(u->row->peak, u->used);
          admitted[e.workload] = devices;
          shares.update(e.tenant, q, e.time, used_of(e.tenant));
        }
        if (auto it = waiting_since.find(e.workload); it != waiting_since.end()) {
          const double wait = e.time - it->second;
          q.total_wait += wait;
          q.max_wait = std::max(q.max_wait, wait);
          waiting_since.erase(it);
        }
        break;
      }
      case EventType::QUOTA_RELEASED:
        if (auto it = admitted.find(e.workload); it != admitted.end()) {
          if (ResourceUse* u = use_of(e)) {
            u->advance(e.time);
            u->used -= it->second;
            shares.update(e.tenant, q, e.time, used_of(e.tenant));
          }
          admitted.erase(it);
        }
        break;
      case EventType::QUOTA_PREEMPTED: {
        ++q.preempted;
        const int preemptor = payload::reclaiming_tenant(e);
        if (preemptor == e.tenant)
          ++q.preempted_within_queue;
        else if (row_of.count(preemptor))
          ++out[row_of.at(preemptor)].reclaimed;
        break;
      }
      default:
        break;
    }
  }
  for (auto& [key, u] : use) u.advance(end);
  shares.finish(row_of, out, end);
  for (auto& q : out)
    for (const auto& r : q.resources)
      if (r.resource == GPU_RESOURCE) q.gpu = r;
  for (const auto& [w, at] : waiting_since) {
    const auto& ws = spec.workloads[static_cast<size_t>(w)];
    auto& q = out[row_of.at(ws.tenant_index)];
    q.still_queued.push_back(ws.name);
    q.total_wait += end - at;
    q.max_wait = std::max(q.max_wait, end - at);
  }
  return out;
}

}  // namespace gtw
