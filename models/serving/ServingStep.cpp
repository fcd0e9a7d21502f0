#include "ServingStep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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

// HBM bytes of the memory-bound kernels of one token through the layers of one stage, per GPU of the group,
// with 16-bit activations: two fused residual-add + RMSNorms (each reads the hidden state and the residual
// and writes both: 4 hidden values; not sharded: every GPU normalises the whole hidden state after the
// all-reduce), rotary embedding of the GPU's query and key heads (read and write), the SwiGLU activation of
// each routed expert (reads gate and up, writes their product), and with FP8 weights the quantisation of
// each GEMM's input (reads 16 bits, writes 8). Unfused kernels, as vLLM runs them; engines that fuse them
// into GEMM epilogues or attention move fewer bytes.
double elementwise_bytes_per_token(const ModelArchitecture& m, const ServingConfig& c) {
  const int tp = std::max(1, c.tp);
  const double h = m.hidden_size;
  const double q = static_cast<double>(m.attention_heads) / tp * m.head_dim;
  const double k = kv_heads_per_gpu(m, tp) * m.head_dim;
  const double ffn = static_cast<double>(m.intermediate_size) / tp * m.active_experts;
  constexpr double activation = 2;  // bytes per 16-bit value
  double per_layer = (2 * 4 * h + 2 * (q + k) + 3 * ffn) * activation;
  if (c.weights == DType::FP8) per_layer += (h + q + h + ffn) * (activation + 1);
  return per_layer * m.layers / std::max(1, c.pp);
}

// Bytes the sampler moves per sampled sequence: the output head writes the logits in FP32 over the whole
// vocabulary (gathered from the group) and the sampler reads them once. On the last stage only.
double logit_bytes_per_sample(const ModelArchitecture& m) {
  return 2.0 * 4.0 * m.vocab_size;
}

}  // namespace

StepBatch& StepBatch::add_decode(double context, double sequences) {
  decode_tokens += sequences;
  sampled += sequences;
  attended_tokens += sequences * context;
  kv_read_tokens += sequences * context;
  return *this;
}

StepBatch& StepBatch::add_prefill(double tokens, double cached, bool completes_prompt, double query_tile) {
  prefill_tokens += tokens;
  if (completes_prompt && tokens > 0) sampled += 1;
  attended_tokens += tokens * cached + tokens * (tokens + 1) / 2;
  kv_read_tokens += std::ceil(tokens / std::max(1.0, query_tile)) * (cached + tokens / 2);
  return *this;
}

double all_reduce_time(double bytes, int tp, double link_bandwidth, const RingModel& ring) {
  if (tp <= 1 || bytes <= 0) return 0;
  const double steps = 2.0 * (tp - 1);
  const double moved = steps / tp * bytes;  // through each GPU's link
  double best = std::numeric_limits<double>::infinity();
  for (int p = 0; p < 3; ++p)
    best = std::min(
        best, ring.base_latency[p] + steps * ring.step_latency[p] + moved / (ring.efficiency[p] * link_bandwidth));
  return best;
}

double all_reduce_latency(double bytes, int tp, double link_bandwidth, const RingModel& ring) {
  if (tp <= 1 || bytes <= 0) return 0;
  return all_reduce_time(bytes, tp, link_bandwidth, ring) - 2.0 * (tp - 1) / tp * bytes / link_bandwidth;
}

double send_time(double bytes, double link_bandwidth, const RingModel& ring) {
  if (bytes <= 0) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (int p = 0; p < 3; ++p)
    best = std::min(best, ring.base_latency[p] + ring.step_latency[p] + bytes / (ring.efficiency[p] * link_bandwidth));
  return best;
}

StepCost step_cost(const ModelArchitecture& m, const HardwareProfile& gpu, const ServingConfig& c, const StepBatch& b) {
  StepCost s;
  const double tokens = b.decode_tokens + b.prefill_tokens;
  const int tp = std::max(1, c.tp);
  const int pp = std::max(1, c.pp);
  // The output head computes only for the sequences that sample (engines gather their last hidden state).
  const double gemm_flops = (tokens * m.body_matrix_flops_per_token() + b.sampled * m.output_head_flops()) / (tp * pp);
  const double attention_flops = m.attention_flops_per_token(b.attended_tokens) / (tp * pp);
  s.flops = gemm_flops + attention_flops;
  const double kv_token = kv_bytes_per_token_per_gpu(m, c);
  const double weight_bytes = weight_bytes_read(m, c, tokens);
  const double kv_bytes = b.kv_read_tokens * kv_token + tokens * kv_token;
  s.bytes = weight_bytes + kv_bytes;
  s.gemm_flops = gemm_flops;
  s.gemm_bytes = weight_bytes;
  s.attention_flops = attention_flops;
  s.attention_bytes = kv_bytes;
  const double rate = gpu.achievable_rate(c.weights).value;
  // Attention kernels (FlashAttention) compute in 16 bits whatever the weights' precision.
  const double attention_rate = gpu.achievable_rate(DType::FP16).value;
  const double hbm = gpu.hbm_achievable.value;
  // Per GPU of one stage; the stages run one after the other.
  s.compute_s = pp * s.flops / rate;
  s.memory_s = pp * s.bytes / hbm;
  s.gemm_s = pp * std::max(gemm_flops / rate, weight_bytes / hbm);
  s.attention_s = pp * std::max(attention_flops / attention_rate, kv_bytes / hbm);
  s.elementwise_bytes = tokens * elementwise_bytes_per_token(m, c) + b.sampled * logit_bytes_per_sample(m) / pp;
  s.elementwise_s = pp * s.elementwise_bytes / hbm;
  s.bytes += s.elementwise_bytes;
  s.memory_s = pp * s.bytes / hbm;
  const double buffer = tokens * m.hidden_size * 2.0;  // the step's activations in 16 bits
  const double link = gpu.peer_achievable(tp);
  // Two all-reduces per layer (after attention and after the feed-forward) in each stage.
  if (tp > 1 && tokens > 0) s.communication_s = 2.0 * m.layers * all_reduce_time(buffer, tp, link);
  if (pp > 1 && tokens > 0) s.communication_s += (pp - 1) * send_time(buffer / tp, link);
  s.total_s =
      (s.gemm_s + s.attention_s + s.elementwise_s + s.communication_s) / std::clamp(c.gpu_time_share, 1e-3, 1.0);
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
