#pragma once
// The event log: the data product of a run. Every fact the analyses need is an event; analyses
// read the log and the spec, never the engine. Events are totally ordered by (time, seq): seq is
// the append order, and the engine appends in simulated-time order.
#include <cassert>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gtw {

enum class EventType : uint8_t {
  RUN_START = 0,     // value = duration of the run
  PLACED,            // a workload replica was placed on a GPU; value = memory reserved (bytes)
  PLACEMENT_FAILED,  // no GPU could take the replica; value = memory asked (bytes)
  OUT_OF_MEMORY,     // allocation failed on a GPU without memory isolation; value = bytes asked
  REQUEST_ARRIVAL,  // at the replica's queue (the client's send + io.frontEnd); replica = replica chosen; value = queue
                    // length after arrival
  REQUEST_DONE,     // value = latency from the client's send (s), aux = queueing delay at the replica (s)
  REQUEST_DROPPED,  // queue overflow or workload failed; value = time in system (s), aux = arrival time (s)
  BATCH_START,      // value = batch size
  BATCH_DONE,       // value = batch service time (s)
  GPU_BUSY,         // an interval during which a tenant had work running on a GPU; aux = start time
  CONTEXT_SWITCH,   // time-slice switch on a GPU; tenant = incoming context; value = switch cost (s); aux = when
                    // the switch ended: the event's time, except in a folded log (GPU_SLICE), where a switch whose
                    // slice was still open at the end of the run is logged then
  JOB_SUBMIT,       // training/batch job submitted
  JOB_START,
  STEP_DONE,          // value = step time (s)
  JOB_DONE,           // value = completion time (s), aux = ideal time alone (s)
  WORKLOAD_FAILED,    // aux = reason code (FailureReason)
  GPU_FAULT,          // a fatal error in a client; tenant/workload/replica = the faulting client, value = clients
                      // ended by it (the fault domain), aux = 1 when the domain is the whole GPU (MPS, time-slicing),
                      // 2 when the whole node was lost (scope node)
  MODEL_LOAD,         // a replica loaded one of its service's models (model swapping); value = bytes, aux = start time
  RECONFIGURE_START,  // a MIG re-partitioning of a node pool begins (drain); value = replicas on the old instances,
                      // aux = GPUs re-partitioned
  RECONFIGURE_DONE,   // the new instances are up; value = evicted replicas placed again, aux = drain start time
  // Device memory (models/gpu allocator; tenant/workload/replica = the owner; gpu = the device):
  MEM_ALLOC,    // value = bytes, aux = bytes of them that other tenants freed unscrubbed (residue handed over)
  MEM_FREE,     // value = bytes, aux = 1 when they will be scrubbed before reuse
  MEM_SCRUB,    // a scrub finished; value = bytes overwritten, aux = scrub start time
  MEM_RESIDUE,  // unscrubbed bytes of another tenant handed to this allocation; value = bytes, aux = source workload
  MEM_SCRUBBED_REUSE,  // scrubbed bytes of another tenant handed over (closed); value = bytes, aux = source workload
  // Attacks (models/attack; tenant/workload = the attacker, replica = its process):
  ATTACK_PROBE,        // one timed probe; value = latency the attacker measured (s), aux = what was sent (bit) or -1
  ATTACK_BIT,          // covert channel: one payload bit decoded; value = decoded bit, aux = sent bit
  ATTACK_OBSERVATION,  // fingerprint / extraction: one guess; value = guessed candidate or estimate, aux = truth;
                       // a covert channel's rate search (bitRate auto): one trial, value = its rate (bit/s),
                       // aux = its bit error rate
  ATTACK_RECOVERED,    // remanence scrape: bytes read back; value = bytes, aux = source workload
  ATTACK_DONE,         // value = attack-specific summary (bits sent, guesses, bytes), aux = start time
  // Tagged data (models/storage; tenant/workload/replica = who moved it, gpu = its device or -1):
  DATA_MOVE,    // a movement or access of tagged data finished; value = bytes, aux = index into
                // RunResult::data_movements (owner, from, to, encryption, identity, links crossed)
  DATA_DENIED,  // an access refused by a storage ACL or network policy; value = bytes asked, aux = index as above
  // Quotas (sim/engine; tenant/workload = the queued or admitted workload, value = its GPUs):
  QUOTA_QUEUED,     // the workload waits for quota; aux = the tenant's GPUs in use
  QUOTA_ADMITTED,   // admitted (placed); aux = GPUs of it borrowed beyond the nominal quota
  QUOTA_RELEASED,   // its GPUs returned to the quota (finished, failed or preempted)
  QUOTA_PREEMPTED,  // evicted to give a lender its quota back; aux = the reclaiming tenant
  // Identity and compliance (tenant/workload/replica = the replica acting, gpu = its device):
  ATTESTATION,         // the replica's confidential VM attested its GPU; value = 1 success, 0 failure
  KEY_RELEASE,         // the replica fetched a secret at start; value = 1 released, 0 refused; aux = secret index
                       // into spec.identity.secrets
  COMPLIANCE_REFUSED,  // an enforcing compliance rule refused a decision; value = rule index into
                       // spec.compliance.rules; aux = what was refused: 0 a placement on `gpu`, 1 a data
                       // access (its DATA_DENIED event follows), 2 a key release
  RUN_END,
  // Continuous batching (models/serving; after RUN_END so that the older codes stay as recorded):
  REQUEST_TOKENS,     // right after its REQUEST_DONE: value = time to first token (s), aux = time per output token
                      // after the first (s; 0 for a single output token)
  REQUEST_PREEMPTED,  // its KV blocks were taken back; value = KV tokens dropped (recompute) or swapped out
  // Identity at run time (models/threat; tenant = the effective identity's tenant):
  AGENT_CALL,      // one hop of a spec.identity.invocations call; value = 1 allowed, 0 refused; aux = index into
                   // RunResult::invocation_steps (a data hop's DATA_MOVE / DATA_DENIED follows it)
  SECRET_ROTATED,  // a secret's value changed; tenant = its owner, value = 1 an emergency rotation after a leak
                   // (spec.incidentResponse.revokeAfter), 0 the scheduled one; aux = secret index
  SECRET_LEAKED,   // an injected leak (spec.faults[].secret); tenant = the receiving tenant (-1: an outsider),
                   // value = the fault's index in spec.faults; aux = secret index
  // The folded log (the default; `gputwin run --trace detailed` logs CONTEXT_SWITCH and GPU_BUSY apart):
  GPU_SLICE,  // a time slice that began with a context switch: the switch's CONTEXT_SWITCH and the slice's
              // GPU_BUSY in one event; tenant = the context that ran, value = switch cost (s), aux = start time
              // (when the switch ended)
};

enum class FailureReason : uint8_t {
  NONE = 0,
  OUT_OF_MEMORY = 1,
  NOT_PLACED = 2,
  UNFINISHED = 3,
  FAULT = 4,
  RECONFIGURED = 5,  // evicted by a MIG re-partitioning (work still in flight after the drain is lost)
  PREEMPTED = 6,     // evicted by quota reclaim (a tenant took its nominal quota back)
  KEY_REFUSED = 7,   // an enforcing compliance rule refused its secret at start (attestation before key release)
};

const char* event_type_name(EventType t);
/// snake_case name of a failure reason (report.json, trace.json); "" for NONE.
const char* failure_reason_name(FailureReason r);
inline constexpr int EVENT_TYPE_COUNT = static_cast<int>(EventType::GPU_SLICE) + 1;

struct Event {
  double time = 0;
  uint64_t seq = 0;
  EventType type = EventType::RUN_START;
  int32_t tenant = -1;    // index into spec tenants, -1 when not applicable
  int32_t workload = -1;  // index into spec workloads
  int32_t replica = -1;   // replica or job instance within the workload
  int32_t gpu = -1;       // global GPU index (see RunLayout)
  double value = 0;
  double aux = 0;
};

// Typed readers of an event's payload. `value` and `aux` mean different things per type (the enum above
// says what); analyses read them through these, so each meaning is written down once and a reader that
// takes the wrong type trips an assertion in debug builds.
namespace payload {

inline bool is(const Event& e, std::initializer_list<EventType> types) {
  for (EventType t : types)
    if (e.type == t) return true;
  return false;
}
/// GPU_BUSY, GPU_SLICE, MODEL_LOAD, MEM_SCRUB, ATTACK_DONE: when the interval the event closes began (s).
inline double start_time(const Event& e) {
  assert(is(e, {EventType::GPU_BUSY, EventType::GPU_SLICE, EventType::MODEL_LOAD, EventType::MEM_SCRUB,
                EventType::ATTACK_DONE}));
  return e.aux;
}
/// GPU_BUSY or GPU_SLICE: an interval during which a tenant had work running on a GPU.
inline bool busy(const Event& e) {
  return e.type == EventType::GPU_BUSY || e.type == EventType::GPU_SLICE;
}
/// CONTEXT_SWITCH or GPU_SLICE: a time-slice context switch, which ended at switch_time() and cost switch_cost().
inline bool context_switch(const Event& e) {
  return e.type == EventType::CONTEXT_SWITCH || e.type == EventType::GPU_SLICE;
}
inline double switch_time(const Event& e) {
  assert(context_switch(e));
  return e.aux;
}
inline double switch_cost(const Event& e) {
  assert(context_switch(e));
  return e.value;
}
/// REQUEST_DONE: time the request waited before its batch started (s).
inline double queueing_delay(const Event& e) {
  assert(e.type == EventType::REQUEST_DONE);
  return e.aux;
}
/// REQUEST_DROPPED: when the request arrived (s).
inline double arrival_time(const Event& e) {
  assert(e.type == EventType::REQUEST_DROPPED);
  return e.aux;
}
/// JOB_DONE: the job's completion time had it run alone (s).
inline double ideal_time(const Event& e) {
  assert(e.type == EventType::JOB_DONE);
  return e.aux;
}
/// WORKLOAD_FAILED: why the replica or job ended.
inline FailureReason failure_reason(const Event& e) {
  assert(e.type == EventType::WORKLOAD_FAILED);
  return static_cast<FailureReason>(static_cast<int>(e.aux));
}
/// GPU_FAULT: the fault domain is the whole GPU (MPS, time-slicing), not the one client.
inline bool whole_gpu(const Event& e) {
  assert(e.type == EventType::GPU_FAULT);
  return e.aux > 0.5;
}
/// A GPU_FAULT that took the whole node down (spec.faults[].scope node): aux 2.
inline bool whole_node(const Event& e) {
  assert(e.type == EventType::GPU_FAULT);
  return e.aux > 1.5;
}
/// RECONFIGURE_START: GPUs re-partitioned.
inline int reconfigured_gpus(const Event& e) {
  assert(e.type == EventType::RECONFIGURE_START);
  return static_cast<int>(e.aux);
}
/// RECONFIGURE_DONE: when the drain of this reconfiguration began (its RECONFIGURE_START time, s).
inline double drain_start(const Event& e) {
  assert(e.type == EventType::RECONFIGURE_DONE);
  return e.aux;
}
/// MEM_RESIDUE, MEM_SCRUBBED_REUSE, ATTACK_RECOVERED: the workload whose bytes were handed over (-1: none).
inline int source_workload(const Event& e) {
  assert(is(e, {EventType::MEM_RESIDUE, EventType::MEM_SCRUBBED_REUSE, EventType::ATTACK_RECOVERED}));
  return static_cast<int>(e.aux);
}
/// ATTACK_PROBE, ATTACK_BIT, ATTACK_OBSERVATION: what was really sent or true (bit, candidate, estimate; -1 none).
inline double truth(const Event& e) {
  assert(is(e, {EventType::ATTACK_PROBE, EventType::ATTACK_BIT, EventType::ATTACK_OBSERVATION}));
  return e.aux;
}
/// ATTACK_OBSERVATION of a model-extraction attack's per-layer batch (replica 2): the batch's largest error.
inline double batch_error_max(const Event& e) {
  assert(e.type == EventType::ATTACK_OBSERVATION && e.replica == 2);
  return e.aux;
}
/// QUOTA_PREEMPTED: the tenant that reclaimed its quota.
inline int reclaiming_tenant(const Event& e) {
  assert(e.type == EventType::QUOTA_PREEMPTED);
  return static_cast<int>(e.aux);
}
/// DATA_MOVE, DATA_DENIED: index of the movement's record in RunResult::data_movements, when in [0, count).
inline std::optional<size_t> data_movement(const Event& e, size_t count) {
  assert(e.type == EventType::DATA_MOVE || e.type == EventType::DATA_DENIED);
  if (!(e.aux >= 0) || static_cast<size_t>(e.aux) >= count) return std::nullopt;
  return static_cast<size_t>(e.aux);
}
/// KEY_RELEASE, SECRET_ROTATED, SECRET_LEAKED: index of the secret in spec.identity.secrets, when in [0, count).
inline std::optional<size_t> secret(const Event& e, size_t count) {
  assert(is(e, {EventType::KEY_RELEASE, EventType::SECRET_ROTATED, EventType::SECRET_LEAKED}));
  if (!(e.aux >= 0) || static_cast<size_t>(e.aux) >= count) return std::nullopt;
  return static_cast<size_t>(e.aux);
}
/// AGENT_CALL: index of the hop in RunResult::invocation_steps, when in [0, count).
inline std::optional<size_t> invocation_step(const Event& e, size_t count) {
  assert(e.type == EventType::AGENT_CALL);
  if (!(e.aux >= 0) || static_cast<size_t>(e.aux) >= count) return std::nullopt;
  return static_cast<size_t>(e.aux);
}
/// SECRET_ROTATED: an emergency rotation after a leak became known (not the scheduled one).
inline bool emergency_rotation(const Event& e) {
  assert(e.type == EventType::SECRET_ROTATED);
  return e.value > 0.5;
}
/// COMPLIANCE_REFUSED: what the enforcing rule refused.
enum class Refused { PLACEMENT = 0, DATA_ACCESS = 1, KEY_RELEASE = 2 };
inline constexpr int REFUSED_KINDS = 3;
inline std::optional<Refused> refused(const Event& e) {
  assert(e.type == EventType::COMPLIANCE_REFUSED);
  const int kind = static_cast<int>(e.aux);
  if (e.aux < 0 || kind >= REFUSED_KINDS) return std::nullopt;
  return static_cast<Refused>(kind);
}
/// COMPLIANCE_REFUSED: index of the refusing rule in spec.compliance.rules.
inline size_t refusing_rule(const Event& e) {
  assert(e.type == EventType::COMPLIANCE_REFUSED);
  return static_cast<size_t>(e.value);
}

}  // namespace payload

// Stored in blocks of BLOCK_EVENTS events: appending never copies what is logged (a vector's doubling
// copies the whole log and needs twice its size for the copy; at millions of events that was the peak
// memory of a run, docs/PERFORMANCE.md), and each block is contiguous for the writers.
//
// Past the first `resident_blocks` blocks, each full block is written to an unlinked temporary file
// ($TMPDIR, else /tmp) and read back through a small cache when an analysis reaches it, so the log's
// resident memory stays bounded however long the simulated time (issue 21: a simulated day is ~136 M
// events, 7.6 GB). Nothing is left on disk: the file has no name and goes with the process. Where no
// temporary file can be made or written, blocks stay in memory as before.
//
// Reading: `operator[]` and the view's indexing return events by value (a spilled block may be evicted
// from the cache by a later read); an iterator pins its current block, so `*it` and `it->` stay valid
// while the iterator stays on that event (what range-for needs).
class EventLog {
 public:
  static constexpr size_t BLOCK_SHIFT = 16;
  static constexpr size_t BLOCK_EVENTS = size_t{1} << BLOCK_SHIFT;  // 3.5 MiB; a multiple of results.h5's chunk
  static constexpr size_t BLOCK_MASK = BLOCK_EVENTS - 1;
  // Developer knobs, read once from the environment by the default constructor, so that a whole test run can
  // put every analysis and writer through the spilled path: GPUTWIN_EVENT_LOG_RESIDENT_BLOCKS (blocks kept in
  // memory) and GPUTWIN_EVENT_LOG_BLOCK_SHIFT (log2 of the events per block, 0-20).
  /// 56 MiB of events (about a million) stay in memory; runs that small never touch the disk.
  static constexpr size_t DEFAULT_RESIDENT_BLOCKS = 16;
  using Block = std::vector<Event>;

  /// A block held for reading: its events stay valid while the view lives.
  class BlockView {
   public:
    BlockView() = default;
    explicit BlockView(std::shared_ptr<const Block> b) : block_(std::move(b)) {}
    const Event* data() const { return block_->data(); }
    size_t size() const { return block_->size(); }

   private:
    std::shared_ptr<const Block> block_;
  };

  /// Random-access view of the events in append order (seq order).
  class Range {
   public:
    class iterator {
     public:
      using iterator_category = std::random_access_iterator_tag;
      using value_type = Event;
      using difference_type = std::ptrdiff_t;
      using pointer = const Event*;
      using reference = const Event&;
      iterator() = default;
      iterator(const EventLog* log, size_t i) : log_(log), i_(i) {}
      reference operator*() const { return current(); }
      pointer operator->() const { return &current(); }
      Event operator[](difference_type n) const {
        return (*log_)[static_cast<size_t>(static_cast<difference_type>(i_) + n)];
      }
      iterator& operator++() {
        ++i_;
        return *this;
      }
      iterator operator++(int) {
        iterator old = *this;
        ++i_;
        return old;
      }
      iterator& operator--() {
        --i_;
        return *this;
      }
      iterator operator--(int) {
        iterator old = *this;
        --i_;
        return old;
      }
      iterator& operator+=(difference_type n) {
        i_ = static_cast<size_t>(static_cast<difference_type>(i_) + n);
        return *this;
      }
      iterator& operator-=(difference_type n) { return *this += -n; }
      friend iterator operator+(iterator it, difference_type n) { return it += n; }
      friend iterator operator+(difference_type n, iterator it) { return it += n; }
      friend iterator operator-(iterator it, difference_type n) { return it -= n; }
      friend difference_type operator-(const iterator& a, const iterator& b) {
        return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
      }
      friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }
      friend auto operator<=>(const iterator& a, const iterator& b) { return a.i_ <=> b.i_; }

     private:
      const Event& current() const {
        const size_t k = i_ >> log_->block_shift_;
        if (k != loaded_ || data_ == nullptr) {
          pin_ = log_->block(k);
          data_ = pin_.data();
          loaded_ = k;
        }
        return data_[i_ & log_->block_mask_];
      }

      const EventLog* log_ = nullptr;
      size_t i_ = 0;
      mutable size_t loaded_ = 0;
      mutable const Event* data_ = nullptr;
      mutable BlockView pin_;
    };

    explicit Range(const EventLog& log) : log_(&log) {}
    iterator begin() const { return {log_, 0}; }
    iterator end() const { return {log_, log_->size()}; }
    size_t size() const { return log_->size(); }
    bool empty() const { return log_->size() == 0; }
    Event operator[](size_t i) const { return (*log_)[i]; }
    Event at(size_t i) const {
      if (i >= log_->size()) throw std::out_of_range("event " + std::to_string(i) + " is not in the log");
      return (*log_)[i];
    }
    Event front() const { return (*log_)[0]; }
    Event back() const { return (*log_)[log_->size() - 1]; }

   private:
    const EventLog* log_;
  };

  EventLog();
  /// Keeps the first `resident_blocks` full blocks in memory and spills the later ones.
  explicit EventLog(size_t resident_blocks);
  ~EventLog();
  EventLog(const EventLog& other);
  EventLog& operator=(const EventLog& other);
  EventLog(EventLog&& other) noexcept;
  EventLog& operator=(EventLog&& other) noexcept;

  void append(Event e) {
    if (tail_ == nullptr || tail_->size() == block_mask_ + 1) seal_tail();
    e.seq = static_cast<uint64_t>(size_);
    tail_->push_back(e);
    ++size_;
  }
  Event operator[](size_t i) const {
    const size_t k = i >> block_shift_;
    if (k < resident_.size() && resident_[k] != nullptr) return (*resident_[k])[i & block_mask_];
    return block(k).data()[i & block_mask_];
  }
  Range events() const { return Range(*this); }
  size_t size() const { return size_; }
  /// Blocks in order: every one but the last holds block_events() events.
  size_t block_count() const { return (size_ + block_mask_) >> block_shift_; }
  /// BLOCK_EVENTS, unless GPUTWIN_EVENT_LOG_BLOCK_SHIFT set another power of two (tests).
  size_t block_events() const { return block_mask_ + 1; }
  /// Block `k` (< block_count()), read back from the temporary file when it was spilled.
  BlockView block(size_t k) const;
  /// Full blocks written to the temporary file so far.
  size_t spilled_blocks() const;

 private:
  struct Spill;  // the temporary file and the cache of blocks read back from it (EventLog.cpp)
  void seal_tail();
  void copy_from(const EventLog& other);

  size_t resident_limit_ = DEFAULT_RESIDENT_BLOCKS;
  size_t block_shift_ = BLOCK_SHIFT;
  size_t block_mask_ = BLOCK_MASK;
  std::vector<std::shared_ptr<Block>> resident_;  // per block: the block, or null once spilled
  std::shared_ptr<Block> tail_;                   // the block being appended to (also in resident_)
  size_t size_ = 0;
  std::unique_ptr<Spill> spill_;
};

}  // namespace gtw
