// Every GPU's busy intervals (GPU_BUSY: a time slice, a kernel run alone, an MPS client's busy spell), kept for
// the analysis until the SLO blame has looked them up. They are about half of a run's events, so a long run
// cannot hold them all: past a resident budget, each GPU's intervals go to a spill file in pages
// (sim/core/PagedRecords). A GPU's intervals come back in the order they were added, the same values, so every sum
// over them is the same spilled or not.
#pragma once

#include "PagedRecords.hpp"

namespace gtw {

// Packed: 20 bytes, not 24 with padding. Read members by value (`double{b.start}`) where a reference would bind.
struct [[gnu::packed]] BusyInterval {
  double start, end;
  int tenant;
};
static_assert(sizeof(BusyInterval) == 20);

/// Intervals are added when they end: ordered by their ends, which a cursor from a point in time looks up.
struct BusyIntervalEnd {
  double operator()(const BusyInterval& b) const { return b.end; }
};

using BusyIntervals = PagedRecords<BusyInterval, BusyIntervalEnd>;

/// 4 M intervals (80 MB) stay in memory before anything spills; a spilled page holds 256 of one GPU's.
inline constexpr SpillBudget BUSY_INTERVALS_BUDGET{size_t{1} << 22, 256};

}  // namespace gtw
