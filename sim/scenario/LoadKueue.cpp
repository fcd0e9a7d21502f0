// Kueue objects read verbatim as a tenant's GPU quota (docs/scenario.md, "Kueue"): the ClusterQueue named by
// `tenants[].quota.kueue` (directly, through a LocalQueue, or through the LocalQueues of the tenant's
// namespace), its nvidia.com/gpu nominalQuota and borrowingLimit, its cohort and preemption policy, and the
// ResourceFlavor of its GPU quota, and the tree of cohorts the file's Cohort objects and other ClusterQueues
// form around it. The twin's quota model (docs/models/quotas.md) counts GPUs of one flavor, with borrowing and
// lending limits and reclaim within the tree as its only preemption: what it cannot honour is refused at its
// location; CPU and memory quotas and scheduling details are named in warnings.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "LoaderInternal.hpp"

namespace gtw {

namespace {

std::string field_of(const YAML::Node& doc, const char* key) {
  const YAML::Node k = doc.IsMap() ? doc[key] : YAML::Node();
  return k && k.IsScalar() ? k.Scalar() : std::string();
}

std::string meta_field(const YAML::Node& doc, const char* key) {
  const YAML::Node meta = doc.IsMap() ? doc["metadata"] : YAML::Node();
  return meta && meta.IsMap() ? field_of(meta, key) : std::string();
}

const std::vector<std::string>& kueue_kinds() {
  static const std::vector<std::string> kinds{"ResourceFlavor",        "ClusterQueue",  "LocalQueue",   "Cohort",
                                              "WorkloadPriorityClass", "PriorityClass", "Configuration"};
  return kinds;
}

// Resources a quota counts: whole GPUs, MIG instances and a device plugin's renamed resources.
bool device_resource(const std::string& name) {
  return name.rfind("nvidia.com/", 0) == 0;
}

const Ctx* find_doc(const std::vector<Ctx>& docs, const std::string& kind, const std::string& name) {
  for (const auto& d : docs)
    if (field_of(d.node, "kind") == kind && meta_field(d.node, "name") == name) return &d;
  return nullptr;
}

std::vector<std::string> names_of(const std::vector<Ctx>& docs, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& d : docs)
    if (field_of(d.node, "kind") == kind) out.push_back(meta_field(d.node, "name"));
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// A GPU count as a Kubernetes quantity: a whole number ("16" or 16); "500m" or "1Gi" are no GPU counts.
bool gpu_count(const std::string& s, int& out) {
  if (s.empty() || s.size() > 7 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  out = std::stoi(s);
  return true;
}

// The cohort above a Cohort object (`parent`; `parentName` from v1beta2), "" for a root or a plain cohort.
std::string cohort_parent(const std::vector<Ctx>& docs, const std::string& name) {
  const Ctx* cohort = find_doc(docs, "Cohort", name);
  const YAML::Node spec = cohort ? cohort->node["spec"] : YAML::Node();
  if (!spec || !spec.IsMap()) return "";
  const std::string parent = field_of(spec, "parent");
  return parent.empty() ? field_of(spec, "parentName") : parent;
}

}  // namespace

// quota.kueue: {file, clusterQueue | localQueue | namespace}.
void Loader::read_kueue_quota(const Ctx& sel, TenantSpec& t) {
  if (!check_map(sel)) return;
  std::string cq_name, lq_name, ns;
  get_string(sel, "clusterQueue", cq_name, false);
  get_string(sel, "localQueue", lq_name, false);
  get_string(sel, "namespace", ns, false);
  if (!cq_name.empty() + !lq_name.empty() + !ns.empty() > 1) {
    d_.error(sel.loc(), sel.path, "give one of clusterQueue, localQueue and namespace");
    return;
  }
  auto f = read_k8s_file(sel, "file");
  if (!f) return;
  std::vector<Ctx> docs;
  for (auto doc : f->documents) {
    if (!expect_map(doc)) continue;
    const std::string kind = field_of(doc.node, "kind");
    doc.path = doc.alt_path =
        (kind.empty() ? std::string("(no kind)") : kind) + "[" + meta_field(doc.node, "name") + "]";
    const auto& kinds = kueue_kinds();
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      d_.warning(doc.loc(), doc.path,
                 kind == "Topology" ? std::string("topology-aware scheduling (Kueue Topology) is not simulated: "
                                                  "the placement policy places every replica")
                                    : "a document of kind '" + (kind.empty() ? std::string("(none)") : kind) +
                                          "' is not read here (quota.kueue reads ResourceFlavor, ClusterQueue, "
                                          "LocalQueue, Cohort, WorkloadPriorityClass, PriorityClass and Kueue's "
                                          "Configuration)");
      continue;
    }
    const std::string api = field_of(doc.node, "apiVersion");
    const bool alpha_cohort = kind == "Cohort" && api == "kueue.x-k8s.io/v1alpha1";  // where Cohort began
    if (kind == "Configuration") {
      // Kueue's own configuration (cluster-wide): its fairSharing is the one this tenant's queue runs under.
      FairSharingSpec fs;
      read_kueue_configuration(doc, fs);
      if (t.kueue_configuration)
        d_.error(doc.loc(), doc.path,
                 "a second Kueue Configuration (the first is at " + t.kueue_configuration->loc.file + ":" +
                     std::to_string(t.kueue_configuration->loc.line) + "): Kueue runs with one");
      else
        t.kueue_configuration = fs;
      continue;
    }
    if (kind == "PriorityClass") {
      if (api != "scheduling.k8s.io/v1") {
        const auto at = child(doc, "apiVersion");
        d_.error(at ? at->loc() : doc.loc(), doc.path + ".apiVersion",
                 "apiVersion '" + api + "' is not read; expected scheduling.k8s.io/v1 for a PriorityClass");
        continue;
      }
    } else if (api != "kueue.x-k8s.io/v1beta1" && api != "kueue.x-k8s.io/v1beta2" && !alpha_cohort) {
      const auto at = child(doc, "apiVersion");
      d_.error(at ? at->loc() : doc.loc(), doc.path + ".apiVersion",
               "apiVersion '" + api + "' is not read; expected kueue.x-k8s.io/v1beta1 or kueue.x-k8s.io/v1beta2" +
                   (kind == "Cohort" ? std::string(" (or v1alpha1 for a Cohort)") : std::string()));
      continue;
    }
    // Kueue object names are unique per kind: a second one would be silently shadowed by the first.
    const std::string name = meta_field(doc.node, "name");
    if (const Ctx* first = find_doc(docs, kind, name)) {
      d_.error(doc.loc(), doc.path,
               "a second " + kind + " named '" + name + "' (the first is at " + first->loc().file + ":" +
                   std::to_string(first->loc().line) + "): Kueue names are unique per kind");
      continue;
    }
    docs.push_back(doc);
    if (kind == "WorkloadPriorityClass" || kind == "PriorityClass") read_priority_class(doc, t.priority_classes);
  }
  if (cq_name.empty()) {
    // Through LocalQueues: the one named, or those of the namespace (default: the tenant's name).
    if (lq_name.empty() && ns.empty()) ns = t.name;
    std::set<std::string> queues;
    std::vector<std::string> seen;
    for (const auto& d : docs) {
      if (field_of(d.node, "kind") != "LocalQueue") continue;
      const std::string name = meta_field(d.node, "name");
      const std::string lq_ns = meta_field(d.node, "namespace");
      seen.push_back(lq_ns + "/" + name);
      if (lq_name.empty() ? lq_ns != ns : name != lq_name) continue;
      const YAML::Node spec = d.node["spec"];
      const std::string target = spec && spec.IsMap() ? field_of(spec, "clusterQueue") : "";
      if (auto lq_spec = child(d, "spec"); lq_spec && lq_spec->node.IsMap())
        if (auto fs = child(*lq_spec, "fairSharing"))
          d_.warning(fs->loc(), fs->path,
                     "a LocalQueue's fair-sharing weight acts in Kueue's usage-based admission fair sharing, which "
                     "is not simulated: the tenant's workloads share one queue");
      if (target.empty()) {
        d_.error(d.loc(), d.path + ".spec.clusterQueue", "a LocalQueue without spec.clusterQueue");
        return;
      }
      queues.insert(target);
    }
    const auto at = child(sel, lq_name.empty() ? "namespace" : "localQueue");
    const SourceLoc loc = at ? at->loc() : sel.loc();
    const std::string what = lq_name.empty() ? "in namespace '" + ns + "'" : "named '" + lq_name + "'";
    if (queues.empty()) {
      d_.error(loc, sel.path,
               "no LocalQueue " + what + " in " + f->file +
                   " (the file's LocalQueues, namespace/name: " + (seen.empty() ? std::string("none") : joined(seen)) +
                   "); name the queue with quota.kueue.clusterQueue or localQueue");
      return;
    }
    if (queues.size() > 1) {
      d_.error(loc, sel.path,
               "the LocalQueues " + what + " lead to " + std::to_string(queues.size()) +
                   " ClusterQueues; choose one with quota.kueue.clusterQueue or localQueue");
      return;
    }
    cq_name = *queues.begin();
  }
  const Ctx* cq = find_doc(docs, "ClusterQueue", cq_name);
  if (!cq) {
    const auto at = child(sel, "clusterQueue");
    d_.error(
        at ? at->loc() : sel.loc(), sel.path + ".clusterQueue",
        "no ClusterQueue named '" + cq_name + "' in " + f->file + suggest(cq_name, names_of(docs, "ClusterQueue")));
    return;
  }
  t.cluster_queue = cq_name;
  t.cluster_queue_loc = cq->loc();
  read_cluster_queue(*cq, docs, t);
}

// A ClusterQueue's spec: cohort, queueing, preemption and its resource groups' nvidia.com/gpu quota.
void Loader::read_cluster_queue(const Ctx& cq, const std::vector<Ctx>& docs, TenantSpec& t) {
  auto spec = child(cq, "spec");
  if (!spec) {
    missing(cq, "spec");
    return;
  }
  if (!expect_map(*spec)) return;
  allow_keys(*spec,
             {"namespaceSelector", "resourceGroups", "cohort", "cohortName", "queueingStrategy", "preemption",
              "flavorFungibility", "admissionChecks", "admissionChecksStrategy", "admissionScope", "stopPolicy",
              "fairSharing", "concurrentAdmissionPolicy"},
             "a Kueue ClusterQueue");
  get_string(*spec, "cohort", t.cohort, false);
  get_string(*spec, "cohortName", t.cohort, false);  // v1beta2
  read_queueing_strategy(*spec, t);
  std::string value;
  get_string(*spec, "stopPolicy", value, false);
  if (auto at = child(*spec, "stopPolicy"); at && value != "None")
    d_.error(at->loc(), at->path, "stopPolicy '" + value + "' is not simulated: the queue admits for the whole run");
  for (const char* key : {"admissionChecks", "admissionChecksStrategy", "admissionScope", "flavorFungibility",
                          "concurrentAdmissionPolicy"})
    if (auto at = child(*spec, key))
      d_.warning(at->loc(), at->path,
                 std::string(key) +
                     " is not simulated: workloads are admitted on quota alone (one GPU flavor, no "
                     "admission checks, no usage-based admission fair sharing, no flavor migration)");
  if (auto fs = child(*spec, "fairSharing"); fs && expect_map(*fs)) {
    allow_keys(*fs, {"weight"}, "a Kueue fairSharing");
    read_fair_weight(*fs, t.fair_weight);
  }
  if (auto sel = child(*spec, "namespaceSelector"); sel && sel->node.IsMap() && sel->node.size() > 0)
    d_.warning(sel->loc(), sel->path, "namespace labels are not modelled: the tenant's namespace is taken as selected");
  t.preemption = QuotaPreemptionSpec{};
  t.preemption.reclaim_within_cohort = PreemptionPolicy::NEVER;  // Kueue's default
  if (auto p = child(*spec, "preemption")) read_kueue_preemption(*p, t.preemption);
  auto groups = child(*spec, "resourceGroups");
  if (!groups) {
    missing(*spec, "resourceGroups");
    return;
  }
  read_kueue_resource_groups(*groups, docs, t, QuotaOwner::TENANT_QUEUE);
  read_kueue_cohort(docs, t);
}

// The tenant's cohort and those above it (each Cohort object of the file on the way up; a cohort without an
// object is plain: no quota, no parent), then the rest of its tree: the file's other Cohort objects and other
// ClusterQueues whose root cohort is the tenant's. A parent cycle ends the walk; the quota tree reports it.
void Loader::read_kueue_cohort(const std::vector<Ctx>& docs, TenantSpec& t) {
  std::set<std::string> walked;
  for (std::string name = t.cohort; !name.empty();) {
    if (!walked.insert(name).second) return;  // a cycle: QuotaTree reports it, there is no root
    CohortSpec c;
    c.name = name;
    if (const Ctx* cohort = find_doc(docs, "Cohort", name)) read_cohort_object(*cohort, docs, t, c);
    t.cohort_chain.push_back(c);
    name = c.parent;
  }
  if (t.cohort_chain.empty()) return;
  const std::string root = t.cohort_chain.back().name;
  const auto root_of = [&](std::string name) {
    std::set<std::string> seen;
    for (;;) {
      const std::string parent = cohort_parent(docs, name);
      if (parent.empty()) return name;
      if (!seen.insert(parent).second) return std::string();
      name = parent;
    }
  };
  for (const auto& d : docs) {
    const std::string kind = field_of(d.node, "kind");
    const std::string name = meta_field(d.node, "name");
    if (kind == "Cohort" && !walked.count(name) && root_of(name) == root) {
      CohortSpec c;
      c.name = name;
      read_cohort_object(d, docs, t, c);
      t.cohort_tree.push_back(c);
    } else if (kind == "ClusterQueue" && name != t.cluster_queue) {
      const YAML::Node spec = d.node["spec"];
      if (!spec || !spec.IsMap()) continue;
      std::string cohort = field_of(spec, "cohort");
      if (cohort.empty()) cohort = field_of(spec, "cohortName");
      if (cohort.empty() || root_of(cohort) != root) continue;
      read_lender_queue(d, docs, t, cohort);
    }
  }
}

// A Cohort object: its parent and its own nvidia.com/gpu quota, read as a ClusterQueue's (its limits apply
// towards its parent).
void Loader::read_cohort_object(const Ctx& cohort, const std::vector<Ctx>& docs, const TenantSpec& t, CohortSpec& c) {
  c.loc = cohort.loc();
  auto cs = child(cohort, "spec");
  if (!cs || cs->node.IsNull() || !expect_map(*cs)) return;  // no spec: a root cohort without quota
  allow_keys(*cs, {"parentName", "parent", "resourceGroups", "fairSharing"}, "a Kueue Cohort");
  get_string(*cs, "parent", c.parent, false);
  std::string parent_name;
  get_string(*cs, "parentName", parent_name, false);
  if (!parent_name.empty() && !c.parent.empty() && parent_name != c.parent)
    d_.error(cs->loc(), cs->path,
             "both parent ('" + c.parent + "') and parentName ('" + parent_name +
                 "'): give one (parent up to v1beta1, parentName from v1beta2)");
  if (c.parent.empty()) c.parent = parent_name;
  if (auto fs = child(*cs, "fairSharing"); fs && expect_map(*fs)) {
    allow_keys(*fs, {"weight"}, "a Kueue fairSharing");
    read_fair_weight(*fs, c.fair_weight);
  }
  auto groups = child(*cs, "resourceGroups");
  if (!groups) return;
  TenantSpec own;
  own.cohort = c.parent;
  own.cluster_queue = c.name;
  read_kueue_resource_groups(*groups, docs, own, QuotaOwner::COHORT);
  c.quotas = own.quotas;
  warn_other_flavor(*groups, "Cohort '" + c.name + "'", own.gpu_flavor, t);
}

// A ClusterQueue of the tenant's tree that may be no tenant's: it lends its device quotas (QuotaTree
// skips it when another tenant has it).
void Loader::read_lender_queue(const Ctx& cq, const std::vector<Ctx>& docs, TenantSpec& t, const std::string& cohort) {
  auto spec = child(cq, "spec");
  auto groups = spec ? child(*spec, "resourceGroups") : std::nullopt;
  if (!groups) return;
  TenantSpec other;
  other.cohort = cohort;
  other.cluster_queue = meta_field(cq.node, "name");
  read_kueue_resource_groups(*groups, docs, other, QuotaOwner::LENDER_QUEUE);
  if (other.quotas.empty()) return;
  CohortSpec q;
  q.name = other.cluster_queue;
  q.parent = cohort;
  q.quotas = other.quotas;
  q.loc = cq.loc();
  q.cluster_queue = true;
  t.cohort_tree.push_back(q);
  warn_other_flavor(*groups, "ClusterQueue '" + q.name + "'", other.gpu_flavor, t);
}

// The twin's quota has one GPU flavor: device quota of another flavor in the tenant's tree is counted as if it
// were the tenant's (Kueue would keep the flavors apart).
void Loader::warn_other_flavor(const Ctx& groups, const std::string& who, const std::string& flavor,
                               const TenantSpec& t) {
  if (flavor.empty() || t.gpu_flavor.empty() || flavor == t.gpu_flavor) return;
  d_.warning(groups.loc(), groups.path,
             who + " gives its device quotas in flavor '" + flavor + "', ClusterQueue '" + t.cluster_queue + "' in '" +
                 t.gpu_flavor +
                 "': the twin's quota has one GPU flavor and counts both as one (Kueue keeps flavors apart)");
}

// resourceGroups[].flavors[].resources[]: the device resources (nvidia.com/gpu, nvidia.com/mig-<profile>, a
// device plugin's renamed resource) of one flavor give the quotas; that flavor's nodeLabels select the node pool.
void Loader::read_kueue_resource_groups(const Ctx& groups, const std::vector<Ctx>& docs, TenantSpec& t,
                                        QuotaOwner owner) {
  std::vector<std::string> ignored;
  std::optional<Ctx> gpu_flavor;
  for (const auto& g : items(groups)) {
    if (!expect_map(g)) continue;
    allow_keys(g, {"coveredResources", "flavors"}, "a Kueue resource group");
    auto flavors = child(g, "flavors");
    if (!flavors) {
      missing(g, "flavors");
      continue;
    }
    for (const auto& fl : items(*flavors)) {
      if (!expect_map(fl)) continue;
      allow_keys(fl, {"name", "resources"}, "a Kueue flavor quota");
      auto resources = child(fl, "resources");
      if (!resources) {
        missing(fl, "resources");
        continue;
      }
      std::string flavor;
      get_string(fl, "name", flavor, false);
      for (const auto& r : items(*resources)) {
        if (!expect_map(r)) continue;
        allow_keys(r, {"name", "nominalQuota", "borrowingLimit", "lendingLimit"}, "a Kueue resource quota");
        std::string name;
        get_string(r, "name", name, true);
        if (!device_resource(name)) {
          if (owner != QuotaOwner::LENDER_QUEUE && !name.empty() &&
              std::find(ignored.begin(), ignored.end(), name) == ignored.end())
            ignored.push_back(name);
          continue;
        }
        const auto at = child(r, "name");
        if (t.quotas.count(name)) {
          d_.error(at->loc(), at->path,
                   "a second flavor with a quota of " + name +
                       ": per-flavor quotas of one resource are not in the twin's quota model; keep one flavor");
          continue;
        }
        if (gpu_flavor && flavor != t.gpu_flavor) {
          d_.error(fl.loc(), fl.path,
                   "device quotas in two flavors ('" + t.gpu_flavor + "' and '" + flavor +
                       "'): the twin reads one GPU flavor per queue; keep every nvidia.com/ resource in one flavor");
          continue;
        }
        if (!gpu_flavor) {
          gpu_flavor = fl;
          t.gpu_flavor = flavor;
        }
        read_kueue_resource_quota(r, t.quotas[name], !t.cohort.empty(), owner);
      }
    }
  }
  if (!ignored.empty())
    d_.warning(groups.loc(), groups.path,
               "quotas of " + joined(ignored) +
                   " are ignored: the twin's quota counts devices (nvidia.com/gpu, nvidia.com/mig-<profile>) only");
  if (owner != QuotaOwner::TENANT_QUEUE) return;  // devices or none; its flavor selects no pool
  if (!gpu_flavor) {
    d_.error(groups.loc(), groups.path,
             "ClusterQueue '" + t.cluster_queue +
                 "' has no device quota: Kueue would admit no workload asking for GPUs through it; add a resource "
                 "{name: nvidia.com/gpu (or nvidia.com/mig-<profile>), nominalQuota: N}");
    return;
  }
  t.has_quota = true;
  read_kueue_flavor(*gpu_flavor, docs, t);
}

// {name, nominalQuota, borrowingLimit, lendingLimit} of a device resource.
void Loader::read_kueue_resource_quota(const Ctx& r, ResourceQuota& q, bool has_cohort, QuotaOwner owner) {
  for (const char* key : {"nominalQuota", "borrowingLimit", "lendingLimit"}) {
    auto at = child(r, key);
    if (!at) {
      if (std::string(key) == "nominalQuota") missing(r, key);
      continue;
    }
    std::string s;
    int n = 0;
    if (!scalar(*at, s, "a number of devices")) continue;
    if (!gpu_count(s, n)) {
      d_.error(at->loc(), at->path,
               "expected a whole number of devices (a Kubernetes quantity such as 8), got \"" + s + "\"");
      continue;
    }
    (std::string(key) == "nominalQuota"     ? q.nominal
     : std::string(key) == "borrowingLimit" ? q.borrowing_limit
                                            : q.lending_limit) = n;
  }
  if (auto at = child(r, "borrowingLimit"); at && !has_cohort)
    d_.error(at->loc(), at->path, "a borrowingLimit needs a cohort to borrow from (Kueue refuses it without one)");
  if (auto at = child(r, "lendingLimit"); at && !has_cohort)
    d_.error(at->loc(), at->path, "a lendingLimit needs a cohort to lend to (Kueue refuses it without one)");
  // A cohort lends from its whole subtree, so its lendingLimit may pass its own nominal quota.
  if (auto at = child(r, "lendingLimit"); at && owner != QuotaOwner::COHORT && q.lending_limit > q.nominal)
    d_.error(at->loc(), at->path,
             "lendingLimit " + std::to_string(q.lending_limit) + " is more than the nominalQuota " +
                 std::to_string(q.nominal));
}

// The ResourceFlavor of the GPU quota: its nodeLabels select the node pool (by name, in check_references).
void Loader::read_kueue_flavor(const Ctx& flavor_quota, const std::vector<Ctx>& docs, TenantSpec& t) {
  std::string name;
  get_string(flavor_quota, "name", name, true);
  const auto name_at = child(flavor_quota, "name");
  if (!name_at) return;
  const Ctx* rf = find_doc(docs, "ResourceFlavor", name);
  if (!rf) {
    d_.error(name_at->loc(), name_at->path,
             "no ResourceFlavor named '" + name + "' in this file" + suggest(name, names_of(docs, "ResourceFlavor")));
    return;
  }
  t.flavor_loc = rf->loc();
  auto spec = child(*rf, "spec");
  if (!spec) return;  // a flavor without labels: any node
  if (!expect_map(*spec)) return;
  allow_keys(*spec, {"nodeLabels", "nodeTaints", "tolerations", "topologyName"}, "a Kueue ResourceFlavor");
  if (auto at = child(*spec, "topologyName"))
    d_.warning(at->loc(), at->path, "topology-aware scheduling is not simulated: the placement policy places replicas");
  for (const char* key : {"nodeTaints", "tolerations"})
    if (auto at = child(*spec, key))
      d_.warning(at->loc(), at->path, std::string(key) + " are not simulated: the twin's nodes carry no taints");
  auto labels = child(*spec, "nodeLabels");
  if (!labels || !expect_map(*labels)) return;
  t.flavor_loc = labels->loc();
  for (const auto& kv : labels->node) {
    const Ctx v = labels->below(kv.second, labels->path, labels->alt_path, labels->loc());
    std::string value;
    if (kv.first.IsScalar() && scalar(v, value, "a label value"))
      t.flavor_node_labels.emplace_back(kv.first.Scalar(), value);
  }
}

// preemption: {reclaimWithinCohort, withinClusterQueue, borrowWithinCohort: {policy, maxPriorityThreshold}}, as
// Kueue's ClusterQueue gives it (also a scenario's own quota.preemption).
void Loader::read_kueue_preemption(const Ctx& p, QuotaPreemptionSpec& out) {
  if (!expect_map(p)) return;
  allow_keys(p, {"reclaimWithinCohort", "borrowWithinCohort", "withinClusterQueue"}, "a Kueue preemption policy");
  static const std::vector<std::string> names{"Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any"};
  const auto policy = [&](const Ctx& holder, const char* key, PreemptionPolicy& value,
                          const std::vector<PreemptionPolicy>& allowed) {
    auto at = child(holder, key);
    if (!at) return;
    std::string s;
    if (!scalar(*at, s, "a preemption policy")) return;
    std::vector<std::string> valid;
    for (PreemptionPolicy a : allowed) valid.push_back(names[static_cast<size_t>(a)]);
    const auto it = std::find(valid.begin(), valid.end(), s);
    if (it == valid.end()) {
      d_.error(at->loc(), at->path, "unknown " + std::string(key) + " '" + s + "'" + suggest(s, valid));
      return;
    }
    value = allowed[static_cast<size_t>(it - valid.begin())];
  };
  using P = PreemptionPolicy;
  policy(p, "reclaimWithinCohort", out.reclaim_within_cohort, {P::NEVER, P::LOWER_PRIORITY, P::ANY});
  policy(p, "withinClusterQueue", out.within_cluster_queue,
         {P::NEVER, P::LOWER_PRIORITY, P::LOWER_OR_NEWER_EQUAL_PRIORITY});
  auto b = child(p, "borrowWithinCohort");
  if (!b || !expect_map(*b)) return;
  allow_keys(*b, {"policy", "maxPriorityThreshold"}, "a Kueue borrowWithinCohort");
  PreemptionPolicy borrow = P::NEVER;
  policy(*b, "policy", borrow, {P::NEVER, P::LOWER_PRIORITY});
  out.borrow_within_cohort = borrow == P::LOWER_PRIORITY;
  if (int threshold = 0; read_int32(*b, "maxPriorityThreshold", threshold, false))
    out.max_priority_threshold = threshold;
  if (out.borrow_within_cohort && out.reclaim_within_cohort == P::NEVER)
    d_.warning(b->loc(), b->path,
               "borrowWithinCohort preempts among the cohort's candidates, which reclaimWithinCohort: Never leaves "
               "empty (as in Kueue): it has no effect");
}

// queueingStrategy: BestEffortFIFO (a later workload that fits goes ahead of one that does not) or StrictFIFO
// (the queue's head blocks those behind it).
void Loader::read_queueing_strategy(const Ctx& holder, TenantSpec& t) {
  enum class Strategy { BEST_EFFORT_FIFO, STRICT_FIFO };
  Strategy strategy = t.strict_fifo ? Strategy::STRICT_FIFO : Strategy::BEST_EFFORT_FIFO;
  get_enum(holder, "queueingStrategy", strategy, {"BestEffortFIFO", "StrictFIFO"}, false);
  t.strict_fifo = strategy == Strategy::STRICT_FIFO;
}

// A WorkloadPriorityClass (kueue.x-k8s.io) or PriorityClass (scheduling.k8s.io/v1): its name and value, which
// workloads name in priorityClass. A PriorityClass with globalDefault gives the value of workloads that name
// none, as Kubernetes gives it to their pods.
void Loader::read_priority_class(const Ctx& doc, PriorityClasses& classes) {
  const std::string kind = field_of(doc.node, "kind");
  const std::string in = "a " + kind;
  allow_keys(doc, {"apiVersion", "kind", "metadata", "value", "description", "globalDefault", "preemptionPolicy"},
             in.c_str());
  const std::string name = meta_field(doc.node, "name");
  int value = 0;
  if (!read_int32(doc, "value", value, true)) return;
  if (name.empty()) {
    d_.error(doc.loc(), doc.path + ".metadata.name", "a " + kind + " without metadata.name");
    return;
  }
  if (auto prior = classes.values.find(name); prior != classes.values.end() && prior->second != value) {
    const SourceLoc& first = classes.locs[name];
    d_.error(doc.loc(), doc.path,
             "priority class '" + name + "' is defined again with another value (first at " + first.file + ":" +
                 std::to_string(first.line) + "); priority classes are cluster-wide");
    return;
  }
  classes.values[name] = value;
  classes.locs.emplace(name, doc.loc());
  bool global = false;
  if (kind == "PriorityClass") get_bool(doc, "globalDefault", global);
  if (global) classes.global_default = value;
  if (auto at = child(doc, "preemptionPolicy"))
    d_.warning(at->loc(), at->path,
               "preemptionPolicy acts on the kube-scheduler's pod preemption, which the twin does not simulate; "
               "Kueue's quota preemption follows the ClusterQueue's policy");
}

// A Kubernetes int32 (a priority value or threshold), in the documents read verbatim and the scenario alike.
bool Loader::read_int32(const Ctx& holder, const char* key, int& out, bool required) {
  const auto at = child(holder, key);
  if (!at) {
    if (required) missing(holder, key);
    return false;
  }
  std::string s;
  if (!scalar(*at, s, "a whole number")) return false;
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < INT32_MIN || v > INT32_MAX) {
    d_.error(at->loc(), at->path, "expected a whole number from -2147483648 to 2147483647 (int32), got \"" + s + "\"");
    return false;
  }
  out = static_cast<int>(v);
  return true;
}

// spec.priorityClasses: {file}: the WorkloadPriorityClass and PriorityClass documents of a Kubernetes YAML file.
void Loader::read_priority_classes_file(const Ctx& sel, PriorityClasses& classes) {
  if (!check_map(sel)) return;
  auto f = read_k8s_file(sel, "file");
  if (!f) return;
  for (auto doc : f->documents) {
    if (!expect_map(doc)) continue;
    const std::string kind = field_of(doc.node, "kind");
    doc.path = doc.alt_path =
        (kind.empty() ? std::string("(no kind)") : kind) + "[" + meta_field(doc.node, "name") + "]";
    const std::string api = field_of(doc.node, "apiVersion");
    const bool kueue_class =
        kind == "WorkloadPriorityClass" && (api == "kueue.x-k8s.io/v1beta1" || api == "kueue.x-k8s.io/v1beta2");
    if (kueue_class || (kind == "PriorityClass" && api == "scheduling.k8s.io/v1")) {
      read_priority_class(doc, classes);
      continue;
    }
    d_.warning(doc.loc(), doc.path,
               "a document of kind '" + (kind.empty() ? std::string("(none)") : kind) + "' (apiVersion '" + api +
                   "') is not read here (priorityClasses reads WorkloadPriorityClass of kueue.x-k8s.io and "
                   "PriorityClass of scheduling.k8s.io/v1)");
  }
}

}  // namespace gtw

namespace gtw {

// fairSharing: {enable, preemptionStrategies}, as Kueue's Configuration gives it (also a scenario's spec.fairSharing).
// Kueue accepts the strategies LessThanOrEqualToFinalShare, LessThanInitialShare or both in that order; none
// given: both.
void Loader::read_fair_sharing(const Ctx& holder, FairSharingSpec& out) {
  if (!expect_map(holder)) return;
  allow_keys(holder, {"enable", "preemptionStrategies"}, "a Kueue fairSharing");
  out.loc = holder.loc();
  get_bool(holder, "enable", out.enabled);
  auto list = child(holder, "preemptionStrategies");
  if (!list || list->node.IsNull()) return;
  if (!list->node.IsSequence()) {
    d_.error(list->loc(), list->path, "expected a list of preemption strategies");
    return;
  }
  std::vector<FairSharingStrategy> strategies;
  for (const auto& item : items(*list)) {
    std::string name;
    if (!scalar(item, name, "a preemption strategy")) return;
    const auto& names = fair_sharing_strategy_names();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      d_.error(item.loc(), item.path, "unknown preemption strategy '" + name + "'" + suggest(name, names));
      return;
    }
    strategies.push_back(static_cast<FairSharingStrategy>(it - names.begin()));
  }
  using S = FairSharingStrategy;
  const bool supported =
      strategies.size() == 1 || (strategies.size() == 2 && strategies[0] == S::LESS_THAN_OR_EQUAL_TO_FINAL_SHARE &&
                                 strategies[1] == S::LESS_THAN_INITIAL_SHARE);
  if (!strategies.empty() && !supported) {
    d_.error(list->loc(), list->path,
             "Kueue supports [LessThanOrEqualToFinalShare], [LessThanInitialShare] or [LessThanOrEqualToFinalShare, "
             "LessThanInitialShare]");
    return;
  }
  if (!strategies.empty()) out.strategies = strategies;
}

// A Kueue Configuration (config.kueue.x-k8s.io): its fairSharing. What else would change admission is named in a
// warning; the manager's own settings (ports, leader election, client rates, integrations) have nothing to model.
void Loader::read_kueue_configuration(const Ctx& doc, FairSharingSpec& out) {
  const std::string api = field_of(doc.node, "apiVersion");
  if (api != "config.kueue.x-k8s.io/v1beta1" && api != "config.kueue.x-k8s.io/v1beta2") {
    const auto at = child(doc, "apiVersion");
    d_.error(at ? at->loc() : doc.loc(), doc.path + ".apiVersion",
             "apiVersion '" + api +
                 "' is not read; expected config.kueue.x-k8s.io/v1beta1 or v1beta2 for a Kueue Configuration");
    return;
  }
  out = FairSharingSpec{};
  out.loc = doc.loc();
  if (auto fs = child(doc, "fairSharing")) {
    read_fair_sharing(*fs, out);
    out.loc = doc.loc();
  }
  static const std::vector<std::string> operational{"apiVersion",
                                                    "kind",
                                                    "namespace",
                                                    "health",
                                                    "metrics",
                                                    "webhook",
                                                    "leaderElection",
                                                    "controller",
                                                    "clientConnection",
                                                    "pprofBindAddress",
                                                    "integrations",
                                                    "manageJobsWithoutQueueName",
                                                    "managedJobsNamespaceSelector",
                                                    "internalCertManagement",
                                                    "queueVisibility",
                                                    "fairSharing",
                                                    "featureGates"};
  static const std::vector<std::string> not_simulated{"waitForPodsReady", "admissionFairSharing",    "resources",
                                                      "multiKueue",       "objectRetentionPolicies", "dispatcherName"};
  if (!doc.node.IsMap()) return;
  for (const auto& kv : doc.node) {
    const std::string key = kv.first.Scalar();
    const auto at = child(doc, key);
    if (!at || std::find(operational.begin(), operational.end(), key) != operational.end()) continue;
    if (std::find(not_simulated.begin(), not_simulated.end(), key) != not_simulated.end())
      d_.warning(at->loc(), at->path, key + " is not simulated: admission follows the quotas and fair sharing alone");
    else
      d_.warning(at->loc(), at->path, "'" + key + "' is not a Kueue Configuration field the twin knows; not read");
  }
  if (auto gates = child(doc, "featureGates"); gates && gates->node.IsMap() && gates->node.size() > 0)
    d_.warning(gates->loc(), gates->path,
               "feature gates are not simulated: the twin runs Kueue's default behaviour (docs/models/quotas.md)");
}

// spec.kueueConfiguration: {file}: Kueue's Configuration, as a document of its own or inside the manager's
// ConfigMap (data.controller_manager_config.yaml, as Kueue's release installs it).
void Loader::read_kueue_configuration_file(const Ctx& sel, FairSharingSpec& out) {
  if (!check_map(sel)) return;
  auto f = read_k8s_file(sel, "file");
  if (!f) return;
  std::optional<SourceLoc> first;
  const auto take = [&](const Ctx& doc) {
    if (first) {
      d_.error(doc.loc(), doc.path,
               "a second Kueue Configuration (the first is at " + first->file + ":" + std::to_string(first->line) +
                   "): Kueue runs with one");
      return;
    }
    first = doc.loc();
    read_kueue_configuration(doc, out);
  };
  for (auto doc : f->documents) {
    if (!expect_map(doc)) continue;
    const std::string kind = field_of(doc.node, "kind");
    doc.path = doc.alt_path =
        (kind.empty() ? std::string("(no kind)") : kind) + "[" + meta_field(doc.node, "name") + "]";
    if (kind == "Configuration") {
      take(doc);
      continue;
    }
    const auto data = kind == "ConfigMap" ? child(doc, "data") : std::nullopt;
    const auto embedded = data && data->node.IsMap() ? child(*data, "controller_manager_config.yaml") : std::nullopt;
    if (embedded) {
      if (auto inner = embedded_document(*embedded, f->text, "Kueue's Configuration (YAML text)")) {
        Ctx config = *inner;
        config.path = config.alt_path = doc.path + ".data.controller_manager_config.yaml";
        if (field_of(config.node, "kind") == "Configuration")
          take(config);
        else
          d_.error(embedded->loc(), embedded->path, "expected a Kueue Configuration (kind: Configuration)");
      }
      continue;
    }
    d_.warning(doc.loc(), doc.path,
               "a document of kind '" + (kind.empty() ? std::string("(none)") : kind) +
                   "' is not read here (kueueConfiguration reads Kueue's Configuration, alone or in the manager's "
                   "ConfigMap under data.controller_manager_config.yaml)");
  }
  if (!first) d_.error(sel.loc(), sel.path + ".file", "no Kueue Configuration in " + f->file);
}

// fairSharing.weight: a Kubernetes quantity ("1", 2, 0.5, "500m"); 0 means the queue's borrowing weighs without
// bound; Kueue refuses negative weights and those between 0 and 1e-9.
bool Loader::read_fair_weight(const Ctx& holder, double& weight) {
  const auto at = child(holder, "weight");
  if (!at) return false;
  std::string s;
  if (!scalar(*at, s, "a weight (a Kubernetes quantity)")) return false;
  static const std::vector<std::pair<std::string, double>> suffixes{
      {"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3},    {"", 1},           {"k", 1e3},          {"M", 1e6},
      {"G", 1e9},  {"T", 1e12}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}};
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
  const std::string suffix(end, static_cast<const char*>(s.data() + s.size()));
  const auto unit = std::find_if(suffixes.begin(), suffixes.end(), [&](const auto& u) { return u.first == suffix; });
  if (ec != std::errc() || end == s.data() || unit == suffixes.end() || !std::isfinite(v * unit->second) ||
      v * unit->second > 1e6) {
    d_.error(at->loc(), at->path,
             "expected a weight: a Kubernetes quantity from 0 to 1000000 (1, 0.5, \"500m\"), got \"" + s + "\"");
    return false;
  }
  v *= unit->second;
  if (v < 0 || (v > 0 && v <= 1e-9)) {
    d_.error(at->loc(), at->path, "a weight must be 0 or more than 1e-9 (Kueue refuses others), got \"" + s + "\"");
    return false;
  }
  weight = v;
  return true;
}

}  // namespace gtw
