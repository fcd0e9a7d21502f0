#include "FabricSpec.hpp"

namespace gtw {

const std::vector<std::string>& fabric_kind_names() {
  static const std::vector<std::string> names{"singleSwitch", "fatTree", "railOptimized"};
  return names;
}

const std::vector<std::string>& storage_kind_names() {
  static const std::vector<std::string> names{"parallelFs", "objectStore"};
  return names;
}

const std::vector<std::string>& data_kind_names() {
  static const std::vector<std::string> names{"dataset", "checkpoint", "weights", "requests"};
  return names;
}

const char* data_kind_name(DataKind k) {
  return data_kind_names()[static_cast<size_t>(k)].c_str();
}

}  // namespace gtw
