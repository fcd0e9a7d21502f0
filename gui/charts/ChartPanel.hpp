#pragma once
// A chart view that owns its chart, or a centred sentence when there is nothing to draw: the window
// never shows an empty chart frame.
#include <QString>
#include <QWidget>

class QChart;
class QChartView;
class QLabel;
class QStackedLayout;

namespace gtw::gui {

class ChartPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ChartPanel(QWidget* parent = nullptr);
  ~ChartPanel() override;

  /// Shows `chart` and takes it (the previous one is deleted); with nullptr shows `placeholder` (which may
  /// be empty) instead.
  void set_chart(QChart* chart, const QString& placeholder = {});
  /// The chart on show, nullptr while the placeholder is.
  QChart* chart() const { return chart_; }
  QString placeholder() const;

 private:
  QStackedLayout* stack_ = nullptr;
  QChartView* view_ = nullptr;
  QLabel* label_ = nullptr;
  QChart* chart_ = nullptr;
};

}  // namespace gtw::gui
