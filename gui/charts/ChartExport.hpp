#pragma once
// Rendering charts to PNG files without showing them: `gputwin-gui --export-charts DIR` and File > Export.
#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

#include "gui/ReportModel.hpp"

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

}  // namespace gtw::gui
