#pragma once
// gputwin-gui's window: a result viewer for one output directory of `gputwin run`.
#include <QMainWindow>
#include <QString>

#include <optional>

#include "gui/ReportModel.hpp"

class QLabel;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableWidget;

namespace gtw::gui {

class ChartPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // Columns of the SLO table.
  enum SloColumn {
    COL_TENANT,
    COL_SLO,
    COL_OBJECTIVE,
    COL_STATUS,
    COL_VIOLATED,
    COL_COMPLIANCE,
    COL_WORST,
    COL_EXPLANATION,
    SLO_COLUMNS
  };

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Reads `path` (an output directory or a report.json) and shows it. On failure keeps what was shown,
  /// returns false and sets `error`; it asks nothing of the user, so headless callers can use it.
  bool open_report(const QString& path, QString* error = nullptr);
  void show_report(Report report);
  const Report* report() const { return report_ ? &*report_ : nullptr; }

  /// Renders the whole window, as it would appear, into a PNG file.
  bool save_screenshot(const QString& path, QString* error = nullptr);

  /// Selects SLO `index` (position in report()->slos): its window chart and attribution are shown.
  void select_slo(int index);
  int selected_slo() const { return selected_slo_; }

  // For tests and tools.
  QLabel* header() const { return header_; }
  QTableWidget* slo_table() const { return slo_table_; }
  QTableWidget* workload_table() const { return workload_table_; }
  QTabWidget* tabs() const { return tabs_; }
  ChartPanel* slo_chart() const { return slo_chart_; }
  ChartPanel* attribution_chart() const { return attribution_chart_; }
  ChartPanel* latency_chart() const { return latency_chart_; }
  ChartPanel* gpu_chart() const { return gpu_chart_; }

 private:
  void build_menus();
  QWidget* build_slo_tab();
  QWidget* build_latency_tab();
  QWidget* build_gpu_tab();
  QWidget* build_workload_tab();
  void fill_header();
  void fill_slo_table();
  void fill_workload_table();
  void fill_gpu_table();
  void open_directory_dialog();
  void reload();
  void export_charts_dialog();

  std::optional<Report> report_;
  int selected_slo_ = -1;
  QStackedWidget* pages_ = nullptr;  // the "open a directory" hint, or the report
  QLabel* header_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QTableWidget* slo_table_ = nullptr;
  QSplitter* slo_split_ = nullptr;  // table above, charts below
  QLabel* slo_details_ = nullptr;
  ChartPanel* slo_chart_ = nullptr;
  ChartPanel* attribution_chart_ = nullptr;
  ChartPanel* latency_chart_ = nullptr;
  ChartPanel* gpu_chart_ = nullptr;
  QTableWidget* gpu_table_ = nullptr;
  QTableWidget* workload_table_ = nullptr;
};

}  // namespace gtw::gui
