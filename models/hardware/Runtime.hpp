#pragma once
// Workload runtimes: a runc container, a gVisor sandbox, a Kata micro-VM, a VM with GPU passthrough,
// a confidential VM. Each has its start-up time and host-device I/O cost, accepts some GPU sharing
// modes only, and leaves some layers shared with the other tenants of a node: those layers are the
// boundaries the leakage and compliance analyses reason about (docs/models/runtimes.md).
#include <string>
#include <vector>

#include "Scenario.hpp"

namespace gtw {

/// A layer of the software and hardware stack two tenants' processes may share.
enum class SharedLayer { HOST_KERNEL, GPU_DRIVER, CONTAINER_TOOLKIT, HYPERVISOR, HOST_MEMORY, HOST_MEMORY_ENCRYPTED };
const char* shared_layer_name(SharedLayer layer);

struct RuntimeModel {
  RuntimeKind kind = RuntimeKind::RUNC;
  double startup_s = 0;                  // from placement to the process ready to use the GPU
  double io_efficiency = 1;              // share of the PCIe bandwidth host-device copies reach
  double transfer_overhead_s = 0;        // added to every host-device copy (syscall or ioctl interposition)
  std::vector<SharingMode> gpu_modes;    // the sharing modes a replica of this runtime can be placed on
  std::vector<SharedLayer> host_layers;  // what it shares with any other process on the node
  std::string source;                    // where the numbers come from
};

/// The model of one runtime (AUTO is resolved first: see effective_runtime).
const RuntimeModel& runtime_model(RuntimeKind kind);
/// AUTO runs as a confidential VM on a GPU in confidential-computing mode and as runc elsewhere.
RuntimeKind effective_runtime(RuntimeKind requested, SharingMode gpu_mode);
/// Whether a replica of this runtime can run on a GPU shared this way (AUTO: any mode).
bool runtime_accepts(RuntimeKind requested, SharingMode gpu_mode);
/// The layers two tenants' processes share, given their effective runtimes and whether they run on
/// the same node and on the same GPU (a shared GPU adds no layer here: the partition models own it).
/// Sorted, without duplicates; empty for different nodes.
std::vector<SharedLayer> shared_layers(RuntimeKind a, RuntimeKind b, bool same_node);

}  // namespace gtw
