#pragma once
// Hardware profile of one GPU product: the numbers every GPU model reads, each with its source.
// Profiles live in calibration/profiles/<name>.yaml; `gputwin calibrate` writes new ones.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "MigGeometry.hpp"
#include "Scenario.hpp"
#include "Units.hpp"

namespace gtw {

/// One-way latency of a host-to-GPU PCIe transfer (assumption: order of a PCIe Gen4/5 round trip;
/// the calibration issue measures it). Used by the platform and by the analytic "time alone".
inline constexpr double PCIE_LATENCY_SECONDS = 1e-6;

/// How a product's GPUs reach each other inside a node (spec.nvlinkTopology): every GPU on the node's
/// NVSwitch (SXM boards), NVLink bridges joining cards in pairs (GPUs 0-1, 2-3, ...: H100 PCIe and NVL, A30),
/// or no NVLink at all (L40S): peer traffic then crosses PCIe and host memory.
enum class NvlinkTopology { NVSWITCH, BRIDGED_PAIRS, NONE };
const char* nvlink_topology_name(NvlinkTopology t);
/// The GPU's link to its host (spec.hostLink): PCIe, or NVLink-C2C to its own Grace CPU (GH200, GB200), whose
/// rates the pcie* fields then carry.
enum class HostLink { PCIE, NVLINK_C2C };
const char* host_link_name(HostLink l);

struct HardwareProfile {
  std::string name;     // H100-80GB-SXM
  std::string product;  // NVIDIA H100 80GB HBM3 (SXM5)
  // The names nvidia-smi and CUDA report for the product ("NVIDIA H100 80GB HBM3"); GPU feature discovery's
  // nvidia.com/gpu.product label writes them with dashes (metadata.productNames).
  std::vector<std::string> product_names;
  std::string file;
  std::string sha256;

  int sms = 0;
  double boost_clock_hz = 0;
  FlopsPerSecond fp16_tensor{0};  // dense
  FlopsPerSecond bf16_tensor{0};
  FlopsPerSecond fp8_tensor{0};
  FlopsPerSecond fp32{0};
  double compute_efficiency = 1;  // achievable share of the tensor peak on large GEMMs
  Bytes memory{0};
  BytesPerSecond hbm_bandwidth{0};
  BytesPerSecond hbm_achievable{0};
  Bytes l2{0};
  NvlinkTopology nvlink_topology = NvlinkTopology::NVSWITCH;
  HostLink host_link = HostLink::PCIE;
  BytesPerSecond nvlink_per_direction{0};  // 0 when nvlink_topology is NONE
  BytesPerSecond nvlink_achievable{0};     // per direction; 0 when nvlink_topology is NONE
  BytesPerSecond pcie_per_direction{0};
  BytesPerSecond pcie_h2d_achievable{0};
  BytesPerSecond pcie_d2h_achievable{0};
  double tdp_watts = 0;
  Seconds context_switch{0};  // time-slice context switch (save + restore)
  // Shared-L2 interference between clients running at once (MPS): the HBM bandwidth seen by all of
  // them is divided by (1 + l2_contention x pressure), pressure in [0, 1] being the memory intensity
  // of every running client but the most intense one (docs/models/partitions.md, "Interference").
  double l2_contention = 0;

  std::optional<MigGeometry> mig;  // absent on products without MIG
  // PCI device ids of the product as mig-parted's device-filter writes them (vendor in the low half:
  // 0x20B010DE), so that a mig-parted config's entries for this product apply (spec.pciDeviceIds).
  std::vector<std::string> pci_device_ids;

  /// Confidential computing (Hopper SPT): host-device traffic goes through encrypted bounce buffers.
  struct Confidential {
    BytesPerSecond bounce_bandwidth{0};  // encrypted host-device copy bandwidth
    Seconds transfer_latency{0};         // added to every host-device transfer (encrypt, bounce, decrypt)
    Seconds attestation{0};              // before the first work on the GPU
  };
  std::optional<Confidential> confidential;  // absent on products without CC

  std::map<std::string, std::string> sources;  // field -> where the number comes from

  /// Achievable compute rate for kernels of the given precision (the roofline's flat part).
  FlopsPerSecond achievable_rate(DType dtype) const;
  /// Time of a kernel alone on the whole GPU: max(F / achievable rate, B / achievable HBM bandwidth).
  Seconds roofline_time(Flops f, Bytes b, DType dtype = DType::FP16) const;
  /// Per direction between the GPUs of a group of `gpus` on one node in the analytic estimates (tensor-parallel
  /// all-reduce, a job's time alone): NVLink where they all share it (an NVSwitch; a bridged pair for two), else
  /// the PCIe path (the slower direction), which a ring through them crosses.
  double peer_achievable(int gpus = 2) const;
};

/// Directories searched for <name>.yaml, in order: $GPUTWIN_PROFILE_PATH (colon-separated), the
/// source tree's calibration/profiles.
std::vector<std::string> profile_search_path();
/// Names of every profile found on the search path (sorted, first occurrence wins).
std::vector<std::string> available_profiles();
/// A product name as nvidia-smi, CUDA or GPU feature discovery write it, reduced to compare: upper case, spaces
/// and underscores as dashes, GFD's "-SHARED" (time-slicing) and "-MIG-<profile>" suffixes removed.
std::string normalise_product_name(const std::string& product);
/// The profile whose metadata.productNames holds `product` (in any of those spellings), if one does.
std::optional<std::string> profile_for_product(const std::string& product);
/// Loads a profile by name, or by the product name of one (profile_for_product); on failure records
/// diagnostics located at `where` and returns false.
bool load_profile(const std::string& name, const SourceLoc& where, const std::string& path, HardwareProfile& out,
                  Diagnostics& diags);
/// Loads a profile from an explicit file, or from its text (`file` names it in diagnostics).
bool load_profile_file(const std::string& file, HardwareProfile& out, Diagnostics& diags);
bool load_profile_text(const std::string& text, const std::string& file, HardwareProfile& out, Diagnostics& diags);
/// The scalar fields a scenario may override.
const std::vector<std::string>& profile_field_names();
/// A copy of `base` with some fields replaced by scenario values (`field -> "value with unit"`), each
/// recorded with the scenario location as its source; errors are located in the scenario.
bool apply_profile_overrides(const HardwareProfile& base, const std::map<std::string, std::string>& overrides,
                             const std::map<std::string, SourceLoc>& locs, const std::string& path,
                             HardwareProfile& out, Diagnostics& diags);

}  // namespace gtw
