// The analysis' paged tables past their resident budget (sim/core/PagedRecords.hpp; the busy intervals of
// sim/analysis/index/BusyIntervals.hpp, the switch times, request and job outcomes): spilled pages read back as added,
// whole, from the start or from a key on, with each record's position, and in memory when no temporary file can be
// made.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "BusyIntervals.hpp"
#include "SpillFile.hpp"

namespace gtw {
namespace {

// GPU g's k-th interval ends at k + g / 10 (several may end together: every third repeats the previous end).
std::vector<std::vector<BusyInterval>> expected_of(size_t gpus, size_t per_gpu) {
  std::vector<std::vector<BusyInterval>> out(gpus);
  for (size_t k = 0; k < per_gpu; ++k)
    for (size_t g = 0; g < gpus; ++g) {
      const double end = static_cast<double>(k - (k % 3 == 2 ? 1 : 0)) + static_cast<double>(g) / 10;
      out[g].push_back({end - 0.5, end, static_cast<int>((k + g) % 4)});
    }
  return out;
}

BusyIntervals filled(const std::vector<std::vector<BusyInterval>>& expected, size_t resident, size_t page) {
  BusyIntervals store(expected.size(), {resident, page});
  for (size_t k = 0; k < expected[0].size(); ++k)  // interleaved across GPUs, as the log gives them
    for (size_t g = 0; g < expected.size(); ++g) store.add(g, expected[g][k]);
  return store;
}

void expect_same(const BusyInterval& a, const BusyInterval& b) {
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.tenant, b.tenant);
}

TEST(BusyIntervals, SpilledPagesReadBackAsAdded) {
  const auto expected = expected_of(5, 1000);
  const BusyIntervals store = filled(expected, 100, 7);
  EXPECT_GT(store.spilled(), 4000u) << "past 100 resident intervals, every GPU's full pages go to the file";
  for (size_t g : {3u, 0u, 4u, 1u, 2u}) {  // any order
    const auto& got = store.of(g);
    ASSERT_EQ(got.size(), expected[g].size());
    for (size_t i = 0; i < got.size(); ++i) expect_same(got[i], expected[g][i]);
  }
}

// A cursor from a point in time visits exactly what a lower bound on the whole list would, in order, across
// page boundaries and into the tail.
TEST(BusyIntervals, ACursorFromATimeVisitsWhatALowerBoundWould) {
  const auto expected = expected_of(3, 500);
  for (size_t page : {1u, 7u, 256u}) {
    const BusyIntervals store = filled(expected, 0, page);
    for (size_t g = 0; g < 3; ++g)
      for (double time : {-1.0, 0.0, 0.1, 41.0, 41.2, 100.5, 498.2, 499.0, 600.0}) {
        const auto& all = expected[g];
        auto want =
            std::partition_point(all.begin(), all.end(), [time](const BusyInterval& b) { return b.end <= time; });
        auto it = store.after(g, time);
        for (; want != all.end(); ++want, ++it) {
          ASSERT_TRUE(it.valid()) << "page " << page << " GPU " << g << " from " << time;
          expect_same(*it, *want);
          EXPECT_EQ(it.index(), static_cast<size_t>(want - all.begin())) << "its position in the GPU's list";
        }
        EXPECT_FALSE(it.valid());
      }
  }
}

TEST(BusyIntervals, UnderTheBudgetNothingIsSpilled) {
  const auto expected = expected_of(4, 50);
  const BusyIntervals store = filled(expected, 200, 7);
  EXPECT_EQ(store.spilled(), 0u);
  EXPECT_EQ(store.of(2).size(), 50u);
}

// Where no temporary file can be made, the intervals stay in memory: the analysis goes on, with the memory it had.
TEST(BusyIntervals, WithoutATemporaryFileTheyStayInMemory) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/nonexistent/gputwin-test", 1);
  const auto expected = expected_of(2, 300);
  const BusyIntervals store = filled(expected, 0, 4);
  if (old != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_EQ(store.spilled(), 0u);
  const auto& got = store.of(1);
  ASSERT_EQ(got.size(), 300u);
  for (size_t i = 0; i < got.size(); ++i) expect_same(got[i], expected[1][i]);
}

// A table without a key (the request and job outcomes) reads from the start: every record once, in order, with its
// position, whether it was spilled, is in the tail or both; the counts are the owners' own.
struct Outcome {
  double value;
  int owner;
};

TEST(PagedRecords, FromTheStartEveryRecordInOrder) {
  for (const SpillBudget budget : {SpillBudget{0, 1}, SpillBudget{10, 3}, SpillBudget{SIZE_MAX, 256}}) {
    PagedRecords<Outcome> store(3, budget, "gputwin-test");
    store.expect({40, 0, 7});
    for (int k = 0; k < 40; ++k) {
      store.add(0, {k * 1.5, 0});
      if (k < 7) store.add(2, {-k * 1.0, 2});
    }
    EXPECT_EQ(store.size(0), 40u);
    EXPECT_EQ(store.size(1), 0u);
    EXPECT_EQ(store.size(2), 7u);
    EXPECT_FALSE(store.begin(1).valid()) << "an owner without records";
    size_t seen = 0;
    for (auto it = store.begin(0); it.valid(); ++it, ++seen) {
      EXPECT_EQ(it.index(), seen);
      EXPECT_EQ(it->value, static_cast<double>(seen) * 1.5);
    }
    EXPECT_EQ(seen, 40u) << "resident budget " << budget.resident;
    std::vector<double> twos;
    store.for_each(2, [&](const Outcome& o) { twos.push_back(o.value); });
    ASSERT_EQ(twos.size(), 7u);
    for (size_t k = 0; k < twos.size(); ++k) EXPECT_EQ(twos[k], -static_cast<double>(k));
    if (budget.resident == 0) {
      EXPECT_EQ(store.spilled(), 47u) << "pages of one: everything on disk";
    }
    if (budget.resident == SIZE_MAX) {
      EXPECT_EQ(store.spilled(), 0u);
    }
  }
}

// A cursor from a position (the leakage analysis' runs of co-activity, one after the other in one list) starts at
// that record wherever it lies: the first, inside a spilled page, on a page's first record, in the in-memory tail,
// and past the end (not valid).
TEST(PagedRecords, ACursorFromAPositionStartsAtThatRecord) {
  for (const SpillBudget budget :
       {SpillBudget{0, 1}, SpillBudget{0, 4}, SpillBudget{5, 3}, SpillBudget{SIZE_MAX, 256}}) {
    PagedRecords<Outcome> store(1, budget, "gputwin-test");
    for (int k = 0; k < 23; ++k) store.add(0, {k * 2.0, 0});
    for (size_t position = 0; position < 23; ++position) {
      auto it = store.from_position(0, position);
      for (size_t k = position; k < 23; ++k, ++it) {
        ASSERT_TRUE(it.valid()) << "from " << position << ", budget " << budget.resident << "/" << budget.page;
        EXPECT_EQ(it.index(), k);
        EXPECT_EQ(it->value, static_cast<double>(k) * 2.0);
      }
      EXPECT_FALSE(it.valid());
    }
    EXPECT_FALSE(store.from_position(0, 23).valid()) << "past the last record";
    if (budget.resident == 0) {
      EXPECT_GE(store.spilled(), 20u);
    }
  }
}

// When the first pass's counts exceed the budget, pages spill as soon as they are full (the tails never grow past a
// page); when they fit, nothing spills.
TEST(PagedRecords, CountsOverTheBudgetSpillEveryFullPage) {
  PagedRecords<Outcome> over(2, {100, 8}, "gputwin-test");
  over.expect({90, 30});
  for (int k = 0; k < 90; ++k) over.add(0, {k * 1.0, 0});
  for (int k = 0; k < 30; ++k) over.add(1, {k * 1.0, 1});
  EXPECT_EQ(over.spilled(), 88u + 24u)
      << "11 full pages of owner 0 and 3 of owner 1, 120 records against a budget of 100";
  double sum = 0;
  over.for_each(0, [&](const Outcome& o) { sum += o.value; });
  EXPECT_EQ(sum, 89.0 * 90.0 / 2.0);

  PagedRecords<Outcome> fits(2, {120, 8}, "gputwin-test");
  fits.expect({90, 30});
  for (int k = 0; k < 90; ++k) fits.add(0, {k * 1.0, 0});
  for (int k = 0; k < 30; ++k) fits.add(1, {k * 1.0, 1});
  EXPECT_EQ(fits.spilled(), 0u);
}

// The spill knobs (event log and analysis tables): a whole number in range, else the default.
TEST(SpillKnob, OnlyAWholeNumberInRangeIsTaken) {
  const char* name = "GPUTWIN_TEST_SPILL_KNOB";
  const auto with = [name](const char* value) {
    ::setenv(name, value, 1);
    const size_t v = spill_knob(name, 7, 1, 100);
    ::unsetenv(name);
    return v;
  };
  EXPECT_EQ(spill_knob(name, 7, 1, 100), 7u) << "unset";
  EXPECT_EQ(with("42"), 42u);
  EXPECT_EQ(with("100"), 100u);
  for (const char* bad : {"", "abc", "1e308", "-1", "0", "101", "99999999999999999999999", "12 ", " "})
    EXPECT_EQ(with(bad), 7u) << "'" << bad << "'";
}

}  // namespace
}  // namespace gtw
