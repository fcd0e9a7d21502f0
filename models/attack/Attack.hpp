#pragma once
// Attacker workloads (`kind: attack`): attacks from ../shared/reference/attacks.md run for real inside
// the simulation, each as one or two SimGrid actors on the attacker's placed GPU contexts. They use the
// same resources as every tenant (SimGrid hosts and links, the GPU allocator, the fault domain), so
// whatever the design shares, they see, and whatever it isolates, they do not. What they achieve is
// logged (ATTACK_* and MEM_* events) and reported by sim/analysis beside the analytic bound of the
// channel. Formulas and limits: docs/models/leakage.md, "Attack replay".
#include <simgrid/s4u.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ChannelCatalogue.hpp"
#include "GpuDevice.hpp"
#include "SimContext.hpp"
#include "Workload.hpp"

namespace gtw {

/// What an attack may reach beyond its own placement: the devices of the cluster (a covert channel over
/// NVLink writes to a third GPU), the node hosts (PCIe copies start in host memory) and the other
/// workloads (an MPS fault ends their replicas).
struct AttackEnv {
  std::vector<GpuDevice*> devices;                  // by global device index
  std::vector<sg4::Host*> node_cpus;                // by global node index
  std::function<Workload*(int workload)> workload;  // a started workload by spec index, else nullptr
};

/// The sharing relation of two devices: the device's own mode when they are one device, mig for two
/// instances of one physical GPU, separateGpus for two GPUs of one node, separateNodes otherwise.
channel::Mode device_relation(const GpuDevice& a, const GpuDevice& b);

/// The measurement a covert channel on (resource, relation) is calibrated against: `reference` when
/// given (an attacks.md id), else the catalogue's best for the cell, else the best for the resource in
/// any relation (the attacker tries the published attack where the catalogue says it is closed).
/// Returns nullptr for a per-time-slice cell without a published measurement.
const channel::Measurement* covert_reference(channel::Resource r, channel::Mode m, const std::string& reference);

/// Inverse of the threshold detector's error: the signal-to-noise x with Q(x) = p (x = signal / (2 noise)).
double inverse_q(double p);

/// The probe-latency noise (seconds) a covert channel is calibrated to from a published measurement: the deviation at
/// which the threshold detector errs with `error_rate` when signalling at `rate` bit/s, on the simulated signal of
/// one competing flow (docs/models/leakage.md, "Rate and noise"); 0 for an error-free measurement.
double calibrated_probe_noise(double rate, double error_rate);

std::unique_ptr<Workload> make_attack(SimContext& ctx, int workload_index, std::vector<ReplicaPlacement> replicas,
                                      AttackEnv env);

}  // namespace gtw
