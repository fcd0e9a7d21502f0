#pragma once
// Chart builders: everything that touches Qt Charts lives under gui/charts/, so the window and the tests
// only see QChart pointers. Every builder returns a new chart the caller owns (ChartPanel takes it), or
// nullptr when the report has nothing to draw, so callers show a sentence instead of an empty chart.
#include <QColor>
#include <QString>
#include <QStringList>

#include <utility>
#include <vector>

#include "Compare.hpp"
#include "ReportModel.hpp"

class QChart;

namespace gtw::gui {

// Object names of the SLO window chart's series, for tests and for anyone restyling the chart.
inline constexpr const char* SERIES_VALUES = "values";
inline constexpr const char* SERIES_THRESHOLD = "threshold";
inline constexpr const char* SERIES_VIOLATED = "violated";

/// One colour per tenant (by position in the report), the same in every chart; never red, which means
/// "violated". Pseudo-causes such as "(context switches)" are grey.
QColor tenant_color(int tenant_index);
QColor violation_color();
QColor met_color();

/// The SLO's value per window (or per job for job SLOs) over simulated time, its objective as a
/// horizontal threshold line and the violated windows as red points. `duration_s` sets the time axis.
QChart* make_slo_window_chart(const Slo& slo, double duration_s, QColor color);
/// p50/p95/p99 latency per inference workload, as grouped bars; nullptr without inference workloads.
QChart* make_latency_chart(const Report& report);
/// Utilisation of every GPU, stacked by tenant; nullptr without GPUs.
QChart* make_gpu_utilisation_chart(const Report& report);
/// Who held the SLO's GPUs while it was violated; nullptr when the SLO has no attribution.
QChart* make_attribution_chart(const Slo& slo, const Report& report);

/// "GPU 6 (timeSlicing)": the category label of a GPU in the utilisation chart.
QString gpu_label(const Gpu& gpu);
/// Minimum height for the GPU chart to keep one readable bar per GPU.
int gpu_chart_min_height(const Report& report);

}  // namespace gtw::gui

// ---- The what-if charts: each draws the current run and, when `base` is given, the pinned baseline run
// beside it (dashed lines, "(baseline)" in the legend). Series are named "now:KEY" and "base:KEY" (object
// names) so tests and tools can find them. nullptr when there is nothing to draw.
namespace gtw::gui {

inline constexpr const char* NOW_PREFIX = "now:";
inline constexpr const char* BASE_PREFIX = "base:";

/// Latency CDF of every inference workload (share of completed requests within a latency, log time axis),
/// with each latency SLO as a dashed vertical line at its threshold and a marker at (threshold, percentile).
QChart* make_latency_cdf_chart(const Report& now, const Report* base);
/// Violated SLO windows (or jobs) per SLO window of simulated time, one line per tenant.
QChart* make_violation_timeline_chart(const Report& now, const Report* base);
/// Busy share of each GPU or MIG instance per SLO window; groups (node pool, sharing mode) when there are
/// many devices or a baseline.
QChart* make_utilisation_timeline_chart(const Report& now, const Report* base);
/// Resources with open channels in either run ("sm", "l2", ...), for the heatmap's channel choice.
QStringList leakage_resources(const Report& now, const Report* base);
/// Leakage bound in bits per (observer, source) tenant pair, summed over the channels of `resource`
/// (empty: all); unquantified channels show as "open ?".
QChart* make_leakage_heatmap(const Report& now, const Report* base, const QString& resource = {});
/// Which replica sat on which GPU (or MIG instance) when: one row per device, one bar per stay.
QChart* make_placement_timeline_chart(const Report& now, const Report* base);
/// The height at which every row of the placement chart has room for its label.
int placement_chart_min_height(const Report& now, const Report* base);

/// "12.3 kbit", "4.5 Mbit", "0 bit".
QString format_bits(double bits);

/// The leakage colour scale every heatmap and its legend share: log10 of the bits from 1 bit (lightest) to
/// 10^LEAKAGE_SCALE_DECADES bits (darkest), absolute, so that equal bits get equal colours across charts and
/// runs. Discrete exposures are placed on it at 8 bits per byte.
inline constexpr double LEAKAGE_SCALE_DECADES = 12;
QColor leakage_color(double bits);
QColor unquantified_color();  // a channel open but without a published capacity ("open ?", "+?")
QColor closed_color();        // no open channel between the pair
QColor same_tenant_color();   // the diagonal

/// Every pinned run and the current one (last) on one picture: worst p99 latency across, leakage (bits, log
/// scale) up, marker size by cost; each point labelled with its run and cost. nullptr when no run has an
/// inference latency.
QChart* make_tradeoff_chart(const std::vector<std::pair<QString, TradeOff>>& runs);

/// Who kept the GPUs busy when (report.json timeline): tenants stacked per step, all devices (`gpu` < 0, in
/// busy GPUs) or one device (busy share); the windows in which an SLO was violated shaded red; attacks, faults,
/// MIG reconfigurations and compliance violations or refusals as dashed lines. nullptr without a timeline.
QChart* make_timeline_chart(const Report& r, int gpu = -1);

inline QString q_string(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace gtw::gui
