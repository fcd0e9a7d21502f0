#include "ChartPanel.hpp"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLabel>
#include <QStackedLayout>
#include <QToolTip>
#include <QXYSeries>

namespace gtw::gui {

ChartPanel::ChartPanel(QWidget* parent) : QWidget(parent) {
  stack_ = new QStackedLayout(this);
  stack_->setContentsMargins(0, 0, 0, 0);
  view_ = new QChartView(this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumSize(200, 150);
  label_ = new QLabel(this);
  label_->setAlignment(Qt::AlignCenter);
  label_->setWordWrap(true);
  label_->setStyleSheet(QStringLiteral("color: #666; font-size: 11pt; padding: 24px;"));
  stack_->addWidget(view_);
  stack_->addWidget(label_);
  set_chart(nullptr);
}

ChartPanel::~ChartPanel() = default;  // the view deletes the chart it holds

namespace {

// "chat: 1.25 at 30.0": a series' name and the point under the pointer, in the axes' units.
QString hover_text(const QAbstractSeries* series, const QPointF& point) {
  QString name = series->name();
  if (name.isEmpty()) name = series->objectName();
  return QStringLiteral("%1\nx %2, y %3").arg(name).arg(point.x(), 0, 'g', 4).arg(point.y(), 0, 'g', 4);
}

// Every series shows its value under the pointer: lines and scatters by point, areas (bars, stacks, heatmap
// cells) by their name and the pointer's position.
void connect_hover(QChart* chart, QWidget* view) {
  for (QAbstractSeries* s : chart->series()) {
    if (auto* xy = qobject_cast<QXYSeries*>(s)) {
      QObject::connect(xy, &QXYSeries::hovered, view, [xy, view](const QPointF& p, bool state) {
        if (state) QToolTip::showText(QCursor::pos(), hover_text(xy, p), view);
      });
    } else if (auto* area = qobject_cast<QAreaSeries*>(s)) {
      QObject::connect(area, &QAreaSeries::hovered, view, [area, view](const QPointF& p, bool state) {
        if (state) QToolTip::showText(QCursor::pos(), hover_text(area, p), view);
      });
    }
  }
}

}  // namespace

void ChartPanel::set_chart(QChart* chart, const QString& placeholder) {
  // QChartView releases, but does not delete, the chart it is replacing.
  QChart* old = view_->chart();
  view_->setChart(chart ? chart : new QChart);
  delete old;
  chart_ = chart;
  if (chart) connect_hover(chart, view_);
  label_->setText(placeholder);
  stack_->setCurrentWidget(chart ? static_cast<QWidget*>(view_) : label_);
}

QString ChartPanel::placeholder() const {
  return chart_ ? QString() : label_->text();
}

}  // namespace gtw::gui
