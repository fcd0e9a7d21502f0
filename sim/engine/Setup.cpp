#include "Setup.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "ChannelCatalogue.hpp"
#include "CheckPolicyRef.hpp"
#include "CheckRules.hpp"
#include "MigParted.hpp"
#include "NvidiaSmi.hpp"
#include "Placement.hpp"
#include "RunBudget.hpp"
#include "Runtime.hpp"
#include "ServingSpecs.hpp"
#include "Text.hpp"
#include "Topology.hpp"
#include "Workload.hpp"

namespace gtw {

// The sharing of one device: a MIG instance that migReplicas shares is a time-sliced device of its own (the
// replicas share its SMs and memory; the MIG boundary still separates it from the GPU's other instances).
SharingSpec instance_sharing(const SharingSpec& gpu_sharing, const std::string& mig_profile) {
  if (mig_profile.empty()) return gpu_sharing;
  const int replicas = gpu_sharing.instance_replicas(mig_profile);
  if (replicas <= 1) return gpu_sharing;
  SharingSpec s = gpu_sharing;
  s.mode = SharingMode::TIME_SLICING;
  s.replicas = replicas;
  return s;
}

// The Kubernetes extended resource a device is advertised as: nvidia.com/gpu, or nvidia.com/mig-<profile> for a
// MIG instance under migStrategy mixed (the default naming without a device plugin config, the only one that
// tells instances of different profiles apart), renamed as the device plugin's config says when shared.
std::string advertised_resource(const NodePoolSpec& pool, const SharingSpec& device_sharing,
                                const std::string& mig_profile) {
  const DevicePluginSpec& dp = pool.device_plugin;
  const bool single = dp.given && dp.mig_strategy == "single";
  const std::string base = mig_profile.empty() || single ? "nvidia.com/gpu" : "nvidia.com/mig-" + mig_profile;
  const bool shared = device_sharing.mode == SharingMode::TIME_SLICING || device_sharing.mode == SharingMode::MPS;
  if (const auto it = dp.renamed.find(base); shared && it != dp.renamed.end()) return it->second;
  return base;
}

namespace {

// The device memory one replica gets on a GPU shared this way: the whole GPU for exclusive, time-slicing
// (no memory isolation) and confidential; its client limit for MPS; its framebuffer share for vGPU; its
// largest instance for MIG.
double partition_memory(const SharingSpec& s, const HardwareProfile& p) {
  const double memory = p.memory.value;
  switch (s.mode) {
    case SharingMode::MPS:
      return s.pinned_memory_limit.value > 0 ? s.pinned_memory_limit.value : memory / std::max(1, s.replicas);
    case SharingMode::VGPU:
      return memory / std::max(1, s.replicas);
    case SharingMode::MIG: {
      double largest = 0;
      for (const auto& name : s.mig_layout)
        if (const MigProfile* m = p.mig ? p.mig->find(name) : nullptr) largest = std::max(largest, m->memory);
      return largest > 0 ? largest : memory;  // an unknown profile is reported by the MIG checks
    }
    default:
      return memory;
  }
}

bool allowed(const WorkloadSpec& w, SharingMode m) {
  return w.allowed_sharing.empty() ||
         std::find(w.allowed_sharing.begin(), w.allowed_sharing.end(), m) != w.allowed_sharing.end();
}

// The largest partition per sharing mode over some node pools, and their largest node.
struct PoolCapacity {
  std::array<double, 6> by_mode{};  // indexed by SharingMode
  int gpus_per_node = 0;
  bool unknown_profile = false;
};

// Every MIG profile a pool's GPUs will have: its layouts and those of its reconfigurations.
std::set<std::string> mig_profiles_of_pool(const ScenarioSpec& spec, const NodePoolSpec& pool) {
  std::set<std::string> out;
  const auto add = [&](const std::vector<std::string>& layout) { out.insert(layout.begin(), layout.end()); };
  add(pool.sharing.mig_layout);
  for (const auto& o : pool.gpu_sharing) add(o.sharing.mig_layout);
  for (const auto& r : spec.reconfigurations)
    if (r.node_pool == pool.name) add(r.mig_layout);
  return out;
}

// Every Kubernetes resource name a pool's devices can be advertised as (its whole GPUs, or each MIG profile it
// lays out, renamed as the device plugin shares them).
std::set<std::string> advertised_resources_of_pool(const ScenarioSpec& spec, const NodePoolSpec& pool) {
  std::set<std::string> out;
  for (int g = 0; g < std::max(1, pool.gpus_per_node); ++g) {
    const SharingSpec& sharing = pool.sharing_for(g);
    if (sharing.mode != SharingMode::MIG) {
      out.insert(advertised_resource(pool, sharing, ""));
      continue;
    }
    for (const auto& profile : mig_profiles_of_pool(spec, pool))
      out.insert(advertised_resource(pool, instance_sharing(sharing, profile), profile));
  }
  return out;
}

// placement.resource names what a pod's resources.limits would: a resource some pool's devices are advertised as
// (in the pool the workload is pinned to, when it is).
void check_k8s_resources(const ScenarioSpec& spec, Diagnostics& diags) {
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    if (w.k8s_resource.empty()) continue;
    std::set<std::string> names;
    for (const auto& pool : spec.node_pools)
      if (w.node_pool.empty() || pool.name == w.node_pool) {
        const auto of_pool = advertised_resources_of_pool(spec, pool);
        names.insert(of_pool.begin(), of_pool.end());
      }
    if (names.count(w.k8s_resource)) continue;
    diags.error(w.k8s_resource_loc, "spec.workloads[" + std::to_string(i) + "].placement.resource",
                "no device " + std::string(w.node_pool.empty() ? "" : "of pool '" + w.node_pool + "' ") +
                    "is advertised as '" + w.k8s_resource + "'" +
                    suggest(w.k8s_resource, std::vector<std::string>(names.begin(), names.end())));
  }
}

// migReplicas names profiles of the product (or `all`). A profile the pool never lays out shares nothing: a
// warning. A profile the product does not have is an error in the scenario's own field, and a warning when it
// comes from a device plugin config (the GPU Operator's ConfigMaps list resources of several products).
void check_mig_replicas(const SharingSpec& sharing, const MigGeometry& mig, const std::set<std::string>& laid_out,
                        bool own_field, const std::string& at, Diagnostics& diags) {
  for (const auto& [profile, replicas] : sharing.mig_replicas) {
    if (profile == "all") continue;
    if (!mig.find(profile)) {
      const std::string message = "'" + profile + "' is not a MIG profile of this GPU" + suggest(profile, mig.names());
      if (own_field)
        diags.error(sharing.mig_replicas_loc, at + "." + profile, message);
      else
        diags.warning(sharing.mig_replicas_loc, at, message + ": the shared resource matches no device");
    } else if (!laid_out.count(profile)) {
      diags.warning(sharing.mig_replicas_loc, own_field ? at + "." + profile : at,
                    "no GPU of the pool has a '" + profile + "' instance, so sharing it changes nothing");
    }
  }
}

// A replica that can never fit: its memory (or, for a model, its weights plus the KV-cache share) is
// larger than every partition of every GPU it may be placed on, or a model's weights exceed the memory
// the scenario reserves for it. Pools are summarised once (per pool name and over all pools), so the
// check stays linear in pools x sharing entries + workloads.
void check_replica_capacity(const ScenarioSpec& spec, const ProfileSet& profiles, Diagnostics& diags) {
  std::map<std::string, PoolCapacity> by_pool;
  PoolCapacity any;
  for (const auto& pool : spec.node_pools) {
    auto& c = by_pool[pool.name];
    // A pool with hardware overrides has its own profile (memory: 24GiB makes its GPUs that small).
    const auto it = profiles.find(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key);
    if (it == profiles.end()) {
      c.unknown_profile = any.unknown_profile = true;  // already reported; do not pile up errors
      continue;
    }
    for (PoolCapacity* target : {&c, &any}) {
      target->gpus_per_node = std::max(target->gpus_per_node, pool.gpus_per_node);
      const auto note = [&](const SharingSpec& sharing) {
        double& m = target->by_mode[static_cast<size_t>(sharing.mode)];
        m = std::max(m, partition_memory(sharing, it->second));
        // Time-sliced MIG instances take replicas that may be time-sliced.
        if (sharing.mode != SharingMode::MIG || !it->second.mig) return;
        double& sliced = target->by_mode[static_cast<size_t>(SharingMode::TIME_SLICING)];
        for (const auto& name : sharing.mig_layout)
          if (const MigProfile* mp = it->second.mig->find(name); mp && sharing.instance_replicas(name) > 1)
            sliced = std::max(sliced, mp->memory);
      };
      note(pool.sharing);
      for (const auto& o : pool.gpu_sharing) note(o.sharing);
    }
  }
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    const std::string at = "spec.workloads[" + std::to_string(i) + "]";
    // A continuous-batching replica holds its weight shard on each of its GPUs.
    const double weights_per_gpu = w.model.weights().value / (w.continuous() ? std::max(1, w.gpus) : 1);
    if (w.kind == WorkloadKind::INFERENCE && w.memory.value > 0 && weights_per_gpu > w.memory.value) {
      diags.error(w.loc, at + ".memory",
                  "reserves " + format_bytes(w.memory) + " per replica" +
                      (w.continuous() && w.gpus > 1 ? std::string(" and GPU") : std::string()) +
                      ", less than the model's weights (" + format_bytes(Bytes(weights_per_gpu)) +
                      (w.gpus > 1 && w.continuous() ? " per GPU of " + std::to_string(w.gpus) : std::string()) +
                      ": parameters x bytes per parameter of its dtype)");
      continue;
    }
    const double need = workload_memory(w);
    if (need <= 0) continue;
    const PoolCapacity* c = &any;
    if (!w.node_pool.empty()) {
      const auto it = by_pool.find(w.node_pool);
      if (it == by_pool.end()) continue;  // unknown pool: reported by the reference checks
      c = &it->second;
    }
    if (c->unknown_profile) continue;
    double largest = 0;
    for (size_t m = 0; m < c->by_mode.size(); ++m)
      if (allowed(w, static_cast<SharingMode>(m))) largest = std::max(largest, c->by_mode[m]);
    if (largest <= 0) continue;               // no pool of an allowed mode: the placement reports it
    if (need > largest && !w.continuous()) {  // continuous batching: check_serving_shapes says more
      diags.error(w.loc, at,
                  "needs " + format_bytes(Bytes(need)) +
                      " per replica, but no GPU partition it may be placed on is that large (largest: " +
                      format_bytes(Bytes(largest)) + ", after the pools' sharing modes)");
    } else if (w.gpus / std::max(1, w.nodes) > c->gpus_per_node) {
      diags.error(w.loc, at + ".gpus",
                  std::to_string(w.gpus / std::max(1, w.nodes)) +
                      " GPUs on one node, but the allowed node pools have at most " + std::to_string(c->gpus_per_node) +
                      " GPUs per node");
    }
  }
}

// A continuous-batching replica's tensor-parallel split must be one the servers accept (heads divisible;
// KV heads divisible or replicated) and its weights, workspace and one request's KV must fit the share of
// memory it reserves on the smallest GPU of the pools it may use (its weight shard per GPU in the error).
void check_serving_shapes(const ScenarioSpec& spec, const ProfileSet& profiles, Diagnostics& diags) {
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    if (!w.continuous() || !w.model.has_shape()) continue;
    const std::string at = "spec.workloads[" + std::to_string(i) + "]";
    const int tp = w.serving.tensor_parallel;
    const auto& sh = w.model.shape;
    if (sh.attention_heads % tp != 0 || (sh.kv_heads % tp != 0 && tp % sh.kv_heads != 0)) {
      diags.error(w.serving.parallelism_loc.line > 0 ? w.serving.parallelism_loc : w.loc, at + ".parallelism.tensor",
                  "tensor parallelism " + std::to_string(tp) + " does not divide the model's " +
                      std::to_string(sh.attention_heads) + " attention heads and " + std::to_string(sh.kv_heads) +
                      " KV heads (KV heads must divide by it, or it by them)");
      continue;
    }
    if (w.model.layers % w.serving.pipeline_parallel != 0)
      diags.error(w.serving.parallelism_loc, at + ".parallelism.pipeline",
                  std::to_string(w.serving.pipeline_parallel) + " pipeline stages do not divide the model's " +
                      std::to_string(w.model.layers) + " layers");
    const double need = serving::minimum_bytes(w);
    for (const auto& pool : spec.node_pools) {
      if (!w.node_pool.empty() && pool.name != w.node_pool) continue;
      const auto it = profiles.find(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key);
      if (it == profiles.end()) continue;
      const double have = serving::reservation_bytes(w, partition_memory(pool.sharing, it->second));
      if (need > have) {
        diags.error(w.loc, at,
                    "model '" + (w.model.id.empty() ? w.name : w.model.id) + "' needs " + format_bytes(Bytes(need)) +
                        " per GPU (weight shard of " + format_bytes(w.model.weights()) + " over " +
                        std::to_string(w.gpus) +
                        " GPU(s), workspace and one request's KV cache), but a replica on pool '" + pool.name +
                        "' reserves " + format_bytes(Bytes(have)) +
                        " (kvCache.gpuMemoryUtilization of its partition); use more tensor parallelism, fp8 weights "
                        "or a larger GPU");
        break;
      }
    }
  }
}

// A Node's nvidia.com/mig.strategy (fromNode) against the MIG layout the pool ends up with: Kubernetes sees
// MIG instances only with single or mixed, and a MIG node with no layout in the twin runs whole GPUs.
void check_node_mig_strategy(const ScenarioSpec& spec, Diagnostics& diags) {
  for (const auto& pool : spec.node_pools) {
    if (pool.labelled_mig_strategy.empty()) continue;
    bool mig = pool.sharing.mode == SharingMode::MIG;
    for (const auto& o : pool.gpu_sharing) mig = mig || o.sharing.mode == SharingMode::MIG;
    if (mig && pool.labelled_mig_strategy == "none")
      diags.warning(pool.labelled_mig_strategy_loc, "nvidia.com/mig.strategy",
                    "the Node's mig.strategy is none, so Kubernetes would not see the MIG instances pool '" +
                        pool.name + "' lays out");
    if (!mig && pool.labelled_mig_strategy != "none" && pool.labelled_runs_mig)
      diags.warning(pool.labelled_mig_strategy_loc, "nvidia.com/mig.strategy",
                    "the Node runs MIG (mig.strategy " + pool.labelled_mig_strategy + "), but pool '" + pool.name +
                        "' lays out no MIG instance: give it migConfig or sharing mode mig");
  }
}

}  // namespace

PreparedScenario prepare_scenario(const std::string& path, const std::vector<Override>& overrides, Diagnostics& diags,
                                  const RunLimits& limits) {
  PreparedScenario out;
  out.spec = load_scenario(path, overrides, diags);
  auto& spec = out.spec;
  // model.id from the catalogue, parameters from the shapes: before anything reads a model's size.
  if (!diags.has_errors()) serving::resolve_models(spec, diags);
  // Before anything that grows with the cluster (profiles per pool, topology graphs): a scenario far
  // beyond the limits stops here with its estimate.
  if (!diags.has_errors() && !check_run_budget(spec, estimate_run(spec, limits.detailed_trace), limits, diags))
    return out;

  // Hardware profiles of every product used.
  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    auto& pool = spec.node_pools[p];
    if (pool.gpu_product.empty() || out.profiles.count(pool.gpu_product)) continue;
    HardwareProfile profile;
    if (load_profile(pool.gpu_product, pool.product_loc, "spec.cluster.nodePools[" + std::to_string(p) + "].gpu",
                     profile, diags)) {
      // A product name (NVIDIA-H100-80GB-HBM3, as GPU feature discovery labels a node) stands for its profile:
      // from here on the pool names the profile, so every reader finds it by one name.
      if (!profile.name.empty()) pool.gpu_product = profile.name;
      out.profiles.emplace(pool.gpu_product, std::move(profile));
    }
  }

  // Per-pool overrides of profile fields make a pool-specific profile.
  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    auto& pool = spec.node_pools[p];
    pool.profile_key = pool.gpu_product;
    auto it = out.profiles.find(pool.gpu_product);
    if (pool.hardware.empty() || it == out.profiles.end()) continue;
    HardwareProfile overridden;
    if (apply_profile_overrides(it->second, pool.hardware, pool.hardware_locs,
                                "spec.cluster.nodePools[" + std::to_string(p) + "].hardware", overridden, diags)) {
      pool.profile_key = pool.gpu_product + "@" + pool.name;
      out.profiles.emplace(pool.profile_key, std::move(overridden));
    }
  }

  // A Node's GPU feature discovery labels (fromNode): its product must be the pool's profile, and a profile (with
  // the pool's overrides) far from its labelled memory is another product.
  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    const auto& pool = spec.node_pools[p];
    if (!pool.labelled_product.empty()) {
      HardwareProfile labelled;
      Diagnostics quiet;
      const bool known =
          load_profile(pool.labelled_product, pool.labelled_product_loc, "nvidia.com/gpu.product", labelled, quiet);
      if (!known || (labelled.name.empty() ? pool.labelled_product : labelled.name) != pool.gpu_product)
        diags.error(pool.product_loc, "spec.cluster.nodePools[" + std::to_string(p) + "].gpu",
                    "gpu is '" + pool.gpu_product + "', but the Node's label nvidia.com/gpu.product says '" +
                        pool.labelled_product + "' (" + pool.labelled_product_loc.file + ":" +
                        std::to_string(pool.labelled_product_loc.line) + ")" +
                        (known ? std::string() : ", which names no profile"));
    }
    const auto it = out.profiles.find(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key);
    if (pool.labelled_memory_mib <= 0 || it == out.profiles.end()) continue;
    const double profile_mib = it->second.memory.value / (1024.0 * 1024.0);
    if (std::fabs(profile_mib - pool.labelled_memory_mib) > 0.10 * pool.labelled_memory_mib)
      diags.warning(pool.labelled_memory_loc, "nvidia.com/gpu.memory",
                    format_printf("the Node's GPUs have %.0f MiB, the profile %s %.0f MiB: another product, or a "
                                  "hardware override (memory) is missing",
                                  pool.labelled_memory_mib, pool.gpu_product.c_str(), profile_mib));
  }

  // A mig-parted selection with device-filters (migConfig): the entries for the product's PCI device ids.
  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    auto& pool = spec.node_pools[p];
    if (!pool.mig_config || pool.mig_config->applied) continue;
    const auto it = out.profiles.find(pool.gpu_product);
    if (it == out.profiles.end()) continue;  // reported with the profile
    apply_mig_config(pool, it->second.pci_device_ids, "spec.cluster.nodePools[" + std::to_string(p) + "].migConfig",
                     diags);
  }

  // A MIG layout imported from a saved `nvidia-smi mig -lgi` (topology.mig).
  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    auto& pool = spec.node_pools[p];
    if (pool.topology.nvidia_smi_mig.empty()) continue;
    const std::string at = "spec.cluster.nodePools[" + std::to_string(p) + "].topology.mig";
    if (pool.sharing.mode != SharingMode::MIG) {
      diags.error(pool.topology.mig_loc, at, "a MIG layout needs the pool's sharing mode to be mig");
      continue;
    }
    const auto text = fabric::read_saved_output(pool.topology.nvidia_smi_mig, diags, pool.topology.mig_loc, at);
    if (!text) continue;
    if (auto gis = fabric::parse_mig_lgi(*text, pool.topology.nvidia_smi_mig, diags)) {
      // GPU 0's layout is the pool's; a GPU laid out differently gets its own gpuSharing entry, after the
      // scenario's own entries (which win: the first entry naming a GPU applies).
      const auto layouts = fabric::mig_layouts_by_gpu(*gis);
      const int first = layouts.begin()->first;
      pool.sharing.mig_layout = layouts.begin()->second;
      pool.sharing.mig_loc = pool.topology.mig_loc;
      if (first != 0)
        diags.warning(pool.topology.mig_loc, at,
                      "no GPU instance on GPU 0; the pool's layout is GPU " + std::to_string(first) + "'s");
      for (const auto& [gpu, layout] : layouts) {
        if (gpu >= pool.gpus_per_node) {
          diags.error(pool.topology.mig_loc, at,
                      "'" + pool.topology.nvidia_smi_mig + "' lists GPU " + std::to_string(gpu) +
                          ", but the pool has gpusPerNode " + std::to_string(pool.gpus_per_node));
          break;
        }
        if (layout == pool.sharing.mig_layout) continue;
        GpuSharingOverride o;
        o.gpus = {gpu};
        o.sharing = pool.sharing;
        o.sharing.mig_layout = layout;
        o.loc = pool.topology.mig_loc;
        pool.gpu_sharing.push_back(std::move(o));
      }
      if (!pool.topology.nvidia_smi_lci.empty()) {
        const std::string lci_at = "spec.cluster.nodePools[" + std::to_string(p) + "].topology.migComputeInstances";
        const auto lci = fabric::read_saved_output(pool.topology.nvidia_smi_lci, diags, pool.topology.lci_loc, lci_at);
        if (!lci) continue;
        if (auto cis = fabric::parse_mig_lci(*lci, pool.topology.nvidia_smi_lci, diags)) {
          const auto product = out.profiles.find(pool.gpu_product);
          const MigGeometry no_mig;
          const auto check = fabric::check_compute_instances(
              *gis, *cis, product != out.profiles.end() && product->second.mig ? *product->second.mig : no_mig);
          for (const auto& e : check.errors)
            diags.error(pool.topology.lci_loc, lci_at,
                        pool.topology.nvidia_smi_lci + ":" + std::to_string(e.line) + ": " + e.message);
          for (const auto& n : check.notes) diags.warning(pool.topology.lci_loc, lci_at, n);
        }
      }
    }
  }

  // MIG layouts against the product's table and placement rules, as the hardware would.
  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    const auto& pool = spec.node_pools[p];
    auto it = out.profiles.find(pool.gpu_product);
    if (it == out.profiles.end()) continue;
    const std::string base = "spec.cluster.nodePools[" + std::to_string(p) + "]";
    auto check = [&](const SharingSpec& sharing, const std::string& at) {
      if (sharing.mode == SharingMode::CONFIDENTIAL && !it->second.confidential) {
        diags.error(sharing.loc, at + ".mode",
                    pool.gpu_product + " does not support confidential computing (Hopper and later do)");
      }
      if (sharing.mode != SharingMode::MIG || sharing.mig_layout.empty()) return;
      if (!it->second.mig) {
        diags.error(sharing.loc, at + ".mode", pool.gpu_product + " does not support MIG");
        return;
      }
      const auto r = check_mig_layout(*it->second.mig, sharing.mig_layout);
      if (!r.feasible) diags.error(sharing.mig_loc, at + ".migLayout", "layout refused: " + r.reason);
      // Shared MIG resources of a device plugin config are named by its path, the scenario's own by migReplicas.
      check_mig_replicas(sharing, *it->second.mig, mig_profiles_of_pool(spec, pool), !pool.device_plugin.given,
                         pool.device_plugin.given ? base + ".devicePluginConfig" : at + ".migReplicas", diags);
    };
    check(pool.sharing, base + ".sharing");
    for (size_t o = 0; o < pool.gpu_sharing.size(); ++o)
      check(pool.gpu_sharing[o].sharing, base + ".gpuSharing[" + std::to_string(o) + "]");
  }
  // Reconfiguration layouts, against the pool's product like the initial ones.
  for (size_t i = 0; i < spec.reconfigurations.size(); ++i) {
    const auto& r = spec.reconfigurations[i];
    for (const auto& pool : spec.node_pools) {
      if (pool.name != r.node_pool) continue;
      auto it = out.profiles.find(pool.gpu_product);
      if (it == out.profiles.end() || !it->second.mig || r.mig_layout.empty()) continue;
      const auto layout = check_mig_layout(*it->second.mig, r.mig_layout);
      if (!layout.feasible)
        diags.error(r.mig_loc, "spec.reconfigurations[" + std::to_string(i) + "].migLayout",
                    "layout refused: " + layout.reason);
    }
  }
  // A workload asking for a MIG profile that no pool offers.
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    if (w.mig_profile.empty()) continue;
    std::vector<std::string> offered;
    for (const auto& pool : spec.node_pools) {
      auto add = [&](const SharingSpec& sh) {
        if (sh.mode != SharingMode::MIG) return;
        for (const auto& m : sh.mig_layout)
          if (std::find(offered.begin(), offered.end(), m) == offered.end()) offered.push_back(m);
      };
      add(pool.sharing);
      for (const auto& o : pool.gpu_sharing) add(o.sharing);
    }
    if (std::find(offered.begin(), offered.end(), w.mig_profile) == offered.end()) {
      diags.error(w.mig_profile_loc, "spec.workloads[" + std::to_string(i) + "].placement.migProfile",
                  "no GPU of the cluster has a '" + w.mig_profile + "' instance" + suggest(w.mig_profile, offered));
    }
  }

  // A workload whose runtime accepts none of the sharing modes it may be placed on, or that no pool offers.
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    if (w.runtime == RuntimeKind::AUTO) continue;
    const std::string field = "spec.workloads[" + std::to_string(i) + "].runtime";
    const auto& accepted = runtime_model(w.runtime).gpu_modes;
    std::string accepted_names;
    for (SharingMode m : accepted)
      accepted_names += std::string(accepted_names.empty() ? "" : ", ") + sharing_mode_name(m);
    bool constraint_overlaps = w.allowed_sharing.empty();
    for (SharingMode m : w.allowed_sharing)
      constraint_overlaps |= std::find(accepted.begin(), accepted.end(), m) != accepted.end();
    if (!constraint_overlaps) {
      diags.error(w.runtime_loc, field,
                  std::string("runtime '") + runtime_kind_name(w.runtime) + "' runs only on GPUs shared as " +
                      accepted_names + ", which placement.sharing excludes");
      continue;
    }
    bool offered = false;
    for (const auto& pool : spec.node_pools) {
      if (!w.node_pool.empty() && pool.name != w.node_pool) continue;
      auto fits = [&](const SharingSpec& sh) {
        return std::find(accepted.begin(), accepted.end(), sh.mode) != accepted.end() &&
               (w.allowed_sharing.empty() ||
                std::find(w.allowed_sharing.begin(), w.allowed_sharing.end(), sh.mode) != w.allowed_sharing.end());
      };
      offered |= fits(pool.sharing);
      for (const auto& o : pool.gpu_sharing) offered |= fits(o.sharing);
    }
    if (!offered)
      diags.error(w.runtime_loc, field,
                  std::string("runtime '") + runtime_kind_name(w.runtime) + "' runs only on GPUs shared as " +
                      accepted_names + ", and no node pool" + (w.node_pool.empty() ? "" : " '" + w.node_pool + "'") +
                      " offers one");
  }

  // An attack's reference measurement must be one of the catalogue's (attacks.md ids).
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& a = spec.workloads[i].attack;
    if (spec.workloads[i].kind != WorkloadKind::ATTACK || a.reference.empty()) continue;
    const auto ids = channel::published_ids();
    if (std::find(ids.begin(), ids.end(), a.reference) == ids.end())
      diags.error(a.reference_loc, "spec.workloads[" + std::to_string(i) + "].attack.reference",
                  "no published measurement '" + a.reference + "'" + suggest(a.reference, ids));
  }

  // Policies by registered name.
  policy::check_policy_ref(spec.placement, "spec.policies.placement", "placement",
                           policy::builtin_placement_registry().list(), diags,
                           {{"best-fit",
                             {"tightest-fit",
                              "best-fit is the packing experiment's node-level CPU+GPU policy of "
                              "`gputwin pack`; the engine's scores the GPUs left least free"}}});
  policy::check_compliance_rules(spec, diags);

  check_replica_capacity(spec, out.profiles, diags);
  check_serving_shapes(spec, out.profiles, diags);
  // The network and I/O topology: templates, imported nvidia-smi matrices, connectivity
  // (every GPU reaches its host, every node reaches storage).
  if (!diags.has_errors()) {
    fabric::Topology topology;
    fabric::build_topology(spec, out.profiles, topology, diags);
  }
  check_node_mig_strategy(spec, diags);
  check_k8s_resources(spec, diags);
  return out;
}

}  // namespace gtw
