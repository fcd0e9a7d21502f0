#pragma once
// The scheduler of an LLM server with iteration-level (continuous) batching and a paged KV cache, as
// vLLM, TensorRT-LLM and SGLang run it (docs/models/serving.md). Each engine step runs one token of every
// running sequence that is decoding plus prompt tokens of sequences being prefilled, within a token
// budget (maxNumBatchedTokens) and a sequence limit (maxNumSeqs); chunked prefill (Sarathi-Serve) lets a
// long prompt share steps with decodes, without it a step is all prefill or all decode (vLLM v0). KV
// memory is allocated in blocks of `block_size` tokens as sequences grow; when a growing sequence finds
// no free block the most recently admitted one is preempted (recompute: its KV is dropped and recomputed
// as a prefill when it resumes; swap: its KV is copied to host memory and back).
//
// SimGrid-free and time-agnostic: the caller plans a step, runs it (on the SimGrid GPU model, or at its
// roofline in `gputwin serving`), and completes it at the time it ended. One plan may stand for several
// identical decode steps (a run of steps in which no sequence starts, ends, is preempted or is admitted),
// so a simulated hour of decoding costs one plan per change of the batch, not one per token.
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "ServingStep.hpp"

namespace gtw::serving {

enum class AdmissionOrder { FCFS, PRIORITY };  // priority: lower value first, then arrival
enum class Preemption { RECOMPUTE, SWAP };

struct BatcherConfig {
  int max_num_seqs = 256;             // running sequences at most (vLLM's default)
  int max_num_batched_tokens = 8192;  // tokens per step (vLLM v1's default with chunked prefill)
  bool chunked_prefill = true;        // prompts may be split across steps, decodes first
  AdmissionOrder order = AdmissionOrder::FCFS;
  Preemption preemption = Preemption::RECOMPUTE;
  double prefix_hit_ratio = 0;  // share of each prompt found in the prefix cache (whole blocks)
  // Admission that never preempts (TensorRT-LLM's GUARANTEED_NO_EVICT capacity scheduler): a sequence is
  // admitted only when the blocks of its whole final KV (prompt and every output token) are free, and
  // holds them from admission on.
  bool reserve_whole_sequence = false;
  long long kv_blocks = 0;                // the group's KV blocks
  int block_size = 16;                    // tokens per block
  double kv_bytes_per_token_per_gpu = 0;  // for swap traffic
};

struct SequenceRequest {
  uint64_t id = 0;
  double arrival = 0;
  int prompt_tokens = 1;
  int output_tokens = 1;
  int priority = 0;
};

/// One planned step (or `steps` identical decode steps). `batch` is the work of one step; for a run of
/// decode steps its contexts are the run's mean, so steps x step_cost(batch) is the run's cost.
struct StepPlan {
  int steps = 0;  // 0: nothing to run
  StepBatch batch;
  int decode_sequences = 0;
  int prefill_tokens = 0;          // of one step
  int preempted = 0;               // sequences preempted while planning this step
  double swap_out_bytes = 0;       // per GPU, KV copied to host before the step (swap preemption)
  double swap_in_bytes = 0;        // per GPU, KV copied back before the step
  std::vector<uint64_t> admitted;  // sequences that entered the running set in this step (first time)
};

/// What a completed plan produced for one request.
struct Completion {
  SequenceRequest request;
  double first_token = 0;  // time its first output token was produced
  double scheduled = 0;    // time its first step started (queueing = scheduled - arrival)
  double done = 0;
  int preemptions = 0;
};

/// The gaps between consecutive output tokens of every request, as a streaming client sees them (the ITL of
/// benchmark_serving and genai-perf: every gap of every request, not a per-request mean). A run of k decode
/// steps over [start, end] gives each of its sequences one gap from its previous token to the end of the run's
/// first step and k - 1 gaps of one step; a gap that spans a preemption or a prefill step the decodes waited
/// for is one long gap, as the client sees it. Kept as (gap, count) runs, so a run costs two entries per
/// sequence whatever its length.
/// numpy's default percentile (0-100; linear between order statistics) of `n` values in ascending order, the
/// k-th (0-based) read by `at(k)`: what benchmark_serving reports. 0 when n is 0. One formula for the serving
/// metrics, whether the values are listed one by one or kept as runs (TokenGaps).
double interpolated_percentile(long long n, double p, const std::function<double(long long)>& at);

struct TokenGaps {
  std::vector<std::pair<double, long long>> runs;  // (seconds, how many gaps of that length)

  void add(double seconds, long long count);
  long long count() const;
  double mean() const;
  /// The p-th percentile (0-100) of the gaps, interpolated between order statistics as numpy's default:
  /// the same value as over the expanded list of every gap. 0 when there is no gap.
  double percentile(double p) const;
};

struct BatcherStats {
  long long steps = 0;          // engine steps (a run of k decode steps counts k)
  long long plans = 0;          // plans run (what the simulation paid for)
  double prefill_tokens = 0;    // prompt tokens computed (recomputation included)
  double generated_tokens = 0;  // output tokens produced
  long long preemptions = 0;
  double swapped_bytes = 0;   // per GPU, out and in
  long long peak_blocks = 0;  // most KV blocks in use at once
  double block_seconds = 0;   // integral of the blocks in use over time
  double busy_seconds = 0;    // time with a step running
};

class ContinuousBatcher {
 public:
  explicit ContinuousBatcher(BatcherConfig config);

  void enqueue(const SequenceRequest& request);
  /// A request whose prompt was prefilled elsewhere and whose first token is out (disaggregated serving):
  /// its prompt's KV arrives with it; it waits for blocks like any request, then decodes.
  void enqueue_prefilled(const SequenceRequest& request);
  /// Plans the next step at time `now`: admits waiting sequences in order, allocates their blocks,
  /// preempts when blocks run out. A pure decode step may stand for up to `max_steps` identical steps.
  /// Returns steps == 0 when nothing can run (no sequence, or none fits the cache).
  StepPlan plan(double now, int max_steps = 1);
  /// Cuts a run of decode steps to `steps` (>= 1), giving back the blocks the rest had reserved: for a run
  /// that would pass the next arrival, which must be admitted at the step after it.
  void shorten(StepPlan& plan, int steps);
  /// The plan ran from `start` to `end`: advances every scheduled sequence and returns those that ended.
  /// With `gaps`, also records the gaps between each sequence's output tokens (TokenGaps).
  std::vector<Completion> complete(const StepPlan& plan, double start, double end, TokenGaps* gaps = nullptr);
  /// Every sequence still held (running, swapped, waiting), in that order; the batcher is then empty.
  std::vector<SequenceRequest> drain();

  bool idle() const { return running_.empty() && swapped_.empty() && waiting_.empty(); }
  size_t waiting() const { return waiting_.size(); }
  size_t running() const { return running_.size(); }
  size_t in_flight() const { return running_.size() + swapped_.size() + waiting_.size(); }
  long long free_blocks() const { return config_.kv_blocks - used_blocks_; }
  long long used_blocks() const { return used_blocks_; }
  const BatcherConfig& config() const { return config_; }
  const BatcherStats& stats() const { return stats_; }

  /// Blocks a sequence of `tokens` KV tokens holds.
  long long blocks_for(long long tokens) const;

 private:
  struct Sequence {
    SequenceRequest request;
    long long kv = 0;       // tokens whose KV is stored (on the GPU, or on the host while swapped)
    int generated = 0;      // output tokens produced
    long long blocks = 0;   // blocks held on the GPU
    int scheduled_now = 0;  // tokens scheduled in the current plan
    double first_token = -1;
    double last_token = -1;  // time of its latest output token (-1: none here yet)
    double scheduled = -1;
    int preemptions = 0;
    bool started = false;  // has run at least one step (admitted once)
    /// KV tokens it must hold before its next output token: the prompt and every output token but the last.
    long long target() const { return request.prompt_tokens + generated; }
    long long need() const { return target() - kv; }
  };

  bool admit_before(const Sequence& a, const Sequence& b) const;
  void insert_waiting(Sequence s, bool front);
  bool grow(Sequence& s, long long tokens, StepPlan& plan);
  void preempt(Sequence& victim, StepPlan& plan);
  bool schedule_running(StepPlan& plan, int& budget);
  void resume_swapped(StepPlan& plan, int& budget);
  void admit_waiting(StepPlan& plan, int& budget, bool whole_prompts_only);
  int decode_run_length(int max_steps) const;
  void reserve_run(StepPlan& plan, int steps);

  BatcherConfig config_;
  std::vector<Sequence> running_;  // in admission order: the last is preempted first
  std::deque<Sequence> swapped_;
  std::deque<Sequence> waiting_;
  long long used_blocks_ = 0;
  BatcherStats stats_;
};

}  // namespace gtw::serving
