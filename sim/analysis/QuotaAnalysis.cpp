// The quota section of the report, from the QUOTA_* events the engine emits (docs/models/quotas.md).
#include <algorithm>
#include <map>

#include "Analysis.hpp"

namespace gtw {

std::vector<QuotaResult> analyse_quotas(const ScenarioSpec& spec, const EventLog& log, double end) {
  std::vector<QuotaResult> out;
  std::map<int, size_t> row_of;  // tenant index -> row
  for (size_t t = 0; t < spec.tenants.size(); ++t) {
    const auto& ts = spec.tenants[t];
    if (ts.quota_gpus < 0) continue;
    row_of[static_cast<int>(t)] = out.size();
    QuotaResult q;
    q.tenant = ts.name;
    q.nominal = ts.quota_gpus;
    q.borrowing_limit = ts.borrowing_limit;
    q.lending_limit = ts.lending_limit;
    out.push_back(std::move(q));
  }
  if (out.empty()) return out;
  std::vector<int> used(spec.tenants.size(), 0);
  std::vector<double> since(spec.tenants.size(), 0);  // time of the last change of `used`
  std::map<int, double> waiting_since;                // workload -> queued at
  std::map<int, int> admitted_gpus;                   // workload -> GPUs
  auto advance = [&](int t, double now) {
    auto& q = out[row_of.at(t)];
    const double dt = now - since[static_cast<size_t>(t)];
    const int u = used[static_cast<size_t>(t)];
    q.gpu_seconds += u * dt;
    q.borrowed_gpu_seconds += std::max(0, u - q.nominal) * dt;
    since[static_cast<size_t>(t)] = now;
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
        advance(e.tenant, e.time);
        ++q.admissions;
        const int gpus = static_cast<int>(e.value);
        admitted_gpus[e.workload] = gpus;
        used[static_cast<size_t>(e.tenant)] += gpus;
        q.peak_gpus = std::max(q.peak_gpus, used[static_cast<size_t>(e.tenant)]);
        if (auto it = waiting_since.find(e.workload); it != waiting_since.end()) {
          const double wait = e.time - it->second;
          q.total_wait += wait;
          q.max_wait = std::max(q.max_wait, wait);
          waiting_since.erase(it);
        }
        break;
      }
      case EventType::QUOTA_RELEASED:
        if (auto it = admitted_gpus.find(e.workload); it != admitted_gpus.end()) {
          advance(e.tenant, e.time);
          used[static_cast<size_t>(e.tenant)] -= it->second;
          admitted_gpus.erase(it);
        }
        break;
      case EventType::QUOTA_PREEMPTED: {
        ++q.preempted;
        const int reclaimer = payload::reclaiming_tenant(e);
        if (row_of.count(reclaimer)) ++out[row_of.at(reclaimer)].reclaimed;
        break;
      }
      default:
        break;
    }
  }
  for (const auto& [t, row] : row_of) advance(t, end);
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
