#pragma once
// A scenario as the what-if explorer sees it: loaded and checked with the simulator's own loader
// (sim/scenario: schema, units, references, every problem with file:line:col), its structure as a tree
// for the window, and the what-if controls ("knobs") generated from the scenario, the schema
// (FieldDocs, the table behind `gputwin explain`) and the placement policy registry. Knob values turn
// into `--set path=value` overrides for a child `gputwin run`; the scenario file is never written.
// Qt-free, so tests can check it without widgets.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Scenario.hpp"

namespace gtw::gui {

// One line of the structure view, with its children.
struct TreeNode {
  std::string label;
  std::string detail;  // second column
  std::vector<TreeNode> children;
};

enum class KnobKind {
  CHOICE,  // one of `choices` (an empty choice means "the default")
  TEXT,    // free text parsed by the loader (durations, sizes, lists); `suggestions` offered
  NUMBER,  // a real number in [min, max]
  INTEGER,
};

struct Knob {
  std::string key;    // unique: "run/seed", "sharing/serve/mode", "load/chat", "policy/spec.policies.x.y"
  std::string group;  // the box it is shown in: "Run", "Node pool serve", "Tenant load", "Policies", ...
  std::string label;
  std::string help;
  KnobKind kind = KnobKind::TEXT;
  std::vector<std::string> choices;      // CHOICE
  std::vector<std::string> suggestions;  // TEXT
  double min = 0, max = 0, step = 1;     // NUMBER, INTEGER
  std::string initial;                   // the scenario's value as text ("" = not set, the default)
  std::vector<std::string> modes;        // sharing knobs: the modes the field applies to (empty: all)
  std::string target;                    // sharing knobs: the scenario path of the mapping they rewrite
  std::string absent;                    // schema fields: the first ancestor the scenario lacks (set whole)
};

struct ScenarioDoc {
  std::filesystem::path path;
  bool loaded = false;  // the file was read and parsed (spec may still have errors)
  ScenarioSpec spec;
  std::vector<Diagnostic> diagnostics;  // errors and warnings, file:line:col in format()
  bool has_errors() const;
  std::vector<TreeNode> structure;
  std::vector<Knob> knobs;
};

/// Loads `path` with `overrides` applied ("path=value" each), checks it (schema and references) and builds
/// its structure and knobs. Never throws.
ScenarioDoc load_scenario_doc(const std::filesystem::path& path, const std::vector<std::string>& overrides = {});

/// Checks `overrides` against the scenario as `gputwin run` would, without running: the diagnostics.
std::vector<Diagnostic> check_overrides(const std::filesystem::path& path, const std::vector<std::string>& overrides);

/// The `--set` overrides that turn the scenario into the one the knob `values` describe (key -> text);
/// knobs whose value equals their initial one give none.
std::vector<std::string> overrides_for(const ScenarioDoc& doc, const std::map<std::string, std::string>& values);

/// Bundled example scenarios: scenarios/examples and, beside it, scenarios/attacks, scenarios/compliance and
/// scenarios/labs (recursively, without fragments, regression tests and lab descriptions), sorted by path.
std::vector<std::filesystem::path> bundled_examples();
/// The folders bundled_examples() reads (the examples folder first).
std::vector<std::filesystem::path> bundled_example_dirs();
/// Where bundled_examples() looks: $GPUTWIN_EXAMPLES, else the source tree's scenarios/examples.
std::filesystem::path examples_dir();

/// Valid MIG layouts offered for `product` (read from its hardware profile), e.g. "[4g.40gb, 3g.40gb]";
/// empty when the profile has no MIG table.
std::vector<std::string> mig_layout_presets(const std::string& product);

/// "600s" -> "10m": a duration in seconds as the scenario format writes it.
std::string duration_text(double seconds);

}  // namespace gtw::gui
