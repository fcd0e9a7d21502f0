#pragma once
// Reading YAML inputs through the input layer (sim/core/InputFile): the small files of `gputwin test` and
// `gputwin sweep` (every failure a located diagnostic), and the GUI's scenario and profile reads (a FIFO
// or /dev/zero picked in a file dialog must not hang or exhaust the explorer).
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "Diagnostics.hpp"
#include "InputFile.hpp"

namespace gtw {

/// The text of `path`, or nullopt with an error when it is missing, not a regular file, larger than
/// 1 MiB or not UTF-8 text (sim/core/InputFile, kind TEST_YAML).
std::optional<std::string> read_yaml_input(const std::string& path, Diagnostics& diags);

/// The YAML document in `text`; a syntax error (at its line and column) or an empty document (saying
/// `expected`) is an error and gives nullopt.
std::optional<YAML::Node> parse_yaml_input(const std::string& text, const std::string& path,
                                           const std::string& expected, Diagnostics& diags);

/// The YAML document of `path`; throws gtw::InputError (not a regular file, too large, not text, too many
/// YAML items) or YAML::Exception (syntax), both std::exception.
YAML::Node load_yaml_input(const std::string& path, InputKind kind);

}  // namespace gtw
