#include "MainWindow.hpp"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCompleter>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ChartExport.hpp"
#include "ChartPanel.hpp"
#include "Charts.hpp"
#include "LabPanel.hpp"
#include "RunController.hpp"
#include "SecurityView.hpp"
#include "Tables.hpp"
#include "TopologyView.hpp"

namespace gtw::gui {
namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}
QString html(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}
QStringList escaped(const QStringList& list) {
  QStringList out;
  for (const auto& s : list) out << s.toHtmlEscaped();
  return out;
}
// The documentation the Help menu opens: $GPUTWIN_DOCS, else the source tree's docs/.
QString docs_dir() {
  const QByteArray env = qgetenv("GPUTWIN_DOCS");
  return env.isEmpty() ? QStringLiteral(GTW_DOCS_DIR) : QString::fromLocal8Bit(env);
}

QString percent(double ratio, int decimals = 1) {
  return QStringLiteral("%1%").arg(ratio * 100, 0, 'f', decimals);
}

// "2.1 s (baseline 3.4 s)": a value with the baseline's beside it, when there is a baseline value.
QString with_base(const QString& now, const std::optional<QString>& base) {
  return base && *base != now ? QStringLiteral("%1 (baseline %2)").arg(now, *base) : now;
}

template <typename T, typename Match>
const T* find_in(const std::vector<T>* items, Match match) {
  if (!items) return nullptr;
  for (const auto& x : *items)
    if (match(x)) return &x;
  return nullptr;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("gputwin-gui"));
  resize(1600, 1000);
  runner_ = new RunController(this);
  connect(runner_, &RunController::progress, this, [this](int percent, const QString& text) {
    progress_->setValue(percent);
    run_status_->setText(text);
  });
  connect(runner_, &RunController::finished, this, &MainWindow::on_run_finished);
  validate_timer_ = new QTimer(this);
  validate_timer_->setSingleShot(true);
  validate_timer_->setInterval(250);
  connect(validate_timer_, &QTimer::timeout, this, &MainWindow::validate_overrides);
  build_menus();

  pages_ = new QStackedWidget(this);
  auto* hint = new QLabel(
      QStringLiteral("<p style='font-size:14pt'>No results yet.</p>"
                     "<p>Open a scenario (an example on the left, or <b>File &gt; Open scenario</b>, Ctrl+O), "
                     "change what you want to try and press <b>Run</b>;<br>or open the output directory of a "
                     "<tt>gputwin run</tt> with <b>File &gt; Open results</b>.</p>"));
  hint->setAlignment(Qt::AlignCenter);
  hint->setWordWrap(true);  // else its longest line sets the window's minimum width
  hint->setStyleSheet(QStringLiteral("color: #555;"));
  pages_->addWidget(hint);

  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(10, 8, 10, 6);
  header_ = new QLabel;
  header_->setTextFormat(Qt::RichText);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  header_->setWordWrap(true);
  layout->addWidget(header_);
  tabs_ = new QTabWidget;
  tabs_->addTab(build_overview_tab(), QStringLiteral("Overview"));
  compare_ = new CompareView;
  tabs_->addTab(compare_, QStringLiteral("Compare"));
  security_ = new SecurityView;
  tabs_->addTab(security_, QStringLiteral("Security"));
  topology_ = new TopologyView;
  tabs_->addTab(topology_, QStringLiteral("Topology"));
  tabs_->addTab(build_timeline_tab(), QStringLiteral("Timeline"));
  // One readable row per device: the chart grows and scrolls rather than squeezing rows into "...".
  placement_chart_ = new ChartPanel;
  auto* placement_scroll = new QScrollArea;
  placement_scroll->setWidgetResizable(true);
  placement_scroll->setFrameShape(QFrame::NoFrame);
  placement_scroll->setWidget(placement_chart_);
  tabs_->addTab(placement_scroll, QStringLiteral("Placements"));
  tabs_->addTab(build_compliance_tab(), QStringLiteral("Compliance"));
  tabs_->addTab(build_quota_tab(), QStringLiteral("Quotas"));
  tabs_->addTab(build_slo_tab(), QStringLiteral("SLOs"));
  tabs_->addTab(build_gpu_tab(), QStringLiteral("GPUs"));
  tabs_->addTab(build_workload_tab(), QStringLiteral("Workloads"));
  layout->addWidget(tabs_, 1);
  pages_->addWidget(page);

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(build_scenario_panel());
  split->addWidget(pages_);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setSizes({390, 1210});
  setCentralWidget(split);
  build_lab_dock();
  update_buttons();
  statusBar()->showMessage(QStringLiteral("Open a scenario (Ctrl+O) or the results of a gputwin run"));
}

MainWindow::~MainWindow() = default;

QStringList MainWindow::tab_names() {
  return {QStringLiteral("overview"),   QStringLiteral("compare"),  QStringLiteral("security"),
          QStringLiteral("topology"),   QStringLiteral("timeline"), QStringLiteral("placements"),
          QStringLiteral("compliance"), QStringLiteral("quotas"),   QStringLiteral("slos"),
          QStringLiteral("gpus"),       QStringLiteral("workloads")};
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  QAction* open_sc = file->addAction(QStringLiteral("&Open scenario..."), this, &MainWindow::open_scenario_dialog);
  open_sc->setShortcut(QKeySequence::Open);
  file->addAction(QStringLiteral("Open &results directory..."), this, &MainWindow::open_directory_dialog);
  QAction* save = file->addAction(QStringLiteral("&Save scenario as..."), this, &MainWindow::save_scenario_dialog);
  save->setShortcut(QKeySequence::SaveAs);
  file->addAction(QStringLiteral("Export run &command..."), this, &MainWindow::export_run_command_dialog);
  QAction* reload_action = file->addAction(QStringLiteral("&Reload results"), this, &MainWindow::reload);
  reload_action->setShortcut(QKeySequence::Refresh);
  file->addAction(QStringLiteral("&Export charts..."), this, &MainWindow::export_charts_dialog);
  file->addAction(QStringLiteral("Export one-page &summary..."), this, &MainWindow::export_summary_dialog);
  file->addSeparator();
  QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* labs = menuBar()->addMenu(QStringLiteral("&Labs"));
  for (const auto& path : bundled_labs()) {
    const LabLoad loaded = load_lab(path);
    const QString lab_file = QString::fromStdString(path.string());
    QAction* a = labs->addAction(loaded.lab ? q(loaded.lab->title) : QFileInfo(lab_file).fileName());
    a->setToolTip(loaded.lab ? q(loaded.lab->outcome) : q(loaded.error));
    connect(a, &QAction::triggered, this, [this, lab_file] {
      QString error;
      if (!open_lab(lab_file, &error)) QMessageBox::warning(this, QStringLiteral("Guided lab"), error);
    });
  }
  if (labs->isEmpty()) labs->addAction(QStringLiteral("(no labs found)"))->setEnabled(false);

  QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
  const std::pair<const char*, const char*> pages[] = {
      {"The explorer (this window)", "gui.md"},
      {"Scenario format", "scenario.md"},
      {"Leakage surface and attacks", "models/leakage.md"},
      {"SLOs and their windows", "models/sla.md"},
      {"Compliance rules", "models/compliance.md"},
      {"Sharing modes: MIG, MPS, time-slicing, vGPU", "models/partitions.md"},
      {"Serving model (TTFT, TPOT)", "models/serving.md"},
      {"Validation: what is fitted, what is predicted", "validation/README.md"}};
  for (const auto& [title, page] : pages) {
    const QString path = QDir(docs_dir()).filePath(QString::fromLatin1(page));
    QAction* a = help->addAction(QString::fromLatin1(title), this,
                                 [path] { QDesktopServices::openUrl(QUrl::fromLocalFile(path)); });
    a->setToolTip(path);
    a->setEnabled(QFileInfo::exists(path));
  }
}

QWidget* MainWindow::build_slo_tab() {
  slo_table_ = make_table({QStringLiteral("Tenant"), QStringLiteral("SLO"), QStringLiteral("Objective"),
                           QStringLiteral("Status"), QStringLiteral("Violated / evaluated"),
                           QStringLiteral("Compliance"), QStringLiteral("Worst"), QStringLiteral("Explanation")});
  connect(slo_table_, &QTableWidget::itemSelectionChanged, this, [this] {
    const auto rows = slo_table_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const QTableWidgetItem* item = slo_table_->item(rows.front().row(), COL_TENANT);
    if (item) select_slo(item->data(Qt::UserRole).toInt());
  });

  slo_chart_ = new ChartPanel;
  slo_details_ = new QLabel;
  slo_details_->setTextFormat(Qt::RichText);
  slo_details_->setWordWrap(true);
  slo_details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  slo_details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  slo_details_->setContentsMargins(6, 4, 6, 4);
  attribution_chart_ = new ChartPanel;
  auto* side = new QWidget;
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(slo_details_);
  side_layout->addWidget(attribution_chart_, 1);

  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(slo_chart_);
  charts->addWidget(side);
  charts->setStretchFactor(0, 3);
  charts->setStretchFactor(1, 2);
  charts->setSizes({760, 480});
  slo_split_ = new QSplitter(Qt::Vertical);
  slo_split_->addWidget(slo_table_);
  slo_split_->addWidget(charts);
  slo_split_->setStretchFactor(0, 0);  // a taller window grows the charts, not the table
  slo_split_->setStretchFactor(1, 3);
  slo_split_->setSizes({190, 560});
  return slo_split_;
}

QWidget* MainWindow::build_gpu_tab() {
  gpu_chart_ = new ChartPanel;
  // Large clusters get a tall chart (one readable bar per GPU) that scrolls instead of squashing.
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(gpu_chart_);
  gpu_table_ =
      make_table({QStringLiteral("GPU"), QStringLiteral("Node"), QStringLiteral("Product"), QStringLiteral("Sharing"),
                  QStringLiteral("Slots"), QStringLiteral("Tenants"), QStringLiteral("Utilisation"),
                  QStringLiteral("Context switches"), QStringLiteral("Switch time")});
  gpu_table_->horizontalHeader()->setStretchLastSection(false);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(scroll);
  split->addWidget(gpu_table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({420, 280});
  return split;
}

QWidget* MainWindow::build_workload_tab() {
  workload_table_ = make_table({QStringLiteral("Tenant"), QStringLiteral("Workload"), QStringLiteral("Kind"),
                                QStringLiteral("Replicas"), QStringLiteral("GPUs"), QStringLiteral("Requests / jobs"),
                                QStringLiteral("p50"), QStringLiteral("p95"), QStringLiteral("p99"),
                                QStringLiteral("Mean completion"), QStringLiteral("Slowdown mean / max")});
  workload_table_->horizontalHeader()->setStretchLastSection(false);
  latency_chart_ = new ChartPanel;

  // Continuous batching has nine numbers of its own: a second table rather than nine more columns in one
  // already eleven wide (docs/gui.md, "Serving metrics").
  serving_panel_ = new QWidget;
  auto* serving_layout = new QVBoxLayout(serving_panel_);
  serving_layout->setContentsMargins(0, 4, 0, 0);
  serving_layout->setSpacing(2);
  serving_title_ = new QLabel;
  serving_title_->setTextFormat(Qt::RichText);
  serving_title_->setWordWrap(true);
  serving_layout->addWidget(serving_title_);
  serving_table_ =
      make_table({QStringLiteral("Tenant"), QStringLiteral("Workload"), QStringLiteral("Run"),
                  QStringLiteral("Batching"), QStringLiteral("TTFT p50"), QStringLiteral("TTFT p99"),
                  QStringLiteral("TPOT p50"), QStringLiteral("TPOT p99"), QStringLiteral("Output tokens/s"),
                  QStringLiteral("Goodput"), QStringLiteral("KV use mean / peak"), QStringLiteral("Preemptions")});
  serving_table_->horizontalHeader()->setStretchLastSection(false);
  const std::pair<int, const char*> header_tips[] = {
      {COL_S_BATCHING, "batching.mode: continuous (iteration-level, paged KV cache) or static (whole batches)"},
      {COL_S_TTFT_P50, "time to first token: arrival to the end of the step that produced it"},
      {COL_S_TTFT_P99, "time to first token: arrival to the end of the step that produced it"},
      {COL_S_TPOT_P50, "time per output token after the first"},
      {COL_S_TPOT_P99, "time per output token after the first"},
      {COL_S_TOKENS, "output tokens generated per second of the run"},
      {COL_S_GOODPUT,
       "share of the requests that arrived meeting every ttft and tpot SLO of the workload (dropped ones "
       "count as missing); - when it has no such SLO"},
      {COL_S_KV, "share of the KV cache blocks in use: mean over the run / peak"},
      {COL_S_PREEMPTIONS, "sequences preempted because the KV cache was full"}};
  for (const auto& [column, tip] : header_tips)
    serving_table_->horizontalHeaderItem(column)->setToolTip(QString::fromUtf8(tip));
  serving_layout->addWidget(serving_table_, 1);
  serving_panel_->setVisible(false);

  workload_split_ = new QSplitter(Qt::Vertical);
  workload_split_->addWidget(latency_chart_);
  workload_split_->addWidget(workload_table_);
  workload_split_->addWidget(serving_panel_);
  workload_split_->setSizes({380, 200, 220});
  return workload_split_;
}

// The tables as tall as their rows (no empty band), the chart the rest, but never under 260 pixels:
// tables longer than that scroll.
void MainWindow::fit_workload_split() {
  const auto rows_height = [](QTableWidget* t) {
    return t->horizontalHeader()->sizeHint().height() + t->verticalHeader()->length() + 2 * t->frameWidth() + 2 +
           (t->horizontalScrollBar()->isVisible() ? t->horizontalScrollBar()->sizeHint().height() : 0);
  };
  const int total = std::max(760, workload_split_->height());
  int table = rows_height(workload_table_);
  int serving = serving_panel_->isHidden() ? 0 : serving_title_->sizeHint().height() + 6 + rows_height(serving_table_);
  const int room = total - 260;
  if (table + serving > room) {
    // Shrink both in proportion to their wish, keeping a few rows of each.
    const double k = static_cast<double>(room) / (table + serving);
    table = std::max(110, static_cast<int>(table * k));
    serving = serving == 0 ? 0 : std::max(150, static_cast<int>(serving * k));
  }
  workload_split_->setSizes({total - table - serving, table, serving});
}

bool MainWindow::open_report(const QString& path, QString* error) {
  LoadResult loaded = load_report(std::filesystem::path(path.toStdString()));
  if (!loaded.report) {
    if (error) *error = q(loaded.error);
    statusBar()->showMessage(q(loaded.error));
    return false;
  }
  show_report(std::move(*loaded.report));
  return true;
}

void MainWindow::show_report(Report report) {
  report_ = std::move(report);
  selected_slo_ = -1;
  setWindowTitle(QStringLiteral("%1 - gputwin-gui").arg(q(report_->scenario.name)));
  fill_header();
  fill_slo_table();
  latency_chart_->set_chart(make_latency_chart(*report_),
                            QStringLiteral("No inference workloads in this run: no request latencies to show."));
  gpu_chart_->set_chart(make_gpu_utilisation_chart(*report_), QStringLiteral("The report lists no GPUs."));
  gpu_chart_->setMinimumHeight(gpu_chart_min_height(*report_));
  fill_gpu_table();
  fill_workload_table();
  fill_serving_table();
  refresh_charts();
  fill_compliance();
  fill_quotas();
  pages_->setCurrentIndex(1);
  statusBar()->showMessage(QString::fromStdString(report_->path.string()));

  // Open on what matters most: the first missed SLO, else the first SLO.
  int first = report_->slos.empty() ? -1 : 0;
  for (size_t i = 0; i < report_->slos.size(); ++i)
    if (!report_->slos[i].met) {
      first = static_cast<int>(i);
      break;
    }
  if (first >= 0) slo_table_->selectRow(first);  // rows are in SLO order; selecting shows the charts
  if (first < 0 || selected_slo_ != first) select_slo(first);
}

void MainWindow::fill_header() {
  const Report& r = *report_;
  const auto& sc = r.scenario;
  QStringList facts;
  facts << QStringLiteral("seed %1").arg(sc.seed)
        << QStringLiteral("%1 simulated").arg(q(format_value(sc.duration_s, "s")));
  if (sc.sla_window_s > 0) facts << QStringLiteral("SLO window %1").arg(q(format_value(sc.sla_window_s, "s")));
  if (!sc.placement_policy.empty()) facts << QStringLiteral("placement %1").arg(html(sc.placement_policy));
  const int physical = r.physical_gpus();
  facts << QStringLiteral("%1 tenants, %2 workloads, %3 GPUs%4")
               .arg(r.tenants.size())
               .arg(r.workloads.size())
               .arg(physical)
               .arg(physical == static_cast<int>(r.gpus.size())
                        ? QString()
                        : QStringLiteral(" (%1 devices with the MIG instances)").arg(r.gpus.size()));

  const int missed = r.slos_missed();
  QString verdict;
  if (r.slos.empty()) {
    verdict = QStringLiteral("<span style='color:#555'>no SLOs declared</span>");
  } else if (missed == 0) {
    verdict = QStringLiteral("<span style='color:%1; font-weight:600'>all %2 SLOs met</span>")
                  .arg(met_color().name())
                  .arg(r.slos.size());
  } else {
    QStringList names;
    for (const auto& s : r.slos)
      if (!s.met) names << html(s.tenant + " / " + s.name);
    verdict = QStringLiteral("<span style='color:%1; font-weight:600'>%2 of %3 SLOs missed: %4</span>")
                  .arg(violation_color().name())
                  .arg(missed)
                  .arg(r.slos.size())
                  .arg(names.join(QStringLiteral(", ")));
  }

  // Compliance next to the SLOs: an architect reads both verdicts before any chart.
  if (r.has_compliance && !r.findings.empty()) {
    QStringList failed;
    for (const auto& f : r.findings)
      if (f.status == "fail") failed << html(f.rule);
    verdict += QStringLiteral(" &nbsp;&middot;&nbsp; ");
    if (failed.isEmpty())
      verdict += QStringLiteral("<span style='color:%1; font-weight:600'>all %2 compliance rules pass</span>")
                     .arg(met_color().name())
                     .arg(r.findings.size());
    else
      verdict += QStringLiteral("<span style='color:%1; font-weight:600'>%2 of %3 compliance rules fail: %4</span>")
                     .arg(violation_color().name())
                     .arg(failed.size())
                     .arg(r.findings.size())
                     .arg(failed.join(QStringLiteral(", ")));
  }

  QStringList origin;
  origin << html(r.path.string());
  if (!r.provenance.gputwin_version.empty())
    origin << QStringLiteral("gputwin %1 (SimGrid %2)")
                  .arg(html(r.provenance.gputwin_version), html(r.provenance.simgrid_version));
  if (!r.provenance.started_utc.empty())
    origin << QStringLiteral("run %1 on %2").arg(html(r.provenance.started_utc), html(r.provenance.host));

  QString changes;
  if (!report_overrides_.isEmpty())
    changes = QStringLiteral("<div style='color:#1f4e79; margin-top:2px'>what-if: %1</div>")
                  .arg(escaped(report_overrides_).join(QStringLiteral(" &nbsp; ")));
  if (baseline_ && !same_scenario(*report_, *baseline_))
    changes += QStringLiteral(
                   "<div style='color:%1; font-weight:600; margin-top:2px'>The baseline is a run of another scenario "
                   "(%2): the comparison mixes the design with the workload.</div>")
                   .arg(violation_color().name(), html(baseline_->scenario.name + ", " + baseline_->scenario.file));
  if (baseline_) {
    const int base_missed = baseline_->slos_missed();
    changes +=
        QStringLiteral(
            "<div style='color:#555; margin-top:2px'>baseline (dashed in the charts): %1, "
            "%2 of %3 SLOs missed%4</div>")
            .arg(html(baseline_->scenario.name))
            .arg(base_missed)
            .arg(baseline_->slos.size())
            .arg(baseline_overrides_.isEmpty()
                     ? QString()
                     : QStringLiteral("; what-if: ") + escaped(baseline_overrides_).join(QStringLiteral(" &nbsp; ")));
  }
  header_->setText(QStringLiteral("<div><span style='font-size:15pt; font-weight:600'>%1</span>"
                                  "&nbsp;&nbsp;<span style='color:#444'>%2</span></div>"
                                  "<div style='font-size:12pt; margin-top:3px'>%3</div>%5"
                                  "<div style='color:#777; margin-top:2px'>%4</div>")
                       .arg(html(sc.name), facts.join(QStringLiteral(" &middot; ")), verdict,
                            origin.join(QStringLiteral(" &middot; ")), changes));
}

void MainWindow::fill_slo_table() {
  const auto& slos = report_->slos;
  const QSignalBlocker block(slo_table_);  // no selection churn while rows are replaced
  slo_table_->clearContents();
  slo_table_->setRowCount(static_cast<int>(slos.size()));
  const QColor missed_bg(0xfde8e8);
  for (size_t i = 0; i < slos.size(); ++i) {
    const Slo& s = slos[i];
    const int row = static_cast<int>(i);
    auto* tenant = text_cell(q(s.tenant));
    tenant->setData(Qt::UserRole, row);
    slo_table_->setItem(row, COL_TENANT, tenant);
    slo_table_->setItem(row, COL_SLO, text_cell(q(s.name)));
    slo_table_->setItem(row, COL_OBJECTIVE, text_cell(q(s.objective)));
    // A mark as well as a colour: the status must read without colour vision.
    auto* status = text_cell(s.met ? QStringLiteral("\u2713 met") : QStringLiteral("\u2717 MISSED"));
    status->setForeground(s.met ? met_color() : violation_color());
    QFont bold = status->font();
    bold.setBold(true);
    status->setFont(bold);
    status->setData(Qt::UserRole, s.met);
    slo_table_->setItem(row, COL_STATUS, status);
    // With a baseline: the same SLO's numbers in that run beside these.
    const Slo* b = find_in(baseline_ ? &baseline_->slos : nullptr,
                           [&s](const Slo& x) { return x.tenant == s.tenant && x.name == s.name; });
    const auto base_text = [b](auto text_of) { return b ? std::optional<QString>(text_of(*b)) : std::nullopt; };
    const auto violated = [](const Slo& x) { return QStringLiteral("%1 / %2").arg(x.violated).arg(x.evaluated); };
    const auto worst = [](const Slo& x) { return q(format_value(x.worst, x.unit)); };
    if (b)
      status->setText(status->text() +
                      (b->met ? QStringLiteral(" (baseline met)") : QStringLiteral(" (baseline missed)")));
    slo_table_->setItem(row, COL_VIOLATED, number_cell(with_base(violated(s), base_text(violated))));
    slo_table_->setItem(row, COL_COMPLIANCE,
                        number_cell(QStringLiteral("%1 (target %2)").arg(percent(s.compliance), percent(s.target, 0))));
    slo_table_->setItem(row, COL_WORST, number_cell(with_base(worst(s), base_text(worst))));
    slo_table_->setItem(row, COL_EXPLANATION, text_cell(q(s.explanation)));
    if (!s.met)
      for (int c = 0; c < SLO_COLUMNS; ++c) slo_table_->item(row, c)->setBackground(missed_bg);
  }
  fit_columns(slo_table_, 320);
  // As tall as its rows (no empty band under a short table), but never more than a third of the tab.
  const int rows_height = slo_table_->horizontalHeader()->sizeHint().height() + slo_table_->verticalHeader()->length() +
                          2 * slo_table_->frameWidth() + 2;
  const int total = std::max(600, slo_split_->height());
  const int table_height = std::min(rows_height, total / 3);
  slo_split_->setSizes({table_height, total - table_height});
}

void MainWindow::select_slo(int index) {
  if (!report_ || index < 0 || index >= static_cast<int>(report_->slos.size())) {
    slo_chart_->set_chart(nullptr, QStringLiteral("The report declares no SLOs."));
    attribution_chart_->set_chart(nullptr, QString());
    slo_details_->clear();
    selected_slo_ = -1;
    return;
  }
  selected_slo_ = index;
  const Slo& s = report_->slos[static_cast<size_t>(index)];
  const QColor color = tenant_color(report_->tenant_index(s.tenant));
  slo_chart_->set_chart(
      s.windows.empty() ? nullptr : make_slo_window_chart(s, report_->scenario.duration_s, color),
      QStringLiteral("%1 / %2 was never evaluated (no traffic or no jobs).").arg(q(s.tenant), q(s.name)));

  QString budget;
  if (s.error_budget_burn) budget = QStringLiteral(", error budget burnt %1x").arg(*s.error_budget_burn, 0, 'f', 1);
  slo_details_->setText(
      QStringLiteral("<div style='font-size:12pt; font-weight:600'>%1 / %2 &nbsp;<span style='color:%3'>%4</span></div>"
                     "<div>%5</div><div>compliance %6 (target %7)%8; worst %9</div>"
                     "<div style='margin-top:4px; color:#333'><i>%10</i></div>")
          .arg(html(s.tenant), html(s.name), s.met ? met_color().name() : violation_color().name(),
               s.met ? QStringLiteral("met") : QStringLiteral("missed"), html(s.objective), percent(s.compliance),
               percent(s.target, 0), budget, html(format_value(s.worst, s.unit)))
          .arg(html(s.explanation)));
  attribution_chart_->set_chart(make_attribution_chart(s, *report_),
                                s.met ? QStringLiteral("Met: no violations to attribute.")
                                      : QStringLiteral("No attribution recorded for the violations."));
}

void MainWindow::fill_gpu_table() {
  const auto& gpus = report_->gpus;
  gpu_table_->clearContents();
  gpu_table_->setRowCount(static_cast<int>(gpus.size()));
  for (size_t i = 0; i < gpus.size(); ++i) {
    const Gpu& g = gpus[i];
    const int row = static_cast<int>(i);
    QStringList tenants;
    for (const auto& t : g.tenants) tenants << q(t);
    gpu_table_->setItem(row, 0, number_cell(QString::number(g.index)));
    gpu_table_->setItem(row, 1, text_cell(QStringLiteral("%1 #%2").arg(q(g.node)).arg(g.local_index)));
    gpu_table_->setItem(row, 2, text_cell(q(g.product)));
    gpu_table_->setItem(row, 3, text_cell(q(g.sharing)));
    gpu_table_->setItem(row, 4, number_cell(QString::number(g.slot_count)));
    gpu_table_->setItem(row, 5, text_cell(tenants.join(QStringLiteral(", "))));
    const Gpu* b = find_in(baseline_ ? &baseline_->gpus : nullptr, [&g](const Gpu& x) { return x.index == g.index; });
    gpu_table_->setItem(row, 6,
                        number_cell(with_base(percent(g.utilisation),
                                              b ? std::optional<QString>(percent(b->utilisation)) : std::nullopt)));
    gpu_table_->setItem(row, 7, number_cell(QString::number(g.context_switches)));
    gpu_table_->setItem(row, 8, number_cell(q(format_value(g.context_switch_seconds, "s"))));
  }
  fit_columns(gpu_table_, 260);
}

void MainWindow::fill_workload_table() {
  const auto& wls = report_->workloads;
  workload_table_->clearContents();
  workload_table_->setRowCount(static_cast<int>(wls.size()));
  for (size_t i = 0; i < wls.size(); ++i) {
    const Workload& w = wls[i];
    const int row = static_cast<int>(i);
    QStringList gpus;
    for (int g : w.gpus) gpus << QString::number(g);
    QString replicas = QStringLiteral("%1 / %2").arg(w.replicas_placed).arg(w.replicas_requested);
    if (w.replicas_failed > 0) replicas += QStringLiteral(" (%1 failed)").arg(w.replicas_failed);
    workload_table_->setItem(row, 0, text_cell(q(w.tenant)));
    workload_table_->setItem(row, 1, text_cell(q(w.name)));
    workload_table_->setItem(row, 2, text_cell(q(w.kind)));
    workload_table_->setItem(row, 3, number_cell(replicas));
    workload_table_->setItem(row, 4, text_cell(gpus.join(QStringLiteral(", "))));
    if (w.inference()) {
      QString requests = QStringLiteral("%1 of %2 completed").arg(w.requests_completed).arg(w.requests_arrived);
      if (w.requests_dropped > 0) requests += QStringLiteral(", %1 dropped").arg(w.requests_dropped);
      workload_table_->setItem(row, 5, text_cell(requests));
      const Workload* b = find_in(baseline_ ? &baseline_->workloads : nullptr,
                                  [&w](const Workload& x) { return x.tenant == w.tenant && x.name == w.name; });
      const auto latency = [b](double now, double LatencySummary::*field) {
        return with_base(q(format_value(now, "s")),
                         b ? std::optional<QString>(q(format_value(b->latency.*field, "s"))) : std::nullopt);
      };
      workload_table_->setItem(row, 6, number_cell(latency(w.latency.p50_s, &LatencySummary::p50_s)));
      workload_table_->setItem(row, 7, number_cell(latency(w.latency.p95_s, &LatencySummary::p95_s)));
      workload_table_->setItem(row, 8, number_cell(latency(w.latency.p99_s, &LatencySummary::p99_s)));
    } else {
      QString jobs = QStringLiteral("%1 of %2 jobs completed").arg(w.jobs_completed).arg(w.jobs_submitted);
      if (w.jobs_unfinished > 0) jobs += QStringLiteral(", %1 unfinished").arg(w.jobs_unfinished);
      if (w.jobs_failed > 0) jobs += QStringLiteral(", %1 failed").arg(w.jobs_failed);
      workload_table_->setItem(row, 5, text_cell(jobs));
      // No job completed: there is no completion time to show (the report writes 0).
      workload_table_->setItem(row, 9,
                               number_cell(w.jobs_completed > 0 ? q(format_value(w.mean_completion_s, "s"))
                                                                : QStringLiteral("none completed")));
      workload_table_->setItem(row, 10,
                               number_cell(QStringLiteral("%1 / %2").arg(q(format_value(w.mean_slowdown, "x")),
                                                                         q(format_value(w.max_slowdown, "x")))));
    }
  }
  fit_columns(workload_table_, 260);
}

void MainWindow::fill_serving_table() {
  serving_table_->clearContents();
  serving_table_->setRowCount(0);
  if (!report_) return;
  const Report* base = baseline();
  // Every inference workload of either run, matched by tenant and name; the current run's order first.
  struct Entry {
    const Workload* now = nullptr;
    const Workload* base = nullptr;
  };
  std::vector<Entry> entries;
  bool any_continuous = false;
  for (const auto& w : report_->workloads)
    if (w.inference()) {
      entries.push_back({&w, nullptr});
      any_continuous = any_continuous || w.continuous();
    }
  if (base)
    for (const auto& w : base->workloads) {
      if (!w.inference()) continue;
      any_continuous = any_continuous || w.continuous();
      const auto same = std::find_if(entries.begin(), entries.end(), [&w](const Entry& e) {
        return e.now && e.now->tenant == w.tenant && e.now->name == w.name;
      });
      if (same != entries.end())
        same->base = &w;
      else
        entries.push_back({nullptr, &w});
    }
  serving_panel_->setVisible(any_continuous);
  serving_table_->setColumnHidden(COL_S_RUN, base == nullptr);
  serving_title_->setText(
      base ? QStringLiteral("<b>Serving (continuous batching)</b> <span style='color:#555'>per workload: the "
                            "baseline, the current run and the change (green better, red worse)</span>")
           : QStringLiteral("<b>Serving (continuous batching)</b> <span style='color:#555'>TTFT: time to first "
                            "token, TPOT: time per output token; - for statically batched workloads</span>"));

  // The metrics of serving_metrics() in each column from COL_S_TTFT_P50 on (KV use shows two).
  const auto& metrics = serving_metrics();
  const std::vector<std::vector<size_t>> columns = {{0}, {1}, {2}, {3}, {4}, {5}, {6, 7}, {8}};
  const auto add_row = [&](const Workload& any, const QString& run) {
    const int row = serving_table_->rowCount();
    serving_table_->insertRow(row);
    serving_table_->setItem(row, COL_S_TENANT, text_cell(q(any.tenant)));
    serving_table_->setItem(row, COL_S_WORKLOAD, text_cell(q(any.name)));
    serving_table_->setItem(row, COL_S_RUN, text_cell(run));
    return row;
  };
  const auto fill_values = [&](int row, const Workload* w) {
    const ServingStats* s = w && w->serving ? &*w->serving : nullptr;
    serving_table_->setItem(row, COL_S_BATCHING,
                            text_cell(!w  ? QStringLiteral("(not in this run)")
                                      : s ? q(s->batching)
                                          : QStringLiteral("static")));
    for (size_t c = 0; c < columns.size(); ++c) {
      QStringList parts;
      for (size_t m : columns[c])
        parts << (s ? q(format_value(metrics[m].value(*s), metrics[m].unit)) : QStringLiteral("-"));
      auto* item = number_cell(s ? parts.join(QStringLiteral(" / ")) : QStringLiteral("-"));
      if (s && c == 5 && std::isnan(s->goodput))
        item->setToolTip(QStringLiteral("no ttft or tpot SLO on this workload: goodput is not defined"));
      serving_table_->setItem(row, COL_S_TTFT_P50 + static_cast<int>(c), item);
    }
  };
  const auto fill_change = [&](int row, const Workload* now, const Workload* was) {
    const ServingStats* a = now && now->serving ? &*now->serving : nullptr;
    const ServingStats* b = was && was->serving ? &*was->serving : nullptr;
    // A change of batching mode is the change that matters most: say it.
    const QString from = was ? (b ? q(b->batching) : QStringLiteral("static")) : QString();
    const QString to = now ? (a ? q(a->batching) : QStringLiteral("static")) : QString();
    serving_table_->setItem(
        row, COL_S_BATCHING,
        text_cell(!from.isEmpty() && !to.isEmpty() && from != to ? QStringLiteral("%1 \u2192 %2").arg(from, to)
                                                                 : QString()));
    for (size_t c = 0; c < columns.size(); ++c) {
      QStringList parts, tips;
      int direction = 0;
      for (size_t m : columns[c]) {
        const double x = a ? metrics[m].value(*a) : NO_VALUE;
        const double y = b ? metrics[m].value(*b) : NO_VALUE;
        parts << q(format_delta(x, y, metrics[m].unit, true));
        tips << q(format_delta(x, y, metrics[m].unit));
        direction += delta_direction(metrics[m], x, y);
      }
      auto* item = number_cell(a && b ? parts.join(QStringLiteral(" / ")) : QStringLiteral("-"));
      if (a && b) item->setToolTip(tips.join(QStringLiteral(" / ")));
      item->setData(Qt::UserRole, direction);  // > 0 better, < 0 worse
      if (direction != 0) item->setForeground(direction > 0 ? met_color() : violation_color());
      serving_table_->setItem(row, COL_S_TTFT_P50 + static_cast<int>(c), item);
    }
  };
  const QColor change_bg(0xf3f6fa);
  for (const Entry& e : entries) {
    const Workload& any = e.now ? *e.now : *e.base;
    if (!base) {
      fill_values(add_row(any, QStringLiteral("current")), e.now);
      continue;
    }
    fill_values(add_row(any, QStringLiteral("baseline")), e.base);
    fill_values(add_row(any, QStringLiteral("current")), e.now);
    const int row = add_row(any, QStringLiteral("change"));
    fill_change(row, e.now, e.base);
    for (int c = 0; c < SERVING_COLUMNS; ++c) serving_table_->item(row, c)->setBackground(change_bg);
  }
  fit_columns(serving_table_, 260);
  fit_workload_split();
}

bool MainWindow::save_screenshot(const QString& path, QString* error) {
  if (!isVisible()) {
    // Lay out and paint as if shown, without a window appearing anywhere.
    setAttribute(Qt::WA_DontShowOnScreen);
    show();
  }
  QApplication::processEvents();
  if (!grab().save(path, "PNG")) {
    if (error) *error = QStringLiteral("cannot write %1").arg(path);
    return false;
  }
  return true;
}

void MainWindow::open_directory_dialog() {
  QString start;
  if (report_) start = QFileInfo(QString::fromStdString(report_->path.string())).absolutePath();
  const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Open a gputwin output directory"), start);
  if (dir.isEmpty()) return;
  QString error;
  if (!open_report(dir, &error)) QMessageBox::warning(this, QStringLiteral("Cannot open the report"), error);
}

void MainWindow::reload() {
  if (!report_) return;
  const int keep = selected_slo_;
  QString error;
  if (!open_report(QString::fromStdString(report_->path.string()), &error)) {
    QMessageBox::warning(this, QStringLiteral("Cannot reload the report"), error);
    return;
  }
  if (keep >= 0 && keep < static_cast<int>(report_->slos.size())) slo_table_->selectRow(keep);
}

void MainWindow::export_charts_dialog() {
  if (!report_) return;
  const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Export the charts as PNG into"));
  if (dir.isEmpty()) return;
  const ExportResult r = export_charts(*report_, dir);
  if (!r.error.isEmpty()) {
    QMessageBox::warning(this, QStringLiteral("Export failed"), r.error);
    return;
  }
  statusBar()->showMessage(QStringLiteral("%1 charts written to %2").arg(r.files.size()).arg(dir));
}

}  // namespace gtw::gui
