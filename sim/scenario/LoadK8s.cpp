// Kubernetes and NVIDIA files read verbatim as parts of a node pool (docs/scenario.md, "Kubernetes and
// NVIDIA files"): the device plugin's config, bare or as a named entry of a ConfigMap, and mig-parted
// configs, bare or inside the GPU Operator's ConfigMap. Their schemas are NVIDIA's, so they are checked
// here rather than from FieldDocs; a config embedded in a ConfigMap string is located in its file
// (the string's line plus the line within it).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <set>
#include <utility>

#include "FieldDocs.hpp"
#include "InputFile.hpp"
#include "LoaderInternal.hpp"
#include "MigParted.hpp"
#include "YamlDocuments.hpp"

namespace fs = std::filesystem;

namespace gtw {

namespace {

// The device plugin's flags (api/config/v1): accepted; only migStrategy bears on the simulation.
const std::vector<std::string>& device_plugin_flags() {
  static const std::vector<std::string> names{
      "migStrategy", "failOnInitError", "mpsRoot",           "nvidiaDriverRoot",        "nvidiaDevRoot",
      "gdsEnabled",  "mofedEnabled",    "useNodeFeatureAPI", "deviceDiscoveryStrategy", "plugin",
      "gfd"};
  return names;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string kind_of(const Ctx& doc) {
  const YAML::Node k = doc.node.IsMap() ? std::as_const(doc.node)["kind"] : YAML::Node();
  return k && k.IsScalar() ? k.Scalar() : std::string();
}

}  // namespace

// Every document of the file named by `sel.key`, relative to the file that names it.
std::optional<Loader::K8sFile> Loader::read_k8s_file(const Ctx& sel, const std::string& key) {
  auto at = child(sel, key);
  if (!at) {
    missing(sel, key);
    return std::nullopt;
  }
  std::string name;
  if (!scalar(*at, name, "a file path")) return std::nullopt;
  if (name.empty()) {
    d_.error(at->loc(), at->path, "expected a file path");
    return std::nullopt;
  }
  fs::path target(name);
  if (target.is_relative()) target = fs::path(sel.file == "--set" ? "." : sel.file).parent_path() / target;
  K8sFile out;
  out.file = target.string();
  auto docs = read_yaml_documents(out.file, at->loc(), at->path, nullptr, &out.text);
  if (!docs) return std::nullopt;
  if (docs->empty()) {
    d_.error(SourceLoc{out.file, 1, 1}, at->path, "file is empty: expected a ConfigMap or a config");
    return std::nullopt;
  }
  included_.insert(target.lexically_normal().string());
  std::error_code ec;
  auto chain = sel.chain;
  chain.push_back(fs::weakly_canonical(target, ec).string());
  for (const auto& doc : *docs)
    out.documents.push_back(Ctx{doc, out.file, sel.path, sel.alt_path, chain, SourceLoc{out.file, 1, 1}});
  return out;
}

// The YAML document held by a string value of a ConfigMap (`data.<key>: |`). A literal block maps line
// for line onto the file, so inner locations are exact; another style points at the string itself.
std::optional<Ctx> Loader::embedded_document(const Ctx& value, const std::string& file_text, const char* what) {
  std::string body;
  if (!scalar(value, body, what)) return std::nullopt;
  const YAML::Mark m = value.node.Mark();
  Ctx out = value;
  const bool literal = !m.is_null() && m.pos >= 0 && static_cast<size_t>(m.pos) < file_text.size() &&
                       file_text[static_cast<size_t>(m.pos)] == '|';
  if (literal) {
    out.line_offset = m.line + 1;  // the content starts on the line after the indicator
    size_t pos = file_text.find('\n', static_cast<size_t>(m.pos));
    int indent = 0;
    while (pos != std::string::npos && pos + 1 < file_text.size()) {
      const size_t start = pos + 1;
      const size_t first = file_text.find_first_not_of(' ', start);
      if (first == std::string::npos || file_text[first] != '\n') {
        indent = static_cast<int>((first == std::string::npos ? file_text.size() : first) - start);
        break;
      }
      pos = first;  // a blank line: the indentation is the first non-blank line's
    }
    out.col_offset = indent;
  } else {
    out.pinned = true;
    out.fallback = value.loc();
  }
  if (!check_yaml_item_count(body, value.file, d_)) return std::nullopt;
  try {
    std::optional<YAML::Node> root;
    for (const auto& doc : load_all_documents(body)) {
      if (doc.IsNull()) continue;
      if (root) {
        d_.error(out.below(doc, out.path, out.alt_path, out.fallback).loc(), value.path,
                 std::string("a second YAML document in ") + what + "; it holds exactly one");
        return std::nullopt;
      }
      root = doc;
    }
    if (!root) {
      d_.error(value.loc(), value.path, std::string(what) + " is empty");
      return std::nullopt;
    }
    out.node = *root;
    return out;
  } catch (const YAML::Exception& e) {
    SourceLoc at = value.loc();
    if (literal && !e.mark.is_null())
      at = SourceLoc{value.file, e.mark.line + 1 + out.line_offset, e.mark.column + 1 + out.col_offset};
    d_.error(at, value.path, std::string("YAML syntax error in ") + what + ": " + e.msg);
    return std::nullopt;
  }
}

// The ConfigMap data entry named `config` (or the only one that `accepts`), parsed. `chosen` gets its key.
std::optional<Ctx> Loader::select_config_map_data(const Ctx& sel, const K8sFile& f, const std::string& config,
                                                  const Ctx* config_ctx, const char* what,
                                                  const std::function<bool(const Ctx&)>& accepts, std::string& chosen) {
  std::vector<std::pair<std::string, Ctx>> entries;  // data key -> its value
  for (const auto& doc : f.documents) {
    if (kind_of(doc) != "ConfigMap") continue;
    auto data = child(doc, "data");
    if (!data) {
      d_.error(doc.loc(), doc.path, "a ConfigMap without data in " + f.file);
      continue;
    }
    if (!expect_map(*data)) continue;
    for (const auto& kv : data->node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      Ctx v = data->below(kv.second, data->path, data->alt_path, data->loc());
      if (!key.empty() && (!config.empty() || accepts(v))) entries.emplace_back(key, v);
    }
  }
  std::vector<std::string> names;
  for (const auto& [k, v] : entries) names.push_back(k);
  const Ctx& where = config_ctx ? *config_ctx : sel;
  if (!config.empty()) {
    const auto hits = std::count_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == config; });
    if (hits == 0) {
      d_.error(where.loc(), where.path,
               "no " + std::string(what) + " named '" + config + "' in the ConfigMap data of " + f.file +
                   suggest(config, names));
      return std::nullopt;
    }
    if (hits > 1) {
      d_.error(where.loc(), where.path, "two ConfigMaps of " + f.file + " hold '" + config + "'; keep one");
      return std::nullopt;
    }
  } else if (entries.size() != 1) {
    d_.error(where.loc(), where.path,
             entries.empty() ? "no ConfigMap with a " + std::string(what) + " in " + f.file
                             : "the ConfigMap data of " + f.file + " holds " + std::to_string(entries.size()) + " " +
                                   what + "s (" + join(names) + "); choose one with `config:`, as the node label does");
    return std::nullopt;
  }
  for (const auto& [k, v] : entries) {
    if (!config.empty() && k != config) continue;
    chosen = k;
    Ctx value = v;
    value.path = sel.path + "[" + k + "]";
    value.alt_path = value.path;
    return embedded_document(value, f.text, what);
  }
  return std::nullopt;
}

// fromNode: {file, name}: a Kubernetes Node (kubectl get node -o yaml; a List or NodeList of them, several documents,
// or the bare map of its labels) whose GPU feature discovery labels describe the pool's nodes: nvidia.com/gpu.product
// (the hardware profile, as `gpu` takes it), nvidia.com/gpu.count (gpusPerNode), nvidia.com/gpu.memory (MiB, checked
// against the profile at setup), topology.kubernetes.io/region (region). A value the pool also gives must agree. Labels
// that select configs the twin reads from their own files are named in a warning.
void Loader::read_node_labels(const Ctx& sel, const Ctx& pool_ctx, NodePoolSpec& pool) {
  if (!check_map(sel)) return;
  std::string wanted;
  get_string(sel, "name", wanted, false);
  auto f = read_k8s_file(sel, "file");
  if (!f) return;
  std::vector<Ctx> nodes;
  std::optional<Ctx> bare;  // a label map as `kubectl get node -o jsonpath='{.metadata.labels}'` prints it
  for (const auto& doc : f->documents) {
    const std::string kind = kind_of(doc);
    if (kind == "Node") nodes.push_back(doc);
    // kubectl's List gives each item its kind; the API's NodeList (GET /api/v1/nodes) leaves it out.
    if (kind == "List" || kind == "NodeList")
      if (auto list = child(doc, "items"))
        for (const auto& item : items(*list))
          if (const std::string k = kind_of(item);
              item.node.IsMap() && (k == "Node" || (k.empty() && kind == "NodeList")))
            nodes.push_back(item);
    if (kind.empty() && doc.node.IsMap() && std::as_const(doc.node)["nvidia.com/gpu.product"]) bare = doc;
  }
  const auto name_of = [&](const Ctx& node) {
    std::string name;
    if (auto meta = child(node, "metadata"); meta && meta->node.IsMap()) get_string(*meta, "name", name, false);
    return name;
  };
  std::vector<std::string> names;
  for (const auto& n : nodes) names.push_back(name_of(n));
  std::optional<Ctx> labels;
  for (size_t i = 0; i < nodes.size(); ++i)
    if ((!wanted.empty() && names[i] == wanted) || (wanted.empty() && nodes.size() == 1)) {
      const auto meta = child(nodes[i], "metadata");
      labels = meta ? child(*meta, "labels") : std::nullopt;
      if (!labels || !labels->node.IsMap()) {
        d_.error(nodes[i].loc(), sel.path,
                 "the Node has no metadata.labels (GPU feature discovery labels its GPU nodes)");
        return;
      }
    }
  if (!labels && nodes.empty() && bare) labels = bare;
  if (!labels) {
    const auto at = child(sel, "name");
    d_.error(at ? at->loc() : sel.loc(), sel.path + ".name",
             nodes.empty() ? f->file + " holds no Node (kind: Node, a List or NodeList of them, or a map of its labels)"
             : wanted.empty()
                 ? f->file + " holds " + std::to_string(nodes.size()) + " Nodes: name one; valid values: " + join(names)
                 : "no Node named '" + wanted + "' in " + f->file + suggest(wanted, names));
    return;
  }
  // A label's value where the pool has none; a pool value that differs is an error at the pool's field.
  const auto take = [&](const char* label, const char* field, std::string& value) -> std::optional<Ctx> {
    auto l = child(*labels, label);
    std::string v;
    if (!l || !scalar(*l, v, "a label value")) return std::nullopt;
    if (value.empty()) {
      value = v;
    } else if (value != v) {
      const auto own = child(pool_ctx, field);
      d_.error(own ? own->loc() : pool_ctx.loc(), pool_ctx.path + "." + field,
               std::string(field) + " is '" + value + "', but the Node's label " + label + " says '" + v + "' (" +
                   l->loc().file + ":" + std::to_string(l->loc().line) + ")");
    }
    return l;
  };
  // Under mig.strategy single GFD labels the MIG devices (product NVIDIA-A100-SXM4-40GB-MIG-1g.5gb, their
  // count and memory): the product is the part before -MIG-, and the count and memory are not the GPUs'.
  bool labels_mig_devices = false;
  if (auto l = child(*labels, "nvidia.com/gpu.product")) {
    std::string v;
    if (scalar(*l, v, "a product name")) {
      const auto mig = v.find("-MIG-");
      labels_mig_devices = mig != std::string::npos;
      if (labels_mig_devices) {
        d_.warning(l->loc(), l->path,
                   "'" + v + "' is a MIG device (mig.strategy single): the GPUs are " + v.substr(0, mig) +
                       "; nvidia.com/gpu.count and gpu.memory count MIG devices and are not read");
        v = v.substr(0, mig);
      }
      if (pool.gpu_product.empty()) {
        pool.gpu_product = v;
        pool.product_loc = l->loc();
      } else {
        pool.labelled_product = v;  // compared with the pool's gpu once both name profiles (Setup)
        pool.labelled_product_loc = l->loc();
      }
    }
  } else if (pool.gpu_product.empty()) {
    d_.error(labels->loc(), sel.path, "the Node has no nvidia.com/gpu.product label and the pool gives no gpu");
  }
  for (const auto& kv : labels->node) {  // nvidia.com/mig-<profile>.count > 0: the node runs MIG instances
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (key.rfind("nvidia.com/mig-", 0) == 0 && key.size() > 6 && key.substr(key.size() - 6) == ".count" &&
        kv.second.IsScalar() && kv.second.Scalar() != "0")
      pool.labelled_runs_mig = true;
  }
  pool.labelled_runs_mig = pool.labelled_runs_mig || labels_mig_devices;
  std::string count = child(pool_ctx, "gpusPerNode") ? std::to_string(pool.gpus_per_node) : std::string();
  if (auto l = labels_mig_devices ? std::nullopt : take("nvidia.com/gpu.count", "gpusPerNode", count)) {
    int n = 0;
    auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (ec != std::errc() || ptr != count.data() + count.size() || n < 1 || n > 16)
      d_.error(l->loc(), l->path, "expected a GPU count 1..16 (gpusPerNode), got '" + count + "'");
    else
      pool.gpus_per_node = n;
  }
  if (auto l = labels_mig_devices ? std::nullopt : child(*labels, "nvidia.com/gpu.memory")) {
    std::string v;
    double mib = 0;
    if (scalar(*l, v, "MiB")) {
      auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), mib);
      if (ec != std::errc() || ptr != v.data() + v.size() || mib <= 0) {
        d_.error(l->loc(), l->path, "expected the GPU memory in MiB, got '" + v + "'");
      } else {
        pool.labelled_memory_mib = mib;
        pool.labelled_memory_loc = l->loc();
      }
    }
  }
  std::string region = pool.region;
  if (take("topology.kubernetes.io/region", "region", region)) pool.region = region;
  if (auto l = child(*labels, "nvidia.com/mig.strategy")) {
    std::string v;
    if (scalar(*l, v, "none, single or mixed")) {
      if (v != "none" && v != "single" && v != "mixed")
        d_.error(l->loc(), l->path, "unknown value '" + v + "'" + suggest(v, {"none", "single", "mixed"}));
      pool.labelled_mig_strategy = v;
      pool.labelled_mig_strategy_loc = l->loc();
    }
  }
  for (const char* selector : {"nvidia.com/mig.config", "nvidia.com/device-plugin.config"})
    if (auto l = child(*labels, selector);
        l && !child(pool_ctx, std::string(selector) == "nvidia.com/mig.config" ? "migConfig" : "devicePluginConfig")) {
      std::string v;
      if (scalar(*l, v, "a label value"))
        d_.warning(
            l->loc(), l->path,
            std::string(selector) + "=" + v + " is not applied from the Node: give the pool " +
                (std::string(selector) == "nvidia.com/mig.config" ? "migConfig: {file, config: " + v + "}"
                                                                  : "devicePluginConfig: {file, config: " + v + "}"));
    }
}

// devicePluginConfig: the device plugin's config verbatim, a $ref to it or to a ConfigMap, or
// {file, config}: the named entry of a ConfigMap (as the node label nvidia.com/device-plugin.config
// selects it), or a bare config file.
void Loader::read_device_plugin_selection(const Ctx& c, NodePoolSpec& pool) {
  auto& plugin = pool.device_plugin;
  plugin.given = true;
  plugin.loc = c.loc();
  plugin.file = c.file;
  if (c.node.IsMap() && kind_of(c) == "ConfigMap") {  // $ref: a ConfigMap file of one document
    auto text = read_input_file(c.file, InputKind::SCENARIO, d_, c.loc(), c.path);
    if (!text) return;
    const K8sFile with_text{c.file, *text, {c}};
    auto doc = select_config_map_data(
        c, with_text, "", nullptr, "device plugin config", [](const Ctx&) { return true; }, plugin.config);
    if (doc) read_device_plugin_config(*doc, pool.sharing, &plugin);
    return;
  }
  if (!(c.node.IsMap() && std::as_const(c.node)["file"])) {
    read_device_plugin_config(c, pool.sharing, &plugin);
    return;
  }
  if (!check_map(c)) return;
  std::string config;
  get_string(c, "config", config, false);
  const auto config_ctx = child(c, "config");
  auto f = read_k8s_file(c, "file");
  if (!f) return;
  plugin.file = f->file;
  std::optional<Ctx> bare;
  for (const auto& doc : f->documents) {
    const std::string kind = kind_of(doc);
    if (kind.empty() && doc.node.IsMap() && std::as_const(doc.node)["version"]) {
      bare = doc;
    } else if (kind != "ConfigMap") {
      d_.warning(doc.loc(), c.path + ".file",
                 "a document of kind '" + (kind.empty() ? std::string("(none)") : kind) +
                     "' is not read here (devicePluginConfig reads a ConfigMap or a device plugin config)");
    }
  }
  if (bare && f->documents.size() == 1) {
    if (config_ctx)
      d_.error(config_ctx->loc(), config_ctx->path,
               f->file + " is a bare device plugin config, not a ConfigMap: there is no config to choose");
    else
      read_device_plugin_config(*bare, pool.sharing, &plugin);
    return;
  }
  auto doc = select_config_map_data(
      c, *f, config, config_ctx ? &*config_ctx : nullptr, "device plugin config", [](const Ctx&) { return true; },
      plugin.config);
  if (doc) read_device_plugin_config(*doc, pool.sharing, &plugin);
}

// The NVIDIA k8s device plugin's config file (version v1):
//   {version: v1, flags: {migStrategy, ...}, sharing: {timeSlicing|mps: {renameByDefault,
//    failRequestsGreaterThanOne, resources: [{name: nvidia.com/gpu, rename, replicas: N}]}}}
void Loader::read_device_plugin_config(const Ctx& c, SharingSpec& sharing, DevicePluginSpec* plugin) {
  DevicePluginSpec ignored;
  DevicePluginSpec& dp = plugin ? *plugin : ignored;
  sharing.loc = c.loc();
  if (!expect_map(c)) return;
  allow_keys(c, {"version", "flags", "sharing"}, "a device plugin config");
  std::string version;
  get_string(c, "version", version, true);
  if (!version.empty() && version != "v1") {
    auto v = child(c, "version");
    d_.error(v->loc(), v->path, "device plugin config version '" + version + "' is not supported; use v1");
  }
  if (auto flags = child(c, "flags"); flags && expect_map(*flags)) {
    allow_keys(*flags, device_plugin_flags(), "a device plugin config");
    if (auto ms = child(*flags, "migStrategy"); ms && scalar(*ms, dp.mig_strategy, "none, single or mixed")) {
      if (dp.mig_strategy != "none" && dp.mig_strategy != "single" && dp.mig_strategy != "mixed")
        d_.error(ms->loc(), ms->path,
                 "unknown value '" + dp.mig_strategy + "'" + suggest(dp.mig_strategy, {"none", "single", "mixed"}));
    }
  }
  auto shared = child(c, "sharing");
  if (!shared) {
    sharing.mode = SharingMode::EXCLUSIVE;  // no sharing section: one pod per GPU
    return;
  }
  if (!expect_map(*shared)) return;
  allow_keys(*shared, {"timeSlicing", "mps"}, "a device plugin config");
  auto ts = child(*shared, "timeSlicing");
  auto mps = child(*shared, "mps");
  if (ts && mps) {
    d_.error(shared->loc(), shared->path, "timeSlicing and mps are mutually exclusive in a device plugin config");
    return;
  }
  auto mode = ts ? ts : mps;
  if (!mode) return;
  sharing.mode = ts ? SharingMode::TIME_SLICING : SharingMode::MPS;
  sharing.loc = mode->loc();
  dp.shared = true;
  dp.fail_loc = mode->loc();
  if (!expect_map(*mode)) return;
  allow_keys(*mode, {"renameByDefault", "failRequestsGreaterThanOne", "resources"}, "a device plugin config");
  bool rename_by_default = false;
  get_bool(*mode, "renameByDefault", rename_by_default);
  if (rename_by_default) dp.resource = "nvidia.com/gpu.shared";  // the advertised name only
  dp.rename_by_default = rename_by_default;
  get_bool(*mode, "failRequestsGreaterThanOne", dp.fail_requests_greater_than_one);
  if (auto f = child(*mode, "failRequestsGreaterThanOne")) dp.fail_loc = f->loc();
  read_device_plugin_resources(*mode, sharing, dp);
}

void Loader::read_device_plugin_resources(const Ctx& mode, SharingSpec& sharing, DevicePluginSpec& dp) {
  auto resources = child(mode, "resources");
  if (!resources) {
    missing(mode, "resources");
    return;
  }
  const auto list = items(*resources);
  int gpu_entries = 0;
  for (const auto& r : list) {
    if (!expect_map(r)) continue;
    allow_keys(r, {"name", "rename", "replicas", "devices"}, "a device plugin config");
    std::string name;
    get_string(r, "name", name, true);
    const auto name_ctx = child(r, "name");
    // The device plugin prefixes a bare name with nvidia.com/ (gpu, mig-1g.5gb), names and renames alike.
    const auto qualified = [](const std::string& n) {
      return n.empty() || n.find('/') != std::string::npos ? n : "nvidia.com/" + n;
    };
    name = qualified(name);
    const bool mig = name.rfind("nvidia.com/mig-", 0) == 0 && name.size() > 15;
    if (!mig && !name.empty() && name != "nvidia.com/gpu") {
      d_.error(name_ctx->loc(), name_ctx->path,
               "unknown resource '" + name + "': the device plugin shares nvidia.com/gpu and nvidia.com/mig-<profile>" +
                   suggest(name, {"nvidia.com/gpu"}));
      continue;
    }
    int replicas = 1;
    get_int_in(r, "replicas", replicas, true, 2, 48);  // the device plugin's file, not the schema
    std::string renamed;
    get_string(r, "rename", renamed, false);
    renamed = qualified(renamed);
    if (!renamed.empty())
      dp.renamed[name] = renamed;  // the advertised name; the simulation is the same
    else if (dp.rename_by_default)
      dp.renamed[name] = name + ".shared";
    if (auto devices = child(r, "devices"))
      d_.error(devices->loc(), devices->path, "per-device selection is not simulated; use gpuSharing");
    if (mig) {
      read_shared_mig_resource(*name_ctx, name.substr(15), replicas, sharing, dp);
      continue;
    }
    ++gpu_entries;
    sharing.replicas = replicas;
    if (!renamed.empty()) dp.resource = renamed;
    // Under migStrategy single the MIG devices are advertised as nvidia.com/gpu: they are shared alike (time-slicing;
    // MPS of MIG devices is refused when the pool's layout has MIG instances, apply_mig_config).
    if (dp.mig_strategy == "single" && sharing.mode == SharingMode::TIME_SLICING) {
      dp.mig_replicas["all"] = replicas;
      dp.mig_replicas_loc = name_ctx->loc();
    }
  }
  if (gpu_entries > 1) d_.error(resources->loc(), resources->path, "nvidia.com/gpu is listed more than once");
  // Only MIG resources shared: whole GPUs stay one pod's each.
  if (gpu_entries == 0 && !dp.mig_replicas.empty()) sharing.mode = SharingMode::EXCLUSIVE;
}

// nvidia.com/mig-<profile> in timeSlicing.resources: each instance of that profile is shared by `replicas` pods
// (migStrategy mixed, the strategy that advertises MIG devices under their profile's name).
void Loader::read_shared_mig_resource(const Ctx& name_ctx, const std::string& profile, int replicas,
                                      const SharingSpec& sharing, DevicePluginSpec& dp) {
  if (sharing.mode == SharingMode::MPS) {
    d_.error(name_ctx.loc(), name_ctx.path,
             "MPS sharing of MIG devices is not simulated (each MIG instance runs its own MPS control daemon); "
             "share them with timeSlicing");
    return;
  }
  if (dp.mig_strategy != "mixed") {
    d_.warning(name_ctx.loc(), name_ctx.path,
               "flags.migStrategy is " + dp.mig_strategy + ", so no resource nvidia.com/mig-" + profile +
                   " is advertised and this entry shares nothing" +
                   (dp.mig_strategy == "single" ? " (under single, MIG devices are nvidia.com/gpu)" : ""));
    return;
  }
  if (dp.mig_replicas.count(profile)) {
    d_.error(name_ctx.loc(), name_ctx.path, "nvidia.com/mig-" + profile + " is listed more than once");
    return;
  }
  dp.mig_replicas[profile] = replicas;
  if (dp.mig_replicas_loc.line == 0) dp.mig_replicas_loc = name_ctx.loc();
}

void Loader::allow_keys(const Ctx& m, const std::vector<std::string>& keys, const char* in) {
  for (const auto& kv : m.node) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      d_.error(m.below(kv.first, m.path, m.alt_path, m.loc()).loc(), m.path + "." + key,
               "unknown key '" + key + "' in " + in + suggest(key, keys));
  }
}

// migConfig: {file, config, key}: the named config of a mig-parted file, bare or the string of a ConfigMap
// data entry (the GPU Operator's default-mig-parted-config), as the node label nvidia.com/mig.config selects it.
void Loader::read_mig_config(const Ctx& c, NodePoolSpec& pool) {
  if (!check_map(c)) return;
  MigConfigSpec mc;
  mc.loc = c.loc();
  get_string(c, "config", mc.config, true);
  std::string key;
  get_string(c, "key", key, false);
  const auto key_ctx = child(c, "key");
  if (pool.sharing.mode == SharingMode::MIG || !pool.topology.nvidia_smi_mig.empty()) {
    d_.error(c.loc(), c.path,
             "give the MIG layout once: migConfig, or sharing.mode mig with migLayout or topology.mig, not both");
    return;
  }
  auto f = read_k8s_file(c, "file");
  if (!f || mc.config.empty()) return;
  mc.file = f->file;
  std::optional<Ctx> bare;
  for (const auto& doc : f->documents) {
    const std::string kind = kind_of(doc);
    if (kind.empty() && doc.node.IsMap() && std::as_const(doc.node)["mig-configs"]) {
      bare = doc;
    } else if (kind != "ConfigMap") {
      d_.warning(doc.loc(), c.path + ".file",
                 "a document of kind '" + (kind.empty() ? std::string("(none)") : kind) +
                     "' is not read here (migConfig reads a mig-parted config, bare or in a ConfigMap)");
    }
  }
  std::optional<Ctx> doc;
  if (bare && f->documents.size() == 1) {
    if (key_ctx) d_.error(key_ctx->loc(), key_ctx->path, f->file + " is a bare mig-parted config, not a ConfigMap");
    doc = bare;
  } else {
    std::string chosen;
    const auto is_mig_parted = [](const Ctx& v) {
      return v.node.IsScalar() && v.node.Scalar().find("mig-configs") != std::string::npos;
    };
    doc = select_config_map_data(c, *f, key, key_ctx ? &*key_ctx : nullptr, "mig-parted config", is_mig_parted, chosen);
  }
  if (!doc) return;
  read_mig_parted(*doc, c, mc);
  if (mc.entries.empty()) return;
  // Until setup applies a selection with device-filters, the pool counts as MIG when every entry is.
  if (mig_config_needs_product(mc) &&
      std::all_of(mc.entries.begin(), mc.entries.end(), [](const MigPartedEntry& e) { return e.mig_enabled; }))
    pool.sharing.mode = SharingMode::MIG;
  pool.mig_config = std::move(mc);
}

// A mig-parted file: {version: v1, mig-configs: {name: [entries]}}; reads the entries of `out.config`.
void Loader::read_mig_parted(const Ctx& doc, const Ctx& sel, MigConfigSpec& out) {
  if (!expect_map(doc)) return;
  allow_keys(doc, {"version", "mig-configs"}, "a mig-parted config");
  std::string version;
  get_string(doc, "version", version, true);
  if (!version.empty() && version != "v1") {
    auto v = child(doc, "version");
    d_.error(v->loc(), v->path, "mig-parted config version '" + version + "' is not supported; use v1");
  }
  auto configs = child(doc, "mig-configs");
  if (!configs) {
    missing(doc, "mig-configs");
    return;
  }
  if (!expect_map(*configs)) return;
  std::vector<std::string> names;
  for (const auto& kv : configs->node)
    if (kv.first.IsScalar()) names.push_back(kv.first.Scalar());
  if (std::find(names.begin(), names.end(), out.config) == names.end()) {
    const auto at = child(sel, "config");
    d_.error(at ? at->loc() : sel.loc(), sel.path + ".config",
             "no mig config '" + out.config + "' in " + doc.file + suggest(out.config, names));
    return;
  }
  auto chosen = child(*configs, out.config);
  for (const auto& item : items(*chosen)) {
    MigPartedEntry e;
    if (read_mig_parted_entry(item, e)) out.entries.push_back(std::move(e));
  }
  if (chosen->node.IsSequence() && chosen->node.size() == 0)
    d_.error(chosen->loc(), chosen->path, "a mig config needs at least one entry");
}

// One entry: {devices: all | [i, ...], mig-enabled: bool, mig-devices: {profile: count}, device-filter: id | [ids]}.
bool Loader::read_mig_parted_entry(const Ctx& item, MigPartedEntry& e) {
  const size_t errors_before = d_.error_count();
  e.loc = item.loc();
  if (!expect_map(item)) return false;
  allow_keys(item, {"devices", "mig-enabled", "mig-devices", "device-filter"}, "a mig-parted entry");
  if (auto devices = child(item, "devices")) {
    if (devices->node.IsScalar() && devices->node.Scalar() == "all") {
      // every GPU
    } else if (devices->node.IsSequence()) {
      for (const auto& g : items(*devices)) {
        std::string s;
        int idx = -1;
        if (!scalar(g, s, "a GPU index")) continue;
        auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), idx);
        if (ec != std::errc() || ptr != s.data() + s.size() || idx < 0 || idx > 255)
          d_.error(g.loc(), g.path, "expected a GPU index (0, 1, ...), got \"" + s + "\"");
        else
          e.devices.push_back(idx);
      }
    } else {
      d_.error(devices->loc(), devices->path, "expected `all` or a list of GPU indices");
    }
  } else {
    missing(item, "devices");
  }
  if (!child(item, "mig-enabled")) missing(item, "mig-enabled");
  get_bool(item, "mig-enabled", e.mig_enabled);
  if (auto filter = child(item, "device-filter")) read_device_filter(*filter, e.device_filter);
  if (auto md = child(item, "mig-devices")) {
    e.layout_loc = md->loc();
    const bool empty = md->node.IsMap() && md->node.size() == 0;
    if (!e.mig_enabled && !empty)
      d_.error(md->loc(), md->path, "MIG devices on a GPU with mig-enabled: false");
    else if (!empty)
      read_mig_layout(*md, e.layout);
  } else {
    e.layout_loc = e.loc;
    if (e.mig_enabled) missing(item, "mig-devices");
  }
  return d_.error_count() == errors_before;
}

// device-filter: one PCI device id or a list, as mig-parted writes them ("0x20B010DE": device 0x20B0 of
// vendor 0x10DE); kept upper case after 0x.
void Loader::read_device_filter(const Ctx& filter, std::vector<std::string>& out) {
  std::vector<Ctx> ids;
  if (filter.node.IsScalar())
    ids.push_back(filter);
  else
    ids = items(filter);
  for (const auto& id : ids) {
    std::string s;
    if (!scalar(id, s, "a PCI device id such as 0x20B010DE")) continue;
    const bool ok = s.size() == 10 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
                    std::all_of(s.begin() + 2, s.end(), [](unsigned char ch) { return std::isxdigit(ch) != 0; });
    if (!ok) {
      d_.error(id.loc(), id.path,
               "expected a PCI device id such as 0x20B010DE (device, then vendor), got \"" + s + "\"");
      continue;
    }
    std::string norm = "0x";
    for (size_t i = 2; i < s.size(); ++i) norm += static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
    out.push_back(norm);
  }
}

}  // namespace gtw
