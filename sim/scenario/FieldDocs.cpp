#include "FieldDocs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>

#include "Diagnostics.hpp"
#include "Units.hpp"

namespace gtw {

const std::vector<FieldDoc>& field_docs() {
  static const std::vector<FieldDoc> docs{
      {"", "mapping", "A scenario file: a Kubernetes-style envelope with apiVersion, kind, metadata and spec."},
      {"apiVersion", "string", "Must be gputwin.dev/v1alpha1."},
      {"kind", "string", "Must be Scenario."},
      {"metadata", "mapping", "Name and description of the scenario."},
      {"metadata.name", "string", "Short identifier, used in reports and result files."},
      {"metadata.description", "string", "Free text shown at the top of report.md."},
      {"metadata.labels", "mapping", "Free-form string labels (ignored by the simulator)."},
      {"spec", "mapping", "What to simulate."},
      {"spec.seed", "int", "Seed of every random stream (default 1). Same seed, same results."},
      {"spec.duration", "duration", "Simulated time during which requests and jobs arrive, e.g. 10m (default 60s)."},
      {"spec.slaWindow", "duration", "Default SLO evaluation window (default 60s)."},
      {"spec.cluster", "mapping", "The hardware: node pools of identical GPU servers."},
      {"spec.cluster.nodePools", "list", "Node pools; each pool is `count` nodes with `gpusPerNode` GPUs."},
      {"spec.cluster.nodePools[].name", "string", "Pool name, unique."},
      {"spec.cluster.nodePools[].count", "int", "Number of nodes (>= 1)."},
      {"spec.cluster.nodePools[].gpu", "string",
       "Hardware profile of the GPUs: a file calibration/profiles/<gpu>.yaml (see `gputwin profiles`), or the "
       "product name nvidia-smi reports or GPU feature discovery labels a node with (nvidia.com/gpu.product, e.g. "
       "NVIDIA-H100-80GB-HBM3), which stands for the profile listing it in metadata.productNames."},
      {"spec.cluster.nodePools[].fromNode", "mapping",
       "The pool's nodes as Kubernetes describes one of them: a Node read verbatim (kubectl get node -o yaml; a "
       "List or NodeList of Nodes, several documents, or the bare map of its labels), whose GPU feature discovery "
       "labels give "
       "gpu (nvidia.com/gpu.product), gpusPerNode (nvidia.com/gpu.count) and region "
       "(topology.kubernetes.io/region) where the pool does not, and must agree where it does; "
       "nvidia.com/gpu.memory and nvidia.com/mig.strategy are checked against the profile and the pool's MIG "
       "layout. nvidia.com/mig.config and "
       "nvidia.com/device-plugin.config are named in a warning (give migConfig / devicePluginConfig)."},
      {"spec.cluster.nodePools[].fromNode.file", "path", "The Kubernetes YAML or JSON file, relative to this file."},
      {"spec.cluster.nodePools[].fromNode.name", "string",
       "The Node's metadata.name; needed when the file has several."},
      {"spec.cluster.nodePools[].gpusPerNode", "int", "GPUs per node (1..16, default 8)."},
      {"spec.cluster.nodePools[].region", "string", "Region of the pool's nodes (data residency)."},
      {"spec.cluster.nodePools[].pricePerGpuHour", "number",
       "Cost of one GPU for an hour, in the user's cost units (e.g. a cloud list price or an amortised purchase); "
       "gives the design's cost and each tenant's chargeback. Default 0: not priced."},
      {"spec.cluster.nodePools[].hardware", "mapping",
       "Overrides of hardware profile fields for this pool, e.g. {hbmAchievable: 2.2TB/s, computeEfficiency: 0.6}; "
       "the field names are the profile's (`gputwin profiles`), each value is recorded with this location as "
       "its source. nvlinkTopology (nvswitch|bridgedPairs|none) and hostLink (pcie|nvlinkC2C) too: "
       "{nvlinkTopology: none} for H100 PCIe cards without their bridges."},
      {"spec.cluster.nodePools[].sharing", "mapping", "How each GPU of the pool is shared (default exclusive)."},
      {"spec.cluster.nodePools[].sharing.mode", "enum: exclusive|timeSlicing|mps|mig|vgpu|confidential",
       "Sharing mode. exclusive: one replica per GPU. timeSlicing: up to `replicas` replicas take turns in "
       "round-robin slices of `timeSlice`, with a context-switch cost and no memory isolation. mps: up to "
       "`replicas` clients run concurrently, each capped to `activeThreadPercentage` of the SMs and "
       "`pinnedMemoryLimit` of memory. mig: the GPU is split into the instances of `migLayout`, each an "
       "isolated device with its own SMs, memory and bandwidth. confidential: the whole GPU to one confidential "
       "VM (one replica): attestation at start, host-device copies through encrypted bounce buffers. vgpu: "
       "`replicas` virtual GPUs per GPU (time-sliced vGPU types: 1, 2, 4, 5, 8, 10, 16 or 20), each with "
       "1/replicas of the framebuffer, taking turns under `vgpuScheduler`."},
      {"spec.cluster.nodePools[].sharing.replicas", "int",
       "timeSlicing / mps: replicas per GPU, as in the k8s device plugin's sharing.*.resources[].replicas (2..48); "
       "vgpu: vGPUs per GPU."},
      {"spec.cluster.nodePools[].sharing.timeSlice", "duration|Short|Medium|Long",
       "timeSlicing: quantum; Short = 2ms, Medium = 10ms, Long = 30ms (nvidia-smi compute-policy). Default 2ms."},
      {"spec.cluster.nodePools[].sharing.contextSwitch", "duration",
       "timeSlicing: cost of one context switch; default from the GPU's hardware profile."},
      {"spec.cluster.nodePools[].sharing.activeThreadPercentage", "number",
       "mps: each client's SM cap in percent (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE); default 100 / replicas."},
      {"spec.cluster.nodePools[].sharing.pinnedMemoryLimit", "size",
       "mps: each client's device memory limit (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT); default memory / replicas."},
      {"spec.cluster.nodePools[].sharing.migLayout", "list of MIG profiles, or {profile: count}",
       "mig: the GPU instances of each GPU, e.g. [3g.40gb, 2g.20gb, 1g.10gb] or a mig-parted `mig-devices` mapping "
       "{\"3g.40gb\": 2}; checked against the product's placement rules (`gputwin profiles`)."},
      {"spec.cluster.nodePools[].sharing.migReplicas", "mapping {profile|all: int}",
       "mig: instances time-sliced among several replicas, by MIG profile (`all`: every instance; 1..48), as the "
       "device plugin's timeSlicing resources nvidia.com/mig-<profile> do, e.g. {\"1g.10gb\": 4}. A shared "
       "instance is a time-sliced device (timeSlice, contextSwitch) inside the MIG isolation: its replicas share its "
       "SMs, memory and fault domain; other instances stay isolated. A profile's own entry wins over `all`. "
       "Default: one replica per instance. With migConfig, give it through devicePluginConfig's shared MIG "
       "resources (sharing and migConfig exclude each other)."},
      {"spec.cluster.nodePools[].devicePluginConfig", "mapping",
       "Instead of `sharing`: the NVIDIA k8s device plugin's config verbatim (version: v1, flags.migStrategy, "
       "sharing.timeSlicing or sharing.mps with resources [{name: nvidia.com/gpu, replicas: N}]), a $ref to it or "
       "to a ConfigMap holding one config, or {file, config}. renameByDefault and rename are recorded (the "
       "advertised name only); failRequestsGreaterThanOne refuses workloads asking more than one GPU per replica "
       "on the pool (false: a warning, as N replicas of one GPU give no more compute). Shared MIG resources "
       "(nvidia.com/mig-<profile>, or nvidia.com/gpu under migStrategy single) time-slice the MIG instances of "
       "the pool's layout, as sharing.migReplicas does."},
      {"spec.cluster.nodePools[].devicePluginConfig.file", "path",
       "A device plugin config file, or a Kubernetes YAML file (several documents allowed) whose ConfigMap's data "
       "entries are named device plugin configs (the GPU Operator's devicePlugin.config ConfigMap); relative to "
       "this file."},
      {"spec.cluster.nodePools[].devicePluginConfig.config", "string",
       "The ConfigMap data key to use, as the node label nvidia.com/device-plugin.config selects it; needed when "
       "the ConfigMap holds more than one."},
      {"spec.cluster.nodePools[].migConfig", "mapping",
       "The GPUs' MIG layout from a mig-parted config (version: v1, mig-configs), bare or inside a ConfigMap "
       "(the GPU Operator's default-mig-parted-config), selected by name as the node label nvidia.com/mig.config "
       "does: {file, config}. Entries with a device-filter apply to products with that PCI device id (hardware "
       "profile field pciDeviceIds); per-device entries (devices: [0, 1]) become gpuSharing entries; mig-enabled: "
       "false leaves whole GPUs shared as `sharing` or devicePluginConfig says."},
      {"spec.cluster.nodePools[].migConfig.file", "path",
       "A mig-parted config file, or a Kubernetes YAML file with a ConfigMap whose data holds one; relative to "
       "this file."},
      {"spec.cluster.nodePools[].migConfig.config", "string",
       "The name under mig-configs, e.g. all-balanced (the value of the node label nvidia.com/mig.config)."},
      {"spec.cluster.nodePools[].migConfig.key", "string",
       "The ConfigMap data key holding the mig-parted config (e.g. config.yaml); needed only when the ConfigMap "
       "has several."},
      {"spec.cluster.nodePools[].sharing.vgpuScheduler", "enum: bestEffort|equalShare|fixedShare",
       "vgpu: bestEffort gives idle vGPUs' time to busy ones; equalShare gives every vGPU of the GPU its slice "
       "whether it has work or not; fixedShare does so for all `replicas` slots, occupied or not. Default bestEffort."},
      {"spec.cluster.nodePools[].gpuSharing", "list", "Per-GPU exceptions to `sharing`."},
      {"spec.cluster.nodePools[].gpuSharing[].gpus", "list of int", "GPU indices within each node (0-based)."},
      {"spec.cluster.nodePools[].gpuSharing[].mode", "enum", "As sharing.mode."},
      {"spec.cluster.nodePools[].gpuSharing[].replicas", "int", "As sharing.replicas."},
      {"spec.cluster.nodePools[].gpuSharing[].timeSlice", "duration", "As sharing.timeSlice."},
      {"spec.cluster.nodePools[].gpuSharing[].contextSwitch", "duration", "As sharing.contextSwitch."},
      {"spec.cluster.nodePools[].gpuSharing[].activeThreadPercentage", "number", "As sharing.activeThreadPercentage."},
      {"spec.cluster.nodePools[].gpuSharing[].pinnedMemoryLimit", "size", "As sharing.pinnedMemoryLimit."},
      {"spec.cluster.nodePools[].gpuSharing[].migLayout", "list", "As sharing.migLayout."},
      {"spec.cluster.nodePools[].gpuSharing[].migReplicas", "mapping", "As sharing.migReplicas."},
      {"spec.cluster.nodePools[].gpuSharing[].vgpuScheduler", "enum", "As sharing.vgpuScheduler."},
      {"spec.cluster.nodePools[].topology", "template name or mapping",
       "Inside each node (docs/models/fabric.md): a template, flat (default: one PCIe link per GPU to the host, "
       "the NVLink of the product's nvlinkTopology: one NVSwitch, bridged pairs or none), hgx-h100, hgx-h200 (8 SXM "
       "GPUs on NVSwitch, 4 PCIe "
       "switches with 2 GPUs, 2 NICs each, local NVMe) or pcie-l40s (GPUs behind 2 PCIe switches, no NVLink); or "
       "a mapping with `template` or `fromNvidiaSmi` and overrides."},
      {"spec.cluster.nodePools[].topology.template", "string", "flat | hgx-h100 | hgx-h200 | pcie-l40s."},
      {"spec.cluster.nodePools[].topology.fromNvidiaSmi", "path",
       "A saved `nvidia-smi topo -m` output: the node's GPUs, NVLink/PCIe connections and NICs are taken "
       "from it (`gputwin import-topo FILE` shows what is read)."},
      {"spec.cluster.nodePools[].topology.mig", "path",
       "A saved `nvidia-smi mig -lgi` output: the first GPU listed gives the pool's MIG layout (replaces "
       "sharing.migLayout; the pool's sharing mode must be mig), each GPU laid out differently its own (after the "
       "pool's gpuSharing entries, which win)."},
      {"spec.cluster.nodePools[].topology.migComputeInstances", "path",
       "A saved `nvidia-smi mig -lci` output, checked against topology.mig: every compute instance must sit in a "
       "GPU instance of that listing. A GPU instance split into several compute instances is simulated as one "
       "device (a warning says so): its compute instances share its memory, L2 and bandwidth anyway, and the "
       "SM split between them is not modelled."},
      {"spec.cluster.nodePools[].topology.nics", "int",
       "Compute-fabric NICs per node (template default); not with fromNvidiaSmi, whose matrix lists the NICs."},
      {"spec.cluster.nodePools[].topology.nicBandwidth", "bandwidth", "Per NIC and direction, e.g. 400Gb/s."},
      {"spec.cluster.nodePools[].topology.sockets", "int",
       "CPU sockets (1 or 2; templates: hgx-h100/hgx-h200/pcie-l40s 2, flat 1). With 2, half the PCIe "
       "switches hang off each socket and the sockets are joined by `socketLink`. With fromNvidiaSmi: the sockets "
       "the capture's NUMA nodes belong to (default one per NUMA node, and 2, with a warning, when it shows more "
       "than two: NPS / SNC number them socket by socket)."},
      {"spec.cluster.nodePools[].topology.socketLink", "bandwidth",
       "Inter-socket link per direction (default: hgx 4 UPI 2.0 links = 128GB/s, pcie-l40s 4 xGMI links = "
       "256GB/s); host-device copies from the far socket's memory cross it."},
      {"spec.cluster.nodePools[].topology.nvme", "mapping", "Local NVMe of each node (all drives together)."},
      {"spec.cluster.nodePools[].topology.nvme.read", "bandwidth", "Sequential read bandwidth."},
      {"spec.cluster.nodePools[].topology.nvme.write", "bandwidth", "Sequential write bandwidth."},
      {"spec.cluster.fabric", "mapping",
       "The network between nodes, storage and the front end (docs/models/fabric.md). Without it nodes have "
       "no network between them unless storage or multi-node jobs need one (then a single non-blocking switch)."},
      {"spec.cluster.fabric.kind", "enum: singleSwitch|fatTree|railOptimized",
       "singleSwitch: every node port on one non-blocking switch. fatTree: leaf switches of `nodesPerLeaf` "
       "nodes, `spines` spines, leaf uplinks = downlinks / oversubscription; routes pick the spine by "
       "destination (d-mod-k). railOptimized: NIC i of every node of a group of `nodesPerLeaf` nodes on rail "
       "i's leaf switch, `spines` spines above the rail leaves."},
      {"spec.cluster.fabric.nodesPerLeaf", "int",
       "fatTree: nodes under one leaf switch; railOptimized: nodes per rail group (default 4)."},
      {"spec.cluster.fabric.spines", "int", "fatTree, railOptimized: spine switches (default 2)."},
      {"spec.cluster.fabric.oversubscription", "number",
       "fatTree, railOptimized: leaf downlink / uplink bandwidth (>= 1, default 1)."},
      {"spec.cluster.fabric.hopLatency", "duration", "Latency per switch hop (default 1us)."},
      {"spec.cluster.fabric.frontendBandwidth", "bandwidth",
       "Front-end (client) network port of each node, for inference requests and responses (default 100Gb/s)."},
      {"spec.cluster.fabric.encryption", "mapping", "Cost of encryption in transit (networkPolicies)."},
      {"spec.cluster.fabric.encryption.bandwidthFactor", "number",
       "Share of link bandwidth an encrypted flow gets out of what a plaintext one would (default 0.9)."},
      {"spec.cluster.fabric.encryption.latency", "duration", "Added to every encrypted transfer (default 5us)."},
      {"spec.cluster.storage", "list", "Shared storage systems behind the fabric (docs/models/storage.md)."},
      {"spec.cluster.storage[].name", "string",
       "Storage name, unique; data items refer to it (localNvme and host are reserved)."},
      {"spec.cluster.storage[].kind", "enum: parallelFs|objectStore",
       "parallelFs: striped over `servers` (default latency 100us per request); objectStore: per-object "
       "latency 10ms by default."},
      {"spec.cluster.storage[].readBandwidth", "bandwidth",
       "Aggregate read bandwidth of the servers (default 40GB/s)."},
      {"spec.cluster.storage[].writeBandwidth", "bandwidth", "Aggregate write bandwidth (default 20GB/s)."},
      {"spec.cluster.storage[].servers", "int", "Storage servers; each has 1/servers of the bandwidth (default 4)."},
      {"spec.cluster.storage[].latency", "duration", "Per-request latency (default by kind)."},
      {"spec.cluster.storage[].region", "string", "Region where the data lives (data residency)."},
      {"spec.cluster.storage[].encryptedAtRest", "bool", "Data is encrypted at rest (default false)."},
      {"spec.cluster.storage[].allow", "list of string",
       "Storage ACL: tenants allowed to read and write (default: every tenant). Others are refused, with an event."},
      {"spec.priorityClasses", "mapping",
       "Priority classes read verbatim from a Kubernetes YAML file: Kueue WorkloadPriorityClass "
       "(kueue.x-k8s.io/v1beta1|v1beta2) and PriorityClass (scheduling.k8s.io/v1) documents; workloads name one in "
       "priorityClass (docs/models/quotas.md)."},
      {"spec.priorityClasses.file", "path", "The file (several documents allowed); relative to this file."},
      {"spec.fairSharing", "mapping",
       "Kueue's fair sharing for every quota (as Kueue's Configuration gives it): waiting workloads are admitted "
       "by their queue's share (what it borrows over what its cohort could lend, divided by its weight), and "
       "preemption evens the shares (docs/models/quotas.md)."},
      {"spec.fairSharing.enable", "bool", "Fair sharing on (default false: Kueue's classical admission)."},
      {"spec.fairSharing.preemptionStrategies", "list of string",
       "LessThanOrEqualToFinalShare, LessThanInitialShare, or both in that order (the default)."},
      {"spec.kueueConfiguration", "mapping",
       "Instead of spec.fairSharing: Kueue's Configuration (config.kueue.x-k8s.io/v1beta1|v1beta2) read verbatim, "
       "alone or in the manager's ConfigMap (data.controller_manager_config.yaml); its fairSharing is used, what "
       "else would change admission is named in a warning. A Configuration in a tenant's quota.kueue file counts "
       "too; all must agree."},
      {"spec.kueueConfiguration.file", "path", "The file (several documents allowed); relative to this file."},
      {"spec.tenants", "list", "Tenants: teams or customers who share the cluster."},
      {"spec.tenants[].name", "string", "Tenant name, unique."},
      {"spec.tenants[].region", "string", "Home region of the tenant's data."},
      {"spec.tenants[].classification", "enum: public|internal|confidential|restricted",
       "Data classification (default internal)."},
      {"spec.tenants[].quota", "mapping",
       "Kueue-like quota: workloads are admitted whole within the nominal quota of the resource they ask for "
       "(nvidia.com/gpu, nvidia.com/mig-<profile>), may borrow other tenants' unused quota, and are preempted as "
       "quota.preemption says (default: when a lender needs its quota back) (docs/models/quotas.md)."},
      {"spec.tenants[].quota.gpus", "int",
       "Nominal quota of nvidia.com/gpu: GPUs the tenant is guaranteed (required unless resources is given)."},
      {"spec.tenants[].quota.borrowingLimit", "int",
       "GPUs it may borrow beyond its nominal quota from other tenants' unused quota (default: no limit)."},
      {"spec.tenants[].quota.lendingLimit", "int",
       "At most this many of its nominal GPUs, while unused, may be lent to other tenants; the rest stays "
       "guaranteed to it (Kueue lendingLimit; default: all may be lent)."},
      {"spec.tenants[].quota.resources", "list",
       "Quotas of other device resources, each counted apart as Kueue does: MIG instances "
       "(nvidia.com/mig-1g.10gb) or a device plugin's renamed resource (nvidia.com/gpu.shared). A workload counts "
       "against the resource its placement names (placement.resource, else placement.migProfile's "
       "nvidia.com/mig-<profile>, else nvidia.com/gpu)."},
      {"spec.tenants[].quota.resources[].name", "string", "The resource: nvidia.com/mig-<profile> or nvidia.com/..."},
      {"spec.tenants[].quota.resources[].nominal", "int", "Nominal quota: devices of the resource guaranteed."},
      {"spec.tenants[].quota.resources[].borrowingLimit", "int", "As quota.borrowingLimit, for this resource."},
      {"spec.tenants[].quota.resources[].lendingLimit", "int", "As quota.lendingLimit, for this resource."},
      {"spec.tenants[].quota.preemption", "mapping",
       "Kueue's ClusterQueue preemption policy (kueue.sigs.k8s.io, concepts Preemption); the default reclaims "
       "within the cohort from any borrower and never preempts within the tenant's queue."},
      {"spec.tenants[].quota.preemption.reclaimWithinCohort", "enum: Never|LowerPriority|Any",
       "A workload within its nominal quota preempts other tenants' workloads while they borrow: any of them, those "
       "of lower priority, or none (default Any here; Kueue's default, Never, for quota.kueue)."},
      {"spec.tenants[].quota.preemption.withinClusterQueue", "enum: Never|LowerPriority|LowerOrNewerEqualPriority",
       "A workload that does not fit preempts the tenant's own workloads of lower priority (or also newer ones of "
       "equal priority) (default Never)."},
      {"spec.tenants[].quota.preemption.borrowWithinCohort", "mapping",
       "While borrowing, preempt lower-priority workloads of the cohort's borrowers (needs reclaimWithinCohort other "
       "than Never)."},
      {"spec.tenants[].quota.preemption.borrowWithinCohort.policy", "enum: Never|LowerPriority", "Default Never."},
      {"spec.tenants[].quota.preemption.borrowWithinCohort.maxPriorityThreshold", "int",
       "Only workloads of at most this priority may be preempted while borrowing (default: any lower priority)."},
      {"spec.tenants[].quota.fairSharing", "mapping", "Kueue's fairSharing of the tenant's queue."},
      {"spec.tenants[].quota.fairSharing.weight", "string",
       "With spec.fairSharing: the queue's share is what it borrows divided by this weight, a Kubernetes quantity "
       "(default 1; 0: its borrowing weighs without bound, admitted last and preempted first)."},
      {"spec.tenants[].quota.queueingStrategy", "enum: BestEffortFIFO|StrictFIFO",
       "BestEffortFIFO (default): a later workload that fits goes ahead of one that does not; StrictFIFO: the "
       "tenant's waiting workload at the head (highest priority, then earliest) blocks those behind it."},
      {"spec.tenants[].quota.kueue", "mapping",
       "Instead of gpus / borrowingLimit / lendingLimit: the quota of a Kueue ClusterQueue, read verbatim from a "
       "Kubernetes YAML file (kueue.x-k8s.io/v1beta1 or v1beta2: ResourceFlavor, ClusterQueue, LocalQueue, Cohort, "
       "WorkloadPriorityClass; scheduling.k8s.io/v1 PriorityClass): the nominalQuota, borrowingLimit and lendingLimit "
       "of its flavor's nvidia.com/gpu and nvidia.com/mig-<profile> resources, its preemption policy and queueing "
       "strategy; its cohort and the Cohort objects above it (parent, own quotas and limits) place it in a tree of "
       "cohorts (docs/models/quotas.md); the file's priority classes are what workloads' priorityClass names; its "
       "fairSharing.weight is the queue's weight, and a Kueue Configuration in it gives fair sharing. No two "
       "tenants may share a ClusterQueue; device quotas in two flavors are refused at their location; CPU and "
       "memory quotas are named in a warning and ignored."},
      {"spec.tenants[].quota.kueue.file", "path", "The Kueue file (several documents allowed); relative to this file."},
      {"spec.tenants[].quota.kueue.clusterQueue", "string", "The ClusterQueue to take the quota from."},
      {"spec.tenants[].quota.kueue.localQueue", "string",
       "Instead of clusterQueue: a LocalQueue of the file, whose spec.clusterQueue gives the quota."},
      {"spec.tenants[].quota.kueue.namespace", "string",
       "Without clusterQueue or localQueue: the namespace whose LocalQueues lead to the tenant's ClusterQueue "
       "(default: the tenant's name)."},
      {"spec.tenants[].slos", "list", "Service-level objectives, evaluated per window."},
      {"spec.tenants[].slos[].name", "string", "SLO name, unique within the tenant."},
      {"spec.tenants[].slos[].kind", "enum: latency|throughput|slowdown|completionTime|availability|ttft|tpot",
       "latency: the p-th percentile of request latency in each window must stay under `threshold`. ttft / tpot "
       "(continuous batching): the same for the time to first token / the time per output token after the first. "
       "throughput: completed requests per second in each window must reach `minRate`. slowdown: each job's "
       "completion time over its time alone must stay under `maxSlowdown`. completionTime: each job must finish "
       "within `threshold` of its submission. availability: of the requests arriving in each window, the share "
       "served (not dropped: queue overflow, no live replica, a fault or preemption) must reach `minAvailability`."},
      {"spec.tenants[].slos[].minAvailability", "number 0..1",
       "availability: the share of requests that must be served in each window, e.g. 0.999."},
      {"spec.tenants[].slos[].workload", "string", "Workload the SLO applies to (default: all of the tenant's)."},
      {"spec.tenants[].slos[].percentile", "number", "latency, ttft, tpot: percentile in (0, 100], default 99."},
      {"spec.tenants[].slos[].threshold", "duration", "latency / ttft / tpot / completionTime: the bound."},
      {"spec.tenants[].slos[].minRate", "rate", "throughput: floor, e.g. 100/s."},
      {"spec.tenants[].slos[].maxSlowdown", "number", "slowdown: bound (>= 1)."},
      {"spec.tenants[].slos[].window", "duration", "Evaluation window (default spec.slaWindow)."},
      {"spec.tenants[].slos[].target", "number",
       "Share of windows (or jobs) that must meet the objective, in (0, 1]; 1 - target is the error budget. "
       "Default 1."},
      {"spec.tenants[].slos[].openslo", "mapping",
       "Instead of the fields above: the SLOs of an OpenSLO v1 SLO document, read verbatim (one twin SLO per "
       "objective, named after the SLO, -1, -2 ... when it has several). Its indicator (inline or indicatorRef to an "
       "SLI of the file; thresholdMetric or ratioMetric good/total) must map to a twin metric: a metricSource of "
       "type gputwin (spec: metric, percentile, workload, unit), a Prometheus query over the twin's series "
       "gputwin_request_latency_p99_seconds, gputwin_request_latency_p50_seconds, gputwin_request_ttft_p99_seconds, "
       "gputwin_request_ttft_p50_seconds, gputwin_request_tpot_p99_seconds, gputwin_request_tpot_p50_seconds or "
       "gputwin_requests_completed_per_second (label workload selects the workload), or `metric` here; any other "
       "metricSource is refused. op and value give the bound, target the share of windows (or jobs) that must meet "
       "it. Occurrences: a request duration becomes the percentile 100 x target, a ratio the availability floor "
       "target, over one window of the whole run. Timeslices: timeSliceWindow is the window, timeSliceTarget the "
       "percentile (/100) or availability floor of each slice. RatioTimeslices (ratio indicators): the mean of the "
       "slices' served shares against target. timeWindow (m = minute, "
       "M = month) is noted in a warning when longer than the run."},
      {"spec.tenants[].slos[].openslo.file", "path",
       "An OpenSLO file: YAML documents or a top-level list of them (SLO, SLI; other kinds are named in a "
       "warning); relative to this file."},
      {"spec.tenants[].slos[].openslo.name", "string", "The SLO's metadata.name; needed when the file has several."},
      {"spec.tenants[].slos[].openslo.metric",
       "enum: latency|ttft|tpot|throughput|availability|completionTime|slowdown",
       "The twin metric the indicator measures, when its metricSource is an external system (Prometheus, "
       "CloudWatch, ...): its query is not run, and a warning names it. A ratioMetric maps only to availability."},
      {"spec.tenants[].slos[].openslo.percentile", "number",
       "With metric: the percentile the indicator is (e.g. 99 for a p99 series); checked against the objectives."},
      {"spec.tenants[].slos[].openslo.unit", "enum: s|ms|us",
       "With metric: the unit of the objectives' value for durations (default s)."},
      {"spec.tenants[].slos[].openslo.workload", "string",
       "Workload the SLOs apply to (default: all of the tenant's)."},
      {"spec.workloads", "list", "Inference services, training jobs and batch tenants' jobs."},
      {"spec.workloads[].name", "string", "Workload name, unique."},
      {"spec.workloads[].kind", "enum: inference|training|batch|attack",
       "What the workload is. attack: an attacker's processes running one of the attacks of `attack` inside the "
       "simulation (docs/models/leakage.md, \"Attack replay\")."},
      {"spec.workloads[].tenant", "string", "Owner tenant (must be in spec.tenants)."},
      {"spec.workloads[].purpose", "string",
       "Purpose of the processing, as records of processing name it (GDPR Art. 30(1)(b); default: the workload's "
       "kind, e.g. inference)."},
      {"spec.workloads[].replicas", "int",
       "inference: serving replicas (requests go to the shortest queue); batch: worker slots; training: 1."},
      {"spec.workloads[].gpus", "int",
       "GPUs per replica (training: data-parallel GPUs on one node; continuous inference: parallelism.tensor x "
       "parallelism.pipeline, derived when left out)."},
      {"spec.workloads[].memory", "size",
       "Device memory per GPU; required for training and batch; inference default: weights x 1.3 (KV cache) for the "
       "static batcher, kvCache.gpuMemoryUtilization of the partition for continuous batching."},
      {"spec.workloads[].start", "duration", "When the workload starts (default 0)."},
      {"spec.workloads[].priority", "int",
       "Quota priority (Kueue's workload priority, default 0): higher waits ahead of lower and may preempt it as "
       "its tenant's quota.preemption allows."},
      {"spec.workloads[].priorityClass", "string",
       "Instead of priority: a WorkloadPriorityClass or PriorityClass (spec.priorityClasses.file, or a tenant's "
       "quota.kueue file: classes are cluster-wide), whose value is the priority; a globalDefault PriorityClass "
       "applies to workloads naming none."},
      {"spec.workloads[].runtime", "enum: auto|runc|gvisor|kata|vm|cvm",
       "What the workload's processes run in: auto (default: a runc container, or a confidential VM on a GPU in "
       "confidential-computing mode), runc, gvisor, kata, vm (GPU passthrough), cvm (confidential VM). Sets the "
       "start-up and host-device I/O overheads, the sharing modes the replicas may be placed on, and the layers "
       "shared with other tenants (docs/models/runtimes.md)."},
      {"spec.workloads[].placement", "mapping", "Placement constraints."},
      {"spec.workloads[].placement.sharing", "list of enum",
       "Sharing modes the replicas may be placed on (a MIG instance is mig, also when migReplicas time-slices it)."},
      {"spec.workloads[].placement.nodePool", "string", "Node pool the replicas must be placed in."},
      {"spec.workloads[].placement.migProfile", "string",
       "MIG instance profile the replicas must be placed on, e.g. 3g.40gb (implies sharing mig)."},
      {"spec.workloads[].placement.resource", "string",
       "Kubernetes extended resource the replicas ask for, as a pod's resources.limits names it: devices "
       "advertised as it (report.json gpus[].k8s_resource): nvidia.com/gpu, nvidia.com/mig-<profile>, or a device "
       "plugin's rename such as nvidia.com/gpu.shared; a name without a domain gets nvidia.com/."},
      {"spec.workloads[].model", "mapping", "inference: the model served."},
      {"spec.workloads[].model.parameters", "count",
       "Number of parameters, e.g. 8B or 7e9 (derived from the shape when model.id or model.architecture is given)."},
      {"spec.workloads[].model.id", "string",
       "A model of the catalogue (calibration/models/llm.yaml; `gputwin models` lists them): its shape, "
       "parameters and layers."},
      {"spec.workloads[].model.architecture", "mapping", "The model's shape, when it is not in the catalogue."},
      {"spec.workloads[].model.architecture.hiddenSize", "int", "Hidden size."},
      {"spec.workloads[].model.architecture.intermediateSize", "int", "Feed-forward size (per expert)."},
      {"spec.workloads[].model.architecture.attentionHeads", "int", "Attention (query) heads."},
      {"spec.workloads[].model.architecture.kvHeads", "int", "Key/value heads (GQA < heads, MQA 1)."},
      {"spec.workloads[].model.architecture.headDim", "int", "Size of one head (default hiddenSize / heads)."},
      {"spec.workloads[].model.architecture.vocabSize", "int", "Vocabulary size."},
      {"spec.workloads[].model.architecture.experts", "int", "Feed-forward experts per layer (default 1: dense)."},
      {"spec.workloads[].model.architecture.activeExperts", "int", "Experts each token is routed to (default 1)."},
      {"spec.workloads[].model.architecture.tiedEmbeddings", "bool", "Output head shares the input embedding."},
      {"spec.workloads[].model.dtype", "enum: fp32|fp16|bf16|fp8", "Weight precision (default fp16)."},
      {"spec.workloads[].model.layers", "int",
       "Layers of equal size (1..10000). When set, each batch's prefill runs as one kernel per layer (its share "
       "of the FLOPs and weight bytes), so the layer structure shows in the GPU's contention timing; default: "
       "the prefill is one kernel."},
      {"spec.workloads[].arrival", "mapping", "inference / batch: the arrival process of requests or jobs."},
      {"spec.workloads[].arrival.process", "enum: poisson|bursty|constant|diurnal|trace",
       "poisson: exponential gaps at `rate`. bursty: a two-state Markov-modulated Poisson process alternating "
       "between `rate` and `burstRate`, with exponential gap and burst lengths. constant: evenly spaced. "
       "diurnal: Poisson with rate(t) = rate x (1 + amplitude x cos(2 pi (t - peakAt) / period)). trace: "
       "the requests of a file, with their own prompt and output tokens."},
      {"spec.workloads[].arrival.rate", "rate",
       "Mean rate, e.g. 200/s (bursty: rate between bursts; diurnal: the mean over a period)."},
      {"spec.workloads[].arrival.amplitude", "number 0..1", "diurnal: relative swing of the rate (default 0.5)."},
      {"spec.workloads[].arrival.period", "duration", "diurnal: length of one cycle (default 24h)."},
      {"spec.workloads[].arrival.peakAt", "duration", "diurnal: simulated time of the first peak (default 0s)."},
      {"spec.workloads[].arrival.file", "path",
       "trace: the request trace (relative to this file), e.g. the Azure LLM inference trace "
       "(data/azure-llm-2023/AzureLLMInferenceTrace_conv.csv)."},
      {"spec.workloads[].arrival.format", "enum: azure-llm|seconds",
       "trace: azure-llm (TIMESTAMP,ContextTokens,GeneratedTokens) or seconds (time,promptTokens,outputTokens); "
       "default azure-llm."},
      {"spec.workloads[].arrival.speedup", "number", "trace: time compression (60: an hour of trace in a minute)."},
      {"spec.workloads[].arrival.offset", "duration", "trace: skip the trace's first seconds (default 0s)."},
      {"spec.workloads[].arrival.burstRate", "rate", "bursty: rate during a burst."},
      {"spec.workloads[].arrival.meanBurst", "duration", "bursty: mean burst length."},
      {"spec.workloads[].arrival.meanGap", "duration", "bursty: mean time between bursts."},
      {"spec.workloads[].batching", "mapping",
       "inference: how a replica batches requests (docs/models/serving.md). static: dynamic batches of up to "
       "maxBatch run prefill then decode to the longest request's end; continuous: iteration-level batching "
       "with a paged KV cache (vLLM, TensorRT-LLM, SGLang)."},
      {"spec.workloads[].batching.mode", "enum: static|continuous",
       "Default continuous when the model has a shape (model.id or model.architecture), else static."},
      {"spec.workloads[].batching.maxBatch", "int", "static: largest batch (default 8)."},
      {"spec.workloads[].batching.timeout", "duration",
       "static: longest a request waits for the batch to fill once the replica is free (default 5ms)."},
      {"spec.workloads[].batching.maxNumSeqs", "int",
       "continuous: sequences running at once at most (vLLM max_num_seqs, default 256)."},
      {"spec.workloads[].batching.maxNumBatchedTokens", "int",
       "continuous: tokens one engine step computes at most, decodes and prompt chunks together (vLLM "
       "max_num_batched_tokens, default 8192)."},
      {"spec.workloads[].batching.chunkedPrefill", "bool",
       "continuous: prompts are split across steps beside the decodes (Sarathi-Serve; default true). false: a "
       "step is all prefill or all decode (vLLM v0)."},
      {"spec.workloads[].batching.engine", "string",
       "continuous: the serving engine family whose host time per step (scheduling, sampling, launches) is "
       "added to the GPU's: vllm-v1 (default), vllm-v0, sglang, trtllm, splitwise (the values fitted in "
       "calibration/serving/targets.yaml hostOverhead:, docs/validation/serving.md), or none."},
      {"spec.workloads[].batching.order", "enum: fcfs|priority",
       "continuous: admission order (default fcfs). priority: lower request priority first (request.priorityShare)."},
      {"spec.workloads[].kvCache", "mapping", "continuous: the paged KV cache."},
      {"spec.workloads[].kvCache.blockSize", "int", "Tokens per KV block (default 16)."},
      {"spec.workloads[].kvCache.gpuMemoryUtilization", "number",
       "Share of each GPU partition's memory the server takes at start for weights, workspace and KV cache "
       "(vLLM gpu_memory_utilization, default 0.9). The replica fails out of memory when that much is not free."},
      {"spec.workloads[].kvCache.dtype", "enum: auto|fp16|bf16|fp8",
       "KV cache precision (default auto: 16-bit; fp8 halves the bytes per token)."},
      {"spec.workloads[].kvCache.preemption", "enum: recompute|swap",
       "What happens to a sequence preempted when blocks run out: its KV is dropped and recomputed (default), "
       "or copied to host memory over PCIe (bounce buffers on a CC GPU) and back."},
      {"spec.workloads[].kvCache.prefixHitRatio", "number",
       "Share of each prompt found in the prefix cache, in whole blocks (default 0)."},
      {"spec.workloads[].kvCache.workspace", "size",
       "Activations and workspace per GPU beside weights and KV cache (default 0: assumed negligible)."},
      {"spec.workloads[].disaggregation", "mapping",
       "continuous: disaggregated prefill and decode (Splitwise, DistServe). Requests go to the prefill "
       "replicas, which compute the prompt and the first token; the KV cache then moves to the decode replica "
       "with the fewest requests (NVLink inside a node, the fabric between nodes) and decodes there."},
      {"spec.workloads[].disaggregation.prefillReplicas", "int",
       "How many of the replicas (the first ones) only prefill; the rest only decode."},
      {"spec.workloads[].parallelism", "mapping", "continuous: how a replica spans GPUs of one node."},
      {"spec.workloads[].parallelism.tensor", "int",
       "Tensor-parallel GPUs (default 1): weights and KV heads sharded, two all-reduces per layer over the "
       "node's GPU links. Must divide the attention heads."},
      {"spec.workloads[].parallelism.pipeline", "int",
       "Pipeline stages (default 1): layers split across stages; a step passes through them in turn."},
      {"spec.workloads[].request", "mapping", "inference: the shape of one request."},
      {"spec.workloads[].request.promptTokens", "int", "Prompt (prefill) tokens per request (default 512)."},
      {"spec.workloads[].request.outputTokens", "int", "Generated (decode) tokens per request (default 128)."},
      {"spec.workloads[].request.priorityShare", "number",
       "continuous with batching.order priority: share of requests with the urgent priority (default 0)."},
      {"spec.workloads[].maxQueue", "int", "inference: requests queued per replica before drops (default 10000)."},
      {"spec.workloads[].swapping", "mapping",
       "inference: several models of the model's size share the replicas (model swapping). Each request asks "
       "for one of them uniformly; a batch holds requests of one model (the oldest request's); a model not in "
       "memory is loaded first (host to device, through the runtime and CC paths), evicting the least "
       "recently used."},
      {"spec.workloads[].swapping.models", "int", "How many models the service hosts (>= 2)."},
      {"spec.workloads[].swapping.residentModels", "int",
       "How many fit in a replica's memory at once (default 1, < models)."},
      {"spec.workloads[].iterations", "int", "training: number of steps."},
      {"spec.workloads[].step", "mapping", "training: cost of one step on each GPU."},
      {"spec.workloads[].step.flops", "flops", "Floating-point operations per GPU per step, e.g. 400TFLOP."},
      {"spec.workloads[].step.bytes", "size", "Device-memory traffic per GPU per step."},
      {"spec.workloads[].step.data", "size", "Input data per GPU per step, copied from host memory over PCIe."},
      {"spec.workloads[].step.gradients", "size", "Gradient bytes all-reduced (ring) over NVLink per step."},
      {"spec.workloads[].step.blocks", "int",
       "Thread blocks in the kernel's grid (default: enough to fill every SM). A smaller grid occupies ceil(blocks / "
       "blocksPerSm) SMs: alone it runs at that share of the GPU's FLOP rate, and next to other MPS clients it takes "
       "only those SMs (docs/models/gpu.md, \"Kernel grids\")."},
      {"spec.workloads[].step.blocksPerSm", "int", "Thread blocks one SM holds at once (occupancy; default 1)."},
      {"spec.workloads[].job", "mapping", "batch: what one job runs."},
      {"spec.workloads[].job.kernels", "int", "Kernels per job (run one after the other)."},
      {"spec.workloads[].job.flops", "flops", "Floating-point operations per kernel."},
      {"spec.workloads[].job.bytes", "size", "Device-memory traffic per kernel."},
      {"spec.workloads[].job.blocks", "int",
       "Thread blocks in the kernel's grid (default: enough to fill every SM). A smaller grid occupies ceil(blocks / "
       "blocksPerSm) SMs: alone it runs at that share of the GPU's FLOP rate, and next to other MPS clients it takes "
       "only those SMs (docs/models/gpu.md, \"Kernel grids\")."},
      {"spec.workloads[].job.blocksPerSm", "int", "Thread blocks one SM holds at once (occupancy; default 1)."},
      {"spec.workloads[].nodes", "int",
       "training: nodes the job spans (default 1); its `gpus` are split evenly over them and the gradients are "
       "all-reduced hierarchically (NVLink inside a node, the fabric between nodes)."},
      {"spec.workloads[].placement.nodes", "list of string",
       "Node names (pool-N, e.g. train-0) the replica must be placed on, one per node it spans."},
      {"spec.workloads[].io", "mapping", "Storage and network I/O of the workload (docs/models/storage.md)."},
      {"spec.workloads[].io.dataset", "string",
       "training: a data item (spec.data) whose store each step's input (step.data) is read from, instead of "
       "host memory."},
      {"spec.workloads[].io.weights", "string",
       "inference: a data item whose store the model weights are read from at replica start."},
      {"spec.workloads[].io.checkpoint", "mapping", "training: periodic checkpoints."},
      {"spec.workloads[].io.checkpoint.data", "string", "Data item (kind checkpoint) naming the target store."},
      {"spec.workloads[].io.checkpoint.every", "int", "Steps between checkpoints."},
      {"spec.workloads[].io.checkpoint.bytes", "size", "Bytes each GPU writes per checkpoint."},
      {"spec.workloads[].io.gpuDirect", "bool",
       "GPUDirect Storage / RDMA: storage and inter-node traffic go between GPU memory and the NIC through the "
       "PCIe switch, without a bounce through host memory (default false)."},
      {"spec.workloads[].io.identity", "string", "Principal the accesses run as (default: the tenant's name)."},
      {"spec.workloads[].io.requestBytes", "size",
       "inference: request payload sent from the clients over the front-end network (default 0: not modelled)."},
      {"spec.workloads[].io.responseBytes", "size", "inference: response payload sent back to the clients."},
      {"spec.workloads[].io.frontEnd", "duration",
       "inference: per request, the serving front end's time (HTTP or gRPC, tokenisation, pre- and post-processing) "
       "between the client and the replica's queue: in the request's latency and TTFT, no GPU time (default 0; "
       "docs/models/serving.md)."},
      {"spec.workloads[].secrets", "list of string",
       "Secrets (spec.identity.secrets) each replica fetches at start (a key release, attested where the secret "
       "requires it)."},
      {"spec.workloads[].attestationFailures", "list",
       "Injected attestation failures (docs/models/compliance.md): from `at` on, every attestation of the replica's "
       "confidential-computing GPUs fails (ATTESTATION value 0), so an enforcing attestation-before-key-release rule "
       "refuses its secrets."},
      {"spec.workloads[].attestationFailures[].at", "duration", "From when attestations fail (default 0s)."},
      {"spec.workloads[].attestationFailures[].replica", "int", "Which replica (default: every replica)."},
      {"spec.workloads[].attack", "mapping",
       "attack: what the attacker runs. Its replicas are placed like any workload's (placement constraints "
       "apply); its memory defaults to 1GiB per process."},
      {"spec.workloads[].attack.type",
       "enum: covertChannel|primeProbe|remanenceScrape|noisyNeighbour|mpsKill|modelExtraction|queryExtraction",
       "covertChannel: a sender (replica 0) modulates `channel` with a bit stream, a receiver (replica 1) probes it "
       "and decodes the bits from the simulated probe latencies; reports bits/s and bit error rate. primeProbe: "
       "probes HBM latency beside the `target` inference service and tells which of `candidates` it serves from "
       "the length of its contention bursts; reports fingerprint accuracy. remanenceScrape: allocates device memory "
       "and reads what earlier tenants left in it unscrubbed; reports bytes recovered per victim. noisyNeighbour: "
       "runs memory- and compute-heavy kernels without pause beside `target` (its SLA shows the damage). mpsKill: "
       "its own client faults at `at`; under MPS or time-slicing the fault domain ends every client of the GPU. "
       "modelExtraction: as primeProbe, but estimates the victim's parameter count from its decode bursts and, "
       "when the victim runs layer by layer (model.layers), its layer structure. queryExtraction: model stealing "
       "through the service's API: sends `queryRate` real requests per second to `target` (retrying refused "
       "ones) until `queries` were admitted; spec.policies.isolation.queryRateLimit caps them per client."},
      {"spec.workloads[].attack.channel", "enum: nvlink|pcie|l2|hbm",
       "covertChannel: the resource modulated and probed. nvlink: both write to a third GPU of the node over "
       "NVLink; pcie: host-to-device copies on the GPU's PCIe link; l2, hbm: memory-bound kernels on the GPU's HBM "
       "(and its shared L2 under MPS)."},
      {"spec.workloads[].attack.senderTenant", "string",
       "covertChannel: the tenant the sender (a trojan) runs as (default: the attacker's tenant)."},
      {"spec.workloads[].attack.bits", "int", "covertChannel: payload bits sent (8..1000000, default 4096)."},
      {"spec.workloads[].attack.preamble", "int",
       "covertChannel: alternating training bits sent first; the receiver sets its decision threshold halfway "
       "between their mean 1 and 0 latencies (default 64)."},
      {"spec.workloads[].attack.bitRate", "rate|auto",
       "covertChannel: symbols per second, e.g. 45500/s; default the reference measurement's rate. auto: the "
       "sender and receiver search for their best rate first, trying rates from the reference's down in half "
       "octaves with `trainingBits` known bits each, and send the payload at the one that carried the most "
       "information (docs/models/leakage.md, \"Adaptive rate\")."},
      {"spec.workloads[].attack.trainingBits", "int",
       "covertChannel with bitRate: auto: known bits per trial of the rate search, after the trial's preamble "
       "(16..100000, default 256)."},
      {"spec.workloads[].attack.reference", "string",
       "covertChannel: id of the published measurement (attacks.md, e.g. A5, A6) whose rate and error calibrate "
       "the probe noise; default the catalogue's best measurement for the channel and sharing relation."},
      {"spec.workloads[].attack.noise", "duration",
       "covertChannel / primeProbe / modelExtraction: standard deviation of the probe-latency noise. Default: "
       "covertChannel, the noise at which the receiver errs with the reference's error rate when signalling at "
       "its rate (docs/models/leakage.md); primeProbe / modelExtraction, none."},
      {"spec.workloads[].attack.target", "string",
       "primeProbe / noisyNeighbour / mpsKill / modelExtraction / queryExtraction: the victim workload."},
      {"spec.workloads[].attack.probeInterval", "duration",
       "primeProbe / modelExtraction: time between two probes (default 500us)."},
      {"spec.workloads[].attack.candidates", "list",
       "primeProbe: the models the attacker can tell apart (at least two); the victim's may or may not be one."},
      {"spec.workloads[].attack.candidates[].name", "string", "Candidate name."},
      {"spec.workloads[].attack.candidates[].parameters", "count", "Its parameter count, e.g. 8B."},
      {"spec.workloads[].attack.candidates[].dtype", "enum: fp32|fp16|bf16|fp8",
       "Its weight precision (default fp16)."},
      {"spec.workloads[].attack.bytes", "size",
       "remanenceScrape: bytes allocated and read (default: all free memory of its GPU); noisyNeighbour: HBM "
       "traffic per kernel (default 1GiB)."},
      {"spec.workloads[].attack.flops", "flops", "noisyNeighbour: FLOPs per kernel (default 0)."},
      {"spec.workloads[].attack.interval", "duration",
       "remanenceScrape: free and scrape again every interval until the end of the run (default 0: once)."},
      {"spec.workloads[].attack.at", "duration", "mpsKill: when its client faults (default: when it starts)."},
      {"spec.workloads[].attack.queries", "int",
       "queryExtraction: queries the attacker wants answered (1..100000000, default 1000)."},
      {"spec.workloads[].attack.queryRate", "rate",
       "queryExtraction: queries it sends per second, a refused one retried at the next (default 100/s)."},
      {"spec.data", "list",
       "Tagged data items: datasets, checkpoints, model weights and request streams, each with an owner, region "
       "and classification; every movement of one is a data event (docs/models/storage.md)."},
      {"spec.data[].name", "string", "Data item name, unique."},
      {"spec.data[].kind", "enum: dataset|checkpoint|weights|requests", "What the data is."},
      {"spec.data[].tenant", "string", "Owner tenant."},
      {"spec.data[].region", "string", "Region the data belongs to (default: the owner's)."},
      {"spec.data[].classification", "enum: public|internal|confidential|restricted",
       "Sensitivity (default: the owner's)."},
      {"spec.data[].category", "string",
       "Category of the data as records of processing name it (GDPR Art. 30(1)(c), e.g. health, contact; "
       "default: its classification)."},
      {"spec.data[].store", "string",
       "Where it is stored: a spec.cluster.storage name, localNvme (the node's own NVMe) or host (host memory, "
       "the default)."},
      {"spec.data[].socket", "int",
       "store host: the CPU socket (0 or 1) whose memory holds the data; default the socket of the GPU that "
       "reads it (NUMA-local). From the other socket, copies cross the inter-socket link."},
      {"spec.networkPolicies", "list", "Per-tenant network segmentation and encryption in transit."},
      {"spec.networkPolicies[].tenant", "string", "The tenant the policy applies to."},
      {"spec.networkPolicies[].isolated", "bool",
       "The tenant's traffic is in a segment of its own (partition key / VLAN): tenants outside it cannot read it "
       "on shared links (default false)."},
      {"spec.networkPolicies[].encryptInTransit", "bool",
       "Every transfer of the tenant's data is encrypted (at fabric.encryption's cost) (default false)."},
      {"spec.networkPolicies[].allowFrom", "list of string", "Other tenants admitted to the tenant's segment."},
      {"spec.compliance", "mapping",
       "Compliance rules evaluated over the run (docs/models/compliance.md; `gputwin explain compliance` lists the "
       "rules) and the recorded transfer bases the residency rule accepts."},
      {"spec.compliance.rules", "list", "Rule instances, each a built-in rule with its match, parameters and action."},
      {"spec.compliance.rules[].name", "string", "Name of this policy instance, unique (reports and PolicyReport)."},
      {"spec.compliance.rules[].rule", "string", "Built-in rule (`gputwin explain compliance`), e.g. residency."},
      {"spec.compliance.rules[].action", "enum: enforce|audit",
       "audit (default): the run is evaluated afterwards and violations reported; enforce: the engine asks the rule "
       "before each placement or data access and refuses what would violate it (only for enforceable rules)."},
      {"spec.compliance.rules[].match", "mapping", "What the rule applies to; empty lists match everything."},
      {"spec.compliance.rules[].match.tenants", "list of string", "Tenants (by name)."},
      {"spec.compliance.rules[].match.classifications", "list of enum: public|internal|confidential|restricted",
       "Tenants or data items of these classifications."},
      {"spec.compliance.rules[].match.data", "list of string", "Data items (spec.data names)."},
      {"spec.compliance.rules[].parameters", "mapping",
       "Overrides of the rule's parameters (numbers, bools, strings, or lists of strings such as allowedRegions)."},
      {"spec.compliance.rules[].requirements", "list of string",
       "Extra requirement references listed on the findings (the rule's own are always listed)."},
      {"spec.compliance.transfers", "list",
       "Recorded Chapter V transfer bases (GDPR Art. 45-49): data may be placed or moved to `toRegion` from `at` on."},
      {"spec.compliance.transfers[].data", "string", "A data item, or a tenant (all its data)."},
      {"spec.compliance.transfers[].toRegion", "string", "The region the basis covers."},
      {"spec.compliance.transfers[].mechanism", "enum: adequacy|SCC|BCR|Art49",
       "Adequacy decision (Art. 45), standard contractual clauses (Art. 46), binding corporate rules (Art. 47) or a "
       "derogation (Art. 49)."},
      {"spec.compliance.transfers[].at", "duration", "From when the basis is in force (default 0)."},
      {"spec.compliance.erasures", "list",
       "Requests to erase a data item (GDPR Art. 17), read by the erasure rule (C24) against every place the run "
       "put a copy of it."},
      {"spec.compliance.erasures[].data", "string", "The data item to erase."},
      {"spec.compliance.erasures[].at", "duration", "When the request is received."},
      {"spec.compliance.erasures[].completedAfter", "duration",
       "How long after the request the erasure procedure has removed the copies in its scope (default: never)."},
      {"spec.compliance.erasures[].scope", "list of string",
       "Location classes the procedure erases: store (the item's store and stores written to), localNvme, host "
       "(host memory), gpu (device memory)."},
      {"spec.compliance.processingRecords", "list",
       "Records of processing activities (GDPR Art. 30(1)): the records-of-processing rule (C3) checks that every "
       "(controller, purpose, data category, recipient, region) the run processed is covered by one."},
      {"spec.compliance.processingRecords[].name", "string", "The record's name, unique."},
      {"spec.compliance.processingRecords[].tenant", "string", "The controller: the tenant owning the data."},
      {"spec.compliance.processingRecords[].purposes", "list of string",
       "Purposes covered (workloads' purpose, agents' invocation names)."},
      {"spec.compliance.processingRecords[].categories", "list of string",
       "Data categories covered (data[].category)."},
      {"spec.compliance.processingRecords[].recipients", "list of string",
       "Tenants other than the controller that receive the data (default: none)."},
      {"spec.compliance.processingRecords[].transfers", "list",
       "Transfers to other regions (third countries) with their safeguards (GDPR Art. 30(1)(e))."},
      {"spec.compliance.processingRecords[].transfers[].toRegion", "string", "The region the data goes to."},
      {"spec.compliance.processingRecords[].transfers[].mechanism", "enum: adequacy|SCC|BCR|Art49",
       "The safeguard documented for it."},
      {"spec.identity", "mapping",
       "The identity graph (docs/models/identity.md): principals, services, agents and tools, secrets, who may call "
       "or read what, how identity propagates on each hop, grants and revocations."},
      {"spec.identity.principals", "list",
       "Principals. A workload's io.identity (default its tenant's name) that is not listed here is an implicit "
       "service account of the workload's tenant."},
      {"spec.identity.principals[].name", "string", "Principal name, unique among principals, services and secrets."},
      {"spec.identity.principals[].tenant", "string", "Tenant the principal belongs to."},
      {"spec.identity.principals[].kind", "enum: user|serviceAccount|shared|anonymous",
       "user (default), serviceAccount, or a shared / anonymous principal (flagged by the unique-identity rule)."},
      {"spec.identity.principals[].spiffeId", "string", "SPIFFE id (default spiffe://<tenant>/<kind>/<name>)."},
      {"spec.identity.services", "list", "Services, agents and tools: nodes that act on behalf of their callers."},
      {"spec.identity.services[].name", "string", "Name, unique among principals, services and secrets."},
      {"spec.identity.services[].tenant", "string", "Tenant running it."},
      {"spec.identity.services[].kind", "enum: service|agent|tool", "What it is (default service)."},
      {"spec.identity.services[].identity", "string",
       "Principal it runs as (its own service account); a `replace` hop into it acts as this identity (default: "
       "its workload's io.identity, else its tenant's name)."},
      {"spec.identity.services[].workload", "string",
       "The workload it is (optional): the data that workload reads and writes (io) is reachable from it, accessed "
       "as the workload's io.identity."},
      {"spec.identity.secrets", "list", "Secrets (Vault-like paths); reached only with a grant."},
      {"spec.identity.secrets[].name", "string", "Secret name, unique among principals, services and secrets."},
      {"spec.identity.secrets[].tenant", "string", "Owner tenant."},
      {"spec.identity.secrets[].path", "string", "Vault-like path, e.g. secret/data/health/db."},
      {"spec.identity.secrets[].requiresAttestation", "bool",
       "Released only to a confidential VM with a fresh attestation (default false)."},
      {"spec.identity.secrets[].rotation", "duration",
       "The secret's value changes every rotation period (a SECRET_ROTATED event each time; default 0: never). A "
       "leaked value stops working at the next rotation."},
      {"spec.identity.secrets[].lease", "duration",
       "Dynamic secret: each read gets a credential of its own that expires this long after the read (default 0: "
       "the static value, valid until rotation). A leak then exposes the latest credential issued."},
      {"spec.identity.secrets[].protects", "list of string",
       "Data items and stores the secret opens: the blast radius reported when it leaks."},
      {"spec.identity.edges", "list", "Who may call, read, write or use what, and how identity propagates on the hop."},
      {"spec.identity.edges[].from", "string", "A principal or a service."},
      {"spec.identity.edges[].to", "string", "A service (action call), or a data item, store or secret."},
      {"spec.identity.edges[].action", "enum: call|read|write|use", "What the hop does (default call)."},
      {"spec.identity.edges[].propagation", "enum: passthrough|exchange|replace",
       "passthrough (default): the callee acts as the caller's identity; exchange: as the caller, narrowed to what "
       "the caller is granted; replace: as the callee's own service identity (the confused-deputy pattern)."},
      {"spec.identity.edges[].latency", "duration",
       "Run time (invocations): how long the hop takes before the callee acts (default 20ms, assumed)."},
      {"spec.identity.edges[].probability", "number",
       "Run time: the share of the caller's invocations that take this hop, 0..1 (seeded; default 1)."},
      {"spec.identity.grants", "list", "Access grants: principal -> resource, actions, validity window."},
      {"spec.identity.grants[].principal", "string", "The principal granted."},
      {"spec.identity.grants[].resource", "string", "A data item, store or secret."},
      {"spec.identity.grants[].actions", "list of string", "read | write | use (default: all)."},
      {"spec.identity.grants[].from", "duration", "Start of validity (default 0)."},
      {"spec.identity.grants[].until", "duration", "End of validity, after `from` (default: never expires)."},
      {"spec.identity.revocations", "list", "Revocations / terminations of principals."},
      {"spec.identity.revocations[].principal", "string", "The principal revoked."},
      {"spec.identity.revocations[].at", "duration", "When."},
      {"spec.identity.invocations", "list",
       "Run-time calls (docs/models/identity.md, \"Invocations at run time\"): a principal calls a service or agent, "
       "which calls its tools and services and reads its resources hop by hop along spec.identity.edges; every hop "
       "is an AGENT_CALL event checked against tokens, revocations and the grants valid at its time."},
      {"spec.identity.invocations[].name", "string", "Name (seeds its random streams)."},
      {"spec.identity.invocations[].principal", "string", "The principal who calls (its token starts the chain)."},
      {"spec.identity.invocations[].entry", "string",
       "The service or agent it calls; an edge principal -> entry (action call) must exist."},
      {"spec.identity.invocations[].at", "list of duration", "Explicit call times."},
      {"spec.identity.invocations[].rate", "rate", "Poisson calls per second besides `at` (default 0)."},
      {"spec.identity.invocations[].from", "duration", "Poisson calls start here (default 0)."},
      {"spec.identity.invocations[].until", "duration",
       "Poisson calls end here (default: the end of arrivals, spec.duration)."},
      {"spec.identity.tokenLifetime", "duration",
       "Lifetime of an access token a principal presents (and of an exchanged token, capped by its subject's) "
       "(default 1h, assumed)."},
      {"spec.identity.tokenValidation", "enum: local|introspection",
       "local (default): a service checks a token's signature and expiry only, so a revoked principal's token "
       "works until it expires; introspection: every use is checked online and refused from the revocation on."},
      {"spec.identity.sessionIdleTimeout", "duration",
       "A principal's session (its calls of spec.identity.invocations) is terminated after this long without a "
       "call; its next call starts a new session (default 0: sessions never time out). The session-timeout rule "
       "checks it (C13)."},
      {"spec.audit", "mapping",
       "The audit pipeline (docs/models/audit.md): every access to tagged data, key release and compliance refusal "
       "produces a hash-chained audit record after a delay; losses, gaps and tampering can be injected."},
      {"spec.audit.enabled", "bool", "Whether accesses are audited at all (default true)."},
      {"spec.audit.delay", "duration", "Shipping delay from an access to its record in the audit store (default 1s)."},
      {"spec.audit.jitter", "duration", "Uniform extra delay in [0, jitter) per record (default 0)."},
      {"spec.audit.throughput", "rate",
       "Records per second the shipper writes (default 0: unlimited); a burst queues FIFO."},
      {"spec.audit.retention", "duration", "How long records are kept (default 0: forever)."},
      {"spec.audit.clockSkew", "duration",
       "Offset of the audit store's clock from the reference clock at t = 0, may be negative, e.g. -2s (default 0); "
       "kept until the first clock synchronisation."},
      {"spec.audit.clockDrift", "number",
       "Rate error of the audit store's clock in parts per million, may be negative (default 0): between "
       "synchronisations its offset grows by clockDrift x 1e-6 s per second (a crystal oscillator drifts "
       "about 10-100 ppm; assumed, not measured)."},
      {"spec.audit.clockSync", "duration",
       "Every this long the audit store's clock is stepped to the reference clock, as an NTP or PTP client "
       "does (offset 0 after each; default 0: never synchronised)."},
      {"spec.audit.streams", "enum: shared|perTenant",
       "shared (default): every tenant's records in one stream; perTenant: each tenant's records (those of "
       "resources it owns, else of its own workloads) in a stream of its own, readable through grants on the "
       "resource audit:<tenant> (PCI DSS A1.3; the tenant-log-isolation rule)."},
      {"spec.audit.separateStore", "bool", "Records are kept on a system apart from the audited one (default true)."},
      {"spec.audit.hashChained", "bool", "Records are hash-chained with SHA-256 (default true)."},
      {"spec.audit.logRequests", "bool",
       "Every completed inference request is recorded too (type inferenceUse: start and end, model, input "
       "reference; EU AI Act Art. 12 use logs), through the same shipper: its throughput is shared (default "
       "false)."},
      {"spec.audit.dropProbability", "number", "Each record is lost with this probability, 0..1 (seeded; default 0)."},
      {"spec.audit.gaps", "list", "Windows in which the shipper is down: accesses in [from, until) leave no record."},
      {"spec.audit.gaps[].from", "duration", "Start of the gap."},
      {"spec.audit.gaps[].until", "duration", "End of the gap (after from)."},
      {"spec.audit.tamper", "list",
       "Records modified after they were written (to test integrity checks): record index, field, new value."},
      {"spec.audit.tamper[].record", "int", "Index of the record in the written stream (0-based)."},
      {"spec.audit.tamper[].field", "enum: principal|resource|outcome|type|source|location|time", "Field changed."},
      {"spec.audit.tamper[].value", "string", "New value (time: seconds)."},
      {"spec.faults", "list",
       "Injected fatal GPU errors. A fault in one client ends its fault domain: every client on the GPU under "
       "mps or timeSlicing, every client of the instance on a MIG instance time-sliced by migReplicas, only the "
       "client itself on an exclusive GPU or a MIG instance of one replica."},
      {"spec.faults[].at", "duration", "When the fault happens."},
      {"spec.faults[].workload", "string", "Workload whose client faults."},
      {"spec.faults[].replica", "int", "Which replica of it (default 0)."},
      {"spec.faults[].restartAfter", "duration",
       "Ended inference replicas and batch workers restart on the same GPU after this delay (default: they stay "
       "down)."},
      {"spec.faults[].failover", "duration",
       "Failover instead of a restart: the faulted GPU (scope gpu) or every GPU of its node (scope node) is out of "
       "service for the rest of the run, and after this delay (detection and rescheduling) the ended inference "
       "replicas and batch workers are placed again by the placement policy, wherever it finds room (another GPU, "
       "node, pool or region), with every enforcing compliance rule asked first; they start as on first "
       "placement (runtime start, attestation, weight load). Training jobs are not restarted."},
      {"spec.faults[].scope", "enum: gpu|node",
       "gpu (default): the fault domain of the faulting client; node: the whole node is lost (every client on "
       "every GPU of it ends)."},
      {"spec.faults[].secret", "string",
       "A secret leak instead of a GPU fault: this secret's current value (with a lease: the latest credential "
       "issued) is exposed from `at` until the next rotation, its lease's end or the rotation after detection "
       "(spec.incidentResponse.revokeAfter), whichever comes first. Give secret or workload, not both."},
      {"spec.faults[].to", "string", "Secret leak: the tenant that obtains it (default: an unknown outsider)."},
      {"spec.faults[].detectedAfter", "duration",
       "Secret leak: the operator becomes aware this long after the leak (default: never; then "
       "spec.incidentResponse.detectAfter applies)."},
      {"spec.incidentResponse", "mapping",
       "What follows an incident (a secret leak, data recovered by another tenant, a confused-deputy read): "
       "detection, rotation of a leaked secret and notification of the supervisory authority (breach-notification "
       "rule, GDPR Art. 33)."},
      {"spec.incidentResponse.detectAfter", "duration",
       "Incidents without their own detection delay become known this long after they happen (default: never)."},
      {"spec.incidentResponse.revokeAfter", "duration",
       "A leaked secret is rotated (its leaked value revoked) this long after the leak is known (default: never)."},
      {"spec.incidentResponse.notifyAfter", "duration",
       "The supervisory authority is notified this long after an incident is known (default: never)."},
      {"spec.reconfigurations", "list",
       "MIG re-partitionings over time. At `at`, every MIG GPU of the node pool stops taking work on its "
       "instances, waits for the work in flight (at most drainTimeout), evicts what is left, is re-partitioned "
       "(the profile's mig.reconfiguration time) and the evicted replicas are placed again on the new instances. "
       "Training jobs on the old instances end (they are not restarted)."},
      {"spec.reconfigurations[].at", "duration", "When the drain starts."},
      {"spec.reconfigurations[].nodePool", "string", "Node pool whose MIG GPUs are re-partitioned."},
      {"spec.reconfigurations[].migLayout", "list or mapping",
       "The new instances of each GPU, as for sharing.migLayout; checked against the product's placement rules."},
      {"spec.reconfigurations[].drainTimeout", "duration",
       "Longest wait for in-flight work before the rest is evicted (default 30s)."},
      {"spec.policies", "mapping", "Policies by registered name (see `gputwin explain policies`)."},
      {"spec.policies.placement", "mapping", "The placement policy."},
      {"spec.policies.placement.name", "string", "Registered placement policy name."},
      {"spec.policies.placement.params", "mapping", "Parameters of the policy."},
      {"spec.policies.isolation", "mapping",
       "Isolation mitigations in force, each with its cost (docs/models/leakage.md, \"Mitigations\")."},
      {"spec.policies.isolation.scrubOnFree", "bool",
       "Freed device memory is overwritten before another allocation may use it: an HBM write of the freed bytes "
       "that competes with the GPU's other clients, and allocations wait for it. Closes remanence."},
      {"spec.policies.isolation.timerResolution", "duration",
       "Coarsest timer tenants can read (e.g. 1us): probe latencies are rounded down to it, and a channel's "
       "probe rate is at most 1 / resolution. 0: native timers."},
      {"spec.policies.isolation.noiseInjection", "duration",
       "Standard deviation of a random delay added to each timed operation tenants observe (probe noise)."},
      {"spec.policies.isolation.queryRateLimit", "rate",
       "Per-client query rate limit on inference services (the behaviour channel of model IP), e.g. 10/s: a token "
       "bucket at each service's front end per client (a burst of one second's queries); refused queries are "
       "not served. Applies to other tenants' clients (queryExtraction attackers), not to the service's own "
       "arrivals."},
      {"spec.policies.isolation.queryBudget", "int",
       "Queries each other tenant's client may have answered by an inference service over the whole run (the "
       "behaviour channel of model IP; 0: unlimited). Once spent, its queries are refused; with queryRateLimit both "
       "apply."},
      {"spec.policies.isolation.weightEncryption", "bool",
       "The model owners encrypt their weights and checkpoints (data items of kind weights or checkpoint) at rest "
       "and in transit and decrypt them on the replica's host when loading: closes the plaintext storage and "
       "network channels of model IP; costs weight bytes / decryptBandwidth at every weight load."},
      {"spec.policies.isolation.decryptBandwidth", "bandwidth",
       "Host decryption throughput per replica for weightEncryption (default 2GB/s, assumed: AES-GCM on a few "
       "host cores)."},
      {"spec.policies.isolation.logprobs", "enum: full|top|none",
       "What inference APIs return with each generated token: every token's logprob (full), the topLogprobs "
       "most likely (top, default) or none. Sets the queries a projection-layer extraction needs per full logit "
       "vector (docs/models/leakage.md, \"Model IP\")."},
      {"spec.policies.isolation.topLogprobs", "int",
       "K of logprobs: top (default 20, assumed: the usual API maximum)."},
      {"spec.policies.isolation.logitBias", "bool",
       "The API accepts a per-token logit bias (default true); without it and without full logprobs the "
       "projection layer cannot be extracted."},
      {"spec.policies.isolation.outputNoise", "number",
       "Output perturbation: standard deviation in nats of Gaussian noise added to every returned logprob "
       "(default 0); an extraction repeats each query (noise / 1e-3 nats)^2 times to average it away."},
      {"spec.policies.isolation.watermarkFraction", "number",
       "Share of answers, 0..1, that carry the owner's watermark (default 0: none); a copy trained on n "
       "answers is detected with probability P(Binomial(n, fraction) >= watermarkThreshold)."},
      {"spec.policies.isolation.watermarkThreshold", "int",
       "Marked answers a suspect copy must have learnt for the owner's verification to detect it (default 10, "
       "assumed)."},
      {"spec.policies.isolation.gpuVisibility", "enum: node|allocated",
       "Which GPUs of its node a tenant's processes can see. allocated (default): only the GPUs allocated to the "
       "tenant, as the Kubernetes NVIDIA device plugin deploys them (NVIDIA_VISIBLE_DEVICES with cgroup device "
       "isolation; one VM per GPU): the cross-GPU L2 channel (A4) is closed; NVLink and PCIe contention stay open "
       "(they need only the spy's own GPUs). node: every GPU of the node (bare metal or a batch scheduler "
       "without device cgroups), so a spy can enable CUDA peer access to a neighbour's GPU and prime+probe its "
       "L2 over NVLink (A4)."},

  };
  return docs;
}

std::string normalise_path(std::string_view path) {
  std::string out;
  bool in_brackets = false;
  for (char c : path) {
    if (c == '[') {
      in_brackets = true;
      out += "[]";
    } else if (c == ']') {
      in_brackets = false;
    } else if (!in_brackets) {
      out += c;
    }
  }
  return out;
}

namespace {

constexpr double US = 1e-6, MS = 1e-3, HOUR = 3600, DAY = 86400, YEAR = 365.25 * DAY;
constexpr double KIB = 1024, MIB = KIB * KIB, GIB = MIB * KIB, TIB = GIB * KIB, PIB = TIB * KIB;
// A run simulates at most a year; times inside it (starts, faults, grants) at most that far.
constexpr double RUN_MAX = 366 * DAY;

}  // namespace

const std::vector<FieldRange>& field_ranges() {
  static const std::vector<FieldRange> ranges{
      {"spec.seed", 0, 18446744073709551615.0},
      {"spec.duration", 1 * MS, RUN_MAX},
      {"spec.slaWindow", 1 * MS, RUN_MAX},
      {"spec.cluster.nodePools[].count", 1, 100000},
      {"spec.cluster.nodePools[].gpusPerNode", 1, 16},
      {"spec.cluster.nodePools[].pricePerGpuHour", 0, 1e9},
      {"spec.cluster.nodePools[].sharing.replicas", 1, 48},
      // The driver's time slices are milliseconds (Short 2 ms, Long 30 ms); below 100 us a GPU would do
      // nothing but switch contexts.
      {"spec.cluster.nodePools[].sharing.timeSlice", 100 * US, 10},
      {"spec.cluster.nodePools[].sharing.contextSwitch", 0, 1},
      {"spec.cluster.nodePools[].sharing.activeThreadPercentage", 1, 100},
      {"spec.cluster.nodePools[].sharing.pinnedMemoryLimit", 1 * MIB, 16 * TIB},
      {"spec.cluster.nodePools[].gpuSharing[].gpus", 0, 15},
      {"spec.cluster.nodePools[].gpuSharing[].replicas", 1, 48},
      {"spec.cluster.nodePools[].gpuSharing[].timeSlice", 100 * US, 10},
      {"spec.cluster.nodePools[].gpuSharing[].contextSwitch", 0, 1},
      {"spec.cluster.nodePools[].gpuSharing[].activeThreadPercentage", 1, 100},
      {"spec.cluster.nodePools[].gpuSharing[].pinnedMemoryLimit", 1 * MIB, 16 * TIB},
      {"spec.cluster.nodePools[].topology.nics", 0, 64},
      {"spec.cluster.nodePools[].topology.nicBandwidth", 1e6, 1e13},
      {"spec.cluster.nodePools[].topology.sockets", 1, 2},
      {"spec.cluster.nodePools[].topology.socketLink", 1e6, 1e13},
      {"spec.cluster.nodePools[].topology.nvme.read", 1e6, 1e12},
      {"spec.cluster.nodePools[].topology.nvme.write", 1e6, 1e12},
      {"spec.cluster.fabric.nodesPerLeaf", 1, 4096},
      {"spec.cluster.fabric.spines", 1, 1024},
      {"spec.cluster.fabric.oversubscription", 1, 64},
      {"spec.cluster.fabric.hopLatency", 0, 1},
      {"spec.cluster.fabric.frontendBandwidth", 1e6, 1e13},
      {"spec.cluster.fabric.encryption.bandwidthFactor", 0.01, 1},
      {"spec.cluster.fabric.encryption.latency", 0, 1},
      {"spec.cluster.storage[].readBandwidth", 1e6, 1e14},
      {"spec.cluster.storage[].writeBandwidth", 1e6, 1e14},
      {"spec.cluster.storage[].servers", 1, 1024},
      {"spec.cluster.storage[].latency", 0, 10},
      {"spec.tenants[].quota.gpus", 0, 1000000},
      {"spec.tenants[].quota.borrowingLimit", 0, 1000000},
      {"spec.tenants[].quota.lendingLimit", 0, 1000000},
      {"spec.tenants[].quota.resources[].nominal", 0, 1000000},
      {"spec.tenants[].quota.resources[].borrowingLimit", 0, 1000000},
      {"spec.tenants[].quota.resources[].lendingLimit", 0, 1000000},
      {"spec.tenants[].quota.preemption.borrowWithinCohort.maxPriorityThreshold", -2147483648.0, 2147483647.0},
      {"spec.workloads[].priority", -2147483648.0, 2147483647.0},
      {"spec.tenants[].slos[].minAvailability", 0, 1},
      {"spec.tenants[].slos[].percentile", 1e-9, 100},
      {"spec.tenants[].slos[].openslo.percentile", 1e-9, 100},
      {"spec.tenants[].slos[].threshold", 1 * US, RUN_MAX},
      {"spec.tenants[].slos[].minRate", 1e-9, 1e7},
      {"spec.tenants[].slos[].maxSlowdown", 1, 1e9},
      {"spec.tenants[].slos[].window", 1 * MS, RUN_MAX},
      {"spec.tenants[].slos[].target", 1e-9, 1},
      {"spec.workloads[].replicas", 1, 100000},
      {"spec.workloads[].gpus", 1, 16},
      {"spec.workloads[].memory", 0, 16 * TIB},
      {"spec.workloads[].start", 0, RUN_MAX},
      // 1 to 100 trillion parameters: beyond the largest published models by far.
      {"spec.workloads[].model.parameters", 1, 1e14},
      {"spec.workloads[].model.layers", 1, 10000},
      // Arrival rates up to a million a second per workload: far above any one service's load.
      {"spec.workloads[].arrival.rate", 0, 1e6},
      {"spec.workloads[].arrival.amplitude", 0, 1},
      {"spec.workloads[].arrival.period", 1 * MS, RUN_MAX},
      {"spec.workloads[].arrival.peakAt", 0, RUN_MAX},
      {"spec.workloads[].arrival.speedup", 1e-6, 1e9},
      {"spec.workloads[].arrival.offset", 0, 100 * YEAR},
      {"spec.workloads[].arrival.burstRate", 1e-9, 1e6},
      {"spec.workloads[].arrival.meanBurst", 1 * MS, RUN_MAX},
      {"spec.workloads[].arrival.meanGap", 1 * MS, RUN_MAX},
      {"spec.workloads[].batching.maxBatch", 1, 4096},
      {"spec.workloads[].batching.maxNumSeqs", 1, 65536},
      {"spec.workloads[].batching.maxNumBatchedTokens", 1, 10000000},
      {"spec.workloads[].kvCache.blockSize", 1, 1024},
      {"spec.workloads[].kvCache.gpuMemoryUtilization", 0.01, 1},
      {"spec.workloads[].kvCache.prefixHitRatio", 0, 1},
      {"spec.workloads[].kvCache.workspace", 0, 1e15},
      {"spec.workloads[].parallelism.tensor", 1, 64},
      {"spec.workloads[].disaggregation.prefillReplicas", 1, 100000},
      {"spec.workloads[].parallelism.pipeline", 1, 64},
      {"spec.workloads[].request.priorityShare", 0, 1},
      {"spec.workloads[].model.architecture.hiddenSize", 1, 1000000},
      {"spec.workloads[].model.architecture.intermediateSize", 1, 10000000},
      {"spec.workloads[].model.architecture.attentionHeads", 1, 100000},
      {"spec.workloads[].model.architecture.kvHeads", 1, 100000},
      {"spec.workloads[].model.architecture.headDim", 1, 100000},
      {"spec.workloads[].model.architecture.vocabSize", 1, 100000000},
      {"spec.workloads[].model.architecture.experts", 1, 100000},
      {"spec.workloads[].model.architecture.activeExperts", 1, 100000},
      {"spec.workloads[].batching.timeout", 0, 1 * HOUR},
      {"spec.workloads[].request.promptTokens", 1, 10000000},
      {"spec.workloads[].request.outputTokens", 0, 10000000},
      {"spec.workloads[].maxQueue", 1, 100000000},
      {"spec.workloads[].swapping.models", 2, 1000},
      {"spec.workloads[].swapping.residentModels", 1, 1000},
      {"spec.workloads[].iterations", 1, 100000000},
      {"spec.workloads[].step.flops", 1, 1e21},
      {"spec.workloads[].step.bytes", 0, 1 * PIB},
      {"spec.workloads[].step.data", 0, 1 * PIB},
      {"spec.workloads[].step.gradients", 0, 1 * PIB},
      {"spec.workloads[].step.blocks", 1, 1e9},
      {"spec.workloads[].step.blocksPerSm", 1, 64},
      {"spec.workloads[].job.kernels", 1, 100000000},
      {"spec.workloads[].job.flops", 1, 1e21},
      {"spec.workloads[].job.bytes", 0, 1 * PIB},
      {"spec.workloads[].job.blocks", 1, 1e9},
      {"spec.workloads[].job.blocksPerSm", 1, 64},
      {"spec.workloads[].nodes", 1, 4096},
      {"spec.workloads[].io.checkpoint.every", 1, 100000000},
      {"spec.workloads[].io.checkpoint.bytes", 1, 1 * PIB},
      {"spec.workloads[].io.requestBytes", 0, 1 * GIB},
      {"spec.workloads[].io.responseBytes", 0, 1 * GIB},
      {"spec.workloads[].io.frontEnd", 0, 10},
      {"spec.workloads[].attestationFailures[].at", 0, RUN_MAX},
      {"spec.workloads[].attestationFailures[].replica", 0, 100000},
      {"spec.workloads[].attack.bits", 8, 1000000},
      {"spec.workloads[].attack.preamble", 8, 100000},
      {"spec.workloads[].attack.bitRate", 1e-6, 1e9},
      {"spec.workloads[].attack.trainingBits", 16, 100000},
      {"spec.workloads[].attack.noise", 0, 1},
      {"spec.workloads[].attack.probeInterval", 1 * US, 1 * HOUR},
      {"spec.workloads[].attack.candidates[].parameters", 1, 1e14},
      {"spec.workloads[].attack.bytes", 0, 16 * TIB},
      {"spec.workloads[].attack.flops", 0, 1e21},
      {"spec.workloads[].attack.interval", 0, RUN_MAX},
      {"spec.workloads[].attack.at", 0, RUN_MAX},
      {"spec.workloads[].attack.queries", 1, 100000000},
      {"spec.workloads[].attack.queryRate", 1e-6, 1e6},
      {"spec.data[].socket", 0, 1},
      {"spec.compliance.transfers[].at", 0, RUN_MAX},
      {"spec.compliance.erasures[].at", 0, RUN_MAX},
      {"spec.compliance.erasures[].completedAfter", 0, 100 * YEAR},
      {"spec.identity.grants[].from", 0, RUN_MAX},
      {"spec.identity.grants[].until", 0, RUN_MAX},
      {"spec.identity.revocations[].at", 0, RUN_MAX},
      {"spec.identity.secrets[].rotation", 0, 100 * YEAR},
      {"spec.identity.secrets[].lease", 0, 100 * YEAR},
      {"spec.identity.edges[].latency", 0, 1 * DAY},
      {"spec.identity.edges[].probability", 0, 1},
      {"spec.identity.invocations[].at", 0, RUN_MAX},
      {"spec.identity.invocations[].rate", 0, 1e4},
      {"spec.identity.invocations[].from", 0, RUN_MAX},
      {"spec.identity.invocations[].until", 0, RUN_MAX},
      {"spec.identity.tokenLifetime", 0, 100 * YEAR},
      {"spec.incidentResponse.detectAfter", 0, 100 * YEAR},
      {"spec.incidentResponse.revokeAfter", 0, 100 * YEAR},
      {"spec.incidentResponse.notifyAfter", 0, 100 * YEAR},
      {"spec.faults[].detectedAfter", 0, 100 * YEAR},
      {"spec.audit.delay", 0, 30 * DAY},
      {"spec.audit.jitter", 0, 1 * DAY},
      {"spec.audit.throughput", 0, 1e9},
      {"spec.audit.retention", 0, 100 * YEAR},
      {"spec.audit.clockSkew", -1 * DAY, 1 * DAY},
      {"spec.identity.sessionIdleTimeout", 0, 366 * DAY},
      {"spec.audit.clockDrift", -10000, 10000},
      {"spec.audit.clockSync", 0, 366 * DAY},
      {"spec.audit.dropProbability", 0, 1},
      {"spec.audit.gaps[].from", 0, RUN_MAX},
      {"spec.audit.gaps[].until", 0, RUN_MAX},
      {"spec.audit.tamper[].record", 0, 100000000},
      {"spec.faults[].at", 0, RUN_MAX},
      {"spec.faults[].replica", 0, 100000},
      {"spec.faults[].restartAfter", 0, RUN_MAX},
      {"spec.faults[].failover", 0, RUN_MAX},
      {"spec.reconfigurations[].at", 0, RUN_MAX},
      {"spec.reconfigurations[].drainTimeout", 0, 1 * DAY},
      {"spec.policies.isolation.timerResolution", 0, 1},
      {"spec.policies.isolation.noiseInjection", 0, 1},
      {"spec.policies.isolation.queryRateLimit", 0, 1e6},
      {"spec.policies.isolation.queryBudget", 0, 1000000000},
      {"spec.policies.isolation.decryptBandwidth", 1e6, 1e13},
      {"spec.policies.isolation.topLogprobs", 1, 1000000},
      {"spec.policies.isolation.outputNoise", 0, 100},
      {"spec.policies.isolation.watermarkFraction", 0, 1},
      {"spec.policies.isolation.watermarkThreshold", 1, 1000000000},
  };
  return ranges;
}

const FieldRange* field_range(std::string_view path) {
  for (const auto& r : field_ranges())
    if (r.path == path) return &r;
  return nullptr;
}

bool numeric_field_type(std::string_view type) {
  for (std::string_view t :
       {"int", "number", "count", "duration", "size", "rate", "bandwidth", "flops", "list of int", "list of duration"})
    if (type == t || type.substr(0, t.size() + 1) == std::string(t) + " " ||
        type.substr(0, t.size() + 1) == std::string(t) + "|")
      return true;
  return false;
}

std::string format_field_value(double v, std::string_view type) {
  if (type.substr(0, 8) == "duration") {
    const double a = std::fabs(v);
    std::string text;
    if (a == 0) {
      text = "0s";
    } else if (a >= 86400) {  // whole days read better than thousands of hours
      char buf[32];
      std::snprintf(buf, sizeof buf, "%gd", a / 86400);
      text = buf;
    } else {
      text = format_duration(Seconds(a));
    }
    return v < 0 ? "-" + text : text;
  }
  if (type == "size") return format_bytes(Bytes(v));
  if (type == "bandwidth") return format_bandwidth(BytesPerSecond(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 1e15 ? "%.0f" : "%g", v);
  std::string out = buf;
  if (type == "rate" || type.substr(0, 5) == "rate|") out += "/s";
  if (type == "flops") out += " FLOP";
  return out;
}

std::string format_field_range(const FieldRange& range, std::string_view type) {
  return format_field_value(range.min, type) + ".." + format_field_value(range.max, type);
}

std::string_view field_type(std::string_view path) {
  for (const auto& d : field_docs())
    if (d.path == path) return d.type;
  return {};
}

std::vector<std::string> known_keys(std::string_view pattern) {
  std::set<std::string> keys;
  const std::string prefix = pattern.empty() ? std::string() : std::string(pattern) + ".";
  for (const auto& d : field_docs()) {
    if (d.path.size() <= prefix.size() || d.path.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = d.path.substr(prefix.size());
    if (rest.find('.') != std::string_view::npos || rest.find('[') != std::string_view::npos) continue;
    keys.insert(std::string(rest));
  }
  return {keys.begin(), keys.end()};
}

namespace {
std::string without_brackets(std::string_view path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '[' && i + 1 < path.size() && path[i + 1] == ']') {
      ++i;
      continue;
    }
    out += path[i];
  }
  return out;
}
}  // namespace

std::vector<const FieldDoc*> explain(std::string_view path) {
  // "spec.workloads.arrival", "spec.workloads[].arrival" and "spec.workloads[2].arrival" all work.
  std::string norm = without_brackets(normalise_path(path));
  if (norm.rfind("scenario.", 0) == 0) norm = norm.substr(9);
  if (norm == "scenario") norm.clear();
  std::vector<const FieldDoc*> out;
  for (const auto& d : field_docs()) {
    const std::string doc = without_brackets(d.path);
    if (norm.empty() || doc == norm ||
        (doc.size() > norm.size() && doc.compare(0, norm.size(), norm) == 0 && doc[norm.size()] == '.')) {
      out.push_back(&d);
    }
  }
  return out;
}

std::string closest_field(std::string_view path) {
  const std::string norm = without_brackets(normalise_path(path));
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const auto& d : field_docs()) {
    const std::string doc = without_brackets(d.path);
    const size_t dist = edit_distance(norm, doc);
    if (dist < best_distance) {
      best_distance = dist;
      best = doc;
    }
  }
  return best_distance <= std::max<size_t>(3, norm.size() / 4) ? best : std::string();
}

}  // namespace gtw
