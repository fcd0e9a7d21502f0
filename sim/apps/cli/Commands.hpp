#pragma once
// Subcommands that live in their own files. Each registers itself on the CLI11 app and returns the
// function main() calls when that subcommand was chosen; the function returns the exit code.
#include <CLI/CLI.hpp>

#include <functional>

namespace gtw::cli {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// An option given with an empty value is refused (exit 2), not read as "not given" or as 0.
inline const CLI::Validator NON_EMPTY(
    [](std::string& value) {
      return value.empty() ? std::string("expected a value, got an empty one") : std::string();
    },
    "NON-EMPTY");

Subcommand register_test_command(CLI::App& app);         // gputwin test DIR|FILE...   (TestCommand.cpp)
Subcommand register_diff_command(CLI::App& app);         // gputwin diff BASE NEW      (DiffCommand.cpp)
Subcommand register_sweep_command(CLI::App& app);        // gputwin sweep SWEEP -j N   (SweepCommand.cpp)
Subcommand register_calibrate_command(CLI::App& app);    // gputwin calibrate [-o P] (CalibrateCommand.cpp)
Subcommand register_import_topo_command(CLI::App& app);  // gputwin import-topo FILE (ImportTopoCommand.cpp)
Subcommand register_audit_command(CLI::App& app);        // gputwin audit verify FILE  (AuditCommand.cpp)

}  // namespace gtw::cli
