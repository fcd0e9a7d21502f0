#include "Lab.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "Errors.hpp"
#include "InputFile.hpp"
#include "ScenarioModel.hpp"

namespace gtw::gui {
namespace fs = std::filesystem;
namespace {

// An error at a node of the lab file.
struct LabError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string where(const fs::path& file, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return file.string();
  return file.string() + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

std::string text(const fs::path& file, const YAML::Node& map, const char* key, bool required = true) {
  const YAML::Node n = map[key];
  if (!n) {
    if (!required) return {};
    throw LabError(where(file, map) + ": " + key +
                   ": missing (a lab has title, outcome, scenario, question, steps, "
                   "look_for, why and what_ifs)");
  }
  if (!n.IsScalar()) throw LabError(where(file, n) + ": " + key + ": expected text");
  std::string s = n.as<std::string>();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.empty() && required) throw LabError(where(file, n) + ": " + key + ": is empty");
  return s;
}

void check_keys(const fs::path& file, const YAML::Node& map, const std::set<std::string>& valid) {
  for (const auto& kv : map) {
    const std::string key = kv.first.as<std::string>();
    if (!valid.count(key)) {
      std::string names;
      for (const auto& v : valid) names += (names.empty() ? "" : ", ") + v;
      throw LabError(where(file, kv.first) + ": " + key + ": unknown field (valid: " + names + ")");
    }
  }
}

WhatIf read_what_if(const fs::path& file, const YAML::Node& n) {
  if (!n.IsMap()) throw LabError(where(file, n) + ": what_ifs: expected a mapping with label, explain and set");
  check_keys(file, n, {"label", "explain", "set"});
  WhatIf w;
  w.label = text(file, n, "label");
  w.explain = text(file, n, "explain", false);
  const YAML::Node set = n["set"];
  if (!set || !set.IsSequence() || set.size() == 0)
    throw LabError(where(file, set ? set : n) + ": set: expected a list of `--set path=value` overrides");
  for (const auto& o : set) {
    if (!o.IsScalar() || o.as<std::string>().find('=') == std::string::npos)
      throw LabError(where(file, o) + ": set: expected path=value");
    w.set.push_back(o.as<std::string>());
  }
  return w;
}

Lab read_lab(const fs::path& file, const YAML::Node& root) {
  if (!root.IsMap()) throw LabError(where(file, root) + ": expected a mapping (a lab file)");
  check_keys(file, root, {"title", "outcome", "scenario", "question", "steps", "look_for", "why", "what_ifs"});
  Lab lab;
  lab.file = file;
  lab.title = text(file, root, "title");
  lab.outcome = text(file, root, "outcome");
  lab.question = text(file, root, "question");
  lab.steps = text(file, root, "steps");
  lab.look_for = text(file, root, "look_for");
  lab.why = text(file, root, "why");
  const std::string scenario = text(file, root, "scenario");
  lab.scenario = fs::absolute(file).parent_path() / scenario;
  std::error_code ec;
  if (!fs::is_regular_file(lab.scenario, ec))
    throw LabError(where(file, root["scenario"]) + ": scenario: '" + scenario + "' is not a file next to the lab");
  const YAML::Node what_ifs = root["what_ifs"];
  if (!what_ifs || !what_ifs.IsSequence() || what_ifs.size() == 0)
    throw LabError(where(file, what_ifs ? what_ifs : root) + ": what_ifs: expected a list of what-ifs");
  for (const auto& w : what_ifs) lab.what_ifs.push_back(read_what_if(file, w));
  return lab;
}

}  // namespace

LabLoad load_lab(const fs::path& file) {
  LabLoad out;
  try {
    // The project's one reader of input files: regular files only, within the size cap, UTF-8 (a directory,
    // a FIFO or /dev/zero is refused with its reason).
    out.lab = read_lab(file, YAML::Load(read_input_file_or_throw(file.string(), InputKind::TEST_YAML)));
  } catch (const LabError& e) {
    out.error = e.what();
  } catch (const InputError& e) {
    out.error = e.what();
  } catch (const YAML::Exception& e) {
    out.error =
        file.string() + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg;
  }
  return out;
}

std::vector<fs::path> bundled_labs() {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path dir = examples_dir().parent_path() / "labs";
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.size() > 9 && name.ends_with(".lab.yaml")) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gtw::gui
