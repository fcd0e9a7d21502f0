#include "ScenarioModel.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>

#include "FieldDocs.hpp"
#include "HardwareProfile.hpp"
#include "Loader.hpp"
#include "MigGeometry.hpp"
#include "Placement.hpp"
#include "Text.hpp"
#include "YamlInput.hpp"

#ifndef GTW_EXAMPLES_DIR
#define GTW_EXAMPLES_DIR "scenarios/examples"
#endif

namespace gtw::gui {
namespace {

namespace fs = std::filesystem;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Several whole numbers ("%d layers, hidden %d").
template <typename... Ints>
std::string fmt_ints(const char* f, Ints... v) {
  static_assert((std::is_same_v<Ints, int> && ...), "whole numbers only");
  char buf[160];
  std::snprintf(buf, sizeof buf, f, v...);
  return buf;
}

// ---- The raw YAML, with every {$ref: file} replaced by the file's content: initial values of the knobs
// and the generic parts of the structure view (sections the typed spec does not know yet).

YAML::Node resolve_refs(const YAML::Node& node, const fs::path& dir, int depth) {
  if (depth > 32) return node;
  if (node.IsMap()) {
    const YAML::Node ref = node["$ref"];
    if (ref && node.size() == 1 && ref.IsScalar()) {
      fs::path file = ref.Scalar();
      if (file.is_relative()) file = dir / file;
      return resolve_refs(load_yaml_input(file.string(), InputKind::SCENARIO), file.parent_path(), depth + 1);
    }
    YAML::Node out(YAML::NodeType::Map);
    for (const auto& kv : node) out[kv.first.Scalar()] = resolve_refs(kv.second, dir, depth);
    return out;
  }
  if (node.IsSequence()) {
    YAML::Node out(YAML::NodeType::Sequence);
    for (const auto& x : node) out.push_back(resolve_refs(x, dir, depth));
    return out;
  }
  return node;
}

YAML::Node raw_spec(const fs::path& path) {
  try {
    const YAML::Node root = load_yaml_input(path.string(), InputKind::SCENARIO);
    if (!root.IsMap() || !root["spec"]) return {};
    return resolve_refs(root["spec"], path.parent_path(), 0);
  } catch (const std::exception&) {
    return {};  // the loader reports what is wrong with the file
  }
}

// A node as one line of YAML ("Short", "[3g.40gb, 3g.40gb]", "{a: 1}").
std::string yaml_text(const YAML::Node& n) {
  if (!n || n.IsNull()) return {};
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

// Child by key, never inserting (a const lookup).
YAML::Node get(const YAML::Node& n, const std::string& key) {
  if (!n || !n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);  // a default Node() counts as defined
  const YAML::Node& c = n;
  return c[key];
}

// The node at a dotted path without list items ("spec.policies.isolation.scrubOnFree" from spec's node).
std::optional<YAML::Node> at_path(const YAML::Node& spec, const std::string& path) {
  if (!spec) return std::nullopt;
  YAML::Node n = spec;
  std::string rest = path.rfind("spec.", 0) == 0 ? path.substr(5) : path;
  std::stringstream parts(rest);
  std::string key;
  while (std::getline(parts, key, '.')) {
    const YAML::Node child = get(n, key);
    if (!child) return std::nullopt;
    n.reset(child);  // rebinds; operator= would overwrite the node's content
  }
  return n;
}

YAML::Node pool_node(const YAML::Node& spec, size_t i) {
  const YAML::Node pools = get(get(spec, "cluster"), "nodePools");
  return pools && pools.IsSequence() && i < pools.size() ? pools[i] : YAML::Node();
}

std::vector<std::string> enum_values(std::string_view type) {
  std::vector<std::string> out;
  if (type.rfind("enum:", 0) != 0) return out;
  std::string rest(type.substr(5));
  std::stringstream parts(rest);
  std::string v;
  while (std::getline(parts, v, '|')) {
    v.erase(0, v.find_first_not_of(' '));
    v.erase(v.find_last_not_of(' ') + 1);
    if (!v.empty()) out.push_back(v);
  }
  return out;
}

// The sharing modes a sharing field applies to, from its help text: "timeSlicing / mps: replicas per GPU
// ...; vgpu: vGPUs per GPU." applies to timeSlicing, mps and vgpu. Empty: every mode.
std::vector<std::string> modes_of(std::string_view help, const std::vector<std::string>& all_modes) {
  std::set<std::string> found;
  std::string text(help);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of(";.", start);
    if (end == std::string::npos) end = text.size();
    const std::string clause = text.substr(start, end - start);
    const size_t colon = clause.find(':');
    if (colon != std::string::npos && colon < 48) {
      std::stringstream names(clause.substr(0, colon));
      std::string name;
      std::vector<std::string> these;
      bool all_modes_named = true;
      while (std::getline(names, name, '/')) {
        name = trim(name);
        if (std::find(all_modes.begin(), all_modes.end(), name) == all_modes.end()) all_modes_named = false;
        these.push_back(name);
      }
      if (all_modes_named) found.insert(these.begin(), these.end());
    }
    start = end + 1;
  }
  std::vector<std::string> out;
  for (const auto& m : all_modes)
    if (found.count(m)) out.push_back(m);
  return out;
}

std::string sharing_summary(const SharingSpec& s) {
  std::string out = sharing_mode_name(s.mode);
  switch (s.mode) {
    case SharingMode::TIME_SLICING:
      out += " (" + std::to_string(s.replicas) + " replicas, " + fmt("%g", s.time_slice.value * 1e3) + " ms slices)";
      break;
    case SharingMode::MPS:
    case SharingMode::VGPU:
      out += " (" + std::to_string(s.replicas) + (s.mode == SharingMode::MPS ? " clients)" : " vGPUs)");
      break;
    case SharingMode::MIG: {
      std::string layout;
      for (const auto& p : s.mig_layout) layout += (layout.empty() ? "" : " + ") + p;
      out += " (" + layout + ")";
      break;
    }
    default:
      break;
  }
  return out;
}

// The partitions of one GPU under `s`: MIG instances, time-slicing or MPS slots.
std::vector<TreeNode> partitions(const SharingSpec& s) {
  std::vector<TreeNode> out;
  switch (s.mode) {
    case SharingMode::MIG:
      for (size_t i = 0; i < s.mig_layout.size(); ++i)
        out.push_back({"instance " + std::to_string(i), "MIG " + s.mig_layout[i], {}});
      break;
    case SharingMode::TIME_SLICING:
      for (int i = 0; i < s.replicas; ++i) out.push_back({"slot " + std::to_string(i), "time slice", {}});
      break;
    case SharingMode::MPS:
      for (int i = 0; i < s.replicas; ++i)
        out.push_back({"client " + std::to_string(i),
                       s.active_thread_percentage > 0 ? fmt("%g%% of SMs", s.active_thread_percentage)
                                                      : fmt("%g%% of SMs", 100.0 / std::max(1, s.replicas)),
                       {}});
      break;
    case SharingMode::VGPU:
      for (int i = 0; i < s.replicas; ++i)
        out.push_back({"vGPU " + std::to_string(i), "1/" + std::to_string(s.replicas), {}});
      break;
    default:
      break;
  }
  return out;
}

std::string rate_text(double per_s) {
  return fmt("%g/s", per_s);
}

// A generic subtree of YAML for sections the typed spec does not have yet (attacks, isolation policies...).
TreeNode yaml_tree(const std::string& label, const YAML::Node& n, int depth = 0) {
  TreeNode t{label, {}, {}};
  if (!n) return t;
  if (n.IsScalar() || depth > 6) {
    t.detail = yaml_text(n);
  } else if (n.IsSequence()) {
    bool scalars = true;
    for (const auto& x : n) scalars = scalars && x.IsScalar();
    if (scalars) {
      t.detail = yaml_text(n);
    } else {
      for (size_t i = 0; i < n.size(); ++i) {
        const YAML::Node name = get(n[i], "name");
        t.children.push_back(
            yaml_tree(name && name.IsScalar() ? name.Scalar() : "[" + std::to_string(i) + "]", n[i], depth + 1));
      }
      t.detail = std::to_string(n.size()) + " items";
    }
  } else if (n.IsMap()) {
    for (const auto& kv : n) t.children.push_back(yaml_tree(kv.first.Scalar(), kv.second, depth + 1));
  }
  return t;
}

std::vector<TreeNode> build_structure(const ScenarioSpec& spec, const YAML::Node& raw) {
  std::vector<TreeNode> out;
  // Cluster: pools, nodes, GPUs, partitions. Large pools show their first nodes only.
  TreeNode cluster{"Cluster", {}, {}};
  int nodes = 0;
  for (const auto& pool : spec.node_pools) {
    nodes += pool.count;
    TreeNode p{"pool " + pool.name,
               std::to_string(pool.count) + " x " + std::to_string(pool.gpus_per_node) + " " + pool.gpu_product + ", " +
                   sharing_summary(pool.sharing) + (pool.region.empty() ? "" : ", " + pool.region),
               {}};
    constexpr int SHOWN_NODES = 4;
    for (int n = 0; n < std::min(pool.count, SHOWN_NODES); ++n) {
      TreeNode node{"node " + pool.name + "-" + std::to_string(n), std::to_string(pool.gpus_per_node) + " GPUs", {}};
      for (int g = 0; g < pool.gpus_per_node; ++g) {
        const SharingSpec& s = pool.sharing_for(g);
        node.children.push_back(
            {"GPU " + std::to_string(g), pool.gpu_product + ", " + sharing_summary(s), partitions(s)});
      }
      p.children.push_back(std::move(node));
    }
    if (pool.count > SHOWN_NODES)
      p.children.push_back({"...", std::to_string(pool.count - SHOWN_NODES) + " more nodes like these", {}});
    cluster.children.push_back(std::move(p));
  }
  cluster.detail = std::to_string(nodes) + " nodes, " + std::to_string(spec.total_gpus()) + " GPUs";
  out.push_back(std::move(cluster));

  TreeNode tenants{"Tenants", std::to_string(spec.tenants.size()), {}};
  for (const auto& t : spec.tenants) {
    TreeNode tn{
        t.name,
        classification_names()[static_cast<size_t>(t.classification)] + (t.region.empty() ? "" : ", " + t.region),
        {}};
    for (const auto& s : t.slos) {
      std::string what = slo_kind_name(s.kind);
      if (s.kind == SloKind::LATENCY)
        what = fmt("p%g latency", s.percentile) + " <= " + duration_text(s.threshold.value);
      else if (s.kind == SloKind::TTFT)
        what = fmt("p%g time to first token", s.percentile) + " <= " + duration_text(s.threshold.value);
      else if (s.kind == SloKind::TPOT)
        what = fmt("p%g time per output token", s.percentile) + " <= " + duration_text(s.threshold.value);
      else if (s.kind == SloKind::THROUGHPUT)
        what = "throughput >= " + rate_text(s.min_rate.value);
      else if (s.kind == SloKind::SLOWDOWN)
        what = fmt("slowdown <= %gx", s.max_slowdown);
      else if (s.kind == SloKind::AVAILABILITY)
        what = fmt("availability >= %g%%", s.min_availability * 100);
      else
        what = "completion <= " + duration_text(s.threshold.value);
      if (is_request_slo(s.kind)) what += " per " + duration_text(s.window.value) + " window";
      if (s.target < 1) what += fmt(" in %g%% of windows", s.target * 100);
      if (!s.workload.empty()) what += " (" + s.workload + ")";
      tn.children.push_back({"SLO " + s.name, what, {}});
    }
    tenants.children.push_back(std::move(tn));
  }
  out.push_back(std::move(tenants));

  TreeNode workloads{"Workloads", std::to_string(spec.workloads.size()), {}};
  for (const auto& w : spec.workloads) {
    std::string d = std::string(workload_kind_name(w.kind)) + ", " + w.tenant;
    if (w.kind == WorkloadKind::TRAINING)
      d += ", " + std::to_string(w.gpus) + " GPUs, " + std::to_string(w.iterations) + " steps";
    else
      d += ", " + std::to_string(w.replicas) + (w.kind == WorkloadKind::INFERENCE ? " replicas" : " workers");
    if (w.kind == WorkloadKind::INFERENCE) {
      // A catalogue model's size is resolved at setup, after loading: its id says more than "0B params".
      if (!w.model.id.empty())
        d += ", " + w.model.id;
      else if (w.model.parameters > 0)
        d += fmt(", %gB params", w.model.parameters / 1e9);
      d += w.continuous() ? ", continuous batching" : ", static batching";
      if (w.serving.tensor_parallel > 1) d += fmt_ints(", TP %d", w.serving.tensor_parallel);
    }
    if (w.kind != WorkloadKind::TRAINING) {
      d += ", " + arrival_process_names()[static_cast<size_t>(w.arrival.process)] + " " +
           rate_text(w.arrival.rate.value);
      if (w.arrival.process == ArrivalProcess::BURSTY) d += " (bursts " + rate_text(w.arrival.burst_rate.value) + ")";
    }
    TreeNode wn{w.name, d, {}};
    if (w.kind == WorkloadKind::INFERENCE) {
      const ServingSpec& sv = w.serving;
      std::string mode = w.continuous() ? fmt_ints("continuous, up to %d sequences, %d tokens per step",
                                                   sv.max_num_seqs, sv.max_num_batched_tokens)
                                        : fmt_ints("static, batches of up to %d", w.max_batch);
      if (!sv.mode_given)
        mode += w.continuous() ? " (default: the model has an id or an architecture)"
                               : " (default: no model.id or model.architecture)";
      wn.children.push_back({"batching.mode", mode, {}});
      if (!w.model.id.empty()) wn.children.push_back({"model.id", w.model.id, {}});
      if (w.model.has_shape())
        wn.children.push_back(
            {"model.architecture",
             fmt_ints("%d layers, hidden %d, %d heads (%d KV)", w.model.layers, w.model.shape.hidden_size,
                      w.model.shape.attention_heads, w.model.shape.kv_heads),
             {}});
      if (w.continuous() || sv.tensor_parallel > 1 || sv.pipeline_parallel > 1)
        wn.children.push_back(
            {"parallelism", fmt_ints("tensor %d, pipeline %d", sv.tensor_parallel, sv.pipeline_parallel), {}});
    }
    if (!w.node_pool.empty()) wn.children.push_back({"placement.nodePool", w.node_pool, {}});
    if (!w.mig_profile.empty()) wn.children.push_back({"placement.migProfile", w.mig_profile, {}});
    if (!w.allowed_sharing.empty()) {
      std::string modes;
      for (auto m : w.allowed_sharing) modes += (modes.empty() ? "" : ", ") + std::string(sharing_mode_name(m));
      wn.children.push_back({"placement.sharing", modes, {}});
    }
    if (w.runtime != RuntimeKind::AUTO) wn.children.push_back({"runtime", runtime_kind_name(w.runtime), {}});
    workloads.children.push_back(std::move(wn));
  }
  out.push_back(std::move(workloads));

  TreeNode policies{"Policies", {}, {}};
  policies.children.push_back({"placement", spec.placement.name, {}});
  if (const YAML::Node p = get(raw, "policies"); p && p.IsMap())
    for (const auto& kv : p)
      if (kv.first.Scalar() != "placement") policies.children.push_back(yaml_tree(kv.first.Scalar(), kv.second));
  out.push_back(std::move(policies));

  if (!spec.faults.empty()) {
    TreeNode faults{"Faults", std::to_string(spec.faults.size()), {}};
    for (const auto& f : spec.faults)
      faults.children.push_back(
          {"at " + duration_text(f.at.value), f.workload + "[" + std::to_string(f.replica) + "]", {}});
    out.push_back(std::move(faults));
  }
  if (!spec.reconfigurations.empty()) {
    TreeNode rc{"MIG reconfigurations", std::to_string(spec.reconfigurations.size()), {}};
    for (const auto& r : spec.reconfigurations) {
      std::string layout;
      for (const auto& p : r.mig_layout) layout += (layout.empty() ? "" : " + ") + p;
      rc.children.push_back({"at " + duration_text(r.at.value), r.node_pool + " -> " + layout, {}});
    }
    out.push_back(std::move(rc));
  }
  // Sections this window has no typed view of (attacks, storage, ...): shown as they are written.
  static const std::set<std::string> known = {"seed",      "duration", "slaWindow", "cluster",         "tenants",
                                              "workloads", "faults",   "policies",  "reconfigurations"};
  if (raw && raw.IsMap())
    for (const auto& kv : raw) {
      const std::string key = kv.first.Scalar();
      if (known.count(key)) continue;
      std::string label = key;
      if (!label.empty()) label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
      out.push_back(yaml_tree(label, kv.second));
    }
  return out;
}

// ---- Knobs.

bool has_prefix(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

void add_sharing_knobs(std::vector<Knob>& knobs, const std::string& group, const std::string& target,
                       const std::string& label_prefix, const YAML::Node& raw_sharing, const SharingSpec& typed,
                       const std::string& product, const std::string& from_file = {}) {
  const std::string base = "spec.cluster.nodePools[].sharing.";
  std::vector<std::string> all_modes;
  for (const auto* d : explain("spec.cluster.nodePools[].sharing.mode")) all_modes = enum_values(d->type);
  // Offer only what the loader takes: MIG on products with a MIG table; nothing else where a device plugin or
  // mig-parted file sets the sharing (the pool cannot have both; change the file instead).
  if (mig_layout_presets(product).empty()) std::erase(all_modes, std::string("mig"));
  if (!from_file.empty()) all_modes = {sharing_mode_name(typed.mode)};
  for (const auto* d : explain("spec.cluster.nodePools[].sharing")) {
    if (!has_prefix(d->path, base)) continue;
    const std::string field(d->path.substr(base.size()));
    if (field.find('.') != std::string::npos || field.find('[') != std::string::npos) continue;
    Knob k;
    k.key = target + "|" + field;
    k.group = group;
    k.label = label_prefix + field;
    k.help = std::string(d->help);
    k.target = target;
    k.initial = yaml_text(get(raw_sharing, field));
    if (field == "mode") {
      k.kind = KnobKind::CHOICE;
      k.choices = all_modes;
      if (!from_file.empty()) k.help = "Set by " + from_file + ": change that file to change the sharing. " + k.help;
      if (k.initial.empty()) k.initial = sharing_mode_name(typed.mode);  // from devicePluginConfig, or the default
      knobs.push_back(std::move(k));
      continue;
    }
    k.modes = modes_of(d->help, all_modes);
    const auto values = enum_values(d->type);
    if (!values.empty()) {
      k.kind = KnobKind::CHOICE;
      k.choices.push_back("");
      k.choices.insert(k.choices.end(), values.begin(), values.end());
    } else {
      k.kind = KnobKind::TEXT;
      if (field == "migLayout") k.suggestions = mig_layout_presets(product);
      if (field == "replicas") {
        k.suggestions = {"2", "3", "4", "7", "8"};
        if (k.initial.empty() && (typed.mode == SharingMode::TIME_SLICING || typed.mode == SharingMode::MPS ||
                                  typed.mode == SharingMode::VGPU))
          k.initial = std::to_string(typed.replicas);
      }
      if (field == "timeSlice") k.suggestions = {"Short", "Medium", "Long", "1ms", "5ms"};
    }
    knobs.push_back(std::move(k));
  }
}

std::vector<Knob> build_knobs(const ScenarioSpec& spec, const YAML::Node& raw) {
  std::vector<Knob> knobs;
  Knob seed;
  seed.key = "run/seed";
  seed.group = "Run";
  seed.label = "seed";
  seed.help = "Seed of every random stream: same seed, same results.";
  seed.kind = KnobKind::INTEGER;
  seed.min = 0;
  seed.max = 2147483647;
  seed.initial = std::to_string(spec.seed);
  knobs.push_back(seed);
  Knob duration;
  duration.key = "run/duration";
  duration.group = "Run";
  duration.label = "duration";
  duration.help = "Simulated time during which requests and jobs arrive (e.g. 2m, 10m).";
  duration.kind = KnobKind::TEXT;
  duration.suggestions = {"1m", "2m", "5m", "10m", "30m", "1h"};
  duration.initial = yaml_text(get(raw, "duration"));
  if (duration.initial.empty()) duration.initial = duration_text(spec.duration.value);
  knobs.push_back(duration);

  for (size_t i = 0; i < spec.node_pools.size(); ++i) {
    const auto& pool = spec.node_pools[i];
    const YAML::Node pn = pool_node(raw, i);
    const std::string group = "Node pool " + pool.name;
    const std::string pool_path = "spec.cluster.nodePools[" + pool.name + "]";
    const std::string from_file = pool.device_plugin.given ? "devicePluginConfig " + pool.device_plugin.file
                                  : pool.mig_config        ? "migConfig " + pool.mig_config->file
                                                           : std::string();
    add_sharing_knobs(knobs, group, pool_path + ".sharing", "", get(pn, "sharing"), pool.sharing, pool.gpu_product,
                      from_file);
    const YAML::Node exceptions = get(pn, "gpuSharing");
    for (size_t j = 0; j < pool.gpu_sharing.size(); ++j) {
      // Only exceptions written in the scenario: those a mig-parted file derives have no item to override.
      if (!exceptions || !exceptions.IsSequence() || j >= exceptions.size()) continue;
      std::string gpus;
      for (int g : pool.gpu_sharing[j].gpus) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
      const YAML::Node en = exceptions[j];
      add_sharing_knobs(knobs, group, pool_path + ".gpuSharing[" + std::to_string(j) + "]", "GPUs " + gpus + ": ", en,
                        pool.gpu_sharing[j].sharing, pool.gpu_product);
    }
  }

  for (size_t t = 0; t < spec.tenants.size(); ++t) {
    bool has_arrivals = false;
    for (const auto& w : spec.workloads)
      if (w.tenant_index == static_cast<int>(t) && w.kind != WorkloadKind::TRAINING &&
          (w.arrival.rate.value > 0 || w.arrival.burst_rate.value > 0))
        has_arrivals = true;
    if (!has_arrivals) continue;
    Knob k;
    k.key = "load/" + spec.tenants[t].name;
    k.group = "Tenant load (x arrival rate)";
    k.label = spec.tenants[t].name;
    k.help = "Multiplies the arrival rates (and burst rates) of the tenant's services and batch jobs.";
    k.kind = KnobKind::NUMBER;
    k.min = 0.1;
    k.max = 20;
    k.step = 0.1;
    k.initial = "1";
    knobs.push_back(k);
  }

  Knob placement;
  placement.key = "placement";
  placement.group = "Policies";
  placement.label = "placement";
  placement.kind = KnobKind::CHOICE;
  for (const auto& info : policy::builtin_placement_registry().list()) {
    placement.choices.push_back(info.name);
    placement.help += info.name + ": " + info.summary + "\n";
  }
  placement.initial = spec.placement.name;
  knobs.push_back(placement);

  // Every other scalar field of the schema outside the sections above (spec.policies.isolation, ...):
  // a field added to the schema shows up here without a change to the window.
  static const std::vector<std::string> handled = {
      "spec.seed",      "spec.duration", "spec.cluster",          "spec.tenants",
      "spec.workloads", "spec.faults",   "spec.reconfigurations", "spec.policies.placement"};
  for (const auto& d : field_docs()) {
    const std::string path(d.path);
    if (!has_prefix(path, "spec.") || path.find("[]") != std::string::npos) continue;
    if (d.type == "mapping" || d.type == "list" || has_prefix(d.type, "list")) continue;
    bool skip = false;
    for (const auto& h : handled) skip = skip || path == h || has_prefix(path, h + ".");
    if (skip) continue;
    Knob k;
    k.key = "field|" + path;
    const std::string rest = path.substr(5);
    const size_t dot = rest.find('.');
    const std::string section = dot == std::string::npos ? "" : rest.substr(0, dot);
    k.group = section.empty()                                ? "Run"
              : has_prefix(path, "spec.policies.isolation.") ? "Mitigations"
              : section == "policies"                        ? "Policies"
                                                             : "Other: " + section;
    // An override must land on a node the scenario has: under a missing mapping the mapping is set whole.
    for (size_t dot_at = path.find('.', 5); dot_at != std::string::npos; dot_at = path.find('.', dot_at + 1))
      if (!at_path(raw, path.substr(0, dot_at))) {
        k.absent = path.substr(0, dot_at);
        break;
      }
    k.label = has_prefix(rest, "policies.") ? rest.substr(9) : rest;
    k.help = std::string(d.help);
    if (const auto node = at_path(raw, path)) k.initial = yaml_text(*node);
    const auto values = enum_values(d.type);
    if (!values.empty()) {
      k.kind = KnobKind::CHOICE;
      k.choices.push_back("");
      k.choices.insert(k.choices.end(), values.begin(), values.end());
    } else if (d.type == "bool" || d.type == "boolean") {
      k.kind = KnobKind::CHOICE;
      k.choices = {"", "true", "false"};
    } else {
      k.kind = KnobKind::TEXT;
    }
    knobs.push_back(std::move(k));
  }

  for (size_t t = 0; t < spec.tenants.size(); ++t) {
    bool has_workloads = false;
    for (const auto& w : spec.workloads) has_workloads = has_workloads || w.tenant_index == static_cast<int>(t);
    if (!has_workloads) continue;
    Knob k;
    k.key = "dedicated/" + spec.tenants[t].name;
    k.group = "Mitigations";
    k.label = spec.tenants[t].name + ": dedicated GPUs";
    k.help = "Place the tenant's workloads on exclusive GPUs only (placement.sharing: [exclusive]).";
    k.kind = KnobKind::CHOICE;
    k.choices = {"no", "yes"};
    k.initial = "no";
    knobs.push_back(k);
  }
  return knobs;
}

}  // namespace

bool ScenarioDoc::has_errors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::ERROR; });
}

std::string duration_text(double s) {
  if (!(s > 0)) return "0s";
  const auto whole = [](double v) { return std::fabs(v - std::round(v)) < 1e-9; };
  if (s >= 3600 && whole(s / 3600)) return fmt("%gh", s / 3600);
  if (s >= 60 && whole(s / 60)) return fmt("%gm", s / 60);
  if (s >= 1) return fmt("%gs", s);
  return fmt("%gms", s * 1e3);
}

std::vector<Diagnostic> check_overrides(const fs::path& path, const std::vector<std::string>& overrides) {
  Diagnostics diags;
  std::vector<Override> parsed;
  for (const auto& o : overrides) {
    if (auto p = parse_override(o))
      parsed.push_back(*p);
    else
      diags.error(SourceLoc{"--set", 0, 0}, o, "expected path=value");
  }
  ScenarioSpec spec = load_scenario(path.string(), parsed, diags);
  check_references(spec, diags);
  return diags.all();
}

ScenarioDoc load_scenario_doc(const fs::path& path, const std::vector<std::string>& overrides) {
  ScenarioDoc doc;
  doc.path = path;
  Diagnostics diags;
  std::vector<Override> parsed;
  for (const auto& o : overrides)
    if (auto p = parse_override(o)) parsed.push_back(*p);
  try {
    doc.spec = load_scenario(path.string(), parsed, diags);
    check_references(doc.spec, diags);
    doc.loaded = true;
  } catch (const std::exception& e) {
    diags.error(SourceLoc{path.string(), 0, 0}, "", e.what());
  }
  doc.diagnostics = diags.all();
  const YAML::Node raw = raw_spec(path);
  try {
    doc.structure = build_structure(doc.spec, raw);
    if (!doc.has_errors()) doc.knobs = build_knobs(doc.spec, raw);
  } catch (const std::exception& e) {
    doc.diagnostics.push_back({Severity::ERROR, SourceLoc{path.string(), 0, 0}, "", e.what()});
  }
  return doc;
}

std::vector<std::string> overrides_for(const ScenarioDoc& doc, const std::map<std::string, std::string>& values) {
  std::vector<std::string> out;
  const auto value = [&](const Knob& k) {
    const auto it = values.find(k.key);
    return std::string(trim(it == values.end() ? k.initial : it->second));
  };
  const auto changed = [&](const Knob& k) { return value(k) != trim(k.initial); };
  const auto find = [&](const std::string& key) -> const Knob* {
    for (const auto& k : doc.knobs)
      if (k.key == key) return &k;
    return nullptr;
  };
  std::set<std::string> sharing_done;
  for (const auto& k : doc.knobs) {
    if (k.key == "run/seed") {
      if (changed(k)) out.push_back("spec.seed=" + value(k));
    } else if (k.key == "run/duration") {
      if (changed(k)) out.push_back("spec.duration=" + value(k));
    } else if (!k.target.empty()) {
      if (sharing_done.count(k.target)) continue;
      // Every field of this sharing mapping: if one changed, the mapping is written whole, with the fields that
      // apply to the chosen mode (a time-slice length means nothing to MIG).
      bool any = false;
      for (const auto& o : doc.knobs)
        if (o.target == k.target) any = any || changed(o);
      if (!any) continue;
      sharing_done.insert(k.target);
      const Knob* mode_knob = find(k.target + "|mode");
      const std::string mode = mode_knob ? value(*mode_knob) : "exclusive";
      std::string mapping = "{";
      // A gpuSharing item keeps its GPU list.
      if (k.target.find(".gpuSharing[") != std::string::npos) {
        const std::string pool = k.target.substr(k.target.find('[') + 1, k.target.find(']') - k.target.find('[') - 1);
        const size_t j = std::stoul(k.target.substr(k.target.rfind('[') + 1));
        for (const auto& p : doc.spec.node_pools)
          if (p.name == pool && j < p.gpu_sharing.size()) {
            std::string gpus;
            for (int g : p.gpu_sharing[j].gpus) gpus += (gpus.empty() ? "" : ", ") + std::to_string(g);
            mapping += "gpus: [" + gpus + "], ";
          }
      }
      mapping += "mode: " + mode;
      for (const auto& o : doc.knobs) {
        if (o.target != k.target || &o == mode_knob) continue;
        if (!o.modes.empty() && std::find(o.modes.begin(), o.modes.end(), mode) == o.modes.end()) continue;
        std::string v = value(o);
        const std::string field = o.key.substr(o.key.rfind('|') + 1);
        if (v.empty() && field == "migLayout" && mode == "mig" && !o.suggestions.empty()) v = o.suggestions.front();
        if (v.empty() && field == "replicas" && (mode == "timeSlicing" || mode == "mps" || mode == "vgpu")) v = "2";
        if (v.empty()) continue;
        mapping += ", " + field + ": " + v;
      }
      mapping += "}";
      out.push_back(k.target + "=" + mapping);
    } else if (has_prefix(k.key, "load/")) {
      if (!changed(k)) continue;
      const double m = std::atof(value(k).c_str());
      const std::string tenant = k.key.substr(5);
      for (const auto& w : doc.spec.workloads) {
        if (w.tenant != tenant || w.kind == WorkloadKind::TRAINING) continue;
        const std::string base = "spec.workloads[" + w.name + "].arrival.";
        if (w.arrival.rate.value > 0 || w.arrival.process != ArrivalProcess::BURSTY)
          out.push_back(base + "rate=" + rate_text(w.arrival.rate.value * m));
        if (w.arrival.process == ArrivalProcess::BURSTY)
          out.push_back(base + "burstRate=" + rate_text(w.arrival.burst_rate.value * m));
      }
    } else if (k.key == "placement") {
      if (changed(k)) out.push_back("spec.policies.placement={name: " + value(k) + "}");
    } else if (has_prefix(k.key, "field|")) {
      if (!changed(k) || value(k).empty()) continue;
      if (k.absent.empty()) {
        out.push_back(k.key.substr(6) + "=" + value(k));
        continue;
      }
      if (sharing_done.count(k.absent)) continue;
      sharing_done.insert(k.absent);
      // Every changed field under the same missing mapping, as one nested flow mapping.
      struct Node {
        std::string value;
        std::map<std::string, Node> children;
      };
      Node root;
      for (const auto& o : doc.knobs) {
        if (o.absent != k.absent || !changed(o) || value(o).empty()) continue;
        Node* n = &root;
        std::stringstream rest(o.key.substr(6 + k.absent.size() + 1));
        std::string part;
        while (std::getline(rest, part, '.')) n = &n->children[part];
        n->value = value(o);
      }
      std::function<std::string(const Node&)> flow = [&](const Node& n) {
        if (n.children.empty()) return n.value;
        std::string text = "{";
        for (const auto& [key, child] : n.children) text += (text.size() > 1 ? ", " : "") + key + ": " + flow(child);
        return text + "}";
      };
      out.push_back(k.absent + "=" + flow(root));
    } else if (has_prefix(k.key, "dedicated/")) {
      if (value(k) != "yes") continue;
      const std::string tenant = k.key.substr(10);
      for (const auto& w : doc.spec.workloads) {
        if (w.tenant != tenant) continue;
        std::string mapping = "{sharing: [exclusive]";
        if (!w.node_pool.empty()) mapping += ", nodePool: " + w.node_pool;
        out.push_back("spec.workloads[" + w.name + "].placement=" + mapping + "}");
      }
    }
  }
  return out;
}

fs::path examples_dir() {
  if (const char* env = std::getenv("GPUTWIN_EXAMPLES"); env && *env) return env;
  return GTW_EXAMPLES_DIR;
}

std::vector<fs::path> bundled_example_dirs() {
  std::vector<fs::path> dirs{examples_dir()};
  // The attack, compliance and lab scenarios beside the examples: the security half of what the explorer teaches.
  std::error_code ec;
  for (const char* sibling : {"attacks", "compliance", "labs"}) {
    const fs::path dir = examples_dir().parent_path() / sibling;
    if (fs::is_directory(dir, ec)) dirs.push_back(dir);
  }
  return dirs;
}

std::vector<fs::path> bundled_examples() {
  std::vector<fs::path> out;
  for (const auto& dir : bundled_example_dirs()) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_directory() && it->path().filename() == "fragments") {
        it.disable_recursion_pending();
        continue;
      }
      const auto ext = it->path().extension();
      const std::string name = it->path().filename().string();
      // Regression tests (*.test.yaml) and lab descriptions (*.lab.yaml) are not scenarios.
      if (it->is_regular_file() && (ext == ".yaml" || ext == ".yml") && name.find(".test.") == std::string::npos &&
          name.find(".lab.") == std::string::npos)
        out.push_back(it->path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> mig_layout_presets(const std::string& product) {
  // The product's profile through the simulator's own search path and MIG geometry (models/hardware).
  HardwareProfile profile;
  Diagnostics diags;
  if (!load_profile(product, SourceLoc{}, "", profile, diags) || !profile.mig) return {};
  // The first profile of each compute-slice count without media extensions: 1g.10gb, 2g.20gb, ...
  std::map<int, std::string> by_slices;
  for (const auto& p : profile.mig->profiles)
    if (p.compute_slices > 0 && p.name.find('+') == std::string::npos && !by_slices.count(p.compute_slices))
      by_slices[p.compute_slices] = p.name;
  std::vector<std::string> out;
  const auto add = [&](std::initializer_list<int> slices) {
    std::vector<std::string> layout;
    for (int n : slices) {
      if (!by_slices.count(n)) return;
      layout.push_back(by_slices[n]);
    }
    // Offered only when the hardware's placement rules accept it (4g + 3g fits an A100, not every product).
    if (check_mig_layout(*profile.mig, layout).feasible) out.push_back("[" + join(layout) + "]");
  };
  add({4, 3});
  add({3, 3});
  add({7});
  add({2, 2, 2, 1});
  add({1, 1, 1, 1, 1, 1, 1});
  return out;
}

}  // namespace gtw::gui
