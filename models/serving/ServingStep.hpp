#pragma once
// The cost of one engine step of an LLM server with iteration-level batching (Orca, vLLM): the decode
// tokens of the running sequences plus the prefill tokens admitted this step, on a tensor-parallel group
// of `tp` GPUs. A step reads the weights once (per GPU: its shard; a mixture of experts reads the experts
// its tokens are routed to), reads the KV cache of every token attended and writes the new tokens' KV,
// computes 2 FLOPs per active weight per token plus attention over the context, and all-reduces the
// activations twice per layer across the group. Its time on one GPU of the group is the sum of the roofline
// of each kind of kernel, which run one after the other and do not overlap: the GEMMs (max of their FLOPs
// at the weights' tensor rate and the weight reads; the output head only for the sequences that sample),
// attention (max of its FLOPs at the 16-bit rate and the KV reads and writes), and the memory-bound kernels
// between them (residual adds and RMSNorms, rotary embedding, the SwiGLU activation, FP8 quantisation of
// GEMM inputs, the logits the sampler reads: their bytes at the HBM bandwidth); plus the all-reduces,
// priced by NCCL's own ring cost model (per-protocol base latency, a latency per ring step, the protocol's
// share of the link bandwidth). With pipeline stages a step passes through them in turn (no micro-batch
// overlap): pp times one stage plus the activations handed on.
// And how much KV cache fits.
// The continuous batcher (ContinuousBatcher.hpp) plans the steps; this prices them.
// SimGrid-free (models/hardware); the parameters it assumes are named in ServingConfig.
#include "HardwareProfile.hpp"
#include "ModelCatalogue.hpp"

namespace gtw {

struct ServingConfig {
  int tp = 1;                           // tensor-parallel GPUs (one node)
  int pp = 1;                           // pipeline stages (each tp GPUs, layers split evenly)
  DType weights = DType::FP16;          // weight precision (FP8: weights and GEMMs in FP8)
  double kv_bytes_per_value = 2;        // 2: FP16/BF16 KV cache, 1: FP8 KV cache
  double gpu_memory_utilization = 0.9;  // share of each GPU's memory the server may use (vLLM's default)
  double workspace_bytes = 0;           // activations and workspace kept per GPU beside weights and KV (assumed)
  int block_size = 16;                  // tokens per KV block (vLLM's default)
  // Host time proportional to GPU time: a step takes its GPU time / gpu_time_share (1: none). For engines
  // whose host work is published as a share of the run (vLLM before v0.6: 38 % on the GPU, serving-targets
  // T080); the additive per-step overhead is EngineSetup::step_overhead_s.
  double gpu_time_share = 1;
};

/// NCCL's ring cost model (NVIDIA/nccl src/graph/tuning.cc, NVLink, ring algorithm): for each protocol
/// (LL, LL128, Simple) time = base latency + 2 (tp - 1) ring steps x a latency per step + the ring's bytes
/// per GPU, 2 (tp - 1) / tp x the buffer, at the protocol's share of the link bandwidth; NCCL runs the
/// fastest protocol for the size. Small messages are latency-bound (LL: ~15 us on 8 GPUs), large ones reach
/// the link bandwidth less LL128's flag overhead.
struct RingModel {
  double base_latency[3] = {6.6e-6, 14.0e-6, 8.4e-6};  // s, LL / LL128 / Simple (NCCL tuning.cc baseLat, ring)
  double step_latency[3] = {0.6e-6, 1.9e-6, 3.4e-6};   // s per ring step on NVLink (tuning.cc hwLat NVLINK ring)
  double efficiency[3] = {0.5, 120.0 / 128.0, 1.0};    // payload share: LL 8 data bytes of 16, LL128 120 of 128
};

/// One ring all-reduce of `bytes` over `tp` GPUs whose links move `link_bandwidth` bytes/s each way: the
/// fastest protocol of RingModel. 0 for tp <= 1.
double all_reduce_time(double bytes, int tp, double link_bandwidth, const RingModel& ring = {});
/// What all_reduce_time adds to the ring's bytes at the link bandwidth (2 (tp-1)/tp x bytes / bandwidth): the
/// latencies and the protocol's bandwidth loss. The cluster simulation moves the bytes on its modelled links
/// and sleeps this.
double all_reduce_latency(double bytes, int tp, double link_bandwidth, const RingModel& ring = {});
/// One point-to-point send of `bytes` between pipeline stages (one ring step of the fastest protocol).
double send_time(double bytes, double link_bandwidth, const RingModel& ring = {});

/// What one step runs: `decode_tokens` sequences each producing one token, `prefill_tokens` prompt tokens
/// (one or several prompts, whole or a chunk); `attended_tokens` = the sum over all the step's tokens of the
/// context each attends to (attention FLOPs), `kv_read_tokens` = the KV entries read from HBM, `sampled` =
/// the sequences that produce a token this step (every decode, and a prompt whose last chunk runs): only
/// their last hidden state goes through the output head and the sampler. Build it with add_decode /
/// add_prefill.
struct StepBatch {
  double decode_tokens = 0;
  double prefill_tokens = 0;
  double attended_tokens = 0;
  double kv_read_tokens = 0;
  double sampled = 0;

  /// A sequence of `context` tokens producing its next one: it attends and reads its whole cache.
  StepBatch& add_decode(double context, double sequences = 1);
  /// A causal prefill of `tokens` new tokens after `cached` ones: it attends tokens*cached + tokens*(tokens+1)/2
  /// entries; fused attention (FlashAttention) reads the keys and values once per tile of `query_tile` queries,
  /// so the HBM reads are ceil(tokens / query_tile) passes over the cached prefix and half the chunk.
  /// `completes_prompt`: this chunk ends the prompt, so the sequence samples its first token.
  StepBatch& add_prefill(double tokens, double cached = 0, bool completes_prompt = true, double query_tile = 128);
};

struct StepCost {
  double flops = 0;                                 // per GPU of the group
  double bytes = 0;                                 // HBM bytes per GPU
  double gemm_flops = 0, gemm_bytes = 0;            // of which the GEMMs (weights)
  double attention_flops = 0, attention_bytes = 0;  // and attention (KV cache)
  double elementwise_bytes = 0;                     // norms, rotary, activation, quantisation, logits
  double compute_s = 0;                             // flops / achievable tensor rate
  double memory_s = 0;                              // bytes / achievable HBM bandwidth
  double gemm_s = 0;                                // the GEMMs: max(their FLOPs / weights' rate, weight bytes / HBM)
  double attention_s = 0;                           // attention: max(its FLOPs / 16-bit rate, KV bytes / HBM)
  double elementwise_s = 0;                         // the memory-bound kernels between them: bytes / HBM
  double communication_s = 0;                       // tensor-parallel all-reduces (and pipeline hand-offs)
  double total_s = 0;                               // (gemm + attention + elementwise + communication) / gpu_time_share
};

StepCost step_cost(const ModelArchitecture& model, const HardwareProfile& gpu, const ServingConfig& config,
                   const StepBatch& batch);

struct KvCapacity {
  double weights_per_gpu = 0;   // bytes of the weight shard
  double kv_bytes_per_gpu = 0;  // memory left for the KV cache on each GPU
  double kv_bytes_per_token_per_gpu = 0;
  long long blocks = 0;  // KV blocks the group holds (each block_size tokens of every layer)
  long long tokens = 0;  // blocks x block_size
  bool fits = false;     // the weights and workspace fit with room for at least one block
};

/// The paged KV cache of a tensor-parallel group of GPUs of `memory_per_gpu` bytes each: capacity =
/// memory x utilisation - weight shard - workspace, in blocks of `block_size` tokens. KV heads are sharded
/// across the group (replicated when the group is larger than the KV heads).
KvCapacity kv_capacity(const ModelArchitecture& model, double memory_per_gpu, const ServingConfig& config);

}  // namespace gtw
