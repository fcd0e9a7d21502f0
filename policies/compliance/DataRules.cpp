// The placement and data-path compliance rules (docs/models/compliance.md): residency and onward
// transfer (C1, C2), co-tenancy by classification (C14), scrubbing between tenants (C15), encryption in
// transit and at rest (C17), the leakage budget (C16). Each evaluates the run's event log after the run;
// the enforceable ones also answer the engine before a placement or a data access.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "BuiltinRules.hpp"
#include "Text.hpp"

namespace gtw::policy {

namespace {

std::string class_name(Classification c) {
  return lower(classification_names()[static_cast<size_t>(c)]);
}

std::string fmt(double v) {
  return format_printf("%g", v);
}

// The stays of tenants (a replica's stay on one device, RunIndex.hpp), in placement order.
std::vector<const Stay*> tenant_stays(const RunIndex& index) {
  std::vector<const Stay*> out;
  for (const auto& s : index.stays())
    if (s.tenant >= 0) out.push_back(&s);
  return out;
}

// ---------------------------------------------------------------------------------------------
// C1 + C2 residency and onward transfer

// What must stay in a region: a data item, or (tenantData) the tenant's workloads themselves.
struct Resident {
  std::string name;   // data item or tenant
  std::string owner;  // owner tenant's name (transfer bases may name it)
  std::string region;
};

class Residency final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Data stays in its region unless a transfer basis covers the move");
    std::optional<RunIndex> own;
    const RunIndex& index = run_index(in, own);
    // Placements and data movements in log order (the evidence's order).
    const auto& stays = index.stays();
    const auto& data = index.data();
    const auto& events = in.run.log.events();
    for (size_t i = 0, j = 0; i < stays.size() || j < data.size();) {
      if (j == data.size() || (i < stays.size() && stays[i].seq < events[data[j].event].seq)) {
        check_placement(in, cfg, stays[i++], f);
      } else {
        check_movement(in, cfg, events[data[j].event], data[j].movement, f);
        ++j;
      }
    }
    finish_finding(f, "placements and data movements of region-restricted data");
    return f;
  }

  bool refuse_placement(const PlacementCheck& c, const ComplianceRuleSpec& cfg, std::string* why) const override {
    for (const auto& r : residents(c.spec, cfg, c.request.workload, c.request.tenant))
      if (!allowed(c.spec, cfg, r, c.region, c.now)) {
        if (why) *why = "'" + r.name + "' may not be processed in region '" + c.region + "'";
        return true;
      }
    return false;
  }

  std::optional<std::string> refuse_access(const AccessCheck& c, const ComplianceRuleSpec& cfg) const override {
    const DataMovement& m = c.movement;
    if (m.data < 0 || m.region.empty() || !matches_data(cfg, c.spec, m.data)) return std::nullopt;
    const Resident r = data_resident(c.spec, m.data);
    if (r.region.empty() || allowed(c.spec, cfg, r, m.region, c.now)) return std::nullopt;
    return "'" + r.name + "' may not be stored in region '" + m.region + "'";
  }

 private:
  static void check_placement(const ComplianceInput& in, const ComplianceRuleSpec& cfg, const Stay& s,
                              ComplianceFinding& f) {
    const auto& spec = in.spec;
    const std::string region = pool_region(spec, in.run.gpus[static_cast<size_t>(s.gpu)].pool);
    for (const auto& r : residents(spec, cfg, s.workload, s.tenant)) {
      ++f.checked;
      if (allowed(spec, cfg, r, region, s.start)) continue;
      add_violation(f, evidence(static_cast<int64_t>(s.seq), s.start, gpu_name(in.run, s.gpu),
                                "'" + r.name + "' (region " + r.region + ") processed by " +
                                    spec.workloads[static_cast<size_t>(s.workload)].name + " in region '" + region +
                                    "' without a transfer basis",
                                spec.workloads[static_cast<size_t>(s.workload)].loc));
    }
  }

  static void check_movement(const ComplianceInput& in, const ComplianceRuleSpec& cfg, const Event& e,
                             std::optional<size_t> idx, ComplianceFinding& f) {
    const auto& spec = in.spec;
    if (e.type != EventType::DATA_MOVE || !idx) return;
    const DataMovement& m = in.run.data_movements[*idx];
    if (m.data < 0 || m.region.empty() || !matches_data(cfg, spec, m.data)) return;
    const Resident r = data_resident(spec, m.data);
    if (r.region.empty()) return;
    ++f.checked;
    if (allowed(spec, cfg, r, m.region, e.time)) return;
    add_violation(f, evidence(static_cast<int64_t>(e.seq), e.time, m.store,
                              "'" + r.name + "' (region " + r.region + ") " + m.operation + " " + m.from + " -> " +
                                  m.to + " in region '" + m.region + "' without a transfer basis (onward transfer)",
                              spec.data[static_cast<size_t>(m.data)].loc));
  }

  static Resident data_resident(const ScenarioSpec& spec, int d) {
    const auto& item = spec.data[static_cast<size_t>(d)];
    return {item.name, item.tenant, data_region(spec, d)};
  }

  // The region-restricted things a replica of workload `w` (running as `tenant`) processes.
  static std::vector<Resident> residents(const ScenarioSpec& spec, const ComplianceRuleSpec& cfg, int w, int tenant) {
    std::vector<Resident> out;
    for (int d : workload_data(spec, w)) {
      if (!matches_data(cfg, spec, d)) continue;
      Resident r = data_resident(spec, d);
      if (!r.region.empty()) out.push_back(std::move(r));
    }
    if (param_bool(cfg.params, "tenantData") && tenant >= 0 && matches_tenant(cfg, spec, tenant)) {
      const auto& t = spec.tenants[static_cast<size_t>(tenant)];
      if (!t.region.empty()) out.push_back({t.name, t.name, t.region});
    }
    return out;
  }

  static bool allowed(const ScenarioSpec& spec, const ComplianceRuleSpec& cfg, const Resident& r,
                      const std::string& region, double t) {
    if (region.empty()) return true;  // unknown region: nothing to check against
    auto regions = param_list(cfg.params, "allowedRegions");
    if (regions.empty()) regions.push_back(r.region);
    if (contains(regions, region)) return true;
    const auto mechanisms = param_list(cfg.params, "acceptedMechanisms");
    for (const auto& b : spec.compliance.transfers)
      if ((b.data == r.name || b.data == r.owner) && b.to_region == region && b.at.value <= t + 1e-12 &&
          contains(mechanisms, b.mechanism))
        return true;
    return false;
  }
};

// ---------------------------------------------------------------------------------------------
// C14 co-tenancy by classification

class CoTenancy final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Tenants share a physical GPU only in a mode their classifications allow");
    const auto& spec = in.spec;
    std::optional<RunIndex> own;
    const auto stays = tenant_stays(run_index(in, own));
    const auto physical = [&](int g) {
      const auto& l = in.run.gpus[static_cast<size_t>(g)];
      return std::make_pair(l.node, l.local);
    };
    std::set<std::tuple<int, int, int, int>> seen;  // (later placement's workload, replica, other's workload, replica)
    for (size_t i = 0; i < stays.size(); ++i) {
      const Stay& b = *stays[i];  // the later placement
      for (size_t j = 0; j < i; ++j) {
        const Stay& a = *stays[j];
        if (a.tenant == b.tenant || physical(a.gpu) != physical(b.gpu)) continue;
        if (!(a.start < b.end && b.start < a.end)) continue;  // not at the same time
        if (!matches_tenant(cfg, spec, a.tenant) && !matches_tenant(cfg, spec, b.tenant)) continue;
        if (!seen.insert({b.workload, b.replica, a.workload, a.replica}).second) continue;
        ++f.checked;
        const std::string mode = sharing_mode_name(in.run.gpus[static_cast<size_t>(b.gpu)].sharing);
        const auto ca = spec.tenants[static_cast<size_t>(a.tenant)].classification;
        const auto cb = spec.tenants[static_cast<size_t>(b.tenant)].classification;
        if (contains(allowed_modes(cfg, ca, cb), mode)) continue;
        add_violation(f, evidence(static_cast<int64_t>(b.seq), b.start, gpu_name(in.run, b.gpu),
                                  tenant_name(spec, b.tenant) + " (" + class_name(cb) + ", " +
                                      spec.workloads[static_cast<size_t>(b.workload)].name + ") placed beside " +
                                      tenant_name(spec, a.tenant) + " (" + class_name(ca) + ", " +
                                      spec.workloads[static_cast<size_t>(a.workload)].name + ", placed at " +
                                      fmt(a.start) + " s) under " + mode,
                                  spec.workloads[static_cast<size_t>(b.workload)].loc));
      }
    }
    finish_finding(f, "cross-tenant co-locations");
    return f;
  }

  bool refuse_placement(const PlacementCheck& c, const ComplianceRuleSpec& cfg, std::string* why) const override {
    const int me = c.request.tenant;
    if (me < 0) return false;
    const auto cls = [&](int t) {
      return static_cast<size_t>(t) < c.view.tenant_classification.size()
                 ? c.view.tenant_classification[static_cast<size_t>(t)]
                 : c.spec.tenants[static_cast<size_t>(t)].classification;
    };
    const std::string mode = sharing_mode_name(c.gpu.mode);
    // A physical GPU lies in one node: with the view's index, only the node's devices are searched.
    for (const auto& other : c.view.node_or_all(c.gpu.node)) {
      const bool same_gpu = other.index == c.gpu.index || (c.gpu.physical >= 0 && other.physical == c.gpu.physical);
      if (!same_gpu) continue;
      for (int t : other.tenants) {
        if (t == me || t < 0) continue;
        if (!matches_tenant(cfg, c.spec, t) && !matches_tenant(cfg, c.spec, me)) continue;
        if (contains(allowed_modes(cfg, cls(t), cls(me)), mode)) continue;
        if (why)
          *why = "tenant '" + tenant_name(c.spec, t) + "' (" + class_name(cls(t)) + ") already on this GPU; " + mode +
                 " is not allowed between " + class_name(cls(t)) + " and " + class_name(cls(me));
        return true;
      }
    }
    return false;
  }

 private:
  static std::vector<std::string> allowed_modes(const ComplianceRuleSpec& cfg, Classification a, Classification b) {
    return param_list(cfg.params, a == b ? "sameClassification" : "crossClassification");
  }
};

// ---------------------------------------------------------------------------------------------
// C15 scrub between tenants

class ScrubBetweenTenants final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Device memory is scrubbed before another tenant gets it");
    const auto& spec = in.spec;
    bool allocator = false;
    for (const auto& e : in.run.log.events()) allocator = allocator || e.type == EventType::MEM_ALLOC;
    std::optional<RunIndex> own;
    const RunIndex& index = run_index(in, own);
    const auto stays = tenant_stays(index);
    const auto source_tenant = [&](int w, int gpu) {
      const int t = w >= 0 && static_cast<size_t>(w) < spec.workloads.size()
                        ? spec.workloads[static_cast<size_t>(w)].tenant_index
                        : -1;
      return index.tenant_on(WorkloadId(w), GpuId(gpu), TenantId(t)).value();  // a covert sender runs as its own tenant
    };
    // Observed: the allocator handed freed bytes of another tenant to an allocation.
    for (const auto& e : in.run.log.events()) {
      if (e.type != EventType::MEM_RESIDUE && e.type != EventType::MEM_SCRUBBED_REUSE) continue;
      const int src = source_tenant(payload::source_workload(e), e.gpu);
      if (src < 0 || src == e.tenant) continue;
      if (!matches_tenant(cfg, spec, src) && !matches_tenant(cfg, spec, e.tenant)) continue;
      ++f.checked;
      if (e.type == EventType::MEM_SCRUBBED_REUSE) continue;
      add_violation(f, evidence(static_cast<int64_t>(e.seq), e.time, gpu_name(in.run, e.gpu),
                                fmt(e.value) + " bytes freed by " + tenant_name(spec, src) + " handed unscrubbed to " +
                                    tenant_name(spec, e.tenant) + " (MEM_RESIDUE)",
                                e.workload >= 0 ? spec.workloads[static_cast<size_t>(e.workload)].loc : SourceLoc{}));
    }
    // Derived from placement order: logs without allocator events, and hand-overs across a MIG
    // re-partitioning (a new instance on the memory of an old one), which the allocator does not see.
    const auto same_memory = [&](int from, int to) {
      if (from == to) return true;
      const auto& a = in.run.gpus[static_cast<size_t>(from)];
      const auto& b = in.run.gpus[static_cast<size_t>(to)];
      return !a.mig_profile.empty() && !b.mig_profile.empty() && a.node == b.node && a.local == b.local &&
             a.available_until >= 0 && b.available_from >= a.available_until;
    };
    for (const Stay* placed : stays) {
      const Stay& to = *placed;
      // The last stay released on this memory before `to` was placed.
      const Stay* last = nullptr;
      for (const Stay* from : stays)
        if (from->seq != to.seq && from->end <= to.start && same_memory(from->gpu, to.gpu) &&
            (!last || from->end > last->end))
          last = from;
      if (!last || last->tenant == to.tenant) continue;
      if (allocator && last->gpu == to.gpu) continue;  // observed above
      if (!matches_tenant(cfg, spec, last->tenant) && !matches_tenant(cfg, spec, to.tenant)) continue;
      ++f.checked;
      const bool confidential = in.run.gpus[static_cast<size_t>(to.gpu)].sharing == SharingMode::CONFIDENTIAL;
      if (spec.isolation.scrub_on_free || confidential) continue;
      add_violation(f, evidence(static_cast<int64_t>(to.seq), to.start, gpu_name(in.run, to.gpu),
                                tenant_name(spec, to.tenant) + " placed on memory " + tenant_name(spec, last->tenant) +
                                    " released at " + fmt(last->end) + " s with no scrub in between (placement order)",
                                spec.workloads[static_cast<size_t>(to.workload)].loc));
    }
    finish_finding(f, "hand-overs of device memory between tenants");
    return f;
  }

  // Conservative: without scrub on free, a device whose last tenant was another one may still hold its data.
  bool refuse_placement(const PlacementCheck& c, const ComplianceRuleSpec& cfg, std::string* why) const override {
    if (c.spec.isolation.scrub_on_free || c.gpu.mode == SharingMode::CONFIDENTIAL) return false;
    const int last = c.gpu.last_tenant;
    if (last < 0 || last == c.request.tenant) return false;
    if (!matches_tenant(cfg, c.spec, last) && !matches_tenant(cfg, c.spec, c.request.tenant)) return false;
    if (why) *why = "last used by tenant '" + tenant_name(c.spec, last) + "' and scrubOnFree is off";
    return true;
  }
};

// ---------------------------------------------------------------------------------------------
// C17 encryption in transit and at rest

bool regulated(const ScenarioSpec& spec, const ComplianceRuleSpec& cfg, int d) {
  if (d < 0 || !matches_data(cfg, spec, d)) return false;
  return contains(param_list(cfg.params, "regulatedClassifications"), data_classification(spec, d));
}

// The movement crosses the network (a shared store, another node, the front end) rather than staying on
// the node's PCIe; with includePcie, host-device copies count too (except on a confidential GPU, whose
// bounce buffers are encrypted).
bool crosses_network(const DataMovement& m) {
  if (m.store == HOST_MEMORY_STORE || m.store == LOCAL_NVME_STORE) return false;
  if (!m.store.empty()) return true;
  return m.operation == "request" || m.operation == "response" ||
         (m.operation == "transfer" && !m.links.empty() && m.from != m.to);
}

class EncryptionInTransit final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Regulated data is encrypted when it crosses shared links");
    for (const auto& e : in.run.log.events()) {
      if (e.type != EventType::DATA_MOVE) continue;
      const auto idx = payload::data_movement(e, in.run.data_movements.size());
      if (!idx) continue;
      const DataMovement& m = in.run.data_movements[*idx];
      if (!regulated(in.spec, cfg, m.data) || !in_scope(in.spec, cfg, m, gpu_mode(in.run, m.gpu))) continue;
      ++f.checked;
      if (m.encrypted_in_transit) continue;
      add_violation(f, evidence(static_cast<int64_t>(e.seq), e.time, in.spec.data[static_cast<size_t>(m.data)].name,
                                m.operation + " " + m.from + " -> " + m.to + " in plaintext over " +
                                    std::to_string(m.links.size()) + " links (" + fmt(m.bytes) + " bytes)",
                                in.spec.data[static_cast<size_t>(m.data)].loc));
    }
    finish_finding(f, "movements of regulated data over shared links");
    return f;
  }

  std::optional<std::string> refuse_access(const AccessCheck& c, const ComplianceRuleSpec& cfg) const override {
    const DataMovement& m = c.movement;
    if (!regulated(c.spec, cfg, m.data) || m.encrypted_in_transit || !in_scope(c.spec, cfg, m, "")) return std::nullopt;
    return "'" + c.spec.data[static_cast<size_t>(m.data)].name + "' would cross shared links unencrypted";
  }

 private:
  static std::string gpu_mode(const RunResult& run, int g) {
    return g >= 0 && static_cast<size_t>(g) < run.gpus.size()
               ? sharing_mode_name(run.gpus[static_cast<size_t>(g)].sharing)
               : "";
  }
  static bool in_scope(const ScenarioSpec&, const ComplianceRuleSpec& cfg, const DataMovement& m,
                       const std::string& mode) {
    if (crosses_network(m)) return true;
    return param_bool(cfg.params, "includePcie") && mode != "confidential" &&
           (m.store == HOST_MEMORY_STORE || m.store == LOCAL_NVME_STORE);
  }
};

class EncryptionAtRest final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Regulated data is stored only on stores encrypted at rest");
    const auto& spec = in.spec;
    // Every regulated item's store (declared), with the first access to it as the evidence's event.
    std::map<int, Event> first_access;  // copies: a spilled log block may be gone later
    for (const auto& e : in.run.log.events()) {
      if (e.type != EventType::DATA_MOVE) continue;
      const auto idx = payload::data_movement(e, in.run.data_movements.size());
      if (idx && in.run.data_movements[*idx].data >= 0) first_access.emplace(in.run.data_movements[*idx].data, e);
    }
    for (size_t d = 0; d < spec.data.size(); ++d) {
      const int di = static_cast<int>(d);
      if (!regulated(spec, cfg, di) || spec.data[d].store == HOST_MEMORY_STORE) continue;
      ++f.checked;
      if (store_encrypted(spec, cfg, spec.data[d].store)) continue;
      const auto it = first_access.find(di);
      const Event* e = it == first_access.end() ? nullptr : &it->second;
      add_violation(f, evidence(e ? static_cast<int64_t>(e->seq) : -1, e ? e->time : 0.0, spec.data[d].name,
                                "stored on '" + spec.data[d].store + "', which is not encrypted at rest" +
                                    (e ? "" : " (never accessed in the run)"),
                                spec.data[d].loc));
    }
    finish_finding(f, "regulated data items on a store");
    return f;
  }

  std::optional<std::string> refuse_access(const AccessCheck& c, const ComplianceRuleSpec& cfg) const override {
    const DataMovement& m = c.movement;
    if (!regulated(c.spec, cfg, m.data) || m.store.empty() || m.store == HOST_MEMORY_STORE) return std::nullopt;
    if (store_encrypted(c.spec, cfg, m.store)) return std::nullopt;
    return "store '" + m.store + "' is not encrypted at rest";
  }

 private:
  static bool store_encrypted(const ScenarioSpec& spec, const ComplianceRuleSpec& cfg, const std::string& store) {
    if (store == LOCAL_NVME_STORE) return param_bool(cfg.params, "localNvmeEncrypted");
    for (const auto& s : spec.storage)
      if (s.name == store) return s.encrypted_at_rest;
    return false;
  }
};

// ---------------------------------------------------------------------------------------------
// C16 leakage budget

class LeakageBudget final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Every open channel between tenants stays within the leakage budget");
    const double max_bps = param_number(cfg.params, "maxBitsPerSecond");
    for (const auto& ch : in.channels) {
      if (ch.observer == ch.source || ch.observer < 0 || ch.source < 0) continue;
      if (!matches_tenant(cfg, in.spec, ch.observer) && !matches_tenant(cfg, in.spec, ch.source)) continue;
      ++f.checked;
      if (ch.capacity_bps <= max_bps) continue;
      add_violation(f, evidence(-1, 0, ch.channel,
                                tenant_name(in.spec, ch.source) + " -> " + tenant_name(in.spec, ch.observer) + ": " +
                                    fmt(ch.capacity_bps) + " bit/s over " + fmt(ch.exposure_s) +
                                    " s of exposure (budget " + fmt(max_bps) + " bit/s)",
                                {}));
    }
    finish_finding(f, "open channels between tenants");
    return f;
  }
};

// ---------------------------------------------------------------------------------------------
// C23 network segregation

const NetworkPolicySpec* network_policy(const ScenarioSpec& spec, int tenant) {
  if (tenant < 0) return nullptr;
  for (const auto& p : spec.network_policies)
    if (p.tenant == spec.tenants[static_cast<size_t>(tenant)].name) return &p;
  return nullptr;
}

// A flow from `tenant` into the segment of `owner`'s data: allowed within one tenant, into a shared
// segment, or when the owner's policy admits the tenant (allowFrom).
bool flow_allowed(const ScenarioSpec& spec, int tenant, int owner) {
  if (tenant < 0 || owner < 0 || tenant == owner) return true;
  const NetworkPolicySpec* p = network_policy(spec, owner);
  if (!p || !p->isolated) return true;
  return contains(p->allow_from, spec.tenants[static_cast<size_t>(tenant)].name);
}

class NetworkSegregation final : public ComplianceRule {
 public:
  ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const override {
    ComplianceFinding f = start_finding(cfg, "Tenant networks are segregated; flows between them need an allow rule");
    const auto& spec = in.spec;
    const bool require_isolation = param_bool(cfg.params, "requireIsolation");
    // Per link and tenant: the network movements' intervals sorted by start, with the running maximum
    // of their ends (any interval with start < e and end > s overlaps [s, e]).
    struct Busy {
      std::vector<double> starts, max_end;
    };
    std::map<std::pair<std::string, int>, std::vector<std::pair<double, double>>> raw;
    std::vector<std::pair<Event, const DataMovement*>> moves;  // event copies, as above
    for (const auto& e : in.run.log.events()) {
      if (e.type != EventType::DATA_MOVE) continue;
      const auto idx = payload::data_movement(e, in.run.data_movements.size());
      if (!idx) continue;
      const DataMovement& m = in.run.data_movements[*idx];
      if (!crosses_network(m) || m.tenant < 0) continue;
      moves.emplace_back(e, &m);
      if (m.segment == "shared")
        for (const auto& l : m.links) raw[{l, m.tenant}].emplace_back(m.start, m.end);
    }
    std::map<std::pair<std::string, int>, Busy> busy;
    for (auto& [key, v] : raw) {
      std::sort(v.begin(), v.end());
      Busy b;
      double hi = -1;
      for (const auto& [s0, e0] : v) {
        hi = std::max(hi, e0);
        b.starts.push_back(s0);
        b.max_end.push_back(hi);
      }
      busy[key] = std::move(b);
    }
    for (const auto& [e, m] : moves) {
      const bool mine = matches_tenant(cfg, spec, m->tenant) || (m->owner >= 0 && matches_tenant(cfg, spec, m->owner));
      if (!mine) continue;
      ++f.checked;
      if (!flow_allowed(spec, m->tenant, m->owner)) {
        add_violation(f, evidence(static_cast<int64_t>(e.seq), e.time, m->from + " -> " + m->to,
                                  tenant_name(spec, m->tenant) + " reached the isolated segment of " +
                                      tenant_name(spec, m->owner) + " without an allowFrom rule",
                                  spec.workloads[static_cast<size_t>(m->workload)].loc));
        continue;
      }
      if (!require_isolation || m->segment != "shared" || !matches_tenant(cfg, spec, m->tenant)) continue;
      // In the shared segment: a violation when another tenant's flow used one of its links at the same time.
      std::string other;
      for (const auto& l : m->links) {
        for (auto it = busy.lower_bound({l, -1}); it != busy.end() && it->first.first == l && other.empty(); ++it) {
          if (it->first.second == m->tenant) continue;
          const auto& b = it->second;
          const auto pos = std::lower_bound(b.starts.begin(), b.starts.end(), m->end) - b.starts.begin();
          if (pos > 0 && b.max_end[static_cast<size_t>(pos - 1)] > m->start)
            other = tenant_name(spec, it->first.second) + " on " + l;
        }
        if (!other.empty()) break;
      }
      if (other.empty()) continue;
      add_violation(f, evidence(static_cast<int64_t>(e.seq), e.time, m->from + " -> " + m->to,
                                tenant_name(spec, m->tenant) + " traffic in the shared segment beside " + other +
                                    " (networkPolicies.isolated is off)",
                                spec.workloads[static_cast<size_t>(m->workload)].loc));
    }
    finish_finding(f, "network movements");
    return f;
  }

  std::optional<std::string> refuse_access(const AccessCheck& c, const ComplianceRuleSpec& cfg) const override {
    const DataMovement& m = c.movement;
    if (!matches_tenant(cfg, c.spec, m.tenant) && !(m.owner >= 0 && matches_tenant(cfg, c.spec, m.owner)))
      return std::nullopt;
    if (!crosses_network(m) || flow_allowed(c.spec, m.tenant, m.owner)) return std::nullopt;
    return "no allowFrom rule admits tenant '" + tenant_name(c.spec, m.tenant) + "' into the segment of '" +
           tenant_name(c.spec, m.owner) + "'";
  }
};

ParamSpec list_param(std::string name, std::string value, std::string help, std::vector<std::string> choices) {
  ParamSpec p;
  p.name = std::move(name);
  p.type = ParamType::STRING;
  p.default_value = std::move(value);
  p.help = std::move(help);
  p.choices = std::move(choices);
  return p;
}

ParamSpec bool_param(std::string name, std::string help, bool value = false) {
  ParamSpec p;
  p.name = std::move(name);
  p.type = ParamType::BOOL;
  p.default_value = value;
  p.help = std::move(help);
  return p;
}

ParamSpec number_param(std::string name, double value, std::string help, double min, double max) {
  ParamSpec p;
  p.name = std::move(name);
  p.default_value = value;
  p.help = std::move(help);
  p.min = min;
  p.max = max;
  return p;
}

}  // namespace

void register_data_rules(ComplianceRegistry& registry) {
  add_compliance_rule(
      registry,
      {"residency",
       "C1+C2: every placement of a workload touching region-restricted data, and every movement of that data "
       "(onward hops: checkpoints, copies to other stores), lands in an allowed region unless a recorded transfer "
       "basis (spec.compliance.transfers) for that region precedes it. Enforce: refuses GPUs and stores in other "
       "regions.",
       {list_param("allowedRegions", "", "Regions allowed (list; default: the data's own region).", {}),
        list_param("acceptedMechanisms", "adequacy,SCC,BCR,Art49", "Transfer mechanisms accepted as a basis (list).",
                   {"adequacy", "SCC", "BCR", "Art49"}),
        bool_param("tenantData",
                   "Also treat each matched tenant's workloads as data of the tenant's region (all its processing).")}},
      {"C1", {"GDPR Art. 44", "GDPR Art. 45", "GDPR Art. 46", "GDPR Art. 49"}, "high", true},
      [](const Params&) { return std::make_unique<Residency>(); });
  add_compliance_rule(
      registry,
      {"co-tenancy",
       "C14: two tenants on the same physical GPU (MIG instances of one GPU included) at the same time share it "
       "only in a mode their classifications allow: different classifications only exclusive or confidential, "
       "the same classification also MIG; MPS and time-slicing only within one tenant. Enforce: refuses GPUs whose "
       "other tenants would make the mode disallowed.",
       {list_param("crossClassification", "exclusive,confidential",
                   "Modes allowed between tenants of different classifications (list).", sharing_mode_names()),
        list_param("sameClassification", "exclusive,confidential,mig",
                   "Modes allowed between different tenants of the same classification (list).",
                   sharing_mode_names())}},
      {"C14",
       {"NIST SP 800-53 SC-4", "NIST SP 800-53 AC-4", "PCI DSS A1.1", "SOC 2 CC6.1", "ISO/IEC 27001 A.8.31"},
       "high",
       true},
      [](const Params&) { return std::make_unique<CoTenancy>(); });
  add_compliance_rule(
      registry,
      {"scrub-between-tenants",
       "C15: between a release of device memory by one tenant and its next allocation by another there is a scrub "
       "(MEM_RESIDUE fails, MEM_SCRUBBED_REUSE passes; placement order where the allocator is not logged and across "
       "MIG re-partitioning). Enforce: with scrubOnFree off, refuses a device last used by another tenant.",
       {}},
      {"C15",
       {"NIST SP 800-53 SC-4(2)", "HIPAA 164.310(d)(2)(ii)", "ISO/IEC 27001 A.8.10", "NVIDIA SEC21-05"},
       "high",
       true},
      [](const Params&) { return std::make_unique<ScrubBetweenTenants>(); });
  add_compliance_rule(
      registry,
      {"encryption-in-transit",
       "C17: every movement of regulated data over shared links (a shared store, between nodes, the front end) is "
       "encrypted (networkPolicies.encryptInTransit). Enforce: refuses the access.",
       {list_param("regulatedClassifications", "confidential,restricted",
                   "Data classifications the rule protects (list).",
                   {"public", "internal", "confidential", "restricted"}),
        bool_param(
            "includePcie",
            "Also host-device copies on the node's PCIe (outside a confidential GPU's encrypted bounce buffers).")}},
      {"C17", {"HIPAA 164.312(e)(2)(ii)", "SOC 2 CC6.7", "PCI DSS 4.2.1"}, "high", true},
      [](const Params&) { return std::make_unique<EncryptionInTransit>(); });
  add_compliance_rule(
      registry,
      {"encryption-at-rest",
       "C17: regulated data is kept only on stores encrypted at rest (storage[].encryptedAtRest). Enforce: refuses "
       "reads and writes of it on an unencrypted store.",
       {list_param("regulatedClassifications", "confidential,restricted",
                   "Data classifications the rule protects (list).",
                   {"public", "internal", "confidential", "restricted"}),
        bool_param("localNvmeEncrypted", "Whether the nodes' local NVMe is encrypted (self-encrypting).")}},
      {"C17", {"HIPAA 164.312(a)(2)(iv)", "SOC 2 CC6.1", "ISO/IEC 27001 A.8.24"}, "medium", true},
      [](const Params&) { return std::make_unique<EncryptionAtRest>(); });
  add_compliance_rule(
      registry,
      {"network-segregation",
       "C23: no flow of a matched tenant's data into another tenant's isolated segment without an allowFrom rule; "
       "with requireIsolation, a matched tenant's network traffic does not share links with other tenants' at the "
       "same time outside a segment of its own. Enforce: refuses storage accesses across segments.",
       {bool_param("requireIsolation",
                   "Also fail a matched tenant's traffic in the shared segment on links other tenants use at the same "
                   "time.",
                   true)}},
      {"C23", {"SOC 2 CC6.6", "ISO/IEC 27001 A.8.22", "NIST SP 800-53 AC-4"}, "medium", true},
      [](const Params&) { return std::make_unique<NetworkSegregation>(); });
  add_compliance_rule(
      registry,
      {"leakage-budget",
       "C16: every open side or covert channel between a matched pair of tenants (the leakage surface) carries at "
       "most maxBitsPerSecond (TCSEC: 100 bit/s is high bandwidth; strict profiles 1 bit/s).",
       {number_param("maxBitsPerSecond", 100.0, "Largest channel capacity allowed (bit/s).", 0, 1e12)}},
      {"C16", {"NIST SP 800-53 SC-31", "NIST SP 800-53 SC-4", "TCSEC covert channel guideline"}, "medium", false},
      [](const Params&) { return std::make_unique<LeakageBudget>(); });
}

}  // namespace gtw::policy
