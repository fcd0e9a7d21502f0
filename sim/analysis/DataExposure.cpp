#include "DataExposure.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

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

namespace {

bool shared_store(const std::string& store) {
  return !store.empty() && store != HOST_MEMORY_STORE && store != LOCAL_NVME_STORE;
}

// Whether the store's ACL lets `observer` read it (an empty ACL lets every tenant).
bool store_allows(const ScenarioSpec& spec, const std::string& store, int observer) {
  for (const auto& s : spec.storage)
    if (s.name == store)
      return s.allow.empty() || std::find(s.allow.begin(), s.allow.end(),
                                          spec.tenants[static_cast<size_t>(observer)].name) != s.allow.end();
  return true;
}

}  // namespace

std::vector<DataLeak> data_leaks(const ScenarioSpec& spec, const RunResult& run) {
  // The links each tenant's own flows cross: a tenant can observe a link it uses.
  std::map<int, std::set<std::string>> links_of;
  for (const auto& m : run.data_movements)
    if (m.allowed && m.tenant >= 0) links_of[m.tenant].insert(m.links.begin(), m.links.end());
  // (observer, source, data, storage)
  std::map<std::tuple<int, int, int, bool>, DataLeak> out;
  std::map<std::tuple<int, int, int, bool>, std::set<std::string>> paths;
  std::map<std::tuple<int, int, int, bool>, std::pair<double, double>> network_bytes;  // (open, closed)
  auto entry = [&](int o, const DataMovement& m, bool storage) -> DataLeak& {
    DataLeak& d = out[{o, m.owner, m.data, storage}];
    if (d.observer < 0) {
      d.observer = o;
      d.source = m.owner;
      d.storage = storage;
      d.data = m.data;
      d.workload = m.workload;
    }
    return d;
  };
  // Bytes at rest per (data item, store): everything written there plus one copy of what was read
  // (the largest single read: one copy of the weights, one step's batch of a dataset).
  struct AtRest {
    double written = 0, largest_read = 0;
    bool encrypted = false;
    int owner = -1, workload = -1;
  };
  std::map<std::pair<int, std::string>, AtRest> at_rest;
  const auto n_tenants = static_cast<int>(spec.tenants.size());
  for (const auto& m : run.data_movements) {
    if (!m.allowed || m.owner < 0 || m.owner >= n_tenants || m.bytes <= 0) continue;
    // Network: plaintext on a link another tenant's flows also cross. Copies between host memory and the
    // GPUs of one node are the plaintextPcie exposure of the leakage surface, not counted twice here.
    for (const auto& [o, seen] : links_of) {
      if (m.store == HOST_MEMORY_STORE) break;
      if (o == m.owner || o < 0 || o >= n_tenants) continue;
      std::vector<std::string> shared;
      for (const auto& l : m.links)
        if (seen.count(l)) shared.push_back(l);
      if (shared.empty()) continue;
      DataLeak& d = entry(o, m, false);
      paths[{o, m.owner, m.data, false}].insert(shared.begin(), shared.end());
      // The exposure is open with the bytes the observer could read; closed (with the bytes that
      // crossed its links protected) only when none could be read.
      auto& [open_bytes, closed_bytes] = network_bytes[{o, m.owner, m.data, false}];
      if (m.encrypted_in_transit) {
        closed_bytes += m.bytes;
        if (open_bytes <= 0) d.closed_reason = "encrypted in transit";
      } else if (!same_segment(spec, m.segment, o)) {
        closed_bytes += m.bytes;
        if (open_bytes <= 0)
          d.closed_reason = "network segmentation: the observer is outside the segment (" + m.segment + ")";
      } else {
        open_bytes += m.bytes;
        d.closed_reason.clear();
      }
      d.closed = open_bytes <= 0;
      d.bytes = open_bytes > 0 ? open_bytes : closed_bytes;
    }
    if (m.data >= 0 && shared_store(m.store) && (m.operation == "read" || m.operation == "write")) {
      AtRest& a = at_rest[{m.data, m.store}];
      if (m.operation == "write")
        a.written += m.bytes;
      else
        a.largest_read = std::max(a.largest_read, m.bytes);
      a.encrypted = m.encrypted_at_rest;
      a.owner = m.owner;
      if (a.workload < 0) a.workload = m.workload;
    }
  }
  // Storage: every other tenant the store's ACL admits could read the item at rest.
  for (const auto& [key, a] : at_rest) {
    const double bytes = a.written + a.largest_read;
    if (bytes <= 0) continue;
    for (int o = 0; o < n_tenants; ++o) {
      if (o == a.owner) continue;
      DataMovement m;
      m.owner = a.owner;
      m.data = key.first;
      m.workload = a.workload;
      DataLeak& d = entry(o, m, true);
      d.bytes += bytes;
      paths[{o, a.owner, key.first, true}].insert(key.second);
      if (a.encrypted) {
        d.closed = true;
        d.closed_reason = "encrypted at rest (" + key.second + ")";
      } else if (!store_allows(spec, key.second, o)) {
        d.closed = true;
        d.closed_reason = "storage ACL: the observer may not read " + key.second;
      }
    }
  }
  std::vector<DataLeak> result;
  for (auto& [key, d] : out) {
    const auto& p = paths[key];
    d.paths.assign(p.begin(), p.end());
    result.push_back(std::move(d));
  }
  return result;
}

}  // namespace gtw
