#include "HardwareProfile.hpp"

#include <yaml-cpp/yaml.h>
#include "InputFile.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string_view>

#include "ParameterProvenance.hpp"
#include "Sha256.hpp"
#include "Text.hpp"

#ifndef GTW_PROFILE_DIR
#define GTW_PROFILE_DIR "calibration/profiles"
#endif

namespace fs = std::filesystem;

namespace gtw {

FlopsPerSecond HardwareProfile::achievable_rate(DType dtype) const {
  FlopsPerSecond peak = fp16_tensor;
  switch (dtype) {
    case DType::FP32:
      peak = fp32;
      break;
    case DType::FP16:
      peak = fp16_tensor;
      break;
    case DType::BF16:
      peak = bf16_tensor;
      break;
    case DType::FP8:
      peak = fp8_tensor;
      break;
  }
  return peak * compute_efficiency;
}

Seconds HardwareProfile::roofline_time(Flops f, Bytes b, DType dtype) const {
  const double compute_time = f.value / achievable_rate(dtype).value;
  const double memory_time = b.value / hbm_achievable.value;
  return Seconds(std::max(compute_time, memory_time));
}

double HardwareProfile::peer_achievable(int gpus) const {
  const bool nvlink =
      nvlink_topology == NvlinkTopology::NVSWITCH || (nvlink_topology == NvlinkTopology::BRIDGED_PAIRS && gpus <= 2);
  return nvlink ? nvlink_achievable.value : std::min(pcie_h2d_achievable.value, pcie_d2h_achievable.value);
}

const char* nvlink_topology_name(NvlinkTopology t) {
  switch (t) {
    case NvlinkTopology::NVSWITCH:
      return "nvswitch";
    case NvlinkTopology::BRIDGED_PAIRS:
      return "bridgedPairs";
    case NvlinkTopology::NONE:
      return "none";
  }
  return "?";
}

const char* host_link_name(HostLink l) {
  return l == HostLink::NVLINK_C2C ? "nvlinkC2C" : "pcie";
}

std::vector<std::string> profile_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("GPUTWIN_PROFILE_PATH")) {
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      const size_t end = s.find(':', start);
      const std::string part = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!part.empty()) dirs.push_back(part);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  dirs.emplace_back(GTW_PROFILE_DIR);
  return dirs;
}

std::vector<std::string> available_profiles() {
  std::set<std::string> names;
  for (const auto& dir : profile_search_path()) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".yaml") names.insert(it->path().stem().string());
    }
  }
  return {names.begin(), names.end()};
}

namespace {

SourceLoc mark_loc(const std::string& file, const YAML::Node& n) {
  const auto m = n.Mark();
  return m.is_null() ? SourceLoc{file, 0, 0} : SourceLoc{file, m.line + 1, m.column + 1};
}

// A source starts with its provenance, "(datasheet) ...", "(fitted, ...) ...": false and a located error
// otherwise.
bool check_provenance(const YAML::Node& source, const std::string& file, const std::string& path, Diagnostics& diags) {
  if (provenance_of(source.Scalar())) return true;
  diags.error(mark_loc(file, source), path + ".source",
              "must start with its provenance, one of " + provenance_markers() + "; got \"" +
                  source.Scalar().substr(0, 40) + "\"");
  return false;
}

// Each profile field is {value: "<quantity>", source: "<where it comes from>"}.
template <class T>
bool read_field(const YAML::Node& spec, const std::string& file, const std::string& key,
                const std::function<bool(const std::string&, T&, std::string&)>& parse, T& out,
                std::map<std::string, std::string>& sources, Diagnostics& diags) {
  const YAML::Node field = spec[key];
  const std::string path = "spec." + key;
  if (!field) {
    diags.error(mark_loc(file, spec), path, "required profile field is missing");
    return false;
  }
  if (!field.IsMap() || !field["value"] || !field["source"] || !field["value"].IsScalar() ||
      !field["source"].IsScalar() || field["source"].Scalar().empty()) {
    diags.error(mark_loc(file, field), path, "expected {value: ..., source: \"...\"}: every number needs its source");
    return false;
  }
  std::string error;
  if (!parse(field["value"].Scalar(), out, error)) {
    diags.error(mark_loc(file, field["value"]), path + ".value", error);
    return false;
  }
  if (!check_provenance(field["source"], file, path, diags)) return false;
  sources[key] = field["source"].Scalar();
  return true;
}

// A quantity within [min, max] (in the unit's base: bytes, bytes/s, FLOP/s, seconds). The bounds are
// physical plausibility for a GPU, wide on purpose: they refuse 1e308 and 0, not an unusual part.
template <class Q, class Fn>
std::function<bool(const std::string&, Q&, std::string&)> quantity(Fn fn, double min, double max, const char* unit) {
  return [fn, min, max, unit](const std::string& s, Q& out, std::string& error) {
    auto r = fn(s);
    if (!r) {
      error = r.error;
      return false;
    }
    if (!std::isfinite(r.quantity->value) || r.quantity->value < min || r.quantity->value > max) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "must be between %g and %g %s, got \"%s\"", min, max, unit, s.c_str());
      error = buf;
      return false;
    }
    out = *r.quantity;
    return true;
  };
}

std::function<bool(const std::string&, double&, std::string&)> number(double min, double max) {
  return [min, max](const std::string& s, double& out, std::string& error) {
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || out < min || out > max) {
      error = "expected a number in [" + std::to_string(min) + ", " + std::to_string(max) + "], got \"" + s + "\"";
      return false;
    }
    return true;
  };
}

// spec.pciDeviceIds (optional): {value: ["0x20B010DE", ...], source}: the product's PCI device ids as
// mig-parted's device-filter writes them (device, then vendor 0x10DE), upper case after 0x. Not a
// parameter of the model, so not counted with the numbers' sources.
void read_pci_device_ids(const YAML::Node& field, const std::string& file, HardwareProfile& out, Diagnostics& diags) {
  const std::string path = "spec.pciDeviceIds";
  if (!field.IsMap() || !field["value"] || !field["value"].IsSequence() || !field["source"] ||
      !field["source"].IsScalar()) {
    diags.error(mark_loc(file, field), path, "expected {value: [\"0x20B010DE\", ...], source: \"...\"}");
    return;
  }
  if (!check_provenance(field["source"], file, path, diags)) return;
  for (const auto& id : field["value"]) {
    const std::string s = id.IsScalar() ? id.Scalar() : "";
    const bool ok = s.size() == 10 && s[0] == '0' && s[1] == 'x' &&
                    std::all_of(s.begin() + 2, s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
    if (!ok) {
      diags.error(mark_loc(file, id), path + ".value",
                  "expected a PCI device id such as 0x20B010DE, got \"" + s + "\"");
      continue;
    }
    std::string norm = "0x";
    for (size_t i = 2; i < s.size(); ++i) norm += static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
    out.pci_device_ids.push_back(norm);
  }
}

// spec.mig: {source, computeSlices?, memorySlices?, profiles: [{name, id, computeSlices, memorySlices, sms, memory,
// copyEngines, maxInstances, placements}]}: the product's MIG table, exactly as the tables in the MIG user guide
// and `nvidia-smi mig -lgip` give it.
void read_mig(const YAML::Node& mig, const std::string& file, HardwareProfile& out, Diagnostics& diags) {
  if (!mig.IsMap() || !mig["profiles"] || !mig["profiles"].IsSequence() || !mig["source"] ||
      !mig["source"].IsScalar() || mig["source"].Scalar().empty()) {
    diags.error(mark_loc(file, mig), "spec.mig", "expected {source: \"...\", profiles: [...]}");
    return;
  }
  MigGeometry g;
  g.source = mig["source"].Scalar();
  if (!check_provenance(mig["source"], file, "spec.mig", diags)) return;
  // Re-partitioning time: {value, source}, like the scalar fields.
  const YAML::Node rc = mig["reconfiguration"];
  const auto rc_value = rc && rc.IsMap() && rc["value"] && rc["value"].IsScalar() ? parse_duration(rc["value"].Scalar())
                                                                                  : ParseResult<Seconds>{};
  if (!rc || !rc.IsMap() || !rc["source"] || !rc["source"].IsScalar() || rc["source"].Scalar().empty() || !rc_value ||
      rc_value.quantity->value < 0) {
    diags.error(mark_loc(file, rc ? rc : mig), "spec.mig.reconfiguration",
                "expected {value: <duration>, source: \"...\"} (the time to re-partition one drained GPU)");
  } else {
    g.reconfiguration_s = rc_value.quantity->value;
    g.reconfiguration_source = rc["source"].Scalar();
    if (check_provenance(rc["source"], file, "spec.mig.reconfiguration", diags))
      out.sources["mig.reconfiguration"] = g.reconfiguration_source;
  }
  // The GPU's slices: 7 compute and 8 memory on A100/H100-class GPUs (the defaults), 4 and 4 on an A30.
  for (auto [key, total] : {std::pair<const char*, int*>{"computeSlices", &g.compute_slices},
                            std::pair<const char*, int*>{"memorySlices", &g.memory_slices}}) {
    const YAML::Node n = mig[key];
    if (!n) continue;
    int v = 0;
    if (!n.IsScalar() || !YAML::convert<int>::decode(n, v) || v < 1 || v > 16) {
      diags.error(mark_loc(file, n), std::string("spec.mig.") + key,
                  "expected the GPU's number of MIG slices, an integer 1..16 (default 7 compute, 8 memory)");
      return;
    }
    *total = v;
  }
  size_t i = 0;
  for (const auto& p : mig["profiles"]) {
    const std::string path = "spec.mig.profiles[" + std::to_string(i++) + "]";
    MigProfile mp;
    try {
      mp.name = p["name"].as<std::string>();
      mp.id = p["id"].as<int>();
      mp.compute_slices = p["computeSlices"].as<int>();
      mp.memory_slices = p["memorySlices"].as<int>();
      mp.sms = p["sms"].as<int>();
      mp.copy_engines = p["copyEngines"].as<int>();
      mp.max_instances = p["maxInstances"].as<int>();
      mp.placements = p["placements"].as<std::vector<int>>();
      auto mem = parse_bytes(p["memory"].as<std::string>());
      if (!mem) {
        diags.error(mark_loc(file, p["memory"]), path + ".memory", mem.error);
        continue;
      }
      mp.memory = mem.quantity->value;
    } catch (const YAML::Exception& e) {
      diags.error(mark_loc(file, p), path,
                  "expected name, id, computeSlices, memorySlices, sms, memory, copyEngines, maxInstances and "
                  "placements (" +
                      e.msg + ")");
      continue;
    }
    if (mp.compute_slices < 1 || mp.compute_slices > g.compute_slices || mp.memory_slices < 1 ||
        mp.memory_slices > g.memory_slices || mp.sms < 1 || mp.sms > out.sms || mp.placements.empty()) {
      diags.error(mark_loc(file, p), path, "MIG profile values out of range for this GPU");
      continue;
    }
    g.profiles.push_back(std::move(mp));
  }
  out.mig = std::move(g);
}

}  // namespace

// spec.nvlinkTopology and spec.hostLink: optional keywords with their source (defaults: an NVSwitch, PCIe).
template <class E>
void read_keyword(const YAML::Node& spec, const std::string& file, const std::string& key,
                  const std::vector<std::pair<std::string, E>>& names, E& out, HardwareProfile& profile,
                  Diagnostics& diags) {
  if (!spec[key]) return;
  std::vector<std::string> valid;
  for (const auto& [name, value] : names) valid.push_back(name);
  std::string name;
  const auto parse = [&](const std::string& text, std::string& value, std::string& error) {
    value = text;
    if (std::find(valid.begin(), valid.end(), text) != valid.end()) return true;
    error = "expected one of " + join(valid, ", ") + ", got '" + text + "'";
    return false;
  };
  if (!read_field<std::string>(spec, file, key, parse, name, profile.sources, diags)) return;
  for (const auto& [n, value] : names)
    if (n == name) out = value;
}

// Whether nvlinkTopology read (absent counts as read: the default).
bool read_link_kinds(const YAML::Node& spec, const std::string& file, HardwareProfile& out, Diagnostics& diags) {
  const size_t errors = diags.error_count();
  read_keyword<NvlinkTopology>(spec, file, "nvlinkTopology",
                               {{"nvswitch", NvlinkTopology::NVSWITCH},
                                {"bridgedPairs", NvlinkTopology::BRIDGED_PAIRS},
                                {"none", NvlinkTopology::NONE}},
                               out.nvlink_topology, out, diags);
  const bool topology_read = diags.error_count() == errors;
  read_keyword<HostLink>(spec, file, "hostLink", {{"pcie", HostLink::PCIE}, {"nvlinkC2C", HostLink::NVLINK_C2C}},
                         out.host_link, out, diags);
  return topology_read;
}

// A key the loader does not know is a typo that would silently keep a default (hostlink: nvlinkC2C).
void refuse_unknown_spec_keys(const YAML::Node& spec, const std::string& file, Diagnostics& diags) {
  if (!spec.IsMap()) return;
  std::vector<std::string> known = profile_field_names();
  for (const char* k : {"nvlinkTopology", "hostLink", "mig", "pciDeviceIds", "confidentialComputing", "channels"})
    known.emplace_back(k);
  for (const auto& kv : spec) {
    const std::string key = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end())
      diags.error(mark_loc(file, kv.first), "spec." + key, "not a hardware profile field" + suggest(key, known));
  }
}

bool load_profile_file(const std::string& file, HardwareProfile& out, Diagnostics& diags) {
  const auto text = read_input_file(file, InputKind::PROFILE, diags);
  return text && check_yaml_item_count(*text, file, diags) && load_profile_text(*text, file, out, diags);
}

const std::vector<std::string>& profile_field_names() {
  static const std::vector<std::string> names{"boostClockMHz",     "bf16Tensor",
                                              "computeEfficiency", "contextSwitch",
                                              "fp16Tensor",        "fp32",
                                              "fp8Tensor",         "hbmAchievable",
                                              "hbmBandwidth",      "l2",
                                              "l2Contention",      "memory",
                                              "nvlinkAchievable",  "nvlinkPerDirection",
                                              "pcieD2HAchievable", "pcieH2DAchievable",
                                              "pciePerDirection",  "sms",
                                              "tdpWatts"};
  return names;
}

bool apply_profile_overrides(const HardwareProfile& base, const std::map<std::string, std::string>& overrides,
                             const std::map<std::string, SourceLoc>& locs, const std::string& path,
                             HardwareProfile& out, Diagnostics& diags) {
  const auto text = read_input_file(base.file, InputKind::PROFILE, diags);
  if (!text) return false;
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception&) {
    return false;  // the base profile loaded before: cannot happen unless the file changed meanwhile
  }
  bool ok = true;
  std::vector<std::string> names = profile_field_names();
  names.insert(names.end(), {"hostLink", "nvlinkTopology"});  // keywords: an unbridged H100 PCIe node, say
  for (const auto& [field, value] : overrides) {
    auto loc_it = locs.find(field);
    const SourceLoc loc = loc_it == locs.end() ? SourceLoc{} : loc_it->second;
    if (std::find(names.begin(), names.end(), field) == names.end()) {
      diags.error(loc, path + "." + field, "no hardware profile field '" + field + "'" + suggest(field, names));
      ok = false;
      continue;
    }
    YAML::Node entry;
    entry["value"] = value;
    entry["source"] = "(scenario) override at " + loc.file + ":" + std::to_string(loc.line);
    root["spec"][field] = entry;
    // A pool whose cards have no NVLink drops the base's NVLink rates, unless the scenario gives them too (the
    // loader then says they do not belong).
    if (field == "nvlinkTopology" && value == "none")
      for (const char* key : {"nvlinkPerDirection", "nvlinkAchievable"})
        if (!overrides.count(key)) root["spec"].remove(key);
  }
  if (!ok) return false;
  YAML::Emitter emitter;
  emitter << root;
  // Errors in an overridden value are reported against the scenario path.
  Diagnostics inner;
  if (!load_profile_text(emitter.c_str(), base.file, out, inner)) {
    for (const auto& d : inner.all()) {
      const std::string field = d.path.rfind("spec.", 0) == 0 ? d.path.substr(5, d.path.find('.', 5) - 5) : "";
      auto loc_it = locs.find(field);
      diags.error(loc_it == locs.end() ? SourceLoc{} : loc_it->second, path + (field.empty() ? "" : "." + field),
                  d.message);
    }
    return false;
  }
  out.name = base.name;
  out.file = base.file;
  return true;
}

bool load_profile_text(const std::string& text, const std::string& file, HardwareProfile& out, Diagnostics& diags) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    diags.error(SourceLoc{file, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
    return false;
  }
  const size_t errors_before = diags.error_count();
  if (!root.IsMap() || !root["spec"] || !root["spec"].IsMap() || !root["metadata"] || !root["metadata"].IsMap()) {
    diags.error(SourceLoc{file, 1, 1}, "", "expected a HardwareProfile with metadata and spec mappings");
    return false;
  }
  if (!root["kind"] || root["kind"].Scalar() != "HardwareProfile") {
    diags.error(mark_loc(file, root), "kind", "expected kind: HardwareProfile");
  }
  out = HardwareProfile{};
  out.file = file;
  out.sha256 = sha256_hex(text);
  out.name = root["metadata"]["name"] ? root["metadata"]["name"].as<std::string>("") : "";
  out.product = root["metadata"]["product"] ? root["metadata"]["product"].as<std::string>("") : "";
  if (const YAML::Node names = root["metadata"]["productNames"]) {
    if (!names.IsSequence()) {
      diags.error(mark_loc(file, names), "metadata.productNames",
                  "expected a list of product names as nvidia-smi reports them");
    } else {
      for (const auto& n : names) {
        if (!n.IsScalar() || n.Scalar().empty()) {
          diags.error(mark_loc(file, n), "metadata.productNames", "expected a product name");
          continue;
        }
        out.product_names.push_back(n.Scalar());
      }
    }
  }
  const YAML::Node spec = root["spec"];
  auto& src = out.sources;
  double sms = 0;
  read_field<double>(spec, file, "sms", number(1, 1024), sms, src, diags);
  out.sms = static_cast<int>(sms);
  double clock_mhz = 0;
  read_field<double>(spec, file, "boostClockMHz", number(1, 10000), clock_mhz, src, diags);
  out.boost_clock_hz = clock_mhz * 1e6;
  read_field<FlopsPerSecond>(spec, file, "fp16Tensor", quantity<FlopsPerSecond>(parse_flop_rate, 1e9, 1e18, "FLOP/s"),
                             out.fp16_tensor, src, diags);
  read_field<FlopsPerSecond>(spec, file, "bf16Tensor", quantity<FlopsPerSecond>(parse_flop_rate, 1e9, 1e18, "FLOP/s"),
                             out.bf16_tensor, src, diags);
  read_field<FlopsPerSecond>(spec, file, "fp8Tensor", quantity<FlopsPerSecond>(parse_flop_rate, 1e9, 1e18, "FLOP/s"),
                             out.fp8_tensor, src, diags);
  read_field<FlopsPerSecond>(spec, file, "fp32", quantity<FlopsPerSecond>(parse_flop_rate, 1e9, 1e18, "FLOP/s"),
                             out.fp32, src, diags);
  read_field<double>(spec, file, "computeEfficiency", number(0.01, 1), out.compute_efficiency, src, diags);
  read_field<Bytes>(spec, file, "memory", quantity<Bytes>(parse_bytes, 1e8, 1e13, "bytes"), out.memory, src, diags);
  read_field<BytesPerSecond>(spec, file, "hbmBandwidth", quantity<BytesPerSecond>(parse_bandwidth, 1e6, 1e14, "B/s"),
                             out.hbm_bandwidth, src, diags);
  read_field<BytesPerSecond>(spec, file, "hbmAchievable", quantity<BytesPerSecond>(parse_bandwidth, 1e6, 1e14, "B/s"),
                             out.hbm_achievable, src, diags);
  read_field<Bytes>(spec, file, "l2", quantity<Bytes>(parse_bytes, 1e5, 1e10, "bytes"), out.l2, src, diags);
  refuse_unknown_spec_keys(spec, file, diags);
  const bool topology_read = read_link_kinds(spec, file, out, diags);
  if (!topology_read) {
    // Which nvlink fields belong here depends on the value that did not read: report that one only.
  } else if (out.nvlink_topology != NvlinkTopology::NONE) {
    read_field<BytesPerSecond>(spec, file, "nvlinkPerDirection",
                               quantity<BytesPerSecond>(parse_bandwidth, 1e6, 1e14, "B/s"), out.nvlink_per_direction,
                               src, diags);
    read_field<BytesPerSecond>(spec, file, "nvlinkAchievable",
                               quantity<BytesPerSecond>(parse_bandwidth, 1e6, 1e14, "B/s"), out.nvlink_achievable, src,
                               diags);
  } else {
    for (const char* key : {"nvlinkPerDirection", "nvlinkAchievable"})
      if (spec[key])
        diags.error(mark_loc(file, spec[key]), std::string("spec.") + key,
                    "the product has no NVLink (spec.nvlinkTopology: none): remove this field; peer traffic takes "
                    "the PCIe path");
  }
  read_field<BytesPerSecond>(spec, file, "pciePerDirection",
                             quantity<BytesPerSecond>(parse_bandwidth, 1e6, 1e14, "B/s"), out.pcie_per_direction, src,
                             diags);
  read_field<BytesPerSecond>(spec, file, "pcieH2DAchievable",
                             quantity<BytesPerSecond>(parse_bandwidth, 1e6, 1e14, "B/s"), out.pcie_h2d_achievable, src,
                             diags);
  read_field<BytesPerSecond>(spec, file, "pcieD2HAchievable",
                             quantity<BytesPerSecond>(parse_bandwidth, 1e6, 1e14, "B/s"), out.pcie_d2h_achievable, src,
                             diags);
  read_field<double>(spec, file, "tdpWatts", number(1, 100000), out.tdp_watts, src, diags);
  read_field<Seconds>(spec, file, "contextSwitch", quantity<Seconds>(parse_duration, 0, 1, "s"), out.context_switch,
                      src, diags);
  read_field<double>(spec, file, "l2Contention", number(0, 10), out.l2_contention, src, diags);
  // The MIG table is checked against the SM count: skip it when that is already wrong.
  if (const YAML::Node mig = spec["mig"]; mig && out.sms > 0) read_mig(mig, file, out, diags);
  if (const YAML::Node ids = spec["pciDeviceIds"]) read_pci_device_ids(ids, file, out, diags);
  if (const YAML::Node cc = spec["confidentialComputing"]) {
    HardwareProfile::Confidential c;
    auto& s = out.sources;
    std::map<std::string, std::string> cc_sources;
    read_field<BytesPerSecond>(cc, file, "bounceBandwidth", quantity<BytesPerSecond>(parse_bandwidth, 1e6, 1e14, "B/s"),
                               c.bounce_bandwidth, cc_sources, diags);
    read_field<Seconds>(cc, file, "transferLatency", quantity<Seconds>(parse_duration, 0, 1, "s"), c.transfer_latency,
                        cc_sources, diags);
    read_field<Seconds>(cc, file, "attestation", quantity<Seconds>(parse_duration, 0, 3600, "s"), c.attestation,
                        cc_sources, diags);
    for (const auto& [k, v] : cc_sources) s["confidentialComputing." + k] = v;
    out.confidential = c;
  }
  if (diags.error_count() == errors_before) {
    if (out.hbm_achievable > out.hbm_bandwidth)
      diags.error(SourceLoc{file, 0, 0}, "spec.hbmAchievable", "exceeds spec.hbmBandwidth");
    if (out.nvlink_achievable > out.nvlink_per_direction)
      diags.error(SourceLoc{file, 0, 0}, "spec.nvlinkAchievable", "exceeds spec.nvlinkPerDirection");
    for (const auto& f : {out.fp16_tensor, out.bf16_tensor, out.fp8_tensor, out.fp32})
      if (f.value <= 0) diags.error(SourceLoc{file, 0, 0}, "spec", "compute rates must be positive");
    if (out.hbm_achievable.value <= 0 || out.memory.value <= 0)
      diags.error(SourceLoc{file, 0, 0}, "spec", "memory size and bandwidth must be positive");
  }
  return diags.error_count() == errors_before;
}

bool load_profile(const std::string& name, const SourceLoc& where, const std::string& path, HardwareProfile& out,
                  Diagnostics& diags) {
  // A profile is named, not a path: refuse anything that could walk out of the search directories.
  if (name.empty() || name.find('/') != std::string::npos || name.find('\\') != std::string::npos ||
      name.find("..") != std::string::npos) {
    diags.error(where, path, "'" + name + "' is not a hardware profile name" + suggest(name, available_profiles()));
    return false;
  }
  for (const auto& dir : profile_search_path()) {
    const fs::path file = fs::path(dir) / (name + ".yaml");
    std::error_code ec;
    if (fs::exists(file, ec)) return load_profile_file(file.string(), out, diags);
  }
  if (const auto by_product = profile_for_product(name)) return load_profile(*by_product, where, path, out, diags);
  diags.error(
      where, path,
      "no hardware profile named '" + name + "', nor one for that product name" + suggest(name, available_profiles()));
  return false;
}

std::string normalise_product_name(const std::string& product) {
  std::string s;
  for (const char c : product)
    s += (c == ' ' || c == '_') ? '-' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (const auto mig = s.find("-MIG-"); mig != std::string::npos) s.erase(mig);
  constexpr std::string_view shared = "-SHARED";
  if (s.size() > shared.size() && s.compare(s.size() - shared.size(), shared.size(), shared) == 0)
    s.erase(s.size() - shared.size());
  return s;
}

std::optional<std::string> profile_for_product(const std::string& product) {
  const std::string wanted = normalise_product_name(product);
  for (const auto& name : available_profiles()) {
    for (const auto& dir : profile_search_path()) {
      const fs::path file = fs::path(dir) / (name + ".yaml");
      std::error_code ec;
      if (!fs::exists(file, ec)) continue;
      HardwareProfile p;
      Diagnostics quiet;  // a broken profile is reported when it is loaded by name, not here
      if (load_profile_file(file.string(), p, quiet))
        for (const auto& n : p.product_names)
          if (normalise_product_name(n) == wanted) return name;
      break;  // the first directory that has the name wins, as in load_profile
    }
  }
  return std::nullopt;
}

}  // namespace gtw
