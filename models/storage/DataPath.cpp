#include "DataPath.hpp"

#include <xbt/log.h>
#include <algorithm>
#include <map>
#include <set>

#include "Comms.hpp"
#include "Platform.hpp"

XBT_LOG_EXTERNAL_CATEGORY(gtw);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(gtw_storage, gtw, "data movements over storage and network paths (models/storage)");

namespace gtw::storage {

namespace {

// Default per-request latency by storage kind (assumptions, docs/models/storage.md).
double store_latency(const StorageSpec& st) {
  if (st.latency.value >= 0) return st.latency.value;
  return st.kind == StorageKind::OBJECT_STORE ? 10e-3 : 100e-6;
}

const StorageSpec* find_store(const ScenarioSpec& spec, const std::string& name, int* index = nullptr) {
  for (size_t i = 0; i < spec.storage.size(); ++i) {
    if (spec.storage[i].name == name) {
      if (index) *index = static_cast<int>(i);
      return &spec.storage[i];
    }
  }
  return nullptr;
}

// A batch of activities started together and waited for together.
// A transfer crosses the legs the platform gives it (one route, or on a rail-optimised fabric the
// way out through the sender's rail and in through the receiver's), all carrying its bytes at once.
//
// The disk reads and writes run in a child actor that ends with the batch. SimGrid 3.32 keeps every
// finished Io in the list of activities of the actor that waited for it, and walks that list each
// time one of the actor's Comms finishes: a long-lived workload actor doing both went quadratic (a
// 512-GPU run with storage I/O took 40 CPU s, 17 s with this; `gputwin-simgrid-baseline iocomm ROUNDS 0|1` shows it).
// The child's list goes with it. Same start time, same sharing: the simulated results do not change.
struct Flows {
  const fabric::Platform* platform = nullptr;
  std::vector<sg4::CommPtr> comms;
  struct DiskOp {
    sg4::Disk* disk;
    sg_size_t bytes;
    bool read;
  };
  std::vector<DiskOp> disk_ops;
  std::set<std::string> links;
  explicit Flows(const fabric::Platform* p) : platform(p) {}
  void comm(sg4::Host* a, sg4::Host* b, double bytes) {
    if (bytes <= 0 || a == b) return;
    const auto legs = platform ? platform->legs(a, b) : std::vector<std::pair<sg4::Host*, sg4::Host*>>{{a, b}};
    for (const auto& [from, to] : legs) {
      for (auto& l : fabric::Platform::route_links(from, to)) links.insert(l);
      comms.push_back(sg4::Comm::sendto_async(from, to, static_cast<uint64_t>(bytes)));
    }
  }
  void read(sg4::Disk* d, double bytes) {
    if (bytes > 0) disk_ops.push_back({d, static_cast<sg_size_t>(bytes), true});
  }
  void write(sg4::Disk* d, double bytes) {
    if (bytes > 0) disk_ops.push_back({d, static_cast<sg_size_t>(bytes), false});
  }
  void wait() {
    sg4::ActorPtr disks;
    if (!disk_ops.empty())
      disks = sg4::Actor::create("disk-io", sg4::this_actor::get_host(), [ops = disk_ops] {
        std::vector<sg4::IoPtr> ios;
        ios.reserve(ops.size());
        for (const auto& op : ops)
          ios.push_back(op.read ? op.disk->read_async(op.bytes) : op.disk->write_async(op.bytes));
        for (auto& io : ios) io->wait();
      });
    fabric::wait_all(comms);
    if (disks) disks->join();
  }
};

sg4::Host* cpu_of(const SimContext& ctx, const GpuDevice* gpu) {
  return ctx.platform->node(gpu->node()).cpu;
}

std::string node_name(const SimContext& ctx, int node) {
  return ctx.platform->topology().nodes[static_cast<size_t>(node)].name;
}

DataMovement base_record(const SimContext& ctx, const Mover& who, int data) {
  DataMovement m;
  m.start = sg4::Engine::get_clock();
  m.data = data;
  m.owner = data >= 0 ? ctx.spec.data[static_cast<size_t>(data)].tenant_index : who.tenant;
  m.tenant = who.tenant;
  m.workload = who.workload;
  m.replica = who.replica;
  m.identity = who.identity;
  m.gpu_direct = who.gpu_direct;
  m.segment = segment_of(ctx.spec, who.tenant);
  m.encrypted_in_transit = encrypts_in_transit(ctx.spec, who.tenant) || owner_encrypted(ctx.spec, data);
  return m;
}

void record(SimContext& ctx, DataMovement m, const std::set<std::string>& links) {
  m.end = sg4::Engine::get_clock();
  m.links.assign(links.begin(), links.end());
  const double index = static_cast<double>(ctx.data_movements ? ctx.data_movements->size() : 0);
  const EventType type = m.allowed ? EventType::DATA_MOVE : EventType::DATA_DENIED;
  XBT_VERB("%s %.0f bytes %s -> %s over %zu shared link(s)%s", m.operation.c_str(), m.bytes, m.from.c_str(),
           m.to.c_str(), links.size(), m.allowed ? "" : (" refused: " + m.reason).c_str());
  const int tenant = m.tenant, workload = m.workload, replica = m.replica, gpu = m.gpu;
  const double bytes = m.bytes;
  if (ctx.data_movements) ctx.data_movements->push_back(std::move(m));
  ctx.emit({.time = sg4::Engine::get_clock(),
            .type = type,
            .tenant = tenant,
            .workload = workload,
            .replica = replica,
            .gpu = gpu,
            .value = bytes,
            .aux = index});
}

// Bytes a flow puts on the network: encrypted flows get `bandwidthFactor` of a link's bandwidth, i.e.
// cost 1/factor as many bytes of capacity.
double wire_bytes(const SimContext& ctx, const Mover& who, double bytes) {
  return encrypts_in_transit(ctx.spec, who.tenant) ? bytes / ctx.spec.fabric.encryption_bandwidth_factor : bytes;
}

// Refuses an access the store's ACL does not allow. True when allowed.
bool check_acl(SimContext& ctx, const StorageSpec& st, DataMovement& m) {
  if (st.allow.empty()) return true;
  const std::string tenant = m.tenant >= 0 ? ctx.spec.tenants[static_cast<size_t>(m.tenant)].name : "";
  if (std::find(st.allow.begin(), st.allow.end(), tenant) != st.allow.end()) return true;
  m.allowed = false;
  m.reason = "storage '" + st.name + "' does not allow tenant '" + tenant + "'";
  return false;
}

// Refuses an access an enforcing compliance rule forbids (the engine's guard): a COMPLIANCE_REFUSED event,
// then the DATA_DENIED record. True when allowed.
bool compliance_allows(SimContext& ctx, DataMovement& m) {
  if (!ctx.access_guard) return true;
  const auto refusal = ctx.access_guard(m);
  if (!refusal) return true;
  ctx.emit({.time = sg4::Engine::get_clock(),
            .type = EventType::COMPLIANCE_REFUSED,
            .tenant = m.tenant,
            .workload = m.workload,
            .replica = m.replica,
            .gpu = m.gpu,
            .value = static_cast<double>(refusal->first),
            .aux = 1});
  m.allowed = false;
  m.reason = "compliance:" + refusal->second;
  record(ctx, std::move(m), {});
  return false;
}

// What a store access moves: the network transfers and the disk operations, started together.
struct IoPlan {
  std::vector<fabric::Platform::Transfer> transfers;
  struct DiskOp {
    sg4::Disk* disk;
    double bytes;
    bool read;
  };
  std::vector<DiskOp> disks;
};

// A node's local NVMe: each GPU's bytes through the node's NVMe disk, bouncing through host memory without
// GPUDirect Storage.
IoPlan nvme_plan(const SimContext& ctx, const Mover& who, const std::vector<GpuDevice*>& gpus, double bytes,
                 bool read) {
  IoPlan plan;
  for (auto* g : gpus) {
    const auto& node = ctx.platform->node(g->node());
    sg4::Host* cpu = node.cpu;
    sg4::Host* end = who.gpu_direct ? g->host() : cpu;
    plan.disks.push_back({node.nvme_disk, bytes, read});
    plan.transfers.push_back(read ? fabric::Platform::Transfer{node.nvme, end, bytes}
                                  : fabric::Platform::Transfer{end, node.nvme, bytes});
    if (!who.gpu_direct)
      plan.transfers.push_back(read ? fabric::Platform::Transfer{cpu, g->host(), bytes}
                                    : fabric::Platform::Transfer{g->host(), cpu, bytes});
  }
  return plan;
}

// A shared store: striped over its servers, each moving its share over its own port and disk.
IoPlan store_plan(const SimContext& ctx, const Mover& who, const fabric::StoreParts& parts,
                  const std::vector<GpuDevice*>& gpus, double bytes, bool read) {
  IoPlan plan;
  const double servers = static_cast<double>(parts.servers.size());
  const double wire = wire_bytes(ctx, who, bytes);
  for (auto* g : gpus) {
    sg4::Host* cpu = cpu_of(ctx, g);
    sg4::Host* end = who.gpu_direct ? g->host() : cpu;
    for (size_t s = 0; s < parts.servers.size(); ++s) {
      plan.disks.push_back({parts.disks[s], bytes / servers, read});
      plan.transfers.push_back(read ? fabric::Platform::Transfer{parts.servers[s], end, wire / servers}
                                    : fabric::Platform::Transfer{end, parts.servers[s], wire / servers});
    }
    // Without GPUDirect Storage the data bounces through host memory (a second PCIe crossing).
    if (!who.gpu_direct)
      plan.transfers.push_back(read ? fabric::Platform::Transfer{cpu, g->host(), bytes}
                                    : fabric::Platform::Transfer{g->host(), cpu, bytes});
  }
  return plan;
}

void start(Flows& flows, const IoPlan& plan) {
  for (const auto& t : plan.transfers) flows.comm(t.from, t.to, t.bytes);
  for (const auto& d : plan.disks) d.read ? flows.read(d.disk, d.bytes) : flows.write(d.disk, d.bytes);
}

// The plan alone: its transfers (max-min on their routes) and its disks (operations on one disk share its
// bandwidth) run together, so the slower of the two.
double alone_seconds(const SimContext& ctx, const IoPlan& plan) {
  std::map<sg4::Disk*, double> read_bytes, write_bytes;
  for (const auto& d : plan.disks) (d.read ? read_bytes : write_bytes)[d.disk] += d.bytes;
  double disks = 0;
  for (const auto& [disk, b] : read_bytes) disks = std::max(disks, b / disk->get_read_bandwidth());
  for (const auto& [disk, b] : write_bytes) disks = std::max(disks, b / disk->get_write_bandwidth());
  return std::max(disks, ctx.platform->alone_seconds(plan.transfers));
}

// Moves data between GPUs and a store: read (store to GPUs) or write.
bool storage_io(SimContext& ctx, const Mover& who, int data, const std::vector<GpuDevice*>& gpus, double bytes,
                bool read) {
  if (gpus.empty() || bytes <= 0) return true;
  const auto& item = ctx.spec.data[static_cast<size_t>(data)];
  DataMovement m = base_record(ctx, who, data);
  m.operation = read ? "read" : "write";
  m.gpu = gpus[0]->index();
  m.bytes = bytes * static_cast<double>(gpus.size());
  m.store = item.store;
  const std::string gpu_end = "gpu:" + std::to_string(gpus[0]->index());
  Flows flows(ctx.platform);
  if (item.store == HOST_MEMORY_STORE) {
    m.encrypted_in_transit = false;  // PCIe inside the node
    m.gpu_direct = false;
    // In the memory of one socket (`socket`), or NUMA-local to each GPU.
    const auto memory_of = [&](const GpuDevice* g) {
      const auto& sockets = ctx.platform->node(g->node()).sockets;
      return item.socket >= 0 && static_cast<size_t>(item.socket) < sockets.size()
                 ? sockets[static_cast<size_t>(item.socket)]
                 : cpu_of(ctx, g);
    };
    const std::string host =
        "host:" + node_name(ctx, gpus[0]->node()) + (item.socket >= 0 ? ":socket" + std::to_string(item.socket) : "");
    m.from = read ? host : gpu_end;
    m.to = read ? gpu_end : host;
    if (!compliance_allows(ctx, m)) return false;
    for (auto* g : gpus) read ? flows.comm(memory_of(g), g->host(), bytes) : flows.comm(g->host(), memory_of(g), bytes);
    flows.wait();
    record(ctx, std::move(m), flows.links);
    return true;
  }
  if (item.store == LOCAL_NVME_STORE) {
    m.encrypted_in_transit = false;
    const std::string nvme = "nvme:" + node_name(ctx, gpus[0]->node());
    m.from = read ? nvme : gpu_end;
    m.to = read ? gpu_end : nvme;
    m.region =
        ctx.spec
            .node_pools[static_cast<size_t>(ctx.platform->topology().nodes[static_cast<size_t>(gpus[0]->node())].pool)]
            .region;
    if (!compliance_allows(ctx, m)) return false;
    start(flows, nvme_plan(ctx, who, gpus, bytes, read));
    flows.wait();
    record(ctx, std::move(m), flows.links);
    return true;
  }
  int k = -1;
  const StorageSpec* st = find_store(ctx.spec, item.store, &k);
  if (!st) return true;  // refused by validation
  m.region = st->region;
  m.encrypted_at_rest = st->encrypted_at_rest || owner_encrypted(ctx.spec, data);
  const std::string store_end = "store:" + st->name;
  m.from = read ? store_end : gpu_end;
  m.to = read ? gpu_end : store_end;
  if (!check_acl(ctx, *st, m)) {
    record(ctx, std::move(m), {});
    return false;
  }
  if (!compliance_allows(ctx, m)) return false;
  double extra = store_latency(*st);
  if (m.encrypted_in_transit) extra += ctx.spec.fabric.encryption_latency.value;
  sg4::this_actor::sleep_for(extra);
  start(flows, store_plan(ctx, who, ctx.platform->store(k), gpus, bytes, read));
  flows.wait();
  record(ctx, std::move(m), flows.links);
  return true;
}

}  // namespace

Mover mover_of(const SimContext& ctx, int workload, int replica) {
  Mover m;
  const auto& w = ctx.spec.workloads[static_cast<size_t>(workload)];
  m.tenant = w.tenant_index;
  m.workload = workload;
  m.replica = replica;
  m.identity = !w.io.identity.empty() ? w.io.identity
               : w.tenant_index >= 0  ? ctx.spec.tenants[static_cast<size_t>(w.tenant_index)].name
                                      : "";
  m.gpu_direct = w.io.gpu_direct;
  return m;
}

int data_index(const ScenarioSpec& spec, const std::string& name) {
  for (size_t i = 0; i < spec.data.size(); ++i)
    if (spec.data[i].name == name) return static_cast<int>(i);
  return -1;
}

bool owner_encrypted(const ScenarioSpec& spec, int data) {
  if (!spec.isolation.weight_encryption || data < 0) return false;
  const DataKind kind = spec.data[static_cast<size_t>(data)].kind;
  return kind == DataKind::WEIGHTS || kind == DataKind::CHECKPOINT;
}

bool encrypts_in_transit(const ScenarioSpec& spec, int tenant) {
  if (tenant < 0) return false;
  const std::string& name = spec.tenants[static_cast<size_t>(tenant)].name;
  for (const auto& p : spec.network_policies)
    if (p.tenant == name && p.encrypt_in_transit) return true;
  return false;
}

std::string segment_of(const ScenarioSpec& spec, int tenant) {
  if (tenant < 0) return "shared";
  const std::string& name = spec.tenants[static_cast<size_t>(tenant)].name;
  for (const auto& p : spec.network_policies)
    if (p.tenant == name && p.isolated) return name;
  return "shared";
}

namespace {

// One hierarchical all-reduce of a job spanning nodes, alone: the intra-node rings before and after
// (NVLink), and the exchange of each GPU's shard with the same-rank GPU of the next node, each timed on
// the platform's routes (as Workload.cpp's hierarchical_allreduce moves them).
double alone_allreduce_seconds(const SimContext& ctx, const Mover& who, const WorkloadSpec& w,
                               const std::vector<GpuDevice*>& gpus) {
  std::map<int, std::vector<GpuDevice*>> by_node;
  for (auto* g : gpus) by_node[g->node()].push_back(g);
  std::vector<std::vector<GpuDevice*>> groups;
  for (auto& [node, members] : by_node) groups.push_back(members);
  const size_t m = groups[0].size();
  const double grad = w.gradient_bytes.value;
  std::vector<fabric::Platform::Transfer> intra;
  if (m >= 2)
    for (const auto& grp : groups)
      for (size_t g = 0; g < grp.size(); ++g)
        intra.push_back({grp[g]->host(), grp[(g + 1) % grp.size()]->host(),
                         grad * static_cast<double>(m - 1) / static_cast<double>(m)});
  std::vector<std::pair<GpuDevice*, GpuDevice*>> pairs;
  for (size_t k = 0; k < groups.size(); ++k)
    for (size_t r = 0; r < std::min(m, groups[(k + 1) % groups.size()].size()); ++r)
      pairs.emplace_back(groups[k][r], groups[(k + 1) % groups.size()][r]);
  const double nodes = static_cast<double>(std::max(1, w.nodes));
  const double inter_bytes = 2.0 * (nodes - 1) / nodes * grad / static_cast<double>(m);
  double t = 2 * ctx.platform->alone_seconds(intra) +
             ctx.platform->alone_seconds(gpu_pair_transfers(ctx, who, pairs, inter_bytes));
  if (encrypts_in_transit(ctx.spec, who.tenant)) t += ctx.spec.fabric.encryption_latency.value;
  return t;
}

}  // namespace

double ideal_step_io_seconds(const SimContext& ctx, const Mover& who, const WorkloadSpec& w, int dataset,
                             int checkpoint, const std::vector<GpuDevice*>& gpus) {
  if (gpus.empty() || !ctx.platform) return 0;
  const auto& profile = gpus[0]->profile();
  const double n = static_cast<double>(gpus.size());
  // Alone: the same transfers and disk operations as the access itself, on an idle platform.
  const auto io_time = [&](int data, double bytes, bool read) {
    if (data < 0 || bytes <= 0) return 0.0;
    const auto& item = ctx.spec.data[static_cast<size_t>(data)];
    const double pcie = read ? profile.pcie_h2d_achievable.value : profile.pcie_d2h_achievable.value;
    if (item.store == HOST_MEMORY_STORE) return bytes / pcie;
    if (item.store == LOCAL_NVME_STORE) return alone_seconds(ctx, nvme_plan(ctx, who, gpus, bytes, read));
    int k = -1;
    const StorageSpec* st = find_store(ctx.spec, item.store, &k);
    if (!st) return 0.0;
    double extra = store_latency(*st);
    if (encrypts_in_transit(ctx.spec, who.tenant)) extra += ctx.spec.fabric.encryption_latency.value;
    return extra + alone_seconds(ctx, store_plan(ctx, who, ctx.platform->store(k), gpus, bytes, read));
  };
  double t = 0;
  if (dataset >= 0) t += w.iterations * io_time(dataset, w.data_per_step.value, true);
  if (checkpoint >= 0 && w.io.checkpoint_every > 0)
    t += (w.iterations / w.io.checkpoint_every) * io_time(checkpoint, w.io.checkpoint_bytes.value, false);
  if (w.nodes > 1 && w.gradient_bytes.value > 0) {
    // Replace the single-node ring of training_step_ideal by the hierarchical all-reduce, alone.
    const double ring = 2.0 * (n - 1) / n * w.gradient_bytes.value / profile.peer_achievable(std::max(1, w.gpus));
    t += w.iterations * (alone_allreduce_seconds(ctx, who, w, gpus) - ring);
  }
  return t;
}

bool read_to_gpus(SimContext& ctx, const Mover& who, int data, const std::vector<GpuDevice*>& gpus, double bytes) {
  return storage_io(ctx, who, data, gpus, bytes, true);
}

bool write_from_gpus(SimContext& ctx, const Mover& who, int data, const std::vector<GpuDevice*>& gpus, double bytes) {
  return storage_io(ctx, who, data, gpus, bytes, false);
}

std::vector<fabric::Platform::Transfer> gpu_pair_transfers(const SimContext& ctx, const Mover& who,
                                                           const std::vector<std::pair<GpuDevice*, GpuDevice*>>& pairs,
                                                           double bytes) {
  const double wire = wire_bytes(ctx, who, bytes);
  std::vector<fabric::Platform::Transfer> out;
  for (const auto& [a, b] : pairs) {
    if (who.gpu_direct || a->node() == b->node()) {
      out.push_back({a->host(), b->host(), a->node() == b->node() ? bytes : wire});
    } else {
      // Staged: device to host memory, host to host over the fabric, host memory to device.
      out.push_back({a->host(), cpu_of(ctx, a), bytes});
      out.push_back({cpu_of(ctx, a), cpu_of(ctx, b), wire});
      out.push_back({cpu_of(ctx, b), b->host(), bytes});
    }
  }
  return out;
}

void transfer_between_gpus(SimContext& ctx, const Mover& who, int data,
                           const std::vector<std::pair<GpuDevice*, GpuDevice*>>& pairs, double bytes) {
  if (pairs.empty() || bytes <= 0) return;
  DataMovement m = base_record(ctx, who, data);
  m.operation = "transfer";
  m.gpu = pairs[0].first->index();
  m.bytes = bytes * static_cast<double>(pairs.size());
  m.from = "gpu:" + std::to_string(pairs[0].first->index());
  m.to = "gpu:" + std::to_string(pairs[0].second->index());
  if (m.encrypted_in_transit) sg4::this_actor::sleep_for(ctx.spec.fabric.encryption_latency.value);
  Flows flows(ctx.platform);
  for (const auto& t : gpu_pair_transfers(ctx, who, pairs, bytes)) flows.comm(t.from, t.to, t.bytes);
  flows.wait();
  record(ctx, std::move(m), flows.links);
}

void frontend_transfer(SimContext& ctx, const Mover& who, GpuDevice* gpu, double bytes, bool to_node) {
  if (bytes <= 0 || !ctx.platform || !ctx.platform->frontend()) return;
  int data = -1;
  for (size_t i = 0; i < ctx.spec.data.size(); ++i)
    if (ctx.spec.data[i].kind == DataKind::REQUESTS && ctx.spec.data[i].tenant_index == who.tenant) {
      data = static_cast<int>(i);
      break;
    }
  DataMovement m = base_record(ctx, who, data);
  m.operation = to_node ? "request" : "response";
  m.gpu = gpu->index();
  m.bytes = bytes;
  const std::string host = "host:" + node_name(ctx, gpu->node());
  m.from = to_node ? "frontend" : host;
  m.to = to_node ? host : "frontend";
  if (m.encrypted_in_transit) sg4::this_actor::sleep_for(ctx.spec.fabric.encryption_latency.value);
  Flows flows(ctx.platform);
  sg4::Host* cpu = cpu_of(ctx, gpu);
  to_node ? flows.comm(ctx.platform->frontend(), cpu, wire_bytes(ctx, who, bytes))
          : flows.comm(cpu, ctx.platform->frontend(), wire_bytes(ctx, who, bytes));
  flows.wait();
  record(ctx, std::move(m), flows.links);
}

}  // namespace gtw::storage
