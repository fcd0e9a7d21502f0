#include "BusyIntervals.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "SpillFile.hpp"

namespace gtw {

BusyIntervals::BusyIntervals(size_t gpus)
    : BusyIntervals(gpus, spill_knob("GPUTWIN_BUSY_RESIDENT_INTERVALS", DEFAULT_RESIDENT, 0, SIZE_MAX),
                    spill_knob("GPUTWIN_BUSY_PAGE_INTERVALS", DEFAULT_PAGE, 1, UINT32_MAX)) {}

BusyIntervals::BusyIntervals(size_t gpus, size_t resident, size_t page)
    : gpus_(gpus), resident_limit_(resident), page_(page < 1 ? 1 : page) {}

BusyIntervals::BusyIntervals(BusyIntervals&&) noexcept = default;
BusyIntervals& BusyIntervals::operator=(BusyIntervals&&) noexcept = default;
BusyIntervals::~BusyIntervals() = default;

void BusyIntervals::expect(const std::vector<size_t>& per_gpu) {
  size_t total = 0;
  for (size_t n : per_gpu) total += n;
  const bool fits = total <= resident_limit_;
  for (size_t g = 0; g < per_gpu.size() && g < gpus_.size(); ++g)
    gpus_[g].tail.reserve(fits ? per_gpu[g] : std::min(per_gpu[g], page_));
}

void BusyIntervals::add(size_t gpu, const BusyInterval& b) {
  Gpu& g = gpus_[gpu];
  g.tail.push_back(b);
  ++resident_;
  if (resident_ > resident_limit_ && g.tail.size() >= page_ && !file_failed_) spill_tail(g);
}

// Writes the GPU's tail as one page (a tail that grew before the budget was reached may be longer than a page).
// Where no file can be made or written the intervals stay in memory, as the event log's blocks do.
void BusyIntervals::spill_tail(Gpu& g) {
  if (file_ == nullptr) {
    file_ = std::make_unique<SpillFile>();
    if (!file_->open("gputwin-busy")) {
      file_failed_ = true;
      return;
    }
  }
  const int64_t at = file_->append(g.tail.data(), g.tail.size() * sizeof(BusyInterval));
  if (at < 0) {
    file_failed_ = true;
    return;
  }
  g.pages.push_back({at, static_cast<uint32_t>(g.tail.size()), g.tail.back().end});
  resident_ -= g.tail.size();
  spilled_ += g.tail.size();
  const bool oversized = g.tail.capacity() > 2 * page_;
  g.tail.clear();
  if (oversized) {
    g.tail.shrink_to_fit();
    g.tail.reserve(page_);
  }
}

const std::vector<BusyInterval>& BusyIntervals::of(size_t gpu) const {
  const Gpu& g = gpus_[gpu];
  if (g.pages.empty()) return g.tail;
  size_t n = g.tail.size();
  for (const Page& p : g.pages) n += p.count;
  assembled_.resize(n);
  size_t at = 0;
  for (const Page& p : g.pages) {
    read_page(gpu, p, assembled_.data() + at);
    at += p.count;
  }
  std::copy(g.tail.begin(), g.tail.end(), assembled_.begin() + static_cast<std::ptrdiff_t>(at));
  return assembled_;
}

void BusyIntervals::read_page(size_t gpu, const Page& p, BusyInterval* out) const {
  file_->read(p.offset, out, p.count * sizeof(BusyInterval), "busy intervals of GPU " + std::to_string(gpu));
}

namespace {
// The first interval of [data, data + n) that ends after `time` (the intervals are in order of their ends).
size_t first_ending_after(const BusyInterval* data, size_t n, double time) {
  return static_cast<size_t>(
      std::partition_point(data, data + n, [time](const BusyInterval& b) { return b.end <= time; }) - data);
}
}  // namespace

BusyIntervals::Cursor BusyIntervals::after(size_t gpu, double time) const {
  Cursor c;
  c.store_ = this;
  c.gpu_ = &gpus_[gpu];
  c.gpu_index_ = gpu;
  const auto& pages = c.gpu_->pages;
  const auto page = static_cast<size_t>(
      std::partition_point(pages.begin(), pages.end(), [time](const Page& p) { return p.last_end <= time; }) -
      pages.begin());
  c.enter(page);
  c.i_ = first_ending_after(c.data_, c.n_, time);  // inside a page found: it ends after `time`
  return c;
}

void BusyIntervals::Cursor::enter(size_t page) {
  page_ = page;
  i_ = 0;
  if (page < gpu_->pages.size()) {
    const Page& p = gpu_->pages[page];
    buffer_.resize(p.count);
    store_->read_page(gpu_index_, p, buffer_.data());
    data_ = buffer_.data();
    n_ = p.count;
  } else {
    data_ = gpu_->tail.data();
    n_ = gpu_->tail.size();
  }
}

BusyIntervals::Cursor& BusyIntervals::Cursor::operator++() {
  if (++i_ < n_) return *this;
  if (page_ < gpu_->pages.size()) enter(page_ + 1);  // the next page, or the tail
  return *this;
}

}  // namespace gtw
