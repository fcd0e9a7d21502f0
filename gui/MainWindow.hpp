#pragma once
// gputwin-gui's window: the what-if explorer. On the left a scenario (structure, what-if controls generated
// from it and from the schema, run / cancel / pin baseline); on the right the results of the last run (or of
// an output directory opened directly), each chart with the pinned baseline beside it.
#include <QImage>
#include <QMainWindow>
#include <QSize>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "CompareView.hpp"
#include "Lab.hpp"
#include "ReportModel.hpp"
#include "ScenarioModel.hpp"

class QComboBox;
class QDockWidget;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableWidget;
class QTemporaryDir;
class QTimer;
class QTreeWidget;
class QVBoxLayout;

namespace gtw::gui {

class ChartPanel;
class LabPanel;
class RunController;
class SecurityView;
class TopologyView;

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

  // Columns of the serving table (Workloads tab): continuous-batching metrics per inference workload; with a
  // baseline pinned each workload has a baseline, a current and a change row (COL_S_RUN says which).
  enum ServingColumn {
    COL_S_TENANT,
    COL_S_WORKLOAD,
    COL_S_RUN,
    COL_S_BATCHING,
    COL_S_TTFT_P50,
    COL_S_TTFT_P99,
    COL_S_TPOT_P50,
    COL_S_TPOT_P99,
    COL_S_TOKENS,
    COL_S_GOODPUT,
    COL_S_KV,
    COL_S_PREEMPTIONS,
    SERVING_COLUMNS
  };

  // Tabs, in order (`--tab` names: tab_names()).
  enum Tab {
    TAB_OVERVIEW,
    TAB_COMPARE,
    TAB_SECURITY,
    TAB_TOPOLOGY,
    TAB_TIMELINE,
    TAB_PLACEMENTS,
    TAB_COMPLIANCE,
    TAB_SLOS,
    TAB_GPUS,
    TAB_WORKLOADS
  };
  /// "overview", "compare", "security", "topology", "timeline", "placements", "compliance", "slos", "gpus",
  /// "workloads".
  static QStringList tab_names();

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // ---- The explorer.
  /// Loads a scenario: structure, controls, diagnostics. False when it cannot be loaded or has errors (which are
  /// then listed, and Run stays disabled); `error` gets the first.
  bool open_scenario(const QString& path, QString* error = nullptr);
  const ScenarioDoc* scenario() const { return doc_ ? &*doc_ : nullptr; }
  /// Writes the open scenario with the current overrides applied (a complete scenario YAML, see
  /// ScenarioSave.hpp) to `path`, after checking the overrides with the loader; saving over the open file
  /// reopens it. Asks nothing of the user (the dialog does); false with `error` set on failure.
  bool save_scenario_as(const QString& path, QString* error = nullptr);
  /// Overrides given on the command line (`--set`), added to the controls' own.
  void set_extra_overrides(const QStringList& overrides);
  /// The `--set` overrides of the next run: the controls' changes, then the extra ones.
  QStringList current_overrides() const;
  /// Sets a control (Knob::key) as if the user had; false when there is no such control.
  bool set_knob(const std::string& key, const QString& value);
  QString knob_value(const std::string& key) const;
  int knob_count() const { return static_cast<int>(knob_widgets_.size()); }
  /// Starts `gputwin run` with the current overrides. False (and nothing started) when there is no scenario,
  /// it has errors, the overrides are invalid, or a run is in progress; the reasons are listed.
  bool run_scenario();
  void cancel_run();
  bool running() const;
  RunController* runner() const { return runner_; }
  /// The run on show becomes the baseline every chart compares against (and joins the pinned runs of the
  /// trade-off chart).
  void pin_baseline();
  void clear_baseline();
  const std::vector<PinnedRun>& pinned_runs() const { return pinned_; }

  // ---- Guided labs.
  /// Opens a lab file: its scenario, and its text and what-ifs in the lab panel. False (with `error`) when
  /// the lab or its scenario cannot be loaded.
  bool open_lab(const QString& path, QString* error = nullptr);
  const Lab* lab() const { return lab_ ? &*lab_ : nullptr; }
  /// What-if `index` of the open lab: pins the run on show as the baseline when none is pinned, replaces the
  /// previous what-if's overrides with its own and runs. False when nothing was started.
  bool apply_what_if(int index);
  /// Runs the lab's scenario as written (drops the what-if overrides).
  bool run_lab_as_written();
  LabPanel* lab_panel() const { return lab_panel_; }
  QDockWidget* lab_dock() const { return lab_dock_; }
  const Report* baseline() const { return baseline_ ? &*baseline_ : nullptr; }
  /// The one-page summary (header, five charts, the SLO verdicts) as an image.
  QImage render_summary(QSize size = QSize(2000, 1250)) const;

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
  QTableWidget* serving_table() const { return serving_table_; }
  QWidget* serving_panel() const { return serving_panel_; }  // hidden when no workload batches continuously
  QTabWidget* tabs() const { return tabs_; }
  ChartPanel* slo_chart() const { return slo_chart_; }
  ChartPanel* attribution_chart() const { return attribution_chart_; }
  ChartPanel* latency_chart() const { return latency_chart_; }
  ChartPanel* gpu_chart() const { return gpu_chart_; }
  ChartPanel* cdf_chart() const { return cdf_chart_; }
  ChartPanel* violation_chart() const { return violation_chart_; }
  ChartPanel* utilisation_chart() const { return utilisation_chart_; }
  ChartPanel* leakage_chart() const { return leakage_chart_; }
  SecurityView* security_view() const { return security_; }
  CompareView* compare_view() const { return compare_; }
  TopologyView* topology_view() const { return topology_; }
  ChartPanel* timeline_chart() const { return timeline_chart_; }
  QComboBox* timeline_device() const { return timeline_device_; }
  ChartPanel* placement_chart() const { return placement_chart_; }
  QTableWidget* compliance_table() const { return compliance_table_; }
  QLabel* compliance_placeholder() const { return compliance_placeholder_; }
  QTableWidget* quota_table() const { return quota_table_; }
  QLabel* quota_placeholder() const { return quota_placeholder_; }
  QTreeWidget* structure_view() const { return structure_; }
  QListWidget* diagnostics_view() const { return diagnostics_; }
  QPushButton* run_button() const { return run_button_; }
  QPlainTextEdit* overrides_view() const { return overrides_view_; }

 signals:
  /// A run ended (ok: its report is on show).
  void run_finished(bool ok);

 private:
  void build_menus();
  void build_lab_dock();
  QString run_label(const QStringList& overrides) const;
  QWidget* build_slo_tab();
  QWidget* build_gpu_tab();
  QWidget* build_workload_tab();
  void fill_header();
  void fill_slo_table();
  void refill_tables();
  void fill_workload_table();
  void fill_serving_table();
  void fit_workload_split();
  void fill_gpu_table();
  void open_directory_dialog();
  void reload();
  void export_charts_dialog();
  QWidget* build_scenario_panel();
  QWidget* build_overview_tab();
  QWidget* build_compliance_tab();
  QWidget* build_quota_tab();
  QWidget* build_timeline_tab();
  void refresh_timeline();
  void fill_structure();
  void build_controls();
  void controls_changed();
  void validate_overrides();
  void show_diagnostics(const QStringList& lines, const QString& headline);
  void refresh_charts();
  void fill_compliance();
  void fill_quotas();
  void update_buttons();
  void on_run_finished(bool ok, const QString& out_dir, const QString& message, const QStringList& diagnostics);
  void open_scenario_dialog();
  void save_scenario_dialog();
  void export_run_command_dialog();
  void export_summary_dialog();

  std::optional<Report> report_;
  std::optional<Report> baseline_;
  QStringList report_overrides_;    // the overrides of the run on show
  QStringList baseline_overrides_;  // and of the baseline
  QStringList running_overrides_;
  std::optional<ScenarioDoc> doc_;
  std::map<std::string, QWidget*> knob_widgets_;
  QStringList extra_overrides_;
  RunController* runner_ = nullptr;
  std::unique_ptr<QTemporaryDir> session_dir_;  // run outputs; removed when the window closes
  int run_number_ = 0;
  QComboBox* examples_ = nullptr;
  QLabel* scenario_label_ = nullptr;
  QTreeWidget* structure_ = nullptr;
  QWidget* controls_ = nullptr;
  QVBoxLayout* controls_layout_ = nullptr;
  QPlainTextEdit* overrides_view_ = nullptr;
  QListWidget* diagnostics_ = nullptr;
  QPushButton* run_button_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QPushButton* pin_button_ = nullptr;
  QPushButton* clear_button_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* run_status_ = nullptr;
  QTimer* validate_timer_ = nullptr;
  ChartPanel* cdf_chart_ = nullptr;
  ChartPanel* violation_chart_ = nullptr;
  ChartPanel* utilisation_chart_ = nullptr;
  ChartPanel* leakage_chart_ = nullptr;
  SecurityView* security_ = nullptr;
  CompareView* compare_ = nullptr;
  TopologyView* topology_ = nullptr;
  ChartPanel* timeline_chart_ = nullptr;
  QComboBox* timeline_device_ = nullptr;
  std::vector<PinnedRun> pinned_;  // oldest first; the last is the baseline
  std::optional<Lab> lab_;
  int lab_what_if_ = -1;
  LabPanel* lab_panel_ = nullptr;
  QDockWidget* lab_dock_ = nullptr;
  QObject* wheel_guard_ = nullptr;  // see build_controls
  ChartPanel* placement_chart_ = nullptr;
  QStackedWidget* compliance_stack_ = nullptr;
  QTableWidget* compliance_table_ = nullptr;
  QLabel* compliance_placeholder_ = nullptr;
  QStackedWidget* quota_stack_ = nullptr;
  QTableWidget* quota_table_ = nullptr;
  QLabel* quota_placeholder_ = nullptr;
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
  QSplitter* workload_split_ = nullptr;  // latency chart, workload table, serving panel
  QWidget* serving_panel_ = nullptr;
  QLabel* serving_title_ = nullptr;
  QTableWidget* serving_table_ = nullptr;
};

}  // namespace gtw::gui
