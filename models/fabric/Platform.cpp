#include "Platform.hpp"
#include "TopologyGraph.hpp"

#include <xbt/log.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>

XBT_LOG_EXTERNAL_CATEGORY(gtw);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(gtw_fabric, gtw, "the SimGrid platform built from the topology graphs (models/fabric)");

namespace gtw::fabric {

namespace {

using NetPoint = simgrid::kernel::routing::NetPoint;

// Hops of the reverse path: same links, opposite order and directions.
Path reversed(const Path& p) {
  Path r(p.rbegin(), p.rend());
  for (auto& h : r) h.up = !h.up;
  return r;
}

Path concat(Path a, const Path& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Index of the NIC link (nic -> port) of NIC j in the node graph.
int nic_link(const NodeGraph& ng, int j) {
  const int nic = ng.nics[static_cast<size_t>(j)];
  for (size_t i = 0; i < ng.links.size(); ++i) {
    const auto& l = ng.link(static_cast<int>(i));
    if (l.kind == LinkKind::NIC && l.from == nic) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

Platform::Platform(const Topology& topo, const ScenarioSpec& spec, sg4::NetZone* root)
    : topo_(topo), spec_(spec), root_(root), nodes_(topo.nodes.size()), node_points_(topo.nodes.size()) {}

sg4::Link* Platform::make_link(sg4::NetZone* zone, const std::string& name, const Link& l) {
  XBT_VERB("link %s: %.3g B/s up, %.3g B/s down, %.3g s latency", name.c_str(), l.up, l.down, l.latency);
  auto* link = zone->create_split_duplex_link(name, l.up);
  link->set_latency(l.latency);
  link->get_link_up()->set_bandwidth(l.up);
  link->get_link_down()->set_bandwidth(l.down);
  return link;
}

void Platform::route(sg4::NetZone* zone, NetPoint* a, NetPoint* b, const std::vector<sg4::Link*>& links,
                     const Path& path) {
  if (path.empty()) return;
  std::vector<sg4::LinkInRoute> hops;
  for (const auto& h : path) {
    auto* link = links[static_cast<size_t>(h.link)];
    if (!link) return;  // a part of the node the scenario does not use
    hops.emplace_back(link, h.up ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
  }
  zone->add_route(a, b, nullptr, nullptr, hops, false);
}

NodeParts& Platform::begin_node(int n) {
  const auto& ref = topo_.nodes[static_cast<size_t>(n)];
  const NodeGraph& ng = topo_.pools[static_cast<size_t>(ref.pool)];
  auto& parts = nodes_[static_cast<size_t>(n)];
  auto& points = node_points_[static_cast<size_t>(n)];
  const bool network = topo_.inter_node || topo_.storage;
  parts.zone = sg4::create_full_zone(ref.name);
  // Outside the root until finish() (see begin_node's note), with the root's models, which set_parent gives.
  auto* zone = parts.zone->get_impl();
  const auto* root = root_->get_impl();
  zone->set_network_model(root->get_network_model());
  zone->set_cpu_pm_model(root->get_cpu_pm_model());
  zone->set_cpu_vm_model(root->get_cpu_vm_model());
  zone->set_disk_model(root->get_disk_model());
  zone->set_host_model(root->get_host_model());
  parts.cpu = parts.zone->create_host(ref.name, 1e12);
  points[ng.cpu] = parts.cpu->get_netpoint();
  parts.sockets = {parts.cpu};
  for (size_t s = 1; s < ng.sockets.size(); ++s) {
    // One host per socket's memory; socket 0's is `cpu`'s twin so that `cpu` keeps its NUMA-local routes.
    if (s == 1) parts.sockets[0] = parts.zone->create_host(ref.name + "-socket0", 1e12);
    parts.sockets.push_back(parts.zone->create_host(ref.name + "-socket" + std::to_string(s), 1e12));
  }
  for (auto* h : parts.sockets) node_of_[h] = n;
  std::set<int> skipped;  // vertices the scenario does not use
  for (auto [v, end] = boost::vertices(ng.g()); v != end; ++v) {
    const auto& vx = ng.g()[*v];
    const int vi = static_cast<int>(*v);
    switch (vx.kind) {
      case VertexKind::NVSWITCH:
      case VertexKind::PCIE_SWITCH:
        points[vi] = parts.zone->create_router(ref.name + "-" + vx.name);
        break;
      case VertexKind::NIC:
      case VertexKind::NODE_PORT:
        if (network) {
          points[vi] = parts.zone->create_router(ref.name + "-" + vx.name);
        } else {
          skipped.insert(vi);
        }
        break;
      case VertexKind::NVME:
        if (topo_.local_nvme) {
          parts.nvme = parts.zone->create_host(ref.name + "-nvme", 1e9);
          parts.nvme_disk = parts.nvme->create_disk(ref.name + "-nvme-disk", ng.nvme_read, ng.nvme_write);
          parts.nvme_disk->seal();
          points[vi] = parts.nvme->get_netpoint();
          node_of_[parts.nvme] = n;
        } else {
          skipped.insert(vi);
        }
        break;
      default:
        break;
    }
  }
  parts.links.assign(ng.links.size(), nullptr);
  for (size_t i = 0; i < ng.links.size(); ++i) {
    if (skipped.count(ng.links[i].from) || skipped.count(ng.links[i].to)) continue;
    parts.links[i] =
        make_link(parts.zone, ref.name + "-" + ng.link(static_cast<int>(i)).name, ng.link(static_cast<int>(i)));
  }
  node_of_[parts.cpu] = n;
  return parts;
}

void Platform::add_device(int n, int local_gpu, sg4::Host* host, bool whole) {
  nodes_[static_cast<size_t>(n)].devices.push_back({host, local_gpu, whole});
  node_of_[host] = n;
}

void Platform::end_node(int n) {
  const auto& ref = topo_.nodes[static_cast<size_t>(n)];
  const NodeGraph& ng = topo_.pools[static_cast<size_t>(ref.pool)];
  auto& parts = nodes_[static_cast<size_t>(n)];
  auto& points = node_points_[static_cast<size_t>(n)];
  auto* zone = parts.zone;
  const auto& links = parts.links;
  NetPoint* cpu = parts.cpu->get_netpoint();
  // The socket a GPU's PCIe hangs off (its NUMA node).
  const auto local_socket = [&](int local_gpu) {
    const auto i = static_cast<size_t>(local_gpu);
    return i < ng.gpu_socket.size() ? ng.sockets[static_cast<size_t>(ng.gpu_socket[i])] : ng.cpu;
  };
  // Host <-> device: NUMA-local host memory, and each socket's memory as wired.
  for (const auto& d : parts.devices) {
    const int gv = ng.gpus[static_cast<size_t>(d.local_gpu)];
    const Path p = ng.path(local_socket(d.local_gpu), gv, false);
    route(zone, cpu, d.host->get_netpoint(), links, p);
    route(zone, d.host->get_netpoint(), cpu, links, reversed(p));
    if (parts.sockets.size() < 2) continue;
    for (size_t s = 0; s < parts.sockets.size(); ++s) {
      const Path q = ng.path(ng.sockets[s], gv, false);
      route(zone, parts.sockets[s]->get_netpoint(), d.host->get_netpoint(), links, q);
      route(zone, d.host->get_netpoint(), parts.sockets[s]->get_netpoint(), links, reversed(q));
    }
  }
  // Device <-> device: NVLink between whole GPUs, through host memory otherwise (MIG has no P2P).
  for (const auto& a : parts.devices) {
    for (const auto& b : parts.devices) {
      if (a.host == b.host) continue;
      const int ga = ng.gpus[static_cast<size_t>(a.local_gpu)];
      const int gb = ng.gpus[static_cast<size_t>(b.local_gpu)];
      Path p;
      if (ga == gb) {
        const Path up = ng.path(local_socket(a.local_gpu), ga, false);
        p = concat(reversed(up), up);  // two instances of one GPU: down to host memory and back
      } else {
        p = ng.path(ga, gb, a.whole && b.whole);
      }
      route(zone, a.host->get_netpoint(), b.host->get_netpoint(), links, p);
    }
  }
  // Host and devices <-> the node's fabric port, through each GPU's own NIC (GPUDirect RDMA / Storage).
  if ((topo_.inter_node || topo_.storage) && ng.port >= 0 && !ng.nics.empty()) {
    NetPoint* port = points.at(ng.port);
    const Path host_out = concat(ng.path(ng.cpu, ng.nics[0], false), Path{Hop{nic_link(ng, 0), true}});
    route(zone, cpu, port, links, host_out);
    route(zone, port, cpu, links, reversed(host_out));
    for (const auto& d : parts.devices) {
      const int gv = ng.gpus[static_cast<size_t>(d.local_gpu)];
      const int j = ng.gpu_nic.empty() ? -1 : ng.gpu_nic[static_cast<size_t>(d.local_gpu)];
      const Path out =
          j >= 0
              ? concat(ng.path(gv, ng.nics[static_cast<size_t>(j)], false), Path{Hop{nic_link(ng, j), true}})
              : concat(reversed(ng.path(local_socket(d.local_gpu), gv, false)),
                       concat(ng.path(local_socket(d.local_gpu), ng.nics[0], false), Path{Hop{nic_link(ng, 0), true}}));
      route(zone, d.host->get_netpoint(), port, links, out);
      route(zone, port, d.host->get_netpoint(), links, reversed(out));
      nic_of_[d.host] = std::max(0, j);
    }
    nic_of_[parts.cpu] = 0;
    // Rail ports: every device and host memory reaches each NIC's router (railOptimized fabrics leave
    // through the NIC router of the rail; finish() adds the NIC link beyond it).
    if (topo_.fabric.rails) {
      for (size_t j = 0; j < ng.nics.size(); ++j) {
        NetPoint* nic = points.at(ng.nics[j]);
        const Path from_cpu = ng.path(ng.cpu, ng.nics[j], false);
        route(zone, cpu, nic, links, from_cpu);
        route(zone, nic, cpu, links, reversed(from_cpu));
        for (const auto& d : parts.devices) {
          const Path q = ng.path(ng.gpus[static_cast<size_t>(d.local_gpu)], ng.nics[j], false);
          route(zone, d.host->get_netpoint(), nic, links, q);
          route(zone, nic, d.host->get_netpoint(), links, reversed(q));
        }
        if (parts.nvme) {
          const Path q = ng.path(ng.nvme, ng.nics[j], false);
          route(zone, parts.nvme->get_netpoint(), nic, links, q);
          route(zone, nic, parts.nvme->get_netpoint(), links, reversed(q));
        }
      }
    }
  }
  // Local NVMe.
  if (parts.nvme) {
    const Path p = ng.path(ng.cpu, ng.nvme, false);
    route(zone, cpu, parts.nvme->get_netpoint(), links, p);
    route(zone, parts.nvme->get_netpoint(), cpu, links, reversed(p));
    for (const auto& d : parts.devices) {
      const Path q = ng.path(ng.gpus[static_cast<size_t>(d.local_gpu)], ng.nvme, false);
      route(zone, d.host->get_netpoint(), parts.nvme->get_netpoint(), links, q);
      route(zone, parts.nvme->get_netpoint(), d.host->get_netpoint(), links, reversed(q));
    }
  }
  // Front-end network port.
  if (topo_.frontend) {
    NetPoint* fe = zone->create_router(ref.name + "-fe");
    points[-1] = fe;
    Link l{LinkKind::FRONTEND,
           "fe-nic",
           -1,
           -1,
           spec_.fabric.frontend_bandwidth.value,
           spec_.fabric.frontend_bandwidth.value,
           0,
           1,
           -1};
    auto* nic = static_cast<sg4::SplitDuplexLink*>(make_link(zone, ref.name + "-fe-nic", l));
    zone->add_route(fe, cpu, nullptr, nullptr, {sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP)}, false);
    zone->add_route(cpu, fe, nullptr, nullptr, {sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::DOWN)}, false);
  }
}

void Platform::finish() {
  for (auto& parts : nodes_) {
    if (!parts.zone) continue;
    parts.zone->set_parent(root_);
    parts.zone->seal();
  }
  const auto& f = topo_.fabric;
  // Storage systems: striped over servers, each with its share of the bandwidth on its own disk.
  for (size_t k = 0; k < spec_.storage.size() && topo_.storage; ++k) {
    const auto& st = spec_.storage[k];
    StoreParts parts;
    parts.zone = sg4::create_full_zone("storage-" + st.name);
    parts.zone->set_parent(root_);
    NetPoint* gw = parts.zone->create_router(st.name + "-gw");
    const double servers = static_cast<double>(std::max(1, st.servers));
    const double read = st.read_bandwidth.value / servers, write = st.write_bandwidth.value / servers;
    for (int s = 0; s < st.servers; ++s) {
      const std::string name = st.name + "-s" + std::to_string(s);
      auto* host = parts.zone->create_host(name, 1e9);
      auto* disk = host->create_disk(name + "-disk", read, write);
      disk->seal();
      // The server's network port is not the bottleneck (25% above its disk).
      Link l{LinkKind::STORAGE,
             name + "-port",
             -1,
             -1,
             1.25 * std::max(read, write),
             1.25 * std::max(read, write),
             0,
             1,
             -1};
      auto* port = static_cast<sg4::SplitDuplexLink*>(make_link(parts.zone, name + "-port", l));
      parts.zone->add_route(gw, host->get_netpoint(), nullptr, nullptr,
                            {sg4::LinkInRoute(port, sg4::LinkInRoute::Direction::UP)}, false);
      parts.zone->add_route(host->get_netpoint(), gw, nullptr, nullptr,
                            {sg4::LinkInRoute(port, sg4::LinkInRoute::Direction::DOWN)}, false);
      parts.servers.push_back(host);
      parts.disks.push_back(disk);
    }
    parts.zone->seal();
    stores_.push_back(parts);
    store_gw_.push_back(gw);
  }
  if (topo_.frontend) {
    frontend_zone_ = sg4::create_full_zone("frontend");
    frontend_zone_->set_parent(root_);
    frontend_ = frontend_zone_->create_host("clients", 1e9);
    frontend_zone_->seal();
  }
  // Fabric links in the root zone.
  fabric_links_.assign(f.links.size(), nullptr);
  for (size_t i = 0; i < f.links.size(); ++i)
    fabric_links_[i] = make_link(root_, f.link(static_cast<int>(i)).name, f.link(static_cast<int>(i)));
  const auto root_route = [&](NetPoint* za, NetPoint* zb, NetPoint* ga, NetPoint* gb, const Path& p) {
    if (p.empty()) return;
    std::vector<sg4::LinkInRoute> hops;
    for (const auto& h : p)
      hops.emplace_back(fabric_links_[static_cast<size_t>(h.link)],
                        h.up ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
    root_->add_route(za, zb, ga, gb, hops, false);
  };
  if (f.rails) add_rails();
  const auto port_of = [&](size_t n) {
    const NodeGraph& ng = topo_.pools[static_cast<size_t>(topo_.nodes[n].pool)];
    return node_points_[n].count(ng.port) ? node_points_[n].at(ng.port) : nullptr;
  };
  if (topo_.inter_node) {
    for (size_t a = 0; a < nodes_.size(); ++a)
      for (size_t b = 0; b < nodes_.size(); ++b) {
        if (a == b || !port_of(a) || !port_of(b)) continue;
        root_route(nodes_[a].zone->get_netpoint(), nodes_[b].zone->get_netpoint(), port_of(a), port_of(b),
                   f.path(f.node_port[a], f.node_port[b], static_cast<int>(b)));
      }
  }
  for (size_t k = 0; k < stores_.size(); ++k) {
    for (size_t n = 0; n < nodes_.size(); ++n) {
      if (!port_of(n)) continue;
      root_route(nodes_[n].zone->get_netpoint(), stores_[k].zone->get_netpoint(), port_of(n), store_gw_[k],
                 f.path(f.node_port[n], f.store[k], static_cast<int>(n)));
      root_route(stores_[k].zone->get_netpoint(), nodes_[n].zone->get_netpoint(), store_gw_[k], port_of(n),
                 f.path(f.store[k], f.node_port[n], static_cast<int>(n)));
    }
  }
  if (frontend_) {
    for (size_t n = 0; n < nodes_.size(); ++n) {
      // The front-end port of node n is vertex "<node>-fe" of the fabric graph.
      int fe_vertex = -1;
      for (auto [v, end] = boost::vertices(f.g()); v != end; ++v)
        if (f.g()[*v].kind == VertexKind::FRONTEND_PORT && f.g()[*v].index == static_cast<int>(n))
          fe_vertex = static_cast<int>(*v);
      const Path p = f.path(f.frontend, fe_vertex, 0);
      root_route(frontend_zone_->get_netpoint(), nodes_[n].zone->get_netpoint(), frontend_->get_netpoint(),
                 node_points_[n].at(-1), p);
      root_route(nodes_[n].zone->get_netpoint(), frontend_zone_->get_netpoint(), node_points_[n].at(-1),
                 frontend_->get_netpoint(), reversed(p));
    }
  }
}

// railOptimized: one zone per rail leaf (a router, and a port host per node cabled to it), routes from
// each node's NIC routers to its rail ports, and between rail leaves and to storage over the spines.
void Platform::add_rails() {
  const auto& f = topo_.fabric;
  const auto fabric_hops = [&](const Path& p) {
    std::vector<sg4::LinkInRoute> hops;
    for (const auto& h : p)
      hops.emplace_back(fabric_links_[static_cast<size_t>(h.link)],
                        h.up ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
    return hops;
  };
  const auto cable_of = [&](int port) {
    for (size_t i = 0; i < f.links.size(); ++i)
      if (f.links[i].from == port) return static_cast<int>(i);
    return -1;
  };
  rail_ports_.assign(nodes_.size(), {});
  std::vector<std::vector<NetPoint*>> leaf_router(f.rail_leaf.size());
  std::vector<std::vector<sg4::NetZone*>> leaf_zone(f.rail_leaf.size());
  for (size_t grp = 0; grp < f.rail_leaf.size(); ++grp) {
    for (size_t j = 0; j < f.rail_leaf[grp].size(); ++j) {
      const std::string name = f.g()[static_cast<Graph::vertex_descriptor>(f.rail_leaf[grp][j])].name;
      auto* zone = sg4::create_full_zone(name);
      zone->set_parent(root_);
      NetPoint* leaf = zone->create_router(name + "-leaf");
      std::vector<std::pair<sg4::Host*, int>> ports;  // (port host, cable link)
      for (size_t n = 0; n < nodes_.size(); ++n) {
        if (f.group_of[n] != static_cast<int>(grp) || j >= f.rail_port[n].size()) continue;
        auto* host = zone->create_host(topo_.nodes[n].name + "-rail" + std::to_string(j) + "-port", 1e9);
        const int cable = cable_of(f.rail_port[n][j]);
        ports.emplace_back(host, cable);
        if (rail_ports_[n].size() <= j) rail_ports_[n].resize(j + 1, nullptr);
        rail_ports_[n][j] = host;
        const Path up{Hop{cable, true}};
        zone->add_route(host->get_netpoint(), leaf, nullptr, nullptr, fabric_hops(up), false);
        zone->add_route(leaf, host->get_netpoint(), nullptr, nullptr, fabric_hops(reversed(up)), false);
      }
      for (const auto& [a, ca] : ports)
        for (const auto& [b, cb] : ports)
          if (a != b)
            zone->add_route(a->get_netpoint(), b->get_netpoint(), nullptr, nullptr,
                            fabric_hops(Path{Hop{ca, true}, Hop{cb, false}}), false);
      zone->seal();
      leaf_router[grp].push_back(leaf);
      leaf_zone[grp].push_back(zone);
    }
  }
  // Node <-> its rail ports: through the NIC's router and the NIC link.
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const NodeGraph& ng = topo_.pools[static_cast<size_t>(topo_.nodes[n].pool)];
    const size_t grp = static_cast<size_t>(f.group_of[n]);
    for (size_t j = 0; j < rail_ports_[n].size() && j < ng.nics.size(); ++j) {
      auto* link = nodes_[n].links[static_cast<size_t>(nic_link(ng, static_cast<int>(j)))];
      NetPoint* nic = node_points_[n].at(ng.nics[j]);
      NetPoint* port = rail_ports_[n][j]->get_netpoint();
      root_->add_route(nodes_[n].zone->get_netpoint(), leaf_zone[grp][j]->get_netpoint(), nic, port,
                       {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, false);
      root_->add_route(leaf_zone[grp][j]->get_netpoint(), nodes_[n].zone->get_netpoint(), port, nic,
                       {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::DOWN)}, false);
    }
  }
  // Rail leaf <-> rail leaf (over a spine, d-mod-k by the destination group) and rail leaf <-> storage.
  for (size_t ga = 0; ga < f.rail_leaf.size(); ++ga)
    for (size_t ja = 0; ja < f.rail_leaf[ga].size(); ++ja) {
      for (size_t gb = 0; gb < f.rail_leaf.size(); ++gb)
        for (size_t jb = 0; jb < f.rail_leaf[gb].size(); ++jb) {
          if (ga == gb && ja == jb) continue;
          const Path p = f.path(f.rail_leaf[ga][ja], f.rail_leaf[gb][jb], static_cast<int>(gb));
          if (p.empty()) continue;
          root_->add_route(leaf_zone[ga][ja]->get_netpoint(), leaf_zone[gb][jb]->get_netpoint(), leaf_router[ga][ja],
                           leaf_router[gb][jb], fabric_hops(p), false);
        }
      for (size_t k = 0; k < stores_.size(); ++k) {
        const Path p = f.path(f.rail_leaf[ga][ja], f.store[k], static_cast<int>(ga));
        if (p.empty()) continue;
        root_->add_route(leaf_zone[ga][ja]->get_netpoint(), stores_[k].zone->get_netpoint(), leaf_router[ga][ja],
                         store_gw_[k], fabric_hops(p), false);
        root_->add_route(stores_[k].zone->get_netpoint(), leaf_zone[ga][ja]->get_netpoint(), store_gw_[k],
                         leaf_router[ga][ja], fabric_hops(reversed(p)), false);
      }
    }
}

sg4::Host* Platform::rail_port(int node, int nic) const {
  if (node < 0 || static_cast<size_t>(node) >= rail_ports_.size()) return nullptr;
  const auto& ports = rail_ports_[static_cast<size_t>(node)];
  return nic >= 0 && static_cast<size_t>(nic) < ports.size() ? ports[static_cast<size_t>(nic)] : nullptr;
}

std::vector<std::pair<sg4::Host*, sg4::Host*>> Platform::legs(sg4::Host* a, sg4::Host* b) const {
  if (!topo_.fabric.rails || a == frontend_ || b == frontend_) return {{a, b}};
  const int na = node_of(a), nb = node_of(b);
  if (na == nb) return {{a, b}};  // inside one node (or between two non-node hosts)
  const auto port = [&](sg4::Host* h, int n) {
    auto it = nic_of_.find(h);
    return rail_port(n, it == nic_of_.end() ? 0 : it->second);
  };
  sg4::Host* pa = na >= 0 ? port(a, na) : nullptr;
  sg4::Host* pb = nb >= 0 ? port(b, nb) : nullptr;
  std::vector<std::pair<sg4::Host*, sg4::Host*>> out;
  if (pa) out.emplace_back(a, pa);
  out.emplace_back(pa ? pa : a, pb ? pb : b);
  if (pb) out.emplace_back(pb, b);
  return out;
}

int Platform::node_of(const sg4::Host* host) const {
  auto it = node_of_.find(host);
  return it == node_of_.end() ? -1 : it->second;
}

std::vector<std::string> Platform::route_links(sg4::Host* a, sg4::Host* b) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  a->route_to(b, links, &latency);
  std::vector<std::string> names;
  for (auto* l : links) names.push_back(l->get_name());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

double Platform::alone_seconds(const std::vector<Transfer>& transfers) const {
  struct Leg {
    std::vector<size_t> links;  // indices into `capacity` / `fat`
    double left;
  };
  std::vector<Leg> legs_of_all;
  std::vector<double> capacity;
  std::vector<bool> fat;
  std::map<const sg4::Link*, size_t> index;
  double latency = 0;
  for (const auto& t : transfers) {
    if (t.bytes <= 0 || t.from == t.to) continue;
    for (const auto& [a, b] : legs(t.from, t.to)) {
      std::vector<sg4::Link*> route;
      double lat = 0;
      a->route_to(b, route, &lat);
      latency = std::max(latency, lat);
      Leg leg{{}, t.bytes};
      for (const auto* l : route) {
        auto [it, added] = index.emplace(l, capacity.size());
        if (added) {
          capacity.push_back(l->get_bandwidth());
          fat.push_back(l->get_sharing_policy() == sg4::Link::SharingPolicy::FATPIPE);
        }
        leg.links.push_back(it->second);
      }
      legs_of_all.push_back(std::move(leg));
    }
  }
  // Progressive filling: every unfrozen leg's rate rises together until a link is full (or a fat pipe caps
  // it); the legs through that link freeze; repeat. Then advance to the first completion and start over.
  double elapsed = 0;
  std::vector<size_t> active;
  for (size_t i = 0; i < legs_of_all.size(); ++i) active.push_back(i);
  while (!active.empty()) {
    std::vector<double> rate(legs_of_all.size(), 0.0);
    std::vector<bool> frozen(legs_of_all.size(), false);
    std::vector<double> room = capacity;
    size_t unfrozen = active.size();
    while (unfrozen > 0) {
      // The smallest equal increment that fills a shared link or reaches a fat pipe's cap.
      double step = std::numeric_limits<double>::infinity();
      std::vector<int> users(capacity.size(), 0);
      for (size_t i : active)
        if (!frozen[i])
          for (size_t l : legs_of_all[i].links) users[l] += 1;
      for (size_t i : active)
        if (!frozen[i])
          for (size_t l : legs_of_all[i].links)
            step = std::min(step, fat[l] ? capacity[l] - rate[i] : room[l] / users[l]);
      if (!std::isfinite(step)) break;  // legs without links (same host): no bandwidth limit
      for (size_t i : active)
        if (!frozen[i]) {
          rate[i] += step;
          for (size_t l : legs_of_all[i].links)
            if (!fat[l]) room[l] -= step;
        }
      for (size_t i : active) {
        if (frozen[i]) continue;
        for (size_t l : legs_of_all[i].links)
          if ((fat[l] && rate[i] >= capacity[l] * (1 - 1e-12)) || (!fat[l] && room[l] <= capacity[l] * 1e-12)) {
            frozen[i] = true;
            --unfrozen;
            break;
          }
      }
    }
    double next = std::numeric_limits<double>::infinity();
    for (size_t i : active)
      if (rate[i] > 0) next = std::min(next, legs_of_all[i].left / rate[i]);
    if (!std::isfinite(next)) break;
    elapsed += next;
    std::vector<size_t> still;
    for (size_t i : active) {
      legs_of_all[i].left -= rate[i] * next;
      if (legs_of_all[i].left > 1e-3) still.push_back(i);  // bytes: below a thousandth it has ended
    }
    active = std::move(still);
  }
  return elapsed + latency;
}

}  // namespace gtw::fabric
