#include "ChartStyle.hpp"

#include <QAreaSeries>
#include <QChart>
#include <QFont>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>

#include "Charts.hpp"

namespace gtw::gui {

QColor tenant_color(int tenant_index) {
  // Tableau 10 without its red, so that red keeps meaning "violated".
  static constexpr std::array<QRgb, 8> palette = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xb07aa1,
                                                  0x76b7b2, 0xedc948, 0x9c755f, 0xff9da7};
  if (tenant_index < 0) return QColor(0xbab0ac);
  return QColor(palette[static_cast<size_t>(tenant_index) % palette.size()]);
}

QColor violation_color() {
  return QColor(0xd62728);
}
QColor met_color() {
  return QColor(0x2e7d32);
}

namespace detail {

void style_chart(QChart* chart, const QString& title) {
  chart->setTheme(QChart::ChartThemeLight);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(6, 6, 6, 6));
  QFont title_font = chart->titleFont();
  title_font.setPointSizeF(11);
  title_font.setBold(true);
  chart->setTitleFont(title_font);
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->setShowToolTips(true);
}

double nice_step(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
}

QValueAxis* padded_axis(const QString& title, double data_max, double step, double* top_tick) {
  if (!(data_max > 0) || !std::isfinite(data_max)) data_max = 1;
  // A hinted step (an SLO window) is kept while it gives a readable number of ticks.
  if (!(step > 0) || data_max / step > 12) step = nice_step(data_max / 5);
  const double top = std::max(step, std::ceil(data_max / step - 1e-9) * step);
  if (top_tick) *top_tick = top;
  const double pad = 0.025 * top;
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  axis->setRange(-pad, top + pad);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0);
  axis->setTickInterval(step);
  const int decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 6);
  axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
  return axis;
}

TimeAxis time_axis(double duration_s) {
  TimeAxis t;
  const bool minutes = duration_s >= 300;
  t.scale = minutes ? 60 : 1;
  t.axis = padded_axis(minutes ? QStringLiteral("simulated time (min)") : QStringLiteral("simulated time (s)"),
                       std::max(duration_s, 1.0) / t.scale);
  return t;
}

QAreaSeries* add_rectangle(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, QRectF r, QColor fill, QColor edge) {
  auto* upper = new QLineSeries;
  auto* lower = new QLineSeries;
  upper->append(r.left(), r.bottom());
  upper->append(r.right(), r.bottom());
  lower->append(r.left(), r.top());
  lower->append(r.right(), r.top());
  auto* area = new QAreaSeries(upper, lower);
  area->setBrush(fill);
  area->setPen(QPen(edge, 1));
  chart->addSeries(area);
  area->attachAxis(x);
  area->attachAxis(y);
  return area;
}

void add_text(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, QPointF at, const QString& text, double size) {
  auto* label = new QScatterSeries;
  label->setMarkerSize(1);
  label->setColor(Qt::transparent);
  label->setBorderColor(Qt::transparent);
  label->append(at);
  label->setPointLabelsFormat(text);
  label->setPointLabelsVisible(true);
  label->setPointLabelsClipping(false);
  label->setPointLabelsColor(QColor(0x333333));
  QFont f = label->pointLabelsFont();
  f.setPointSizeF(size);
  label->setPointLabelsFont(f);
  chart->addSeries(label);
  label->attachAxis(x);
  label->attachAxis(y);
}

}  // namespace detail
}  // namespace gtw::gui
