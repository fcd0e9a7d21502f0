// Product names as NVIDIA's tools write them (nvidia-smi, CUDA, GPU feature discovery labels) map to the
// hardware profiles (metadata.productNames), so a node label or a device name picks its profile.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "HardwareProfile.hpp"
#include "Subprocess.hpp"

namespace gtw {
namespace {

TEST(ProductName, NvidiaSmiAndFeatureDiscoverySpellingsFindOneProfile) {
  EXPECT_EQ(profile_for_product("NVIDIA H100 80GB HBM3"), "H100-80GB-SXM");
  EXPECT_EQ(profile_for_product("NVIDIA-H100-80GB-HBM3"), "H100-80GB-SXM");
  EXPECT_EQ(profile_for_product("NVIDIA-H100-80GB-HBM3-SHARED"), "H100-80GB-SXM") << "time-sliced node label";
  EXPECT_EQ(profile_for_product("NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"), "H100-80GB-SXM") << "MIG single strategy";
  EXPECT_EQ(profile_for_product("NVIDIA A100-SXM4-40GB"), "A100-40GB");
  EXPECT_EQ(profile_for_product("NVIDIA H100 NVL"), "H100-94GB-NVL");
  EXPECT_EQ(profile_for_product("NVIDIA-L40S"), "L40S-48GB");
  EXPECT_EQ(profile_for_product("NVIDIA GH200 480GB"), "GH200-96GB");
  // A product without a profile finds none, rather than the nearest one: an A100 PCIe card is not the SXM part.
  EXPECT_FALSE(profile_for_product("NVIDIA A100-PCIE-40GB").has_value());
  EXPECT_FALSE(profile_for_product("Tesla-T4").has_value());
}

TEST(ProductName, NoTwoProfilesClaimOneName) {
  std::map<std::string, std::string> owner;
  for (const auto& name : available_profiles()) {
    HardwareProfile p;
    Diagnostics d;
    ASSERT_TRUE(load_profile(name, {}, "", p, d)) << d.format_all();
    EXPECT_FALSE(p.product_names.empty()) << name << ": metadata.productNames";
    for (const auto& n : p.product_names) {
      auto [it, inserted] = owner.emplace(normalise_product_name(n), name);
      EXPECT_TRUE(inserted) << n << " is claimed by " << it->second << " and " << name;
    }
  }
}

TEST(ProductName, TheRealFeatureDiscoveryLabelOfAnH100NodeLoadsItsProfile) {
  const auto labels = nlohmann::json::parse(
      test::read_text(std::string(GTW_SOURCE_DIR) + "/tests/fixtures/k8s/gfd-node-labels-h100-mig-mixed.json"));
  const std::string product = labels.at("nvidia.com/gpu.product").get<std::string>();
  HardwareProfile p;
  Diagnostics d;
  ASSERT_TRUE(load_profile(product, {}, "", p, d)) << d.format_all();
  EXPECT_EQ(p.name, "H100-80GB-SXM");
  // The node's memory label (MiB) agrees with the profile's memory to within the driver's reserve.
  const double label_mib = std::stod(labels.at("nvidia.com/gpu.memory").get<std::string>());
  EXPECT_NEAR(label_mib * 1048576.0 / p.memory.value, 1.0, 0.08);
}

}  // namespace
}  // namespace gtw
