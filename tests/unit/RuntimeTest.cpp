// Workload runtimes: which GPUs they accept and which layers two tenants' processes share.
#include <gtest/gtest.h>

#include "Runtime.hpp"

namespace gtw {
namespace {

std::vector<std::string> names(const std::vector<SharedLayer>& layers) {
  std::vector<std::string> out;
  for (auto l : layers) out.emplace_back(shared_layer_name(l));
  return out;
}

TEST(Runtime, AutoIsACvmOnConfidentialGpusAndRuncElsewhere) {
  EXPECT_EQ(effective_runtime(RuntimeKind::AUTO, SharingMode::CONFIDENTIAL), RuntimeKind::CVM);
  EXPECT_EQ(effective_runtime(RuntimeKind::AUTO, SharingMode::MPS), RuntimeKind::RUNC);
  EXPECT_EQ(effective_runtime(RuntimeKind::KATA, SharingMode::EXCLUSIVE), RuntimeKind::KATA);
}

TEST(Runtime, VmsNeedAWholeGpuOrAVgpuAndGvisorHasNoMig) {
  EXPECT_TRUE(runtime_accepts(RuntimeKind::VM, SharingMode::EXCLUSIVE));
  EXPECT_TRUE(runtime_accepts(RuntimeKind::VM, SharingMode::VGPU));
  EXPECT_FALSE(runtime_accepts(RuntimeKind::VM, SharingMode::MPS));
  EXPECT_FALSE(runtime_accepts(RuntimeKind::KATA, SharingMode::TIME_SLICING));
  EXPECT_FALSE(runtime_accepts(RuntimeKind::GVISOR, SharingMode::MIG));
  EXPECT_TRUE(runtime_accepts(RuntimeKind::RUNC, SharingMode::MIG));
  EXPECT_FALSE(runtime_accepts(RuntimeKind::RUNC, SharingMode::CONFIDENTIAL));
  EXPECT_TRUE(runtime_accepts(RuntimeKind::CVM, SharingMode::CONFIDENTIAL));
  EXPECT_FALSE(runtime_accepts(RuntimeKind::CVM, SharingMode::EXCLUSIVE));
  for (auto mode : {SharingMode::EXCLUSIVE, SharingMode::MIG, SharingMode::CONFIDENTIAL})
    EXPECT_TRUE(runtime_accepts(RuntimeKind::AUTO, mode));
}

TEST(Runtime, ContainersShareTheHostKernelDriverAndToolkit) {
  EXPECT_EQ(names(shared_layers(RuntimeKind::RUNC, RuntimeKind::RUNC, true)),
            (std::vector<std::string>{"host kernel", "GPU driver", "container toolkit", "host memory"}));
  // gVisor's Sentry stands between the workload and the host kernel; nvproxy still uses the host driver.
  EXPECT_EQ(names(shared_layers(RuntimeKind::GVISOR, RuntimeKind::RUNC, true)),
            (std::vector<std::string>{"GPU driver", "container toolkit", "host memory"}));
}

TEST(Runtime, VmsShareOnlyTheHypervisorAndMemoryAndCvmsEncryptIt) {
  EXPECT_EQ(names(shared_layers(RuntimeKind::KATA, RuntimeKind::VM, true)),
            (std::vector<std::string>{"hypervisor", "host memory"}));
  EXPECT_EQ(names(shared_layers(RuntimeKind::CVM, RuntimeKind::CVM, true)),
            (std::vector<std::string>{"hypervisor", "host memory (encrypted)"}));
  // One side in the clear: the memory it shares is plain host memory.
  EXPECT_EQ(names(shared_layers(RuntimeKind::CVM, RuntimeKind::RUNC, true)),
            (std::vector<std::string>{"hypervisor", "host memory"}));
}

TEST(Runtime, DifferentNodesShareNoHostLayer) {
  EXPECT_TRUE(shared_layers(RuntimeKind::RUNC, RuntimeKind::RUNC, false).empty());
}

TEST(Runtime, EveryModelCarriesItsSourceAndSaneNumbers) {
  for (auto kind : {RuntimeKind::RUNC, RuntimeKind::GVISOR, RuntimeKind::KATA, RuntimeKind::VM, RuntimeKind::CVM}) {
    const auto& m = runtime_model(kind);
    EXPECT_FALSE(m.source.empty()) << runtime_kind_name(kind);
    EXPECT_GT(m.startup_s, 0) << runtime_kind_name(kind);
    EXPECT_GT(m.io_efficiency, 0.5) << runtime_kind_name(kind);
    EXPECT_LE(m.io_efficiency, 1.0) << runtime_kind_name(kind);
    EXPECT_FALSE(m.gpu_modes.empty()) << runtime_kind_name(kind);
  }
  // Start-up grows with the isolation: container < sandbox < micro-VM < confidential VM < VM.
  EXPECT_LT(runtime_model(RuntimeKind::RUNC).startup_s, runtime_model(RuntimeKind::GVISOR).startup_s);
  EXPECT_LT(runtime_model(RuntimeKind::GVISOR).startup_s, runtime_model(RuntimeKind::KATA).startup_s);
  EXPECT_LT(runtime_model(RuntimeKind::KATA).startup_s, runtime_model(RuntimeKind::CVM).startup_s);
}

}  // namespace
}  // namespace gtw
