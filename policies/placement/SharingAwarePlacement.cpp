// Placement policies that look past one request: GPU packing and fragmentation gradient descent
// (after "Beware of Fragmentation", USENIX ATC'23), and the co-tenancy constraints a shared
// platform adds: tenant anti-affinity and classification-aware placement.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <tuple>

#include "PlacementInternal.hpp"

namespace gtw::policy {
namespace {

// On one node: the `request.gpus` eligible GPUs of lowest rank (then lowest index) among those `allowed`, into
// `chosen`; returns their rank sum, or nullopt when the node has too few.
template <class Allowed, class Rank>
std::optional<double> rank_on_node(const PlacementRequest& request, std::span<const GpuView* const> gpus,
                                   Allowed allowed, Rank rank, std::vector<int>& chosen) {
  std::vector<std::pair<double, const GpuView*>> ranked;
  for (const GpuView* g : gpus)
    if (allowed(*g)) ranked.emplace_back(rank(*g), g);
  if (static_cast<int>(ranked.size()) < request.gpus) return std::nullopt;
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double score = 0;
  chosen.clear();
  for (int i = 0; i < request.gpus; ++i) {
    score += ranked[static_cast<size_t>(i)].first;
    chosen.push_back(ranked[static_cast<size_t>(i)].second->index);
  }
  return score;
}

// Picks, on each node, the `request.gpus` eligible GPUs of lowest rank (then lowest index) among
// those `allowed`, and returns the node whose chosen GPUs have the lowest rank sum (then the
// lowest node). A rank is a preference: 0 is best.
template <class Allowed, class Rank>
std::optional<std::vector<int>> place_by_rank(const PlacementRequest& request, const ClusterView& view, Allowed allowed,
                                              Rank rank) {
  std::optional<std::vector<int>> best;
  double best_score = std::numeric_limits<double>::infinity();
  std::vector<int> chosen;
  for (const auto& [node, gpus] : eligible_by_node(request, view)) {
    const auto score = rank_on_node(request, gpus, allowed, rank, chosen);
    if (score && *score < best_score) {
      best = chosen;
      best_score = *score;
    }
  }
  return best;
}

// The indexed path of a policy whose choice on a node is `on_node(node, eligible, chosen)`, which returns the
// chosen GPUs' score (lower is better) or nullopt: the node's score in the index and the choice on the best node.
template <class OnNode>
std::optional<std::vector<int>> place_indexed_by_choice(const PlacementRequest& request, const ClusterView& view,
                                                        int policy, OnNode on_node, int variant = 0, int subject = -1) {
  return place_indexed(
      request, view, policy,
      [on_node](std::span<const GpuView> node, std::span<const GpuView* const> eligible) {
        std::vector<int> chosen;
        const auto score = on_node(node, eligible, chosen);
        return score ? DeviceIndex::Score{*score, 0.0} : NO_PLACE;
      },
      [&](std::span<const GpuView> node, std::span<const GpuView* const> eligible) {
        std::vector<int> chosen;
        on_node(node, eligible, chosen);
        return chosen;
      },
      variant, subject);
}

// GPU packing: a GPU already in use first, then an idle GPU on a node already in use, then an idle
// node, so whole GPUs and whole nodes stay free for large requests.
class Packing final : public PlacementPolicy {
 public:
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    const auto always = [](const GpuView&) { return true; };
    if (indexable(request, view)) {
      // A node is in use when any of its devices holds a replica: the node's own devices say it.
      const auto on_node = [request, always](std::span<const GpuView> node, std::span<const GpuView* const> eligible,
                                             std::vector<int>& chosen) {
        const bool in_use = std::any_of(node.begin(), node.end(), [](const GpuView& g) { return g.used_slots > 0; });
        return rank_on_node(
            request, eligible, always, [in_use](const GpuView& g) { return rank(g, in_use); }, chosen);
      };
      return place_indexed_by_choice(request, view, PACKING, on_node);
    }
    std::set<int> nodes_in_use;
    for (const auto& g : view.gpus)
      if (g.used_slots > 0) nodes_in_use.insert(g.node);
    return place_by_rank(request, view, always,
                         [&](const GpuView& g) { return rank(g, nodes_in_use.count(g.node) > 0); });
  }

 private:
  static double rank(const GpuView& g, bool node_in_use) {
    if (g.used_slots > 0) return 1.0 - static_cast<double>(g.used_slots) / g.slots;  // fuller is better
    return node_in_use ? 1.0 : 2.0;
  }
};

// Fragmentation gradient descent. The fragmentation of a node, for one class of the expected
// demand, is the free capacity (GPU equivalents) on that node that the class cannot use: devices it
// is not eligible for, or every device when the node has fewer eligible devices than one request of
// the class needs. Weighted over the demand mix, it is the capacity the cluster is likely to waste.
// The policy places each GPU of a request where that fragmentation grows least.
class FragmentationGradient final : public PlacementPolicy {
 public:
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    std::vector<DemandClass> demand = view.demand;
    if (demand.empty()) demand.push_back({request, 1.0});
    if (indexable(request, view)) {
      // The ranking keeps this demand: the engine's view holds one for the whole run.
      return place_indexed(
          request, view, FGD,
          [request, demand](std::span<const GpuView> node, std::span<const GpuView* const>) {
            std::vector<GpuView> devices(node.begin(), node.end());
            std::vector<int> chosen;
            const auto key = choose_on_node(request, demand, devices, chosen);
            return key ? *key : NO_PLACE;
          },
          [&](std::span<const GpuView> node, std::span<const GpuView* const>) {
            std::vector<GpuView> devices(node.begin(), node.end());
            std::vector<int> chosen;
            choose_on_node(request, demand, devices, chosen);
            return chosen;
          });
    }
    std::map<int, std::vector<GpuView>> nodes;  // node -> copies of its devices
    for (const auto& g : view.gpus) nodes[g.node].push_back(g);
    std::optional<std::vector<int>> best;
    std::tuple<double, double, int> best_key{std::numeric_limits<double>::infinity(), 0.0, 0};
    std::vector<int> chosen;
    for (auto& [node, devices] : nodes) {
      const auto key = choose_on_node(request, demand, devices, chosen);
      if (!key) continue;
      const std::tuple<double, double, int> node_key{key->first, key->second, node};
      if (node_key < best_key) {
        best_key = node_key;
        best = chosen;
      }
    }
    return best;
  }

 private:
  // On one node (copies of its devices, restored on return): each GPU of the request where the fragmentation grows
  // least, into `chosen`; returns (growth of the node's fragmentation, free capacity left), or nullopt when the node
  // cannot take the request.
  static std::optional<std::pair<double, double>> choose_on_node(const PlacementRequest& request,
                                                                 const std::vector<DemandClass>& demand,
                                                                 std::vector<GpuView>& devices,
                                                                 std::vector<int>& chosen) {
    const double before = fragmentation(devices, demand);
    chosen.clear();
    std::vector<bool> taken(devices.size(), false);
    for (int i = 0; i < request.gpus; ++i) {
      int pick = -1;
      std::pair<double, double> pick_key{std::numeric_limits<double>::infinity(), 0.0};
      for (size_t d = 0; d < devices.size(); ++d) {
        if (taken[d] || !eligible(devices[d], request)) continue;
        devices[d].used_slots += 1;
        const std::pair<double, double> key{fragmentation(devices, demand), devices[d].free_capacity()};
        devices[d].used_slots -= 1;
        if (key < pick_key) {
          pick_key = key;
          pick = static_cast<int>(d);
        }
      }
      if (pick < 0) break;
      taken[static_cast<size_t>(pick)] = true;
      devices[static_cast<size_t>(pick)].used_slots += 1;
      chosen.push_back(devices[static_cast<size_t>(pick)].index);
    }
    double leftover = 0;
    for (const auto& d : devices) leftover += d.free_capacity();
    const double after = fragmentation(devices, demand);
    for (size_t d = 0; d < devices.size(); ++d)
      if (taken[d]) devices[d].used_slots -= 1;
    if (static_cast<int>(chosen.size()) < request.gpus) return std::nullopt;
    return std::make_pair(after - before, leftover);
  }
};

// The unit two tenants must not share: the device (a whole GPU or one MIG instance), the physical
// GPU (all MIG instances of it), or the node.
enum class Scope { DEVICE, GPU, NODE };

Scope parse_scope(const std::string& s) {
  if (s == "device") return Scope::DEVICE;
  if (s == "node") return Scope::NODE;
  return Scope::GPU;
}

std::tuple<int, int, int> unit_of(const GpuView& g, Scope scope) {
  switch (scope) {
    case Scope::DEVICE:
      return {g.node, g.local, g.index};
    case Scope::GPU:
      return {g.node, g.local, -1};
    case Scope::NODE:
      return {g.node, -1, -1};
  }
  return {g.node, g.local, g.index};
}

// Tenants placed on each unit, over every device of the unit (a unit lies within one node: the devices of one node
// give its units whole).
using UnitTenants = std::map<std::tuple<int, int, int>, std::set<int>>;

Scope unit_scope(const GpuView& g, Scope scope, bool mig_instance_is_unit) {
  return (mig_instance_is_unit && !g.mig_profile.empty() && scope == Scope::GPU) ? Scope::DEVICE : scope;
}

UnitTenants tenants_by_unit(std::span<const GpuView> gpus, Scope scope, bool mig_instance_is_unit) {
  UnitTenants out;
  for (const auto& g : gpus) {
    auto& tenants = out[unit_of(g, unit_scope(g, scope, mig_instance_is_unit))];
    tenants.insert(g.tenants.begin(), g.tenants.end());
  }
  return out;
}

// place_by_rank's choice on one node, or over the whole view, by the view's index when it has one: the units'
// tenants come from the node's own devices, so a node's score reads nothing outside it. `Rule` builds a policy's
// allowed and rank tests from the units' tenants.
template <class Rule>
std::optional<std::vector<int>> place_by_unit_rule(const PlacementRequest& request, const ClusterView& view, int policy,
                                                   int variant, int subject, Scope scope, bool mig_instance_is_unit,
                                                   Rule rule) {
  if (!indexable(request, view)) {
    const auto units = tenants_by_unit(view.gpus, scope, mig_instance_is_unit);
    return place_by_rank(request, view, rule.allowed(units), rule.rank(units));
  }
  const auto on_node = [request, scope, mig_instance_is_unit, rule](std::span<const GpuView> node,
                                                                    std::span<const GpuView* const> eligible,
                                                                    std::vector<int>& chosen) {
    const auto units = tenants_by_unit(node, scope, mig_instance_is_unit);
    return rank_on_node(request, eligible, rule.allowed(units), rule.rank(units), chosen);
  };
  return place_indexed_by_choice(request, view, policy, on_node, variant, subject);
}

// Tenant anti-affinity: a replica never shares its unit with another tenant's replica; a tenant's
// replicas fill units it already holds before opening new ones, so other tenants keep whole units.
class TenantAntiAffinity final : public PlacementPolicy {
 public:
  explicit TenantAntiAffinity(Scope scope) : scope_(scope) {}
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    return place_by_unit_rule(request, view, TENANT_ANTI_AFFINITY, static_cast<int>(scope_), request.tenant, scope_,
                              false, Rule{scope_, request.tenant});
  }

 private:
  struct Rule {
    Scope scope;
    int tenant;
    auto allowed(const UnitTenants& units) const {
      return [this, &units](const GpuView& g) {
        if (tenant < 0) return true;
        for (int t : units.at(unit_of(g, scope)))
          if (t != tenant) return false;
        return true;
      };
    }
    auto rank(const UnitTenants& units) const {
      return
          [this, &units](const GpuView& g) -> double { return units.at(unit_of(g, scope)).count(tenant) ? 0.0 : 1.0; };
    }
  };
  Scope scope_;
};

// Classification-aware placement: a tenant at or above `minClassification` never shares its unit with
// a tenant of another classification (below it, tenants of different classifications may share).
// MIG instances count as separate units when `allowMig` is set (hardware partitions). Replicas fill
// units already holding their classification first.
class ClassificationAware final : public PlacementPolicy {
 public:
  ClassificationAware(Scope scope, bool allow_mig, Classification threshold)
      : scope_(scope), allow_mig_(allow_mig), threshold_(threshold) {}
  std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) override {
    const Rule rule{scope_, allow_mig_, threshold_, view.tenant_classification,
                    classification_of(view.tenant_classification, request.tenant)};
    // A ranking per classification of the requester (not per tenant), and per setting of the policy.
    const int variant = (static_cast<int>(threshold_) * 2 + (allow_mig_ ? 1 : 0)) * 3 + static_cast<int>(scope_);
    return place_by_unit_rule(request, view, CLASSIFICATION_AWARE, variant, static_cast<int>(rule.mine), scope_,
                              allow_mig_, rule);
  }

 private:
  static Classification classification_of(const std::vector<Classification>& c, int tenant) {
    return (tenant >= 0 && static_cast<size_t>(tenant) < c.size()) ? c[static_cast<size_t>(tenant)]
                                                                   : Classification::INTERNAL;
  }
  struct Rule {
    Scope scope;
    bool allow_mig;
    Classification threshold;
    std::vector<Classification> classes;  // per tenant (a copy: an index ranking keeps its rule)
    Classification mine;
    const std::set<int>& unit(const UnitTenants& units, const GpuView& g) const {
      return units.at(unit_of(g, unit_scope(g, scope, allow_mig)));
    }
    bool conflicts(Classification other) const { return other != mine && std::max(other, mine) >= threshold; }
    auto allowed(const UnitTenants& units) const {
      return [this, &units](const GpuView& g) {
        for (int t : unit(units, g))
          if (conflicts(classification_of(classes, t))) return false;
        return true;
      };
    }
    auto rank(const UnitTenants& units) const {
      return [this, &units](const GpuView& g) -> double {
        for (int t : unit(units, g))
          if (classification_of(classes, t) == mine) return 0.0;
        return 1.0;
      };
    }
  };
  Scope scope_;
  bool allow_mig_;
  Classification threshold_;
};

ParamSpec scope_param(const std::string& help) {
  return {"scope", ParamType::STRING, std::string("gpu"), help, -1e300, 1e300, {"device", "gpu", "node"}};
}

}  // namespace

void register_sharing_aware_placement(PlacementRegistry& registry) {
  registry.add({"packing",
                "GPU packing (ATC'23): GPUs already in use first, then idle GPUs on nodes in use, then idle nodes.",
                {}},
               [](const Params&) { return std::make_unique<Packing>(); });
  registry.add({"fgd",
                "Fragmentation gradient descent (ATC'23): the GPUs whose use grows least the free capacity the "
                "expected request mix (the scenario's workloads) could not use.",
                {}},
               [](const Params&) { return std::make_unique<FragmentationGradient>(); });
  registry.add(
      {"tenant-anti-affinity",
       "A replica never shares its unit (device, physical GPU or node) with another tenant; a tenant "
       "fills its own units first.",
       {scope_param("unit two tenants must not share: 'device' (a GPU or one MIG instance), 'gpu' (the "
                    "physical GPU, all its MIG instances) or 'node'")}},
      [](const Params& p) { return std::make_unique<TenantAntiAffinity>(parse_scope(param_string(p, "scope"))); });
  registry.add(
      {"classification-aware",
       "Tenants at or above a classification never share a unit with tenants of another classification; "
       "replicas fill units of their own classification first.",
       {scope_param("unit tenants of different classifications must not share: 'device', 'gpu' or 'node'"),
        {"allowMig",
         ParamType::BOOL,
         true,
         "MIG instances of one GPU are separate units (hardware partitions) when scope is 'gpu'",
         -1e300,
         1e300,
         {}},
        {"minClassification", ParamType::STRING, std::string("confidential"),
         "the lowest classification that must not be mixed with others", -1e300, 1e300, classification_names()}}},
      [](const Params& p) {
        const auto& names = classification_names();
        const auto it = std::find(names.begin(), names.end(), param_string(p, "minClassification"));
        const auto threshold = static_cast<Classification>(it == names.end() ? 2 : it - names.begin());
        return std::make_unique<ClassificationAware>(parse_scope(param_string(p, "scope")), param_bool(p, "allowMig"),
                                                     threshold);
      });
}

double fragmentation(const std::vector<GpuView>& devices, const std::vector<DemandClass>& demand) {
  double total = 0;
  for (const auto& cls : demand) {
    int usable = 0;
    double unusable_capacity = 0, eligible_capacity = 0;
    for (const auto& d : devices) {
      if (eligible(d, cls.request)) {
        ++usable;
        eligible_capacity += d.free_capacity();
      } else {
        unusable_capacity += d.free_capacity();
      }
    }
    // Too few eligible devices on the node for one request of the class: all of it is stranded.
    if (usable < cls.request.gpus) unusable_capacity += eligible_capacity;
    total += cls.weight * unusable_capacity;
  }
  return total;
}

}  // namespace gtw::policy
