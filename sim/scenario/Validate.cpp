#include <algorithm>
#include <map>
#include <set>

#include "Loader.hpp"
#include "QuotaTree.hpp"
#include "Text.hpp"

namespace gtw {
namespace {

// The batching mode's needs: continuous batching prices steps from the model's shape; a replica spans
// tensor x pipeline GPUs (gpus is that product, given or derived); the static batcher runs on one GPU.
void check_serving(WorkloadSpec& w, const std::string& path, Diagnostics& diags) {
  const auto& s = w.serving;
  const int width = s.tensor_parallel * s.pipeline_parallel;
  if (s.prefill_replicas > 0 && (!w.continuous() || s.prefill_replicas >= w.replicas))
    diags.error(s.disaggregation_loc, path + ".disaggregation.prefillReplicas",
                !w.continuous() ? std::string("disaggregation needs batching.mode continuous")
                                : std::to_string(s.prefill_replicas) + " prefill replicas leave none of the " +
                                      std::to_string(w.replicas) + " replicas to decode");
  if (!w.continuous()) {
    if (width > 1)
      diags.error(s.parallelism_loc, path + ".parallelism",
                  "a replica spans GPUs only with batching.mode continuous (the static batcher runs on one GPU)");
    if (w.gpus != 1)
      diags.error(w.loc, path + ".gpus",
                  "a statically batched replica runs on one GPU; use batching.mode continuous with parallelism.tensor "
                  "for a replica that spans GPUs");
    return;
  }
  if (w.model.id.empty() && !w.model.has_shape())
    diags.error(
        s.mode_given ? s.mode_loc : w.loc, path + ".batching.mode",
        "continuous batching needs the model's shape: model.id (one of `gputwin models`) or model.architecture");
  if (w.model.has_shape() && w.model.layers == 0)
    diags.error(w.loc, path + ".model.layers", "model.architecture needs model.layers");
  const auto& sh = w.model.shape;
  // Heads of 0 were already refused by their range; the division below must not see them.
  const bool heads_read = sh.kv_heads > 0 && sh.attention_heads > 0;
  if (w.model.has_shape() && heads_read && (sh.kv_heads > sh.attention_heads || sh.attention_heads % sh.kv_heads != 0))
    diags.error(w.loc, path + ".model.architecture.kvHeads",
                std::to_string(sh.kv_heads) + " KV heads must divide the " + std::to_string(sh.attention_heads) +
                    " attention heads (grouped-query attention)");
  if (w.model.has_shape() && sh.active_experts > sh.experts)
    diags.error(
        w.loc, path + ".model.architecture.activeExperts",
        std::to_string(sh.active_experts) + " experts per token, but the model has " + std::to_string(sh.experts));
  if (w.gpus == 1) {
    w.gpus = width;
  } else if (w.gpus != width) {
    diags.error(w.loc, path + ".gpus",
                std::to_string(w.gpus) + " GPUs per replica, but parallelism gives tensor x pipeline = " +
                    std::to_string(width) + "; leave gpus out or make them agree");
  }
  if (w.swap_models >= 2)
    diags.error(w.loc, path + ".swapping", "model swapping is modelled with batching.mode static only");
}

template <class T>
void check_unique(const std::vector<T>& items, const std::string& list_path, Diagnostics& diags) {
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& name = items[i].name;
    if (name.empty()) continue;
    auto [it, inserted] = seen.emplace(name, i);
    if (!inserted) {
      diags.error(
          items[i].loc, list_path + "[" + std::to_string(i) + "].name",
          "duplicate name '" + name + "' (first used by " + list_path + "[" + std::to_string(it->second) + "])");
    }
  }
}

// suggest() costs one edit distance per candidate: skip it once Diagnostics drops further errors,
// so that an alias-amplified file with a million dangling names stays linear.
std::string suggest_if_collecting(const std::string& name, const std::vector<std::string>& valid,
                                  const Diagnostics& diags) {
  return diags.error_count() < Diagnostics::MAX_ERRORS ? suggest(name, valid) : std::string();
}

// An attacker workload: its sender tenant and its victim exist, the victim is of a kind the attack
// can observe, and the attacker does not target itself.
void check_attack(ScenarioSpec& spec, size_t i, const std::map<std::string, int>& tenant_index,
                  const std::vector<std::string>& tenant_names, Diagnostics& diags) {
  auto& w = spec.workloads[i];
  auto& a = w.attack;
  const std::string path = "spec.workloads[" + std::to_string(i) + "].attack";
  if (w.gpus != 1)
    diags.error(w.loc, "spec.workloads[" + std::to_string(i) + "].gpus", "an attacker process uses one GPU");
  if (!a.sender_tenant.empty()) {
    auto it = tenant_index.find(a.sender_tenant);
    if (it == tenant_index.end()) {
      diags.error(
          a.sender_loc, path + ".senderTenant",
          "no tenant named '" + a.sender_tenant + "'" + suggest_if_collecting(a.sender_tenant, tenant_names, diags));
    } else {
      a.sender_tenant_index = it->second;
    }
  }
  if (a.target.empty()) return;
  std::vector<std::string> names;
  for (size_t j = 0; j < spec.workloads.size(); ++j) {
    if (spec.workloads[j].name == a.target && a.target_index < 0) a.target_index = static_cast<int>(j);
    if (j != i && spec.workloads[j].kind != WorkloadKind::ATTACK) names.push_back(spec.workloads[j].name);
  }
  if (a.target_index < 0) {
    diags.error(a.target_loc, path + ".target",
                "no workload named '" + a.target + "'" + suggest_if_collecting(a.target, names, diags));
    return;
  }
  const auto& victim = spec.workloads[static_cast<size_t>(a.target_index)];
  if (static_cast<size_t>(a.target_index) == i || victim.kind == WorkloadKind::ATTACK) {
    diags.error(a.target_loc, path + ".target", "the victim must be a tenant workload, not an attack");
  } else if ((a.type == AttackType::PRIME_PROBE || a.type == AttackType::MODEL_EXTRACTION ||
              a.type == AttackType::QUERY_EXTRACTION) &&
             victim.kind != WorkloadKind::INFERENCE) {
    diags.error(a.target_loc, path + ".target",
                std::string(attack_type_name(a.type)) + " targets an inference service; '" + a.target + "' is " +
                    workload_kind_name(victim.kind));
  }
}

std::string resource_names(const ResourceQuotas& quotas) {
  std::string out;
  for (const auto& [name, q] : quotas) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The cluster's priority classes: spec.priorityClasses' and those of the tenants' Kueue files (cluster-wide, as
// in Kubernetes: one name, one value).
PriorityClasses cluster_priority_classes(const ScenarioSpec& spec, Diagnostics& diags) {
  PriorityClasses all = spec.priority_classes;
  for (const auto& t : spec.tenants) {
    for (const auto& [name, value] : t.priority_classes.values) {
      const auto [it, added] = all.values.emplace(name, value);
      const SourceLoc& here = t.priority_classes.locs.at(name);
      if (added) {
        all.locs[name] = here;
      } else if (it->second != value) {
        const SourceLoc& first = all.locs[name];
        diags.error(here, "PriorityClass[" + name + "]",
                    "priority class '" + name + "' is defined again with another value (first at " + first.file + ":" +
                        std::to_string(first.line) + "); priority classes are cluster-wide");
      }
    }
    if (t.priority_classes.global_default && !all.global_default)
      all.global_default = t.priority_classes.global_default;
  }
  return all;
}

// Kueue's fair sharing is cluster-wide: spec.fairSharing (or spec.kueueConfiguration) and every Configuration of
// the tenants' Kueue files must say the same. Weights without fair sharing, and borrowWithinCohort with it (a
// no-op in Kueue since v0.10), are named in a warning.
void resolve_fair_sharing(ScenarioSpec& spec, Diagnostics& diags) {
  FairSharingSpec& fs = spec.fair_sharing;
  std::set<std::pair<std::string, int>> reported;  // one file read through two tenants is one Configuration
  for (const auto& t : spec.tenants) {
    if (!t.kueue_configuration) continue;
    const FairSharingSpec& theirs = *t.kueue_configuration;
    if (fs.loc.file.empty() && fs.loc.line == 0) {
      fs = theirs;
    } else if (!fs.same_setting(theirs) && reported.emplace(theirs.loc.file, theirs.loc.line).second) {
      diags.error(theirs.loc, "Configuration",
                  "this Kueue Configuration's fairSharing differs from the one at " + fs.loc.file + ":" +
                      std::to_string(fs.loc.line) + " (Kueue runs with one Configuration)");
    }
  }
  for (size_t i = 0; i < spec.tenants.size(); ++i) {
    const TenantSpec& t = spec.tenants[i];
    const std::string path = "spec.tenants[" + std::to_string(i) + "].quota";
    if (!t.has_quota) continue;
    if (!fs.enabled && t.fair_weight != 1.0)
      diags.warning(t.quota_loc, path,
                    "a fairSharing weight acts only with fair sharing on (spec.fairSharing.enable, or a Kueue "
                    "Configuration's): ignored");
    if (fs.enabled && t.preemption.borrow_within_cohort)
      diags.warning(t.quota_loc, path + ".preemption.borrowWithinCohort",
                    "borrowWithinCohort has no effect under fair sharing (as in Kueue since v0.10)");
  }
}

// A workload's quota priority: `priority`, the value of its `priorityClass`, or the globalDefault PriorityClass's.
void resolve_priority(WorkloadSpec& w, const std::string& path, const PriorityClasses& classes, Diagnostics& diags) {
  if (w.priority_class.empty()) {
    if (w.priority_loc.line == 0 && classes.global_default) w.priority = *classes.global_default;
    return;
  }
  const auto it = classes.values.find(w.priority_class);
  if (it != classes.values.end()) {
    w.priority = it->second;
    return;
  }
  std::vector<std::string> names;
  for (const auto& [name, value] : classes.values) names.push_back(name);
  diags.error(w.priority_loc, path + ".priorityClass",
              "no priority class '" + w.priority_class + "'" +
                  (names.empty() ? std::string(": no WorkloadPriorityClass or PriorityClass is defined (spec."
                                               "priorityClasses.file, or a tenant's quota.kueue file); or give "
                                               "priority: N")
                                 : suggest(w.priority_class, names)));
}

// A workload of a tenant with a quota is admitted whole, counting devices of its resource (nvidia.com/gpu, a MIG
// profile's nvidia.com/mig-<profile>, the resource its pods name): one whose resource its tenant's quota lacks
// (Kueue never admits it), or that needs more than its tenant can ever hold (what the resource's quota tree
// leaves it with nothing in use: its nominal quota, what the cohorts above lend, within the borrowing limits),
// would wait forever.
void check_quotas(ScenarioSpec& spec, Diagnostics& diags) {
  resolve_fair_sharing(spec, diags);
  const PriorityClasses classes = cluster_priority_classes(spec, diags);
  for (size_t i = 0; i < spec.workloads.size(); ++i)
    resolve_priority(spec.workloads[i], "spec.workloads[" + std::to_string(i) + "]", classes, diags);
  std::map<std::string, QuotaTree> trees;
  bool first = true;
  for (const auto& t : spec.tenants)
    for (const auto& [name, q] : t.quotas)
      if (t.has_quota && !trees.count(name)) {
        // Cohort definitions are checked once: they do not depend on the resource.
        trees.emplace(name, QuotaTree(spec.tenants, name, first ? &diags : nullptr));
        first = false;
      }
  const std::vector<int> idle(spec.tenants.size(), 0);
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    if (w.tenant_index < 0) continue;
    const auto& t = spec.tenants[static_cast<size_t>(w.tenant_index)];
    if (!t.has_quota || t.quotas.empty()) continue;  // a quota of no resource is refused where it is given
    const std::string resource = w.quota_resource();
    const std::string path = "spec.workloads[" + std::to_string(i) + "]";
    const auto quota = t.quotas.find(resource);
    if (quota == t.quotas.end()) {
      diags.error(w.loc, path,
                  "workload '" + w.name + "' asks for " + resource + ", which tenant '" + t.name +
                      "''s quota does not cover (it has " + resource_names(t.quotas) +
                      "): Kueue would never admit it; add a quota of " + resource +
                      " or place the workload on what the quota covers");
      continue;
    }
    const int needs = (w.kind == WorkloadKind::TRAINING ? 1 : w.replicas) * w.gpus;
    const int most = trees.at(resource).available(w.tenant_index, idle);
    const ResourceQuota& q = quota->second;
    if (needs > most)
      diags.error(w.loc, path,
                  "workload '" + w.name + "' needs " + std::to_string(needs) + " " +
                      (resource == GPU_RESOURCE ? std::string("GPUs") : resource + " devices") +
                      " at once, but tenant '" + t.name + "' can hold at most " + std::to_string(most) +
                      " with nothing else in use (quota " + std::to_string(q.nominal) +
                      ", the rest borrowed from its cohorts" +
                      (q.borrowing_limit >= 0 ? " within its borrowing limit " + std::to_string(q.borrowing_limit)
                                              : std::string()) +
                      "): it would never be admitted");
  }
}

// The node pool a Kueue GPU flavor's nodeLabels select: a pool whose name is a label's value, or whose `gpu`
// is the product name of an nvidia.com/gpu.product label. "" (with an error) when none or several do.
std::string flavor_pool(const ScenarioSpec& spec, const TenantSpec& t, const std::string& path, Diagnostics& diags) {
  std::vector<std::string> pools;
  std::vector<std::string> selected;
  for (const auto& p : spec.node_pools) {
    pools.push_back(p.name);
    for (const auto& [key, value] : t.flavor_node_labels) {
      const bool product = key == "nvidia.com/gpu.product" && p.gpu_product == value;
      if ((product || value == p.name) && std::find(selected.begin(), selected.end(), p.name) == selected.end())
        selected.push_back(p.name);
    }
  }
  if (selected.size() == 1) return selected.front();
  std::string labels;
  for (const auto& [key, value] : t.flavor_node_labels) labels += (labels.empty() ? "" : ", ") + key + ": " + value;
  if (selected.empty())
    diags.error(t.flavor_loc, path,
                "the GPU flavor's nodeLabels (" + labels +
                    ") select no node pool: the twin's nodes carry no labels, so a label's value must be a pool's "
                    "name, or nvidia.com/gpu.product a pool's `gpu` written as that product name" +
                    suggest(t.flavor_node_labels.front().second, pools));
  else
    diags.error(t.flavor_loc, path,
                "the GPU flavor's nodeLabels (" + labels + ") select " + std::to_string(selected.size()) +
                    " node pools; the twin places a tenant's workloads on one pool: give the flavor a label naming "
                    "one");
  return {};
}

// Quotas from Kueue ClusterQueues (quota.kueue): a quota per tenant, so no two tenants one ClusterQueue (the
// cohorts, flat or nested, form the quota tree: QuotaTree). A GPU flavor's nodeLabels select the node pool whose
// name one of their values is; the tenant's workloads are placed there (as Kueue's nodeSelector does).
void check_kueue_queues(ScenarioSpec& spec, Diagnostics& diags) {
  for (size_t i = 0; i < spec.tenants.size(); ++i) {
    auto& t = spec.tenants[i];
    if (t.cluster_queue.empty()) continue;
    const std::string path = "spec.tenants[" + std::to_string(i) + "].quota.kueue";
    for (const auto& o : spec.tenants)
      if (&o != &t && o.cluster_queue == t.cluster_queue && &o < &t)
        diags.error(t.cluster_queue_loc, path,
                    "ClusterQueue '" + t.cluster_queue + "' is already tenant '" + o.name +
                        "''s quota; the twin gives each tenant its own quota (one ClusterQueue per tenant)");
    if (t.flavor_node_labels.empty()) continue;
    const std::string pool = flavor_pool(spec, t, path, diags);
    if (pool.empty()) continue;
    for (size_t w = 0; w < spec.workloads.size(); ++w) {
      auto& wl = spec.workloads[w];
      if (wl.tenant_index != static_cast<int>(i)) continue;
      if (wl.node_pool.empty())
        wl.node_pool = pool;
      else if (wl.node_pool != pool)
        diags.error(wl.loc, "spec.workloads[" + std::to_string(w) + "].placement.nodePool",
                    "workload '" + wl.name + "' asks for pool '" + wl.node_pool +
                        "', but its tenant's Kueue flavor "
                        "selects pool '" +
                        pool + "'");
    }
  }
}

// A pool's device plugin config shares whole GPUs as replicas of nvidia.com/gpu: a pod asking N of them
// is refused at admission with failRequestsGreaterThanOne (UnexpectedAdmissionError), else it may get N
// replicas of one GPU, which give no more compute than one. The twin gives a replica N distinct GPUs.
void check_device_plugin_requests(const ScenarioSpec& spec, Diagnostics& diags) {
  std::vector<const NodePoolSpec*> shared;  // pools whose device plugin config shares GPUs
  for (const auto& pool : spec.node_pools)
    if (pool.device_plugin.given && pool.device_plugin.shared) shared.push_back(&pool);
  if (shared.empty()) return;
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    if (w.gpus <= 1) continue;
    const std::string path = "spec.workloads[" + std::to_string(i) + "].gpus";
    const SourceLoc at = w.gpus_loc.line > 0 ? w.gpus_loc : w.loc;
    for (const NodePoolSpec* p : shared) {
      const NodePoolSpec& pool = *p;
      const auto& dp = pool.device_plugin;
      if (!w.node_pool.empty() && w.node_pool != pool.name) continue;
      if (!w.allowed_sharing.empty() &&
          std::find(w.allowed_sharing.begin(), w.allowed_sharing.end(), pool.sharing.mode) == w.allowed_sharing.end())
        continue;
      const std::string ask = std::to_string(w.gpus) + " " + dp.resource + " per replica";
      if (dp.fail_requests_greater_than_one) {
        diags.error(at, path,
                    "asks " + ask + ", but pool '" + pool.name +
                        "' has failRequestsGreaterThanOne in its device plugin "
                        "config (" +
                        dp.fail_loc.file + ":" + std::to_string(dp.fail_loc.line) +
                        "), which refuses such pods; ask 1, or keep the workload off the "
                        "pool (placement.nodePool or placement.sharing)");
      } else {
        diags.warning(at, path,
                      "asks " + ask + " and may run on pool '" + pool.name + "', whose device plugin shares GPUs as " +
                          "replicas: in Kubernetes the pod may get " + std::to_string(w.gpus) +
                          " replicas of one GPU, which give no more compute than one; the twin gives it " +
                          std::to_string(w.gpus) + " distinct GPUs");
      }
    }
  }
}

// A secret leak (spec.faults[] with `secret`): the secret and the receiving tenant exist, and none of the
// GPU-fault fields is given.
void check_secret_leak(const ScenarioSpec& spec, const FaultSpec& f, const std::string& path, Diagnostics& diags) {
  std::vector<std::string> secrets;
  for (const auto& s : spec.identity.secrets) secrets.push_back(s.name);
  if (!contains(secrets, f.secret))
    diags.error(f.loc, path + ".secret", "unknown secret '" + f.secret + "'" + suggest(f.secret, secrets));
  if (!f.to.empty() && spec.tenant_index(f.to) < 0) {
    std::vector<std::string> tenants;
    for (const auto& t : spec.tenants) tenants.push_back(t.name);
    diags.error(f.loc, path + ".to", "unknown tenant '" + f.to + "'" + suggest(f.to, tenants));
  }
  if (!f.workload.empty())
    diags.error(f.workload_loc, path + ".workload",
                "a fault is a secret leak (secret) or a GPU fault (workload), not both");
  if (f.replica != 0 || f.restart_after.value >= 0 || f.failover.value >= 0 || f.scope != FaultScope::GPU)
    diags.error(f.loc, path, "replica, restartAfter, failover and scope describe a GPU fault, not a secret leak");
}

// spec.faults: the faulting workload and replica exist, and the fault falls inside the run.
void check_fault_references(const ScenarioSpec& spec, Diagnostics& diags) {
  for (size_t i = 0; i < spec.faults.size(); ++i) {
    const auto& f = spec.faults[i];
    const std::string path = "spec.faults[" + std::to_string(i) + "]";
    if (f.at.value >= spec.duration.value)
      diags.error(f.loc, path + ".at", "is at or after the end of the run (" + format_duration(spec.duration) + ")");
    if (!f.secret.empty()) {
      check_secret_leak(spec, f, path, diags);
      continue;
    }
    if (!f.to.empty() || f.detected_after.value >= 0)
      diags.error(f.loc, path, "`to` and `detectedAfter` describe a secret leak: name its `secret`");
    const WorkloadSpec* target = nullptr;
    std::vector<std::string> workload_names;
    for (const auto& w : spec.workloads) {
      if (w.name == f.workload) target = &w;
      workload_names.push_back(w.name);
    }
    if (!target) {
      if (!f.workload.empty())
        diags.error(f.workload_loc, path + ".workload",
                    "no workload named '" + f.workload + "'" + suggest(f.workload, workload_names));
      continue;
    }
    const int replicas = target->kind == WorkloadKind::TRAINING ? 1 : target->replicas;
    if (f.replica >= replicas)
      diags.error(f.loc, path + ".replica",
                  "workload '" + f.workload + "' has " + std::to_string(replicas) + " replica(s) (0.." +
                      std::to_string(replicas - 1) + ")");
  }
}

// spec.reconfigurations: inside the run, on a pool that has MIG GPUs.
void check_reconfiguration_references(const ScenarioSpec& spec, Diagnostics& diags) {
  for (size_t i = 0; i < spec.reconfigurations.size(); ++i) {
    const auto& r = spec.reconfigurations[i];
    const std::string path = "spec.reconfigurations[" + std::to_string(i) + "]";
    if (r.at.value >= spec.duration.value)
      diags.error(r.loc, path + ".at", "is at or after the end of the run (" + format_duration(spec.duration) + ")");
    const NodePoolSpec* pool = nullptr;
    std::vector<std::string> known_pools;
    for (const auto& p : spec.node_pools) {
      if (p.name == r.node_pool) pool = &p;
      known_pools.push_back(p.name);
    }
    if (!pool) {
      if (!r.node_pool.empty())
        diags.error(r.node_pool_loc, path + ".nodePool",
                    "no node pool named '" + r.node_pool + "'" + suggest(r.node_pool, known_pools));
      continue;
    }
    bool any_mig = pool->sharing.mode == SharingMode::MIG;
    for (const auto& o : pool->gpu_sharing) any_mig |= o.sharing.mode == SharingMode::MIG;
    if (!any_mig)
      diags.error(r.node_pool_loc, path + ".nodePool",
                  "node pool '" + r.node_pool + "' has no GPU in mig mode; only MIG layouts can be reconfigured");
  }
}

// Each tenant's SLOs: their windows resolved, their workload (named, or any of the kind the SLO measures) one
// of the tenant's.
void check_slo_references(ScenarioSpec& spec, std::map<std::string, std::vector<const WorkloadSpec*>>& by_tenant,
                          Diagnostics& diags) {
  struct OwnKinds {
    bool inference = false, other = false;
    std::map<std::string, WorkloadKind> kind_of;  // first workload of each name
  };
  std::map<std::string, OwnKinds> own_kinds;
  for (const auto& [name, list] : by_tenant) {
    auto& k = own_kinds[name];
    for (const auto* w : list) {
      (w->kind == WorkloadKind::INFERENCE ? k.inference : k.other) = true;
      k.kind_of.emplace(w->name, w->kind);
    }
  }
  size_t long_windows = 0;  // warnings are not capped by Diagnostics
  for (size_t t = 0; t < spec.tenants.size(); ++t) {
    auto& tenant = spec.tenants[t];
    check_unique(tenant.slos, "spec.tenants[" + std::to_string(t) + "].slos", diags);
    for (size_t s = 0; s < tenant.slos.size(); ++s) {
      auto& slo = tenant.slos[s];
      const std::string path = "spec.tenants[" + std::to_string(t) + "].slos[" + std::to_string(s) + "]";
      if (slo.whole_run) slo.window = spec.duration;  // an OpenSLO Occurrences budget: every event of the run
      if (slo.window.value < 0) slo.window = spec.sla_window;
      if (slo.time_window.value > spec.duration.value)
        diags.warning(slo.time_window_loc, path,
                      "the OpenSLO timeWindow (" + slo.time_window_text + ") is longer than the run (" +
                          format_duration(spec.duration) + "): the twin judges the run's windows only");
      const bool request_slo = is_request_slo(slo.kind);
      const auto& own = own_kinds[tenant.name];
      bool any_matching_kind = false;
      bool named_found = false;
      if (slo.workload.empty()) {
        any_matching_kind = request_slo ? own.inference : own.other;
      } else if (auto it = own.kind_of.find(slo.workload); it != own.kind_of.end()) {
        named_found = true;
        any_matching_kind = (it->second == WorkloadKind::INFERENCE) == request_slo;
      }
      if (!slo.workload.empty() && !named_found) {
        std::vector<std::string> own_names;
        if (diags.error_count() < Diagnostics::MAX_ERRORS) {
          for (const auto* w : by_tenant[tenant.name]) own_names.push_back(w->name);
        }
        diags.error(slo.workload_loc, path + ".workload",
                    "tenant '" + tenant.name + "' has no workload named '" + slo.workload + "'" +
                        suggest_if_collecting(slo.workload, own_names, diags));
      } else if (!any_matching_kind && !tenant.name.empty()) {
        diags.error(slo.loc, path + ".kind",
                    std::string("a ") + slo_kind_name(slo.kind) + " SLO needs " +
                        (request_slo ? "an inference workload" : "a training or batch workload") + " of tenant '" +
                        tenant.name + "'" + (slo.workload.empty() ? "" : " named '" + slo.workload + "'"));
      }
      if (slo.window.value > spec.duration.value && long_windows++ < Diagnostics::MAX_ERRORS) {
        diags.warning(slo.loc, path + ".window",
                      "window is longer than the run (" + format_duration(spec.duration) + "); one partial window");
      }
    }
  }
}

}  // namespace

void check_references(ScenarioSpec& spec, Diagnostics& diags) {
  check_unique(spec.node_pools, "spec.cluster.nodePools", diags);
  check_unique(spec.tenants, "spec.tenants", diags);
  check_unique(spec.workloads, "spec.workloads", diags);

  std::vector<std::string> tenant_names, pool_names;
  std::map<std::string, int> tenant_index;  // first tenant of each name, as ScenarioSpec::tenant_index
  for (const auto& t : spec.tenants) {
    tenant_index.emplace(t.name, static_cast<int>(tenant_names.size()));
    tenant_names.push_back(t.name);
  }
  for (const auto& p : spec.node_pools) pool_names.push_back(p.name);
  const std::set<std::string> pool_set(pool_names.begin(), pool_names.end());
  // Per tenant: its workloads, so that each SLO is checked without a scan of every workload.
  std::map<std::string, std::vector<const WorkloadSpec*>> by_tenant;
  for (const auto& w : spec.workloads) by_tenant[w.tenant].push_back(&w);

  // GPUs listed twice in gpuSharing are reported by the loader, at the index.

  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    auto& w = spec.workloads[i];
    const std::string path = "spec.workloads[" + std::to_string(i) + "]";
    auto ti = tenant_index.find(w.tenant);
    w.tenant_index = ti == tenant_index.end() ? -1 : ti->second;
    if (!w.tenant.empty() && w.tenant_index < 0) {
      diags.error(w.tenant_loc, path + ".tenant",
                  "no tenant named '" + w.tenant + "'" + suggest_if_collecting(w.tenant, tenant_names, diags));
    }
    if (!w.node_pool.empty() && !pool_set.count(w.node_pool)) {
      diags.error(w.node_pool_loc, path + ".placement.nodePool",
                  "no node pool named '" + w.node_pool + "'" + suggest_if_collecting(w.node_pool, pool_names, diags));
    }
    // Unknown modes in placement.sharing and a start after the end are reported by the loader,
    // which has their locations.
    if (w.kind == WorkloadKind::BATCH && w.gpus != 1) {
      diags.error(w.loc, path + ".gpus", "batch jobs run on one GPU each; use replicas for more workers");
    }
    if (w.kind == WorkloadKind::INFERENCE) check_serving(w, path, diags);
    if (w.kind == WorkloadKind::ATTACK) check_attack(spec, i, tenant_index, tenant_names, diags);
  }

  check_fault_references(spec, diags);
  check_reconfiguration_references(spec, diags);
  check_slo_references(spec, by_tenant, diags);
  check_fabric_references(spec, diags);
  check_device_plugin_requests(spec, diags);
  check_identity_references(spec, diags);
  check_compliance_references(spec, diags);
  check_kueue_queues(spec, diags);
  check_quotas(spec, diags);
}

}  // namespace gtw
