#pragma once
// The model catalogue: transformer architectures of the models tenants serve (Llama 2/3.1, Mixtral,
// Qwen2.5), read from calibration/models/llm.yaml (or $GPUTWIN_MODEL_CATALOGUE), with their sources.
// From the shapes follow what a serving model needs: the parameter count (checked against the published
// total), the parameters active per token (mixture of experts), the KV-cache bytes per token (GQA/MQA:
// KV heads, not attention heads) and the matrix FLOPs per token. SimGrid-free (models/hardware).
#include <optional>
#include <string>
#include <vector>

#include "Diagnostics.hpp"

namespace gtw {

struct ModelArchitecture {
  std::string id;  // llama-3.1-8b
  std::string name;
  int layers = 0;
  int hidden_size = 0;
  int attention_heads = 0;
  int kv_heads = 0;  // < attention_heads: grouped-query attention; 1: multi-query
  int head_dim = 0;
  int intermediate_size = 0;  // per expert for a mixture of experts
  int vocab_size = 0;
  int experts = 1;         // feed-forward experts per layer (1: dense)
  int active_experts = 1;  // experts each token is routed to
  bool tied_embeddings = false;
  bool qkv_bias = false;
  double published_parameters = 0;         // the model card's total
  double published_active_parameters = 0;  // mixture of experts: per token (0: not given)
  std::string source;
  SourceLoc loc;

  /// Parameters derived from the shapes: embeddings (and an untied output head), per layer the
  /// attention projections (+ QKV biases), the SwiGLU feed-forward of every expert (+ the router), the
  /// norms.
  double parameters() const;
  /// The same counting only the experts a token is routed to: what each token's GEMMs read and compute.
  double active_parameters() const;
  /// Bytes of KV cache one token occupies: K and V, per layer, per KV head, head_dim values.
  double kv_bytes_per_token(double bytes_per_value) const;
  /// Matrix FLOPs of one token through the model, excluding attention over the context: 2 x the active
  /// parameters (a multiply-add per weight) less the input embedding, which is a lookup; the output head
  /// counts whether or not its weights are tied to the embedding.
  double matrix_flops_per_token() const { return body_matrix_flops_per_token() + output_head_flops(); }
  /// The same through the layers only (no embedding, no output head): what every token computes.
  double body_matrix_flops_per_token() const;
  /// The output head of one token: hidden size x vocabulary multiply-adds (the logits).
  double output_head_flops() const { return 2.0 * vocab_size * static_cast<double>(hidden_size); }
  /// Attention FLOPs of one token over a context of `context` tokens (QK^T and the weighted sum of V).
  double attention_flops_per_token(double context) const;
};

struct ModelCatalogue {
  std::vector<ModelArchitecture> models;  // in file order
  std::string file;

  const ModelArchitecture* find(const std::string& id) const;
  std::vector<std::string> ids() const;
};

/// $GPUTWIN_MODEL_CATALOGUE, else the source tree's calibration/models/llm.yaml.
std::string default_model_catalogue_path();

/// Reads a catalogue; every problem is a located diagnostic (file:line:col, the field, what was expected).
std::optional<ModelCatalogue> load_model_catalogue(const std::string& path, Diagnostics& diags);
std::optional<ModelCatalogue> load_model_catalogue_text(const std::string& text, const std::string& file,
                                                        Diagnostics& diags);

}  // namespace gtw
