#pragma once
// The explorer reads scenario and profile files through the product's input layer (sim/core/InputFile):
// a FIFO or /dev/zero picked in a file dialog must not hang or exhaust the GUI.
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/core/Errors.hpp"
#include "sim/core/InputFile.hpp"

namespace gtw::gui {

/// The YAML document of `path`; throws gtw::InputError (not a regular file, too large, not text) or
/// YAML::Exception (syntax), both std::exception.
inline YAML::Node load_yaml_input(const std::string& path, InputKind kind = InputKind::SCENARIO) {
  const std::string text = read_input_file_or_throw(path, kind);
  Diagnostics diags;
  if (!check_yaml_item_count(text, path, diags)) throw InputError(diags.all().front().format());
  return YAML::Load(text);
}

}  // namespace gtw::gui
