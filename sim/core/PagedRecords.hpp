// Append-only tables of fixed-size records, one list per owner (a GPU, a workload), that keep memory bounded over a
// long run: past a resident budget, an owner's latest records go to a spill file as a page, and reading assembles
// the pages again. An owner's records come back in the order they were added, the same bytes, so every sum over
// them is the same spilled or not (issue 21: memory that does not grow with simulated time). The analysis keeps
// its busy intervals, context switches, request and job outcomes in them; all go through sim/core/SpillFile.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "SpillFile.hpp"

namespace gtw {

/// How many records stay in memory (all owners together) before pages spill, and how many of one owner's make a
/// page.
struct SpillBudget {
  size_t resident = SIZE_MAX;
  size_t page = 256;
};

/// The analysis' tables share two developer knobs that override their budgets, so that one setting puts every
/// table through its spilled path: GPUTWIN_ANALYSIS_RESIDENT_RECORDS and GPUTWIN_ANALYSIS_PAGE_RECORDS (whole
/// numbers; unset or invalid keeps `fallback`'s).
inline SpillBudget analysis_spill_budget(SpillBudget fallback) {
  return {spill_knob("GPUTWIN_ANALYSIS_RESIDENT_RECORDS", fallback.resident, 0, SIZE_MAX),
          spill_knob("GPUTWIN_ANALYSIS_PAGE_RECORDS", fallback.page, 1, UINT32_MAX)};
}

/// Tables without a key: read from the start only.
struct NoKey {};

/// `Key` (a stateless functor: double(const T&)) orders an owner's records as they are added; with one, a cursor can
/// start at the first record whose key is past a value.
template <class T, class Key = NoKey>
class PagedRecords {
  static_assert(std::is_trivially_copyable_v<T>, "records are written to the spill file as bytes");
  struct Owner;

 public:
  /// A forward reader of one owner's records, reading spilled pages one at a time as it goes, so that a lookup
  /// costs the records it visits, not the owner's whole history. Reads the in-memory tail in place: valid while no
  /// record is added.
  class Cursor {
   public:
    Cursor() = default;
    Cursor(Cursor&&) noexcept = default;  // a moved vector keeps its buffer: data_ stays valid
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    bool valid() const { return i_ < n_; }
    const T& operator*() const { return data_[i_]; }
    const T* operator->() const { return data_ + i_; }
    /// The record's position in its owner's list.
    size_t index() const { return first_ + i_; }
    Cursor& operator++() {
      if (++i_ < n_) return *this;
      if (page_ < owner_->pages.size()) enter(page_ + 1);  // the next page, or the tail
      return *this;
    }

   private:
    friend class PagedRecords;
    void enter(size_t page) {  // page == the owner's page count: the tail
      page_ = page;
      i_ = 0;
      if (page < owner_->pages.size()) {
        const Page& p = owner_->pages[page];
        buffer_.resize(p.count);
        store_->read_page(owner_index_, p, buffer_.data());
        data_ = buffer_.data();
        n_ = p.count;
        first_ = p.first;
      } else {
        data_ = owner_->tail.data();
        n_ = owner_->tail.size();
        first_ = owner_->count - owner_->tail.size();
      }
    }

    const PagedRecords* store_ = nullptr;
    const Owner* owner_ = nullptr;
    size_t owner_index_ = 0, page_ = 0, i_ = 0, n_ = 0, first_ = 0;
    const T* data_ = nullptr;
    std::vector<T> buffer_;  // the spilled page being read
  };

  explicit PagedRecords(size_t owners = 0, SpillBudget budget = {}, std::string spill_name = "gputwin-records")
      : owners_(owners),
        resident_limit_(budget.resident),
        page_(std::max<size_t>(budget.page, 1)),
        spill_name_(std::move(spill_name)) {}
  PagedRecords(PagedRecords&&) noexcept = default;
  PagedRecords& operator=(PagedRecords&&) noexcept = default;

  size_t owners() const { return owners_.size(); }
  size_t size(size_t owner) const { return owners_[owner].count; }
  /// Records written to the spill file (0 when the run was small or no file could be made).
  size_t spilled() const { return spilled_; }
  /// Whether a spill was due but no file could be made or written: the records stay in memory.
  bool spill_failed() const { return file_failed_; }

  /// Reserves for the counts a first pass found: all of them when they fit the resident budget. When they do not,
  /// a page each, and every owner's page spills as soon as it is full: holding records until the budget is reached
  /// would only let the tails grow (by doubling, up to twice the budget) before they spill all the same.
  void expect(const std::vector<size_t>& per_owner) {
    size_t total = 0;
    for (size_t n : per_owner) total += n;
    const bool fits = total <= resident_limit_;
    spill_full_pages_ = !fits;
    for (size_t o = 0; o < per_owner.size() && o < owners_.size(); ++o)
      owners_[o].tail.reserve(fits ? per_owner[o] : std::min(per_owner[o], page_));
  }

  void add(size_t owner, const T& record) {
    Owner& o = owners_[owner];
    o.tail.push_back(record);
    ++o.count;
    ++resident_;
    if ((spill_full_pages_ || resident_ > resident_limit_) && o.tail.size() >= page_ && !file_failed_) spill_tail(o);
  }

  /// The owner's records in the order added. Valid until the next call of `of` (a spilled owner's are assembled in
  /// one buffer).
  const std::vector<T>& of(size_t owner) const {
    const Owner& o = owners_[owner];
    if (o.pages.empty()) return o.tail;
    assembled_.resize(o.count);
    size_t at = 0;
    for (const Page& p : o.pages) {
      read_page(owner, p, assembled_.data() + at);
      at += p.count;
    }
    std::copy(o.tail.begin(), o.tail.end(), assembled_.begin() + static_cast<std::ptrdiff_t>(at));
    return assembled_;
  }

  /// The owner's records from the first.
  Cursor begin(size_t owner) const {
    Cursor c = cursor(owner);
    c.enter(0);
    return c;
  }

  /// The owner's records from the one at `position` (its place in the owner's list) on.
  Cursor from_position(size_t owner, size_t position) const {
    Cursor c = cursor(owner);
    const auto& pages = c.owner_->pages;
    const auto page =
        static_cast<size_t>(std::partition_point(pages.begin(), pages.end(),
                                                 [position](const Page& p) { return p.first + p.count <= position; }) -
                            pages.begin());
    c.enter(page);
    c.i_ = std::min(position - c.first_, c.n_);
    return c;
  }

  /// Calls `f(record)` for each of the owner's records, in order.
  template <class F>
  void for_each(size_t owner, F&& f) const {
    for (Cursor c = begin(owner); c.valid(); ++c) f(*c);
  }

  /// The owner's records from the first whose key is greater than `key` (they were added in order of their keys).
  Cursor after(size_t owner, double key) const {
    static_assert(!std::is_same_v<Key, NoKey>, "a table without a key is read from the start");
    Cursor c = cursor(owner);
    const auto& pages = c.owner_->pages;
    const auto page = static_cast<size_t>(
        std::partition_point(pages.begin(), pages.end(), [key](const Page& p) { return p.last_key <= key; }) -
        pages.begin());
    c.enter(page);
    // Inside a page found by its last key, or the tail: the first record past `key`.
    c.i_ = static_cast<size_t>(
        std::partition_point(c.data_, c.data_ + c.n_, [key](const T& r) { return Key{}(r) <= key; }) - c.data_);
    return c;
  }

 private:
  struct Page {
    int64_t offset;
    uint32_t count;
    size_t first;     // the position of its first record in the owner's list
    double last_key;  // its last record's key (0 without a key): pages are found by key
  };
  struct Owner {
    std::vector<Page> pages;  // on disk, in order
    std::vector<T> tail;      // the latest, in memory
    size_t count = 0;         // pages' and tail's
  };

  Cursor cursor(size_t owner) const {
    Cursor c;
    c.store_ = this;
    c.owner_ = &owners_[owner];
    c.owner_index_ = owner;
    return c;
  }

  // Writes the owner's tail as one page (a tail that grew before the budget was reached may be longer than a
  // page). Where no file can be made or written the records stay in memory, as the event log's blocks do.
  void spill_tail(Owner& o) {
    if (file_ == nullptr) {
      file_ = std::make_unique<SpillFile>();
      if (!file_->open(spill_name_)) {
        file_failed_ = true;
        return;
      }
    }
    const int64_t at = file_->append(o.tail.data(), o.tail.size() * sizeof(T));
    if (at < 0) {
      file_failed_ = true;
      return;
    }
    double last_key = 0;
    if constexpr (!std::is_same_v<Key, NoKey>) last_key = Key{}(o.tail.back());
    o.pages.push_back({at, static_cast<uint32_t>(o.tail.size()), o.count - o.tail.size(), last_key});
    resident_ -= o.tail.size();
    spilled_ += o.tail.size();
    const bool oversized = o.tail.capacity() > 2 * page_;
    o.tail.clear();
    if (oversized) {
      o.tail.shrink_to_fit();
      o.tail.reserve(page_);
    }
  }

  void read_page(size_t owner, const Page& p, T* out) const {
    file_->read(p.offset, out, p.count * sizeof(T), spill_name_ + " of owner " + std::to_string(owner));
  }

  std::vector<Owner> owners_;
  size_t resident_limit_, page_;
  size_t resident_ = 0, spilled_ = 0;
  std::string spill_name_;
  std::unique_ptr<SpillFile> file_;
  bool file_failed_ = false;
  bool spill_full_pages_ = false;  // expect() found more than the budget
  mutable std::vector<T> assembled_;
};

}  // namespace gtw
