#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QPieSeries>
#include <QPieSlice>

#include "ChartStyle.hpp"
#include "Charts.hpp"

namespace gtw::gui {

QChart* make_attribution_chart(const Slo& slo, const Report& report) {
  if (slo.attribution.empty()) return nullptr;
  auto* series = new QPieSeries;
  series->setPieSize(0.78);
  series->setHoleSize(0.35);  // a donut: the slices' labels sit on the ring, centred
  int grey = 0;
  for (const auto& a : slo.attribution) {
    auto* slice = series->append(QString(), a.share);
    const int t = report.tenant_index(a.who);
    // Pseudo-causes ("(context switches)") get greys that stay apart from each other.
    QColor c = t >= 0 ? tenant_color(t) : QColor::fromHsv(0, 0, 150 + 30 * (grey++ % 3));
    if (a.via != "gpu") c = c.lighter(135);  // the tenant's bytes on the victim's links, not its GPU time
    slice->setColor(c);
    slice->setBorderColor(Qt::white);
    slice->setLabel(QStringLiteral("%1%").arg(a.share * 100, 0, 'f', 0));
    slice->setLabelPosition(QPieSlice::LabelInsideHorizontal);
    slice->setLabelColor(c.lightness() > 150 ? Qt::black : Qt::white);
    // Labels on thin slices would overlap their neighbours; the legend still names them.
    slice->setLabelVisible(a.share >= 0.06);
  }
  auto* chart = new QChart;
  detail::style_chart(chart, QStringLiteral("What delayed it during violations: GPUs, storage, fabric"));
  chart->addSeries(series);
  chart->legend()->setAlignment(Qt::AlignRight);
  // Legend entries carry the full names; the slice labels only the percentages.
  const auto markers = chart->legend()->markers(series);
  for (qsizetype i = 0; i < markers.size() && i < static_cast<qsizetype>(slo.attribution.size()); ++i) {
    const auto& a = slo.attribution[static_cast<size_t>(i)];
    QString who = QString::fromStdString(a.who);
    if (a.via != "gpu") who += QStringLiteral(" on %1").arg(QString::fromStdString(a.via));
    if (a.who == slo.tenant) who += QStringLiteral(" (own load)");
    markers[i]->setLabel(QStringLiteral("%1  %2%").arg(who).arg(a.share * 100, 0, 'f', 1));
  }
  return chart;
}

}  // namespace gtw::gui
