#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "ChartStyle.hpp"
#include "Charts.hpp"

namespace gtw::gui {
namespace {

QString metric_title(const Slo& slo) {
  const QString unit = QString::fromStdString(slo.unit);
  if (slo.kind == "latency") {
    // "p99 latency <= ..." -> "p99 latency"
    const auto cut = slo.objective.find(" <=");
    const QString what =
        cut == std::string::npos ? QStringLiteral("latency") : QString::fromStdString(slo.objective.substr(0, cut));
    return what + " (" + unit + ")";
  }
  if (slo.kind == "throughput") return QStringLiteral("completed requests (%1)").arg(unit);
  if (slo.kind == "slowdown") return QStringLiteral("slowdown vs alone (%1)").arg(unit);
  if (slo.kind == "completionTime") return QStringLiteral("job completion time (%1)").arg(unit);
  return unit.isEmpty() ? QString::fromStdString(slo.kind) : QString::fromStdString(slo.kind) + " (" + unit + ")";
}

}  // namespace

QChart* make_slo_window_chart(const Slo& slo, double duration_s, QColor color) {
  auto* chart = new QChart;
  const QString status = slo.met ? QStringLiteral("met") : QStringLiteral("MISSED");
  const QString counted = slo.per_job() ? QStringLiteral("jobs") : QStringLiteral("windows");
  detail::style_chart(chart, QStringLiteral("%1 / %2: %3, %4 of %5 %6 violated")
                                 .arg(QString::fromStdString(slo.tenant), QString::fromStdString(slo.name), status)
                                 .arg(slo.violated)
                                 .arg(slo.evaluated)
                                 .arg(counted));

  std::vector<SloWindow> sorted = slo.windows;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
  // Axis ranges: all finite values, the threshold, and the run's length (a last job may start later).
  double x_max = duration_s;
  double y_max = slo.threshold.value_or(0);
  double window = 0;  // ticks on window boundaries read best
  for (size_t i = 0; i < sorted.size(); ++i) {
    x_max = std::max(x_max, sorted[i].start_s);
    if (std::isfinite(sorted[i].value)) y_max = std::max(y_max, sorted[i].value);
    if (i > 0 && !slo.per_job()) {
      const double gap = sorted[i].start_s - sorted[i - 1].start_s;
      if (gap > 0 && (window == 0 || gap < window)) window = gap;
    }
  }
  auto* x_axis = detail::padded_axis(slo.per_job() ? QStringLiteral("job submitted at (s of simulated time)")
                                                   : QStringLiteral("window start (s of simulated time)"),
                                     x_max, window);
  // Unbounded values (dropped requests, unfinished jobs) sit on the top tick, so they are seen, not lost.
  double ceiling = 0;
  auto* y_axis = detail::padded_axis(metric_title(slo), y_max * 1.05, 0, &ceiling);

  // Per-job SLOs are independent points: a line between two jobs would suggest a trend that is not there.
  QXYSeries* values = slo.per_job() ? static_cast<QXYSeries*>(new QScatterSeries) : new QLineSeries;
  values->setObjectName(SERIES_VALUES);
  values->setName(slo.per_job() ? QStringLiteral("per job") : QStringLiteral("per window"));
  auto* violated = new QScatterSeries;
  violated->setObjectName(SERIES_VIOLATED);
  int unbounded = 0;
  for (const auto& w : sorted) {
    const double y = std::isfinite(w.value) ? w.value : ceiling;
    unbounded += std::isfinite(w.value) ? 0 : 1;
    values->append(w.start_s, y);
    if (w.violated) violated->append(w.start_s, y);
  }
  violated->setName(
      unbounded == 0
          ? QStringLiteral("violated (%1)").arg(violated->count())
          : QStringLiteral("violated (%1; %2 unbounded, drawn on the top line)").arg(violated->count()).arg(unbounded));

  if (auto* line = qobject_cast<QLineSeries*>(values)) {
    line->setPen(QPen(color, 2));
    line->setPointsVisible(true);
  } else {
    auto* dots = static_cast<QScatterSeries*>(values);
    dots->setColor(color);
    dots->setBorderColor(color.darker(130));
    dots->setMarkerSize(7);
  }
  violated->setColor(violation_color());
  violated->setBorderColor(violation_color().darker(150));
  violated->setMarkerSize(11);

  chart->addSeries(values);
  if (slo.threshold) {
    auto* threshold = new QLineSeries;
    threshold->setObjectName(SERIES_THRESHOLD);
    const QString op = slo.bound == Bound::AT_MOST ? QStringLiteral("\u2264") : QStringLiteral("\u2265");
    threshold->setName(
        QStringLiteral("objective %1 %2").arg(op, QString::fromStdString(format_value(*slo.threshold, slo.unit))));
    threshold->append(x_axis->min(), *slo.threshold);
    threshold->append(x_axis->max(), *slo.threshold);
    QPen pen(QColor(0x333333), 2, Qt::DashLine);
    threshold->setPen(pen);
    chart->addSeries(threshold);
  }
  chart->addSeries(violated);  // last, so the red points are drawn on top

  chart->addAxis(x_axis, Qt::AlignBottom);
  chart->addAxis(y_axis, Qt::AlignLeft);
  for (auto* s : chart->series()) {
    s->attachAxis(x_axis);
    s->attachAxis(y_axis);
  }
  return chart;
}

}  // namespace gtw::gui
