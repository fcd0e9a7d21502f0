#include "Runtime.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace gtw {

const char* shared_layer_name(SharedLayer layer) {
  switch (layer) {
    case SharedLayer::HOST_KERNEL:
      return "host kernel";
    case SharedLayer::GPU_DRIVER:
      return "GPU driver";
    case SharedLayer::CONTAINER_TOOLKIT:
      return "container toolkit";
    case SharedLayer::HYPERVISOR:
      return "hypervisor";
    case SharedLayer::HOST_MEMORY:
      return "host memory";
    case SharedLayer::HOST_MEMORY_ENCRYPTED:
      return "host memory (encrypted)";
  }
  return "?";
}

namespace {

using SM = SharingMode;
using L = SharedLayer;

// Start-up is from placement to a process that can use the GPU (image already cached); the CUDA
// context and weight loading come after it in every runtime. Numbers marked (assumed) are to be
// replaced by measurements; docs/models/runtimes.md lists them.
const std::array<RuntimeModel, 5>& models() {
  static const std::array<RuntimeModel, 5> table{{
      {RuntimeKind::RUNC,
       0.05,
       1.0,
       0,
       {SM::EXCLUSIVE, SM::TIME_SLICING, SM::MPS, SM::MIG, SM::VGPU},
       {L::HOST_KERNEL, L::GPU_DRIVER, L::CONTAINER_TOOLKIT, L::HOST_MEMORY},
       "(measured, secondary source) container start ~50 ms, near-native I/O (DevSecOps reading on runc vs KVM); the "
       "host "
       "driver and the NVIDIA container toolkit are shared by every container on the node"},
      {RuntimeKind::GVISOR,
       0.15,
       1.0,
       20e-6,
       // gVisor's nvproxy supports neither MIG nor multi-node NVLink (cncf/maintainer-summit#119, 2026).
       {SM::EXCLUSIVE, SM::TIME_SLICING, SM::MPS, SM::VGPU},
       {L::GPU_DRIVER, L::CONTAINER_TOOLKIT, L::HOST_MEMORY},
       "(assumed) sandbox start 150 ms; every copy pays ~20 us of ioctl forwarding through nvproxy to the host "
       "driver, which stays shared; the Sentry stands between the workload and the host kernel"},
      {RuntimeKind::KATA,
       2.0,
       0.90,
       0,
       {SM::EXCLUSIVE, SM::VGPU},
       {L::HYPERVISOR, L::HOST_MEMORY},
       "(measured, secondary source) micro-VM start 1-5 s (2 s taken) and 5-20% I/O overhead (10% taken) (DevSecOps "
       "reading on Kata); whole-GPU VFIO passthrough with the driver inside the guest"},
      {RuntimeKind::VM,
       20.0,
       0.98,
       0,
       {SM::EXCLUSIVE, SM::VGPU},
       {L::HYPERVISOR, L::HOST_MEMORY},
       "(assumed) full VM boot with guest driver load 20 s; passthrough copies at 98% of bare metal (vGPU "
       "measured 94.4-100%, interference.md 1.4)"},
      {RuntimeKind::CVM,
       5.0,
       0.98,
       0,
       {SM::CONFIDENTIAL},
       {L::HYPERVISOR, L::HOST_MEMORY_ENCRYPTED},
       "(assumed) confidential micro-VM boot 5 s (a Kata guest, 2 s, plus acceptance of encrypted guest memory) "
       "before GPU attestation (the profile's confidentialComputing costs "
       "come on top); guest memory encrypted, the hypervisor outside the trust boundary but still shared"},
  }};
  return table;
}

}  // namespace

const RuntimeModel& runtime_model(RuntimeKind kind) {
  for (const auto& m : models())
    if (m.kind == kind) return m;
  throw std::logic_error("runtime_model: resolve AUTO with effective_runtime first");
}

RuntimeKind effective_runtime(RuntimeKind requested, SharingMode gpu_mode) {
  if (requested != RuntimeKind::AUTO) return requested;
  return gpu_mode == SharingMode::CONFIDENTIAL ? RuntimeKind::CVM : RuntimeKind::RUNC;
}

bool runtime_accepts(RuntimeKind requested, SharingMode gpu_mode) {
  if (requested == RuntimeKind::AUTO) return true;
  const auto& modes = runtime_model(requested).gpu_modes;
  return std::find(modes.begin(), modes.end(), gpu_mode) != modes.end();
}

std::vector<SharedLayer> shared_layers(RuntimeKind a, RuntimeKind b, bool same_node) {
  std::vector<SharedLayer> out;
  if (!same_node) return out;
  const auto& la = runtime_model(a).host_layers;
  const auto& lb = runtime_model(b).host_layers;
  for (SharedLayer layer : la) {
    if (std::find(lb.begin(), lb.end(), layer) != lb.end()) out.push_back(layer);
  }
  // Host memory is shared physically by everyone on the node; it is encrypted only if both sides are.
  const bool a_mem = std::find(la.begin(), la.end(), L::HOST_MEMORY) != la.end();
  const bool b_mem = std::find(lb.begin(), lb.end(), L::HOST_MEMORY) != lb.end();
  if (a_mem != b_mem) out.push_back(L::HOST_MEMORY);
  // A VM-based runtime next to a container: the hypervisor is part of the host the container shares.
  const bool a_hv = std::find(la.begin(), la.end(), L::HYPERVISOR) != la.end();
  const bool b_hv = std::find(lb.begin(), lb.end(), L::HYPERVISOR) != lb.end();
  if (a_hv != b_hv) out.push_back(L::HYPERVISOR);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gtw
