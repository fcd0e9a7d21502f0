#include "ModelCatalogue.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <set>

#include "InputFile.hpp"
#include "Text.hpp"
#include "YamlDocuments.hpp"

#ifndef GTW_MODEL_CATALOGUE
#define GTW_MODEL_CATALOGUE "calibration/models/llm.yaml"
#endif

namespace gtw {

double ModelArchitecture::parameters() const {
  const double h = hidden_size, q = static_cast<double>(attention_heads) * head_dim,
               kv = static_cast<double>(kv_heads) * head_dim;
  const double attention = h * q + 2 * h * kv + q * h + (qkv_bias ? q + 2 * kv : 0);
  const double feed_forward = experts * 3.0 * h * intermediate_size + (experts > 1 ? h * experts : 0);
  const double norms = 2 * h;
  const double embeddings = static_cast<double>(vocab_size) * h * (tied_embeddings ? 1 : 2);
  return layers * (attention + feed_forward + norms) + embeddings + h;
}

double ModelArchitecture::active_parameters() const {
  const double h = hidden_size;
  const double idle_experts = static_cast<double>(experts - active_experts) * 3.0 * h * intermediate_size;
  return parameters() - layers * idle_experts;
}

double ModelArchitecture::kv_bytes_per_token(double bytes_per_value) const {
  return 2.0 * layers * kv_heads * head_dim * bytes_per_value;
}

double ModelArchitecture::body_matrix_flops_per_token() const {
  const double embedding_tables = static_cast<double>(vocab_size) * hidden_size * (tied_embeddings ? 1 : 2);
  return 2.0 * (active_parameters() - embedding_tables);
}

double ModelArchitecture::attention_flops_per_token(double context) const {
  return 4.0 * layers * attention_heads * head_dim * context;
}

const ModelArchitecture* ModelCatalogue::find(const std::string& id) const {
  for (const auto& m : models)
    if (m.id == id) return &m;
  return nullptr;
}

std::vector<std::string> ModelCatalogue::ids() const {
  std::vector<std::string> out;
  for (const auto& m : models) out.push_back(m.id);
  return out;
}

std::string default_model_catalogue_path() {
  if (const char* env = std::getenv("GPUTWIN_MODEL_CATALOGUE"); env && *env) return env;
  return GTW_MODEL_CATALOGUE;
}

namespace {

SourceLoc loc_of(const std::string& file, const YAML::Node& n) {
  const auto m = n.Mark();
  return m.is_null() ? SourceLoc{file, 0, 0} : SourceLoc{file, m.line + 1, m.column + 1};
}

const std::vector<std::string>& model_keys() {
  static const std::vector<std::string> keys{"id",
                                             "name",
                                             "layers",
                                             "hiddenSize",
                                             "attentionHeads",
                                             "kvHeads",
                                             "headDim",
                                             "intermediateSize",
                                             "vocabSize",
                                             "experts",
                                             "activeExperts",
                                             "tiedEmbeddings",
                                             "qkvBias",
                                             "parameters",
                                             "activeParameters",
                                             "source"};
  return keys;
}

// Reads one model entry; false (with diagnostics) when a field is missing, of the wrong type or out of range.
class EntryReader {
 public:
  EntryReader(YAML::Node node, std::string file, std::string path, Diagnostics& diags)
      : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), diags_(diags) {}

  bool ok() const { return ok_; }

  void check_keys() {
    for (const auto& kv : node_) {
      const std::string key = kv.first.Scalar();
      if (!contains(model_keys(), key)) fail(kv.first, key, "unknown field" + suggest(key, model_keys()));
    }
  }
  std::string text(const std::string& key, bool required) {
    const YAML::Node n = node_[key];
    if (!n) {
      if (required) fail(node_, key, "required field is missing");
      return "";
    }
    if (!n.IsScalar() || n.Scalar().empty()) fail(n, key, "expected a non-empty string");
    return n.IsScalar() ? n.Scalar() : "";
  }
  int integer(const std::string& key, int min, int max, bool required, int fallback = 0) {
    const double v = number(key, min, max, required, fallback);
    if (std::floor(v) != v) fail(node_[key], key, "expected an integer");
    return static_cast<int>(v);
  }
  double number(const std::string& key, double min, double max, bool required, double fallback = 0) {
    const YAML::Node n = node_[key];
    if (!n) {
      if (required) fail(node_, key, "required field is missing");
      return fallback;
    }
    char* end = nullptr;
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v) || v < min || v > max) {
      fail(
          n, key,
          "expected a number in [" + format_printf("%g", min) + ", " + format_printf("%g", max) + "], got '" + s + "'");
      return fallback;
    }
    return v;
  }
  bool flag(const std::string& key) {
    const YAML::Node n = node_[key];
    if (!n) return false;
    if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false")) fail(n, key, "expected true or false");
    return n.IsScalar() && n.Scalar() == "true";
  }
  void fail(const YAML::Node& at, const std::string& key, const std::string& message) {
    diags_.error(loc_of(file_, at), path_ + "." + key, message);
    ok_ = false;
  }

 private:
  YAML::Node node_;
  std::string file_, path_;
  Diagnostics& diags_;
  bool ok_ = true;
};

std::optional<ModelArchitecture> read_model(const YAML::Node& node, const std::string& file, const std::string& path,
                                            Diagnostics& diags) {
  if (!node.IsMap()) {
    diags.error(loc_of(file, node), path, "expected a mapping (id, layers, hiddenSize, ...)");
    return std::nullopt;
  }
  EntryReader r(node, file, path, diags);
  r.check_keys();
  ModelArchitecture m;
  m.loc = loc_of(file, node);
  m.id = r.text("id", true);
  m.name = r.text("name", false);
  if (m.name.empty()) m.name = m.id;
  m.layers = r.integer("layers", 1, 1000, true);
  m.hidden_size = r.integer("hiddenSize", 64, 1 << 20, true);
  m.attention_heads = r.integer("attentionHeads", 1, 4096, true);
  m.kv_heads = r.integer("kvHeads", 1, 4096, true);
  m.head_dim = r.integer("headDim", 8, 4096, true);
  m.intermediate_size = r.integer("intermediateSize", 64, 1 << 22, true);
  m.vocab_size = r.integer("vocabSize", 2, 1 << 24, true);
  m.experts = r.integer("experts", 1, 1024, false, 1);
  m.active_experts = r.integer("activeExperts", 1, 1024, false, m.experts == 1 ? 1 : 2);
  m.tied_embeddings = r.flag("tiedEmbeddings");
  m.qkv_bias = r.flag("qkvBias");
  m.published_parameters = r.number("parameters", 1e6, 1e14, true);
  m.published_active_parameters = r.number("activeParameters", 1e6, 1e14, false, 0);
  m.source = r.text("source", true);
  if (!r.ok()) return std::nullopt;
  // Shapes that no checkpoint has: KV heads must divide the attention heads (each KV head serves a group).
  if (m.kv_heads > m.attention_heads || m.attention_heads % m.kv_heads != 0) {
    r.fail(node["kvHeads"], "kvHeads",
           "must divide attentionHeads (" + std::to_string(m.attention_heads) + "), got " + std::to_string(m.kv_heads));
  }
  if (m.active_experts > m.experts) {
    r.fail(node["activeExperts"], "activeExperts",
           "must not exceed experts (" + std::to_string(m.experts) + "), got " + std::to_string(m.active_experts));
  }
  if (!r.ok()) return std::nullopt;
  return m;
}

}  // namespace

std::optional<ModelCatalogue> load_model_catalogue_text(const std::string& text, const std::string& file,
                                                        Diagnostics& diags) {
  if (!check_yaml_item_count(text, file, diags)) return std::nullopt;
  YAML::Node root;
  try {
    const auto docs = load_all_documents(text);
    if (docs.size() != 1) {
      diags.error(SourceLoc{file, 1, 1}, "", "expected one YAML document, found " + std::to_string(docs.size()));
      return std::nullopt;
    }
    root = docs.front();
  } catch (const YAML::Exception& e) {
    diags.error(SourceLoc{file, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax: " + e.msg);
    return std::nullopt;
  }
  if (!root.IsMap() || !root["kind"] || !root["kind"].IsScalar() || root["kind"].Scalar() != "ModelCatalogue") {
    diags.error(loc_of(file, root), "kind", "expected 'kind: ModelCatalogue'");
    return std::nullopt;
  }
  const YAML::Node models = root["models"];
  if (!models || !models.IsSequence() || models.size() == 0) {
    diags.error(loc_of(file, models ? models : root), "models", "expected a non-empty list of models");
    return std::nullopt;
  }
  ModelCatalogue out;
  out.file = file;
  std::set<std::string> seen;
  bool ok = true;
  for (size_t i = 0; i < models.size(); ++i) {
    const std::string path = "models[" + std::to_string(i) + "]";
    auto m = read_model(models[i], file, path, diags);
    if (!m) {
      ok = false;
      continue;
    }
    if (!seen.insert(m->id).second) {
      diags.error(m->loc, path + ".id", "model '" + m->id + "' is listed twice");
      ok = false;
      continue;
    }
    out.models.push_back(std::move(*m));
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<ModelCatalogue> load_model_catalogue(const std::string& path, Diagnostics& diags) {
  const auto text = read_input_file(path, InputKind::PROFILE, diags);
  if (!text) return std::nullopt;
  return load_model_catalogue_text(*text, path, diags);
}

}  // namespace gtw
