// Every GPU's busy intervals (GPU_BUSY: a time slice, a kernel run alone, an MPS client's busy spell), kept for
// the analysis until the SLO blame has looked them up. They are about half of a run's events, so a long run
// cannot hold them all: past a resident budget, each GPU's intervals go to a spill file in pages, and reading a
// GPU's intervals assembles its pages. A GPU's intervals come back in the order they were added, the same values,
// so every sum over them is the same spilled or not (issue 21: memory that does not grow with simulated time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gtw {

class SpillFile;

// Packed: 20 bytes, not 24 with padding. Read members by value (`double{b.start}`) where a reference would bind.
struct [[gnu::packed]] BusyInterval {
  double start, end;
  int tenant;
};
static_assert(sizeof(BusyInterval) == 20);

class BusyIntervals {
  struct Gpu;

 public:
  /// A forward reader of one GPU's intervals from a point on, reading spilled pages one at a time as it goes, so
  /// that a lookup costs the intervals it visits, not the GPU's whole history.
  class Cursor {
   public:
    Cursor() = default;
    Cursor(Cursor&&) noexcept = default;  // a moved vector keeps its buffer: data_ stays valid
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    bool valid() const { return i_ < n_; }
    const BusyInterval& operator*() const { return data_[i_]; }
    const BusyInterval* operator->() const { return data_ + i_; }
    Cursor& operator++();

   private:
    friend class BusyIntervals;
    void enter(size_t page);  // page == the GPU's page count: the tail

    const BusyIntervals* store_ = nullptr;
    const Gpu* gpu_ = nullptr;
    size_t gpu_index_ = 0, page_ = 0, i_ = 0, n_ = 0;
    const BusyInterval* data_ = nullptr;
    std::vector<BusyInterval> buffer_;  // the spilled page being read
  };

  /// 4 M intervals (80 MB) stay in memory before anything spills; a spilled page holds 256 of one GPU's.
  static constexpr size_t DEFAULT_RESIDENT = size_t{1} << 22;
  static constexpr size_t DEFAULT_PAGE = 256;

  /// `resident` and `page` come from the developer knobs GPUTWIN_BUSY_RESIDENT_INTERVALS and
  /// GPUTWIN_BUSY_PAGE_INTERVALS (read by this constructor; sim/core/SpillFile's spill_knob), else the defaults above.
  explicit BusyIntervals(size_t gpus);
  BusyIntervals(size_t gpus, size_t resident, size_t page);
  BusyIntervals(BusyIntervals&&) noexcept;
  BusyIntervals& operator=(BusyIntervals&&) noexcept;
  ~BusyIntervals();

  size_t gpus() const { return gpus_.size(); }
  /// Reserves for the counts a first pass found: all of them when they fit the resident budget, else a page each.
  void expect(const std::vector<size_t>& per_gpu);
  void add(size_t gpu, const BusyInterval& b);
  /// The GPU's intervals in the order added. Valid until the next call of `of` (a spilled GPU's are assembled
  /// in one buffer).
  const std::vector<BusyInterval>& of(size_t gpu) const;
  /// The GPU's intervals from the first that ends after `time` (they are in order of their ends). The cursor reads
  /// the GPU's in-memory tail in place: valid while no interval is added.
  Cursor after(size_t gpu, double time) const;
  /// Intervals written to the spill file (0 when the run was small or no file could be made).
  size_t spilled() const { return spilled_; }

 private:
  struct Page {
    int64_t offset;
    uint32_t count;
    double last_end;  // the end of its last interval: pages are found by time
  };
  struct Gpu {
    std::vector<Page> pages;         // on disk, in order
    std::vector<BusyInterval> tail;  // the latest, in memory
  };
  void spill_tail(Gpu& g);
  void read_page(size_t gpu, const Page& p, BusyInterval* out) const;

  std::vector<Gpu> gpus_;
  size_t resident_limit_, page_;
  size_t resident_ = 0, spilled_ = 0;
  std::unique_ptr<SpillFile> file_;
  bool file_failed_ = false;
  mutable std::vector<BusyInterval> assembled_;
};

}  // namespace gtw
