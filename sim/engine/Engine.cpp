#include "Engine.hpp"
#include "Quota.hpp"

#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "Attack.hpp"
#include "CheckRules.hpp"
#include "GpuDevice.hpp"
#include "IdentityGraph.hpp"
#include "IdentityTimeline.hpp"
#include "Placement.hpp"
#include "Platform.hpp"
#include "Process.hpp"
#include "RunBudget.hpp"
#include "Runtime.hpp"
#include "SimContext.hpp"
#include "Text.hpp"
#include "Workload.hpp"

XBT_LOG_EXTERNAL_CATEGORY(gtw);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(gtw_engine, gtw,
                                "the engine: placement, quotas, reconfigurations, faults, attestation (sim/engine)");

namespace sg4 = simgrid::s4u;

namespace gtw {
namespace {

// How often a reconfiguration checks whether the drained replicas have finished their work.
constexpr double DRAIN_POLL_SECONDS = 0.01;

struct NodeHosts {
  sg4::Host* cpu = nullptr;
};

// Hides the devices `hide` selects from the placement view for one decision and shows them again after,
// instead of copying the view (a copy per decision is linear in GPUs with an allocation per device). The view's
// device index is set aside meanwhile (the decision takes a pass over the view) and comes back as it was, since
// every device does.
// Orders (device, enforcer) refusals by device, for equal_range over a device.
struct RefusalDevice {
  bool operator()(const std::pair<size_t, size_t>& r, size_t g) const { return r.first < g; }
  bool operator()(size_t g, const std::pair<size_t, size_t>& r) const { return g < r.first; }
};

class MaskedDevices {
 public:
  template <class Hide>
  MaskedDevices(policy::ClusterView& view, Hide hide) : view_(view), index_(std::move(view.index_slot)) {
    for (size_t g = 0; g < view.gpus.size(); ++g)
      if (view.gpus[g].available && hide(g)) {
        view.gpus[g].available = false;
        hidden_.push_back(g);
      }
  }
  ~MaskedDevices() {
    for (size_t g : hidden_) view_.gpus[g].available = true;
    view_.index_slot = std::move(index_);
  }
  MaskedDevices(const MaskedDevices&) = delete;
  MaskedDevices& operator=(const MaskedDevices&) = delete;

 private:
  policy::ClusterView& view_;
  policy::DeviceIndexSlot index_;
  std::vector<size_t> hidden_;
};

// The changes a quota admission's trial makes to the placement view, undone in reverse order when it ends, so
// that the view, and its device index (each restored device re-scores its node), are as before. The trial's
// decisions use the index; a copy of the view would cost a pass over every device to make, and one per decision
// (a copy has no index). A trial takes no simulated time and emits no event that changes the view: no other actor
// edits the view while it lasts (one exception, as with the copy before: a run stopped by its budget mid-trial).
class ViewTrial {
 public:
  explicit ViewTrial(policy::ClusterView& view) : view_(view) {}
  ~ViewTrial() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      view_.gpus[it->first] = std::move(it->second);
      view_.changed(it->first);
    }
  }
  ViewTrial(const ViewTrial&) = delete;
  ViewTrial& operator=(const ViewTrial&) = delete;

  const policy::ClusterView& view() const { return view_; }

  /// Device g, to be changed by the trial (then reported with view.changed(g)); restored when the trial ends.
  policy::GpuView& edit(size_t g) {
    saved_.emplace_back(g, view_.gpus[g]);
    return view_.gpus[g];
  }

 private:
  policy::ClusterView& view_;
  std::vector<std::pair<size_t, policy::GpuView>> saved_;
};

class Simulation {
 public:
  Simulation(const ScenarioSpec& spec, const ProfileSet& profiles, const RunOptions& options, RunResult& result)
      : spec_(spec), profiles_(profiles), options_(options), result_(result), ctx_{spec, result.log, {}, 0, 0, false} {}

  void run() {
    char arg0[] = "gputwin";
#ifdef GTW_SANITIZER_BUILD
    // ucontext actors: ASan intercepts swapcontext and clears the target stack's shadow, which it cannot do for
    // SimGrid's default (raw, assembly) switches. (Thread contexts were tried: they deadlock in the
    // reconfiguration tests and are 10x slower.) It clears the whole stack's shadow at every switch, so the
    // stacks are small: SANITIZER_ACTOR_STACK_KIB.
    char arg1[] = "--log=root.thresh:critical";  // before the --cfg, so the changes are not logged
    char arg2[] = "--cfg=contexts/factory:ucontext";
    std::string stack_size = "--cfg=contexts/stack-size:" + std::to_string(SANITIZER_ACTOR_STACK_KIB);
    int argc = 4;
    char* argv[] = {arg0, arg1, arg2, stack_size.data(), nullptr};
#else
    // 2 MiB stacks instead of SimGrid's 8 MiB: a quarter of the address space per actor lets a run under a memory
    // limit (ulimit -v) hold four times the actors (sim/engine/RunBudget.hpp counts them).
    char arg1[] = "--log=root.thresh:critical";  // before the --cfg, so the change is not logged
    std::string stack_size = "--cfg=contexts/stack-size:" + std::to_string(ACTOR_STACK_KIB);
    int argc = 3;
    char* argv[] = {arg0, arg1, stack_size.data(), nullptr};
#endif
    engine_ = std::make_unique<sg4::Engine>(&argc, argv);
    // CM02 without cross-traffic: transfers take exactly size / bandwidth, so analytic checks hold
    // (the LV08 default adds a 0.97 bandwidth factor, latency x 13.01 and 5% reverse traffic).
    xbt_log_control_set("root.thresh:critical");
    for (const auto& setting : options_.log_settings) xbt_log_control_set(setting.c_str());
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");

    ctx_.arrivals_end = spec_.duration.value;
    ctx_.hard_end = spec_.duration.value + (options_.drain >= 0 ? options_.drain : default_drain());
    ctx_.fold_slices = !options_.detailed_trace;
    build_platform();
    ctx_.emit({.time = 0, .type = EventType::RUN_START, .value = spec_.duration.value});

    for (auto& gpu : gpus_) gpu->start();
    policy_ = policy::builtin_placement_registry().create(spec_.placement.name, spec_.placement.params);
    view_ = make_view();
    view_.build_index();  // decisions in O(log nodes): every change of view_ below calls view_.changed(g)
    const char* check = std::getenv("GPUTWIN_CHECK_PLACEMENT_INDEX");
    check_placement_index_ = check && std::string(check) == "1";
    setup_compliance();
    for (size_t i = 0; i < view_.gpus.size(); ++i) {
      const auto& g = view_.gpus[i];
      result_.gpus[i].share = g.slots > 0 ? g.capacity / g.slots : g.capacity;
      for (const auto& pool : spec_.node_pools)
        if (pool.name == result_.gpus[i].pool) result_.gpus[i].price_per_gpu_hour = pool.price_per_gpu_hour;
    }
    ctx_.observer = [this](const Event& e) { observe(e); };
    if (std::any_of(spec_.tenants.begin(), spec_.tenants.end(), [](const TenantSpec& t) { return t.has_quota; })) {
      quota_.emplace(spec_.tenants, spec_.fair_sharing);
      quota_mutex_ = sg4::Mutex::create();
      quota_cv_ = sg4::ConditionVariable::create();
      sg4::Actor::create("quota", controller_host_, [this] { quota_admission(); })->daemonize();
    }
    sg4::Actor::create("controller", controller_host_, [this] { controller(); });
    sg4::Actor::create("end", controller_host_, [this] { end_of_run(); });
    if (std::any_of(spec_.faults.begin(), spec_.faults.end(), [](const FaultSpec& f) { return f.secret.empty(); }))
      sg4::Actor::create("faults", controller_host_, [this] { inject_faults(); });
    result_.invocation_steps = identity::simulate_invocations(spec_, spec_.seed);
    identity_plan_ = identity_happenings(spec_, result_.invocation_steps, ctx_.hard_end);
    if (!identity_plan_.empty())
      sg4::Actor::create("identity", controller_host_,
                         [this] { replay_identity(ctx_, identity_plan_, result_.invocation_steps); });
    if (!spec_.reconfigurations.empty())
      sg4::Actor::create("reconfigurations", controller_host_, [this] { reconfigure(); });
    if (options_.on_progress) sg4::Actor::create("progress", controller_host_, [this] { progress(); })->daemonize();
    if (options_.max_events > 0 || options_.max_memory_bytes > 0) {
      budget_mutex_ = sg4::Mutex::create();
      budget_cv_ = sg4::ConditionVariable::create();
      sg4::Actor::create("budget", controller_host_, [this] { budget_guard(); })->daemonize();
    }

    const auto wall_start = std::chrono::steady_clock::now();
    wall_start_ = wall_start;
    engine_->run();
    result_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    result_.end_time = sg4::Engine::get_clock();
    result_.arrivals_end = ctx_.arrivals_end;
    result_.counters = ctx_.counters;
    result_.seed = spec_.seed;
  }

 private:
  // In-flight work gets time to finish after arrivals stop, bounded so an overloaded design ends.
  double default_drain() const {
    return std::max(30.0, 0.25 * spec_.duration.value);
  }

  void build_platform() {
    auto* root = sg4::create_full_zone("cluster");
    controller_host_ = root->create_host("controller", 1e9);
    // The network and I/O topology (models/fabric): checked by prepare_scenario already.
    Diagnostics topo_diags;
    if (!fabric::build_topology(spec_, profiles_, topology_, topo_diags))
      throw std::runtime_error("topology: " + topo_diags.format_all());
    platform_ = std::make_unique<fabric::Platform>(topology_, spec_, root);
    ctx_.platform = platform_.get();
    ctx_.data_movements = &result_.data_movements;
    ctx_.serving = &result_.serving;
    int global_node = 0;
    for (size_t p = 0; p < spec_.node_pools.size(); ++p) {
      const auto& pool = spec_.node_pools[p];
      const HardwareProfile& profile = profiles_.at(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key);
      const std::vector<int> nvlink_domain = topology_.pools[p].nvlink_domains();
      for (int n = 0; n < pool.count; ++n, ++global_node) {
        const std::string node_name = pool.name + "-" + std::to_string(n);
        // The node's zone, host CPU, switches, links and disks come from its topology graph
        // (models/fabric); the devices are created here and registered with it.
        auto& node_parts = platform_->begin_node(global_node);
        auto* zone = node_parts.zone;
        auto* cpu = node_parts.cpu;
        for (int g = 0; g < pool.gpus_per_node; ++g) {
          const std::string gname = node_name + "-gpu" + std::to_string(g);
          const SharingSpec& sharing = pool.sharing_for(g);

          // The devices this GPU exposes: itself, or one per MIG instance with its own SMs, memory
          // and memory slices of bandwidth (each its own host pair: no SM or HBM sharing between them).
          struct Part {
            const HardwareProfile* profile;
            std::string name;
            std::string mig_profile;
            int mig_start;
            int generation;  // which layout of the GPU (0: initial; k: after the k-th reconfiguration)
          };
          std::vector<Part> parts;
          if (sharing.mode == SharingMode::MIG) {
            // The instances of every layout the GPU will have are created now (SimGrid platforms are
            // static); the later ones stay unavailable until their reconfiguration brings them up.
            std::vector<const std::vector<std::string>*> layouts{&sharing.mig_layout};
            for (size_t r : reconfiguration_order())
              if (spec_.reconfigurations[r].node_pool == pool.name)
                layouts.push_back(&spec_.reconfigurations[r].mig_layout);
            for (size_t gen = 0; gen < layouts.size(); ++gen) {
              const auto layout = check_mig_layout(*profile.mig, *layouts[gen]);
              for (const auto& placement : layout.placements) {
                const MigProfile& mp = *profile.mig->find(placement.profile);
                HardwareProfile instance = profile;
                instance.name = profile.name + "/" + mp.name;
                instance.sms = mp.sms;
                instance.memory = Bytes(mp.memory);
                const double share = static_cast<double>(mp.memory_slices) / profile.mig->memory_slices;
                instance.hbm_bandwidth = profile.hbm_bandwidth * share;
                instance.hbm_achievable = profile.hbm_achievable * share;
                // Same per-SM speed as the whole GPU: the instance's rate is its SM count's share.
                const double sm_share = static_cast<double>(mp.sms) / profile.sms;
                instance.fp16_tensor = profile.fp16_tensor * sm_share;
                instance.bf16_tensor = profile.bf16_tensor * sm_share;
                instance.fp8_tensor = profile.fp8_tensor * sm_share;
                instance.fp32 = profile.fp32 * sm_share;
                instance.mig.reset();
                instance_profiles_.push_back(std::move(instance));
                parts.push_back({&instance_profiles_.back(),
                                 gname + (gen ? "-r" + std::to_string(gen) : "") + "-mig" +
                                     std::to_string(placement.start) + "-" + mp.name,
                                 mp.name, placement.start, static_cast<int>(gen)});
              }
            }
          } else {
            parts.push_back({&profile, gname, "", -1, 0});
          }
          for (const auto& part : parts) {
            const HardwareProfile& dp = *part.profile;
            const SharingSpec device_sharing = instance_sharing(sharing, part.mig_profile);
            // Cores are SMs; the host's total speed is the achievable FP16 tensor rate.
            auto* sms =
                zone->create_host(part.name, dp.achievable_rate(DType::FP16).value / dp.sms)->set_core_count(dp.sms);
            // HBM: a host whose speed is the achievable bandwidth; a kernel's bytes are work on it.
            // Its pstates are the bandwidths left under shared-L2 pressure (GpuDevice::update_l2_pressure).
            auto* hbm = zone->create_host(part.name + "-hbm", hbm_pstate_speeds(dp));
            // Routes (host, NVLink or PCIe P2P, NIC, NVMe) are added by the platform at end_node.
            platform_->add_device(global_node, g, sms, part.mig_profile.empty());
            const int global_index = static_cast<int>(gpus_.size());
            gpus_.push_back(
                std::make_unique<GpuDevice>(global_index, global_node, g, sms, hbm, dp, device_sharing, ctx_));
            GpuLayout layout;
            layout.index = global_index;
            layout.node = global_node;
            layout.local = g;
            layout.node_name = node_name;
            layout.pool = pool.name;
            layout.product = pool.gpu_product;
            layout.sharing = device_sharing.mode;
            const bool shared = device_sharing.mode == SharingMode::TIME_SLICING ||
                                device_sharing.mode == SharingMode::MPS || device_sharing.mode == SharingMode::VGPU;
            layout.slots = shared ? device_sharing.replicas : 1;
            layout.resource = advertised_resource(pool, device_sharing, part.mig_profile);
            layout.memory = dp.memory.value;
            layout.mig_profile = part.mig_profile;
            layout.mig_start = part.mig_start;
            // MIG instances have no NVLink peer access (P2P = No for every MIG profile).
            layout.nvlink_domain = part.mig_profile.empty() ? nvlink_domain[static_cast<size_t>(g)] : -1;
            gpus_.back()->set_nvlink_domain(layout.nvlink_domain);
            layout.layout_generation = part.generation;
            layout.available_from = part.generation == 0 ? 0.0 : -1.0;
            result_.gpus.push_back(layout);
          }
        }
        platform_->end_node(global_node);
        nodes_.push_back(NodeHosts{cpu});
      }
    }
    platform_->finish();
    root->seal();
    for (const auto& [name, profile] : profiles_) result_.profile_sha256.push_back(name + ":" + profile.sha256);
    record_parameter_provenance();
  }

  // The parameters the run rests on, by provenance (report.json parameter_provenance): every field of the
  // hardware profiles of its node pools, the runtime model of each runtime its workloads can run in (runc, or
  // a confidential VM on a confidential pool, for `auto`), and the host time of each serving engine family.
  void record_parameter_provenance() {
    auto& p = result_.parameter_provenance;
    for (const auto& [name, profile] : profiles_)
      for (const auto& [field, source] : profile.sources) p.add(name + "." + field, source);
    bool confidential_pool = false;
    for (const auto& pool : spec_.node_pools)
      confidential_pool = confidential_pool || pool.sharing.mode == SharingMode::CONFIDENTIAL;
    std::set<RuntimeKind> runtimes;
    std::map<std::string, std::string> engines;
    for (const auto& w : spec_.workloads) {
      if (w.runtime != RuntimeKind::AUTO) {
        runtimes.insert(w.runtime);
      } else {
        runtimes.insert(RuntimeKind::RUNC);
        if (confidential_pool) runtimes.insert(RuntimeKind::CVM);
      }
      if (w.continuous() && w.serving.engine != "none") engines[w.serving.engine] = w.serving.step_overhead_source;
    }
    for (const RuntimeKind r : runtimes) {
      const std::string name = std::string("runtime.") + runtime_kind_name(r);
      for (const char* field : {".startup", ".ioEfficiency", ".transferOverhead"})
        p.add(name + field, runtime_model(r).source);
    }
    for (const auto& [family, source] : engines) p.add("serving." + family + ".hostTime", source);
  }

  policy::ClusterView make_view() const {
    policy::ClusterView view;
    std::map<std::pair<int, int>, int> physical;  // (node, GPU index) -> physical GPU id (MIG instances share it)
    for (size_t i = 0; i < gpus_.size(); ++i) {
      const auto& layout = result_.gpus[i];
      policy::GpuView g;
      g.index = layout.index;
      g.node = layout.node;
      g.local = layout.local;
      g.pool_name = layout.pool;
      g.mode = gpus_[i]->sharing().mode;
      g.slots = layout.slots;
      g.memory_total = layout.memory;
      g.mig_profile = layout.mig_profile;
      g.resource = layout.resource;
      g.available = layout.available_from >= 0;
      g.capacity = device_capacity(layout);
      g.physical =
          physical.emplace(std::make_pair(layout.node, layout.local), static_cast<int>(physical.size())).first->second;
      view.gpus.push_back(g);
    }
    for (const auto& t : spec_.tenants) view.tenant_classification.push_back(t.classification);
    // The expected request mix, for fragmentation-aware policies: every workload, weighted by the GPUs
    // its replicas ask for.
    double total = 0;
    for (const auto& ws : spec_.workloads) total += static_cast<double>(ws.replicas) * ws.gpus;
    for (size_t w = 0; w < spec_.workloads.size() && total > 0; ++w)
      view.demand.push_back({make_request(w, 0), spec_.workloads[w].replicas * spec_.workloads[w].gpus / total});
    return view;
  }

  // Share of a physical GPU a device is: 1, or a MIG instance's compute slices over the GPU's.
  double device_capacity(const GpuLayout& layout) const {
    if (layout.mig_profile.empty()) return 1.0;
    for (const auto& pool : spec_.node_pools) {
      if (pool.name != layout.pool) continue;
      const HardwareProfile& profile = profiles_.at(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key);
      if (!profile.mig) break;
      if (const MigProfile* mp = profile.mig->find(layout.mig_profile))
        return static_cast<double>(mp->compute_slices) / profile.mig->compute_slices;
    }
    return 1.0;
  }

  policy::PlacementRequest make_request(size_t w, int r) const {
    const auto& ws = spec_.workloads[w];
    policy::PlacementRequest req;
    req.workload = static_cast<int>(w);
    req.replica = r;
    req.tenant = ws.replica_tenant(r);
    req.gpus = ws.gpus;
    req.memory = workload_memory(ws);
    req.allowed_sharing = runtime_sharing_modes(ws);
    req.node_pool = ws.node_pool;
    req.mig_profile = ws.mig_profile;
    req.resource = ws.k8s_resource;
    return req;
  }

  // The sharing modes a workload's replicas may be placed on: its own constraint, narrowed to the modes
  // its runtime accepts (a VM needs a whole GPU or a vGPU, a confidential VM a GPU in CC mode).
  static std::vector<SharingMode> runtime_sharing_modes(const WorkloadSpec& ws) {
    if (ws.runtime == RuntimeKind::AUTO) return ws.allowed_sharing;
    std::vector<SharingMode> out;
    for (SharingMode mode : runtime_model(ws.runtime).gpu_modes)
      if (ws.allowed_sharing.empty() ||
          std::find(ws.allowed_sharing.begin(), ws.allowed_sharing.end(), mode) != ws.allowed_sharing.end())
        out.push_back(mode);
    return out;
  }

  // Places one replica with the placement policy on the current view; records the outcome.
  std::optional<ReplicaPlacement> place_replica(size_t w, int r) {
    const auto& ws = spec_.workloads[w];
    const policy::PlacementRequest req = make_request(w, r);
    auto chosen = choose_gpus(w, req, false);
    const double now = sg4::Engine::get_clock();
    if (!chosen || static_cast<int>(chosen->size()) != ws.gpus) {
      XBT_VERB("%s[%d]: no placement by %s for %d GPU(s), %.0f bytes", ws.name.c_str(), r, spec_.placement.name.c_str(),
               ws.gpus, req.memory);
      ctx_.emit({.time = now,
                 .type = EventType::PLACEMENT_FAILED,
                 .tenant = req.tenant,
                 .workload = static_cast<int>(w),
                 .replica = r,
                 .value = req.memory});
      ctx_.emit({.time = now,
                 .type = EventType::WORKLOAD_FAILED,
                 .tenant = req.tenant,
                 .workload = static_cast<int>(w),
                 .replica = r,
                 .aux = static_cast<double>(FailureReason::NOT_PLACED)});
      return std::nullopt;
    }
    ReplicaPlacement place;
    for (int g : *chosen) {
      auto& gv = view_.gpus[static_cast<size_t>(g)];
      gv.used_slots += 1;
      gv.memory_committed += req.memory;
      gv.tenants.push_back(req.tenant);
      gv.last_tenant = req.tenant;
      view_.changed(static_cast<size_t>(g));
      place.gpus.push_back(gpus_[static_cast<size_t>(g)].get());
      place.contexts.push_back(gpus_[static_cast<size_t>(g)]->add_context(req.tenant, static_cast<int>(w), r));
      ctx_.emit({.time = now,
                 .type = EventType::PLACED,
                 .tenant = req.tenant,
                 .workload = static_cast<int>(w),
                 .replica = r,
                 .gpu = g,
                 .value = req.memory});
    }
    if (XBT_LOG_ISENABLED(gtw_engine, xbt_log_priority_verbose)) {
      std::string gpus;
      for (int g : *chosen) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
      XBT_VERB("%s[%d] placed by %s on GPU %s", ws.name.c_str(), r, spec_.placement.name.c_str(), gpus.c_str());
    }
    place.node_cpu = nodes_[static_cast<size_t>(place.gpus[0]->node())].cpu;
    attest_and_release_keys(w, r, *chosen);
    return place;
  }

  // ---- Compliance enforcement (docs/models/compliance.md): rules with action enforce are asked before
  // each placement (GPUs they refuse are hidden from the placement policy) and each data access.
  struct Enforcer {
    int index = -1;  // into spec.compliance.rules
    ComplianceRuleSpec cfg;
    std::unique_ptr<policy::ComplianceRule> rule;
  };

  void setup_compliance() {
    for (const auto& l : result_.gpus) gpu_region_.push_back(pool_region(l.pool));
    const auto& registry = policy::builtin_compliance_registry();
    for (size_t i = 0; i < spec_.compliance.rules.size(); ++i) {
      const auto& r = spec_.compliance.rules[i];
      if (r.action != ComplianceAction::ENFORCE || !registry.find(r.rule)) continue;
      Enforcer e{static_cast<int>(i), policy::with_rule_defaults(r), nullptr};
      e.rule = registry.create(r.rule, e.cfg.params);
      enforcers_.push_back(std::move(e));
    }
    if (enforcers_.empty()) return;
    ctx_.access_guard = [this](const DataMovement& m) -> std::optional<std::pair<int, std::string>> {
      const std::string region = m.gpu >= 0 ? gpu_region_[static_cast<size_t>(m.gpu)] : std::string();
      const policy::AccessCheck check{spec_, m, region, sg4::Engine::get_clock()};
      for (const auto& e : enforcers_)
        if (e.rule->refuse_access(check, e.cfg)) return std::make_pair(e.index, e.cfg.name);
      return std::nullopt;
    };
  }

  std::string pool_region(const std::string& pool) const {
    for (const auto& p : spec_.node_pools)
      if (p.name == pool) return p.region;
    return {};
  }

  // The policy's choice on the view. With GPUTWIN_CHECK_PLACEMENT_INDEX=1 in the environment, every choice the view's
  // index made is taken again by a pass over a copy of the view (a copy has no index) and must be the same: the
  // check that the engine reported every change of the view (tests/scenario/PlacementIndexCheckTest.cpp).
  std::optional<std::vector<int>> place_by_policy(const policy::PlacementRequest& req) {
    auto chosen = policy_->place(req, view_);
    if (check_placement_index_ && view_.index()) {
      const policy::ClusterView copy = view_;
      if (policy_->place(req, copy) != chosen)
        throw std::logic_error("placement index disagrees with a pass over the view for workload " +
                               spec_.workloads[static_cast<size_t>(req.workload)].name + " replica " +
                               std::to_string(req.replica));
    }
    return chosen;
  }

  // The GPUs for a replica: the placement policy on the view, minus the GPUs an enforcing rule refuses.
  // One COMPLIANCE_REFUSED per rule that changed the decision (it refused a GPU the policy would have
  // chosen otherwise), not per GPU refused. A trial (quota admission) records only a refusal that leaves
  // the replica unplaced, once per replica and rule: the admission retries while it waits.
  std::optional<std::vector<int>> choose_gpus(size_t w, const policy::PlacementRequest& req, bool trial) {
    const auto& ws = spec_.workloads[w];
    const auto place_on_view = [&] {
      return ws.nodes > 1 || !ws.pin_nodes.empty() ? place_across_nodes(ws, req) : place_by_policy(req);
    };
    if (enforcers_.empty()) return place_on_view();
    const double now = sg4::Engine::get_clock();
    // (device, enforcer) for every refusal, devices ascending; refused_device_ flags the devices (reset below).
    std::vector<std::pair<size_t, size_t>> refusals;
    refused_device_.resize(view_.gpus.size(), 0);
    for (size_t g = 0; g < view_.gpus.size(); ++g) {
      if (!policy::eligible(view_.gpus[g], req)) continue;
      const policy::PlacementCheck check{spec_, req, view_.gpus[g], view_, gpu_region_[g], now};
      for (size_t k = 0; k < enforcers_.size(); ++k)
        if (enforcers_[k].rule->refuse_placement(check, enforcers_[k].cfg, nullptr)) {
          refusals.emplace_back(g, k);
          refused_device_[g] = 1;
        }
    }
    if (refusals.empty()) return place_on_view();
    const auto unfiltered = place_on_view();
    std::optional<std::vector<int>> chosen;
    {
      const MaskedDevices masked(view_, [&](size_t g) { return refused_device_[g] != 0; });
      chosen = place_on_view();
    }
    for (const auto& [g, k] : refusals) refused_device_[g] = 0;
    if (unfiltered && (!trial || !chosen)) {
      std::map<size_t, int> first_gpu;  // enforcer -> first GPU of the policy's choice it refused
      for (int g : *unfiltered) {
        const auto [first, last] =
            std::equal_range(refusals.begin(), refusals.end(), static_cast<size_t>(g), RefusalDevice{});
        for (auto it = first; it != last; ++it) first_gpu.emplace(it->second, g);
      }
      for (const auto& [k, g] : first_gpu)
        if (!trial || trial_refusals_.insert({w, req.replica, k}).second)
          ctx_.emit({.time = now,
                     .type = EventType::COMPLIANCE_REFUSED,
                     .tenant = req.tenant,
                     .workload = static_cast<int>(w),
                     .replica = req.replica,
                     .gpu = g,
                     .value = static_cast<double>(enforcers_[k].index)});
    }
    return chosen;
  }

  // ---- Attestation and key release (docs/models/compliance.md, "Identity and audit rules"). A replica
  // starting on GPUs in confidential-computing mode attests each of them after its runtime started (the
  // profile's attestation time each, as the workload's bring-up waits), then fetches its secrets; an
  // enforcing rule may refuse a release (COMPLIANCE_REFUSED aux 2, KEY_RELEASE value 0).
  void attest_and_release_keys(size_t w, int r, const std::vector<int>& gpus) {
    const auto& ws = spec_.workloads[w];
    bool confidential = false;
    for (int g : gpus) confidential = confidential || gpus_[static_cast<size_t>(g)]->confidential();
    if (!confidential && ws.secrets.empty()) return;
    sg4::Actor::create("attest", controller_host_, [this, w, r, gpus] {
      attest_and_release_actor(w, r, gpus);
    })->daemonize();
  }

  bool attestation_fails(const WorkloadSpec& ws, int r, double now) const {
    return std::any_of(
        ws.attestation_failures.begin(), ws.attestation_failures.end(),
        [&](const AttestationFailureSpec& f) { return (f.replica < 0 || f.replica == r) && now >= f.at.value; });
  }

  void attest_and_release_actor(size_t w, int r, const std::vector<int>& gpus) {
    const auto& ws = spec_.workloads[w];
    const int tenant = ws.replica_tenant(r);
    const int wi = static_cast<int>(w);
    const SharingMode mode = gpus_[static_cast<size_t>(gpus.front())]->sharing().mode;
    sg4::this_actor::sleep_for(runtime_model(effective_runtime(ws.runtime, mode)).startup_s);
    bool all_confidential = true, failed = false;
    double oldest = std::numeric_limits<double>::infinity();  // the oldest of the GPUs' attestations
    for (int g : gpus) {
      const auto* cc = gpus_[static_cast<size_t>(g)]->confidential();
      if (!cc) {
        all_confidential = false;
        continue;
      }
      sg4::this_actor::sleep_for(cc->attestation.value);
      const double now = sg4::Engine::get_clock();
      const bool ok = !attestation_fails(ws, r, now);
      ctx_.emit({.time = now,
                 .type = EventType::ATTESTATION,
                 .tenant = tenant,
                 .workload = wi,
                 .replica = r,
                 .gpu = g,
                 .value = ok ? 1.0 : 0.0});
      oldest = std::min(oldest, now);
      failed = failed || !ok;
    }
    const double attested_at = all_confidential && !failed && std::isfinite(oldest) ? oldest : -1;
    const double now = sg4::Engine::get_clock();
    bool any_refused = false;
    for (const auto& name : ws.secrets) {
      const auto& secrets = spec_.identity.secrets;
      const auto it = std::find_if(secrets.begin(), secrets.end(), [&](const SecretSpec& s) { return s.name == name; });
      if (it == secrets.end()) continue;  // validation refuses unknown secrets
      const int secret = static_cast<int>(it - secrets.begin());
      const policy::KeyReleaseCheck check{spec_, wi, r, secret, gpus, all_confidential, attested_at, now};
      bool refused = false;
      for (const auto& e : enforcers_) {
        if (!e.rule->refuse_key_release(check, e.cfg)) continue;
        ctx_.emit({.time = now,
                   .type = EventType::COMPLIANCE_REFUSED,
                   .tenant = tenant,
                   .workload = wi,
                   .replica = r,
                   .gpu = gpus.front(),
                   .value = static_cast<double>(e.index),
                   .aux = 2});
        refused = true;
        break;
      }
      ctx_.emit({.time = now,
                 .type = EventType::KEY_RELEASE,
                 .tenant = tenant,
                 .workload = wi,
                 .replica = r,
                 .gpu = gpus.front(),
                 .value = refused ? 0.0 : 1.0,
                 .aux = static_cast<double>(secret)});
      any_refused = any_refused || refused;
    }
    // Without its secrets the replica cannot start serving (or training): the cost of enforcement.
    if (any_refused && by_index_[w]) by_index_[w]->kill_replica(r, FailureReason::KEY_REFUSED);
  }

  // A replica spanning `nodes` nodes (or pinned to named nodes): gpus / nodes GPUs on each, one node at a
  // time with the placement policy on a view restricted to that node (pinned) or to nodes not used yet.
  std::optional<std::vector<int>> place_across_nodes(const WorkloadSpec& ws, const policy::PlacementRequest& req) {
    const int nodes = std::max(1, ws.nodes);
    policy::PlacementRequest part = req;
    part.gpus = ws.gpus / nodes;
    std::vector<int> all;
    std::set<int> used_nodes;
    for (int k = 0; k < nodes; ++k) {
      const MaskedDevices masked(view_, [&](size_t i) {
        const auto& layout = result_.gpus[i];
        return ws.pin_nodes.empty() ? used_nodes.count(layout.node) > 0
                                    : layout.node_name != ws.pin_nodes[static_cast<size_t>(k)];
      });
      auto chosen = policy_->place(part, view_);
      if (!chosen || static_cast<int>(chosen->size()) != part.gpus) return std::nullopt;
      used_nodes.insert(result_.gpus[static_cast<size_t>(chosen->front())].node);
      all.insert(all.end(), chosen->begin(), chosen->end());
    }
    return all;
  }

  // Starts each workload at its start time: placement, then the workload's own actors.
  void controller() {
    std::vector<size_t> order(spec_.workloads.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
      return spec_.workloads[a].start.value < spec_.workloads[b].start.value;
    });
    for (size_t w : order) {
      const auto& ws = spec_.workloads[w];
      sg4::this_actor::sleep_until(ws.start.value);
      if (quota_ && quota_->managed(ws.tenant_index)) {
        submit_to_quota(w);
        continue;
      }
      start_workload(w);
    }
  }

  static int replica_count(const WorkloadSpec& ws) {
    return ws.kind == WorkloadKind::TRAINING ? 1 : ws.replicas;
  }

  // Places every replica (those that fit) and starts the workload's actors.
  void start_workload(size_t w) {
    const auto& ws = spec_.workloads[w];
    std::vector<ReplicaPlacement> placements;
    for (int r = 0; r < replica_count(ws); ++r) {
      if (auto place = place_replica(w, r)) placements.push_back(std::move(*place));
    }
    if (placements.empty() && ws.kind == WorkloadKind::TRAINING) return;
    if (ws.kind == WorkloadKind::ATTACK)
      workloads_.push_back(make_attack(ctx_, static_cast<int>(w), std::move(placements), attack_env()));
    else
      workloads_.push_back(make_workload(ctx_, static_cast<int>(w), std::move(placements)));
    by_index_[w] = workloads_.back().get();
    workloads_.back()->start();
  }

  // ---- Quotas (docs/models/quotas.md): admission of whole workloads, borrowing, reclaim by preemption.

  static int quota_gpus(const WorkloadSpec& ws) {
    return replica_count(ws) * ws.gpus;
  }

  QuotaRequest quota_request(size_t w) const {
    const auto& ws = spec_.workloads[w];
    return {.workload = static_cast<int>(w),
            .tenant = ws.tenant_index,
            .resource = ws.quota_resource(),
            .amount = quota_gpus(ws),
            .priority = ws.priority,
            .submitted = ws.start.value};
  }

  // Kueue's queue order: higher priority first, then the earlier submission.
  bool queued_before(size_t a, size_t b) const {
    const auto& wa = spec_.workloads[a];
    const auto& wb = spec_.workloads[b];
    if (wa.priority != wb.priority) return wa.priority > wb.priority;
    if (wa.start.value != wb.start.value) return wa.start.value < wb.start.value;
    return a < b;
  }

  void enqueue(size_t w) {
    const auto& ws = spec_.workloads[w];
    pending_.insert(std::upper_bound(pending_.begin(), pending_.end(), w,
                                     [this](size_t a, size_t b) { return queued_before(a, b); }),
                    w);
    ctx_.emit({.time = sg4::Engine::get_clock(),
               .type = EventType::QUOTA_QUEUED,
               .tenant = ws.tenant_index,
               .workload = static_cast<int>(w),
               .value = static_cast<double>(quota_gpus(ws)),
               .aux = static_cast<double>(quota_->used(ws.tenant_index, ws.quota_resource()))});
  }

  // A StrictFIFO queue admits nothing past a waiting workload ahead of it.
  bool blocked_by_queue_head(size_t w) const {
    const auto& ws = spec_.workloads[w];
    if (!spec_.tenants[static_cast<size_t>(ws.tenant_index)].strict_fifo) return false;
    return std::any_of(pending_.begin(), pending_.end(), [&](size_t p) {
      return p != w && spec_.workloads[p].tenant_index == ws.tenant_index && queued_before(p, w);
    });
  }

  void submit_to_quota(size_t w) {
    if (!blocked_by_queue_head(w) && try_admit(w)) return;
    enqueue(w);
  }

  // Admits the workload if its quota allows (preempting the victims its tenant's preemption policy picks)
  // and every replica can be placed; false leaves everything as it was.
  bool try_admit(size_t w) {
    const auto& ws = spec_.workloads[w];
    const QuotaRequest request = quota_request(w);
    const int tenant = ws.tenant_index, gpus = request.amount;
    std::vector<int> victims;
    if (!quota_->fits(request)) {
      auto v = quota_->victims(request);
      if (!v) return false;
      victims = std::move(*v);
    }
    if (!would_place(w, victims)) return false;
    for (int v : victims) preempt(static_cast<size_t>(v), tenant);
    const int borrowed = quota_->admit(request);
    ctx_.emit({.time = sg4::Engine::get_clock(),
               .type = EventType::QUOTA_ADMITTED,
               .tenant = tenant,
               .workload = static_cast<int>(w),
               .value = static_cast<double>(gpus),
               .aux = static_cast<double>(borrowed)});
    if (!by_index_[w] || ws.kind == WorkloadKind::TRAINING) {
      start_workload(w);  // first admission, or a preempted job starting over
    } else {
      for (int r = 0; r < replica_count(ws); ++r)
        if (auto place = place_replica(w, r)) by_index_[w]->move_replica(r, std::move(*place));
    }
    return true;
  }

  // Whether every replica of the workload would be placed once the victims' slots are free (a trial: the view is
  // left as it was).
  bool would_place(size_t w, const std::vector<int>& victims) {
    const auto& ws = spec_.workloads[w];
    ViewTrial trial(view_);
    for (int v : victims) release_slots(view_, static_cast<size_t>(v), &trial);
    for (int r = 0; r < replica_count(ws); ++r) {
      const policy::PlacementRequest req = make_request(w, r);
      auto chosen = choose_gpus(w, req, true);
      if (!chosen || static_cast<int>(chosen->size()) != ws.gpus) return false;
      for (int g : *chosen) {
        auto& gv = trial.edit(static_cast<size_t>(g));
        gv.used_slots += 1;
        gv.memory_committed += req.memory;
        gv.tenants.push_back(req.tenant);
        view_.changed(static_cast<size_t>(g));
      }
    }
    return true;
  }

  // Frees the view slots a started workload's replicas hold (a trial's change when `trial` is given).
  void release_slots(policy::ClusterView& view, size_t w, ViewTrial* trial = nullptr) const {
    if (trial && &trial->view() != &view) throw std::logic_error("release_slots: the trial is on another view");
    const Workload* inst = by_index_[w];
    if (!inst) return;
    const auto& ws = spec_.workloads[w];
    const double memory = workload_memory(ws);
    for (int r = 0; r < replica_count(ws); ++r) {
      const ReplicaPlacement* place = inst->placement(r);
      if (!place) continue;
      for (const GpuDevice* g : place->gpus) {
        const auto index = static_cast<size_t>(g->index());
        auto& gv = trial ? trial->edit(index) : view.gpus[index];
        gv.used_slots = std::max(0, gv.used_slots - 1);
        gv.memory_committed = std::max(0.0, gv.memory_committed - memory);
        auto it = std::find(gv.tenants.begin(), gv.tenants.end(), ws.tenant_index);
        if (it != gv.tenants.end()) gv.tenants.erase(it);
        view.changed(index);
      }
    }
  }

  void preempt(size_t w, int reclaimer) {
    const auto& ws = spec_.workloads[w];
    const double now = sg4::Engine::get_clock();
    // Released first, so the kill's own failure events do not release it twice.
    quota_->release(static_cast<int>(w));
    release_slots(view_, w);
    ctx_.emit({.time = now,
               .type = EventType::QUOTA_PREEMPTED,
               .tenant = ws.tenant_index,
               .workload = static_cast<int>(w),
               .value = static_cast<double>(quota_gpus(ws)),
               .aux = static_cast<double>(reclaimer)});
    ctx_.emit({.time = now,
               .type = EventType::QUOTA_RELEASED,
               .tenant = ws.tenant_index,
               .workload = static_cast<int>(w),
               .value = static_cast<double>(quota_gpus(ws))});
    for (int r = 0; r < replica_count(ws); ++r)
      if (by_index_[w]->placement(r)) by_index_[w]->kill_replica(r, FailureReason::PREEMPTED);
    // Requeued in queue order (Kueue requeues an evicted workload).
    enqueue(w);
  }

  // Events as they happen: a training job that ends returns its GPUs (to the view, and to its quota).
  void observe(const Event& e) {
    if (ctx_.stopping) return;  // the end of the run: nothing is admitted any more
    check_budget();
    if (e.type != EventType::JOB_DONE && e.type != EventType::WORKLOAD_FAILED) return;
    if (e.workload < 0 || spec_.workloads[static_cast<size_t>(e.workload)].kind != WorkloadKind::TRAINING) return;
    const auto w = static_cast<size_t>(e.workload);
    if (e.type == EventType::WORKLOAD_FAILED && payload::failure_reason(e) == FailureReason::PREEMPTED) return;
    if (!by_index_[w] || released_.count(by_index_[w])) return;
    released_.insert(by_index_[w]);
    release_slots(view_, w);
    if (quota_ && quota_->release(e.workload)) {
      ctx_.emit({.time = e.time,
                 .type = EventType::QUOTA_RELEASED,
                 .tenant = e.tenant,
                 .workload = e.workload,
                 .value = static_cast<double>(quota_gpus(spec_.workloads[w]))});
      quota_cv_->notify_all();
    }
  }

  // Admits queued workloads when devices return to the quota. Workloads that an admission preempts are requeued
  // and wait for the next return.
  void quota_admission() {
    std::unique_lock lock(*quota_mutex_);
    for (;;) {
      quota_cv_->wait(lock);
      admission_round();
    }
  }

  // Kueue's scheduling cycles, run back to back until every waiting workload was tried once: each queue nominates
  // its head, and the nominee that comes first in Kueue's order is tried (classical: one that fits without
  // borrowing, then the higher priority, then the earlier submission; fair sharing: Kueue's tournament of shares,
  // QuotaBook::fair_first). One that is not admitted is passed over (BestEffortFIFO), or holds its queue until the
  // next return (StrictFIFO).
  void admission_round() {
    std::map<int, std::deque<size_t>> queues;  // by tenant, in queue order
    for (size_t w : pending_) queues[spec_.workloads[w].tenant_index].push_back(w);
    for (;;) {
      std::vector<size_t> heads;
      for (const auto& [tenant, queue] : queues)
        if (!queue.empty()) heads.push_back(queue.front());
      if (heads.empty()) return;
      const size_t next = quota_->fair_sharing() ? fair_first(heads) : classical_first(heads);
      const int tenant = spec_.workloads[next].tenant_index;
      queues[tenant].pop_front();
      if (try_admit(next))
        pending_.erase(std::find(pending_.begin(), pending_.end(), next));
      else if (spec_.tenants[static_cast<size_t>(tenant)].strict_fifo)
        queues[tenant].clear();
    }
  }

  size_t fair_first(const std::vector<size_t>& heads) const {
    std::vector<QuotaRequest> requests;
    for (size_t w : heads) requests.push_back(quota_request(w));
    return heads[quota_->fair_first(requests)];
  }

  size_t classical_first(const std::vector<size_t>& heads) const {
    return *std::min_element(heads.begin(), heads.end(), [this](size_t a, size_t b) {
      const bool a_borrows = !quota_->fits(quota_request(a), false);
      const bool b_borrows = !quota_->fits(quota_request(b), false);
      return a_borrows != b_borrows ? b_borrows : queued_before(a, b);
    });
  }

  // What an attacker reaches beyond its placement: every device, the node hosts, the started workloads.
  AttackEnv attack_env() {
    AttackEnv env;
    for (auto& g : gpus_) env.devices.push_back(g.get());
    for (const auto& n : nodes_) env.node_cpus.push_back(n.cpu);
    env.workload = [this](int w) {
      return w >= 0 && static_cast<size_t>(w) < by_index_.size() ? by_index_[static_cast<size_t>(w)] : nullptr;
    };
    return env;
  }

  // Reconfigurations in time order (stable for equal times).
  std::vector<size_t> reconfiguration_order() const {
    std::vector<size_t> order(spec_.reconfigurations.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
      return spec_.reconfigurations[a].at.value < spec_.reconfigurations[b].at.value;
    });
    return order;
  }

  // MIG re-partitioning of a node pool: drain the old instances (no new work; in-flight work gets
  // up to drainTimeout), evict what is left, re-partition (the profile's reconfiguration time), then
  // bring the new instances up and place the evicted replicas again (they start afresh: runtime,
  // weights). Training jobs on the old instances end; they are not resubmitted.
  void reconfigure() {
    std::map<std::string, int> generation;  // per pool: the layout now in force
    for (size_t i : reconfiguration_order()) {
      const auto& rc = spec_.reconfigurations[i];
      sg4::this_actor::sleep_until(rc.at.value);
      const int gen = ++generation[rc.node_pool];
      const double start = sg4::Engine::get_clock();
      std::set<int> old_devices;
      std::vector<int> new_devices;
      std::set<std::pair<int, int>> physical;  // (node, local GPU) re-partitioned
      // The whole GPU's profile (instances carry no MIG table) gives the re-partitioning time.
      const HardwareProfile* profile = nullptr;
      for (const auto& pool : spec_.node_pools)
        if (pool.name == rc.node_pool)
          profile = &profiles_.at(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key);
      for (size_t d = 0; d < result_.gpus.size(); ++d) {
        const auto& layout = result_.gpus[d];
        if (layout.pool != rc.node_pool || layout.mig_profile.empty()) continue;
        if (layout.layout_generation == gen) {
          new_devices.push_back(static_cast<int>(d));
          physical.emplace(layout.node, layout.local);
        } else if (layout.layout_generation < gen && layout.available_from >= 0 && layout.available_until < 0) {
          old_devices.insert(static_cast<int>(d));
        }
      }
      std::vector<std::pair<size_t, int>> evicted;  // (workload, replica) on the old instances
      for (size_t w = 0; w < by_index_.size(); ++w) {
        if (!by_index_[w]) continue;
        const auto& ws = spec_.workloads[w];
        const int replicas = ws.kind == WorkloadKind::TRAINING ? 1 : ws.replicas;
        for (int r = 0; r < replicas; ++r) {
          const ReplicaPlacement* place = by_index_[w]->placement(r);
          if (!place) continue;
          for (const GpuDevice* g : place->gpus) {
            if (old_devices.count(g->index())) {
              evicted.emplace_back(w, r);
              break;
            }
          }
        }
      }
      for (int d : old_devices) {
        view_.gpus[static_cast<size_t>(d)].available = false;
        view_.changed(static_cast<size_t>(d));
      }
      ctx_.emit({.time = start,
                 .type = EventType::RECONFIGURE_START,
                 .replica = static_cast<int>(i),
                 .value = static_cast<double>(evicted.size()),
                 .aux = static_cast<double>(physical.size())});
      for (const auto& [w, r] : evicted) by_index_[w]->drain_replica(r);
      const double deadline = start + rc.drain_timeout.value;
      const auto drained = [&] {
        for (const auto& [w, r] : evicted)
          if (!by_index_[w]->replica_idle(r)) return false;
        return true;
      };
      // Poll: workloads do not signal idleness; 10 ms is below any batch or kernel time of interest.
      while (!drained() && sg4::Engine::get_clock() < deadline)
        sg4::this_actor::sleep_for(std::min(DRAIN_POLL_SECONDS, deadline - sg4::Engine::get_clock()));
      for (const auto& [w, r] : evicted) by_index_[w]->kill_replica(r, FailureReason::RECONFIGURED);
      const double torn_down = sg4::Engine::get_clock();
      for (int d : old_devices) result_.gpus[static_cast<size_t>(d)].available_until = torn_down;
      if (profile && profile->mig) sg4::this_actor::sleep_for(profile->mig->reconfiguration_s);
      const double up = sg4::Engine::get_clock();
      for (int d : new_devices) {
        view_.gpus[static_cast<size_t>(d)].available = true;
        view_.changed(static_cast<size_t>(d));
        result_.gpus[static_cast<size_t>(d)].available_from = up;
      }
      int replaced = 0;
      for (const auto& [w, r] : evicted) {
        if (spec_.workloads[w].kind == WorkloadKind::TRAINING) continue;
        auto place = place_replica(w, r);
        if (place && by_index_[w]->move_replica(r, std::move(*place))) ++replaced;
      }
      ctx_.emit({.time = up,
                 .type = EventType::RECONFIGURE_DONE,
                 .replica = static_cast<int>(i),
                 .value = static_cast<double>(replaced),
                 .aux = start});
    }
  }

  // Injected fatal errors. The fault domain is the whole GPU under MPS (one server for all
  // clients) and time-slicing (no fault isolation between replicas), the instance under MIG, the
  // client alone on an exclusive GPU.
  void inject_faults() {
    std::vector<size_t> order(spec_.faults.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [this](size_t a, size_t b) { return spec_.faults[a].at.value < spec_.faults[b].at.value; });
    for (size_t i : order) {
      const auto& f = spec_.faults[i];
      if (!f.secret.empty()) continue;  // a secret leak: the identity actor's
      sg4::this_actor::sleep_until(f.at.value);
      const int w = workload_index(f.workload);
      Workload* target = w >= 0 ? by_index_[static_cast<size_t>(w)] : nullptr;
      const ReplicaPlacement* place = target ? target->placement(f.replica) : nullptr;
      const double now = sg4::Engine::get_clock();
      if (!place || place->gpus.empty()) {
        ctx_.emit({.time = now,
                   .type = EventType::GPU_FAULT,
                   .tenant = spec_.workloads[static_cast<size_t>(w)].tenant_index,
                   .workload = w,
                   .replica = f.replica});
        continue;
      }
      GpuDevice& gpu = *place->gpus[0];
      const bool node_lost = f.scope == FaultScope::NODE;
      const bool whole_gpu = node_lost || gpu.fault_domain_is_whole_gpu();
      std::vector<std::pair<int, int>> ended;  // (workload, replica)
      std::vector<int> lost = {gpu.index()};   // devices out of service under failover
      if (node_lost) {
        // The whole node: every live client of every device on it.
        lost.clear();
        for (const auto& d : gpus_) {
          if (d->node() != gpu.node()) continue;
          lost.push_back(d->index());
          for (const auto& c : d->contexts())
            if (c.alive && c.workload >= 0 &&
                std::find(ended.begin(), ended.end(), std::make_pair(c.workload, c.replica)) == ended.end())
              ended.emplace_back(c.workload, c.replica);
        }
      } else {
        for (int id : gpu.fault_domain(place->contexts[0])) {
          const auto& c = gpu.contexts()[static_cast<size_t>(id)];
          ended.emplace_back(c.workload, c.replica);
        }
      }
      ctx_.emit({.time = now,
                 .type = EventType::GPU_FAULT,
                 .tenant = spec_.workloads[static_cast<size_t>(w)].tenant_index,
                 .workload = w,
                 .replica = f.replica,
                 .gpu = gpu.index(),
                 .value = static_cast<double>(ended.size()),
                 .aux = node_lost   ? 2.0
                        : whole_gpu ? 1.0
                                    : 0.0});
      for (const auto& [wi, replica] : ended) by_index_[static_cast<size_t>(wi)]->kill_replica(replica);
      if (f.failover.value >= 0) {
        // Out of service from now on; after the detection delay the policy places the ended replicas again.
        for (int d : lost) {
          view_.gpus[static_cast<size_t>(d)].available = false;
          view_.changed(static_cast<size_t>(d));
        }
        const double when = now + f.failover.value;
        sg4::Actor::create("failover", controller_host_, [this, when, ended] {
          sg4::this_actor::sleep_until(when);
          for (const auto& [wi, replica] : ended) {
            if (spec_.workloads[static_cast<size_t>(wi)].kind == WorkloadKind::TRAINING) continue;
            auto again = place_replica(static_cast<size_t>(wi), replica);
            if (again) by_index_[static_cast<size_t>(wi)]->move_replica(replica, std::move(*again));
          }
        });
      } else if (f.restart_after.value >= 0) {
        const double when = now + f.restart_after.value;
        sg4::Actor::create("restart", controller_host_, [this, when, ended] {
          sg4::this_actor::sleep_until(when);
          for (const auto& [wi, replica] : ended) by_index_[static_cast<size_t>(wi)]->restart_replica(replica);
        });
      }
    }
  }

  int workload_index(const std::string& name) const {
    for (size_t i = 0; i < spec_.workloads.size(); ++i)
      if (spec_.workloads[i].name == name) return static_cast<int>(i);
    return -1;
  }

  void end_of_run() {
    sg4::this_actor::sleep_until(ctx_.hard_end);
    ctx_.stopping = true;
    const double now = sg4::Engine::get_clock();
    for (auto& w : workloads_) w->finish(now);
    for (auto& g : gpus_) g->end_of_run(now);
    ctx_.emit({.time = now, .type = EventType::RUN_END});
    sg4::Actor::kill_all();
  }

  // ---- The run-time budget (RunOptions::max_events, max_memory_bytes). Checked on every event; the stop
  // itself runs in the budget actor, woken from the first actor that observes the excess (an event emitted
  // outside any actor only records it).
  void check_budget() {
    if (!budget_cv_) return;
    if (stop_reason_.empty()) {
      const double events = static_cast<double>(result_.log.size());
      if (options_.max_events > 0 && events > options_.max_events) {
        stop_reason_ = "more than --max-events " + format_printf("%.6g", options_.max_events) + " events";
      } else if (options_.max_memory_bytes > 0 && result_.log.size() % 65536 == 0) {
        const double resident = resident_memory_bytes();
        if (resident > options_.max_memory_bytes)
          stop_reason_ = "resident memory " + format_printf("%.0f MiB", resident / (1 << 20)) + " over --max-memory " +
                         format_printf("%.0f MiB", options_.max_memory_bytes / (1 << 20));
      }
    }
    if (!stop_reason_.empty() && !budget_woken_ && sg4::Actor::self() != nullptr) {
      budget_woken_ = true;
      budget_cv_->notify_all();
    }
  }

  void budget_guard() {
    {
      std::unique_lock lock(*budget_mutex_);
      while (!budget_woken_) budget_cv_->wait(lock);
    }  // unlocked before kill_all: a daemon left alone is killed at its next simcall
    if (ctx_.stopping) return;
    ctx_.stopping = true;
    const double now = sg4::Engine::get_clock();
    for (auto& w : workloads_) w->finish(now);
    for (auto& g : gpus_) g->end_of_run(now);
    ctx_.emit({.time = now, .type = EventType::RUN_END});
    result_.stopped_early = stop_reason_;
    sg4::Actor::kill_all();
  }

  void progress() {
    const double step = ctx_.hard_end / 100.0;
    for (int i = 1; i <= 100; ++i) {
      sg4::this_actor::sleep_until(step * i);
      Progress p;
      p.sim_time = sg4::Engine::get_clock();
      p.sim_end = ctx_.hard_end;
      p.events = result_.log.size();
      p.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
      options_.on_progress(p);
    }
  }

  const ScenarioSpec& spec_;
  const ProfileSet& profiles_;
  const RunOptions& options_;
  RunResult& result_;
  std::vector<IdentityHappening> identity_plan_;  // what the identity actor replays
  SimContext ctx_;
  std::unique_ptr<sg4::Engine> engine_;
  sg4::Host* controller_host_ = nullptr;
  std::vector<std::unique_ptr<GpuDevice>> gpus_;
  std::deque<HardwareProfile> instance_profiles_;  // MIG instances' derived profiles (stable addresses)
  std::vector<NodeHosts> nodes_;
  fabric::Topology topology_;
  std::unique_ptr<fabric::Platform> platform_;
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::vector<Workload*> by_index_ = std::vector<Workload*>(spec_.workloads.size(), nullptr);
  std::unique_ptr<policy::PlacementPolicy> policy_;
  std::optional<QuotaBook> quota_;      // when a tenant has a quota
  std::vector<size_t> pending_;         // workloads waiting for quota, in submission order
  std::set<const Workload*> released_;  // training instances whose GPUs went back
  sg4::MutexPtr quota_mutex_;
  sg4::ConditionVariablePtr quota_cv_;
  sg4::MutexPtr budget_mutex_;  // the run-time budget (check_budget)
  sg4::ConditionVariablePtr budget_cv_;
  std::string stop_reason_;  // the budget the run went past; empty while within it
  bool budget_woken_ = false;
  std::vector<Enforcer> enforcers_;      // compliance rules with action enforce, in spec order
  std::vector<char> refused_device_;     // choose_gpus: devices an enforcer refuses for the decision at hand (else 0)
  std::vector<std::string> gpu_region_;  // region of each device's node pool
  std::set<std::tuple<size_t, int, size_t>> trial_refusals_;  // (workload, replica, enforcer) recorded by a trial
  policy::ClusterView view_;  // the placement policy's view, kept up to date by placements and reconfigurations
  bool check_placement_index_ = false;  // GPUTWIN_CHECK_PLACEMENT_INDEX=1 (place_by_policy)
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace

RunResult run_simulation(const ScenarioSpec& spec, const ProfileSet& profiles, const RunOptions& options) {
  RunResult result;
  {
    // Every actor has ended when run() returns (the end actor kills the rest), so the simulation
    // and its SimGrid engine can be torn down here.
    Simulation sim(spec, profiles, options, result);
    sim.run();
  }
  return result;
}

}  // namespace gtw
