#pragma once
// MIG geometry: the GPU-instance profiles of a product and the placement rules, checked the way the
// hardware does it. A layout is feasible when every instance can be given a start slot from its
// profile's placement list such that the memory-slice ranges [start, start + size) do not overlap,
// per-profile instance limits hold and compute slices do not exceed the GPU's. Sums of maximum
// counts are not enough (4g + 4g and 3g + 3g + a 1g are refused although each fits alone).
#include <optional>
#include <string>
#include <vector>

namespace gtw {

struct MigProfile {
  std::string name;        // 3g.40gb
  int id = 0;              // GPU-instance profile id (nvidia-smi mig -lgip)
  int compute_slices = 0;  // of 7
  int memory_slices = 0;   // of 8: the width of a placement
  int sms = 0;             // from the tables: not additive across small profiles
  double memory = 0;       // bytes, as nvidia-smi reports for the product
  int copy_engines = 0;
  int max_instances = 0;
  std::vector<int> placements;  // allowed start slots (memory-slice index)
};

struct MigGeometry {
  int compute_slices = 7;
  int memory_slices = 8;
  std::vector<MigProfile> profiles;
  std::string source;
  double reconfiguration_s = 0;  // destroy and create the instances of one GPU (drained), in seconds
  std::string reconfiguration_source;

  const MigProfile* find(const std::string& name) const;
  std::vector<std::string> names() const;
};

struct MigPlacement {
  std::string profile;
  int start = 0;
  int size = 0;
};

struct MigLayoutCheck {
  bool feasible = false;
  std::string reason;                    // why not, in the hardware's terms
  std::vector<MigPlacement> placements;  // one per requested instance, in request order
};

/// Checks a layout (a list of profile names, repeated for several instances) against the geometry.
MigLayoutCheck check_mig_layout(const MigGeometry& geometry, const std::vector<std::string>& layout);

}  // namespace gtw
