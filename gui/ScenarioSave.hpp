#pragma once
// "Save scenario as...": the scenario file with the what-if overrides written into it, as a complete
// scenario that `gputwin run` reads without `--set`. Overrides are applied to the YAML tree with the
// paths `--set` takes (spec.workloads[chat-svc].arrival.rate, spec.cluster.nodePools[0].sharing, list
// items by index or by name, also through a $ref), `$ref` includes an override does not reach into are
// kept as they are, and relative paths ($ref, arrival.file, topology.fromNvidiaSmi / mig: every field
// the schema types as a path) are rewritten for the file's new directory. Comments are not kept (yaml-cpp
// drops them); a header says where the file came from. Qt-free.
#include <filesystem>
#include <string>
#include <vector>

namespace gtw::gui {

struct SavedScenario {
  bool ok = false;
  std::string error;  // why not, when !ok
  std::string yaml;   // the scenario text, header included
};

/// The scenario at `original` with `overrides` ("path=value", as for `gputwin run --set`) applied, as the text
/// of a file to be written at `destination`. Never throws. Paths are matched as the loader matches them
/// (sim/scenario/Loader.cpp); check the overrides with the loader first (check_overrides) to get its messages.
SavedScenario scenario_with_overrides(const std::filesystem::path& original, const std::vector<std::string>& overrides,
                                      const std::filesystem::path& destination);

/// scenario_with_overrides() written to `destination` (through a temporary file, so that a failed write
/// leaves an existing file as it was). False with `error` set on failure.
bool save_scenario_with_overrides(const std::filesystem::path& original, const std::vector<std::string>& overrides,
                                  const std::filesystem::path& destination, std::string* error = nullptr);

/// Where "Save scenario as..." proposes to save: `<stem>-whatif.yaml` beside the original.
std::filesystem::path default_save_path(const std::filesystem::path& original);

}  // namespace gtw::gui
