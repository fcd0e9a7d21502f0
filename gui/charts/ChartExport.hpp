#pragma once
// Rendering charts to PNG files without showing them: `gputwin-gui --export-charts DIR` and File > Export.
#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

#include "ReportModel.hpp"

class QChart;

namespace gtw::gui {

struct ExportResult {
  QStringList files;  // written, in order
  QString error;      // empty on success
};

/// Renders `chart` (which it takes and deletes) at `size` logical pixels.
QImage render_chart(QChart* chart, QSize size);

/// Writes every chart of `report` into `dir` (created if needed): latency.png, gpu-utilisation.png,
/// slo-TENANT-SLO.png for every evaluated SLO and attribution-TENANT-SLO.png for every SLO with an
/// attribution; charts with nothing to draw are skipped.
ExportResult export_charts(const Report& report, const QString& dir, QSize size = QSize(1200, 675));

/// Writes the what-if charts of `now` against `base` (may be null) into `dir`: latency-cdf.png,
/// sla-violations.png, utilisation-over-time.png, leakage-heatmap.png, placements.png and summary.png.
ExportResult export_whatif_charts(const Report& now, const Report* base, const QString& dir,
                                  const QStringList& now_overrides = {}, const QStringList& base_overrides = {},
                                  QSize size = QSize(1200, 675));

/// One page: the scenario and verdict (and the baseline's), the five what-if charts and the SLO verdicts.
QImage render_summary(const Report& now, const Report* base, const QStringList& now_overrides,
                      const QStringList& base_overrides, QSize size = QSize(2000, 1250));

}  // namespace gtw::gui
