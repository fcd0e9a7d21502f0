#include "EngineOverhead.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "InputFile.hpp"
#include "ParameterProvenance.hpp"
#include "Units.hpp"

namespace gtw::serving {

std::string default_engine_overhead_path() {
  if (const char* env = std::getenv("GPUTWIN_SERVING_TARGETS"); env && *env) return env;
  return GTW_SERVING_TARGETS;
}

namespace {

SourceLoc loc_of(const std::string& file, const YAML::Node& n) {
  const auto m = n.Mark();
  return {file, m.line + 1, m.column + 1};
}

}  // namespace

std::optional<std::map<std::string, EngineOverhead>> load_engine_overheads(const std::string& path,
                                                                           Diagnostics& diags) {
  const auto text = read_input_file(path, InputKind::PROFILE, diags);
  if (!text) return std::nullopt;
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    diags.error({path, e.mark.line + 1, e.mark.column + 1}, "hostOverhead", e.msg);
    return std::nullopt;
  }
  const YAML::Node section = root.IsMap() ? root["hostOverhead"] : YAML::Node();
  if (!section) {
    diags.error({path, 1, 1}, "hostOverhead", "expected a mapping of engine family to its host time per step");
    return std::nullopt;
  }
  return read_engine_overheads(section, path, diags);
}

namespace {

// One family's entry: exactly one of stepOverhead, gpuShare, sameAs, and a source. False on an error.
bool read_family(const YAML::Node& v, const std::string& file, const std::string& field, EngineOverhead& e,
                 Diagnostics& diags) {
  e.loc = loc_of(file, v);
  if (!v.IsMap()) {
    diags.error(e.loc, field, "expected stepOverhead:, gpuShare: or sameAs:, and source:");
    return false;
  }
  bool ok = true;
  for (const auto& key : v) {
    const std::string k = key.first.as<std::string>("");
    if (k != "stepOverhead" && k != "gpuShare" && k != "sameAs" && k != "source") {
      diags.error(loc_of(file, key.first), field + "." + k,
                  "unknown field; valid: stepOverhead, gpuShare, sameAs, source");
      ok = false;
    }
  }
  const int given = (v["stepOverhead"] ? 1 : 0) + (v["gpuShare"] ? 1 : 0) + (v["sameAs"] ? 1 : 0);
  if (given != 1) {
    diags.error(e.loc, field, "give exactly one of stepOverhead:, gpuShare:, sameAs:");
    return false;
  }
  e.source = v["source"] && v["source"].IsScalar() ? v["source"].as<std::string>("") : "";
  if (!provenance_of(e.source)) {
    diags.error(v["source"] ? loc_of(file, v["source"]) : e.loc, field + ".source",
                "say where the value comes from, starting with its provenance: one of " + provenance_markers());
    ok = false;
  }
  if (v["sameAs"]) {
    e.same_as = v["sameAs"].IsScalar() ? v["sameAs"].as<std::string>("") : "";
  } else if (v["stepOverhead"]) {
    const auto d = parse_duration(v["stepOverhead"].IsScalar() ? v["stepOverhead"].as<std::string>("") : "");
    if (!d || !(d.quantity->value >= 0 && d.quantity->value < 1)) {
      diags.error(loc_of(file, v["stepOverhead"]), field + ".stepOverhead", "expected a duration in [0, 1s)");
      ok = false;
    } else {
      e.step_overhead_s = d.quantity->value;
    }
  } else {
    const double share = v["gpuShare"].IsScalar() ? v["gpuShare"].as<double>(-1) : -1;
    if (!(share > 0 && share <= 1)) {
      diags.error(loc_of(file, v["gpuShare"]), field + ".gpuShare", "expected a share in (0, 1]");
      ok = false;
    } else {
      e.gpu_share = share;
    }
  }
  return ok;
}

}  // namespace

std::optional<std::map<std::string, EngineOverhead>> read_engine_overheads(const YAML::Node& section,
                                                                           const std::string& file,
                                                                           Diagnostics& diags) {
  if (!section.IsMap()) {
    diags.error(loc_of(file, section), "hostOverhead", "expected a mapping of engine family to its host time per step");
    return std::nullopt;
  }
  std::map<std::string, EngineOverhead> out;
  const size_t errors = diags.error_count();
  for (const auto& kv : section) {
    const std::string name = kv.first.as<std::string>("");
    EngineOverhead e;
    if (read_family(kv.second, file, "hostOverhead." + name, e, diags)) out[name] = e;
  }
  // A default names a family with a value of its own (no chains).
  for (auto& [name, e] : out) {
    if (e.same_as.empty()) continue;
    const auto it = out.find(e.same_as);
    if (it == out.end() || !it->second.same_as.empty()) {
      diags.error(e.loc, "hostOverhead." + name + ".sameAs", "no family '" + e.same_as + "' with its own value");
      continue;
    }
    e.step_overhead_s = it->second.step_overhead_s;
    e.gpu_share = it->second.gpu_share;
  }
  if (diags.error_count() > errors) return std::nullopt;
  return out;
}

}  // namespace gtw::serving
