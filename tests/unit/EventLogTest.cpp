// The event log's block storage: append order is seq order across blocks, the view reads like the vector it
// replaced (range-for, indexing, iterator arithmetic, std algorithms), and a copy is independent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "EventLog.hpp"

namespace gtw {
namespace {

EventLog log_of(size_t n, size_t resident_blocks = EventLog::DEFAULT_RESIDENT_BLOCKS) {
  EventLog log(resident_blocks);
  for (size_t i = 0; i < n; ++i)
    log.append(Event{static_cast<double>(i), 999, EventType::GPU_BUSY, 0, 0, 0, static_cast<int32_t>(i % 8), 0, 0});
  return log;
}

TEST(EventLog, SeqIsTheAppendIndexAcrossBlocks) {
  const size_t n = 2 * EventLog::BLOCK_EVENTS + 3;
  const EventLog log = log_of(n);
  ASSERT_EQ(log.size(), n);
  ASSERT_EQ(log.block_count(), 3u);
  EXPECT_EQ(log.block(0).size(), EventLog::BLOCK_EVENTS);
  EXPECT_EQ(log.block(2).size(), 3u);
  EXPECT_EQ(log.spilled_blocks(), 0u) << "a log this small stays in memory";
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

// Past the resident blocks, full blocks go to the temporary file and read back the same, in any order and
// through any number of iterators at once (more than the cache holds).
TEST(EventLog, SpilledBlocksReadBackAsAppended) {
  const size_t n = 7 * EventLog::BLOCK_EVENTS + 11;
  const EventLog log = log_of(n, 1);
  ASSERT_EQ(log.block_count(), 8u);
  EXPECT_EQ(log.spilled_blocks(), 6u) << "block 0 stays, blocks 1-6 spill, block 7 is the tail";
  size_t i = 0, wrong = 0;
  for (const Event& e : log.events()) {
    wrong += e.seq != i || e.time != static_cast<double>(i) || e.gpu != static_cast<int32_t>(i % 8);
    ++i;
  }
  EXPECT_EQ(i, n);
  EXPECT_EQ(wrong, 0u);
  // Random access jumping between blocks, backwards.
  for (size_t j = n; j-- > 0;) {
    if (j % 9973 == 0) {
      ASSERT_EQ(log[j].seq, j);
    }
  }
  // One iterator per block, all alive at once: each keeps its block while the others read theirs.
  std::vector<EventLog::Range::iterator> its;
  for (size_t k = 0; k < log.block_count(); ++k)
    its.push_back(log.events().begin() + static_cast<std::ptrdiff_t>(k * EventLog::BLOCK_EVENTS + 5));
  std::vector<const Event*> refs;
  for (const auto& it : its) refs.push_back(&*it);
  for (size_t k = 0; k < refs.size(); ++k) EXPECT_EQ(refs[k]->seq, k * EventLog::BLOCK_EVENTS + 5);
  // Binary search across spilled blocks.
  const auto events = log.events();
  const double t = 3.5 * static_cast<double>(EventLog::BLOCK_EVENTS);
  const auto at =
      std::lower_bound(events.begin(), events.end(), t, [](const Event& e, double x) { return e.time < x; });
  EXPECT_EQ(at - events.begin(), static_cast<std::ptrdiff_t>(t));
}

// Where no temporary file can be made, the blocks stay in memory: the run goes on, with the memory it had before.
TEST(EventLog, WithoutATemporaryFileTheBlocksStayInMemory) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/nonexistent/gputwin-test", 1);
  const EventLog log = log_of(3 * EventLog::BLOCK_EVENTS + 1, 0);
  if (old != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_EQ(log.spilled_blocks(), 0u);
  ASSERT_EQ(log.size(), 3 * EventLog::BLOCK_EVENTS + 1);
  for (size_t i = 0; i < log.size(); i += 7919) ASSERT_EQ(log[i].seq, i);
}

TEST(EventLog, ACopyOrMoveOfASpilledLogReadsTheSame) {
  EventLog a = log_of(3 * EventLog::BLOCK_EVENTS + 2, 0);
  ASSERT_EQ(a.spilled_blocks(), 3u);
  const EventLog copy = a;
  EventLog moved = std::move(a);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from log is empty
  moved.append(Event{});
  ASSERT_EQ(copy.size(), 3 * EventLog::BLOCK_EVENTS + 2);
  ASSERT_EQ(moved.size(), copy.size() + 1);
  for (size_t i = 0; i < copy.size(); i += 4099) {
    ASSERT_EQ(copy[i].seq, i);
    ASSERT_EQ(moved[i].time, copy[i].time);
  }
}

}  // namespace
}  // namespace gtw
