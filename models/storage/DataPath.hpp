#pragma once
// Movements of tagged data over the platform (docs/models/storage.md): reads and writes between
// GPUs and storage (shared file system, object store, local NVMe, host memory), GPU-to-GPU traffic
// between nodes, and front-end requests. Each call runs the transfers (SimGrid comms on the routes of
// models/fabric, disk I/O on the storage servers; max-min sharing with every other tenant's flows),
// applies the path policies (storage ACL, segmentation, encryption in transit, GPUDirect) and records
// one DATA_MOVE or DATA_DENIED event with its DataMovement. Call from an actor.
#include <string>
#include <utility>
#include <vector>

#include "GpuDevice.hpp"
#include "Platform.hpp"
#include "SimContext.hpp"

namespace gtw::storage {

/// Who moves the data.
struct Mover {
  int tenant = -1;
  int workload = -1;
  int replica = -1;
  std::string identity;     // principal (default: the tenant's name)
  bool gpu_direct = false;  // GPUDirect Storage / RDMA
};
Mover mover_of(const SimContext& ctx, int workload, int replica);

/// Index of a data item by name (-1 if absent).
int data_index(const ScenarioSpec& spec, const std::string& name);

/// Reads `bytes` of data item `data` into each GPU (concurrently). False when the access is refused
/// (nothing moves). A data item in host memory is a plain host-to-device copy per GPU.
bool read_to_gpus(SimContext& ctx, const Mover& who, int data, const std::vector<GpuDevice*>& gpus, double bytes);
/// Writes `bytes` from each GPU (concurrently) to data item `data`'s store.
bool write_from_gpus(SimContext& ctx, const Mover& who, int data, const std::vector<GpuDevice*>& gpus, double bytes);
/// GPU-to-GPU transfers between nodes, all at once (e.g. one phase of an all-reduce): over
/// GPUDirect RDMA (GPU - PCIe switch - NIC) or staged through both hosts' memory. `data` tags them
/// (-1: untagged); one event for the whole set.
void transfer_between_gpus(SimContext& ctx, const Mover& who, int data,
                           const std::vector<std::pair<GpuDevice*, GpuDevice*>>& pairs, double bytes);
/// Request (to_node) or response bytes between the clients and a node's host over the front-end
/// network; recorded against the tenant's `requests` data item if it has one.
void frontend_transfer(SimContext& ctx, const Mover& who, GpuDevice* gpu, double bytes, bool to_node);

/// Time a training job would spend alone per run on its storage and fabric I/O beyond the
/// single-node model of training_step_ideal: dataset reads from a store, checkpoints, and a multi-node
/// all-reduce timed on the job's own routes with nothing else on them (fabric::Platform::alone_seconds:
/// the leaf uplinks of an oversubscribed fat tree included), for its slowdown SLO.
double ideal_step_io_seconds(const SimContext& ctx, const Mover& who, const WorkloadSpec& w, int dataset,
                             int checkpoint, const std::vector<GpuDevice*>& gpus);
/// The transfers transfer_between_gpus makes for `pairs` (direct, or staged through host memory).
std::vector<fabric::Platform::Transfer> gpu_pair_transfers(const SimContext& ctx, const Mover& who,
                                                           const std::vector<std::pair<GpuDevice*, GpuDevice*>>& pairs,
                                                           double bytes);

/// Whether the tenant's flows are encrypted in transit (networkPolicies).
bool encrypts_in_transit(const ScenarioSpec& spec, int tenant);
/// Model weights and checkpoints under spec.policies.isolation.weightEncryption: encrypted by their owner, at rest
/// and in transit, whatever the store or the network policy does (the replica's host decrypts them on load).
bool owner_encrypted(const ScenarioSpec& spec, int data);
/// The network segment of a tenant: its name when isolated, "shared" otherwise.
std::string segment_of(const ScenarioSpec& spec, int tenant);

}  // namespace gtw::storage
