// The analysis' busy intervals past their resident budget (sim/analysis/BusyIntervals.hpp): spilled pages read
// back as added, whole or from a point in time on, and in memory when no temporary file can be made.
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
  BusyIntervals store(expected.size(), resident, page);
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

// The spill knobs (event log and busy intervals): a whole number in range, else the default.
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
