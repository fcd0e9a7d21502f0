#include "sim/engine/Engine.hpp"

#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "models/SimContext.hpp"
#include "models/gpu/GpuDevice.hpp"
#include "models/workload/Runtime.hpp"
#include "models/workload/Workload.hpp"
#include "policies/api/Placement.hpp"

namespace sg4 = simgrid::s4u;

namespace gtw {
namespace {

// How often a reconfiguration checks whether the drained replicas have finished their work.
constexpr double DRAIN_POLL_SECONDS = 0.01;

struct NodeHosts {
  sg4::Host* cpu = nullptr;
};

class Simulation {
 public:
  Simulation(const ScenarioSpec& spec, const ProfileSet& profiles, const RunOptions& options, RunResult& result)
      : spec_(spec), profiles_(profiles), options_(options), result_(result), ctx_{spec, result.log, {}, 0, 0, false} {}

  void run() {
    char arg0[] = "gputwin";
#ifdef GTW_SANITIZER_BUILD
    // ucontext actors with stacks under ASan's 4 MiB limit: ASan intercepts swapcontext and clears the
    // target stack's shadow, which it cannot do for SimGrid's default (raw, assembly) switches.
    // (Thread contexts were tried: they deadlock in the reconfiguration tests and are 10x slower.)
    char arg1[] = "--log=root.thresh:critical";  // before the --cfg, so the changes are not logged
    char arg2[] = "--cfg=contexts/factory:ucontext";
    char arg3[] = "--cfg=contexts/stack-size:2048";
    int argc = 4;
    char* argv[] = {arg0, arg1, arg2, arg3, nullptr};
#else
    int argc = 1;
    char* argv[] = {arg0, nullptr};
#endif
    engine_ = std::make_unique<sg4::Engine>(&argc, argv);
    // CM02 without cross-traffic: transfers take exactly size / bandwidth, so analytic checks hold
    // (the LV08 default adds a 0.97 bandwidth factor, latency x 13.01 and 5% reverse traffic).
    xbt_log_control_set("root.thresh:critical");
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");

    ctx_.arrivals_end = spec_.duration.value;
    ctx_.hard_end = spec_.duration.value + (options_.drain >= 0 ? options_.drain : default_drain());
    build_platform();
    ctx_.emit(0, EventType::RUN_START, -1, -1, -1, -1, spec_.duration.value);

    for (auto& gpu : gpus_) gpu->start();
    policy_ = policy::builtin_placement_registry().create(spec_.placement.name, spec_.placement.params);
    view_ = make_view();
    sg4::Actor::create("controller", controller_host_, [this] { controller(); });
    sg4::Actor::create("end", controller_host_, [this] { end_of_run(); });
    if (!spec_.faults.empty()) sg4::Actor::create("faults", controller_host_, [this] { inject_faults(); });
    if (!spec_.reconfigurations.empty())
      sg4::Actor::create("reconfigurations", controller_host_, [this] { reconfigure(); });
    if (options_.on_progress) sg4::Actor::create("progress", controller_host_, [this] { progress(); })->daemonize();

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
    int global_node = 0;
    for (size_t p = 0; p < spec_.node_pools.size(); ++p) {
      const auto& pool = spec_.node_pools[p];
      const HardwareProfile& profile = profiles_.at(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key);
      for (int n = 0; n < pool.count; ++n, ++global_node) {
        const std::string node_name = pool.name + "-" + std::to_string(n);
        auto* zone = sg4::create_full_zone(node_name);
        zone->set_parent(root);
        auto* cpu = zone->create_host(node_name, 1e12);
        auto* nvswitch = zone->create_router(node_name + "-nvswitch");
        struct DeviceHosts {
          sg4::Host* sms;
          sg4::SplitDuplexLink* pcie;
          sg4::SplitDuplexLink* nvlink;  // null for MIG instances: no P2P between instances
        };
        std::vector<DeviceHosts> devices;
        for (int g = 0; g < pool.gpus_per_node; ++g) {
          const std::string gname = node_name + "-gpu" + std::to_string(g);
          const SharingSpec& sharing = pool.sharing_for(g);
          // Per physical GPU: a PCIe link to the host (host to GPU is its UP direction) and an
          // NVLink to the node's NVSwitch. MIG instances share both; only whole GPUs use NVLink P2P.
          auto* pcie = zone->create_split_duplex_link(gname + "-pcie", profile.pcie_h2d_achievable.value);
          pcie->set_latency(PCIE_LATENCY_SECONDS);
          pcie->get_link_up()->set_bandwidth(profile.pcie_h2d_achievable.value);
          pcie->get_link_down()->set_bandwidth(profile.pcie_d2h_achievable.value);
          auto* nvlink = zone->create_split_duplex_link(gname + "-nvlink", profile.nvlink_achievable.value);
          nvlink->set_latency(0);

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
            // Cores are SMs; the host's total speed is the achievable FP16 tensor rate.
            auto* sms =
                zone->create_host(part.name, dp.achievable_rate(DType::FP16).value / dp.sms)->set_core_count(dp.sms);
            // HBM: a host whose speed is the achievable bandwidth; a kernel's bytes are work on it.
            // Its pstates are the bandwidths left under shared-L2 pressure (GpuDevice::update_l2_pressure).
            auto* hbm = zone->create_host(part.name + "-hbm", hbm_pstate_speeds(dp));
            zone->add_route(cpu->get_netpoint(), sms->get_netpoint(), nullptr, nullptr,
                            {sg4::LinkInRoute(pcie, sg4::LinkInRoute::Direction::UP)}, false);
            zone->add_route(sms->get_netpoint(), cpu->get_netpoint(), nullptr, nullptr,
                            {sg4::LinkInRoute(pcie, sg4::LinkInRoute::Direction::DOWN)}, false);
            const bool whole = part.mig_profile.empty();
            devices.push_back({sms, pcie, whole ? nvlink : nullptr});
            const int global_index = static_cast<int>(gpus_.size());
            gpus_.push_back(std::make_unique<GpuDevice>(global_index, global_node, g, sms, hbm, dp, sharing, ctx_));
            GpuLayout layout;
            layout.index = global_index;
            layout.node = global_node;
            layout.local = g;
            layout.node_name = node_name;
            layout.pool = pool.name;
            layout.product = pool.gpu_product;
            layout.sharing = sharing_mode_name(sharing.mode);
            const bool shared = sharing.mode == SharingMode::TIME_SLICING || sharing.mode == SharingMode::MPS ||
                                sharing.mode == SharingMode::VGPU;
            layout.slots = shared ? sharing.replicas : 1;
            layout.memory = dp.memory.value;
            layout.mig_profile = part.mig_profile;
            layout.mig_start = part.mig_start;
            layout.layout_generation = part.generation;
            layout.available_from = part.generation == 0 ? 0.0 : -1.0;
            result_.gpus.push_back(layout);
          }
          if (parts.size() == 1 && parts[0].mig_profile.empty()) {
            zone->add_route(devices.back().sms->get_netpoint(), nvswitch, nullptr, nullptr,
                            {sg4::LinkInRoute(nvlink, sg4::LinkInRoute::Direction::UP)}, false);
            zone->add_route(nvswitch, devices.back().sms->get_netpoint(), nullptr, nullptr,
                            {sg4::LinkInRoute(nvlink, sg4::LinkInRoute::Direction::DOWN)}, false);
          }
        }
        // Device to device: whole GPUs through the NVSwitch (sender's NVLink up, receiver's down);
        // anything involving a MIG instance through host memory over PCIe (MIG has no P2P).
        for (size_t a = 0; a < devices.size(); ++a) {
          for (size_t b = 0; b < devices.size(); ++b) {
            if (a == b) continue;
            if (devices[a].nvlink && devices[b].nvlink) {
              zone->add_route(devices[a].sms->get_netpoint(), devices[b].sms->get_netpoint(), nullptr, nullptr,
                              {sg4::LinkInRoute(devices[a].nvlink, sg4::LinkInRoute::Direction::UP),
                               sg4::LinkInRoute(devices[b].nvlink, sg4::LinkInRoute::Direction::DOWN)},
                              false);
            } else {
              std::vector<sg4::LinkInRoute> hops{sg4::LinkInRoute(devices[a].pcie, sg4::LinkInRoute::Direction::DOWN)};
              hops.emplace_back(devices[b].pcie, sg4::LinkInRoute::Direction::UP);
              zone->add_route(devices[a].sms->get_netpoint(), devices[b].sms->get_netpoint(), nullptr, nullptr, hops,
                              false);
            }
          }
        }
        zone->seal();
        nodes_.push_back(NodeHosts{cpu});
      }
    }
    root->seal();
    for (const auto& [name, profile] : profiles_) result_.profile_sha256.push_back(name + ":" + profile.sha256);
  }

  policy::ClusterView make_view() const {
    policy::ClusterView view;
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
      g.available = layout.available_from >= 0;
      view.gpus.push_back(g);
    }
    return view;
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
    policy::PlacementRequest req;
    req.workload = static_cast<int>(w);
    req.replica = r;
    req.tenant = ws.tenant_index;
    req.gpus = ws.gpus;
    req.memory = workload_memory(ws);
    req.allowed_sharing = runtime_sharing_modes(ws);
    req.node_pool = ws.node_pool;
    req.mig_profile = ws.mig_profile;
    auto chosen = policy_->place(req, view_);
    const double now = sg4::Engine::get_clock();
    if (!chosen || static_cast<int>(chosen->size()) != ws.gpus) {
      ctx_.emit(now, EventType::PLACEMENT_FAILED, ws.tenant_index, static_cast<int>(w), r, -1, req.memory);
      ctx_.emit(now, EventType::WORKLOAD_FAILED, ws.tenant_index, static_cast<int>(w), r, -1, 0,
                static_cast<double>(FailureReason::NOT_PLACED));
      return std::nullopt;
    }
    ReplicaPlacement place;
    for (int g : *chosen) {
      auto& gv = view_.gpus[static_cast<size_t>(g)];
      gv.used_slots += 1;
      gv.memory_committed += req.memory;
      gv.tenants.push_back(ws.tenant_index);
      place.gpus.push_back(gpus_[static_cast<size_t>(g)].get());
      place.contexts.push_back(gpus_[static_cast<size_t>(g)]->add_context(ws.tenant_index, static_cast<int>(w), r));
      ctx_.emit(now, EventType::PLACED, ws.tenant_index, static_cast<int>(w), r, g, req.memory);
    }
    place.node_cpu = nodes_[static_cast<size_t>(place.gpus[0]->node())].cpu;
    return place;
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
      const int n_replicas = ws.kind == WorkloadKind::TRAINING ? 1 : ws.replicas;
      std::vector<ReplicaPlacement> placements;
      for (int r = 0; r < n_replicas; ++r) {
        if (auto place = place_replica(w, r)) placements.push_back(std::move(*place));
      }
      if (placements.empty() && ws.kind == WorkloadKind::TRAINING) continue;
      workloads_.push_back(make_workload(ctx_, static_cast<int>(w), std::move(placements)));
      by_index_[w] = workloads_.back().get();
      workloads_.back()->start();
    }
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
      for (int d : old_devices) view_.gpus[static_cast<size_t>(d)].available = false;
      ctx_.emit(start, EventType::RECONFIGURE_START, -1, -1, static_cast<int>(i), -1,
                static_cast<double>(evicted.size()), static_cast<double>(physical.size()));
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
        result_.gpus[static_cast<size_t>(d)].available_from = up;
      }
      int replaced = 0;
      for (const auto& [w, r] : evicted) {
        if (spec_.workloads[w].kind == WorkloadKind::TRAINING) continue;
        auto place = place_replica(w, r);
        if (place && by_index_[w]->move_replica(r, std::move(*place))) ++replaced;
      }
      ctx_.emit(up, EventType::RECONFIGURE_DONE, -1, -1, static_cast<int>(i), -1, replaced, start);
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
      sg4::this_actor::sleep_until(f.at.value);
      const int w = workload_index(f.workload);
      Workload* target = w >= 0 ? by_index_[static_cast<size_t>(w)] : nullptr;
      const ReplicaPlacement* place = target ? target->placement(f.replica) : nullptr;
      const double now = sg4::Engine::get_clock();
      if (!place || place->gpus.empty()) {
        ctx_.emit(now, EventType::GPU_FAULT, spec_.workloads[static_cast<size_t>(w)].tenant_index, w, f.replica, -1, 0);
        continue;
      }
      GpuDevice& gpu = *place->gpus[0];
      const bool whole_gpu = gpu.fault_domain_is_whole_gpu();
      std::vector<std::pair<int, int>> ended;  // (workload, replica)
      for (int id : gpu.fault_domain(place->contexts[0])) {
        const auto& c = gpu.contexts()[static_cast<size_t>(id)];
        ended.emplace_back(c.workload, c.replica);
      }
      ctx_.emit(now, EventType::GPU_FAULT, spec_.workloads[static_cast<size_t>(w)].tenant_index, w, f.replica,
                gpu.index(), static_cast<double>(ended.size()), whole_gpu ? 1.0 : 0.0);
      for (const auto& [wi, replica] : ended) by_index_[static_cast<size_t>(wi)]->kill_replica(replica);
      if (f.restart_after.value >= 0) {
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
    ctx_.emit(now, EventType::RUN_END, -1, -1, -1, -1);
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
  SimContext ctx_;
  std::unique_ptr<sg4::Engine> engine_;
  sg4::Host* controller_host_ = nullptr;
  std::vector<std::unique_ptr<GpuDevice>> gpus_;
  std::deque<HardwareProfile> instance_profiles_;  // MIG instances' derived profiles (stable addresses)
  std::vector<NodeHosts> nodes_;
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::vector<Workload*> by_index_ = std::vector<Workload*>(spec_.workloads.size(), nullptr);
  std::unique_ptr<policy::PlacementPolicy> policy_;
  policy::ClusterView view_;  // the placement policy's view, kept up to date by placements and reconfigurations
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
