#pragma once
// Reading the small YAML inputs of `gputwin test` and `gputwin sweep`: every failure is a located
// diagnostic, never an exception.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "sim/core/Diagnostics.hpp"

namespace gtw::regress {

/// The text of `path`, or nullopt with an error when it is missing, not a regular file, larger than
/// 1 MiB or not UTF-8 text (sim/core/InputFile, kind TEST_YAML).
std::optional<std::string> read_yaml_input(const std::string& path, Diagnostics& diags);

/// The YAML document in `text`; a syntax error (at its line and column) or an empty document (saying
/// `expected`) is an error and gives nullopt.
std::optional<YAML::Node> parse_yaml_input(const std::string& text, const std::string& path,
                                           const std::string& expected, Diagnostics& diags);

}  // namespace gtw::regress
