#include "Loader.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "FieldDocs.hpp"
#include "InputFile.hpp"
#include "LoaderInternal.hpp"
#include "MigParted.hpp"
#include "Sha256.hpp"
#include "YamlDocuments.hpp"

namespace fs = std::filesystem;

namespace gtw {

std::optional<Override> parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return Override{text.substr(0, eq), text.substr(eq + 1)};
}

namespace {

const char* node_kind(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return "nothing (null)";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Undefined:
      return "nothing";
  }
  return "?";
}

// Whether 0-based line `line` of text has a tab in its leading whitespace.
bool indented_with_tab(const std::string& text, int line) {
  size_t pos = 0;
  for (int l = 0; l < line && pos != std::string::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  for (; pos != std::string::npos && pos < text.size(); ++pos) {
    if (text[pos] == '\t') return true;
    if (text[pos] != ' ') return false;
  }
  return false;
}

// Why `--set path=value` matched nothing: the first segment of the path that the schema does not
// know (with a suggestion among its siblings), or a schema path whose item or section is absent.
std::string unused_override_message(const std::string& opath) {
  const std::string norm = normalise_path(opath);
  std::string parent;
  size_t start = 0;
  while (true) {
    const size_t dot = norm.find('.', start);
    const std::string seg = norm.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    std::string key = seg;
    if (key.size() >= 2 && key.compare(key.size() - 2, 2, "[]") == 0) key.resize(key.size() - 2);
    const auto keys = known_keys(parent);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return "no such field in the scenario: " + (parent.empty() ? std::string("the document") : parent) +
             " has no key '" + key + "'" + suggest(key, keys);
    }
    parent = parent.empty() ? seg : parent + "." + seg;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return "the scenario has nothing at this path to override (no such list item, or its section is absent "
         "or does not apply to this kind)";
}

}  // namespace

std::optional<YAML::Node> Loader::read_yaml_file(const std::string& file, const SourceLoc& from,
                                                 const std::string& path, std::string* sha256) {
  auto docs = read_yaml_documents(file, from, path, sha256, nullptr);
  if (!docs) return std::nullopt;
  if (docs->empty()) {
    d_.error(SourceLoc{file, 1, 1}, path, "file is empty: expected a YAML mapping");
    return std::nullopt;
  }
  if (docs->size() > 1) {
    // LoadAll, not Load: Load silently drops every document after the first (two files pasted together).
    const YAML::Mark m = (*docs)[1].Mark();
    d_.error(SourceLoc{file, m.line + 1, m.column + 1}, path,
             "a second YAML document starts here; a scenario file holds exactly one");
    return std::nullopt;
  }
  return docs->front();
}

std::optional<std::vector<YAML::Node>> Loader::read_yaml_documents(const std::string& file, const SourceLoc& from,
                                                                   const std::string& path, std::string* sha256,
                                                                   std::string* text_out) {
  // Many $refs to one fragment re-read and re-walk it each time; bound the total work.
  if (total_bytes_ > MAX_TOTAL_BYTES) return std::nullopt;  // reported once, below
  // Regular files only, within the scenario cap, UTF-8 without control bytes (sim/core/InputFile).
  auto read = read_input_file(file, InputKind::SCENARIO, d_, from, path);
  if (!read) return std::nullopt;
  const std::string& text = *read;
  total_bytes_ += text.size();
  if (total_bytes_ > MAX_TOTAL_BYTES) {
    d_.error(from, path,
             "the scenario and its $ref includes exceed " + format_bytes(Bytes(MAX_TOTAL_BYTES)) + " in total");
    return std::nullopt;
  }
  if (sha256) *sha256 = sha256_hex(text);
  if (!check_yaml_item_count(text, file, d_)) return std::nullopt;
  try {
    std::vector<YAML::Node> out;
    for (const auto& doc : load_all_documents(text))
      if (!doc.IsNull()) out.push_back(doc);
    if (text_out) *text_out = text;
    return out;
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    d_.error(SourceLoc{file, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1}, path,
             "YAML syntax error: lists and mappings are nested too deeply (parser depth limit " +
                 std::to_string(e.depth()) + ")");
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    std::string msg = "YAML syntax error: " + e.msg;
    if (!e.mark.is_null() && msg.find("tab") == std::string::npos && indented_with_tab(text, e.mark.line)) {
      msg += " (line " + std::to_string(e.mark.line + 1) + " is indented with a tab; YAML indents with spaces only)";
    }
    d_.error(SourceLoc{file, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1}, path,
             msg);
    return std::nullopt;
  }
}

std::optional<Ctx> Loader::resolve(Ctx c) {
  for (int depth = 0; depth < 32; ++depth) {
    if (!c.node.IsMap()) return c;
    // Const lookup: yaml-cpp's non-const operator[] inserts the missing key into the (possibly
    // aliased, so shared) map, which grows with every visit.
    const YAML::Node ref = std::as_const(c.node)["$ref"];
    if (!ref) return c;
    if (c.node.size() != 1) {
      d_.error(c.loc(), c.path, "a mapping with $ref must have no other keys");
      return std::nullopt;
    }
    if (!ref.IsScalar() || ref.Scalar().empty()) {
      d_.error(c.loc(), c.path + ".$ref", "expected a file path");
      return std::nullopt;
    }
    if (std::any_of(ref.Scalar().begin(), ref.Scalar().end(),
                    [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; })) {
      d_.error(c.loc(), c.path + ".$ref", "a file path with a NUL or control character");
      return std::nullopt;
    }
    fs::path target = fs::path(ref.Scalar());
    if (target.is_relative()) target = fs::path(c.file == "--set" ? "." : c.file).parent_path() / target;
    std::error_code ec;
    const std::string canonical = fs::weakly_canonical(target, ec).string();
    for (const auto& f : c.chain) {
      if (f == canonical) {
        std::string cycle;
        for (const auto& g : c.chain) cycle += fs::path(g).filename().string() + " -> ";
        cycle += fs::path(canonical).filename().string();
        d_.error(c.loc(), c.path + ".$ref", "cyclic $ref: " + cycle);
        return std::nullopt;
      }
    }
    auto root = read_yaml_file(target.string(), c.loc(), c.path + ".$ref");
    if (!root) return std::nullopt;
    included_.insert(target.lexically_normal().string());
    Ctx next{*root, target.string(), c.path, c.alt_path, c.chain, c.loc()};
    next.chain.push_back(canonical);
    c = next;
  }
  d_.error(c.loc(), c.path, "$ref nesting deeper than 32 files");
  return std::nullopt;
}

std::optional<Ctx> Loader::override_value(const Ctx& parent, const std::string& path, const std::string& alt,
                                          bool& found) {
  found = false;
  for (const auto* p : {&path, &alt}) {
    auto it = overrides_.find(*p);
    if (it == overrides_.end()) continue;
    found = true;
    it->second.used = true;
    const SourceLoc at{"--set " + *p, 0, 0};
    Diagnostics text_check;
    if (!check_text_bytes(it->second.value, "--set", "a text value", text_check)) {
      d_.error(at, *p, "the value is " + text_check.all().front().message.substr(8));  // after "file is "
      return std::nullopt;
    }
    try {
      // LoadAll: a value must be one YAML node; Load would keep the first of "5m\n---\nx" silently.
      const auto docs = load_all_documents(it->second.value);
      if (docs.size() > 1) {
        d_.error(at, *p, "the value holds more than one YAML document ('---'); give one value");
        return std::nullopt;
      }
      YAML::Node value = docs.empty() ? YAML::Node(YAML::NodeType::Null) : docs.front();
      return Ctx{value, "--set", path, alt, parent.chain, at};
    } catch (const YAML::Exception& e) {
      d_.error(SourceLoc{"--set", 0, 0}, *p, "value is not valid YAML: " + e.msg);
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<Ctx> Loader::child(const Ctx& parent, const std::string& key) {
  const std::string path = parent.path.empty() ? key : parent.path + "." + key;
  const std::string alt = parent.alt_path.empty() ? key : parent.alt_path + "." + key;
  bool found = false;
  auto overridden = override_value(parent, path, alt, found);
  if (found) return overridden;
  if (!parent.node.IsMap()) return std::nullopt;
  YAML::Node value = parent.node[key];
  if (!value) return std::nullopt;
  if (value.IsNull()) {
    // An empty value's mark is the token after it (often the next line): point at its key instead.
    for (const auto& kv : parent.node) {
      if (kv.first.IsScalar() && kv.first.Scalar() == key) {
        const Ctx key_ctx = parent.below(kv.first, path, alt, parent.loc());
        return parent.below(YAML::Node(YAML::NodeType::Null), path, alt, key_ctx.loc());
      }
    }
  }
  return resolve(parent.below(value, path, alt, parent.loc()));
}

bool Loader::expect_map(const Ctx& c) {
  if (++nodes_visited_ > MAX_NODES) {
    if (nodes_visited_ == MAX_NODES + 1) d_.error(c.loc(), c.path, "scenario has too many nodes");
    return false;
  }
  if (c.node.IsMap()) return true;
  d_.error(c.loc(), c.path, std::string("expected a mapping, got ") + node_kind(c.node));
  return false;
}

bool Loader::expect_list(const Ctx& c) {
  if (c.node.IsSequence()) return true;
  d_.error(c.loc(), c.path, std::string("expected a list, got ") + node_kind(c.node));
  return false;
}

bool Loader::check_map(const Ctx& c) {
  if (!expect_map(c)) return false;
  const auto keys = known_keys(normalise_path(c.path));
  std::map<std::string, SourceLoc> seen;
  for (const auto& kv : c.node) {
    const Ctx key_ctx = c.below(kv.first, c.path, c.alt_path, c.loc());
    if (!kv.first.IsScalar()) {
      d_.error(key_ctx.loc(), c.path, "keys must be plain names");
      continue;
    }
    const std::string& key = kv.first.Scalar();
    // yaml-cpp accepts a repeated key and lookups see only one of the values.
    if (auto [it, inserted] = seen.emplace(key, key_ctx.loc()); !inserted) {
      d_.error(key_ctx.loc(), c.path.empty() ? key : c.path + "." + key,
               "duplicate key '" + key + "' (first at line " + std::to_string(it->second.line) + ")");
      continue;
    }
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      d_.error(key_ctx.loc(), c.path.empty() ? key : c.path + "." + key,
               "unknown key '" + key + "'" + suggest(key, keys));
    }
  }
  return true;
}

std::vector<Ctx> Loader::items(const Ctx& list) {
  std::vector<Ctx> out;
  if (!expect_list(list)) return out;
  size_t i = 0;
  for (const auto& item : list.node) {
    // Aliases can make a small file a huge tree; stop walking once expect_map has refused it.
    if (++nodes_visited_ > MAX_NODES) break;
    std::string name;
    if (item.IsMap() && item["name"] && item["name"].IsScalar()) name = item["name"].Scalar();
    Ctx c = list.below(item, list.path + "[" + std::to_string(i) + "]",
                       list.alt_path + "[" + (name.empty() ? std::to_string(i) : name) + "]", list.loc());
    // A whole item replaced with --set (spec.cluster.nodePools[hgx].gpuSharing[0]={gpus: [6], mode: mps}).
    bool found = false;
    auto overridden = override_value(list, c.path, c.alt_path, found);
    if (found && !overridden) {
      ++i;
      continue;
    }
    if (found) c = *overridden;
    if (auto r = resolve(c)) {
      // An item included with $ref is named by its fragment: spec.cluster.nodePools[hgx] as well.
      const YAML::Node resolved_name = r->node.IsMap() ? std::as_const(r->node)["name"] : YAML::Node();
      if (name.empty() && resolved_name && resolved_name.IsScalar() && !resolved_name.Scalar().empty())
        r->alt_path = list.alt_path + "[" + resolved_name.Scalar() + "]";
      out.push_back(*r);
    }
    ++i;
  }
  return out;
}

bool Loader::scalar(const Ctx& c, std::string& out, const char* what) {
  if (!c.node.IsScalar()) {
    d_.error(c.loc(), c.path, std::string("expected ") + what + ", got " + node_kind(c.node));
    return false;
  }
  const std::string& text = c.node.Scalar();
  // Double-quoted YAML escapes ("\x01", "\0") put control characters into values that the file check
  // cannot see; they would end up in names, paths and reports.
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && b != '\t' && b != '\n') || b == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", b);
      d_.error(c.loc(), c.path,
               std::string("holds a control character (") + hex + " at position " + std::to_string(i) + "); expected " +
                   what);
      return false;
    }
  }
  out = text;
  return true;
}

// Names are keys of reports, file names and selectors: printable, trimmed, at most 253 characters (a
// Kubernetes object name).
bool Loader::check_name(const Ctx& c, const std::string& name) {
  constexpr size_t MAX_NAME = 253;
  const auto space = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n'; };
  if (name.empty()) return true;  // required-ness is the caller's
  if (std::all_of(name.begin(), name.end(), space)) {
    d_.error(c.loc(), c.path, "a name must not be only whitespace");
    return false;
  }
  if (space(name.front()) || space(name.back())) {
    d_.error(c.loc(), c.path, "a name must not start or end with whitespace, got \"" + name + "\"");
    return false;
  }
  if (name.find_first_of("\t\n") != std::string::npos) {
    d_.error(c.loc(), c.path, "a name must be one line without tabs");
    return false;
  }
  if (name.size() > MAX_NAME) {
    d_.error(c.loc(), c.path,
             "a name is at most " + std::to_string(MAX_NAME) + " characters, got " + std::to_string(name.size()));
    return false;
  }
  return true;
}

void Loader::missing(const Ctx& parent, const std::string& key) {
  d_.error(parent.loc(), parent.path.empty() ? key : parent.path + "." + key, "required field is missing");
}

void Loader::get_string(const Ctx& parent, const std::string& key, std::string& out, bool required) {
  auto c = child(parent, key);
  if (!c) {
    if (required) missing(parent, key);
    return;
  }
  std::string s;
  if (!scalar(*c, s, "a string")) return;
  if (key == "name" && !check_name(*c, s)) return;
  if (required && s.empty()) {
    d_.error(c->loc(), c->path, "must not be empty");
    return;
  }
  out = s;
}

bool Loader::in_schema_range(const Ctx& c, double value, const std::string& text, bool quoted) {
  const std::string norm = normalise_path(c.path);
  const FieldRange* range = field_range(norm);
  // Every numeric field documents its range (FieldDocsTest checks the table); a reader without one is a bug.
  if (!range) throw std::logic_error("the scenario schema documents no range for " + norm);
  if (value >= range->min && value <= range->max) return true;
  const std::string_view type = field_type(norm);
  d_.error(c.loc(), c.path,
           "must be between " + format_field_value(range->min, type) + " and " + format_field_value(range->max, type) +
               ", got " + (quoted ? "\"" + text + "\"" : text));
  return false;
}

std::optional<long long> Loader::read_integer(const Ctx& parent, const std::string& key, bool required,
                                              std::optional<Ctx>& at, std::string& text) {
  at = child(parent, key);
  if (!at) {
    if (required) missing(parent, key);
    return std::nullopt;
  }
  if (!scalar(*at, text, "an integer")) return std::nullopt;
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    d_.error(at->loc(), at->path, "expected an integer, got \"" + text + "\"");
    return std::nullopt;
  }
  return v;
}

void Loader::get_int(const Ctx& parent, const std::string& key, int& out, bool required) {
  std::optional<Ctx> at;
  std::string text;
  const auto v = read_integer(parent, key, required, at, text);
  if (v && in_schema_range(*at, static_cast<double>(*v), text, false)) out = static_cast<int>(*v);
}

void Loader::get_int_in(const Ctx& parent, const std::string& key, int& out, bool required, long long min,
                        long long max) {
  std::optional<Ctx> at;
  std::string text;
  const auto v = read_integer(parent, key, required, at, text);
  if (!v) return;
  if (*v < min || *v > max) {
    d_.error(at->loc(), at->path,
             "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + text);
    return;
  }
  out = static_cast<int>(*v);
}

void Loader::get_uint64(const Ctx& parent, const std::string& key, uint64_t& out) {
  auto c = child(parent, key);
  if (!c) return;
  std::string s;
  if (!scalar(*c, s, "a non-negative integer")) return;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    d_.error(c->loc(), c->path, "expected an integer 0..18446744073709551615, got \"" + s + "\"");
    return;
  }
  if (!in_schema_range(*c, static_cast<double>(v), s, false)) return;
  out = v;
}

void Loader::get_number(const Ctx& parent, const std::string& key, double& out, bool required) {
  auto c = child(parent, key);
  if (!c) {
    if (required) missing(parent, key);
    return;
  }
  std::string s;
  if (!scalar(*c, s, "a number")) return;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
    d_.error(c->loc(), c->path, "expected a number, got \"" + s + "\"");
    return;
  }
  if (!in_schema_range(*c, v, s, false)) return;
  out = v;
}

ScenarioSpec Loader::load(const std::string& path) {
  ScenarioSpec spec;
  spec.source_file = path;
  auto root = read_yaml_file(path, SourceLoc{path, 0, 0}, "", &spec.source_sha256);
  if (!root) return spec;
  std::error_code ec;
  Ctx top{*root, path, "", "", {fs::weakly_canonical(path, ec).string()}, SourceLoc{path, 1, 1}};
  if (!check_map(top)) return spec;

  get_string(top, "apiVersion", spec.api_version, true);
  if (!spec.api_version.empty() && spec.api_version != SCENARIO_API_VERSION) {
    auto c = child(top, "apiVersion");
    d_.error(c->loc(), "apiVersion",
             "unsupported apiVersion '" + spec.api_version + "'; this gputwin reads " + SCENARIO_API_VERSION);
  }
  get_string(top, "kind", spec.kind, true);
  if (!spec.kind.empty() && spec.kind != "Scenario") {
    auto c = child(top, "kind");
    d_.error(c->loc(), "kind", "expected kind 'Scenario', got '" + spec.kind + "'");
  }
  if (auto md = child(top, "metadata")) {
    read_metadata(*md, spec);
  } else {
    missing(top, "metadata");
  }
  if (auto s = child(top, "spec")) {
    read_spec(*s, spec);
  } else {
    missing(top, "spec");
  }
  for (const auto& [opath, slot] : overrides_) {
    if (!slot.used) d_.error(SourceLoc{"--set", 0, 0}, opath, unused_override_message(opath));
  }
  spec.included_files.assign(included_.begin(), included_.end());
  return spec;
}

void Loader::read_metadata(const Ctx& c, ScenarioSpec& spec) {
  if (!check_map(c)) return;
  get_string(c, "name", spec.name, true);
  get_string(c, "description", spec.description, false);
  if (auto labels = child(c, "labels")) {
    if (expect_map(*labels)) {
      for (const auto& kv : labels->node) {
        if (!kv.second.IsScalar()) {
          d_.error(Ctx{kv.second, c.file, labels->path, "", {}, labels->loc()}.loc(),
                   labels->path + "." + kv.first.as<std::string>("?"), "label values must be strings");
        }
      }
    }
  }
}

void Loader::read_spec(const Ctx& c, ScenarioSpec& spec) {
  if (!check_map(c)) return;
  get_uint64(c, "seed", spec.seed);
  get_quantity(c, "duration", spec.duration, parse_duration, false, true);
  get_quantity(c, "slaWindow", spec.sla_window, parse_duration, false, true);
  if (auto cluster = child(c, "cluster")) {
    if (check_map(*cluster)) {
      if (auto pools = child(*cluster, "nodePools")) {
        for (const auto& item : items(*pools)) {
          NodePoolSpec pool;
          read_node_pool(item, pool);
          spec.node_pools.push_back(std::move(pool));
        }
        if (pools->node.IsSequence() && pools->node.size() == 0) {
          d_.error(pools->loc(), pools->path, "at least one node pool is needed");
        }
      } else {
        missing(*cluster, "nodePools");
      }
      if (auto fabric = child(*cluster, "fabric")) read_fabric(*fabric, spec.fabric);
      if (auto storage = child(*cluster, "storage")) {
        for (const auto& item : items(*storage)) {
          StorageSpec st;
          read_storage(item, st);
          spec.storage.push_back(std::move(st));
        }
      }
    }
  } else {
    missing(c, "cluster");
  }
  if (auto tenants = child(c, "tenants")) {
    for (const auto& item : items(*tenants)) {
      TenantSpec t;
      read_tenant(item, t);
      spec.tenants.push_back(std::move(t));
    }
  } else {
    missing(c, "tenants");
  }
  if (auto workloads = child(c, "workloads")) {
    for (const auto& item : items(*workloads)) {
      WorkloadSpec w;
      read_workload(item, w);
      if (w.start.value >= spec.duration.value) {
        // Here, not in check_references, to point at the start value (spec.duration is read by now).
        auto start = child(item, "start");
        d_.error(start ? start->loc() : w.loc, item.path + ".start",
                 "starts at or after the end of the run (spec.duration = " + format_duration(spec.duration) + ")");
      }
      spec.workloads.push_back(std::move(w));
    }
  }
  if (auto data = child(c, "data")) {
    for (const auto& item : items(*data)) {
      DataSpec d;
      read_data(item, d);
      spec.data.push_back(std::move(d));
    }
  }
  if (auto np = child(c, "networkPolicies")) {
    for (const auto& item : items(*np)) {
      NetworkPolicySpec n;
      read_network_policy(item, n);
      spec.network_policies.push_back(std::move(n));
    }
  }
  if (auto x = child(c, "priorityClasses")) read_priority_classes_file(*x, spec.priority_classes);
  if (auto x = child(c, "fairSharing")) read_fair_sharing(*x, spec.fair_sharing);
  if (auto x = child(c, "kueueConfiguration")) {
    if (auto native = child(c, "fairSharing"))
      d_.error(x->loc(), x->path,
               "give spec.fairSharing or spec.kueueConfiguration (whose fairSharing it reads), not both");
    else
      read_kueue_configuration_file(*x, spec.fair_sharing);
  }
  if (auto x = child(c, "compliance")) read_compliance(*x, spec.compliance);
  if (auto x = child(c, "identity")) read_identity(*x, spec.identity);
  if (auto x = child(c, "audit")) read_audit(*x, spec.audit);
  if (auto x = child(c, "incidentResponse")) read_incident_response(*x, spec.incident_response);
  if (auto faults = child(c, "faults")) {
    for (const auto& item : items(*faults)) {
      FaultSpec f;
      f.loc = item.loc();
      if (!check_map(item)) continue;
      get_quantity(item, "at", f.at, parse_duration, true, false);
      // A secret leak names its secret; a GPU fault its workload.
      get_string(item, "secret", f.secret, false);
      get_string(item, "workload", f.workload, f.secret.empty());
      get_string(item, "to", f.to, false);
      get_quantity(item, "detectedAfter", f.detected_after, parse_duration, false, false);
      if (auto w = child(item, "workload")) f.workload_loc = w->loc();
      get_int(item, "replica", f.replica, false);
      get_quantity(item, "restartAfter", f.restart_after, parse_duration, false, false);
      get_quantity(item, "failover", f.failover, parse_duration, false, false);
      get_enum(item, "scope", f.scope, fault_scope_names(), false);
      if (f.restart_after.value >= 0 && f.failover.value >= 0)
        if (auto fo = child(item, "failover"))
          d_.error(fo->loc(), fo->path,
                   "give restartAfter (the clients come back on the same GPU) or failover (they are placed "
                   "elsewhere), not both");
      spec.faults.push_back(std::move(f));
    }
  }
  if (auto reconfigurations = child(c, "reconfigurations")) {
    for (const auto& item : items(*reconfigurations)) {
      ReconfigurationSpec r;
      r.loc = item.loc();
      if (!check_map(item)) continue;
      get_quantity(item, "at", r.at, parse_duration, true, false);
      get_string(item, "nodePool", r.node_pool, true);
      if (auto np = child(item, "nodePool")) r.node_pool_loc = np->loc();
      if (auto layout = child(item, "migLayout")) {
        r.mig_loc = layout->loc();
        read_mig_layout(*layout, r.mig_layout);
      } else {
        missing(item, "migLayout");
      }
      get_quantity(item, "drainTimeout", r.drain_timeout, parse_duration, false, false);
      spec.reconfigurations.push_back(std::move(r));
    }
  }
  if (auto policies = child(c, "policies")) {
    if (check_map(*policies)) {
      if (auto placement = child(*policies, "placement")) read_policy(*placement, spec.placement);
      if (auto isolation = child(*policies, "isolation")) read_isolation(*isolation, spec.isolation);
    }
  }
}

// A MIG layout: a list of profile names, or a mig-parted `mig-devices` mapping {profile: count}.
void Loader::read_mig_layout(const Ctx& layout_ctx, std::vector<std::string>& out) {
  const Ctx* layout = &layout_ctx;
  const size_t errors_before = d_.error_count();
  if (layout->node.IsMap()) {
    // A mig-parted `mig-devices` mapping: {profile: count}.
    for (const auto& kv : layout->node) {
      const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : "";
      int count = 0;
      try {
        count = kv.second.as<int>();
      } catch (const YAML::Exception&) {
        count = -1;
      }
      if (name.empty() || count < 0 || count > 8) {
        d_.error(layout->loc(), layout->path + "." + name, "expected a MIG profile name and an instance count 0..8");
        continue;
      }
      for (int k = 0; k < count; ++k) out.push_back(name);
    }
  } else {
    for (const auto& item : items(*layout)) {
      std::string s;
      if (scalar(item, s, "a MIG profile name such as 3g.40gb")) out.push_back(s);
    }
  }
  if (out.empty() && d_.error_count() == errors_before)
    d_.error(layout->loc(), layout->path,
             "a MIG layout needs at least one GPU instance (an empty layout leaves the GPU without a device)");
}

void Loader::read_sharing_fields(const Ctx& c, SharingSpec& sharing) {
  sharing.loc = c.loc();
  // Later checks of the mode (MIG layout, CC support) report at sharing.loc: point it at the mode.
  if (auto m = child(c, "mode")) sharing.loc = m->loc();
  get_enum(c, "mode", sharing.mode, sharing_mode_names(), true);
  get_int(c, "replicas", sharing.replicas, false);
  if (auto ts = child(c, "timeSlice")) {
    std::string s;
    if (scalar(*ts, s, "a duration or Short|Medium|Long")) {
      if (s == "Short" || s == "Default") {
        sharing.time_slice = Seconds(0.002);
      } else if (s == "Medium") {
        sharing.time_slice = Seconds(0.010);
      } else if (s == "Long") {
        sharing.time_slice = Seconds(0.030);
      } else if (auto r = parse_duration(s); r && r.quantity->value > 0 && std::isfinite(r.quantity->value)) {
        if (in_schema_range(*ts, r.quantity->value, s, true)) sharing.time_slice = *r.quantity;
      } else {
        const bool finite = r && std::isfinite(r.quantity->value);
        d_.error(ts->loc(), ts->path,
                 (!r       ? r.error
                  : finite ? "must be greater than zero"
                           : "value is too large") +
                     std::string(" (or one of Short, Medium, Long)"));
      }
    }
  }
  get_quantity(c, "contextSwitch", sharing.context_switch, parse_duration, false, false);
  get_number(c, "activeThreadPercentage", sharing.active_thread_percentage, false);
  get_quantity(c, "pinnedMemoryLimit", sharing.pinned_memory_limit, parse_bytes, false, true);
  if (auto layout = child(c, "migLayout")) {
    sharing.mig_loc = layout->loc();
    read_mig_layout(*layout, sharing.mig_layout);
  }
  if (auto shared = child(c, "migReplicas"); shared && expect_map(*shared)) {
    // Profile names are checked against the product's MIG table at setup.
    sharing.mig_replicas_loc = shared->loc();
    for (const auto& kv : shared->node) {
      const Ctx key = shared->below(kv.first, shared->path, shared->alt_path, shared->loc());
      if (!kv.first.IsScalar() || kv.first.Scalar().empty()) {
        d_.error(key.loc(), shared->path, "keys are MIG profile names (e.g. 3g.40gb) or all");
        continue;
      }
      const std::string profile = kv.first.Scalar();
      if (sharing.mig_replicas.count(profile)) {  // yaml-cpp keeps both; lookups would see one
        d_.error(key.loc(), shared->path + "." + profile, "duplicate key '" + profile + "'");
        continue;
      }
      int replicas = 1;
      get_int_in(*shared, profile, replicas, true, 1, 48);
      sharing.mig_replicas[profile] = replicas;
    }
  }
  const auto only_for_mode = [&](const char* key, SharingMode mode) {
    if (sharing.mode == mode) return;
    if (auto k = child(c, key)) {
      d_.error(k->loc(), k->path,
               std::string("only meaningful for mode ") + sharing_mode_name(mode) + ", this GPU is " +
                   sharing_mode_name(sharing.mode));
    }
  };
  get_enum(c, "vgpuScheduler", sharing.vgpu_scheduler, vgpu_scheduler_names(), false);
  only_for_mode("vgpuScheduler", SharingMode::VGPU);
  only_for_mode("migLayout", SharingMode::MIG);
  only_for_mode("migReplicas", SharingMode::MIG);
  only_for_mode("activeThreadPercentage", SharingMode::MPS);
  only_for_mode("pinnedMemoryLimit", SharingMode::MPS);
  if (sharing.mode == SharingMode::MIG && sharing.mig_layout.empty() && !child(c, "migLayout") && !mig_from_file_) {
    d_.error(sharing.loc, c.path + ".migLayout", "mode mig needs a migLayout (the GPU instances of each GPU)");
  }
  if (sharing.mode == SharingMode::MIG && child(c, "replicas")) {
    auto r = child(c, "replicas");
    d_.error(r->loc(), r->path,
             "a MIG GPU has one replica per instance unless migReplicas time-slices its instances "
             "(e.g. migReplicas: {3g.40gb: 2}); the instances come from migLayout");
  }
  if (sharing.mode == SharingMode::MPS && !child(c, "replicas")) sharing.replicas = 2;
  if (sharing.mode == SharingMode::VGPU) {
    // Time-sliced vGPU types split the framebuffer evenly: an 80 GB part has 80C, 40C, 20C, 16C, 10C,
    // 8C, 5C and 4C types, i.e. 1, 2, 4, 5, 8, 10, 16 or 20 vGPUs per GPU.
    static const std::vector<int> counts{1, 2, 4, 5, 8, 10, 16, 20};
    if (!child(c, "replicas")) {
      sharing.replicas = 2;
    } else if (std::find(counts.begin(), counts.end(), sharing.replicas) == counts.end()) {
      auto r = child(c, "replicas");
      d_.error(r->loc(), r->path,
               "vGPUs per GPU must be one of 1, 2, 4, 5, 8, 10, 16, 20 (the time-sliced vGPU types), got " +
                   std::to_string(sharing.replicas));
    }
  }
  if (sharing.mode == SharingMode::CONFIDENTIAL && sharing.replicas != 1) {
    auto r = child(c, "replicas");
    d_.error(r ? r->loc() : c.loc(), c.path + ".replicas",
             "a confidential-computing GPU belongs to one confidential VM: exactly one replica");
  }
  if (sharing.mode == SharingMode::EXCLUSIVE && sharing.replicas != 1) {
    auto r = child(c, "replicas");
    d_.error(r ? r->loc() : c.loc(), c.path + ".replicas",
             "an exclusive GPU has exactly one replica; use mode: timeSlicing");
  }
  if (sharing.mode == SharingMode::TIME_SLICING && !child(c, "replicas")) {
    sharing.replicas = 2;
  }
}

void Loader::read_node_pool(const Ctx& c, NodePoolSpec& pool) {
  pool.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "name", pool.name, true);
  get_int(c, "count", pool.count, true);
  const auto from_node = child(c, "fromNode");
  get_string(c, "gpu", pool.gpu_product, !from_node);
  if (auto g = child(c, "gpu")) pool.product_loc = g->loc();
  get_int(c, "gpusPerNode", pool.gpus_per_node, false);
  get_string(c, "region", pool.region, false);
  if (from_node) read_node_labels(*from_node, c, pool);
  get_number(c, "pricePerGpuHour", pool.price_per_gpu_hour, false);
  if (auto topo = child(c, "topology")) read_node_topology(*topo, pool.topology);
  mig_from_file_ = !pool.topology.nvidia_smi_mig.empty();
  if (auto sharing = child(c, "sharing")) {
    if (check_map(*sharing)) read_sharing_fields(*sharing, pool.sharing);
  }
  if (auto hw = child(c, "hardware")) {
    if (expect_map(*hw)) {
      for (const auto& kv : hw->node) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
        const Ctx value{kv.second, hw->file, hw->path + "." + key, hw->alt_path + "." + key, hw->chain, hw->loc()};
        std::string v;
        if (key.empty() || !scalar(value, v, "a value with its unit")) continue;
        pool.hardware[key] = v;
        pool.hardware_locs[key] = value.loc();
      }
    }
  }
  if (auto dp = child(c, "devicePluginConfig")) {
    if (child(c, "sharing")) {
      d_.error(dp->loc(), dp->path, "give either sharing or devicePluginConfig, not both");
    } else {
      read_device_plugin_selection(*dp, pool);
    }
  }
  if (auto mig = child(c, "migConfig")) read_mig_config(*mig, pool);
  if (pool.device_plugin.mig_strategy == "mixed" && !pool.device_plugin.mig_replicas.empty() && !pool.mig_config)
    d_.warning(pool.device_plugin.mig_replicas_loc, c.path + ".devicePluginConfig",
               "the device plugin shares MIG devices, but the pool has no MIG layout (migConfig): they share nothing");
  if (auto overrides = child(c, "gpuSharing")) {
    std::map<int, std::string> claimed;  // GPU index -> the entry that set its mode first
    for (const auto& item : items(*overrides)) {
      GpuSharingOverride o;
      o.loc = item.loc();
      if (!check_map(item)) continue;
      read_sharing_fields(item, o.sharing);
      if (auto gpus = child(item, "gpus")) {
        for (const auto& g : items(*gpus)) {
          std::string s;
          int idx = -1;
          if (!scalar(g, s, "a GPU index")) continue;
          auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), idx);
          if (ec != std::errc() || ptr != s.data() + s.size() || idx < 0) {
            d_.error(g.loc(), g.path, "expected a GPU index (0, 1, ...), got \"" + s + "\"");
            continue;
          }
          if (idx >= pool.gpus_per_node) {
            d_.error(g.loc(), g.path,
                     "GPU index " + s + " does not exist: nodes of this pool have " +
                         std::to_string(pool.gpus_per_node) + " GPUs (0.." + std::to_string(pool.gpus_per_node - 1) +
                         ")");
            continue;
          }
          // Checked here rather than in check_references, which has no location per index.
          if (auto [it, inserted] = claimed.emplace(idx, item.path); !inserted) {
            d_.error(g.loc(), g.path,
                     it->second == item.path ? "GPU " + s + " is listed twice in this gpuSharing entry"
                                             : "GPU " + s + " is listed in more than one gpuSharing entry (first in " +
                                                   it->second.substr(it->second.rfind('.') + 1) + ")");
            continue;
          }
          o.gpus.push_back(idx);
        }
      } else {
        missing(item, "gpus");
      }
      pool.gpu_sharing.push_back(std::move(o));
    }
  }
  // A mig-parted selection without device-filters applies now; one with them at setup (the PCI ids).
  if (pool.mig_config && !mig_config_needs_product(*pool.mig_config))
    apply_mig_config(pool, {}, c.path + ".migConfig", d_);
}

// quota: {gpus, borrowingLimit, lendingLimit} for nvidia.com/gpu, resources[] for the others (MIG instances, a
// device plugin's renamed resource), preemption and queueingStrategy as a Kueue ClusterQueue gives them.
void Loader::read_native_quota(const Ctx& quota, TenantSpec& t) {
  t.has_quota = true;
  const auto resources = child(quota, "resources");
  const auto check_lending = [&](const Ctx& holder, const ResourceQuota& q, const char* nominal_key) {
    if (auto at = child(holder, "lendingLimit"); at && q.lending_limit > q.nominal)
      d_.error(at->loc(), at->path,
               "lendingLimit " + std::to_string(q.lending_limit) + " is more than the nominal quota (" + nominal_key +
                   " " + std::to_string(q.nominal) + ") it lends from");
  };
  if (child(quota, "gpus") || !resources) {
    ResourceQuota& q = t.quotas[GPU_RESOURCE];
    get_int(quota, "gpus", q.nominal, true);
    get_int(quota, "borrowingLimit", q.borrowing_limit, false);
    get_int(quota, "lendingLimit", q.lending_limit, false);
    check_lending(quota, q, "gpus");
  } else {
    for (const char* key : {"borrowingLimit", "lendingLimit"})
      if (auto at = child(quota, key))
        d_.error(at->loc(), at->path,
                 std::string(key) +
                     " limits quota.gpus, which is not given; give the limits of a resource in its "
                     "quota.resources[] item");
  }
  if (resources) {
    for (const auto& r : items(*resources)) {
      if (!check_map(r)) continue;
      std::string name;
      get_string(r, "name", name, true);
      if (name.empty()) continue;
      const auto name_at = child(r, "name");
      if (name.rfind("nvidia.com/", 0) != 0) {
        d_.error(name_at->loc(), name_at->path,
                 "'" + name +
                     "' is no device resource: a quota counts nvidia.com/gpu (quota.gpus), nvidia.com/mig-<profile> "
                     "or a device plugin's renamed resource (nvidia.com/...)");
        continue;
      }
      if (t.quotas.count(name)) {
        d_.error(name_at->loc(), name_at->path,
                 "a second quota of " + name + (name == GPU_RESOURCE ? " (quota.gpus gives it)" : ""));
        continue;
      }
      ResourceQuota& q = t.quotas[name];
      get_int(r, "nominal", q.nominal, true);
      get_int(r, "borrowingLimit", q.borrowing_limit, false);
      get_int(r, "lendingLimit", q.lending_limit, false);
      check_lending(r, q, "nominal");
    }
  }
  if (resources && t.quotas.empty())
    d_.error(resources->loc(), resources->path,
             "a quota of no resource: give quota.gpus or at least one resources[] item");
  if (auto p = child(quota, "preemption")) read_kueue_preemption(*p, t.preemption);
  read_queueing_strategy(quota, t);
  if (auto fs = child(quota, "fairSharing"); fs && check_map(*fs)) read_fair_weight(*fs, t.fair_weight);
}

void Loader::read_tenant(const Ctx& c, TenantSpec& t) {
  t.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "name", t.name, true);
  get_string(c, "region", t.region, false);
  get_enum(c, "classification", t.classification, classification_names(), false);
  if (auto quota = child(c, "quota")) {
    t.quota_loc = quota->loc();
    if (auto kueue = child(*quota, "kueue")) {
      // The quota from a Kueue ClusterQueue (LoadKueue.cpp); no inline numbers beside it.
      if (check_map(*quota) && quota->node.size() > 1)
        d_.error(quota->loc(), quota->path, "give quota.kueue or quota.gpus / borrowingLimit, not both");
      read_kueue_quota(*kueue, t);
    } else if (check_map(*quota)) {
      read_native_quota(*quota, t);
    }
  }
  if (auto slos = child(c, "slos")) {
    for (const auto& item : items(*slos)) {
      if (auto openslo = item.node.IsMap() ? child(item, "openslo") : std::nullopt) {
        // SLOs from an OpenSLO file (LoadOpenSlo.cpp): one per objective, nothing else in the item.
        if (check_map(item) && item.node.size() > 1)
          d_.error(item.loc(), item.path,
                   "an SLO item with openslo takes every field from the OpenSLO file; "
                   "give openslo alone");
        read_openslo(*openslo, t.slos);
        continue;
      }
      SloSpec slo;
      read_slo(item, slo);
      t.slos.push_back(std::move(slo));
    }
  }
}

void Loader::read_slo(const Ctx& c, SloSpec& slo) {
  slo.loc = c.loc();
  slo.window = Seconds(-1);  // filled from spec.slaWindow by check_references when absent
  if (!check_map(c)) return;
  get_string(c, "name", slo.name, true);
  get_enum(c, "kind", slo.kind, slo_kind_names(), true);
  get_string(c, "workload", slo.workload, false);
  if (auto w = child(c, "workload")) slo.workload_loc = w->loc();
  get_number(c, "percentile", slo.percentile, false);
  const bool needs_threshold = slo.kind == SloKind::LATENCY || slo.kind == SloKind::COMPLETION_TIME ||
                               slo.kind == SloKind::TTFT || slo.kind == SloKind::TPOT;
  get_quantity(c, "threshold", slo.threshold, parse_duration, needs_threshold, true);
  get_quantity(c, "minRate", slo.min_rate, parse_rate, slo.kind == SloKind::THROUGHPUT, true);
  get_number(c, "maxSlowdown", slo.max_slowdown, slo.kind == SloKind::SLOWDOWN);
  get_number(c, "minAvailability", slo.min_availability, slo.kind == SloKind::AVAILABILITY);
  get_quantity(c, "window", slo.window, parse_duration, false, true);
  get_number(c, "target", slo.target, false);
}

void Loader::read_arrival(const Ctx& c, ArrivalSpec& a) {
  a.loc = c.loc();
  if (!check_map(c)) return;
  get_enum(c, "process", a.process, arrival_process_names(), true);
  const bool bursty = a.process == ArrivalProcess::BURSTY;
  const bool needs_rate = !bursty && a.process != ArrivalProcess::TRACE;
  get_quantity(c, "rate", a.rate, parse_rate, needs_rate, !bursty);
  get_quantity(c, "burstRate", a.burst_rate, parse_rate, bursty, true);
  get_quantity(c, "meanBurst", a.mean_burst, parse_duration, bursty, true);
  get_quantity(c, "meanGap", a.mean_gap, parse_duration, bursty, true);
  const bool diurnal = a.process == ArrivalProcess::DIURNAL;
  const bool trace = a.process == ArrivalProcess::TRACE;
  get_number(c, "amplitude", a.amplitude, false);
  get_quantity(c, "period", a.period, parse_duration, false, true);
  get_quantity(c, "peakAt", a.peak_at, parse_duration, false, false);
  for (const char* key : {"amplitude", "period", "peakAt"})
    if (!diurnal)
      if (auto k = child(c, key)) d_.warning(k->loc(), k->path, std::string("ignored: only for process 'diurnal'"));
  get_string(c, "file", a.trace_file, trace);
  get_string(c, "format", a.trace_format, false);
  if (auto k = child(c, "format")) {
    const auto& formats = request_trace_format_names();
    if (std::find(formats.begin(), formats.end(), a.trace_format) == formats.end())
      d_.error(k->loc(), k->path,
               "unknown request trace format '" + a.trace_format + "'" + suggest(a.trace_format, formats));
  }
  get_number(c, "speedup", a.speedup, false);
  get_quantity(c, "offset", a.trace_offset, parse_duration, false, false);
  for (const char* key : {"file", "format", "speedup", "offset"})
    if (!trace)
      if (auto k = child(c, key)) d_.warning(k->loc(), k->path, std::string("ignored: only for process 'trace'"));
  if (trace && !a.trace_file.empty()) {
    if (auto f = child(c, "file")) {
      a.trace_loc = f->loc();
      fs::path p(a.trace_file);
      if (p.is_relative() && f->file != "--set") p = fs::path(f->file).parent_path() / p;
      a.trace_file = p.lexically_normal().string();
      auto parsed = std::make_shared<RequestTrace>();
      if (read_request_trace(a.trace_file, a.trace_format, *parsed, d_, a.trace_loc, f->path)) {
        if (a.trace_offset.value >= parsed->span())
          d_.error(a.loc, c.path + ".offset",
                   "offset skips the whole trace (it spans " + std::to_string(parsed->span()) + " s)");
        a.trace = std::move(parsed);
      }
    }
  }
}

void Loader::read_model_shape(const Ctx& c, ModelSpec& m) {
  if (!check_map(c)) return;
  auto& sh = m.shape;
  get_int(c, "hiddenSize", sh.hidden_size, true);
  get_int(c, "intermediateSize", sh.intermediate_size, true);
  get_int(c, "attentionHeads", sh.attention_heads, true);
  get_int(c, "kvHeads", sh.kv_heads, false);
  get_int(c, "headDim", sh.head_dim, false);
  get_int(c, "vocabSize", sh.vocab_size, true);
  get_int(c, "experts", sh.experts, false);
  get_int(c, "activeExperts", sh.active_experts, false);
  get_bool(c, "tiedEmbeddings", sh.tied_embeddings);
  if (sh.kv_heads == 0) sh.kv_heads = sh.attention_heads;
  if (sh.head_dim == 0 && sh.attention_heads > 0) sh.head_dim = sh.hidden_size / sh.attention_heads;
}

void Loader::read_continuous_batching(const Ctx& c, ServingSpec& s) {
  if (auto mode = child(c, "mode")) {
    s.mode_given = true;
    s.mode_loc = mode->loc();
  }
  get_enum(c, "mode", s.mode, batching_mode_names(), false);
  get_int(c, "maxNumSeqs", s.max_num_seqs, false);
  get_int(c, "maxNumBatchedTokens", s.max_num_batched_tokens, false);
  get_bool(c, "chunkedPrefill", s.chunked_prefill);
  get_string(c, "engine", s.engine, false);
  if (auto engine = child(c, "engine")) s.engine_loc = engine->loc();
  static const std::vector<std::string> orders = {"fcfs", "priority"};
  int order = 0;
  get_enum(c, "order", order, orders, false);
  s.priority_order = order == 1;
}

void Loader::read_kv_cache(const Ctx& c, ServingSpec& s) {
  if (!check_map(c)) return;
  get_int(c, "blockSize", s.block_size, false);
  get_number(c, "gpuMemoryUtilization", s.gpu_memory_utilization, false);
  static const std::vector<std::string> dtypes = {"auto", "fp16", "bf16", "fp8"};
  int dtype = 0;
  get_enum(c, "dtype", dtype, dtypes, false);
  s.kv_fp8 = dtype == 3;
  static const std::vector<std::string> preemptions = {"recompute", "swap"};
  int preemption = 0;
  get_enum(c, "preemption", preemption, preemptions, false);
  s.swap_preemption = preemption == 1;
  get_number(c, "prefixHitRatio", s.prefix_hit_ratio, false);
  get_quantity(c, "workspace", s.workspace, parse_bytes, false, false);
}

void Loader::read_workload(const Ctx& c, WorkloadSpec& w) {
  w.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "name", w.name, true);
  get_int(c, "priority", w.priority, false);
  get_string(c, "priorityClass", w.priority_class, false);
  const auto priority = child(c, "priority"), priority_class = child(c, "priorityClass");
  if (priority_class) w.priority_loc = priority_class->loc();
  if (priority) w.priority_loc = priority->loc();
  if (priority && priority_class)
    d_.error(priority->loc(), priority->path, "give priority or priorityClass, not both");
  else if (priority_class && w.priority_class.empty())
    d_.error(priority_class->loc(), priority_class->path, "an empty priorityClass names no class");
  get_enum(c, "kind", w.kind, workload_kind_names(), true);
  get_string(c, "tenant", w.tenant, true);
  if (auto t = child(c, "tenant")) w.tenant_loc = t->loc();
  get_string(c, "purpose", w.purpose, false);
  get_int(c, "replicas", w.replicas, false);
  get_int(c, "gpus", w.gpus, false);
  if (auto g = child(c, "gpus")) w.gpus_loc = g->loc();
  get_quantity(c, "memory", w.memory, parse_bytes, w.kind != WorkloadKind::INFERENCE && w.kind != WorkloadKind::ATTACK,
               true);
  get_quantity(c, "start", w.start, parse_duration, false, false);
  get_enum(c, "runtime", w.runtime, runtime_kind_names(), false);
  if (auto rt = child(c, "runtime")) w.runtime_loc = rt->loc();
  if (auto placement = child(c, "placement")) {
    if (check_map(*placement)) {
      if (auto sharing = child(*placement, "sharing")) {
        for (const auto& item : items(*sharing)) {
          std::string s;
          if (!scalar(item, s, "a sharing mode")) continue;
          const auto& names = sharing_mode_names();
          auto it = std::find(names.begin(), names.end(), s);
          if (it == names.end()) {
            d_.error(item.loc(), item.path, "unknown sharing mode '" + s + "'" + suggest(s, names));
          } else {
            w.allowed_sharing.push_back(static_cast<SharingMode>(it - names.begin()));
          }
        }
      }
      get_string(*placement, "nodePool", w.node_pool, false);
      get_string(*placement, "migProfile", w.mig_profile, false);
      if (auto mp = child(*placement, "migProfile")) w.mig_profile_loc = mp->loc();
      get_string(*placement, "resource", w.k8s_resource, false);
      if (auto r = child(*placement, "resource")) {
        w.k8s_resource_loc = r->loc();
        if (w.k8s_resource.empty())
          d_.error(r->loc(), r->path, "expected a Kubernetes resource name such as nvidia.com/gpu, got an empty value");
        // A name without a domain is the device plugin's (it prefixes nvidia.com/ the same way).
        if (!w.k8s_resource.empty() && w.k8s_resource.find('/') == std::string::npos)
          w.k8s_resource = "nvidia.com/" + w.k8s_resource;
      }
      if (auto np = child(*placement, "nodePool")) w.node_pool_loc = np->loc();
      read_string_list(*placement, "nodes", w.pin_nodes);
      if (auto pn = child(*placement, "nodes")) w.nodes_loc = pn->loc();
    }
  }
  const bool inference = w.kind == WorkloadKind::INFERENCE;
  const bool training = w.kind == WorkloadKind::TRAINING;
  const bool batch = w.kind == WorkloadKind::BATCH;
  auto only_for = [&](const char* key, bool allowed, const char* kinds) {
    if (allowed) return;
    if (c.node.IsMap() && c.node[key]) {
      d_.error(Ctx{c.node[key], c.file, c.path, "", {}, c.loc()}.loc(), c.path + "." + key,
               std::string("only meaningful for kind ") + kinds + ", this workload is " + workload_kind_name(w.kind));
    }
  };
  only_for("model", inference, "inference");
  only_for("batching", inference, "inference");
  only_for("request", inference, "inference");
  only_for("swapping", inference, "inference");
  only_for("kvCache", inference, "inference");
  only_for("parallelism", inference, "inference");
  only_for("disaggregation", inference, "inference");
  only_for("maxQueue", inference, "inference");
  only_for("arrival", inference || batch, "inference or batch");
  only_for("iterations", training, "training");
  only_for("step", training, "training");
  only_for("job", batch, "batch");
  only_for("nodes", training, "training");
  get_int(c, "nodes", w.nodes, false);
  if (auto io = child(c, "io")) read_workload_io(*io, w.io);
  read_workload_secrets(c, w);
  if (auto failures = child(c, "attestationFailures")) {
    for (const auto& item : items(*failures)) {
      AttestationFailureSpec f;
      f.loc = item.loc();
      if (!check_map(item)) continue;
      get_quantity(item, "at", f.at, parse_duration, false, false);
      get_int(item, "replica", f.replica, false);
      w.attestation_failures.push_back(f);
    }
  }
  only_for("attack", w.kind == WorkloadKind::ATTACK, "attack");
  if (w.kind == WorkloadKind::ATTACK) {
    // replicas unset: the attack's own count (a covert channel's sender and receiver, else one process).
    if (c.node.IsMap() && !std::as_const(c.node)["replicas"]) w.replicas = 0;
    if (auto attack = child(c, "attack")) {
      read_attack(*attack, w);
    } else {
      missing(c, "attack");
      w.replicas = std::max(w.replicas, 1);
    }
  }

  if (inference) {
    if (auto model = child(c, "model")) {
      if (check_map(*model)) {
        get_string(*model, "id", w.model.id, false);
        if (auto id = child(*model, "id")) w.model.id_loc = id->loc();
        if (auto arch = child(*model, "architecture")) read_model_shape(*arch, w.model);
        if (auto params = child(*model, "parameters")) {
          std::string s;
          if (scalar(*params, s, "a parameter count such as 8B")) {
            auto r = parse_count(s);
            if (!r) {
              d_.error(params->loc(), params->path, r.error);
            } else if (!std::isfinite(*r.quantity)) {
              d_.error(params->loc(), params->path, "value is too large, got \"" + s + "\"");
            } else if (in_schema_range(*params, *r.quantity, s, true)) {
              w.model.parameters = *r.quantity;
            }
          }
        } else if (w.model.id.empty() && !w.model.has_shape()) {
          missing(*model, "parameters");
        }
        get_enum(*model, "dtype", w.model.dtype, dtype_names(), false);
        get_int(*model, "layers", w.model.layers, false);
      }
    } else {
      missing(c, "model");
    }
    if (auto batching = child(c, "batching")) {
      if (check_map(*batching)) {
        get_int(*batching, "maxBatch", w.max_batch, false);
        get_quantity(*batching, "timeout", w.batch_timeout, parse_duration, false, false);
        read_continuous_batching(*batching, w.serving);
      }
    }
    if (auto kv = child(c, "kvCache")) read_kv_cache(*kv, w.serving);
    if (auto par = child(c, "parallelism")) {
      w.serving.parallelism_loc = par->loc();
      if (check_map(*par)) {
        get_int(*par, "tensor", w.serving.tensor_parallel, false);
        get_int(*par, "pipeline", w.serving.pipeline_parallel, false);
      }
    }
    if (auto dis = child(c, "disaggregation")) {
      w.serving.disaggregation_loc = dis->loc();
      if (check_map(*dis)) get_int(*dis, "prefillReplicas", w.serving.prefill_replicas, true);
    }
    // Without an explicit mode a model with a shape is served with continuous batching.
    if (!w.serving.mode_given)
      w.serving.mode = (!w.model.id.empty() || w.model.has_shape()) ? BatchingMode::CONTINUOUS : BatchingMode::STATIC;
    if (auto request = child(c, "request")) {
      if (check_map(*request)) {
        get_int(*request, "promptTokens", w.prompt_tokens, false);
        get_int(*request, "outputTokens", w.output_tokens, false);
        get_number(*request, "priorityShare", w.serving.priority_share, false);
      }
    }
    get_int(c, "maxQueue", w.max_queue, false);
    if (auto swapping = child(c, "swapping")) {
      if (check_map(*swapping)) {
        get_int(*swapping, "models", w.swap_models, true);
        get_int(*swapping, "residentModels", w.resident_models, false);
        if (w.swap_models >= 2 && w.resident_models >= w.swap_models) {
          auto rm = child(*swapping, "residentModels");
          d_.error(rm ? rm->loc() : swapping->loc(), swapping->path + ".residentModels",
                   "must be less than swapping.models (" + std::to_string(w.swap_models) +
                       "); with every model resident there is nothing to swap");
        }
      }
    }
  }
  if (inference || batch) {
    if (auto arrival = child(c, "arrival")) {
      read_arrival(*arrival, w.arrival);
    } else {
      missing(c, "arrival");
    }
  }
  if (training) {
    get_int(c, "iterations", w.iterations, true);
    if (auto step = child(c, "step")) {
      if (check_map(*step)) {
        get_quantity(*step, "flops", w.step.flops, parse_flops, true, true);
        get_quantity(*step, "bytes", w.step.bytes, parse_bytes, false, false);
        get_quantity(*step, "data", w.data_per_step, parse_bytes, false, false);
        get_quantity(*step, "gradients", w.gradient_bytes, parse_bytes, false, false);
        get_int(*step, "blocks", w.step.blocks, false);
        get_int(*step, "blocksPerSm", w.step.blocks_per_sm, false);
        warn_occupancy_without_grid(*step, w.step);
      }
    } else {
      missing(c, "step");
    }
    if (w.replicas != 1) {
      d_.error(c.loc(), c.path + ".replicas", "a training workload is one job; use gpus for its width");
    }
  }
  if (batch) {
    if (auto job = child(c, "job")) {
      if (check_map(*job)) {
        get_int(*job, "kernels", w.kernels_per_job, false);
        get_quantity(*job, "flops", w.kernel.flops, parse_flops, true, true);
        get_quantity(*job, "bytes", w.kernel.bytes, parse_bytes, false, false);
        get_int(*job, "blocks", w.kernel.blocks, false);
        get_int(*job, "blocksPerSm", w.kernel.blocks_per_sm, false);
        warn_occupancy_without_grid(*job, w.kernel);
      }
    } else {
      missing(c, "job");
    }
  }
}

void Loader::warn_occupancy_without_grid(const Ctx& kernel, const KernelSpec& k) {
  if (k.blocks > 0) return;
  if (auto bps = child(kernel, "blocksPerSm"))
    d_.warning(bps->loc(), bps->path, "ignored without blocks: a kernel without a grid fills every SM");
}

void Loader::get_bool(const Ctx& parent, const std::string& key, bool& out) {
  auto c = child(parent, key);
  if (!c) return;
  std::string s;
  if (!scalar(*c, s, "true or false")) return;
  if (s == "true") {
    out = true;
  } else if (s == "false") {
    out = false;
  } else {
    d_.error(c->loc(), c->path, "expected true or false, got \"" + s + "\"");
  }
}

// An attacker workload's `attack` mapping: which attack, on which channel or victim, with which knobs.
// covertChannel's bitRate: a rate, or `auto` (the attacker's rate search); trainingBits only with auto.
void Loader::read_bit_rate(const Ctx& c, AttackSpec& a) {
  if (auto br = child(c, "bitRate")) {
    std::string s;
    if (scalar(*br, s, "a rate such as 45500/s, or auto")) {
      if (s == "auto") {
        a.adaptive_rate = true;
      } else if (auto r = parse_rate(s); !r) {
        d_.error(br->loc(), br->path, r.error + " (or auto: the attacker searches for its best rate)");
      } else {
        get_quantity(c, "bitRate", a.bit_rate, parse_rate, false, true);
      }
    }
  }
  get_int(c, "trainingBits", a.training_bits, false);
  if (auto tb = child(c, "trainingBits"); tb && !a.adaptive_rate)
    d_.error(tb->loc(), tb->path, "only meaningful with bitRate: auto (the bits of each trial of the rate search)");
}

void Loader::read_attack(const Ctx& c, WorkloadSpec& w) {
  AttackSpec& a = w.attack;
  a.loc = c.loc();
  if (!check_map(c)) return;
  get_enum(c, "type", a.type, attack_type_names(), true);
  const bool covert = a.type == AttackType::COVERT_CHANNEL;
  const bool probe = a.type == AttackType::PRIME_PROBE || a.type == AttackType::MODEL_EXTRACTION;
  const bool query = a.type == AttackType::QUERY_EXTRACTION;
  const bool needs_target = a.type == AttackType::PRIME_PROBE || a.type == AttackType::NOISY_NEIGHBOUR ||
                            a.type == AttackType::MPS_KILL || a.type == AttackType::MODEL_EXTRACTION || query;
  auto only_for = [&](const char* key, bool allowed, const char* types) {
    if (allowed || !c.node.IsMap() || !c.node[key]) return;
    d_.error(Ctx{c.node[key], c.file, c.path, "", {}, c.loc()}.loc(), c.path + "." + key,
             std::string("only meaningful for attack type ") + types + ", this attack is " + attack_type_name(a.type));
  };
  only_for("channel", covert, "covertChannel");
  only_for("senderTenant", covert, "covertChannel");
  only_for("bits", covert, "covertChannel");
  only_for("preamble", covert, "covertChannel");
  only_for("bitRate", covert, "covertChannel");
  only_for("trainingBits", covert, "covertChannel");
  only_for("reference", covert, "covertChannel");
  only_for("noise", covert || probe, "covertChannel, primeProbe or modelExtraction");
  only_for("target", needs_target, "primeProbe, noisyNeighbour, mpsKill, modelExtraction or queryExtraction");
  only_for("queries", query, "queryExtraction");
  only_for("queryRate", query, "queryExtraction");
  only_for("probeInterval", probe, "primeProbe or modelExtraction");
  only_for("candidates", a.type == AttackType::PRIME_PROBE, "primeProbe");
  only_for("bytes", a.type == AttackType::REMANENCE_SCRAPE || a.type == AttackType::NOISY_NEIGHBOUR,
           "remanenceScrape or noisyNeighbour");
  only_for("flops", a.type == AttackType::NOISY_NEIGHBOUR, "noisyNeighbour");
  only_for("interval", a.type == AttackType::REMANENCE_SCRAPE, "remanenceScrape");
  only_for("at", a.type == AttackType::MPS_KILL, "mpsKill");
  if (covert) {
    if (auto ch = child(c, "channel")) {
      a.channel_loc = ch->loc();
      std::string s;
      if (scalar(*ch, s, "a resource: nvlink, pcie, l2 or hbm")) {
        static const std::vector<std::string> channels{"nvlink", "pcie", "l2", "hbm"};
        if (std::find(channels.begin(), channels.end(), s) == channels.end()) {
          d_.error(ch->loc(), ch->path, "unknown covert-channel resource '" + s + "'" + suggest(s, channels));
        } else {
          a.channel = s;
        }
      }
    } else {
      missing(c, "channel");
    }
    get_string(c, "senderTenant", a.sender_tenant, false);
    if (auto st = child(c, "senderTenant")) a.sender_loc = st->loc();
    get_int(c, "bits", a.bits, false);
    get_int(c, "preamble", a.preamble, false);
    read_bit_rate(c, a);
    get_string(c, "reference", a.reference, false);
    if (auto r = child(c, "reference")) a.reference_loc = r->loc();
  }
  if (covert || probe) get_quantity(c, "noise", a.noise, parse_duration, false, false);
  if (needs_target) {
    get_string(c, "target", a.target, true);
    if (auto t = child(c, "target")) a.target_loc = t->loc();
  }
  if (probe) get_quantity(c, "probeInterval", a.probe_interval, parse_duration, false, true);
  if (a.type == AttackType::PRIME_PROBE) {
    if (auto cands = child(c, "candidates")) {
      for (const auto& item : items(*cands)) {
        AttackCandidate cand;
        cand.loc = item.loc();
        if (!check_map(item)) continue;
        get_string(item, "name", cand.name, true);
        if (auto params = child(item, "parameters")) {
          std::string s;
          if (scalar(*params, s, "a parameter count such as 8B")) {
            auto r = parse_count(s);
            if (!r || !std::isfinite(*r.quantity) || *r.quantity < 1) {
              d_.error(params->loc(), params->path, r ? "must be a finite count of at least 1" : r.error);
            } else if (in_schema_range(*params, *r.quantity, s, true)) {
              cand.model.parameters = *r.quantity;
            }
          }
        } else {
          missing(item, "parameters");
        }
        get_enum(item, "dtype", cand.model.dtype, dtype_names(), false);
        a.candidates.push_back(std::move(cand));
      }
      if (a.candidates.size() < 2)
        d_.error(cands->loc(), cands->path, "a fingerprint library needs at least two candidate models");
    } else {
      missing(c, "candidates");
    }
  }
  if (a.type == AttackType::REMANENCE_SCRAPE || a.type == AttackType::NOISY_NEIGHBOUR)
    get_quantity(c, "bytes", a.bytes, parse_bytes, false, false);
  if (a.type == AttackType::NOISY_NEIGHBOUR) get_quantity(c, "flops", a.flops, parse_flops, false, false);
  if (a.type == AttackType::REMANENCE_SCRAPE) get_quantity(c, "interval", a.interval, parse_duration, false, false);
  if (a.type == AttackType::MPS_KILL) get_quantity(c, "at", a.at, parse_duration, false, false);
  if (query) {
    get_int(c, "queries", a.queries, false);
    get_quantity(c, "queryRate", a.query_rate, parse_rate, false, true);
  }
  if (w.replicas == 0) w.replicas = covert ? 2 : 1;
  if (!covert && w.replicas != 1) {
    // One attacker process; a covert channel's sender and receiver are its two replicas.
    d_.error(w.loc, c.path,
             std::string("attack type ") + attack_type_name(a.type) + " runs one replica, got " +
                 std::to_string(w.replicas));
  }
  if (covert && w.replicas != 2) {
    d_.error(w.loc, c.path,
             "a covert channel has two replicas (0: the sender, 1: the receiver), got " + std::to_string(w.replicas));
  }
}

// spec.policies.isolation: mitigations in force and their costs.
void Loader::read_isolation(const Ctx& c, IsolationPolicySpec& iso) {
  iso.loc = c.loc();
  if (!check_map(c)) return;
  get_bool(c, "scrubOnFree", iso.scrub_on_free);
  get_quantity(c, "timerResolution", iso.timer_resolution, parse_duration, false, false);
  get_quantity(c, "noiseInjection", iso.noise_injection, parse_duration, false, false);
  get_quantity(c, "queryRateLimit", iso.query_rate_limit, parse_rate, false, false);
  get_int(c, "queryBudget", iso.query_budget, false);
  get_bool(c, "weightEncryption", iso.weight_encryption);
  get_quantity(c, "decryptBandwidth", iso.decrypt_bandwidth, parse_bandwidth, false, true);
  get_enum(c, "gpuVisibility", iso.gpu_visibility, gpu_visibility_names(), false);
  get_enum(c, "logprobs", iso.api.logprobs, api_logprobs_names(), false);
  get_int(c, "topLogprobs", iso.api.top_logprobs, false);
  get_bool(c, "logitBias", iso.api.logit_bias);
  get_number(c, "outputNoise", iso.api.noise_nats, false);
  get_number(c, "watermarkFraction", iso.api.watermark_fraction, false);
  get_int(c, "watermarkThreshold", iso.api.watermark_threshold, false);
}

void Loader::read_policy(const Ctx& c, PolicyRef& p) {
  p.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "name", p.name, true);
  // The registry check reports an unknown name at p.loc (every parameter has its own location).
  if (auto n = child(c, "name")) p.loc = n->loc();
  if (auto params = child(c, "params")) {
    if (!expect_map(*params)) return;
    for (const auto& kv : params->node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
      const Ctx value{kv.second, params->file, params->path + "." + key, "", {}, params->loc()};
      if (p.param_locs.count(key)) {
        d_.error(Ctx{kv.first, params->file, "", "", {}, value.loc()}.loc(), value.path,
                 "duplicate key '" + key + "' (first at line " + std::to_string(p.param_locs[key].line) + ")");
        continue;
      }
      std::string s;
      if (!scalar(value, s, "a number, bool or string")) continue;
      p.param_locs[key] = value.loc();
      double number = 0;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
      if (ec == std::errc() && ptr == s.data() + s.size()) {
        p.params[key] = number;
      } else if (s == "true" || s == "false") {
        p.params[key] = (s == "true");
      } else {
        p.params[key] = s;
      }
    }
  }
}

void Loader::read_string_list(const Ctx& parent, const std::string& key, std::vector<std::string>& out) {
  auto list = child(parent, key);
  if (!list) return;
  for (const auto& item : items(*list)) {
    std::string s;
    if (scalar(item, s, "a name")) out.push_back(s);
  }
}

// A node's inside: a template name, or a mapping {template | fromNvidiaSmi, mig, nics, nicBandwidth, nvme}.
void Loader::read_node_topology(const Ctx& c, NodeTopologySpec& t) {
  t.loc = c.loc();
  const auto resolve_file = [&](const Ctx& at, const std::string& s) {
    fs::path p(s);
    if (p.is_relative() && at.file != "--set") p = fs::path(at.file).parent_path() / p;
    return p.lexically_normal().string();
  };
  if (c.node.IsScalar()) {
    scalar(c, t.template_name, "a node template name");
    return;
  }
  if (!check_map(c)) return;
  get_string(c, "template", t.template_name, false);
  if (auto f = child(c, "fromNvidiaSmi")) {
    std::string s;
    if (scalar(*f, s, "the path of a saved `nvidia-smi topo -m` output")) {
      t.nvidia_smi_topo = resolve_file(*f, s);
      t.topo_loc = f->loc();
    }
    if (!t.template_name.empty()) d_.error(f->loc(), f->path, "give either template or fromNvidiaSmi, not both");
  }
  if (auto f = child(c, "mig")) {
    std::string s;
    if (scalar(*f, s, "the path of a saved `nvidia-smi mig -lgi` output")) {
      t.nvidia_smi_mig = resolve_file(*f, s);
      t.mig_loc = f->loc();
    }
  }
  if (auto f = child(c, "migComputeInstances")) {
    std::string s;
    if (scalar(*f, s, "the path of a saved `nvidia-smi mig -lci` output")) {
      t.nvidia_smi_lci = resolve_file(*f, s);
      t.lci_loc = f->loc();
    }
    if (t.nvidia_smi_mig.empty())
      d_.error(f->loc(), f->path,
               "compute instances live in GPU instances: give topology.mig (`nvidia-smi mig -lgi`) too");
  }
  get_int(c, "nics", t.nics, false);
  if (auto n = child(c, "nics"); n && !t.nvidia_smi_topo.empty())
    d_.error(n->loc(), n->path,
             "nics sets a template's NIC count; an imported node has the NICs its `nvidia-smi topo -m` lists "
             "(set nicBandwidth to what each of them carries)");
  get_quantity(c, "nicBandwidth", t.nic_bandwidth, parse_bandwidth, false, true);
  get_int(c, "sockets", t.sockets, false);
  get_quantity(c, "socketLink", t.socket_link, parse_bandwidth, false, true);
  if (auto nvme = child(c, "nvme")) {
    if (check_map(*nvme)) {
      get_quantity(*nvme, "read", t.nvme_read, parse_bandwidth, false, true);
      get_quantity(*nvme, "write", t.nvme_write, parse_bandwidth, false, true);
    }
  }
}

void Loader::read_fabric(const Ctx& c, FabricSpec& f) {
  f.loc = c.loc();
  f.declared = true;
  if (!check_map(c)) return;
  get_enum(c, "kind", f.kind, fabric_kind_names(), true);
  get_int(c, "nodesPerLeaf", f.nodes_per_leaf, false);
  get_int(c, "spines", f.spines, false);
  get_number(c, "oversubscription", f.oversubscription, false);
  get_quantity(c, "hopLatency", f.hop_latency, parse_duration, false, false);
  get_quantity(c, "frontendBandwidth", f.frontend_bandwidth, parse_bandwidth, false, true);
  if (auto enc = child(c, "encryption")) {
    if (check_map(*enc)) {
      get_number(*enc, "bandwidthFactor", f.encryption_bandwidth_factor, false);
      get_quantity(*enc, "latency", f.encryption_latency, parse_duration, false, false);
    }
  }
  const auto only_fat_tree = [&](const char* key) {
    if (f.kind != FabricKind::SINGLE_SWITCH) return;
    if (auto k = child(c, key))
      d_.error(k->loc(), k->path, "only meaningful for kinds fatTree and railOptimized, this fabric is singleSwitch");
  };
  only_fat_tree("nodesPerLeaf");
  only_fat_tree("spines");
  only_fat_tree("oversubscription");
}

void Loader::read_storage(const Ctx& c, StorageSpec& st) {
  st.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "name", st.name, true);
  get_enum(c, "kind", st.kind, storage_kind_names(), true);
  get_quantity(c, "readBandwidth", st.read_bandwidth, parse_bandwidth, false, true);
  get_quantity(c, "writeBandwidth", st.write_bandwidth, parse_bandwidth, false, true);
  get_int(c, "servers", st.servers, false);
  get_quantity(c, "latency", st.latency, parse_duration, false, false);
  get_string(c, "region", st.region, false);
  get_bool(c, "encryptedAtRest", st.encrypted_at_rest);
  read_string_list(c, "allow", st.allow);
  if (st.name == LOCAL_NVME_STORE || st.name == HOST_MEMORY_STORE) {
    auto n = child(c, "name");
    d_.error(n ? n->loc() : st.loc, c.path + ".name",
             "'" + st.name + "' is reserved (the node's own NVMe / host memory); choose another name");
  }
}

void Loader::read_data(const Ctx& c, DataSpec& d) {
  d.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "name", d.name, true);
  get_enum(c, "kind", d.kind, data_kind_names(), true);
  get_string(c, "tenant", d.tenant, true);
  if (auto t = child(c, "tenant")) d.tenant_loc = t->loc();
  get_string(c, "region", d.region, false);
  if (child(c, "classification")) {
    Classification cls = Classification::INTERNAL;
    get_enum(c, "classification", cls, classification_names(), false);
    d.classification = classification_names()[static_cast<size_t>(cls)];
  }
  get_string(c, "category", d.category, false);
  get_string(c, "store", d.store, false);
  if (auto s = child(c, "store")) d.store_loc = s->loc();
  get_int(c, "socket", d.socket, false);
  if (auto s = child(c, "socket")) d.socket_loc = s->loc();
}

void Loader::read_network_policy(const Ctx& c, NetworkPolicySpec& n) {
  n.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "tenant", n.tenant, true);
  get_bool(c, "isolated", n.isolated);
  get_bool(c, "encryptInTransit", n.encrypt_in_transit);
  read_string_list(c, "allowFrom", n.allow_from);
}

void Loader::read_workload_io(const Ctx& c, WorkloadIoSpec& io) {
  io.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "dataset", io.dataset, false);
  if (auto x = child(c, "dataset")) io.dataset_loc = x->loc();
  get_string(c, "weights", io.weights, false);
  if (auto x = child(c, "weights")) io.weights_loc = x->loc();
  if (auto ck = child(c, "checkpoint")) {
    io.checkpoint_loc = ck->loc();
    if (check_map(*ck)) {
      get_string(*ck, "data", io.checkpoint, true);
      get_int(*ck, "every", io.checkpoint_every, true);
      get_quantity(*ck, "bytes", io.checkpoint_bytes, parse_bytes, true, true);
    }
  }
  get_bool(c, "gpuDirect", io.gpu_direct);
  get_string(c, "identity", io.identity, false);
  get_quantity(c, "requestBytes", io.request_bytes, parse_bytes, false, false);
  get_quantity(c, "responseBytes", io.response_bytes, parse_bytes, false, false);
  get_quantity(c, "frontEnd", io.front_end, parse_duration, false, false);
}

ScenarioSpec load_scenario(const std::string& path, const std::vector<Override>& overrides, Diagnostics& diags) {
  Loader loader(diags, overrides);
  ScenarioSpec spec = loader.load(path);
  check_references(spec, diags);
  return spec;
}

}  // namespace gtw
