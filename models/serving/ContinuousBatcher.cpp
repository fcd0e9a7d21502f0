#include "ContinuousBatcher.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace gtw::serving {

ContinuousBatcher::ContinuousBatcher(BatcherConfig config) : config_(config) {
  config_.block_size = std::max(1, config_.block_size);
  config_.max_num_seqs = std::max(1, config_.max_num_seqs);
  config_.max_num_batched_tokens = std::max(1, config_.max_num_batched_tokens);
}

long long ContinuousBatcher::blocks_for(long long tokens) const {
  return (tokens + config_.block_size - 1) / config_.block_size;
}

bool ContinuousBatcher::admit_before(const Sequence& a, const Sequence& b) const {
  if (config_.order == AdmissionOrder::PRIORITY)
    return std::tie(a.request.priority, a.request.arrival, a.request.id) <
           std::tie(b.request.priority, b.request.arrival, b.request.id);
  return std::tie(a.request.arrival, a.request.id) < std::tie(b.request.arrival, b.request.id);
}

void ContinuousBatcher::insert_waiting(Sequence s, bool front) {
  if (config_.order == AdmissionOrder::FCFS) {
    // New requests arrive in order; a preempted one goes back to the head (vLLM).
    if (front) {
      waiting_.push_front(std::move(s));
    } else {
      waiting_.push_back(std::move(s));
    }
    return;
  }
  const auto at = std::upper_bound(waiting_.begin(), waiting_.end(), s,
                                   [this](const Sequence& a, const Sequence& b) { return admit_before(a, b); });
  waiting_.insert(at, std::move(s));
}

void ContinuousBatcher::enqueue(const SequenceRequest& request) {
  Sequence s;
  s.request = request;
  s.request.prompt_tokens = std::max(1, request.prompt_tokens);
  s.request.output_tokens = std::max(1, request.output_tokens);
  insert_waiting(std::move(s), false);
}

void ContinuousBatcher::enqueue_prefilled(const SequenceRequest& request) {
  Sequence s;
  s.request = request;
  s.request.prompt_tokens = std::max(1, request.prompt_tokens);
  s.request.output_tokens = std::max(2, request.output_tokens);
  s.kv = s.request.prompt_tokens;
  s.generated = 1;
  insert_waiting(std::move(s), false);
}

// Reserves the blocks `tokens` more KV tokens of `s` need; false (nothing reserved) when too few are free.
bool ContinuousBatcher::grow(Sequence& s, long long tokens, StepPlan&) {
  const long long more = blocks_for(s.kv + tokens) - s.blocks;
  if (more > free_blocks()) return false;
  s.blocks += std::max(0LL, more);
  used_blocks_ += std::max(0LL, more);
  return true;
}

void ContinuousBatcher::preempt(Sequence& victim, StepPlan& plan) {
  used_blocks_ -= victim.blocks;
  victim.blocks = 0;
  victim.scheduled_now = 0;
  ++victim.preemptions;
  ++stats_.preemptions;
  ++plan.preempted;
  const auto it = std::find_if(running_.begin(), running_.end(),
                               [&](const Sequence& s) { return s.request.id == victim.request.id; });
  Sequence moved = std::move(*it);
  running_.erase(it);
  if (config_.preemption == Preemption::SWAP) {
    const double bytes = static_cast<double>(moved.kv) * config_.kv_bytes_per_token_per_gpu;
    plan.swap_out_bytes += bytes;
    stats_.swapped_bytes += bytes;
    swapped_.push_back(std::move(moved));
  } else {
    moved.kv = 0;  // recomputed as a prefill of the prompt and the tokens produced so far
    insert_waiting(std::move(moved), true);
  }
}

// The running sequences in admission order: each its next token (decoding) or its next prompt chunk,
// within the budget. A sequence that finds no free block preempts the victim the order names (the most
// recently admitted, or the lowest priority), itself when it is that one.
bool ContinuousBatcher::schedule_running(StepPlan& plan, int& budget) {
  bool scheduled = false;
  for (size_t i = 0; i < running_.size() && budget > 0;) {
    Sequence& s = running_[i];
    const long long n = std::min<long long>(s.need(), config_.chunked_prefill ? budget : s.need());
    if (!config_.chunked_prefill && n > budget) break;
    bool self_preempted = false;
    while (!grow(s, n, plan)) {
      size_t victim = running_.size() - 1;
      if (config_.order == AdmissionOrder::PRIORITY) {
        for (size_t j = i + 1; j < running_.size(); ++j)
          if (admit_before(running_[victim], running_[j])) victim = j;
      }
      if (victim == i) {
        preempt(s, plan);
        self_preempted = true;
        break;
      }
      preempt(running_[victim], plan);
    }
    if (self_preempted) continue;  // running_[i] is now the next sequence
    s.scheduled_now = static_cast<int>(n);
    budget -= static_cast<int>(n);
    scheduled = true;
    ++i;
  }
  return scheduled;
}

void ContinuousBatcher::resume_swapped(StepPlan& plan, int& budget) {
  while (!swapped_.empty() && budget > 0 && static_cast<int>(running_.size()) < config_.max_num_seqs) {
    Sequence& s = swapped_.front();
    const long long n = std::min<long long>(s.need(), budget);
    if (blocks_for(s.kv + n) > free_blocks()) break;
    plan.swap_in_bytes += static_cast<double>(s.kv) * config_.kv_bytes_per_token_per_gpu;
    stats_.swapped_bytes += static_cast<double>(s.kv) * config_.kv_bytes_per_token_per_gpu;
    grow(s, n, plan);
    s.scheduled_now = static_cast<int>(n);
    budget -= static_cast<int>(n);
    running_.push_back(std::move(s));
    swapped_.pop_front();
  }
}

// Waiting sequences in admission order while sequences, tokens and blocks allow; stops at the first that
// does not fit (no overtaking). Without chunking a prompt is admitted whole (a prompt larger than the
// budget only into an otherwise empty step).
void ContinuousBatcher::admit_waiting(StepPlan& plan, int& budget, bool whole_prompts_only) {
  while (!waiting_.empty() && budget > 0 && static_cast<int>(running_.size()) < config_.max_num_seqs) {
    Sequence& s = waiting_.front();
    long long cached = 0;
    if (s.kv == 0 && config_.prefix_hit_ratio > 0) {
      // Whole blocks of the prompt found in the prefix cache; at least one token is computed.
      const long long hit = static_cast<long long>(config_.prefix_hit_ratio * s.request.prompt_tokens);
      cached = std::min<long long>(hit / config_.block_size * config_.block_size, s.request.prompt_tokens - 1);
    }
    s.kv += cached;
    long long n = s.need();
    const bool step_empty = plan.prefill_tokens == 0 && budget == config_.max_num_batched_tokens;
    if (whole_prompts_only) {
      if (n > budget && !step_empty) {
        s.kv -= cached;
        break;
      }
    } else {
      n = std::min<long long>(n, budget);
    }
    // No-evict admission reserves the sequence's final KV now (its later growth then needs no block).
    const long long reserve = config_.reserve_whole_sequence
                                  ? std::max<long long>(n, static_cast<long long>(s.request.prompt_tokens) +
                                                               s.request.output_tokens - 1 - s.kv)
                                  : n;
    if (!grow(s, reserve, plan)) {
      s.kv -= cached;
      break;
    }
    s.scheduled_now = static_cast<int>(n);
    budget -= static_cast<int>(std::min<long long>(n, budget));
    plan.prefill_tokens += static_cast<int>(n);
    if (!s.started) {
      s.started = true;
      plan.admitted.push_back(s.request.id);
    }
    running_.push_back(std::move(s));
    waiting_.pop_front();
  }
}

// How many identical decode steps the current batch can run: until the first sequence ends, while the
// blocks its growth needs are free, at most `max_steps`.
int ContinuousBatcher::decode_run_length(int max_steps) const {
  int run = max_steps;
  for (const auto& s : running_)
    if (s.scheduled_now > 0) run = std::min(run, s.request.output_tokens - s.generated);
  const auto fits = [&](int k) {
    long long more = 0;
    for (const auto& s : running_)
      if (s.scheduled_now > 0) more += blocks_for(s.kv + k) - s.blocks;
    return more <= free_blocks();
  };
  int lo = 1, hi = std::max(1, run);
  while (lo < hi) {  // the largest k in [1, run] that fits (k = 1 is reserved already)
    const int mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

StepPlan ContinuousBatcher::plan(double now, int max_steps) {
  StepPlan plan;
  for (auto& s : running_) s.scheduled_now = 0;
  int budget = config_.max_num_batched_tokens;
  if (config_.chunked_prefill) {
    schedule_running(plan, budget);
    resume_swapped(plan, budget);
    admit_waiting(plan, budget, false);
  } else {
    // vLLM v0: a step is all prefill (new prompts first) or all decode.
    resume_swapped(plan, budget);
    if (budget == config_.max_num_batched_tokens) admit_waiting(plan, budget, true);
    if (plan.prefill_tokens == 0) schedule_running(plan, budget);
  }
  for (auto& s : running_)
    if (s.scheduled_now > 0 && s.scheduled == -1) s.scheduled = now;

  int decodes = 0, prefill = 0;
  for (const auto& s : running_) {
    if (s.scheduled_now == 0) continue;
    if (s.generated > 0 && s.need() == 1) {
      ++decodes;
    } else {
      prefill += s.scheduled_now;
    }
  }
  plan.decode_sequences = decodes;
  plan.prefill_tokens = prefill;
  if (decodes + prefill == 0) return plan;

  plan.steps = 1;
  const bool pure_decode = prefill == 0 && plan.preempted == 0 && plan.swap_in_bytes == 0 && plan.admitted.empty();
  reserve_run(plan, pure_decode ? decode_run_length(std::max(1, max_steps)) : 1);
  return plan;
}

// Sets a plan to `steps` steps: each scheduled decode holds the blocks of its KV after them (more or
// fewer than now), and the batch attends the run's mean context.
void ContinuousBatcher::reserve_run(StepPlan& plan, int steps) {
  plan.steps = steps;
  plan.batch = StepBatch{};
  const double mean_extra = (steps - 1) / 2.0;
  for (auto& s : running_) {
    if (s.scheduled_now == 0) continue;
    if (s.generated > 0 && s.need() == 1) {
      const long long more = blocks_for(s.kv + steps) - s.blocks;
      s.blocks += more;
      used_blocks_ += more;
      plan.batch.add_decode(static_cast<double>(s.kv) + 1 + mean_extra);
    } else {
      plan.batch.add_prefill(s.scheduled_now, static_cast<double>(s.kv), s.scheduled_now == s.need());
    }
  }
}

void ContinuousBatcher::shorten(StepPlan& plan, int steps) {
  steps = std::max(1, steps);
  if (steps >= plan.steps) return;
  reserve_run(plan, steps);
}

std::vector<Completion> ContinuousBatcher::complete(const StepPlan& plan, double start, double end, TokenGaps* gaps) {
  std::vector<Completion> done;
  if (plan.steps == 0) return done;
  stats_.steps += plan.steps;
  ++stats_.plans;
  stats_.prefill_tokens += plan.prefill_tokens;
  stats_.peak_blocks = std::max(stats_.peak_blocks, used_blocks_);
  stats_.block_seconds += static_cast<double>(used_blocks_) * (end - start);
  stats_.busy_seconds += end - start;
  std::vector<Sequence> still;
  still.reserve(running_.size());
  for (auto& s : running_) {
    if (s.scheduled_now > 0) {
      const bool decoding = s.generated > 0 && s.need() == 1;
      const int advance = decoding ? plan.steps : 1;
      s.kv += decoding ? plan.steps : s.scheduled_now;
      if (decoding || s.need() == 0) {
        s.generated += advance;
        stats_.generated_tokens += advance;
        if (s.first_token < 0) s.first_token = end;
        // Its tokens came at the end of each of the plan's steps.
        const double step = (end - start) / plan.steps;
        if (gaps && s.last_token >= 0) {
          gaps->add(start + step - s.last_token, 1);
          if (advance > 1) gaps->add(step, advance - 1);
        }
        s.last_token = end;
      }
      s.scheduled_now = 0;
    }
    if (s.generated >= s.request.output_tokens) {
      used_blocks_ -= s.blocks;
      done.push_back({s.request, s.first_token, s.scheduled, end, s.preemptions});
    } else {
      still.push_back(std::move(s));
    }
  }
  running_ = std::move(still);
  return done;
}

std::vector<SequenceRequest> ContinuousBatcher::drain() {
  std::vector<SequenceRequest> out;
  for (const auto& s : running_) out.push_back(s.request);
  for (const auto& s : swapped_) out.push_back(s.request);
  for (const auto& s : waiting_) out.push_back(s.request);
  running_.clear();
  swapped_.clear();
  waiting_.clear();
  used_blocks_ = 0;
  return out;
}

void TokenGaps::add(double seconds, long long count) {
  if (count <= 0) return;
  if (!runs.empty() && runs.back().first == seconds) {
    runs.back().second += count;
  } else {
    runs.emplace_back(seconds, count);
  }
}

long long TokenGaps::count() const {
  long long n = 0;
  for (const auto& [seconds, count] : runs) n += count;
  return n;
}

double TokenGaps::mean() const {
  double sum = 0;
  for (const auto& [seconds, count] : runs) sum += seconds * static_cast<double>(count);
  const long long n = count();
  return n > 0 ? sum / static_cast<double>(n) : 0;
}

double interpolated_percentile(long long n, double p, const std::function<double(long long)>& at) {
  if (n <= 0) return 0;
  const double pos = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(n - 1);
  const auto lo = static_cast<long long>(std::floor(pos));
  const double a = at(lo), b = at(std::min(n - 1, lo + 1));
  return a + (pos - static_cast<double>(lo)) * (b - a);
}

double TokenGaps::percentile(double p) const {
  std::vector<std::pair<double, long long>> sorted = runs;
  std::sort(sorted.begin(), sorted.end());
  // The k-th smallest gap (0-based) of the expanded list.
  return interpolated_percentile(count(), p, [&](long long k) {
    long long seen = 0;
    for (const auto& [seconds, count] : sorted) {
      seen += count;
      if (k < seen) return seconds;
    }
    return sorted.back().first;
  });
}

}  // namespace gtw::serving
