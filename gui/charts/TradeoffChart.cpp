// The trade-off chart of the Compare tab: latency against leakage, marker size by cost.
#include <QChart>
#include <QLegend>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "ChartStyle.hpp"
#include "Charts.hpp"

namespace gtw::gui {

QChart* make_tradeoff_chart(const std::vector<std::pair<QString, TradeOff>>& runs) {
  double max_p99 = 0, max_bits = 1, max_cost = 0;
  bool any = false;
  for (const auto& [label, t] : runs) {
    if (!std::isfinite(t.p99_s)) continue;
    any = true;
    max_p99 = std::max(max_p99, t.p99_s);
    max_bits = std::max(max_bits, t.leaked_bits);
    if (std::isfinite(t.cost)) max_cost = std::max(max_cost, t.cost);
  }
  if (!any) return nullptr;
  auto* chart = new QChart;
  detail::style_chart(chart, QStringLiteral("Trade-off: latency, leakage and cost of each pinned run"));
  auto* x = detail::padded_axis(QStringLiteral("worst p99 request latency (s)"), max_p99 * 1.15);
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setTitleText(QStringLiteral("leaked: bound in bits + 8 bit per exposed byte (0 drawn at 1 bit)"));
  y->setLabelFormat(QStringLiteral("%.0e"));
  y->setRange(0.5, std::pow(10.0, std::ceil(std::log10(max_bits) + 0.5)));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& [label, t] = runs[i];
    if (!std::isfinite(t.p99_s)) continue;
    const bool current = i + 1 == runs.size();
    auto* s = new QScatterSeries;
    const QString cost = std::isfinite(t.cost) ? QStringLiteral("%1 %2")
                                                     .arg(QString::fromStdString(format_value(t.cost, "")))
                                                     .arg(QString::fromStdString(t.cost_unit))
                                               : QStringLiteral("cost -");
    s->setName(QStringLiteral("%1: %2").arg(label, cost));
    s->setObjectName(current ? QStringLiteral("now:tradeoff") : QStringLiteral("pinned:%1").arg(i));
    const double size = max_cost > 0 && std::isfinite(t.cost) ? 10 + 22 * std::sqrt(t.cost / max_cost) : 14;
    s->setMarkerSize(size);
    s->setMarkerShape(current ? QScatterSeries::MarkerShapeRectangle : QScatterSeries::MarkerShapeCircle);
    QColor color = tenant_color(static_cast<int>(i));
    color.setAlphaF(0.8f);
    s->setColor(color);
    s->setBorderColor(current ? Qt::black : color.darker(130));
    s->append(t.p99_s, std::max(t.leaked_bits, 1.0));
    // The point carries the run's number ("#2"); the legend the whole label and the cost.
    s->setPointLabelsFormat(label.section(QLatin1Char(' '), 0, 0));
    s->setPointLabelsVisible(true);
    s->setPointLabelsClipping(false);
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
  }
  chart->legend()->setAlignment(Qt::AlignBottom);
  return chart;
}

}  // namespace gtw::gui
