#include "sim/engine/Engine.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "models/SimContext.hpp"
#include "models/gpu/GpuDevice.hpp"
#include "models/workload/Workload.hpp"
#include "policies/api/Placement.hpp"

namespace sg4 = simgrid::s4u;

namespace gtw {
namespace {

struct NodeHosts {
  sg4::Host* cpu = nullptr;
};

class Simulation {
 public:
  Simulation(const ScenarioSpec& spec, const ProfileSet& profiles, const RunOptions& options, RunResult& result)
      : spec_(spec), profiles_(profiles), options_(options), result_(result), ctx_{spec, result.log, {}, 0, 0, false} {}

  void run() {
    int argc = 1;
    char arg0[] = "gputwin";
    char* argv[] = {arg0, nullptr};
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
    sg4::Actor::create("controller", controller_host_, [this] { controller(); });
    sg4::Actor::create("end", controller_host_, [this] { end_of_run(); });
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
  double default_drain() const { return std::max(30.0, 0.25 * spec_.duration.value); }

  void build_platform() {
    auto* root = sg4::create_full_zone("cluster");
    controller_host_ = root->create_host("controller", 1e9);
    int global_node = 0;
    for (size_t p = 0; p < spec_.node_pools.size(); ++p) {
      const auto& pool = spec_.node_pools[p];
      const HardwareProfile& profile = profiles_.at(pool.gpu_product);
      for (int n = 0; n < pool.count; ++n, ++global_node) {
        const std::string node_name = pool.name + "-" + std::to_string(n);
        auto* zone = sg4::create_full_zone(node_name);
        zone->set_parent(root);
        auto* cpu = zone->create_host(node_name, 1e12);
        auto* nvswitch = zone->create_router(node_name + "-nvswitch");
        std::vector<sg4::Host*> gpu_hosts;
        std::vector<sg4::SplitDuplexLink*> nvlinks;
        for (int g = 0; g < pool.gpus_per_node; ++g) {
          const std::string gname = node_name + "-gpu" + std::to_string(g);
          // Cores are SMs; the host's total speed is the achievable FP16 tensor rate.
          auto* sms = zone->create_host(gname, profile.achievable_rate(DType::FP16).value / profile.sms)
                          ->set_core_count(profile.sms);
          // HBM: a host whose speed is the achievable bandwidth; a kernel's bytes are work on it.
          auto* hbm = zone->create_host(gname + "-hbm", profile.hbm_achievable.value);
          auto* pcie = zone->create_split_duplex_link(gname + "-pcie", profile.pcie_h2d_achievable.value);
          pcie->set_latency(PCIE_LATENCY_SECONDS);
          auto* nvlink = zone->create_split_duplex_link(gname + "-nvlink", profile.nvlink_achievable.value);
          nvlink->set_latency(0);
          // Host to GPU is the UP direction of the PCIe link (H2D), GPU to host the DOWN one.
          zone->add_route(cpu->get_netpoint(), sms->get_netpoint(), nullptr, nullptr,
                          {sg4::LinkInRoute(pcie, sg4::LinkInRoute::Direction::UP)}, false);
          zone->add_route(sms->get_netpoint(), cpu->get_netpoint(), nullptr, nullptr,
                          {sg4::LinkInRoute(pcie, sg4::LinkInRoute::Direction::DOWN)}, false);
          zone->add_route(sms->get_netpoint(), nvswitch, nullptr, nullptr,
                          {sg4::LinkInRoute(nvlink, sg4::LinkInRoute::Direction::UP)}, false);
          zone->add_route(nvswitch, sms->get_netpoint(), nullptr, nullptr,
                          {sg4::LinkInRoute(nvlink, sg4::LinkInRoute::Direction::DOWN)}, false);
          pcie->get_link_up()->set_bandwidth(profile.pcie_h2d_achievable.value);
          pcie->get_link_down()->set_bandwidth(profile.pcie_d2h_achievable.value);
          gpu_hosts.push_back(sms);
          nvlinks.push_back(nvlink);
          const int global_index = static_cast<int>(gpus_.size());
          const SharingSpec& sharing = pool.sharing_for(g);
          gpus_.push_back(std::make_unique<GpuDevice>(global_index, global_node, g, sms, hbm, profile, sharing, ctx_));
          GpuLayout layout;
          layout.index = global_index;
          layout.node = global_node;
          layout.local = g;
          layout.node_name = node_name;
          layout.pool = pool.name;
          layout.product = pool.gpu_product;
          layout.sharing = sharing_mode_name(sharing.mode);
          layout.slots = sharing.mode == SharingMode::TIME_SLICING ? sharing.replicas : 1;
          layout.memory = profile.memory.value;
          result_.gpus.push_back(layout);
        }
        // GPU to GPU through the NVSwitch: the sender's NVLink up, the receiver's NVLink down.
        for (size_t a = 0; a < gpu_hosts.size(); ++a) {
          for (size_t b = 0; b < gpu_hosts.size(); ++b) {
            if (a == b) continue;
            zone->add_route(gpu_hosts[a]->get_netpoint(), gpu_hosts[b]->get_netpoint(), nullptr, nullptr,
                            {sg4::LinkInRoute(nvlinks[a], sg4::LinkInRoute::Direction::UP),
                             sg4::LinkInRoute(nvlinks[b], sg4::LinkInRoute::Direction::DOWN)},
                            false);
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
      view.gpus.push_back(g);
    }
    return view;
  }

  // Starts each workload at its start time: placement, then the workload's own actors.
  void controller() {
    auto policy = policy::builtin_placement_registry().create(spec_.placement.name, spec_.placement.params);
    auto view = make_view();
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
        policy::PlacementRequest req;
        req.workload = static_cast<int>(w);
        req.replica = r;
        req.tenant = ws.tenant_index;
        req.gpus = ws.gpus;
        req.memory = workload_memory(ws);
        req.allowed_sharing = ws.allowed_sharing;
        req.node_pool = ws.node_pool;
        auto chosen = policy->place(req, view);
        const double now = sg4::Engine::get_clock();
        if (!chosen || static_cast<int>(chosen->size()) != ws.gpus) {
          ctx_.emit(now, EventType::PLACEMENT_FAILED, ws.tenant_index, static_cast<int>(w), r, -1, req.memory);
          ctx_.emit(now, EventType::WORKLOAD_FAILED, ws.tenant_index, static_cast<int>(w), r, -1, 0,
                    static_cast<double>(FailureReason::NOT_PLACED));
          continue;
        }
        ReplicaPlacement place;
        for (int g : *chosen) {
          auto& gv = view.gpus[static_cast<size_t>(g)];
          gv.used_slots += 1;
          gv.memory_committed += req.memory;
          gv.tenants.push_back(ws.tenant_index);
          place.gpus.push_back(gpus_[static_cast<size_t>(g)].get());
          place.contexts.push_back(gpus_[static_cast<size_t>(g)]->add_context(ws.tenant_index, static_cast<int>(w), r));
          ctx_.emit(now, EventType::PLACED, ws.tenant_index, static_cast<int>(w), r, g, req.memory);
        }
        place.node_cpu = nodes_[static_cast<size_t>(place.gpus[0]->node())].cpu;
        placements.push_back(std::move(place));
      }
      if (placements.empty() && ws.kind == WorkloadKind::TRAINING) continue;
      workloads_.push_back(make_workload(ctx_, static_cast<int>(w), std::move(placements)));
      workloads_.back()->start();
    }
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
  std::vector<NodeHosts> nodes_;
  std::vector<std::unique_ptr<Workload>> workloads_;
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
