#pragma once
// Turns the topology graphs (models/hardware/Topology.hpp) into the SimGrid platform: one full zone per
// node (host CPU, devices, routers for switches and ports, split-duplex links, local NVMe disk), one
// zone per storage system (servers with disks), a front-end zone, and routes between them computed on
// the graphs. The engine creates the devices (GPUs, MIG instances) itself and registers them here.
#include <simgrid/s4u.hpp>

#include <map>
#include <string>
#include <vector>

#include "Topology.hpp"

namespace gtw::fabric {

namespace sg4 = simgrid::s4u;

/// Where a transfer starts or ends, for the SimGrid platform.
struct NodeParts {
  sg4::NetZone* zone = nullptr;
  // Host memory, NUMA-local: its route to a device starts at the device's own socket (what a NUMA-aware
  // runtime does). `sockets[s]` is the memory of socket s, routed as it is wired (crossing the
  // inter-socket link to a device on the other socket); sockets[0] == cpu on single-socket nodes.
  sg4::Host* cpu = nullptr;
  std::vector<sg4::Host*> sockets;
  sg4::Host* nvme = nullptr;  // hosts the local NVMe disk
  sg4::Disk* nvme_disk = nullptr;
  struct Device {
    sg4::Host* host;
    int local_gpu;
    bool whole;  // false for a MIG instance (no NVLink P2P)
  };
  std::vector<Device> devices;
  std::vector<sg4::Link*> links;  // by node-graph link index (split-duplex)
};

struct StoreParts {
  sg4::NetZone* zone = nullptr;
  std::vector<sg4::Host*> servers;
  std::vector<sg4::Disk*> disks;
};

class Platform {
 public:
  Platform(const Topology& topo, const ScenarioSpec& spec, sg4::NetZone* root);

  /// Creates the node's zone, host CPU, routers, links and NVMe disk. The zone joins the platform's root only
  /// in finish(): SimGrid 3.32 checks each new host's and link's name against every zone under the root, one
  /// zone after the other, so nodes built under the root cost the square of their count (3 s of a 10,000-GPU
  /// platform); a zone not yet under the root is checked alone.
  NodeParts& begin_node(int node);
  /// A device (GPU or MIG instance) of the node, created by the engine in the node's zone.
  void add_device(int node, int local_gpu, sg4::Host* host, bool whole);
  /// Adds the node's routes.
  void end_node(int node);
  /// Puts the nodes' zones under the root (in node order) and seals them; then the storage and front-end zones,
  /// fabric links and the routes between zones. Call after every node.
  void finish();

  const NodeParts& node(int n) const { return nodes_.at(static_cast<size_t>(n)); }
  const StoreParts& store(int k) const { return stores_.at(static_cast<size_t>(k)); }
  sg4::Host* frontend() const { return frontend_; }
  const Topology& topology() const { return topo_; }
  /// Global node index of a device host (-1 if unknown).
  int node_of(const sg4::Host* host) const;
  /// Names of the links a transfer from a to b crosses, sorted (shared resources on the path).
  static std::vector<std::string> route_links(sg4::Host* a, sg4::Host* b);
  /// The legs a transfer from a to b is carried over, each a SimGrid route: {a, b} except on a
  /// railOptimized fabric between a node and another node or a store, where it leaves through the
  /// rail of a's NIC and arrives through the rail of b's (a -> a's rail port -> b's rail port -> b;
  /// docs/models/fabric.md).
  std::vector<std::pair<sg4::Host*, sg4::Host*>> legs(sg4::Host* a, sg4::Host* b) const;
  /// Rail port host of NIC `nic` of a node (railOptimized), nullptr otherwise.
  sg4::Host* rail_port(int node, int nic) const;

  struct Transfer {
    sg4::Host* from;
    sg4::Host* to;
    double bytes;
  };
  /// Seconds until the last of `transfers` ends when they start together on an otherwise idle platform:
  /// the "alone" time of a job's own communication, for its slowdown baseline. Each transfer is carried
  /// over its legs (legs()); each leg gets the max-min fair rate of its SimGrid route (a shared link split
  /// among the legs crossing it, a fat-pipe link capping each), recomputed whenever a leg ends, plus the
  /// longest route latency. This is SimGrid's CM02 model (the engine's) without its latency weighting of
  /// the shares, which is exact when the legs that meet on a link have equal latencies (a ring).
  double alone_seconds(const std::vector<Transfer>& transfers) const;

 private:
  sg4::Link* make_link(sg4::NetZone* zone, const std::string& name, const Link& l);
  void route(sg4::NetZone* zone, simgrid::kernel::routing::NetPoint* a, simgrid::kernel::routing::NetPoint* b,
             const std::vector<sg4::Link*>& links, const Path& path);
  void add_rails();

  const Topology& topo_;
  const ScenarioSpec& spec_;
  sg4::NetZone* root_;
  std::vector<NodeParts> nodes_;
  std::vector<std::map<int, simgrid::kernel::routing::NetPoint*>> node_points_;  // per node: graph vertex -> netpoint
  std::vector<StoreParts> stores_;
  std::vector<simgrid::kernel::routing::NetPoint*> store_gw_;
  sg4::NetZone* frontend_zone_ = nullptr;
  sg4::Host* frontend_ = nullptr;
  std::vector<sg4::Link*> fabric_links_;
  std::map<const sg4::Host*, int> node_of_;
  std::map<const sg4::Host*, int> nic_of_;           // host -> the NIC its off-node traffic uses
  std::vector<std::vector<sg4::Host*>> rail_ports_;  // railOptimized: [node][nic]
};

}  // namespace gtw::fabric
