#pragma once
// Reading the small YAML inputs of `gputwin test` and `gputwin sweep`: every failure is a located
// diagnostic, never an exception.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "sim/core/Diagnostics.hpp"

namespace gtw::regress {

inline constexpr size_t MAX_YAML_INPUT_BYTES = 1u << 20;

/// The text of `path` (`what` names the kind of file in the messages), or nullopt with an error
/// when it is missing, not a regular file, or larger than MAX_YAML_INPUT_BYTES.
std::optional<std::string> read_yaml_input(const std::string& path, const std::string& what, Diagnostics& diags);

/// The YAML document in `text`; a syntax error (at its line and column) or an empty document (saying
/// `expected`) is an error and gives nullopt.
std::optional<YAML::Node> parse_yaml_input(const std::string& text, const std::string& path,
                                           const std::string& expected, Diagnostics& diags);

}  // namespace gtw::regress
