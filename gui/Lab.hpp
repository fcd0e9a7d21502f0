#pragma once
// Guided labs (docs/gui.md, "Guided labs"): a scenario and a short text that teaches one learning outcome of the
// course, with one-click what-ifs. A lab is a file `NN-slug.lab.yaml` beside its scenario in scenarios/labs.
// Qt-free: the window shows it, tests read it.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gtw::gui {

// A what-if: a label for its button and the `--set` overrides it applies.
struct WhatIf {
  std::string label;
  std::string explain;
  std::vector<std::string> set;
};

struct Lab {
  std::filesystem::path file;      // the .lab.yaml
  std::filesystem::path scenario;  // absolute: resolved against the lab file's folder
  std::string title;
  std::string outcome;  // the learning outcome it teaches
  std::string question;
  std::string steps;
  std::string look_for;
  std::string why;
  std::vector<WhatIf> what_ifs;
};

struct LabLoad {
  std::optional<Lab> lab;
  std::string error;  // "file:line:col: field: what was expected", when `lab` is empty
};

/// Reads a lab file. Unknown keys, a missing field, an empty what-if list or a scenario that is not a file are
/// errors, located in the lab file.
LabLoad load_lab(const std::filesystem::path& file);

/// The bundled labs (`*.lab.yaml` under scenarios/labs, beside the examples), sorted by name.
std::vector<std::filesystem::path> bundled_labs();

}  // namespace gtw::gui
