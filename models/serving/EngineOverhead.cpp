#include "EngineOverhead.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "InputFile.hpp"
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
  if (!section || !section.IsMap()) {
    diags.error({path, 1, 1}, "hostOverhead", "expected a mapping of engine family to its host time per step");
    return std::nullopt;
  }
  std::map<std::string, EngineOverhead> out;
  std::map<std::string, std::pair<std::string, SourceLoc>> aliases;
  const size_t errors = diags.error_count();
  for (const auto& kv : section) {
    const std::string name = kv.first.as<std::string>("");
    const YAML::Node v = kv.second;
    const std::string field = "hostOverhead." + name;
    if (!v.IsMap()) {
      diags.error(loc_of(path, v), field, "expected stepOverhead:, gpuShare: or sameAs:, and source:");
      continue;
    }
    for (const auto& key : v) {
      const std::string k = key.first.as<std::string>("");
      if (k != "stepOverhead" && k != "gpuShare" && k != "sameAs" && k != "source")
        diags.error(loc_of(path, key.first), field + "." + k,
                    "unknown field; valid: stepOverhead, gpuShare, sameAs, source");
    }
    const int given = (v["stepOverhead"] ? 1 : 0) + (v["gpuShare"] ? 1 : 0) + (v["sameAs"] ? 1 : 0);
    if (given != 1) {
      diags.error(loc_of(path, v), field, "give exactly one of stepOverhead:, gpuShare:, sameAs:");
      continue;
    }
    EngineOverhead e;
    e.source = v["source"] ? v["source"].as<std::string>("") : "";
    if (e.source.empty()) diags.error(loc_of(path, v), field + ".source", "say where the value comes from");
    if (v["sameAs"]) {
      aliases[name] = {v["sameAs"].as<std::string>(""), loc_of(path, v["sameAs"])};
      continue;
    }
    if (v["stepOverhead"]) {
      const auto d = parse_duration(v["stepOverhead"].as<std::string>(""));
      if (!d || !(d.quantity->value >= 0 && d.quantity->value < 1))
        diags.error(loc_of(path, v["stepOverhead"]), field + ".stepOverhead", "expected a duration in [0, 1s)");
      else
        e.step_overhead_s = d.quantity->value;
    } else if (v["gpuShare"]) {
      const double share = v["gpuShare"].as<double>(-1);
      if (!(share > 0 && share <= 1))
        diags.error(loc_of(path, v["gpuShare"]), field + ".gpuShare", "expected a share in (0, 1]");
      else
        e.gpu_share = share;
    }
    out[name] = e;
  }
  for (const auto& [name, alias] : aliases) {
    const auto it = out.find(alias.first);
    if (it == out.end()) {
      diags.error(alias.second, "hostOverhead." + name + ".sameAs",
                  "no family '" + alias.first + "' with its own value");
      continue;
    }
    EngineOverhead e = it->second;
    out[name] = e;
  }
  if (diags.error_count() > errors) return std::nullopt;
  return out;
}

}  // namespace gtw::serving
