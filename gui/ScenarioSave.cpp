#include "ScenarioSave.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "AtomicFile.hpp"
#include "FieldDocs.hpp"
#include "Loader.hpp"
#include "YamlInput.hpp"

namespace fs = std::filesystem;

namespace gtw::gui {
namespace {

struct Failure {
  std::string message;
};

// One step of an override path: a key and the list selectors after it (nodePools[serve] -> nodePools, serve).
struct Segment {
  std::string key;
  std::vector<std::string> selectors;
};

// "spec.cluster.nodePools[0].sharing" -> spec, cluster, nodePools[0], sharing. Selectors may hold dots
// (a name such as 4g.40gb). The loader matches paths by building the same text while it walks, so this is
// the only place such a path is taken apart.
std::vector<Segment> split_path(const std::string& path) {
  std::vector<Segment> out(1);
  bool in_selector = false;
  for (const char c : path) {
    Segment& cur = out.back();
    if (in_selector) {
      if (c == ']') {
        in_selector = false;
      } else {
        cur.selectors.back() += c;
      }
    } else if (c == '[') {
      in_selector = true;
      cur.selectors.emplace_back();
    } else if (c == '.') {
      out.emplace_back();
    } else if (!cur.selectors.empty()) {
      throw Failure{path + ": expected '.' or '[' after ']'"};
    } else {
      cur.key += c;
    }
  }
  if (in_selector) throw Failure{path + ": '[' without ']'"};
  for (const auto& s : out)
    if (s.key.empty()) throw Failure{path + ": empty key in the path"};
  return out;
}

// Fields whose value is a file path relative to the file that holds it (FieldDocs type "path").
bool is_path_field(const std::string& schema_path) {
  static const std::set<std::string> paths = [] {
    std::set<std::string> out;
    for (const auto& d : field_docs())
      if (d.type == "path") out.emplace(d.path);
    return out;
  }();
  return paths.count(schema_path) > 0;
}

bool is_ref(const YAML::Node& n) {
  if (!n.IsMap() || n.size() != 1) return false;
  const YAML::Node ref = n["$ref"];
  return ref && ref.IsScalar();
}

// A path relative to `from` made relative to `to` (both absolute); absolute when the two have no common
// directory below the root (../../work/x from /tmp/y would break as soon as either moves).
std::string moved(const std::string& text, const fs::path& from, const fs::path& to) {
  const fs::path p(text);
  if (text.empty() || p.is_absolute()) return text;
  const fs::path target = (from / p).lexically_normal();
  auto t = target.begin();
  size_t common = 0;
  for (auto d = to.begin(); t != target.end() && d != to.end() && *t == *d; ++t, ++d) ++common;
  const fs::path rel = target.lexically_relative(to);
  return rel.empty() || common < 2 ? target.generic_string() : rel.generic_string();
}

class Saver {
 public:
  explicit Saver(fs::path base) : base_(std::move(base)) {}

  // Rewrites every relative $ref and path field under `node` (at normalised scenario path `path`) from
  // directory `from` to directory `to`.
  void rebase(const YAML::Node& node, const std::string& path, const fs::path& from, const fs::path& to) {
    if (from == to) return;
    done_.clear();
    walk(node, path, from, to);
  }

 private:
  void walk(const YAML::Node& node, const std::string& path, const fs::path& from, const fs::path& to) {
    if (node.IsMap()) {
      for (auto kv : node) {
        if (!kv.first.IsScalar()) continue;
        const std::string key = kv.first.Scalar();
        const std::string child = path.empty() ? key : path + "." + key;
        if (kv.second.IsScalar() && (key == "$ref" || is_path_field(child))) {
          // A scalar shared through a YAML alias is rewritten once.
          if (std::any_of(done_.begin(), done_.end(), [&](const YAML::Node& d) { return d.is(kv.second); })) continue;
          kv.second = moved(kv.second.Scalar(), from, to);
          done_.push_back(kv.second);
        } else {
          walk(kv.second, child, from, to);
        }
      }
    } else if (node.IsSequence()) {
      for (const auto& item : node) walk(item, path + "[]", from, to);
    }
  }

 public:
  // The node a $ref leads to (following $refs in the fragments), its relative paths rewritten for the
  // base directory; the node itself when it is no $ref. The tree is not changed.
  YAML::Node resolved(const YAML::Node& node, const std::string& path) {
    YAML::Node n;
    n.reset(node);
    for (int depth = 0; is_ref(n); ++depth) {
      if (depth == 32) throw Failure{path + ": $ref nesting deeper than 32 files"};
      fs::path target(std::as_const(n)["$ref"].Scalar());
      if (target.is_relative()) target = base_ / target;
      target = target.lexically_normal();
      YAML::Node loaded;
      try {
        loaded = load_yaml_input(target.string(), InputKind::SCENARIO);
      } catch (const std::exception& e) {
        throw Failure{path + ".$ref: cannot read '" + target.string() + "': " + e.what()};
      }
      rebase(loaded, path, target.parent_path(), base_);
      n.reset(loaded);
    }
    return n;
  }

  // `node` (a map value or list item in the tree), with its $ref replaced by the fragment's content.
  YAML::Node inlined(YAML::Node node, const std::string& path) {
    if (!is_ref(node)) return node;
    const YAML::Node content = resolved(node, path);
    node = content;  // yaml-cpp: assigning a node replaces it in the tree
    return node;
  }

  void apply(const YAML::Node& root, const std::string& opath, const std::string& value) {
    const std::vector<Segment> segs = split_path(opath);
    if (!segs.back().selectors.empty()) throw Failure{opath + ": a list item cannot be set whole, only its fields"};
    YAML::Node cur;
    cur.reset(root);
    std::string schema;
    for (size_t s = 0; s + 1 < segs.size(); ++s) {
      const Segment& seg = segs[s];
      schema = schema.empty() ? seg.key : schema + "." + seg.key;
      if (!cur.IsMap()) throw Failure{opath + ": the scenario has no mapping at " + schema};
      YAML::Node next = std::as_const(cur)[seg.key];
      if (!next) throw Failure{opath + ": the scenario has nothing at " + schema};
      next.reset(inlined(next, schema));
      for (const auto& sel : seg.selectors) {
        if (!next.IsSequence()) throw Failure{opath + ": " + schema + " is not a list"};
        schema += "[]";
        next.reset(inlined(item(next, sel, schema, opath), schema));
      }
      cur.reset(next);
    }
    const std::string& key = segs.back().key;
    schema = schema.empty() ? key : schema + "." + key;
    if (!cur.IsMap() && !cur.IsNull()) throw Failure{opath + ": the scenario has no mapping to set '" + key + "' in"};
    YAML::Node v;
    try {
      v = YAML::Load(value);
    } catch (const YAML::Exception& e) {
      throw Failure{opath + ": value is not valid YAML: " + e.msg};
    }
    // The loader reads relative paths in a --set value from the working directory.
    std::error_code ec;
    rebase(v, schema, fs::current_path(ec), base_);
    cur[key] = v;
  }

 private:
  // The list item `sel` selects: by index, else by name (its fragment's name for a $ref item), as the loader.
  YAML::Node item(const YAML::Node& list, const std::string& sel, const std::string& schema, const std::string& opath) {
    for (size_t i = 0; i < list.size(); ++i)
      if (sel == std::to_string(i)) return list[i];
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node r = resolved(list[i], schema);
      if (!r.IsMap()) continue;
      const YAML::Node name = r["name"];
      if (name && name.IsScalar() && name.Scalar() == sel) return list[i];
    }
    throw Failure{opath + ": the scenario has no list item '" + sel + "' at " + schema};
  }

  fs::path base_;  // the original's directory: relative paths in the tree are relative to it
  std::vector<YAML::Node> done_;
};

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

}  // namespace

SavedScenario scenario_with_overrides(const fs::path& original, const std::vector<std::string>& overrides,
                                      const fs::path& destination) {
  SavedScenario out;
  try {
    const fs::path orig = fs::absolute(original).lexically_normal();
    const fs::path dest = fs::absolute(destination).lexically_normal();
    YAML::Node root;
    try {
      root = load_yaml_input(orig.string(), InputKind::SCENARIO);
    } catch (const std::exception& e) {
      throw Failure{"cannot read '" + orig.string() + "': " + e.what()};
    }
    if (!root.IsMap()) throw Failure{orig.string() + ": expected a YAML mapping"};

    // As the loader: one value per path (the last given), and a mapping set whole before its fields.
    std::vector<std::pair<std::string, std::string>> ordered;
    std::map<std::string, size_t> seen;
    for (const auto& text : overrides) {
      const auto o = parse_override(text);
      if (!o) throw Failure{"'" + text + "' is not path=value"};
      if (auto it = seen.find(o->path); it != seen.end()) {
        ordered[it->second].second = o->value;
      } else {
        seen.emplace(o->path, ordered.size());
        ordered.emplace_back(o->path, o->value);
      }
    }
    std::vector<std::pair<size_t, size_t>> by_depth;  // (segments, position)
    for (size_t i = 0; i < ordered.size(); ++i) by_depth.emplace_back(split_path(ordered[i].first).size(), i);
    std::stable_sort(by_depth.begin(), by_depth.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

    Saver saver(orig.parent_path());
    for (const auto& [depth, i] : by_depth) saver.apply(root, ordered[i].first, ordered[i].second);
    saver.rebase(root, "", orig.parent_path(), dest.parent_path());

    YAML::Emitter emitter;
    emitter.SetIndent(2);
    emitter << root;
    if (!emitter.good()) throw Failure{"cannot write the scenario as YAML: " + emitter.GetLastError()};

    std::ostringstream text;
    text << "# Saved by gputwin-gui from " << one_line(orig.string()) << "\n";
    if (ordered.empty()) {
      text << "# with no what-if overrides.\n";
    } else {
      text << "# with these what-if overrides (the same as `gputwin run ORIGINAL --set ...`):\n";
      for (const auto& text_override : overrides) text << "#   --set '" << one_line(text_override) << "'\n";
    }
    text << "# The original's comments are not kept.\n" << emitter.c_str() << "\n";
    out.yaml = text.str();
    out.ok = true;
  } catch (const Failure& f) {
    out.error = f.message;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

bool save_scenario_with_overrides(const fs::path& original, const std::vector<std::string>& overrides,
                                  const fs::path& destination, std::string* error) {
  const SavedScenario saved = scenario_with_overrides(original, overrides, destination);
  const auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (!saved.ok) return fail(saved.error);
  const fs::path dest = fs::absolute(destination);
  std::string why;
  if (!try_write_file_atomic(dest.string(), saved.yaml, why))
    return fail("cannot write '" + dest.string() + "': " + why);
  return true;
}

fs::path default_save_path(const fs::path& original) {
  return original.parent_path() / (original.stem().string() + "-whatif.yaml");
}

}  // namespace gtw::gui
