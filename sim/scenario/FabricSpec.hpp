#pragma once
// The typed form of a scenario's network, storage and data sections (docs/models/fabric.md,
// docs/models/storage.md): node topology templates, the fabric between nodes, storage systems,
// tagged data items and per-tenant network policies.
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Units.hpp"

namespace gtw {

/// Inside a node: a built-in template (flat, hgx-h100, hgx-h200, pcie-l40s) or the text of
/// `nvidia-smi topo -m` (and optionally `nvidia-smi mig -lgi` for the MIG layout).
struct NodeTopologySpec {
  std::string template_name;    // empty: flat (one PCIe link per GPU to the host, one NVSwitch)
  std::string nvidia_smi_topo;  // path of a saved `nvidia-smi topo -m` output (resolved against the scenario)
  std::string nvidia_smi_mig;   // path of a saved `nvidia-smi mig -lgi` output
  std::string nvidia_smi_lci;   // path of a saved `nvidia-smi mig -lci` output (checked against the -lgi one)
  int nics = -1;                // < 0: the template's
  BytesPerSecond nic_bandwidth{-1};
  BytesPerSecond nvme_read{-1};
  BytesPerSecond nvme_write{-1};
  int sockets = -1;                // CPU sockets (1 or 2); < 0: the template's
  BytesPerSecond socket_link{-1};  // inter-socket link (UPI / xGMI) per direction; < 0: the template's
  SourceLoc loc;
  SourceLoc topo_loc;
  SourceLoc mig_loc;
  SourceLoc lci_loc;
};

enum class FabricKind { SINGLE_SWITCH, FAT_TREE, RAIL_OPTIMIZED };
const std::vector<std::string>& fabric_kind_names();

/// The network between nodes (and to storage and the front end).
struct FabricSpec {
  bool declared = false;
  FabricKind kind = FabricKind::SINGLE_SWITCH;
  int nodes_per_leaf = 4;                     // fatTree: nodes under one leaf; railOptimized: nodes per rail group
  int spines = 2;                             // fatTree / railOptimized: spine switches
  double oversubscription = 1.0;              // fatTree / railOptimized: leaf downlink / uplink bandwidth
  Seconds hop_latency{1e-6};                  // per switch hop
  double encryption_bandwidth_factor = 0.9;   // share of bandwidth left to encrypted traffic
  Seconds encryption_latency{5e-6};           // added per encrypted transfer
  BytesPerSecond frontend_bandwidth{12.5e9};  // front-end (client) network port of each node
  SourceLoc loc;
};

enum class StorageKind { PARALLEL_FS, OBJECT_STORE };
const std::vector<std::string>& storage_kind_names();

/// A shared storage system behind the fabric.
struct StorageSpec {
  std::string name;
  StorageKind kind = StorageKind::PARALLEL_FS;
  BytesPerSecond read_bandwidth{40e9};  // aggregate over the servers
  BytesPerSecond write_bandwidth{20e9};
  int servers = 4;
  Seconds latency{-1};  // per request; < 0: the kind's default (parallel FS 100us, object store 10ms)
  std::string region;
  bool encrypted_at_rest = false;
  std::vector<std::string> allow;  // tenants allowed (ACL); empty: every tenant
  SourceLoc loc;
};

/// The node-local NVMe of the node a workload runs on, as a store name.
inline constexpr const char* LOCAL_NVME_STORE = "localNvme";
/// Host memory of the node (data already staged there; no storage access).
inline constexpr const char* HOST_MEMORY_STORE = "host";

enum class DataKind { DATASET, CHECKPOINT, WEIGHTS, REQUESTS };
const std::vector<std::string>& data_kind_names();
const char* data_kind_name(DataKind k);

/// A tagged data item: who owns it, where it may live, how sensitive it is, where it is stored.
struct DataSpec {
  std::string name;
  DataKind kind = DataKind::DATASET;
  std::string tenant;
  int tenant_index = -1;                  // resolved by validation
  std::string region;                     // empty: the tenant's
  std::string classification;             // empty: the tenant's
  std::string category;                   // category of personal data (GDPR Art. 30(1)(c)); empty: classification
  std::string store = HOST_MEMORY_STORE;  // a storage name, localNvme or host
  int socket = -1;                        // store host: the CPU socket whose memory holds it (< 0: the GPU's own)
  SourceLoc loc;
  SourceLoc tenant_loc;
  SourceLoc store_loc;
  SourceLoc socket_loc;
};

/// Per-tenant network policy: segmentation (own partition: its flows are not readable by tenants
/// outside it) and encryption in transit.
struct NetworkPolicySpec {
  std::string tenant;
  bool isolated = false;                // segment of its own (IB partition key / VLAN / NetworkPolicy)
  bool encrypt_in_transit = false;      // every transfer of the tenant's data is encrypted
  std::vector<std::string> allow_from;  // tenants in its segment besides itself
  SourceLoc loc;
};

/// A workload's storage I/O: where its data comes from and goes to.
struct WorkloadIoSpec {
  std::string dataset;       // training: each step's input is read from this data item's store
  std::string weights;       // inference: the weights are read from this data item's store at start
  std::string checkpoint;    // training: checkpoints are written to this data item's store
  int checkpoint_every = 0;  // steps between checkpoints (0: none)
  Bytes checkpoint_bytes{0};
  bool gpu_direct = false;  // GPUDirect Storage / RDMA: storage and network to GPU memory without a CPU bounce
  std::string identity;     // principal the accesses run as (default: the tenant's name)
  Bytes request_bytes{0};   // inference: request payload over the front-end network
  Bytes response_bytes{0};  // inference: response payload
  // inference: per request, the serving front end's time (HTTP or gRPC, tokenisation, pre- and post-processing)
  // between the client and the replica's queue; in the request's latency and TTFT, no GPU time
  Seconds front_end{0};
  SourceLoc loc;
  SourceLoc dataset_loc, weights_loc, checkpoint_loc;
};

}  // namespace gtw
