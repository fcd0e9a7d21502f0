#pragma once
// The cluster's network and I/O topology as Boost.Graph graphs, independent of SimGrid
// (docs/models/fabric.md). One graph per node pool for the inside of a node (GPUs, NVSwitch,
// PCIe switches, host CPU, NICs, local NVMe) and one for the fabric between nodes (node ports,
// leaf and spine switches, storage systems, the front end). models/fabric/Platform turns them into
// the SimGrid platform; routes are shortest paths computed here.

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "Diagnostics.hpp"
#include "HardwareProfile.hpp"
#include "Scenario.hpp"

namespace gtw::fabric {

enum class VertexKind {
  CPU,
  GPU,
  NVSWITCH,
  PCIE_SWITCH,
  NIC,
  NVME,
  NODE_PORT,
  FRONTEND_PORT,
  LEAF,
  SPINE,
  CORE,
  STORAGE,
  FRONTEND
};
enum class LinkKind { NVLINK, PCIE, NIC, NVME, FABRIC, STORAGE, FRONTEND, SOCKET };
const char* vertex_kind_name(VertexKind k);
const char* link_kind_name(LinkKind k);

struct Vertex {
  VertexKind kind = VertexKind::CPU;
  std::string name;  // within a node graph: a suffix (gpu3, pcie1, nic0); in the fabric graph: the full name
  int index = -1;    // GPU: local index; NIC: NIC index; node port: global node; storage: store index
};

/// A full-duplex link. "Up" is the direction from `from` to the other end.
struct Link {
  LinkKind kind = LinkKind::PCIE;
  std::string name;    // suffix within a node graph, full name in the fabric graph
  int from = -1;       // vertex the up direction leaves
  int to = -1;         // the other end
  double up = 0;       // bytes/s
  double down = 0;     // bytes/s
  double latency = 0;  // s
  double weight = 1;   // routing cost (hops, then a preference for fast links)
  int index = -1;      // position in the graph's link list
};

/// The Boost.Graph adjacency list of Vertex and Link (TopologyGraph.hpp). Opaque here, so that the files
/// that include Topology.hpp do not parse Boost.Graph: only the topology code and the platform builder walk it.
struct Graph;

/// One link of a path, with the direction it is crossed in.
struct Hop {
  int link = -1;  // index into the graph's link list (Topology::links_of)
  bool up = true;
};
using Path = std::vector<Hop>;

/// The inside of a node: one instance per node pool (all nodes of a pool are alike).
struct NodeGraph {
  NodeGraph();
  ~NodeGraph();
  NodeGraph(NodeGraph&&) noexcept;
  NodeGraph& operator=(NodeGraph&&) noexcept;
  Graph& g() { return *graph_; }
  const Graph& g() const { return *graph_; }

  std::string template_name;    // flat, hgx-h100, hgx-h200, pcie-l40s, nvidia-smi
  std::vector<Link> links;      // by link index (the graph's edges carry copies)
  int cpu = -1;                 // socket 0 (the only one on single-socket nodes)
  std::vector<int> sockets;     // CPU socket vertices, sockets[0] == cpu; each socket's memory is its own
  std::vector<int> gpu_socket;  // per GPU: the socket its PCIe attaches to (its NUMA node)
  int socket_link = -1;         // link index of the inter-socket link (UPI / xGMI), -1 with one socket
  int nvswitch = -1;
  int port = -1;           // the node's fabric port (all NICs)
  int frontend_port = -1;  // the node's front-end network port
  int nvme = -1;
  std::vector<int> gpus;                 // by local GPU index
  std::vector<int> nics;                 // by NIC index
  std::vector<std::string> nic_devices;  // per NIC: the device it stands for when imported (mlx5_0), else ""
  std::vector<int> gpu_nic;              // per GPU: the NIC it uses (PCIe affinity)
  double nic_bandwidth = 0;
  double nvme_read = 0, nvme_write = 0;
  std::map<int, std::vector<std::string>> mig_layouts;  // per GPU index, for describe() (gputwin import-topo)

  /// Shortest path between two vertices (fewest hops, then the fastest links); NVLink skipped when
  /// `nvlink` is false (MIG instances have no P2P). Empty when unreachable or from == to.
  Path path(int from, int to, bool nvlink = true) const;
  const Link& link(int i) const { return links[static_cast<size_t>(i)]; }
  /// Per local GPU: its NVLink domain, the lowest GPU index it reaches over NVLink links and NVSwitches alone;
  /// -1 for a GPU without NVLink. Two GPUs of one domain have NVLink peer access (the NVLink channels).
  std::vector<int> nvlink_domains() const;
  mutable std::map<std::tuple<int, int, bool>, Path> paths;  // cache: every node of the pool asks the same

 private:
  std::unique_ptr<Graph> graph_;
};

/// The network between nodes, storage and the front end.
struct FabricGraph {
  FabricGraph();
  ~FabricGraph();
  FabricGraph(FabricGraph&&) noexcept;
  FabricGraph& operator=(FabricGraph&&) noexcept;
  Graph& g() { return *graph_; }
  const Graph& g() const { return *graph_; }

  std::vector<Link> links;
  std::vector<int> node_port;  // by global node
  std::vector<int> store;      // by storage index
  std::vector<int> spines;
  // railOptimized: NIC j of node n is the vertex rail_port[n][j], cabled to its group's rail-j leaf
  // rail_leaf[group][j]; groups are `nodesPerLeaf` consecutive nodes.
  bool rails = false;
  std::vector<std::vector<int>> rail_port;
  std::vector<std::vector<int>> rail_leaf;
  std::vector<int> group_of;  // by global node
  int core = -1;              // singleSwitch
  int frontend = -1;          // the clients
  /// Path from one vertex to another; between two leaves of a fat tree the spine is chosen by
  /// `ecmp_key` modulo the spine count (d-mod-k static routing). Shortest-path trees are cached.
  Path path(int from, int to, int ecmp_key) const;
  mutable std::map<int, std::vector<int>> trees;  // source vertex -> predecessor link per vertex (-1: none)
  const Link& link(int i) const { return links[static_cast<size_t>(i)]; }

 private:
  std::unique_ptr<Graph> graph_;
};

struct NodeRef {
  int pool = 0;
  int index_in_pool = 0;
  std::string name;  // pool-N
};

struct Topology {
  std::vector<NodeGraph> pools;  // by node pool index
  std::vector<NodeRef> nodes;    // by global node index
  FabricGraph fabric;
  bool inter_node = false;  // routes between nodes are needed (a fabric is declared or a job spans nodes)
  bool storage = false;     // shared storage exists
  bool frontend = false;    // some service sends requests over the front-end network
  bool local_nvme = false;  // some data lives on local NVMe
};

/// The built-in node templates, by name.
const std::vector<std::string>& node_template_names();

/// Builds the node graph of a pool from its template (or imported nvidia-smi topology) and profile.
/// Problems (unknown template, GPU count mismatch) are reported at the pool's topology location.
bool build_node_graph(const NodePoolSpec& pool, const HardwareProfile& profile, const std::string& path, NodeGraph& out,
                      Diagnostics& diags);
/// Builds the whole topology; checks connectivity (every GPU reaches its host and, when storage exists,
/// every store). False with diagnostics on problems.
bool build_topology(const ScenarioSpec& spec, const std::map<std::string, HardwareProfile>& profiles, Topology& out,
                    Diagnostics& diags);

struct SmiTopo;
/// The node graph described by a parsed `nvidia-smi topo -m` (docs/models/fabric.md, "Import"):
/// NV# between every GPU pair -> an NVSwitch with NV# links per GPU, otherwise direct NVLinks;
/// devices joined by PIX/PXB share a PCIe switch; NICs as listed.
/// Sockets: devices not joined by SYS share a NUMA node; NUMA nodes become sockets one to one, except that
/// more than two NUMA nodes are read as `spec.sockets` sockets (default 2, with a warning: NPS / SNC split
/// a socket into NUMA nodes numbered socket by socket). Returns the warnings (ambiguous captures).
std::vector<std::string> node_graph_from_topo(const SmiTopo& topo, const HardwareProfile& profile,
                                              const NodeTopologySpec& spec, NodeGraph& out);

/// A human-readable listing of a node graph (for `gputwin import-topo`).
std::string describe(const NodeGraph& node);

}  // namespace gtw::fabric
