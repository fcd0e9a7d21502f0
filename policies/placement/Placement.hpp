#pragma once
// The placement policy interface: everything a policy author needs, and nothing of SimGrid.
// A policy sees a read-only view of the cluster's GPUs and answers where a replica goes.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "Registry.hpp"
#include "Scenario.hpp"

namespace gtw::policy {

struct GpuView {
  int index = 0;  // global GPU index
  int node = 0;   // global node index
  int local = 0;  // index within its node
  int pool = 0;   // node pool index
  std::string pool_name;
  SharingMode mode = SharingMode::EXCLUSIVE;
  int slots = 1;  // replicas the GPU can host (exclusive: 1; time-slicing: replicas)
  int used_slots = 0;
  double memory_total = 0;      // bytes
  double memory_committed = 0;  // bytes requested by the replicas placed so far (may exceed total
                                // on GPUs without memory isolation)
  std::vector<int> tenants;     // tenant indices of the replicas placed so far
  std::string mig_profile;      // for a MIG instance: its profile (3g.40gb); empty for a whole GPU
  std::string resource;         // the Kubernetes resource it is advertised as (nvidia.com/gpu, ...)
  bool available = true;        // false while a MIG instance is draining, re-partitioned away, or not yet created
  double capacity = 1.0;        // share of a physical GPU this device is (a MIG instance: its compute slices / 7)
  int physical = -1;            // physical GPU id: the MIG instances of one GPU share it (compliance: co-tenancy)
  int last_tenant = -1;         // tenant of the last replica placed on the device (compliance: scrubbing)
  int free_slots() const { return slots - used_slots; }
  /// Free capacity in GPU equivalents: the unused share of the device's slots, times its size.
  double free_capacity() const { return slots > 0 ? capacity * free_slots() / slots : 0.0; }
};

struct PlacementRequest {
  int workload = -1;
  int replica = 0;
  int tenant = -1;
  int gpus = 1;                              // GPUs needed, all on one node
  double memory = 0;                         // bytes per GPU
  std::vector<SharingMode> allowed_sharing;  // empty = any
  std::string node_pool;                     // empty = any
  std::string mig_profile;                   // empty = any device; else a MIG instance of this profile
  std::string resource;                      // empty = any device; else one advertised as this resource
};

/// One class of the expected request mix: what fragmentation-aware policies measure free capacity against.
struct DemandClass {
  PlacementRequest request;
  double weight = 0;  // share of the demand (the weights sum to 1)
};

class DeviceIndex;  // DeviceIndex.hpp: the devices' free capacity, ordered as the built-in policies choose

/// Where a ClusterView keeps its device index. A copy starts empty (a trial copy is changed without telling the
/// index, and falls back to a pass over the devices); a move takes the index along.
class DeviceIndexSlot {
 public:
  DeviceIndexSlot();
  ~DeviceIndexSlot();
  DeviceIndexSlot(const DeviceIndexSlot&) noexcept;
  DeviceIndexSlot& operator=(const DeviceIndexSlot&) noexcept;
  DeviceIndexSlot(DeviceIndexSlot&&) noexcept;
  DeviceIndexSlot& operator=(DeviceIndexSlot&&) noexcept;
  std::unique_ptr<DeviceIndex> index;
};

struct ClusterView {
  std::vector<GpuView> gpus;
  /// Classification of each tenant, by tenant index (empty: unknown, every tenant alike).
  std::vector<Classification> tenant_classification;
  /// The expected mix of requests (the scenario's workloads, weighted by the GPUs they ask for).
  std::vector<DemandClass> demand;

  /// Builds the index that first-fit, spread, tightest-fit, packing and fgd rank nodes in: O(log nodes) per decision
  /// instead of a pass over every device, the same choices. From then on, every change of a device must be
  /// followed by changed(g); a change of `demand` needs the index built again. Returns false, and builds nothing,
  /// unless the devices are listed node by node and carry physical ids, each physical GPU in one node (as the
  /// engine's views do).
  bool build_index();
  /// Device g changed (slots used, availability, anything): re-scores its node in the index; nothing without one.
  void changed(size_t g);
  const DeviceIndex* index() const { return index_slot.index.get(); }
  /// The devices of `node` in view order while the index is built (it requires the devices listed node by node,
  /// each physical GPU in one node); every device otherwise. A search for the devices that share a physical GPU
  /// (compliance: co-tenancy) looks there instead of over the whole cluster.
  std::span<const GpuView> node_or_all(int node) const;

  DeviceIndexSlot index_slot;
};

/// True when the GPU could take one more replica of the request (slot free, constraints met).
/// Memory is checked only where the sharing mode isolates memory (exclusive GPUs); time-sliced
/// GPUs accept the replica and fail it at allocation time, as in production.
bool eligible(const GpuView& gpu, const PlacementRequest& request);

/// The part of eligible() that does not change while the simulation runs: pool, sharing mode, MIG profile,
/// resource and (where memory is isolated) memory size. eligible() = available, a slot free, and this.
bool fits_request(const GpuView& gpu, const PlacementRequest& request);

/// The fragmentation FGD descends, for the devices of one node: per demand class, the free capacity (GPU
/// equivalents) the class cannot use (devices it is not eligible for; every device when fewer eligible
/// devices than one request needs), weighted by the class's share. It is the frag_gpu_milli of "Beware of
/// Fragmentation" (ATC'23; policies/packing weighted_frag) over the twin's devices: a slot is the share one
/// replica takes, eligibility adds what a GPU model mask cannot say (pool, sharing mode, MIG profile,
/// isolated memory). On whole or evenly sliced GPUs the two are equal (tests/unit/PlacementFamilyTest.cpp).
double fragmentation(const std::vector<GpuView>& devices, const std::vector<DemandClass>& demand);

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  /// Global GPU indices for the request (size == request.gpus, all on one node), or nullopt.
  virtual std::optional<std::vector<int>> place(const PlacementRequest& request, const ClusterView& view) = 0;
};

using PlacementRegistry = Registry<PlacementPolicy>;

/// Registers first-fit, tightest-fit, ... (explicit, so static linking cannot drop them).
void register_builtin_placement(PlacementRegistry& registry);
const PlacementRegistry& builtin_placement_registry();

}  // namespace gtw::policy
