#pragma once
// What changed between two runs, as rows of one table (the Compare tab): latency and serving percentiles per
// workload, SLO verdicts, leakage, compliance and cost. Qt-free, so tests check the numbers directly.
#include <string>
#include <vector>

#include "ReportModel.hpp"

namespace gtw::gui {

struct DiffRow {
  std::string group;   // "latency", "serving", "SLOs", "security", "compliance", "cost"
  std::string metric;  // "chat/api p99 latency"
  double baseline = NO_VALUE;
  double current = NO_VALUE;
  std::string unit;  // format_value's units
  int better = -1;   // -1: lower is better, +1: higher is better, 0: neither
};

/// The rows, in a fixed order (workloads and SLOs in report order). A metric that only one run has keeps its
/// row, with NaN for the other. `base` may be null: the rows then carry the current values only.
std::vector<DiffRow> difference_rows(const Report& now, const Report* base);

/// Whether two reports come from the same scenario (same name and file): comparing runs of different
/// scenarios mixes design changes with workload changes, so the window says so.
bool same_scenario(const Report& a, const Report& b);

/// One number per run for the trade-off chart: worst p99 latency of the inference workloads (TTFT p99 for
/// continuously batched ones is not mixed in: request latency is what every inference workload has), leakage
/// (bits plus 8 bit per open exposure byte), and cost (the report's total when priced, else allocated GPU-hours).
struct TradeOff {
  double p99_s = NO_VALUE;
  double leaked_bits = 0;
  double cost = NO_VALUE;
  std::string cost_unit;  // "cost units" or "GPU-h"
};
TradeOff trade_off(const Report& r);

}  // namespace gtw::gui
