#pragma once
// Chart builders: everything that touches Qt Charts lives under gui/charts/, so the window and the tests
// only see QChart pointers. Every builder returns a new chart the caller owns (ChartPanel takes it), or
// nullptr when the report has nothing to draw, so callers show a sentence instead of an empty chart.
#include <QColor>
#include <QString>
#include <QStringList>

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

/// "12.3 kbit", "4.5 Mbit", "0 bit".
QString format_bits(double bits);

}  // namespace gtw::gui
