// The event log's block storage: append order is seq order across blocks, the view reads like the vector it
// replaced (range-for, indexing, iterator arithmetic, std algorithms), and a copy is independent.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "EventLog.hpp"

namespace gtw {
namespace {

EventLog log_of(size_t n) {
  EventLog log;
  for (size_t i = 0; i < n; ++i)
    log.append(Event{static_cast<double>(i), 999, EventType::GPU_BUSY, 0, 0, 0, static_cast<int32_t>(i % 8), 0, 0});
  return log;
}

TEST(EventLog, SeqIsTheAppendIndexAcrossBlocks) {
  const size_t n = 2 * EventLog::BLOCK_EVENTS + 3;
  const EventLog log = log_of(n);
  ASSERT_EQ(log.size(), n);
  ASSERT_EQ(log.blocks().size(), 3u);
  EXPECT_EQ(log.blocks()[0].size(), EventLog::BLOCK_EVENTS);
  EXPECT_EQ(log.blocks()[2].size(), 3u);
  size_t i = 0;
  for (const Event& e : log.events()) {
    ASSERT_EQ(e.seq, i) << "the seq given at append replaces the caller's";
    ASSERT_EQ(e.time, static_cast<double>(i));
    ++i;
  }
  EXPECT_EQ(i, n);
  EXPECT_EQ(log.events().back().seq, n - 1);
  EXPECT_EQ(log.events().front().seq, 0u);
  EXPECT_EQ(log.events()[EventLog::BLOCK_EVENTS].time, static_cast<double>(EventLog::BLOCK_EVENTS));
  EXPECT_THROW((void)log.events().at(n), std::out_of_range);
}

TEST(EventLog, TheViewWorksWithStandardAlgorithms) {
  const EventLog log = log_of(EventLog::BLOCK_EVENTS + 100);
  const auto events = log.events();
  // Times are increasing: a binary search across the block boundary finds the first event at or after t.
  const double t = static_cast<double>(EventLog::BLOCK_EVENTS) + 0.5;
  const auto it =
      std::lower_bound(events.begin(), events.end(), t, [](const Event& e, double x) { return e.time < x; });
  ASSERT_NE(it, events.end());
  EXPECT_EQ(it->seq, EventLog::BLOCK_EVENTS + 1);
  EXPECT_EQ(it - events.begin(), static_cast<std::ptrdiff_t>(EventLog::BLOCK_EVENTS + 1));
  EXPECT_EQ(std::count_if(events.begin(), events.end(), [](const Event& e) { return e.gpu == 3; }),
            static_cast<std::ptrdiff_t>((EventLog::BLOCK_EVENTS + 100 + 4) / 8));
  EXPECT_TRUE(log_of(0).events().empty());
}

TEST(EventLog, ACopyIsIndependent) {
  EventLog a = log_of(10);
  const EventLog b = a;
  a.append(Event{});
  EXPECT_EQ(a.size(), 11u);
  EXPECT_EQ(b.size(), 10u);
  EXPECT_EQ(b.events().back().seq, 9u);
}

}  // namespace
}  // namespace gtw
