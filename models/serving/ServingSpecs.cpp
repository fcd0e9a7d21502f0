#include "ServingSpecs.hpp"

#include <algorithm>

#include "EngineOverhead.hpp"
#include "ModelCatalogue.hpp"
#include "Text.hpp"

namespace gtw::serving {

ModelArchitecture architecture_of(const ModelSpec& m, const std::string& name) {
  ModelArchitecture a;
  a.id = m.id.empty() ? name : m.id;
  a.name = a.id;
  a.layers = m.layers;
  a.hidden_size = m.shape.hidden_size;
  a.intermediate_size = m.shape.intermediate_size;
  a.attention_heads = m.shape.attention_heads;
  a.kv_heads = m.shape.kv_heads;
  a.head_dim = m.shape.head_dim;
  a.vocab_size = m.shape.vocab_size;
  a.experts = m.shape.experts;
  a.active_experts = m.shape.active_experts;
  a.tied_embeddings = m.shape.tied_embeddings;
  a.qkv_bias = m.shape.qkv_bias;
  return a;
}

void fill_from_catalogue(ModelSpec& m, const ModelArchitecture& e) {
  m.shape.hidden_size = e.hidden_size;
  m.shape.intermediate_size = e.intermediate_size;
  m.shape.attention_heads = e.attention_heads;
  m.shape.kv_heads = e.kv_heads;
  m.shape.head_dim = e.head_dim;
  m.shape.vocab_size = e.vocab_size;
  m.shape.experts = e.experts;
  m.shape.active_experts = e.active_experts;
  m.shape.tied_embeddings = e.tied_embeddings;
  m.shape.qkv_bias = e.qkv_bias;
  if (m.layers == 0) m.layers = e.layers;
}

void resolve_models(ScenarioSpec& spec, Diagnostics& diags) {
  std::optional<ModelCatalogue> catalogue;
  bool tried = false;
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    auto& w = spec.workloads[i];
    if (w.kind != WorkloadKind::INFERENCE) continue;
    if (!w.model.id.empty()) {
      if (!tried) {
        tried = true;
        catalogue = load_model_catalogue(default_model_catalogue_path(), diags);
      }
      if (!catalogue) return;  // the catalogue's own errors are reported
      const ModelArchitecture* e = catalogue->find(w.model.id);
      if (!e) {
        diags.error(w.model.id_loc, "spec.workloads[" + std::to_string(i) + "].model.id",
                    "no model '" + w.model.id + "' in the catalogue " + catalogue->file +
                        "; valid: " + join(catalogue->ids(), ", "));
        continue;
      }
      fill_from_catalogue(w.model, *e);
    }
    if (w.model.has_shape() && w.model.parameters <= 0)
      w.model.parameters = architecture_of(w.model, w.name).parameters();
  }
  resolve_engines(spec, diags);
}

void resolve_engines(ScenarioSpec& spec, Diagnostics& diags) {
  std::optional<std::map<std::string, EngineOverhead>> engines;
  bool tried = false;
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    auto& s = spec.workloads[i].serving;
    if (!spec.workloads[i].continuous() || s.engine == "none") continue;
    if (!tried) {
      tried = true;
      engines = load_engine_overheads(default_engine_overhead_path(), diags);
    }
    if (!engines) return;
    const auto it = engines->find(s.engine);
    if (it == engines->end()) {
      std::vector<std::string> names{"none"};
      for (const auto& [name, e] : *engines) names.push_back(name);
      diags.error(s.engine_loc.line > 0 ? s.engine_loc : spec.workloads[i].loc,
                  "spec.workloads[" + std::to_string(i) + "].batching.engine",
                  "no serving engine family '" + s.engine + "'; valid: " + join(names, ", "));
      continue;
    }
    s.step_overhead_s = it->second.step_overhead_s;
    s.gpu_time_share = it->second.gpu_share;
    s.step_overhead_source = it->second.source;
  }
}

ServingConfig step_config(const WorkloadSpec& w) {
  ServingConfig c;
  c.tp = std::max(1, w.serving.tensor_parallel);
  c.pp = std::max(1, w.serving.pipeline_parallel);
  c.weights = w.model.dtype;
  c.kv_bytes_per_value = w.serving.kv_fp8 ? 1 : 2;
  c.gpu_memory_utilization = w.serving.gpu_memory_utilization;
  c.workspace_bytes = w.serving.workspace.value;
  c.block_size = w.serving.block_size;
  c.gpu_time_share = w.serving.gpu_time_share;
  return c;
}

BatcherConfig batcher_config(const WorkloadSpec& w, const KvCapacity& kv, int block_size) {
  BatcherConfig b;
  b.max_num_seqs = w.serving.max_num_seqs;
  b.max_num_batched_tokens = w.serving.max_num_batched_tokens;
  b.chunked_prefill = w.serving.chunked_prefill;
  b.order = w.serving.priority_order ? AdmissionOrder::PRIORITY : AdmissionOrder::FCFS;
  b.preemption = w.serving.swap_preemption ? Preemption::SWAP : Preemption::RECOMPUTE;
  b.prefix_hit_ratio = w.serving.prefix_hit_ratio;
  b.kv_blocks = kv.blocks;
  b.block_size = block_size;
  b.kv_bytes_per_token_per_gpu = kv.kv_bytes_per_token_per_gpu;
  return b;
}

double reservation_bytes(const WorkloadSpec& w, double partition_memory) {
  if (w.memory.value > 0) return w.memory.value;
  return w.serving.gpu_memory_utilization * partition_memory;
}

double minimum_bytes(const WorkloadSpec& w) {
  const ServingConfig c = step_config(w);
  const ModelArchitecture a = architecture_of(w.model, w.name);
  const double shard = a.parameters() * dtype_bytes(c.weights) / (c.tp * c.pp);
  const double kv_token = a.kv_bytes_per_token(c.kv_bytes_per_value) / (c.pp * std::min(c.tp, std::max(1, a.kv_heads)));
  const double tokens = static_cast<double>(w.prompt_tokens) + w.output_tokens;
  return shard + c.workspace_bytes + kv_token * tokens;
}

}  // namespace gtw::serving
