// Cross-reference checks of the network, storage and data sections (docs/models/fabric.md,
// docs/models/storage.md): names of tenants, stores, data items and nodes.
#include <algorithm>
#include <map>
#include <set>

#include "Loader.hpp"

namespace gtw {

void check_fabric_references(ScenarioSpec& spec, Diagnostics& diags) {
  std::vector<std::string> tenant_names;
  for (const auto& t : spec.tenants) tenant_names.push_back(t.name);
  const auto tenant_known = [&](const std::string& name) {
    return std::find(tenant_names.begin(), tenant_names.end(), name) != tenant_names.end();
  };
  std::vector<std::string> stores{LOCAL_NVME_STORE, HOST_MEMORY_STORE};
  std::map<std::string, size_t> store_seen;
  for (size_t i = 0; i < spec.storage.size(); ++i) {
    const auto& st = spec.storage[i];
    const std::string path = "spec.cluster.storage[" + std::to_string(i) + "]";
    if (!st.name.empty() && !store_seen.emplace(st.name, i).second)
      diags.error(st.loc, path + ".name", "duplicate name '" + st.name + "'");
    stores.push_back(st.name);
    for (const auto& t : st.allow)
      if (!tenant_known(t))
        diags.error(st.loc, path + ".allow", "unknown tenant '" + t + "'" + suggest(t, tenant_names));
  }
  std::map<std::string, size_t> data_seen;
  std::vector<std::string> data_names;
  for (size_t i = 0; i < spec.data.size(); ++i) {
    auto& d = spec.data[i];
    const std::string path = "spec.data[" + std::to_string(i) + "]";
    if (!d.name.empty() && !data_seen.emplace(d.name, i).second)
      diags.error(d.loc, path + ".name", "duplicate name '" + d.name + "'");
    data_names.push_back(d.name);
    d.tenant_index = spec.tenant_index(d.tenant);
    if (!d.tenant.empty() && d.tenant_index < 0)
      diags.error(d.tenant_loc, path + ".tenant",
                  "unknown tenant '" + d.tenant + "'" + suggest(d.tenant, tenant_names));
    if (d.tenant_index >= 0) {
      const auto& owner = spec.tenants[static_cast<size_t>(d.tenant_index)];
      if (d.region.empty()) d.region = owner.region;
      if (d.classification.empty())
        d.classification = classification_names()[static_cast<size_t>(owner.classification)];
    }
    if (d.socket >= 0 && d.store != HOST_MEMORY_STORE)
      diags.error(d.socket_loc.line > 0 ? d.socket_loc : d.loc, path + ".socket",
                  "only data in host memory (store: host) sits on a CPU socket; this item is in '" + d.store + "'");
    if (std::find(stores.begin(), stores.end(), d.store) == stores.end())
      diags.error(d.store_loc.line > 0 ? d.store_loc : d.loc, path + ".store",
                  "unknown store '" + d.store + "'" + suggest(d.store, stores));
  }
  for (size_t i = 0; i < spec.network_policies.size(); ++i) {
    const auto& n = spec.network_policies[i];
    const std::string path = "spec.networkPolicies[" + std::to_string(i) + "]";
    if (!n.tenant.empty() && !tenant_known(n.tenant))
      diags.error(n.loc, path + ".tenant", "unknown tenant '" + n.tenant + "'" + suggest(n.tenant, tenant_names));
    for (const auto& t : n.allow_from)
      if (!tenant_known(t))
        diags.error(n.loc, path + ".allowFrom", "unknown tenant '" + t + "'" + suggest(t, tenant_names));
  }
  std::vector<std::string> node_names;
  for (const auto& pool : spec.node_pools)
    for (int n = 0; n < pool.count && node_names.size() < 100000; ++n)
      node_names.push_back(pool.name + "-" + std::to_string(n));
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    const std::string path = "spec.workloads[" + std::to_string(i) + "]";
    const auto check_data = [&](const std::string& name, const SourceLoc& loc, const std::string& field,
                                DataKind kind) {
      if (name.empty()) return;
      auto it = data_seen.find(name);
      if (it == data_seen.end()) {
        diags.error(loc, path + ".io." + field, "unknown data item '" + name + "'" + suggest(name, data_names));
        return;
      }
      const auto& d = spec.data[it->second];
      if (d.kind != kind)
        diags.error(loc, path + ".io." + field,
                    "data item '" + name + "' is a " + data_kind_name(d.kind) + ", expected a " + data_kind_name(kind));
      if (d.tenant_index >= 0 && w.tenant_index >= 0 && d.tenant_index != w.tenant_index &&
          kind == DataKind::CHECKPOINT)
        diags.error(loc, path + ".io." + field, "a workload writes checkpoints only to its own tenant's data items");
    };
    check_data(w.io.dataset, w.io.dataset_loc, "dataset", DataKind::DATASET);
    check_data(w.io.weights, w.io.weights_loc, "weights", DataKind::WEIGHTS);
    check_data(w.io.checkpoint, w.io.checkpoint_loc, "checkpoint", DataKind::CHECKPOINT);
    if (w.nodes > 1 && w.gpus % w.nodes != 0)
      diags.error(w.loc, path + ".nodes",
                  std::to_string(w.gpus) + " GPUs cannot be split evenly over " + std::to_string(w.nodes) + " nodes");
    if (!w.pin_nodes.empty() && static_cast<int>(w.pin_nodes.size()) != w.nodes)
      diags.error(
          w.nodes_loc, path + ".placement.nodes",
          "lists " + std::to_string(w.pin_nodes.size()) + " nodes, but the workload spans " + std::to_string(w.nodes));
    std::set<std::string> pinned;
    for (const auto& n : w.pin_nodes) {
      if (std::find(node_names.begin(), node_names.end(), n) == node_names.end())
        diags.error(w.nodes_loc, path + ".placement.nodes",
                    "no node named '" + n + "' (nodes are pool-N)" + suggest(n, node_names));
      else if (!pinned.insert(n).second)
        diags.error(w.nodes_loc, path + ".placement.nodes", "node '" + n + "' is listed twice");
    }
  }
}

}  // namespace gtw
