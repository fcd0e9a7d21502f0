// The quota section of the report, from the QUOTA_* events the engine emits (docs/models/quotas.md).
#include <algorithm>
#include <map>

#include "Analysis.hpp"

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
    for (const auto& [name, quota] : ts.quotas)
      q.resources.push_back({.resource = name,
                             .nominal = quota.nominal,
                             .borrowing_limit = quota.borrowing_limit,
                             .lending_limit = quota.lending_limit});
    out.push_back(std::move(q));
  }
  return out;
}

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
