// The continuous-batching scheduler and its paged KV cache (models/serving): analytic checks. Preemption
// happens exactly when the blocks run out; chunked prefill respects the token budget and lets decodes
// run beside a long prompt; without chunking a step is all prefill or all decode; a run of identical
// decode steps costs what its steps cost one by one; a lone request's TTFT is its prefill roofline and
// its TPOT the weights and KV over the HBM bandwidth; the gaps between tokens (ITL) are every gap, a run of
// steps giving those of its steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ContinuousBatcher.hpp"
#include "EngineOverhead.hpp"
#include "HardwareProfile.hpp"
#include "ModelCatalogue.hpp"
#include "ServingRun.hpp"

namespace gtw::serving {
namespace {

BatcherConfig small_cache(long long blocks) {
  BatcherConfig c;
  c.kv_blocks = blocks;
  c.block_size = 16;
  c.max_num_batched_tokens = 4096;
  c.kv_bytes_per_token_per_gpu = 1000;
  return c;
}

// Runs plans of one step each, 1 s per step, until the batcher is idle; returns the completions.
std::vector<Completion> run_unit_steps(ContinuousBatcher& b, int max_steps = 1,
                                       std::vector<StepPlan>* plans = nullptr) {
  std::vector<Completion> out;
  double t = 0;
  for (int guard = 0; !b.idle() && guard < 100000; ++guard) {
    auto p = b.plan(t, max_steps);
    if (plans) plans->push_back(p);
    EXPECT_GT(p.steps, 0);
    if (p.steps == 0) break;
    auto done = b.complete(p, t, t + p.steps);
    t += p.steps;
    out.insert(out.end(), done.begin(), done.end());
  }
  return out;
}

TEST(ContinuousBatcher, PreemptsExactlyWhenTheBlocksRunOut) {
  // 4 blocks of 16 tokens; two sequences of a 16-token prompt. Each holds 1 block after its prefill and
  // 2 once its KV passes 16 tokens; at 33 KV tokens each needs a third: the 5th block does not exist.
  ContinuousBatcher b(small_cache(4));
  b.enqueue({1, 0, 16, 40});
  b.enqueue({2, 0, 16, 40});
  double t = 0;
  int step = 0;
  for (; step < 100; ++step) {
    auto p = b.plan(t);
    ASSERT_GT(p.steps, 0);
    if (p.preempted > 0) break;
    EXPECT_LE(b.used_blocks(), 4);
    b.complete(p, t, t + 1);
    t += 1;
  }
  // Step 0 prefills both (KV 16 each, one token out); decode step k (1-based) writes KV token 16 + k.
  // KV 33 is written by decode step 17: the 18th plan, index 17.
  EXPECT_EQ(step, 17);
  EXPECT_EQ(b.running(), 1u);
  EXPECT_EQ(b.waiting(), 1u) << "recompute: the preempted sequence waits at the head";
  EXPECT_EQ(b.stats().preemptions, 1);
}

TEST(ContinuousBatcher, NoEvictAdmissionReservesTheWholeSequenceAndNeverPreempts) {
  // The preemption case above with TensorRT-LLM's no-evict admission: each sequence's final KV (16 + 39
  // tokens) needs all 4 blocks, so the second waits for the first instead of being preempted.
  auto c = small_cache(4);
  c.reserve_whole_sequence = true;
  ContinuousBatcher b(c);
  b.enqueue({1, 0, 16, 40});
  b.enqueue({2, 0, 16, 40});
  auto first = b.plan(0);
  EXPECT_EQ(first.admitted, (std::vector<uint64_t>{1}));
  EXPECT_EQ(b.used_blocks(), 4);
  b.complete(first, 0, 1);
  const auto done = run_unit_steps(b);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(b.stats().preemptions, 0);
  EXPECT_LT(done[0].done, done[1].first_token) << "one after the other";
}

TEST(ContinuousBatcher, NoPreemptionWhileTheCacheHoldsEveryone) {
  ContinuousBatcher b(small_cache(6));
  b.enqueue({1, 0, 16, 33});  // KV at most 16 + 32 = 48 tokens = 3 blocks
  b.enqueue({2, 0, 16, 33});
  const auto done = run_unit_steps(b);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(b.stats().preemptions, 0);
  EXPECT_EQ(b.stats().peak_blocks, 6);
  EXPECT_EQ(b.used_blocks(), 0) << "every block is returned";
}

TEST(ContinuousBatcher, SwapPreemptionMovesTheKvOutAndBack) {
  auto c = small_cache(4);
  c.preemption = Preemption::SWAP;
  ContinuousBatcher b(c);
  b.enqueue({1, 0, 16, 40});
  b.enqueue({2, 0, 16, 40});
  std::vector<StepPlan> plans;
  const auto done = run_unit_steps(b, 1, &plans);
  ASSERT_EQ(done.size(), 2u);
  double out = 0, in = 0;
  for (const auto& p : plans) {
    out += p.swap_out_bytes;
    in += p.swap_in_bytes;
  }
  // The victim held 32 KV tokens when it was swapped out (1000 bytes each), the same came back.
  EXPECT_DOUBLE_EQ(out, 32 * 1000.0);
  EXPECT_DOUBLE_EQ(in, 32 * 1000.0);
  EXPECT_EQ(b.stats().prefill_tokens, 32) << "swap keeps the KV: nothing is recomputed";
}

TEST(ContinuousBatcher, RecomputePreemptionPrefillsThePromptAndTheOutputAgain) {
  ContinuousBatcher b(small_cache(4));
  b.enqueue({1, 0, 16, 40});
  b.enqueue({2, 0, 16, 40});
  const auto done = run_unit_steps(b);
  ASSERT_EQ(done.size(), 2u);
  // Preempted after 17 output tokens (16 + 17 = 33 tokens of KV to rebuild), then run to its end.
  EXPECT_DOUBLE_EQ(b.stats().prefill_tokens, 16 + 16 + 33);
  EXPECT_DOUBLE_EQ(b.stats().generated_tokens, 80);
  EXPECT_EQ(done[1].preemptions, 1);
}

TEST(ContinuousBatcher, ChunkedPrefillKeepsToTheBudgetAndLetsDecodesRun) {
  auto c = small_cache(10000);
  c.max_num_batched_tokens = 2048;
  ContinuousBatcher b(c);
  b.enqueue({1, 0, 100, 50});  // decoding first
  auto p0 = b.plan(0);
  b.complete(p0, 0, 1);
  b.enqueue({2, 1, 10000, 10});
  int prefill_steps = 0;
  double t = 1;
  for (;;) {
    auto p = b.plan(t);
    EXPECT_LE(p.prefill_tokens + p.decode_sequences, 2048);
    EXPECT_EQ(p.decode_sequences, 1) << "the first request keeps decoding beside the long prompt";
    b.complete(p, t, t + 1);
    t += 1;
    ++prefill_steps;
    if (p.prefill_tokens < 2047) break;
  }
  // 10000 prompt tokens at 2047 per step (one token of the budget goes to the decode): 5 steps.
  EXPECT_EQ(prefill_steps, static_cast<int>(std::ceil(10000.0 / 2047)));
}

TEST(ContinuousBatcher, WithoutChunkingAStepIsAllPrefillOrAllDecode) {
  auto c = small_cache(10000);
  c.chunked_prefill = false;
  ContinuousBatcher b(c);
  b.enqueue({1, 0, 100, 50});
  b.complete(b.plan(0), 0, 1);
  b.enqueue({2, 1, 3000, 10});
  auto p = b.plan(1);
  EXPECT_EQ(p.prefill_tokens, 3000);
  EXPECT_EQ(p.decode_sequences, 0) << "vLLM v0: the prefill step pauses the decodes";
  b.complete(p, 1, 2);
  auto q = b.plan(2);
  EXPECT_EQ(q.prefill_tokens, 0);
  EXPECT_EQ(q.decode_sequences, 2);
}

TEST(ContinuousBatcher, SequenceLimitAndFcfsOrder) {
  auto c = small_cache(10000);
  c.max_num_seqs = 2;
  ContinuousBatcher b(c);
  for (uint64_t i = 0; i < 4; ++i) b.enqueue({i, static_cast<double>(i), 10, 5 + static_cast<int>(i)});
  auto p = b.plan(0);
  EXPECT_EQ(b.running(), 2u);
  EXPECT_EQ(p.admitted, (std::vector<uint64_t>{0, 1}));
  EXPECT_TRUE(b.complete(p, 0, 1).empty());
  const auto done = run_unit_steps(b);
  ASSERT_EQ(done.size(), 4u);
  EXPECT_EQ(done[0].request.id, 0u);
  EXPECT_EQ(done[1].request.id, 1u);
  EXPECT_EQ(done[2].request.id, 2u) << "admitted in arrival order as places free up";
}

TEST(ContinuousBatcher, PriorityOrderAdmitsTheUrgentFirst) {
  auto c = small_cache(10000);
  c.max_num_seqs = 1;
  c.order = AdmissionOrder::PRIORITY;
  ContinuousBatcher b(c);
  b.enqueue({1, 0.0, 10, 3, 5});
  b.enqueue({2, 0.1, 10, 3, 0});
  b.enqueue({3, 0.2, 10, 3, 5});
  const auto done = run_unit_steps(b);
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0].request.id, 2u);
  EXPECT_EQ(done[1].request.id, 1u);
  EXPECT_EQ(done[2].request.id, 3u);
}

TEST(ContinuousBatcher, PrefixCacheHitsSkipWholeBlocksOfThePrompt) {
  auto c = small_cache(10000);
  c.prefix_hit_ratio = 0.5;
  ContinuousBatcher b(c);
  b.enqueue({1, 0, 100, 2});  // 50 cached -> 48 (3 whole blocks); 52 computed
  run_unit_steps(b);
  EXPECT_DOUBLE_EQ(b.stats().prefill_tokens, 52);
}

TEST(ContinuousBatcher, ARunOfDecodeStepsCostsItsStepsOneByOne) {
  // A cost linear in the batch's attended tokens: the run's mean context gives the exact sum.
  const auto cost = [](const StepPlan& p) { return p.steps * (1e-3 + 1e-7 * p.batch.attended_tokens); };
  const auto drive = [&](int max_steps, long long& plans) {
    ContinuousBatcher b(small_cache(100000));
    for (uint64_t i = 0; i < 5; ++i) b.enqueue({i, 0, 100 + 50 * static_cast<int>(i), 200 + 37 * static_cast<int>(i)});
    std::vector<Completion> out;
    double t = 0;
    while (!b.idle()) {
      auto p = b.plan(t, max_steps);
      const double s = cost(p);
      auto done = b.complete(p, t, t + s);
      t += s;
      out.insert(out.end(), done.begin(), done.end());
    }
    plans = b.stats().plans;
    return out;
  };
  long long one_by_one = 0, runs = 0;
  const auto a = drive(1, one_by_one);
  const auto r = drive(1 << 30, runs);
  ASSERT_EQ(a.size(), r.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].request.id, r[i].request.id);
    EXPECT_NEAR(a[i].done, r[i].done, 1e-9 * a[i].done);
    EXPECT_NEAR(a[i].first_token, r[i].first_token, 1e-12);
  }
  EXPECT_EQ(one_by_one, 200 + 4 * 37);  // every step a plan
  EXPECT_LE(runs, 12) << "one plan per change of the batch";
}

TEST(TokenGaps, PercentilesAndMeanEqualThoseOfEveryGapListedOneByOne) {
  TokenGaps g;
  g.add(0.010, 5);
  g.add(0.030, 1);
  g.add(0.010, 2);  // joins nothing: not adjacent to an equal run
  g.add(0.020, 3);
  g.add(0.5, 0);  // no gap
  std::vector<double> every;
  for (const auto& [seconds, count] : g.runs)
    for (long long k = 0; k < count; ++k) every.push_back(seconds);
  std::sort(every.begin(), every.end());
  ASSERT_EQ(g.count(), 11);
  ASSERT_EQ(every.size(), 11u);
  const auto numpy_percentile = [&](double p) {
    const double pos = p / 100 * static_cast<double>(every.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const size_t hi = std::min(every.size() - 1, lo + 1);
    return every[lo] + (pos - static_cast<double>(lo)) * (every[hi] - every[lo]);
  };
  for (double p : {0.0, 10.0, 50.0, 63.0, 90.0, 99.0, 100.0}) {
    EXPECT_DOUBLE_EQ(g.percentile(p), numpy_percentile(p)) << p;
  }
  EXPECT_NEAR(g.mean(), (7 * 0.010 + 0.030 + 3 * 0.020) / 11, 1e-15);
  EXPECT_EQ(TokenGaps{}.percentile(50), 0);
  EXPECT_EQ(TokenGaps{}.mean(), 0);
}

TEST(ContinuousBatcher, AGapSpansThePrefillStepThatPausedTheDecodes) {
  // Without chunking a prefill step pauses the running decodes: the client sees one long gap, then gaps
  // of one decode step. The per-request mean (TPOT) spreads that gap over every token; the median gap
  // does not.
  auto c = small_cache(10000);
  c.chunked_prefill = false;
  ContinuousBatcher b(c);
  TokenGaps gaps;
  b.enqueue({1, 0, 100, 6});
  b.complete(b.plan(0), 0, 1, &gaps);  // prefill: the first token at t = 1, no gap yet
  EXPECT_EQ(gaps.count(), 0);
  auto decode = b.plan(1, 2);  // two decode steps, 1 s each: tokens at 2 and 3
  EXPECT_EQ(decode.steps, 2);
  b.complete(decode, 1, 3, &gaps);
  b.enqueue({2, 3, 3000, 2});
  auto prefill = b.plan(3);  // request 2's prefill, 4 s, the decode waits
  ASSERT_EQ(prefill.decode_sequences, 0);
  b.complete(prefill, 3, 7, &gaps);
  auto both = b.plan(7);  // one step of both decodes: request 1's next token at 8, 5 s after its last
  ASSERT_EQ(both.decode_sequences, 2);
  std::vector<Completion> done = b.complete(both, 7, 8, &gaps);
  auto rest = b.plan(8, 10);
  const auto last = b.complete(rest, 8, 8 + rest.steps, &gaps);
  done.insert(done.end(), last.begin(), last.end());
  ASSERT_TRUE(b.idle());
  // Request 1: tokens at 1, 2, 3, 8 (after the 4 s prefill and a 1 s step), 9, 10; request 2: at 7 and 8.
  // Gaps: 1, 1, 5, 1, 1 (request 1) and 1 (request 2).
  EXPECT_EQ(gaps.count(), 6);
  EXPECT_DOUBLE_EQ(gaps.percentile(50), 1.0);
  EXPECT_DOUBLE_EQ(gaps.percentile(100), 5.0);
  EXPECT_DOUBLE_EQ(gaps.mean(), 10.0 / 6);
  for (const auto& d : done) {
    if (d.request.id == 1) {
      EXPECT_DOUBLE_EQ((d.done - d.first_token) / (d.request.output_tokens - 1), 9.0 / 5);
    }
  }
}

TEST(ContinuousBatcher, ARunOfDecodeStepsGivesTheGapsOfItsStepsOneByOne) {
  const auto cost = [](const StepPlan& p) { return p.steps * (1e-3 + 1e-7 * p.batch.attended_tokens); };
  const auto drive = [&](int max_steps) {
    ContinuousBatcher b(small_cache(100000));
    TokenGaps gaps;
    for (uint64_t i = 0; i < 5; ++i) b.enqueue({i, 0, 100 + 50 * static_cast<int>(i), 200 + 37 * static_cast<int>(i)});
    double t = 0;
    while (!b.idle()) {
      auto p = b.plan(t, max_steps);
      const double s = cost(p);
      b.complete(p, t, t + s, &gaps);
      t += s;
    }
    return gaps;
  };
  const TokenGaps one_by_one = drive(1), runs = drive(1 << 30);
  EXPECT_EQ(one_by_one.count(), runs.count());
  EXPECT_EQ(runs.count(), 5 * 199 + 37 * (0 + 1 + 2 + 3 + 4));  // every token but each request's first
  EXPECT_NEAR(one_by_one.mean(), runs.mean(), 1e-9 * runs.mean());
  // A run's steps cost its mean step each (exact in sum, not per step): the percentiles agree to the spread.
  EXPECT_NEAR(one_by_one.percentile(50), runs.percentile(50), 0.02 * runs.percentile(50));
}

const ModelCatalogue& catalogue() {
  static const ModelCatalogue c = [] {
    Diagnostics diags;
    return load_model_catalogue(std::string(GTW_SOURCE_DIR) + "/calibration/models/llm.yaml", diags).value();
  }();
  return c;
}

TEST(ServingRun, ALoneRequestTakesItsPrefillRooflineThenTheWeightsOverHbmPerToken) {
  HardwareProfile h100;
  Diagnostics diags;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "", h100, diags)) << diags.format_all();
  const auto& m = *catalogue().find("llama-3.1-8b");
  EngineSetup setup{&m, &h100, ServingConfig{}, BatcherConfig{}, 0};
  const int prompt = 2048, output = 129;
  const auto run = run_engine(setup, {{1, 0, prompt, output}});
  ASSERT_EQ(run.completions.size(), 1u);
  const auto& c = run.completions[0];
  // TTFT: 2 x the layers' parameters x prompt FLOPs, the output head once, attention, at the achievable FP16
  // rate; plus the memory-bound kernels (hand-counted for Llama 3.1 8B in 16 bits: per token and layer two
  // residual-add RMSNorms of 4 x 4096 values, rotary on 4096 + 1024 read and written, SwiGLU on 3 x 14336;
  // the logits of the sampled token, 128256 FP32 values written and read) over HBM.
  const double elementwise_per_token = 32 * (2 * 4 * 4096 + 2 * (4096 + 1024) + 3 * 14336) * 2.0;
  const double logits = 2 * 4 * 128256.0;
  const double prefill_flops = prompt * m.body_matrix_flops_per_token() + m.output_head_flops() +
                               m.attention_flops_per_token(prompt * (prompt + 1) / 2.0);
  const double prefill_bytes = prompt * elementwise_per_token + logits;
  EXPECT_NEAR(c.first_token,
              prefill_flops / h100.achievable_rate(DType::FP16).value + prefill_bytes / h100.hbm_achievable.value,
              1e-9);
  // TPOT at batch 1: the FP16 weights and the KV read (and written) once per token, and the token's
  // memory-bound kernels, over HBM.
  const double tpot = (c.done - c.first_token) / (output - 1);
  const double mean_context = prompt + output / 2.0;
  const double expected =
      (m.parameters() * 2 + (mean_context + 1) * m.kv_bytes_per_token(2) + elementwise_per_token + logits) /
      h100.hbm_achievable.value;
  EXPECT_NEAR(tpot, expected, 1e-3 * expected);
  EXPECT_LE(run.stats.plans, 3) << "prefill, then one run of decode steps";
}

TEST(ServingRun, KvCapacityInTokensIsTheFormula) {
  HardwareProfile h100;
  Diagnostics diags;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "", h100, diags));
  const auto& m = *catalogue().find("llama-3.1-8b");
  ServingConfig cfg;
  const auto b = batcher_for({&m, &h100, cfg, BatcherConfig{}, 0});
  const double per_token = 2.0 * m.layers * m.kv_heads * m.head_dim * 2;
  const double tokens = (h100.memory.value * 0.9 - m.parameters() * 2) / per_token;
  EXPECT_EQ(b.kv_blocks, static_cast<long long>(std::floor(tokens / 16)));
}

TEST(ServingRun, ClosedLoopKeepsTheConcurrency) {
  HardwareProfile h100;
  Diagnostics diags;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "", h100, diags));
  const auto& m = *catalogue().find("llama-3.1-8b");
  std::vector<SequenceRequest> reqs;
  for (uint64_t i = 0; i < 64; ++i) reqs.push_back({i, 0, 128, 128});
  const auto one = run_engine({&m, &h100, ServingConfig{}, BatcherConfig{}, 0}, reqs, 1);
  const auto many = run_engine({&m, &h100, ServingConfig{}, BatcherConfig{}, 0}, reqs, 32);
  ASSERT_EQ(one.completions.size(), 64u);
  ASSERT_EQ(many.completions.size(), 64u);
  // Batching 32 decodes costs little more than one (weights dominate): far more tokens per second.
  EXPECT_GT(one.end / many.end, 10.0);
}

// The front end (EngineSetup::front_end_s) delays each request on its way to the scheduler and takes nothing from
// the engine. Open loop: the client's TTFT is the front end plus the engine's; the engine's own timeline only
// shifts. Closed loop at concurrency 1: the next request reaches the scheduler a front end after the previous one
// completed, so two requests end 2 x front end later than without one.
TEST(ServingRun, AFrontEndDelaysEachRequestOnItsWayToTheScheduler) {
  HardwareProfile h100;
  Diagnostics diags;
  ASSERT_TRUE(load_profile("H100-80GB-SXM", SourceLoc{}, "", h100, diags));
  const auto& m = *catalogue().find("llama-3.1-8b");
  EngineSetup plain{&m, &h100, ServingConfig{}, BatcherConfig{}, 0};
  EngineSetup fronted = plain;
  fronted.front_end_s = 0.010;
  const std::vector<SequenceRequest> one{{1, 0.5, 512, 64}};
  const auto a = run_engine(plain, one), b = run_engine(fronted, one);
  ASSERT_EQ(a.completions.size(), 1u);
  ASSERT_EQ(b.completions.size(), 1u);
  EXPECT_DOUBLE_EQ(b.completions[0].request.arrival, 0.5) << "the client's send time";
  EXPECT_NEAR(b.completions[0].first_token - 0.5, a.completions[0].first_token - 0.5 + 0.010, 1e-12);
  EXPECT_NEAR(b.completions[0].done, a.completions[0].done + 0.010, 1e-12);
  const std::vector<SequenceRequest> two{{1, 0, 512, 64}, {2, 0, 512, 64}};
  const auto c = run_engine(plain, two, 1), d = run_engine(fronted, two, 1);
  ASSERT_EQ(d.completions.size(), 2u);
  EXPECT_NEAR(d.completions[1].request.arrival, d.completions[0].done, 1e-12) << "sent when the first completed";
  EXPECT_NEAR(d.completions[1].first_token - d.completions[1].request.arrival,
              c.completions[1].first_token - c.completions[1].request.arrival + 0.010, 1e-12);
  EXPECT_NEAR(d.end, c.end + 2 * 0.010, 1e-12);
}

TEST(EngineOverhead, TheShippedFamiliesAndALocatedErrorForABadOne) {
  Diagnostics diags;
  const auto shipped = load_engine_overheads(default_engine_overhead_path(), diags);
  ASSERT_TRUE(shipped) << diags.format_all();
  for (const char* family : {"vllm-v1", "vllm-v0", "sglang", "trtllm"}) EXPECT_TRUE(shipped->count(family)) << family;
  EXPECT_EQ(shipped->at("sglang").step_overhead_s, shipped->at("vllm-v1").step_overhead_s) << "sameAs";
  EXPECT_LT(shipped->at("vllm-v0").gpu_share, 1);
  const std::string bad = std::string(::testing::TempDir()) + "/engines.yaml";
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(
        "hostOverhead:\n  a: {stepOverhead: 2ms, gpuShare: 0.5, source: (assumed) x}\n  b: {sameAs: c, source: "
        "(assumed) y}\n",
        f);
    std::fclose(f);
  }
  Diagnostics errors;
  EXPECT_FALSE(load_engine_overheads(bad, errors));
  const std::string text = errors.format_all();
  EXPECT_NE(text.find("engines.yaml:2:6: error: hostOverhead.a: give exactly one of"), std::string::npos) << text;
  EXPECT_NE(text.find("hostOverhead.b.sameAs: no family 'c'"), std::string::npos) << text;
}

}  // namespace
}  // namespace gtw::serving
