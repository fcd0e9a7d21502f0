#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>

#include "ChartStyle.hpp"
#include "Charts.hpp"

namespace gtw::gui {

QChart* make_latency_chart(const Report& report) {
  std::vector<const Workload*> inference;
  for (const auto& w : report.workloads)
    if (w.inference()) inference.push_back(&w);
  if (inference.empty()) return nullptr;

  double max_s = 0;
  for (const auto* w : inference)
    for (double v : {w->latency.p50_s, w->latency.p95_s, w->latency.p99_s})
      if (std::isfinite(v)) max_s = std::max(max_s, v);
  // Sub-second services read better in milliseconds than as 0.0xx s.
  const bool ms = max_s < 1;
  const double scale = ms ? 1e3 : 1;

  struct Level {
    const char* name;
    double LatencySummary::*field;
    QRgb color;
  };
  // Light to dark: the higher the percentile, the darker the bar.
  const std::array<Level, 3> levels = {Level{"p50", &LatencySummary::p50_s, 0x9ecae1},
                                       Level{"p95", &LatencySummary::p95_s, 0x4292c6},
                                       Level{"p99", &LatencySummary::p99_s, 0x08519c}};
  auto* series = new QBarSeries;
  series->setBarWidth(inference.size() == 1 ? 0.5 : 0.8);  // one wide group looks like a wall
  QStringList categories;
  for (const auto* w : inference) {
    QString label = QString::fromStdString(w->tenant + " / " + w->name);
    bool unbounded = false;
    for (const auto& l : levels) unbounded |= std::isinf(w->latency.*l.field);
    if (unbounded) label += QStringLiteral(" (dropped requests: some percentiles unbounded)");
    categories << label;
  }
  for (const auto& l : levels) {
    auto* set = new QBarSet(QString::fromLatin1(l.name));
    set->setColor(QColor(l.color));
    set->setBorderColor(QColor(l.color));
    set->setLabelColor(QColor(0x222222));  // the theme's default is white, invisible above the bar
    for (const auto* w : inference) {
      const double v = w->latency.*l.field;
      *set << (std::isfinite(v) ? v * scale : 0.0);
    }
    series->append(set);
  }
  series->setLabelsVisible(true);
  series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
  series->setLabelsPrecision(3);

  auto* chart = new QChart;
  detail::style_chart(chart, QStringLiteral("Request latency per inference workload"));
  chart->addSeries(series);
  auto* x_axis = new QBarCategoryAxis;
  x_axis->append(categories);
  auto* y_axis =
      detail::padded_axis(ms ? QStringLiteral("latency (ms)") : QStringLiteral("latency (s)"), max_s * scale * 1.12);
  y_axis->setMin(0);  // bars start on the axis; only the top needs room for the value labels
  chart->addAxis(x_axis, Qt::AlignBottom);
  chart->addAxis(y_axis, Qt::AlignLeft);
  series->attachAxis(x_axis);
  series->attachAxis(y_axis);
  return chart;
}

}  // namespace gtw::gui
