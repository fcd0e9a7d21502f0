#include "ChartPanel.hpp"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QStackedLayout>

namespace gtw::gui {

ChartPanel::ChartPanel(QWidget* parent) : QWidget(parent) {
  stack_ = new QStackedLayout(this);
  stack_->setContentsMargins(0, 0, 0, 0);
  view_ = new QChartView(this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumSize(240, 180);
  label_ = new QLabel(this);
  label_->setAlignment(Qt::AlignCenter);
  label_->setWordWrap(true);
  label_->setStyleSheet(QStringLiteral("color: #666; font-size: 11pt; padding: 24px;"));
  stack_->addWidget(view_);
  stack_->addWidget(label_);
  set_chart(nullptr);
}

ChartPanel::~ChartPanel() = default;  // the view deletes the chart it holds

void ChartPanel::set_chart(QChart* chart, const QString& placeholder) {
  // QChartView releases, but does not delete, the chart it is replacing.
  QChart* old = view_->chart();
  view_->setChart(chart ? chart : new QChart);
  delete old;
  chart_ = chart;
  label_->setText(placeholder);
  stack_->setCurrentWidget(chart ? static_cast<QWidget*>(view_) : label_);
}

QString ChartPanel::placeholder() const {
  return chart_ ? QString() : label_->text();
}

}  // namespace gtw::gui
