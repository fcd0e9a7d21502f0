#include "CompareView.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "ChartPanel.hpp"
#include "Charts.hpp"
#include "Compare.hpp"
#include "Tables.hpp"

namespace gtw::gui {
namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QTableWidgetItem* value_cell(double v, const std::string& unit) {
  auto* item = number_cell(q(format_value(v, unit)));
  item->setData(CompareView::VALUE_ROLE, v);
  return item;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  warning_ = new QLabel;
  warning_->setWordWrap(true);
  warning_->setTextFormat(Qt::RichText);
  layout->addWidget(warning_);
  auto* split = new QSplitter(Qt::Horizontal);
  table_ = make_table({QStringLiteral("Group"), QStringLiteral("Metric"), QStringLiteral("Baseline"),
                       QStringLiteral("Current"), QStringLiteral("Change")});
  split->addWidget(table_);
  chart_ = new ChartPanel;
  chart_->setMinimumSize(240, 200);
  split->addWidget(chart_);
  // The table is what is read; the chart is the picture beside it.
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 1);
  split->setSizes({640, 320});
  layout->addWidget(split, 1);
}

void CompareView::show_runs(const Report* now, const QString& now_label, const Report* base,
                            const std::vector<PinnedRun>& pinned) {
  table_->setRowCount(0);
  if (!now) {
    warning_->clear();
    chart_->set_chart(nullptr);
    return;
  }
  if (!base)
    warning_->setText(
        QStringLiteral("<span style='color:#555'>No baseline: pin a run (<b>Pin as baseline</b>), "
                       "change one thing and run again to see what it changed.</span>"));
  else if (!same_scenario(*now, *base))
    warning_->setText(
        QStringLiteral("<span style='color:%1; font-weight:600'>The baseline comes from another scenario (%2, %3); "
                       "the current run is %4 (%5). The differences below mix the design with the workload.</span>")
            .arg(violation_color().name(), q(base->scenario.name).toHtmlEscaped(),
                 q(base->scenario.file).toHtmlEscaped(), q(now->scenario.name).toHtmlEscaped(),
                 q(now->scenario.file).toHtmlEscaped()));
  else
    warning_->setText(
        QStringLiteral("<span style='color:#555'>Baseline and current run of the same scenario; "
                       "green: better, red: worse.</span>"));
  for (const auto& r : difference_rows(*now, base)) {
    auto* change = number_cell(base ? q(format_delta(r.current, r.baseline, r.unit)) : QString());
    if (base && r.better != 0 && std::isfinite(r.current) && std::isfinite(r.baseline) && r.current != r.baseline)
      change->setForeground((r.current > r.baseline) == (r.better > 0) ? met_color() : violation_color());
    append_row(table_, {text_cell(q(r.group)), text_cell(q(r.metric)), value_cell(r.baseline, r.unit),
                        value_cell(r.current, r.unit), change});
  }
  table_->setColumnHidden(COL_BASELINE, !base);
  table_->setColumnHidden(COL_CHANGE, !base);
  fit_columns(table_, 230);

  std::vector<std::pair<QString, TradeOff>> points;
  for (const auto& p : pinned) points.emplace_back(p.label, trade_off(p.report));
  points.emplace_back(now_label, trade_off(*now));
  chart_->set_chart(make_tradeoff_chart(points),
                    QStringLiteral("No inference latency to place the runs on (no inference workload)."));
}

}  // namespace gtw::gui
