#include "SharingMode.hpp"

#include <algorithm>

namespace gtw {

const char* sharing_mode_name(SharingMode m) {
  switch (m) {
    case SharingMode::EXCLUSIVE:
      return "exclusive";
    case SharingMode::TIME_SLICING:
      return "timeSlicing";
    case SharingMode::MPS:
      return "mps";
    case SharingMode::MIG:
      return "mig";
    case SharingMode::VGPU:
      return "vgpu";
    case SharingMode::CONFIDENTIAL:
      return "confidential";
  }
  return "?";
}

const std::vector<std::string>& sharing_mode_names() {
  static const std::vector<std::string> names{"exclusive", "timeSlicing", "mps", "mig", "vgpu", "confidential"};
  return names;
}

std::optional<SharingMode> sharing_mode_from_name(const std::string& name) {
  const auto& names = sharing_mode_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<SharingMode>(it - names.begin());
}

}  // namespace gtw
