#include "EventLog.hpp"

#include <cstdint>
#include <utility>

#include "SpillFile.hpp"

namespace gtw {

const char* event_type_name(EventType t) {
  switch (t) {
    case EventType::RUN_START:
      return "run_start";
    case EventType::PLACED:
      return "placed";
    case EventType::PLACEMENT_FAILED:
      return "placement_failed";
    case EventType::OUT_OF_MEMORY:
      return "out_of_memory";
    case EventType::REQUEST_ARRIVAL:
      return "request_arrival";
    case EventType::REQUEST_DONE:
      return "request_done";
    case EventType::REQUEST_DROPPED:
      return "request_dropped";
    case EventType::BATCH_START:
      return "batch_start";
    case EventType::BATCH_DONE:
      return "batch_done";
    case EventType::GPU_BUSY:
      return "gpu_busy";
    case EventType::CONTEXT_SWITCH:
      return "context_switch";
    case EventType::JOB_SUBMIT:
      return "job_submit";
    case EventType::JOB_START:
      return "job_start";
    case EventType::STEP_DONE:
      return "step_done";
    case EventType::JOB_DONE:
      return "job_done";
    case EventType::WORKLOAD_FAILED:
      return "workload_failed";
    case EventType::GPU_FAULT:
      return "gpu_fault";
    case EventType::MODEL_LOAD:
      return "model_load";
    case EventType::RECONFIGURE_START:
      return "reconfigure_start";
    case EventType::RECONFIGURE_DONE:
      return "reconfigure_done";
    case EventType::MEM_ALLOC:
      return "mem_alloc";
    case EventType::MEM_FREE:
      return "mem_free";
    case EventType::MEM_SCRUB:
      return "mem_scrub";
    case EventType::MEM_RESIDUE:
      return "mem_residue";
    case EventType::MEM_SCRUBBED_REUSE:
      return "mem_scrubbed_reuse";
    case EventType::ATTACK_PROBE:
      return "attack_probe";
    case EventType::ATTACK_BIT:
      return "attack_bit";
    case EventType::ATTACK_OBSERVATION:
      return "attack_observation";
    case EventType::ATTACK_RECOVERED:
      return "attack_recovered";
    case EventType::ATTACK_DONE:
      return "attack_done";
    case EventType::DATA_MOVE:
      return "data_move";
    case EventType::DATA_DENIED:
      return "data_denied";
    case EventType::QUOTA_QUEUED:
      return "quota_queued";
    case EventType::QUOTA_ADMITTED:
      return "quota_admitted";
    case EventType::QUOTA_RELEASED:
      return "quota_released";
    case EventType::QUOTA_PREEMPTED:
      return "quota_preempted";
    case EventType::ATTESTATION:
      return "attestation";
    case EventType::KEY_RELEASE:
      return "key_release";
    case EventType::COMPLIANCE_REFUSED:
      return "compliance_refused";
    case EventType::RUN_END:
      return "run_end";
    case EventType::REQUEST_TOKENS:
      return "request_tokens";
    case EventType::REQUEST_PREEMPTED:
      return "request_preempted";
    case EventType::AGENT_CALL:
      return "agent_call";
    case EventType::SECRET_ROTATED:
      return "secret_rotated";
    case EventType::SECRET_LEAKED:
      return "secret_leaked";
    case EventType::GPU_SLICE:
      return "gpu_slice";
  }
  return "unknown";
}

const char* failure_reason_name(FailureReason r) {
  switch (r) {
    case FailureReason::OUT_OF_MEMORY:
      return "out_of_memory";
    case FailureReason::NOT_PLACED:
      return "not_placed";
    case FailureReason::UNFINISHED:
      return "unfinished";
    case FailureReason::FAULT:
      return "fault";
    case FailureReason::RECONFIGURED:
      return "reconfigured";
    case FailureReason::PREEMPTED:
      return "preempted";
    case FailureReason::KEY_REFUSED:
      return "key_refused";
    default:
      return "";
  }
}

// ---- Storage ----------------------------------------------------------------------------------------

// The unlinked temporary file that holds the spilled blocks, and a small cache of blocks read back. A block
// read back is shared with the iterators that pin it; the cache reuses a buffer only when nothing else holds it.
struct EventLog::Spill {
  static constexpr size_t CACHE_BLOCKS = 4;

  SpillFile file;
  std::vector<int64_t> offset;  // per block: where it is in the file, -1 when it is not there
  struct Cached {
    size_t block = 0;
    std::shared_ptr<Block> events;
    uint64_t used = 0;
  };
  mutable std::vector<Cached> cache;
  mutable uint64_t clock = 0;

  bool open() { return file.open("gputwin-events"); }

  /// Appends the block to the file; false (and nothing recorded) when the write fails.
  bool write(size_t k, const Block& b) {
    const int64_t at = file.append(b.data(), b.size() * sizeof(Event));
    if (at < 0) return false;
    if (offset.size() <= k) offset.resize(k + 1, -1);
    offset[k] = at;
    return true;
  }

  std::shared_ptr<const Block> read(size_t k, size_t events) const {
    for (auto& c : cache)
      if (c.block == k && c.events != nullptr) {
        c.used = ++clock;
        return c.events;
      }
    Cached* slot = nullptr;
    if (cache.size() < CACHE_BLOCKS) {
      slot = &cache.emplace_back();
    } else {
      slot = &cache.front();
      for (auto& c : cache)
        if (c.used < slot->used) slot = &c;
    }
    // Reuse the evicted buffer unless an iterator still reads it.
    if (slot->events == nullptr || slot->events.use_count() > 1) slot->events = std::make_shared<Block>();
    Block& b = *slot->events;
    b.resize(events);
    file.read(offset[k], b.data(), events * sizeof(Event), "block " + std::to_string(k) + " of the event log");
    slot->block = k;
    slot->used = ++clock;
    return slot->events;
  }
};

namespace {
// The developer knobs of EventLog.hpp; an unset or unreadable value keeps the default.
size_t default_resident_blocks() {
  static const size_t blocks =
      spill_knob("GPUTWIN_EVENT_LOG_RESIDENT_BLOCKS", EventLog::DEFAULT_RESIDENT_BLOCKS, 0, SIZE_MAX);
  return blocks;
}
size_t default_block_shift() {
  static const size_t shift = spill_knob("GPUTWIN_EVENT_LOG_BLOCK_SHIFT", EventLog::BLOCK_SHIFT, 0, 20);
  return shift;
}
}  // namespace

EventLog::EventLog()
    : resident_limit_(default_resident_blocks()),
      block_shift_(default_block_shift()),
      block_mask_((size_t{1} << block_shift_) - 1) {}
EventLog::EventLog(size_t resident_blocks) : resident_limit_(resident_blocks) {}
EventLog::~EventLog() = default;
EventLog::EventLog(EventLog&& other) noexcept {
  *this = std::move(other);
}
EventLog& EventLog::operator=(EventLog&& other) noexcept {
  resident_limit_ = other.resident_limit_;
  block_shift_ = other.block_shift_;
  block_mask_ = other.block_mask_;
  resident_ = std::move(other.resident_);
  tail_ = std::move(other.tail_);
  spill_ = std::move(other.spill_);
  size_ = std::exchange(other.size_, 0);
  other.resident_.clear();
  other.tail_ = nullptr;
  return *this;
}
EventLog::EventLog(const EventLog& other) : resident_limit_(other.resident_limit_) {
  copy_from(other);
}
EventLog& EventLog::operator=(const EventLog& other) {
  if (this != &other) {
    EventLog copy(other);
    *this = std::move(copy);
  }
  return *this;
}

void EventLog::copy_from(const EventLog& other) {
  for (size_t k = 0; k < other.block_count(); ++k) {
    const BlockView b = other.block(k);
    for (size_t i = 0; i < b.size(); ++i) append(b.data()[i]);
  }
}

void EventLog::seal_tail() {
  const size_t k = resident_.size();  // the index the new tail gets; the sealed one is k - 1
  if (tail_ != nullptr && k - 1 >= resident_limit_) {
    if (spill_ == nullptr) {
      auto s = std::make_unique<Spill>();
      if (s->open()) spill_ = std::move(s);
    }
    if (spill_ != nullptr && spill_->write(k - 1, *tail_)) resident_[k - 1] = nullptr;
  }
  tail_ = std::make_shared<Block>();
  tail_->reserve(block_events());
  resident_.push_back(tail_);
}

EventLog::BlockView EventLog::block(size_t k) const {
  if (k >= resident_.size()) throw std::out_of_range("block " + std::to_string(k) + " is not in the event log");
  if (resident_[k] != nullptr) return BlockView(resident_[k]);
  return BlockView(spill_->read(k, block_events()));
}

size_t EventLog::spilled_blocks() const {
  size_t n = 0;
  for (const auto& b : resident_) n += b == nullptr;
  return n;
}

}  // namespace gtw
