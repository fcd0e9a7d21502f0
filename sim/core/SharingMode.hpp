#pragma once
// How a GPU is shared: the scenario's `sharing.mode` and the run layout's mode of each device. In core
// because the spec, the run result and the writers all carry it; a name is parsed once, at load.
#include <optional>
#include <string>
#include <vector>

namespace gtw {

enum class SharingMode { EXCLUSIVE, TIME_SLICING, MPS, MIG, VGPU, CONFIDENTIAL };

/// "exclusive", "timeSlicing", "mps", "mig", "vgpu", "confidential" (the scenario's spelling).
const char* sharing_mode_name(SharingMode m);
/// The names in enum order.
const std::vector<std::string>& sharing_mode_names();
/// The mode of a name, nullopt when it is not one.
std::optional<SharingMode> sharing_mode_from_name(const std::string& name);

}  // namespace gtw
