#include "gui/charts/ChartExport.hpp"

#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QDir>

#include <algorithm>

#include "gui/charts/Charts.hpp"

namespace gtw::gui {
namespace {

// Tenant and SLO names are free text in the scenario; keep file names portable.
QString file_part(const std::string& name) {
  QString out = QString::fromStdString(name);
  for (auto& c : out)
    if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != '-' && c != '_' && c != '.') c = '_';
  return out;
}

}  // namespace

QImage render_chart(QChart* chart, QSize size) {
  QChartView view(chart);  // owns the chart from here on
  view.setRenderHint(QPainter::Antialiasing);
  view.resize(size);
  // Laid out and painted like a shown widget, but nothing appears on any screen.
  view.setAttribute(Qt::WA_DontShowOnScreen);
  view.show();
  QCoreApplication::processEvents();
  return view.grab().toImage();
}

ExportResult export_charts(const Report& report, const QString& dir, QSize size) {
  ExportResult out;
  if (!QDir().mkpath(dir)) {
    out.error = QStringLiteral("cannot create the directory %1").arg(dir);
    return out;
  }
  const QDir target(dir);
  auto save = [&](QChart* chart, const QString& name, QSize at) {
    if (!chart || !out.error.isEmpty()) {
      delete chart;
      return;
    }
    const QString path = target.filePath(name);
    if (!render_chart(chart, at).save(path, "PNG")) {
      out.error = QStringLiteral("cannot write %1").arg(path);
      return;
    }
    out.files << path;
  };
  save(make_latency_chart(report), QStringLiteral("latency.png"), size);
  save(make_gpu_utilisation_chart(report), QStringLiteral("gpu-utilisation.png"),
       QSize(size.width(), std::max(size.height(), gpu_chart_min_height(report))));
  for (const auto& slo : report.slos) {
    const QString stem = file_part(slo.tenant) + "-" + file_part(slo.name);
    // An SLO never evaluated has no points: no file rather than an empty chart.
    if (!slo.windows.empty())
      save(make_slo_window_chart(slo, report.scenario.duration_s, tenant_color(report.tenant_index(slo.tenant))),
           "slo-" + stem + ".png", size);
    // Out of the window, the chart must name its SLO itself.
    QChart* blame = make_attribution_chart(slo, report);
    if (blame)
      blame->setTitle(QStringLiteral("%1 / %2: who held the GPUs during violations")
                          .arg(QString::fromStdString(slo.tenant), QString::fromStdString(slo.name)));
    save(blame, "attribution-" + stem + ".png", QSize(size.height() * 4 / 3, size.height()));
  }
  return out;
}

}  // namespace gtw::gui
