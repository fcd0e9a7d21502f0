#include "ServingStep.hpp"

#include <algorithm>
#include <cmath>

namespace gtw {

namespace {

// KV heads each GPU of the group holds: a share of them, at least one (replicated beyond the KV heads).
double kv_heads_per_gpu(const ModelArchitecture& m, int tp) {
  return std::max(1.0, static_cast<double>(m.kv_heads) / tp);
}

double kv_bytes_per_token_per_gpu(const ModelArchitecture& m, const ServingConfig& c) {
  return 2.0 * m.layers * kv_heads_per_gpu(m, c.tp) * m.head_dim * c.kv_bytes_per_value / std::max(1, c.pp);
}

// Weight bytes one step reads per GPU: the dense part once, and of each layer's experts those that at
// least one of the step's tokens is routed to (expected count with uniform routing).
double weight_bytes_read(const ModelArchitecture& m, const ServingConfig& c, double tokens) {
  const double bytes = dtype_bytes(c.weights);
  const double expert = 3.0 * m.hidden_size * static_cast<double>(m.intermediate_size);
  const double all_experts = m.layers * m.experts * expert;
  const double dense = m.parameters() - all_experts;
  double touched = m.experts;
  if (m.experts > 1) {
    const double miss = 1.0 - static_cast<double>(m.active_experts) / m.experts;
    touched = m.experts * (1.0 - std::pow(miss, std::max(tokens, 1.0)));
  }
  return (dense + m.layers * touched * expert) * bytes / (c.tp * std::max(1, c.pp));
}

}  // namespace

StepBatch& StepBatch::add_decode(double context, double sequences) {
  decode_tokens += sequences;
  attended_tokens += sequences * context;
  kv_read_tokens += sequences * context;
  return *this;
}

StepBatch& StepBatch::add_prefill(double tokens, double cached, double query_tile) {
  prefill_tokens += tokens;
  attended_tokens += tokens * cached + tokens * (tokens + 1) / 2;
  kv_read_tokens += std::ceil(tokens / std::max(1.0, query_tile)) * (cached + tokens / 2);
  return *this;
}

StepCost step_cost(const ModelArchitecture& m, const HardwareProfile& gpu, const ServingConfig& c, const StepBatch& b) {
  StepCost s;
  const double tokens = b.decode_tokens + b.prefill_tokens;
  const int tp = std::max(1, c.tp);
  const int pp = std::max(1, c.pp);
  s.flops = (tokens * m.matrix_flops_per_token() + m.attention_flops_per_token(b.attended_tokens)) / (tp * pp);
  const double kv_token = kv_bytes_per_token_per_gpu(m, c);
  s.bytes = weight_bytes_read(m, c, tokens) + b.kv_read_tokens * kv_token + tokens * kv_token;
  // Per GPU of one stage; the stages run one after the other.
  s.compute_s = pp * s.flops / gpu.achievable_rate(c.weights).value;
  s.memory_s = pp * s.bytes / gpu.hbm_achievable.value;
  const double buffer = tokens * m.hidden_size * 2.0;  // the step's activations in 16 bits
  if (tp > 1 && tokens > 0) {
    // Two all-reduces per layer (after attention and after the feed-forward); a ring moves 2 (tp - 1) / tp
    // of the buffer through each GPU's link.
    const double per_all_reduce = 2.0 * (tp - 1) / tp * buffer / gpu.nvlink_achievable.value + c.all_reduce_latency;
    s.communication_s = 2.0 * m.layers * per_all_reduce;
  }
  if (pp > 1 && tokens > 0)
    s.communication_s += (pp - 1) * (buffer / tp / gpu.nvlink_achievable.value + c.all_reduce_latency);
  s.total_s = std::max(s.compute_s, s.memory_s) + s.communication_s;
  return s;
}

KvCapacity kv_capacity(const ModelArchitecture& m, double memory_per_gpu, const ServingConfig& c) {
  KvCapacity k;
  const int tp = std::max(1, c.tp);
  k.weights_per_gpu = m.parameters() * dtype_bytes(c.weights) / (tp * std::max(1, c.pp));
  k.kv_bytes_per_token_per_gpu = kv_bytes_per_token_per_gpu(m, c);
  k.kv_bytes_per_gpu = memory_per_gpu * c.gpu_memory_utilization - k.weights_per_gpu - c.workspace_bytes;
  const double block_bytes = k.kv_bytes_per_token_per_gpu * std::max(1, c.block_size);
  k.blocks = k.kv_bytes_per_gpu > 0 ? static_cast<long long>(std::floor(k.kv_bytes_per_gpu / block_bytes)) : 0;
  k.tokens = k.blocks * std::max(1, c.block_size);
  k.fits = k.blocks > 0;
  return k;
}

}  // namespace gtw
