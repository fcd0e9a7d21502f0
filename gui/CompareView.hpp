#pragma once
// The Compare tab: the baseline against the current run as one difference table (latency, serving, SLOs,
// leakage, compliance, cost), a warning when the two runs come from different scenarios, and every pinned run
// on one latency / leakage / cost chart: the trade-off of a sharing design in one picture.
#include <QString>
#include <QWidget>

#include <vector>

#include "ReportModel.hpp"

class QLabel;
class QTableWidget;

namespace gtw::gui {

class ChartPanel;

// A run the user pinned, with a short label ("#2 serve: mig").
struct PinnedRun {
  QString label;
  Report report;
};

class CompareView : public QWidget {
  Q_OBJECT

 public:
  enum Column { COL_GROUP, COL_METRIC, COL_BASELINE, COL_CURRENT, COL_CHANGE, COLUMNS };
  static constexpr int VALUE_ROLE = Qt::UserRole + 1;  // the exact number behind a baseline or current cell

  explicit CompareView(QWidget* parent = nullptr);
  void show_runs(const Report* now, const QString& now_label, const Report* base, const std::vector<PinnedRun>& pinned);

  QTableWidget* table() const { return table_; }
  QLabel* warning() const { return warning_; }
  ChartPanel* tradeoff_chart() const { return chart_; }

 private:
  QLabel* warning_ = nullptr;
  QTableWidget* table_ = nullptr;
  ChartPanel* chart_ = nullptr;
};

}  // namespace gtw::gui
