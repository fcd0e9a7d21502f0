#include "sim/analysis/DataExposure.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace gtw {

namespace {

// Whether tenant `observer` is in the segment `segment` of a source tenant's flow.
bool same_segment(const ScenarioSpec& spec, const std::string& segment, int observer) {
  if (segment == "shared") {
    // The observer's own flows must also be in the shared segment.
    const std::string& name = spec.tenants[static_cast<size_t>(observer)].name;
    for (const auto& p : spec.network_policies)
      if (p.tenant == name && p.isolated) return false;
    return true;
  }
  const std::string& name = spec.tenants[static_cast<size_t>(observer)].name;
  for (const auto& p : spec.network_policies)
    if (p.tenant == segment) return std::find(p.allow_from.begin(), p.allow_from.end(), name) != p.allow_from.end();
  return false;
}

}  // namespace

std::vector<DataExposure> data_exposures(const ScenarioSpec& spec, const RunResult& run) {
  // Which links and stores each tenant's own flows use.
  std::map<int, std::set<std::string>> links_of, stores_of;
  for (const auto& m : run.data_movements) {
    if (!m.allowed || m.tenant < 0) continue;
    links_of[m.tenant].insert(m.links.begin(), m.links.end());
    if (!m.store.empty() && m.store != HOST_MEMORY_STORE && m.store != LOCAL_NVME_STORE)
      stores_of[m.tenant].insert(m.store);
  }
  std::map<std::pair<int, int>, DataExposure> out;
  std::map<std::pair<int, int>, std::set<std::string>> out_links, out_stores;
  for (const auto& m : run.data_movements) {
    if (!m.allowed || m.owner < 0) continue;
    for (const auto& [observer, seen] : links_of) {
      if (observer == m.owner) continue;
      const std::pair<int, int> key{observer, m.owner};
      if (!m.encrypted_in_transit && same_segment(spec, m.segment, observer)) {
        bool shared = false;
        for (const auto& l : m.links)
          if (seen.count(l)) {
            shared = true;
            out_links[key].insert(l);
          }
        if (shared) out[key].plaintext_link_bytes += m.bytes;
      }
      if (!m.encrypted_at_rest && m.operation == "write" && stores_of[observer].count(m.store)) {
        out[key].plaintext_storage_bytes += m.bytes;
        out_stores[key].insert(m.store);
      }
    }
  }
  std::vector<DataExposure> result;
  for (auto& [key, e] : out) {
    e.observer = key.first;
    e.source = key.second;
    e.links.assign(out_links[key].begin(), out_links[key].end());
    e.stores.assign(out_stores[key].begin(), out_stores[key].end());
    if (e.plaintext_link_bytes > 0 || e.plaintext_storage_bytes > 0) result.push_back(std::move(e));
  }
  return result;
}

}  // namespace gtw
