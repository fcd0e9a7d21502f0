#include "RunIndex.hpp"

#include <algorithm>

namespace gtw {

namespace {

const std::vector<size_t>& empty_list() {
  static const std::vector<size_t> none;
  return none;
}

}  // namespace

RunIndex::RunIndex(const ScenarioSpec& spec, const RunResult& run)
    : run_end_(std::max(run.end_time, spec.duration.value)),
      steps_(spec.workloads.size(), 0),
      by_workload_(spec.workloads.size()),
      gpus_(run.gpus.size()),
      busy_(gpus_, analysis_spill_budget(BUSY_INTERVALS_BUDGET), "gputwin-busy"),
      longest_busy_(gpus_, 0.0),
      max_switch_cost_(gpus_, 0.0) {
  count_busy(run);
  const auto& events = run.log.events();
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const bool workload = e.workload >= 0 && static_cast<size_t>(e.workload) < spec.workloads.size();
    switch (e.type) {
      case EventType::PLACED:
        if (workload && e.gpu >= 0 && static_cast<size_t>(e.gpu) < gpus_) place(e);
        break;
      case EventType::WORKLOAD_FAILED:
        if (workload) fail(spec, e);
        break;
      case EventType::JOB_DONE:
        if (workload && spec.workloads[static_cast<size_t>(e.workload)].kind == WorkloadKind::TRAINING) finish_job(e);
        break;
      case EventType::MODEL_LOAD:
        load(e);
        break;
      case EventType::STEP_DONE:
        if (workload) ++steps_[static_cast<size_t>(e.workload)];
        break;
      case EventType::DATA_MOVE:
      case EventType::DATA_DENIED:
        data_.push_back({i, payload::data_movement(e, run.data_movements.size())});
        break;
      case EventType::GPU_BUSY:
        add_busy(e);
        break;
      case EventType::GPU_SLICE:
        add_busy(e);
        add_switch(e);
        break;
      case EventType::CONTEXT_SWITCH:
        add_switch(e);
        break;
      default:
        break;
    }
  }
  for (auto& s : stays_)
    if (!s.ended()) s.end = run_end_;
  open_.clear();
}

// A counting pass first sizes the busy intervals: all of them in memory when they fit the budget, else a page per
// GPU, spilled as it fills (growing the arrays by doubling left up to half of them unused).
void RunIndex::count_busy(const RunResult& run) {
  std::vector<size_t> per_gpu(gpus_, 0);
  for (const auto& e : run.log.events())
    if (payload::busy(e) && e.gpu >= 0 && static_cast<size_t>(e.gpu) < gpus_) ++per_gpu[static_cast<size_t>(e.gpu)];
  busy_.expect(per_gpu);
}

void RunIndex::add_busy(const Event& e) {
  if (e.gpu < 0 || static_cast<size_t>(e.gpu) >= gpus_) return;
  const auto g = static_cast<size_t>(e.gpu);
  const double start = payload::start_time(e);
  busy_.add(g, {start, e.time, e.tenant});
  longest_busy_[g] = std::max(longest_busy_[g], e.time - start);
}

void RunIndex::add_switch(const Event& e) {
  if (e.gpu < 0 || static_cast<size_t>(e.gpu) >= gpus_) return;
  auto& most = max_switch_cost_[static_cast<size_t>(e.gpu)];
  most = std::max(most, payload::switch_cost(e));
}

void RunIndex::place(const Event& e) {
  Stay s;
  s.tenant = e.tenant;
  s.workload = e.workload;
  s.replica = e.replica;
  s.gpu = e.gpu;
  s.start = e.time;
  s.seq = e.seq;
  s.memory = e.value;
  const size_t k = stays_.size();
  stays_.push_back(std::move(s));
  by_workload_[static_cast<size_t>(e.workload)].push_back(k);
  by_replica_[{e.workload, e.replica}].push_back(k);
  open_[{e.workload, e.replica}].push_back(k);
}

void RunIndex::end_stay(size_t stay, const Event& e, StayEnd how, FailureReason reason) {
  Stay& s = stays_[stay];
  s.end = e.time;
  s.how = how;
  s.reason = reason;
  s.end_seq = static_cast<int64_t>(e.seq);
}

void RunIndex::fail(const ScenarioSpec& spec, const Event& e) {
  const auto& ws = spec.workloads[static_cast<size_t>(e.workload)];
  if (e.gpu < 0 && ws.kind == WorkloadKind::BATCH) return;  // a job's failure, not a worker's
  const auto it = open_.find({e.workload, e.replica});
  if (it == open_.end()) return;
  const bool every_gpu = e.gpu < 0 || ws.gpus > 1;
  auto& open = it->second;
  std::vector<size_t> still;
  for (size_t k : open) {
    if (every_gpu || stays_[k].gpu == e.gpu)
      end_stay(k, e, StayEnd::FAILED, payload::failure_reason(e));
    else
      still.push_back(k);
  }
  open = std::move(still);
}

void RunIndex::finish_job(const Event& e) {
  const auto it = open_.find({e.workload, e.replica});
  if (it == open_.end()) return;
  for (size_t k : it->second) end_stay(k, e, StayEnd::DONE, FailureReason::NONE);
  it->second.clear();
}

void RunIndex::load(const Event& e) {
  ModelLoad l;
  l.start = payload::start_time(e);
  l.end = e.time;
  l.bytes = e.value;
  l.tenant = e.tenant;
  l.workload = e.workload;
  l.replica = e.replica;
  l.gpu = e.gpu;
  l.seq = e.seq;
  const size_t k = loads_.size();
  if (const auto it = open_.find({e.workload, e.replica}); it != open_.end())
    for (size_t s : it->second)
      if (stays_[s].gpu == e.gpu) {
        l.stay = static_cast<int>(s);
        stays_[s].loads.push_back(k);
        break;
      }
  loads_.push_back(l);
}

const std::vector<size_t>& RunIndex::stays_of(WorkloadId workload, int replica) const {
  const auto it = by_replica_.find({workload.value(), replica});
  return it == by_replica_.end() ? empty_list() : it->second;
}

const std::vector<size_t>& RunIndex::stays_of(WorkloadId workload) const {
  return workload.valid() && workload.index() < by_workload_.size() ? by_workload_[workload.index()] : empty_list();
}

const Stay* RunIndex::first_stay(WorkloadId workload, int replica) const {
  const auto& list = stays_of(workload, replica);
  return list.empty() ? nullptr : &stays_[list.front()];
}

TenantId RunIndex::tenant_on(WorkloadId workload, GpuId gpu, TenantId fallback) const {
  TenantId tenant = fallback;
  for (size_t k : stays_of(workload))
    if (stays_[k].gpu == gpu.value() && stays_[k].tenant >= 0) tenant = TenantId(stays_[k].tenant);
  return tenant;
}

double RunIndex::bytes_loaded(const Stay& stay, double initial) const {
  double bytes = initial;
  for (size_t k : stay.loads) bytes += loads_[k].bytes;
  return bytes;
}

size_t RunIndex::steps(int workload) const {
  return workload >= 0 && static_cast<size_t>(workload) < steps_.size() ? steps_[static_cast<size_t>(workload)] : 0;
}

}  // namespace gtw
