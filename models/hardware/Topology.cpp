#include "Topology.hpp"
#include "TopologyGraph.hpp"

#include <boost/graph/connected_components.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

#include "NvidiaSmi.hpp"

namespace gtw::fabric {

NodeGraph::NodeGraph() : graph_(std::make_unique<Graph>()) {}
NodeGraph::~NodeGraph() = default;
NodeGraph::NodeGraph(NodeGraph&&) noexcept = default;
NodeGraph& NodeGraph::operator=(NodeGraph&&) noexcept = default;
FabricGraph::FabricGraph() : graph_(std::make_unique<Graph>()) {}
FabricGraph::~FabricGraph() = default;
FabricGraph::FabricGraph(FabricGraph&&) noexcept = default;
FabricGraph& FabricGraph::operator=(FabricGraph&&) noexcept = default;

const char* vertex_kind_name(VertexKind k) {
  switch (k) {
    case VertexKind::CPU:
      return "cpu";
    case VertexKind::GPU:
      return "gpu";
    case VertexKind::NVSWITCH:
      return "nvswitch";
    case VertexKind::PCIE_SWITCH:
      return "pcie-switch";
    case VertexKind::NIC:
      return "nic";
    case VertexKind::NVME:
      return "nvme";
    case VertexKind::NODE_PORT:
      return "node-port";
    case VertexKind::FRONTEND_PORT:
      return "frontend-port";
    case VertexKind::LEAF:
      return "leaf";
    case VertexKind::SPINE:
      return "spine";
    case VertexKind::CORE:
      return "core";
    case VertexKind::STORAGE:
      return "storage";
    case VertexKind::FRONTEND:
      return "frontend";
  }
  return "?";
}

const char* link_kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::NVLINK:
      return "nvlink";
    case LinkKind::PCIE:
      return "pcie";
    case LinkKind::NIC:
      return "nic";
    case LinkKind::NVME:
      return "nvme";
    case LinkKind::FABRIC:
      return "fabric";
    case LinkKind::STORAGE:
      return "storage";
    case LinkKind::FRONTEND:
      return "frontend";
    case LinkKind::SOCKET:
      return "socket";
  }
  return "?";
}

const std::vector<std::string>& node_template_names() {
  static const std::vector<std::string> names{"flat", "hgx-h100", "hgx-h200", "pcie-l40s"};
  return names;
}

namespace {

// Copy-engine efficiency of GPU-to-GPU copies across a PCIe switch: 26.35 GB/s of a Gen4 x16 link's
// 31.5 GB/s on RTX A6000 (NVIDIA/nvbandwidth#50; hardware.md section 3).
constexpr double PCIE_P2P_EFFICIENCY = 26.35 / 31.5;
// NVLink3/NVLink4: 25 GB/s per link and direction (hardware.md section 2).
constexpr double NVLINK_PER_LINK = 25e9;
// Inter-socket links, nominal per direction (docs/models/fabric.md, "CPU sockets"):
// Intel Xeon 4th gen (Sapphire Rapids, the Xeon 8480C of DGX H100/H200): 4 UPI 2.0 links at 16 GT/s,
// 2 bytes per transfer and direction -> 4 x 32 GB/s.
constexpr double UPI2_FOUR_LINKS = 4 * 16e9 * 2;
// AMD EPYC 9004: up to 4 xGMI links at 32 Gb/s per lane (Lenovo Press LP1852), x16 -> 4 x 64 GB/s.
constexpr double XGMI_FOUR_LINKS = 4 * 32e9 * 16 / 8;

int add_vertex(Graph& g, VertexKind kind, const std::string& name, int index = -1) {
  return static_cast<int>(boost::add_vertex(Vertex{kind, name, index}, g));
}

// Hop count first, then a small preference for fast links (NVLink over PCIe between two GPUs).
double link_weight(const Link& l) {
  const double bw = std::min(l.up, l.down);
  return 1.0 + (bw > 0 ? 1e9 / bw : 1e9);
}

int add_link(Graph& g, std::vector<Link>& links, int a, int b, LinkKind kind, const std::string& name, double up,
             double down, double latency) {
  Link l{kind, name, a, b, up, down, latency, 1, static_cast<int>(links.size())};
  l.weight = link_weight(l);
  boost::add_edge(static_cast<Graph::vertex_descriptor>(a), static_cast<Graph::vertex_descriptor>(b), l, g);
  links.push_back(l);
  return static_cast<int>(links.size() - 1);
}

// Shortest-path tree from `from`: for each vertex, the link it is reached by (-1: unreachable or root).
template <class G>
std::vector<int> shortest_tree(const G& fg, const Graph& g, int from) {
  const size_t n = boost::num_vertices(g);
  std::vector<int> pred_link(n, -1);
  if (from < 0) return pred_link;
  std::vector<double> dist(n, std::numeric_limits<double>::infinity());
  std::vector<Graph::vertex_descriptor> pred(n);
  struct Recorder : boost::default_dijkstra_visitor {
    std::vector<int>* pl = nullptr;
    void edge_relaxed(const typename boost::graph_traits<G>::edge_descriptor& e, const G& gg) {
      (*pl)[boost::target(e, gg)] = gg[e].index;
    }
  } rec;
  rec.pl = &pred_link;
  const auto index = boost::get(boost::vertex_index, g);
  boost::dijkstra_shortest_paths(fg, static_cast<Graph::vertex_descriptor>(from),
                                 boost::weight_map(boost::get(&Link::weight, fg))
                                     .distance_map(boost::make_iterator_property_map(dist.begin(), index))
                                     .predecessor_map(boost::make_iterator_property_map(pred.begin(), index))
                                     .visitor(rec));
  return pred_link;
}

Path extract_path(const std::vector<Link>& links, const std::vector<int>& tree, int from, int to) {
  if (from == to || from < 0 || to < 0) return {};
  Path path;
  int v = to;
  while (v != from) {
    const int li = tree[static_cast<size_t>(v)];
    if (li < 0) return {};
    const Link& l = links[static_cast<size_t>(li)];
    const int other = l.from == v ? l.to : l.from;
    // Crossed from `other` to `v`: up when the link's up direction leaves `other`.
    path.push_back(Hop{li, l.from == other});
    v = other;
    if (path.size() > links.size()) return {};
  }
  std::reverse(path.begin(), path.end());
  return path;
}

struct NoNvlink {
  const Graph* g = nullptr;
  bool operator()(const Graph::edge_descriptor& e) const { return (*g)[e].kind != LinkKind::NVLINK; }
};

// Defaults of a template (assumptions marked in docs/models/fabric.md).
struct TemplateDefaults {
  int nics = 1;
  double nic_bandwidth = 50e9;  // 400 Gb/s (CX-7 NDR)
  double nvme_read = 7e9;       // one Gen4 x4 drive (hardware.md section 3, secondary source)
  double nvme_write = 3.5e9;    // assumption (unverified): half the read rate
};

// CPU sockets: socket 0 is n.cpu; the others are joined to every other socket by an inter-socket link
// (UPI / xGMI, `name`) of `bandwidth` per direction.
void add_sockets(NodeGraph& n, int count, double bandwidth, const std::string& name) {
  n.cpu = add_vertex(n.g(), VertexKind::CPU, "cpu", 0);
  n.sockets = {n.cpu};
  for (int s = 1; s < count; ++s) n.sockets.push_back(add_vertex(n.g(), VertexKind::CPU, "cpu" + std::to_string(s), s));
  for (int a = 0; a < count; ++a)
    for (int b = a + 1; b < count; ++b) {
      const std::string link = count == 2 ? name : name + std::to_string(a) + "-" + std::to_string(b);
      const int l = add_link(n.g(), n.links, n.sockets[static_cast<size_t>(a)], n.sockets[static_cast<size_t>(b)],
                             LinkKind::SOCKET, link, bandwidth, bandwidth, 0);
      if (n.socket_link < 0) n.socket_link = l;
    }
}

int socket_count(const NodeTopologySpec& t, int template_default) {
  return t.sockets > 0 ? t.sockets : template_default;
}

double socket_bandwidth(const NodeTopologySpec& t, double template_default) {
  return t.socket_link.value > 0 ? t.socket_link.value : template_default;
}

void add_common(NodeGraph& n, const TemplateDefaults& d, const NodeTopologySpec& t) {
  n.nic_bandwidth = t.nic_bandwidth.value > 0 ? t.nic_bandwidth.value : d.nic_bandwidth;
  n.nvme_read = t.nvme_read.value > 0 ? t.nvme_read.value : d.nvme_read;
  n.nvme_write = t.nvme_write.value > 0 ? t.nvme_write.value : d.nvme_write;
}

void add_nvme(NodeGraph& n) {
  n.nvme = add_vertex(n.g(), VertexKind::NVME, "nvme");
  const double bw = std::max(n.nvme_read, n.nvme_write);
  add_link(n.g(), n.links, n.cpu, n.nvme, LinkKind::NVME, "nvme-link", bw, bw, 0);
}

// The name of a GPU's link to its host: NVLink-C2C on Grace superchips, PCIe elsewhere (the rates are the
// profile's pcie* fields either way).
std::string host_link_suffix(const HardwareProfile& p) {
  return p.host_link == HostLink::NVLINK_C2C ? "-c2c" : "-pcie";
}

void build_flat(NodeGraph& n, const NodePoolSpec& pool, const HardwareProfile& p) {
  const int sockets = socket_count(pool.topology, 1);
  add_sockets(n, sockets, socket_bandwidth(pool.topology, UPI2_FOUR_LINKS), "upi");
  // The product's NVLink: every GPU on one NVSwitch, bridges joining GPUs 0-1, 2-3, ..., or none at all
  // (peer copies then cross PCIe and host memory).
  if (p.nvlink_topology == NvlinkTopology::NVSWITCH) n.nvswitch = add_vertex(n.g(), VertexKind::NVSWITCH, "nvswitch");
  for (int i = 0; i < pool.gpus_per_node; ++i) {
    const std::string gname = "gpu" + std::to_string(i);
    const int gpu = add_vertex(n.g(), VertexKind::GPU, gname, i);
    n.gpus.push_back(gpu);
    const int socket = i * sockets / pool.gpus_per_node;
    n.gpu_socket.push_back(socket);
    add_link(n.g(), n.links, n.sockets[static_cast<size_t>(socket)], gpu, LinkKind::PCIE, gname + host_link_suffix(p),
             p.pcie_h2d_achievable.value, p.pcie_d2h_achievable.value, PCIE_LATENCY_SECONDS);
    if (p.nvlink_topology == NvlinkTopology::NVSWITCH)
      add_link(n.g(), n.links, gpu, n.nvswitch, LinkKind::NVLINK, gname + "-nvlink", p.nvlink_achievable.value,
               p.nvlink_achievable.value, 0);
    else if (p.nvlink_topology == NvlinkTopology::BRIDGED_PAIRS && i % 2 == 1)
      add_link(n.g(), n.links, n.gpus[static_cast<size_t>(i - 1)], gpu, LinkKind::NVLINK,
               "gpu" + std::to_string(i - 1) + "-" + gname + "-nvlink", p.nvlink_achievable.value,
               p.nvlink_achievable.value, 0);
  }
  TemplateDefaults d;
  add_common(n, d, pool.topology);
  n.port = add_vertex(n.g(), VertexKind::NODE_PORT, "port");
  const int nics = pool.topology.nics >= 0 ? pool.topology.nics : d.nics;
  for (int j = 0; j < std::max(1, nics); ++j) {
    const int nic = add_vertex(n.g(), VertexKind::NIC, "nic" + std::to_string(j), j);
    n.nics.push_back(nic);
    add_link(n.g(), n.links, n.cpu, nic, LinkKind::PCIE, "nic" + std::to_string(j) + "-pcie",
             p.pcie_per_direction.value, p.pcie_per_direction.value, 0);
    add_link(n.g(), n.links, nic, n.port, LinkKind::NIC, "nic" + std::to_string(j), n.nic_bandwidth, n.nic_bandwidth,
             0);
  }
  n.gpu_nic.assign(n.gpus.size(), -1);  // GPUs reach the NIC through host memory
  add_nvme(n);
}

// The node's NICs, spread over its PCIe switches (NIC j on switch j x switches / nics), each with a port
// to the fabric; GPU i uses NIC i x nics / GPUs. Then the local NVMe.
void add_nics_and_nvme(NodeGraph& n, const TemplateDefaults& d, const NodePoolSpec& pool, const HardwareProfile& p,
                       const std::vector<int>& sw) {
  const int switches = static_cast<int>(sw.size());
  n.port = add_vertex(n.g(), VertexKind::NODE_PORT, "port");
  const int nics = pool.topology.nics >= 0 ? pool.topology.nics : d.nics;
  for (int j = 0; j < nics; ++j) {
    const int nic = add_vertex(n.g(), VertexKind::NIC, "nic" + std::to_string(j), j);
    n.nics.push_back(nic);
    add_link(n.g(), n.links, sw[static_cast<size_t>(j * switches / nics)], nic, LinkKind::PCIE,
             "nic" + std::to_string(j) + "-pcie", p.pcie_per_direction.value, p.pcie_per_direction.value, 0);
    add_link(n.g(), n.links, nic, n.port, LinkKind::NIC, "nic" + std::to_string(j), n.nic_bandwidth, n.nic_bandwidth,
             0);
  }
  for (int i = 0; i < pool.gpus_per_node; ++i) n.gpu_nic.push_back(nics > 0 ? i * nics / pool.gpus_per_node : -1);
  add_nvme(n);
}

// HGX H100 / H200 (DGX H100 layout): 8 SXM GPUs on NVSwitch; 4 PCIe Gen5 switches, each with 2 GPUs,
// 2 ConnectX-7 NICs (400 Gb/s) and an x16 uplink to the host; local NVMe on the host.
void build_hgx(NodeGraph& n, const NodePoolSpec& pool, const HardwareProfile& p) {
  TemplateDefaults d;
  d.nics = 8;
  d.nvme_read = 8 * 7e9;  // 8 Gen4 U.2 drives (DGX H100: 8 x 3.84 TB), striped
  d.nvme_write = 8 * 3.5e9;
  add_common(n, d, pool.topology);
  // Two Xeon sockets joined by 4 UPI 2.0 links (DGX H100/H200: 2 x Xeon Platinum 8480C).
  const int sockets = socket_count(pool.topology, 2);
  add_sockets(n, sockets, socket_bandwidth(pool.topology, UPI2_FOUR_LINKS), "upi");
  n.nvswitch = add_vertex(n.g(), VertexKind::NVSWITCH, "nvswitch");
  const int switches = std::max(1, (pool.gpus_per_node + 1) / 2);
  std::vector<int> sw, sw_socket;
  for (int k = 0; k < switches; ++k) {
    sw.push_back(add_vertex(n.g(), VertexKind::PCIE_SWITCH, "pcie" + std::to_string(k), k));
    sw_socket.push_back(k * sockets / switches);  // half the switches on each socket
    add_link(n.g(), n.links, n.sockets[static_cast<size_t>(sw_socket.back())], sw.back(), LinkKind::PCIE,
             "pcie" + std::to_string(k) + "-uplink", p.pcie_per_direction.value, p.pcie_per_direction.value, 0);
  }
  for (int i = 0; i < pool.gpus_per_node; ++i) {
    const std::string gname = "gpu" + std::to_string(i);
    const int gpu = add_vertex(n.g(), VertexKind::GPU, gname, i);
    n.gpus.push_back(gpu);
    n.gpu_socket.push_back(sw_socket[static_cast<size_t>(i / 2)]);
    add_link(n.g(), n.links, sw[static_cast<size_t>(i / 2)], gpu, LinkKind::PCIE, gname + host_link_suffix(p),
             p.pcie_h2d_achievable.value, p.pcie_d2h_achievable.value, PCIE_LATENCY_SECONDS);
    add_link(n.g(), n.links, gpu, n.nvswitch, LinkKind::NVLINK, gname + "-nvlink", p.nvlink_achievable.value,
             p.nvlink_achievable.value, 0);
  }
  add_nics_and_nvme(n, d, pool, p, sw);
}

// A PCIe server (L40S-style): GPUs behind 2 PCIe switches, no NVLink; GPU-to-GPU copies cross the
// switch (or the host between switches) at the copy-engine efficiency; one 200 Gb/s NIC per switch.
void build_pcie(NodeGraph& n, const NodePoolSpec& pool, const HardwareProfile& p) {
  TemplateDefaults d;
  d.nics = 2;
  d.nic_bandwidth = 25e9;
  d.nvme_read = 2 * 7e9;
  d.nvme_write = 2 * 3.5e9;
  add_common(n, d, pool.topology);
  // Two EPYC 9004 sockets joined by 4 xGMI links, one PCIe switch on each.
  const int sockets = socket_count(pool.topology, 2);
  add_sockets(n, sockets, socket_bandwidth(pool.topology, XGMI_FOUR_LINKS), "xgmi");
  const int switches = pool.gpus_per_node >= 2 ? 2 : 1;
  std::vector<int> sw, sw_socket;
  for (int k = 0; k < switches; ++k) {
    sw.push_back(add_vertex(n.g(), VertexKind::PCIE_SWITCH, "pcie" + std::to_string(k), k));
    sw_socket.push_back(k * sockets / switches);
    add_link(n.g(), n.links, n.sockets[static_cast<size_t>(sw_socket.back())], sw.back(), LinkKind::PCIE,
             "pcie" + std::to_string(k) + "-uplink", p.pcie_per_direction.value, p.pcie_per_direction.value, 0);
  }
  const double p2p = PCIE_P2P_EFFICIENCY * p.pcie_per_direction.value;
  for (int i = 0; i < pool.gpus_per_node; ++i) {
    const std::string gname = "gpu" + std::to_string(i);
    const int gpu = add_vertex(n.g(), VertexKind::GPU, gname, i);
    n.gpus.push_back(gpu);
    n.gpu_socket.push_back(sw_socket[static_cast<size_t>(i * switches / pool.gpus_per_node)]);
    add_link(n.g(), n.links, sw[static_cast<size_t>(i * switches / pool.gpus_per_node)], gpu, LinkKind::PCIE,
             gname + "-pcie", std::min(p.pcie_h2d_achievable.value, p2p), std::min(p.pcie_d2h_achievable.value, p2p),
             PCIE_LATENCY_SECONDS);
  }
  add_nics_and_nvme(n, d, pool, p, sw);
}

// How many sockets the NUMA nodes of a capture (sorted (NUMA id or 1 << 20 when none, first row) pairs) stand
// for: one each, except that more than two numbered NUMA nodes are `declared` sockets (default 2, with a
// warning): NPS on AMD EPYC and SNC on Intel Xeon split a socket into NUMA nodes numbered socket by socket,
// and nvidia-smi shows SYS between NUMA nodes of one socket as between sockets.
// Without the NUMA Affinity column (older drivers) the groups are ordered by their first CPU instead: Linux
// numbers the CPUs of NUMA nodes, and of sockets, in the same order, so a first CPU stands for the NUMA id.
int sockets_of_numa_nodes(const std::vector<std::pair<int, size_t>>& order, int declared, bool by_first_cpu,
                          std::vector<std::string>& warnings) {
  const int nodes = static_cast<int>(order.size());
  const bool numbered = std::all_of(order.begin(), order.end(), [](const auto& o) { return o.first < (1 << 20); });
  if (declared > 0) return numbered ? std::min(declared, nodes) : nodes;
  if (nodes <= 2 || !numbered) return nodes;
  std::string ids;
  for (const auto& o : order) ids += (ids.empty() ? "" : ", ") + std::to_string(o.first);
  warnings.push_back(
      "the capture shows " + std::to_string(nodes) +
      (by_first_cpu ? " CPU affinity groups (first CPUs " + ids + "; no NUMA Affinity column)"
                    : " NUMA nodes (" + ids + ")") +
      " joined by SYS: read as 2 sockets, each holding half of the " + (by_first_cpu ? "CPUs" : "NUMA ids") +
      " (NPS / SNC number them socket by socket, as on a 2-socket AMD EPYC DGX A100); set topology.sockets if the "
      "machine has another number of sockets");
  return 2;
}

// The first CPU of an affinity list as nvidia-smi prints it ("48-63,176-191", "0,2,4"); none for N/A.
std::optional<int> first_cpu(const std::string& affinity) {
  size_t digits = 0;
  while (digits < affinity.size() && digits < 6 && affinity[digits] >= '0' && affinity[digits] <= '9') ++digits;
  if (digits == 0 || digits == 6) return std::nullopt;
  return std::stoi(affinity.substr(0, digits));
}

// The last CPU of an affinity list's first range ("48-63,176-191": 63; "0,2,4": 0), or its first CPU.
std::optional<int> first_range_end(const std::string& affinity) {
  const auto dash = affinity.find('-');
  const auto comma = affinity.find(',');
  if (dash == std::string::npos || (comma != std::string::npos && comma < dash)) return first_cpu(affinity);
  return first_cpu(affinity.substr(dash + 1));
}

// The socket of the k-th NUMA node when `sockets` sockets hold them: its NUMA id's share of the id range,
// NUMA nodes per socket rounded up to a power of two (NPS 1/2/4, SNC 2/4), so that a capture showing only some
// of them (1, 3, 5 of an NPS4 pair) still splits where the sockets do.
int socket_of_numa(const std::vector<std::pair<int, size_t>>& order, size_t k, int sockets) {
  int top = 0;
  for (const auto& o : order) top = std::max(top, o.first);
  int per_socket = 1;
  while (per_socket * sockets < top + 1) per_socket *= 2;
  return std::min(sockets - 1, order[k].first / per_socket);
}

}  // namespace

std::vector<std::string> node_graph_from_topo(const SmiTopo& topo, const HardwareProfile& p,
                                              const NodeTopologySpec& spec, NodeGraph& n) {
  std::vector<std::string> warnings;
  n.template_name = "nvidia-smi";
  TemplateDefaults d;
  d.nvme_read = 8 * 7e9;
  d.nvme_write = 8 * 3.5e9;
  add_common(n, d, spec);
  const size_t dev = topo.devices.size();
  std::vector<size_t> gpu_rows, nic_rows;
  for (size_t i = 0; i < dev; ++i) (topo.is_gpu(i) ? gpu_rows : nic_rows).push_back(i);
  // CPU sockets: devices not joined by SYS share a socket (NUMA node); SYS crosses the inter-socket link.
  // Sockets are numbered by the NUMA affinity column when printed, else in order of appearance.
  std::vector<size_t> numa_root(dev);
  for (size_t i = 0; i < dev; ++i) numa_root[i] = i;
  const auto numa_find = [&](size_t x) {
    while (numa_root[x] != x) x = numa_root[x] = numa_root[numa_root[x]];
    return x;
  };
  // Joined by a PCIe relation within a socket (NV# says nothing about the PCIe path: on NVLink-bridged
  // boards two GPUs of different sockets show NV#), or GPUs printed with the same NUMA / CPU affinity.
  const auto same_socket = [&](size_t a, size_t b) {
    const std::string& r = topo.matrix[a][b];
    if (r == "PIX" || r == "PXB" || r == "PHB" || r == "NODE") return true;
    if (!topo.is_gpu(a) || !topo.is_gpu(b)) return false;
    const bool numa = topo.numa_affinity[a] != "N/A" && !topo.numa_affinity[a].empty();
    if (numa) return topo.numa_affinity[a] == topo.numa_affinity[b];
    return !topo.cpu_affinity[a].empty() && topo.cpu_affinity[a] == topo.cpu_affinity[b];
  };
  for (size_t a = 0; a < dev; ++a)
    for (size_t b = a + 1; b < dev; ++b)
      if (same_socket(a, b)) numa_root[numa_find(a)] = numa_find(b);
  std::map<size_t, int> socket_of_root;
  std::vector<std::pair<int, size_t>> order;   // (NUMA id or large, first row) per component
  std::vector<std::pair<int, size_t>> by_cpu;  // (first CPU or large, first row) per component
  for (size_t i = 0; i < dev; ++i) {
    if (socket_of_root.count(numa_find(i))) continue;
    socket_of_root[numa_find(i)] = -1;
    int numa = 1 << 20;
    int cpu = 1 << 20;
    for (size_t j = 0; j < dev; ++j) {
      if (numa_find(j) != numa_find(i)) continue;
      if (!topo.numa_affinity[j].empty() && topo.numa_affinity[j].size() <= 4 &&
          std::all_of(topo.numa_affinity[j].begin(), topo.numa_affinity[j].end(),
                      [](char ch) { return ch >= '0' && ch <= '9'; }))
        numa = std::min(numa, std::stoi(topo.numa_affinity[j]));
      if (const auto c = first_cpu(topo.cpu_affinity[j])) cpu = std::min(cpu, *c);
    }
    order.emplace_back(numa, i);
    by_cpu.emplace_back(cpu, i);
  }
  // No NUMA id anywhere (a capture without the NUMA Affinity column): the groups' first CPUs stand for them.
  const bool by_first_cpu =
      std::none_of(order.begin(), order.end(), [](const auto& o) { return o.first < (1 << 20); }) &&
      std::all_of(by_cpu.begin(), by_cpu.end(), [](const auto& o) { return o.first < (1 << 20); });
  if (by_first_cpu) order = by_cpu;
  std::sort(order.begin(), order.end());
  const int sockets = sockets_of_numa_nodes(order, spec.sockets, by_first_cpu, warnings);
  // By first CPUs: the sockets split the CPUs of the first ranges evenly (the cores, SMT siblings after them),
  // whatever the count per socket (96-core parts are not a power of two).
  int cpus = 0;
  for (size_t i = 0; i < dev; ++i)
    if (const auto end = first_range_end(topo.cpu_affinity[i])) cpus = std::max(cpus, *end + 1);
  for (size_t k = 0; k < order.size(); ++k) {
    const int numbered = static_cast<int>(k);
    const int by_cpu_share =
        cpus > 0 ? std::min(sockets - 1, static_cast<int>(static_cast<long long>(order[k].first) * sockets / cpus)) : 0;
    socket_of_root[numa_find(order[k].second)] = sockets == static_cast<int>(order.size()) ? numbered
                                                 : by_first_cpu                            ? by_cpu_share
                                                                : socket_of_numa(order, k, sockets);
  }
  add_sockets(n, sockets, socket_bandwidth(spec, UPI2_FOUR_LINKS), "socket-link");
  const auto socket_vertex = [&](size_t row) {
    return n.sockets[static_cast<size_t>(socket_of_root.at(numa_find(row)))];
  };
  // PCIe switches: devices joined by PIX or PXB (union-find).
  std::vector<size_t> parent(dev);
  for (size_t i = 0; i < dev; ++i) parent[i] = i;
  const auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t a = 0; a < dev; ++a)
    for (size_t b = a + 1; b < dev; ++b)
      if (topo.matrix[a][b] == "PIX" || topo.matrix[a][b] == "PXB") parent[find(a)] = find(b);
  std::map<size_t, int> switch_of_root;
  std::vector<int> attach(dev, n.cpu);
  for (size_t i = 0; i < dev; ++i) attach[i] = socket_vertex(i);
  for (size_t i = 0; i < dev; ++i) {
    size_t members = 0;
    for (size_t j = 0; j < dev; ++j) members += find(j) == find(i) ? 1 : 0;
    if (members < 2) continue;
    auto it = switch_of_root.find(find(i));
    if (it == switch_of_root.end()) {
      const int k = static_cast<int>(switch_of_root.size());
      const int sw = add_vertex(n.g(), VertexKind::PCIE_SWITCH, "pcie" + std::to_string(k), k);
      add_link(n.g(), n.links, socket_vertex(i), sw, LinkKind::PCIE, "pcie" + std::to_string(k) + "-uplink",
               p.pcie_per_direction.value, p.pcie_per_direction.value, 0);
      it = switch_of_root.emplace(find(i), sw).first;
    }
    attach[i] = it->second;
  }
  // NVLink: an NVSwitch when every GPU pair shows the same NV#, direct links otherwise.
  const double per_link =
      NVLINK_PER_LINK *
      (p.nvlink_per_direction.value > 0 ? p.nvlink_achievable.value / p.nvlink_per_direction.value : 0.0);
  int common = -1;
  bool all_pairs = gpu_rows.size() > 1;
  for (size_t a = 0; a < gpu_rows.size() && all_pairs; ++a)
    for (size_t b = a + 1; b < gpu_rows.size(); ++b) {
      const int k = topo.nvlinks(gpu_rows[a], gpu_rows[b]);
      if (k == 0 || (common >= 0 && k != common)) all_pairs = false;
      common = k;
    }
  if (all_pairs && gpu_rows.size() > 2) n.nvswitch = add_vertex(n.g(), VertexKind::NVSWITCH, "nvswitch");
  for (size_t i = 0; i < gpu_rows.size(); ++i) {
    const std::string gname = "gpu" + std::to_string(i);
    const int gpu = add_vertex(n.g(), VertexKind::GPU, gname, static_cast<int>(i));
    n.gpus.push_back(gpu);
    n.gpu_socket.push_back(socket_of_root.at(numa_find(gpu_rows[i])));
    add_link(n.g(), n.links, attach[gpu_rows[i]], gpu, LinkKind::PCIE, gname + host_link_suffix(p),
             p.pcie_h2d_achievable.value, p.pcie_d2h_achievable.value, PCIE_LATENCY_SECONDS);
    if (n.nvswitch >= 0)
      add_link(n.g(), n.links, gpu, n.nvswitch, LinkKind::NVLINK, gname + "-nvlink", common * per_link,
               common * per_link, 0);
  }
  if (n.nvswitch < 0) {
    for (size_t a = 0; a < gpu_rows.size(); ++a)
      for (size_t b = a + 1; b < gpu_rows.size(); ++b)
        if (const int k = topo.nvlinks(gpu_rows[a], gpu_rows[b]); k > 0)
          add_link(n.g(), n.links, n.gpus[a], n.gpus[b], LinkKind::NVLINK,
                   "gpu" + std::to_string(a) + "-gpu" + std::to_string(b) + "-nvlink", k * per_link, k * per_link, 0);
  }
  n.port = add_vertex(n.g(), VertexKind::NODE_PORT, "port");
  for (size_t j = 0; j < nic_rows.size(); ++j) {
    const int nic = add_vertex(n.g(), VertexKind::NIC, "nic" + std::to_string(j), static_cast<int>(j));
    n.nics.push_back(nic);
    n.nic_devices.push_back(topo.device_name(nic_rows[j]));
    add_link(n.g(), n.links, attach[nic_rows[j]], nic, LinkKind::PCIE, "nic" + std::to_string(j) + "-pcie",
             p.pcie_per_direction.value, p.pcie_per_direction.value, 0);
    add_link(n.g(), n.links, nic, n.port, LinkKind::NIC, "nic" + std::to_string(j), n.nic_bandwidth, n.nic_bandwidth,
             0);
  }
  // Each GPU's NIC: the closest one (PIX, then PXB, then the same NUMA node), lowest index first.
  for (size_t i = 0; i < gpu_rows.size(); ++i) {
    int best = -1, best_rank = 99;
    for (size_t j = 0; j < nic_rows.size(); ++j) {
      const std::string& rel = topo.matrix[gpu_rows[i]][nic_rows[j]];
      const int rank = rel == "PIX" ? 0 : rel == "PXB" ? 1 : rel == "PHB" ? 2 : rel == "NODE" ? 3 : 4;
      if (rank < best_rank) {
        best = static_cast<int>(j);
        best_rank = rank;
      }
    }
    n.gpu_nic.push_back(best);
  }
  add_nvme(n);
  return warnings;
}

std::vector<int> NodeGraph::nvlink_domains() const {
  std::vector<int> parent(boost::num_vertices(g()));
  std::iota(parent.begin(), parent.end(), 0);
  const auto root = [&](int v) {
    while (parent[static_cast<size_t>(v)] != v) v = parent[static_cast<size_t>(v)];
    return v;
  };
  std::vector<bool> has_nvlink(parent.size(), false);
  for (const auto& l : links) {
    if (l.kind != LinkKind::NVLINK) continue;
    has_nvlink[static_cast<size_t>(l.from)] = true;
    has_nvlink[static_cast<size_t>(l.to)] = true;
    parent[static_cast<size_t>(root(l.from))] = root(l.to);
  }
  std::map<int, int> lowest;  // component root -> lowest GPU index in it
  for (size_t i = 0; i < gpus.size(); ++i)
    if (has_nvlink[static_cast<size_t>(gpus[i])]) lowest.emplace(root(gpus[i]), static_cast<int>(i));
  std::vector<int> out(gpus.size(), -1);
  for (size_t i = 0; i < gpus.size(); ++i)
    if (has_nvlink[static_cast<size_t>(gpus[i])]) out[i] = lowest.at(root(gpus[i]));
  return out;
}

Path NodeGraph::path(int from, int to, bool nvlink) const {
  if (from == to || from < 0 || to < 0) return {};
  const auto key = std::make_tuple(from, to, nvlink);
  if (auto it = paths.find(key); it != paths.end()) return it->second;
  Path p;
  if (nvlink) {
    p = extract_path(links, shortest_tree(g(), g(), from), from, to);
  } else {
    boost::filtered_graph<Graph, NoNvlink> fg(g(), NoNvlink{&g()});
    p = extract_path(links, shortest_tree(fg, g(), from), from, to);
  }
  paths.emplace(key, p);
  return p;
}

Path FabricGraph::path(int from, int to, int ecmp_key) const {
  const auto shortest_path = [this](const Graph&, const std::vector<Link>&, int a, int b) {
    if (a == b || a < 0 || b < 0) return Path{};
    auto it = trees.find(a);
    if (it == trees.end()) it = trees.emplace(a, shortest_tree(g(), g(), a)).first;
    return extract_path(links, it->second, a, b);
  };
  if (spines.size() <= 1) return shortest_path(g(), links, from, to);
  // Up to the chosen spine, then down: d-mod-k. Only when the direct path climbs to a spine.
  Path direct = shortest_path(g(), links, from, to);
  bool via_spine = false;
  for (const auto& h : direct) {
    const Link& l = links[static_cast<size_t>(h.link)];
    if (g()[static_cast<Graph::vertex_descriptor>(l.from)].kind == VertexKind::SPINE ||
        g()[static_cast<Graph::vertex_descriptor>(l.to)].kind == VertexKind::SPINE)
      via_spine = true;
  }
  if (!via_spine) return direct;
  const int spine = spines[static_cast<size_t>(ecmp_key) % spines.size()];
  Path up = shortest_path(g(), links, from, spine);
  Path down = shortest_path(g(), links, spine, to);
  if (up.empty() || down.empty()) return direct;
  up.insert(up.end(), down.begin(), down.end());
  return up;
}

bool build_node_graph(const NodePoolSpec& pool, const HardwareProfile& profile, const std::string& path, NodeGraph& out,
                      Diagnostics& diags) {
  const auto& t = pool.topology;
  if (!t.nvidia_smi_topo.empty()) {
    const auto text = read_saved_output(t.nvidia_smi_topo, diags, t.topo_loc, path + ".topology.fromNvidiaSmi");
    if (!text) return false;
    auto topo = parse_topo(*text, t.nvidia_smi_topo, diags);
    if (!topo) return false;
    out.template_name = "nvidia-smi";
    for (const auto& w : node_graph_from_topo(*topo, profile, t, out))
      diags.warning(t.topo_loc, path + ".topology.fromNvidiaSmi", "'" + t.nvidia_smi_topo + "': " + w);
    const bool nvlink_seen =
        std::any_of(out.links.begin(), out.links.end(), [](const Link& l) { return l.kind == LinkKind::NVLINK; });
    if (profile.nvlink_topology == NvlinkTopology::BRIDGED_PAIRS) {
      const auto domains = out.nvlink_domains();
      for (int d : domains)
        if (d >= 0 && std::count(domains.begin(), domains.end(), d) > 2) {
          diags.warning(t.topo_loc, path + ".topology.fromNvidiaSmi",
                        "'" + t.nvidia_smi_topo + "' joins more than two GPUs over NVLink, but " + profile.name +
                            " has NVLink bridges between pairs only: the capture's links are used");
          break;
        }
    }
    if (nvlink_seen && profile.nvlink_topology == NvlinkTopology::NONE) {
      diags.error(t.topo_loc, path + ".topology.fromNvidiaSmi",
                  "'" + t.nvidia_smi_topo + "' shows NVLink (NV#) between GPUs, but " + profile.name +
                      " has no NVLink (nvlinkTopology: none): is it the capture of another product?");
      return false;
    }
    if (static_cast<int>(out.gpus.size()) != pool.gpus_per_node) {
      diags.error(t.topo_loc, path + ".topology.fromNvidiaSmi",
                  "'" + t.nvidia_smi_topo + "' lists " + std::to_string(out.gpus.size()) + " GPUs, but the pool has " +
                      "gpusPerNode " + std::to_string(pool.gpus_per_node));
      return false;
    }
  } else {
    const std::string name = t.template_name.empty() ? "flat" : t.template_name;
    out.template_name = name;
    if (name == "flat") {
      if (profile.nvlink_topology == NvlinkTopology::BRIDGED_PAIRS && pool.gpus_per_node % 2 == 1)
        diags.warning(pool.loc, path + ".gpusPerNode",
                      profile.name + " joins GPUs in bridged pairs; with " + std::to_string(pool.gpus_per_node) +
                          " GPUs per node the last one has no NVLink");
      build_flat(out, pool, profile);
    } else if (name == "hgx-h100" || name == "hgx-h200") {
      if (profile.nvlink_topology != NvlinkTopology::NVSWITCH) {
        diags.error(t.loc, path + ".topology",
                    "node template '" + name + "' joins its GPUs on an NVSwitch, but " + profile.name +
                        " has nvlinkTopology " + nvlink_topology_name(profile.nvlink_topology) +
                        "; use 'flat' (which follows the profile), 'pcie-l40s' or fromNvidiaSmi");
        return false;
      }
      build_hgx(out, pool, profile);
    } else if (name == "pcie-l40s") {
      build_pcie(out, pool, profile);
    } else {
      diags.error(t.loc, path + ".topology",
                  "unknown node template '" + name + "'" + suggest(name, node_template_names()));
      return false;
    }
  }
  // topology.mig is read once, by prepare_scenario (sim/engine/Setup.cpp), into the pool's sharing.
  return true;
}

bool build_topology(const ScenarioSpec& spec, const std::map<std::string, HardwareProfile>& profiles, Topology& out,
                    Diagnostics& diags) {
  // Built in place: the graphs are never copied or moved (Boost.Graph's adjacency_list does not keep
  // its edge references valid through a move).
  out.pools.clear();
  out.nodes.clear();
  out.pools.reserve(spec.node_pools.size());
  bool ok = true;
  for (size_t p = 0; p < spec.node_pools.size(); ++p) {
    const auto& pool = spec.node_pools[p];
    auto it = profiles.find(pool.profile_key.empty() ? pool.gpu_product : pool.profile_key);
    NodeGraph& ng = out.pools.emplace_back();
    if (it != profiles.end()) {
      ok &= build_node_graph(pool, it->second, "spec.cluster.nodePools[" + std::to_string(p) + "]", ng, diags);
    } else {
      ok = false;
    }
    for (int n = 0; n < pool.count; ++n)
      out.nodes.push_back(NodeRef{static_cast<int>(p), n, pool.name + "-" + std::to_string(n)});
  }
  if (!ok) return false;

  // Which parts of the network the scenario needs.
  out.storage = !spec.storage.empty();
  out.inter_node = spec.fabric.declared;
  for (const auto& w : spec.workloads) {
    if (w.nodes > 1) out.inter_node = true;
    if (w.serving.prefill_replicas > 0) out.inter_node = true;  // KV caches may move between nodes
    if (w.io.request_bytes.value > 0 || w.io.response_bytes.value > 0) out.frontend = true;
  }
  for (const auto& d : spec.data)
    if (d.store == LOCAL_NVME_STORE) out.local_nvme = true;

  // Inside each node: every GPU reaches the host, and the node port when the network is used.
  for (size_t p = 0; p < out.pools.size(); ++p) {
    const auto& ng = out.pools[p];
    const std::string path = "spec.cluster.nodePools[" + std::to_string(p) + "].topology";
    std::vector<int> component(boost::num_vertices(ng.g()));
    boost::connected_components(ng.g(), component.data());
    for (size_t i = 0; i < ng.gpus.size(); ++i) {
      if (component[static_cast<size_t>(ng.gpus[i])] != component[static_cast<size_t>(ng.cpu)]) {
        diags.error(spec.node_pools[p].topology.loc.line > 0 ? spec.node_pools[p].topology.loc : spec.node_pools[p].loc,
                    path, "GPU " + std::to_string(i) + " has no path to the host CPU");
        ok = false;
      }
    }
    for (size_t d = 0; d < spec.data.size(); ++d) {
      const auto& item = spec.data[d];
      if (item.socket >= static_cast<int>(ng.sockets.size())) {
        diags.error(item.socket_loc.line > 0 ? item.socket_loc : item.loc,
                    "spec.data[" + std::to_string(d) + "].socket",
                    "socket " + std::to_string(item.socket) + " does not exist: nodes of pool '" +
                        spec.node_pools[p].name + "' have " + std::to_string(ng.sockets.size()) + " CPU socket(s)");
        ok = false;
      }
    }
    if ((out.storage || out.inter_node) && (ng.port < 0 || ng.nics.empty())) {
      diags.error(spec.node_pools[p].topology.loc.line > 0 ? spec.node_pools[p].topology.loc : spec.node_pools[p].loc,
                  path, "the node has no NIC, but the scenario needs the network (storage or multi-node jobs)");
      ok = false;
    }
  }

  // The fabric: node ports, switches, storage, front end.
  auto& f = out.fabric;
  const auto& fs = spec.fabric;
  const double hop = fs.hop_latency.value;
  std::vector<double> node_bw;
  for (size_t n = 0; n < out.nodes.size(); ++n) {
    const auto& ng = out.pools[static_cast<size_t>(out.nodes[n].pool)];
    node_bw.push_back(ng.nic_bandwidth * static_cast<double>(std::max<size_t>(1, ng.nics.size())));
    f.node_port.push_back(add_vertex(f.g(), VertexKind::NODE_PORT, out.nodes[n].name + "-port", static_cast<int>(n)));
  }
  const bool network = out.inter_node || out.storage;
  double storage_total = 0;
  for (const auto& st : spec.storage) storage_total += std::max(st.read_bandwidth.value, st.write_bandwidth.value);
  if (network) {
    // Storage servers hang off every spine of a two-level fabric, each link carrying its share of the store's
    // bandwidth.
    const auto attach_storage_to_spines = [&] {
      for (size_t k = 0; k < spec.storage.size(); ++k) {
        const auto& st = spec.storage[k];
        const int v = add_vertex(f.g(), VertexKind::STORAGE, st.name, static_cast<int>(k));
        f.store.push_back(v);
        const double bw =
            std::max(st.read_bandwidth.value, st.write_bandwidth.value) / static_cast<double>(f.spines.size());
        for (size_t s = 0; s < f.spines.size(); ++s)
          add_link(f.g(), f.links, v, f.spines[s], LinkKind::STORAGE, st.name + "-spine" + std::to_string(s), bw, bw,
                   hop);
      }
    };
    if (fs.kind == FabricKind::RAIL_OPTIMIZED) {
      // Rail-optimised: NIC j of every node of a group on the group's rail-j leaf; spines above the leaves.
      f.rails = true;
      const int npl = std::max(1, fs.nodes_per_leaf);
      const size_t groups = (out.nodes.size() + static_cast<size_t>(npl) - 1) / static_cast<size_t>(npl);
      size_t rails = 0;
      for (const auto& ng : out.pools) rails = std::max(rails, ng.nics.size());
      for (int s = 0; s < fs.spines; ++s)
        f.spines.push_back(add_vertex(f.g(), VertexKind::SPINE, "spine" + std::to_string(s), s));
      f.rail_leaf.assign(groups, {});
      f.rail_port.assign(out.nodes.size(), {});
      for (size_t n = 0; n < out.nodes.size(); ++n) f.group_of.push_back(static_cast<int>(n) / npl);
      for (size_t grp = 0; grp < groups; ++grp) {
        for (size_t j = 0; j < rails; ++j) {
          const std::string leaf_name = "g" + std::to_string(grp) + "-rail" + std::to_string(j);
          const int leaf = add_vertex(f.g(), VertexKind::LEAF, leaf_name, static_cast<int>(j));
          f.rail_leaf[grp].push_back(leaf);
          double down = 0;
          for (size_t n = grp * static_cast<size_t>(npl);
               n < std::min(out.nodes.size(), (grp + 1) * static_cast<size_t>(npl)); ++n) {
            const auto& ng = out.pools[static_cast<size_t>(out.nodes[n].pool)];
            if (j >= ng.nics.size()) continue;
            const int port = add_vertex(f.g(), VertexKind::NODE_PORT, out.nodes[n].name + "-nic" + std::to_string(j),
                                        static_cast<int>(n));
            f.rail_port[n].push_back(port);
            add_link(f.g(), f.links, port, leaf, LinkKind::FABRIC, out.nodes[n].name + "-rail" + std::to_string(j),
                     ng.nic_bandwidth, ng.nic_bandwidth, hop);
            down += ng.nic_bandwidth;
          }
          const double up = down / fs.oversubscription / static_cast<double>(f.spines.size());
          for (size_t s = 0; s < f.spines.size(); ++s)
            add_link(f.g(), f.links, leaf, f.spines[s], LinkKind::FABRIC, leaf_name + "-spine" + std::to_string(s), up,
                     up, hop);
        }
      }
      attach_storage_to_spines();
      // A node's own port (fallback routes of code that sends between nodes without Platform::legs) is
      // its rail-0 port.
      for (size_t n = 0; n < out.nodes.size(); ++n)
        if (!f.rail_port[n].empty()) f.node_port[n] = f.rail_port[n][0];
    } else if (fs.kind == FabricKind::FAT_TREE) {
      const int npl = std::max(1, fs.nodes_per_leaf);
      const int leaves = static_cast<int>((out.nodes.size() + static_cast<size_t>(npl) - 1) / static_cast<size_t>(npl));
      for (int s = 0; s < fs.spines; ++s)
        f.spines.push_back(add_vertex(f.g(), VertexKind::SPINE, "spine" + std::to_string(s), s));
      for (int l = 0; l < leaves; ++l) {
        const int leaf = add_vertex(f.g(), VertexKind::LEAF, "leaf" + std::to_string(l), l);
        double down = 0;
        for (size_t n = static_cast<size_t>(l * npl);
             n < std::min(out.nodes.size(), static_cast<size_t>((l + 1) * npl)); ++n) {
          add_link(f.g(), f.links, f.node_port[n], leaf, LinkKind::FABRIC, out.nodes[n].name + "-uplink", node_bw[n],
                   node_bw[n], hop);
          down += node_bw[n];
        }
        const double up = down / fs.oversubscription / static_cast<double>(f.spines.size());
        for (size_t s = 0; s < f.spines.size(); ++s)
          add_link(f.g(), f.links, leaf, f.spines[s], LinkKind::FABRIC,
                   "leaf" + std::to_string(l) + "-spine" + std::to_string(s), up, up, hop);
      }
      attach_storage_to_spines();
    } else {
      f.core = add_vertex(f.g(), VertexKind::CORE, "core");
      for (size_t n = 0; n < out.nodes.size(); ++n)
        add_link(f.g(), f.links, f.node_port[n], f.core, LinkKind::FABRIC, out.nodes[n].name + "-uplink", node_bw[n],
                 node_bw[n], hop);
      for (size_t k = 0; k < spec.storage.size(); ++k) {
        const auto& st = spec.storage[k];
        const int v = add_vertex(f.g(), VertexKind::STORAGE, st.name, static_cast<int>(k));
        f.store.push_back(v);
        const double bw = std::max(st.read_bandwidth.value, st.write_bandwidth.value);
        add_link(f.g(), f.links, v, f.core, LinkKind::STORAGE, st.name + "-uplink", bw, bw, hop);
      }
    }
  }
  (void)storage_total;
  if (out.frontend) {
    f.frontend = add_vertex(f.g(), VertexKind::FRONTEND, "frontend");
    for (size_t n = 0; n < out.nodes.size(); ++n) {
      const int fe = add_vertex(f.g(), VertexKind::FRONTEND_PORT, out.nodes[n].name + "-fe", static_cast<int>(n));
      add_link(f.g(), f.links, f.frontend, fe, LinkKind::FRONTEND, out.nodes[n].name + "-frontend",
               fs.frontend_bandwidth.value, fs.frontend_bandwidth.value, hop);
    }
  }
  // Every node reaches every store and every other node.
  if (network && ok) {
    std::vector<int> component(boost::num_vertices(f.g()));
    boost::connected_components(f.g(), component.data());
    for (size_t n = 0; n < f.node_port.size(); ++n) {
      for (size_t k = 0; k < f.store.size(); ++k) {
        if (component[static_cast<size_t>(f.node_port[n])] != component[static_cast<size_t>(f.store[k])]) {
          diags.error(spec.storage[k].loc, "spec.cluster.storage[" + std::to_string(k) + "]",
                      "node " + out.nodes[n].name + " has no path to storage '" + spec.storage[k].name + "'");
          ok = false;
        }
      }
      if (out.inter_node &&
          component[static_cast<size_t>(f.node_port[n])] != component[static_cast<size_t>(f.node_port[0])]) {
        diags.error(spec.fabric.loc, "spec.cluster.fabric",
                    "node " + out.nodes[n].name + " is not connected to " + out.nodes[0].name);
        ok = false;
      }
    }
  }
  return ok;
}

std::string describe(const NodeGraph& node) {
  std::ostringstream out;
  out << "template: " << node.template_name << "\n";
  out << "vertices:\n";
  for (auto [v, end] = boost::vertices(node.g()); v != end; ++v) {
    out << "  " << node.g()[*v].name << " (" << vertex_kind_name(node.g()[*v].kind);
    if (node.g()[*v].kind == VertexKind::NIC) {
      const auto idx =
          static_cast<size_t>(std::find(node.nics.begin(), node.nics.end(), static_cast<int>(*v)) - node.nics.begin());
      if (idx < node.nic_devices.size() && !node.nic_devices[idx].empty()) out << ", " << node.nic_devices[idx];
    }
    out << ")\n";
  }
  out << "links (up = first -> second):\n";
  for (const auto& l : node.links) {
    const auto a = static_cast<Graph::vertex_descriptor>(l.from), b = static_cast<Graph::vertex_descriptor>(l.to);
    out << "  " << l.name << ": " << node.g()[a].name << " -> " << node.g()[b].name << " " << link_kind_name(l.kind)
        << " " << format_bandwidth(BytesPerSecond(l.up)) << " / " << format_bandwidth(BytesPerSecond(l.down)) << "\n";
  }
  for (const auto& [gpu, layout] : node.mig_layouts) {
    out << "mig layout of gpu" << gpu << ":";
    for (const auto& m : layout) out << " " << m;
    out << "\n";
  }
  return out.str();
}

}  // namespace gtw::fabric
