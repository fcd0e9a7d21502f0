// The explorer half of the window: the scenario panel (examples, structure, what-if controls, run, cancel,
// baseline), the comparison charts and the compliance table.
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>
#include <fstream>

#include "ChartExport.hpp"
#include "ChartPanel.hpp"
#include "Charts.hpp"
#include "LabPanel.hpp"
#include "MainWindow.hpp"
#include "RunController.hpp"
#include "ScenarioSave.hpp"
#include "SecurityView.hpp"
#include "Tables.hpp"
#include "TopologyView.hpp"
#include "Units.hpp"

namespace gtw::gui {
namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

const char* KNOB_KEY = "knob";
constexpr int BASELINE_TIMELINE = -2;  // the Timeline tab's choice "baseline: all devices"

// Passes wheel events of a control on to its scroll area unless the control has the keyboard focus (clicked
// or tabbed into): the wheel then scrolls the list instead of silently changing a combo box or a spin box.
class WheelGuard : public QObject {
 public:
  using QObject::QObject;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::Wheel) return false;
    auto* w = qobject_cast<QWidget*>(watched);
    if (!w || w->hasFocus()) return false;
    event->ignore();
    return true;
  }
};

QString small_label_style() {
  return QStringLiteral("color:#555;");
}

}  // namespace

// ---- Layout.

QWidget* MainWindow::build_scenario_panel() {
  wheel_guard_ = new WheelGuard(this);
  auto* panel = new QWidget;
  panel->setMinimumWidth(270);
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(8, 8, 4, 6);
  layout->setSpacing(6);

  auto* open_row = new QHBoxLayout;
  examples_ = new QComboBox;
  // The longest example path must not set the panel's minimum width.
  examples_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  examples_->setMinimumContentsLength(18);
  examples_->addItem(QStringLiteral("Open a bundled example..."));
  const QDir root(QString::fromStdString(examples_dir().parent_path().string()));
  for (const auto& p : bundled_examples()) {
    const QString path = QString::fromStdString(p.string());
    examples_->addItem(root.relativeFilePath(path), path);
  }
  connect(examples_, &QComboBox::activated, this, [this](int index) {
    if (index <= 0) return;
    QString error;
    if (!open_scenario(examples_->itemData(index).toString(), &error)) statusBar()->showMessage(error);
  });
  auto* browse = new QToolButton;
  browse->setText(QStringLiteral("Open..."));
  connect(browse, &QToolButton::clicked, this, &MainWindow::open_scenario_dialog);
  open_row->addWidget(examples_, 1);
  open_row->addWidget(browse);
  layout->addLayout(open_row);

  scenario_label_ = new QLabel(QStringLiteral("<i>No scenario open.</i>"));
  scenario_label_->setWordWrap(true);
  scenario_label_->setTextFormat(Qt::RichText);
  layout->addWidget(scenario_label_);

  structure_ = new QTreeWidget;
  structure_->setColumnCount(2);
  structure_->setHeaderLabels({QStringLiteral("Structure"), QString()});
  structure_->header()->setStretchLastSection(true);
  structure_->setAlternatingRowColors(true);
  structure_->setUniformRowHeights(true);

  controls_ = new QWidget;
  controls_layout_ = new QVBoxLayout(controls_);
  controls_layout_->setContentsMargins(0, 0, 0, 0);
  controls_layout_->setSpacing(4);
  controls_layout_->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(controls_);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(structure_);
  split->addWidget(scroll);
  split->setSizes({280, 420});
  layout->addWidget(split, 1);

  auto* overrides_title = new QLabel(QStringLiteral("Changes, as gputwin run --set overrides:"));
  overrides_title->setStyleSheet(small_label_style());
  layout->addWidget(overrides_title);
  overrides_view_ = new QPlainTextEdit;
  overrides_view_->setReadOnly(true);
  overrides_view_->setMaximumHeight(70);
  overrides_view_->setPlaceholderText(QStringLiteral("(none: the scenario as written)"));
  QFont mono(QStringLiteral("DejaVu Sans Mono"));
  mono.setPointSizeF(8);
  overrides_view_->setFont(mono);
  layout->addWidget(overrides_view_);

  diagnostics_ = new QListWidget;
  diagnostics_->setMaximumHeight(120);
  diagnostics_->setWordWrap(true);
  diagnostics_->setStyleSheet(QStringLiteral("QListWidget { color: #b71c1c; background: #fff5f5; }"));
  diagnostics_->setVisible(false);
  layout->addWidget(diagnostics_);

  auto* buttons = new QGridLayout;
  run_button_ = new QPushButton(QStringLiteral("Run"));
  run_button_->setDefault(true);
  run_button_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  run_button_->setToolTip(QStringLiteral("Run gputwin with these changes (Ctrl+R)"));
  cancel_button_ = new QPushButton(QStringLiteral("Cancel"));
  pin_button_ = new QPushButton(QStringLiteral("Pin as baseline"));
  pin_button_->setToolTip(QStringLiteral("Keep the run on show; the next runs are drawn against it"));
  clear_button_ = new QPushButton(QStringLiteral("Clear baseline"));
  auto* reset_button = new QPushButton(QStringLiteral("Reset controls"));
  connect(run_button_, &QPushButton::clicked, this, [this] { run_scenario(); });
  connect(cancel_button_, &QPushButton::clicked, this, &MainWindow::cancel_run);
  connect(pin_button_, &QPushButton::clicked, this, &MainWindow::pin_baseline);
  connect(clear_button_, &QPushButton::clicked, this, &MainWindow::clear_baseline);
  connect(reset_button, &QPushButton::clicked, this, [this] {
    if (doc_) build_controls();
    controls_changed();
  });
  buttons->addWidget(run_button_, 0, 0);
  buttons->addWidget(cancel_button_, 0, 1);
  buttons->addWidget(reset_button, 0, 2);
  buttons->addWidget(pin_button_, 1, 0, 1, 2);
  buttons->addWidget(clear_button_, 1, 2);
  layout->addLayout(buttons);
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setValue(0);
  layout->addWidget(progress_);
  run_status_ = new QLabel;
  run_status_->setStyleSheet(small_label_style());
  run_status_->setWordWrap(true);
  layout->addWidget(run_status_);
  return panel;
}

QWidget* MainWindow::build_overview_tab() {
  auto* page = new QWidget;
  auto* grid = new QGridLayout(page);
  grid->setContentsMargins(0, 4, 0, 0);
  grid->setSpacing(4);
  cdf_chart_ = new ChartPanel;
  violation_chart_ = new ChartPanel;
  utilisation_chart_ = new ChartPanel;
  leakage_chart_ = new ChartPanel;
  grid->addWidget(cdf_chart_, 0, 0);
  grid->addWidget(violation_chart_, 0, 1);
  grid->addWidget(utilisation_chart_, 1, 0);
  grid->addWidget(leakage_chart_, 1, 1);
  return page;
}

QWidget* MainWindow::build_timeline_tab() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 4, 0, 0);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(QStringLiteral("Devices:")));
  timeline_device_ = new QComboBox;
  connect(timeline_device_, &QComboBox::activated, this, [this] { refresh_timeline(); });
  row->addWidget(timeline_device_);
  row->addStretch(1);
  layout->addLayout(row);
  timeline_chart_ = new ChartPanel;
  layout->addWidget(timeline_chart_, 1);
  return page;
}

void MainWindow::refresh_timeline() {
  if (!report_) return;
  const int device = timeline_device_->currentData().toInt();
  const bool baseline = device == BASELINE_TIMELINE && baseline_;
  QChart* chart = make_timeline_chart(baseline ? *baseline_ : *report_, baseline ? -1 : device);
  if (chart && baseline) chart->setTitle(chart->title() + QStringLiteral(", baseline"));
  timeline_chart_->set_chart(chart, QStringLiteral("This report has no timeline (an older gputwin?)."));
}

QWidget* MainWindow::build_compliance_tab() {
  compliance_stack_ = new QStackedWidget;
  compliance_table_ = new QTableWidget(0, 6);
  compliance_table_->setHorizontalHeaderLabels({QStringLiteral("Run"), QStringLiteral("Rule"), QStringLiteral("Status"),
                                                QStringLiteral("Severity"), QStringLiteral("Requirements"),
                                                QStringLiteral("Evidence")});
  compliance_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  compliance_table_->verticalHeader()->setVisible(false);
  compliance_table_->horizontalHeader()->setStretchLastSection(true);
  compliance_table_->setAlternatingRowColors(true);
  // Evidence is the column a reader needs whole: rows grow to show it wrapped.
  compliance_table_->setWordWrap(true);
  compliance_table_->setTextElideMode(Qt::ElideNone);
  compliance_placeholder_ = make_placeholder();
  compliance_stack_->addWidget(compliance_placeholder_);
  compliance_stack_->addWidget(compliance_table_);
  return compliance_stack_;
}

QWidget* MainWindow::build_quota_tab() {
  quota_stack_ = new QStackedWidget;
  quota_table_ = make_table({QStringLiteral("Run"), QStringLiteral("Tenant"), QStringLiteral("Nominal GPUs"),
                             QStringLiteral("Peak GPUs"), QStringLiteral("Borrowed GPU time"),
                             QStringLiteral("Admitted"), QStringLiteral("Queued"), QStringLiteral("Longest wait"),
                             QStringLiteral("Preempted"), QStringLiteral("Reclaimed"), QStringLiteral("Still queued"),
                             QStringLiteral("Weight"), QStringLiteral("Peak share"), QStringLiteral("Mean share")});
  quota_placeholder_ = make_placeholder();
  quota_stack_->addWidget(quota_placeholder_);
  quota_stack_->addWidget(quota_table_);
  return quota_stack_;
}

// One row per tenant with a quota (and the baseline's, when one is pinned): what it held and borrowed, how long
// its workloads waited, whom it preempted and who preempted it; with Kueue's fair sharing, its weighted share.
void MainWindow::fill_quotas() {
  quota_table_->setRowCount(0);
  const bool any = report_ && (!report_->quotas.empty() || (baseline_ && !baseline_->quotas.empty()));
  if (!any) {
    quota_placeholder_->setText(
        QStringLiteral("No quotas: no tenant has a quota (spec.tenants[].quota; docs/models/quotas.md)."));
    quota_stack_->setCurrentWidget(quota_placeholder_);
    return;
  }
  const auto share = [](double v) {
    return std::isfinite(v) ? QString::number(v, 'f', 0) : QStringLiteral("unbounded");
  };
  const auto count = [](long long v) { return number_cell(QString::number(v)); };
  const auto seconds = [](double v) { return number_cell(q(format_duration(Seconds(v)))); };
  bool fair = false;
  const auto add = [&](const Report& r, const QString& run) {
    for (const auto& qr : r.quotas) {
      fair = fair || qr.fair_sharing;
      const QString none = QStringLiteral("-");
      auto* preempted = count(qr.preempted);
      if (qr.preempted > 0) preempted->setForeground(violation_color());
      append_row(quota_table_,
                 {text_cell(run), text_cell(q(qr.tenant)), count(qr.nominal_gpus), count(qr.peak_gpus),
                  seconds(qr.borrowed_gpu_seconds), count(qr.admissions), count(qr.queued), seconds(qr.max_wait_s),
                  preempted, count(qr.reclaimed), text_cell(qr.still_queued.empty() ? none : q(qr.still_queued)),
                  number_cell(qr.fair_sharing ? QString::number(qr.fair_weight, 'g', 3) : none),
                  number_cell(qr.fair_sharing ? share(qr.peak_share) : none),
                  number_cell(qr.fair_sharing ? share(qr.mean_share) : none)});
    }
  };
  add(*report_, QStringLiteral("current"));
  if (baseline_) add(*baseline_, QStringLiteral("baseline"));
  quota_table_->setColumnHidden(0, !baseline_);
  for (int c = 11; c <= 13; ++c) quota_table_->setColumnHidden(c, !fair);
  quota_table_->resizeColumnsToContents();  // fourteen narrow columns: no padding, so all fit
  quota_stack_->setCurrentWidget(quota_table_);
}

// ---- Scenario.

bool MainWindow::open_scenario(const QString& path, QString* error) {
  if (runner_->running()) {
    if (error) *error = QStringLiteral("a run is in progress; cancel it first");
    return false;
  }
  // Another scenario than the open lab's closes the lab (its what-ifs are written for its own scenario).
  if (lab_ && std::filesystem::weakly_canonical(lab_->scenario) !=
                  std::filesystem::weakly_canonical(std::filesystem::path(path.toStdString()))) {
    lab_.reset();
    lab_what_if_ = -1;
    lab_dock_->hide();
  }
  doc_ = load_scenario_doc(path.toStdString());
  const auto& spec = doc_->spec;
  scenario_label_->setText(
      QStringLiteral("<b>%1</b> <span style='color:#666'>%2</span><br><span style='color:#444'>%3</span>")
          .arg(q(spec.name).toHtmlEscaped(), QFileInfo(path).fileName().toHtmlEscaped(),
               q(spec.description).toHtmlEscaped()));
  scenario_label_->setToolTip(path);
  fill_structure();
  build_controls();
  QStringList lines;
  for (const auto& d : doc_->diagnostics) lines << q(d.format());
  show_diagnostics(lines,
                   doc_->has_errors() ? QStringLiteral("The scenario has errors; fix them to run it.") : QString());
  controls_changed();
  setWindowTitle(
      QStringLiteral("%1 - gputwin-gui").arg(q(spec.name.empty() ? doc_->path.filename().string() : spec.name)));
  statusBar()->showMessage(doc_->has_errors() ? QStringLiteral("%1: %2 problem(s)").arg(path).arg(lines.size())
                                              : QStringLiteral("%1 loaded: change something and press Run").arg(path));
  if (doc_->has_errors()) {
    if (error) *error = lines.value(0, QStringLiteral("%1 cannot be loaded").arg(path));
    return false;
  }
  return true;
}

void MainWindow::fill_structure() {
  structure_->clear();
  if (!doc_) return;
  std::function<void(QTreeWidgetItem*, const TreeNode&, int)> add = [&](QTreeWidgetItem* parent, const TreeNode& n,
                                                                        int depth) {
    auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(structure_);
    item->setText(0, q(n.label));
    item->setText(1, q(n.detail));
    item->setToolTip(1, q(n.detail));
    if (depth == 0) {
      QFont f = item->font(0);
      f.setBold(true);
      item->setFont(0, f);
    }
    for (const auto& c : n.children) add(item, c, depth + 1);
    item->setExpanded(depth < 2 && n.children.size() <= 12);
  };
  for (const auto& n : doc_->structure) add(nullptr, n, 0);
  structure_->resizeColumnToContents(0);
}

void MainWindow::build_controls() {
  // Remove the previous scenario's groups (everything but the final stretch).
  while (controls_layout_->count() > 1) {
    QLayoutItem* item = controls_layout_->takeAt(0);
    delete item->widget();
    delete item;
  }
  knob_widgets_.clear();
  if (!doc_) return;
  std::vector<std::string> groups;
  for (const auto& k : doc_->knobs)
    if (std::find(groups.begin(), groups.end(), k.group) == groups.end()) groups.push_back(k.group);
  int position = 0;
  for (const auto& g : groups) {
    auto* box = new QGroupBox(q(g));
    auto* form = new QFormLayout(box);
    form->setContentsMargins(8, 6, 8, 6);
    form->setVerticalSpacing(3);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (const auto& k : doc_->knobs) {
      if (k.group != g) continue;
      QWidget* w = nullptr;
      switch (k.kind) {
        case KnobKind::CHOICE: {
          auto* c = new QComboBox;
          for (const auto& choice : k.choices)
            c->addItem(choice.empty() ? QStringLiteral("(default)") : q(choice), q(choice));
          c->setCurrentIndex(std::max(0, c->findData(q(k.initial))));
          if (c->findData(q(k.initial)) < 0 && !k.initial.empty()) {
            c->addItem(q(k.initial), q(k.initial));
            c->setCurrentIndex(c->count() - 1);
          }
          connect(c, &QComboBox::currentIndexChanged, this, &MainWindow::controls_changed);
          w = c;
          break;
        }
        case KnobKind::NUMBER: {
          auto* d = new QDoubleSpinBox;
          d->setRange(k.min, k.max);
          d->setSingleStep(k.step);
          d->setDecimals(2);
          d->setValue(std::atof(k.initial.c_str()));
          d->setSuffix(QStringLiteral(" x"));
          connect(d, &QDoubleSpinBox::valueChanged, this, &MainWindow::controls_changed);
          w = d;
          break;
        }
        case KnobKind::INTEGER: {
          auto* i = new QSpinBox;
          i->setRange(static_cast<int>(k.min), static_cast<int>(k.max));
          i->setValue(std::atoi(k.initial.c_str()));
          connect(i, &QSpinBox::valueChanged, this, &MainWindow::controls_changed);
          w = i;
          break;
        }
        case KnobKind::TEXT: {
          if (!k.suggestions.empty()) {
            auto* c = new QComboBox;
            c->setEditable(true);
            c->addItem(QString());
            for (const auto& sug : k.suggestions) c->addItem(q(sug));
            c->setCurrentText(q(k.initial));
            c->lineEdit()->setPlaceholderText(QStringLiteral("(default)"));
            connect(c, &QComboBox::currentTextChanged, this, &MainWindow::controls_changed);
            w = c;
          } else {
            auto* e = new QLineEdit(q(k.initial));
            e->setPlaceholderText(QStringLiteral("(default)"));
            connect(e, &QLineEdit::textChanged, this, &MainWindow::controls_changed);
            w = e;
          }
          break;
        }
      }
      w->setProperty(KNOB_KEY, q(k.key));
      // Scrolling the control list must not change a value the pointer happens to pass over.
      if (qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w)) {
        w->setFocusPolicy(Qt::StrongFocus);
        w->installEventFilter(wheel_guard_);
      }
      w->setToolTip(q(k.help));
      w->setObjectName(q(k.key));
      auto* label = new QLabel(q(k.label));
      label->setToolTip(q(k.help));
      form->addRow(label, w);
      knob_widgets_[k.key] = w;
    }
    controls_layout_->insertWidget(position++, box);
  }
}

QString MainWindow::knob_value(const std::string& key) const {
  const auto it = knob_widgets_.find(key);
  if (it == knob_widgets_.end()) return {};
  QWidget* w = it->second;
  if (auto* c = qobject_cast<QComboBox*>(w)) return c->isEditable() ? c->currentText() : c->currentData().toString();
  if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) return QString::number(d->value(), 'g', 6);
  if (auto* i = qobject_cast<QSpinBox*>(w)) return QString::number(i->value());
  if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text();
  return {};
}

bool MainWindow::set_knob(const std::string& key, const QString& value) {
  const auto it = knob_widgets_.find(key);
  if (it == knob_widgets_.end()) return false;
  QWidget* w = it->second;
  if (auto* c = qobject_cast<QComboBox*>(w)) {
    if (c->isEditable()) {
      c->setCurrentText(value);
    } else {
      const int i = c->findData(value);
      if (i < 0) return false;
      c->setCurrentIndex(i);
    }
  } else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) {
    d->setValue(value.toDouble());
  } else if (auto* i = qobject_cast<QSpinBox*>(w)) {
    i->setValue(value.toInt());
  } else if (auto* e = qobject_cast<QLineEdit*>(w)) {
    e->setText(value);
  }
  controls_changed();
  return true;
}

void MainWindow::set_extra_overrides(const QStringList& overrides) {
  extra_overrides_ = overrides;
  controls_changed();
}

QStringList MainWindow::current_overrides() const {
  QStringList out;
  if (doc_ && !doc_->has_errors()) {
    std::map<std::string, std::string> values;
    for (const auto& [key, w] : knob_widgets_) values[key] = knob_value(key).toStdString();
    for (const auto& o : overrides_for(*doc_, values)) out << q(o);
  }
  out << extra_overrides_;
  return out;
}

void MainWindow::controls_changed() {
  overrides_view_->setPlainText(current_overrides().join(QLatin1Char('\n')));
  // Irrelevant fields of a sharing mapping are greyed out: a time slice means nothing to MIG.
  if (doc_)
    for (const auto& k : doc_->knobs) {
      if (k.target.empty() || k.modes.empty()) continue;
      const QString mode = knob_value(k.target + "|mode");
      const bool applies = std::find(k.modes.begin(), k.modes.end(), mode.toStdString()) != k.modes.end();
      if (auto it = knob_widgets_.find(k.key); it != knob_widgets_.end())
        if (auto* form = qobject_cast<QFormLayout*>(it->second->parentWidget()->layout()))
          form->setRowVisible(it->second, applies);
    }
  validate_timer_->start();
  update_buttons();
}

void MainWindow::validate_overrides() {
  if (!doc_ || doc_->has_errors()) return;
  QStringList lines;
  std::vector<std::string> overrides;
  for (const auto& o : current_overrides()) overrides.push_back(o.toStdString());
  for (const auto& d : check_overrides(doc_->path, overrides)) lines << q(d.format());
  show_diagnostics(lines, lines.isEmpty() ? QString() : QStringLiteral("These changes make the scenario invalid:"));
}

void MainWindow::show_diagnostics(const QStringList& lines, const QString& headline) {
  diagnostics_->clear();
  if (!headline.isEmpty()) {
    auto* item = new QListWidgetItem(headline);
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
    diagnostics_->addItem(item);
  }
  for (const auto& l : lines) diagnostics_->addItem(l);
  diagnostics_->setVisible(diagnostics_->count() > 0);
  update_buttons();
}

void MainWindow::update_buttons() {
  const bool busy = runner_->running();
  const bool valid = doc_ && !doc_->has_errors();
  run_button_->setEnabled(valid && !busy);
  cancel_button_->setEnabled(busy);
  pin_button_->setEnabled(report_.has_value() && !busy);
  clear_button_->setEnabled(baseline_.has_value());
  examples_->setEnabled(!busy);
}

// ---- Running.

bool MainWindow::running() const {
  return runner_->running();
}

bool MainWindow::run_scenario() {
  if (!doc_ || runner_->running()) return false;
  if (doc_->has_errors()) {
    QStringList lines;
    for (const auto& d : doc_->diagnostics) lines << q(d.format());
    show_diagnostics(lines, QStringLiteral("The scenario has errors; nothing was run."));
    return false;
  }
  const QStringList overrides = current_overrides();
  std::vector<std::string> ov;
  for (const auto& o : overrides) ov.push_back(o.toStdString());
  QStringList lines;
  for (const auto& d : check_overrides(doc_->path, ov))
    if (d.severity == Severity::ERROR) lines << q(d.format());
  if (!lines.isEmpty()) {
    show_diagnostics(lines, QStringLiteral("These changes make the scenario invalid; nothing was run."));
    return false;
  }
  if (!session_dir_)
    session_dir_ = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("gputwin-gui-XXXXXX")));
  const QString out = QDir(session_dir_->path()).filePath(QStringLiteral("run-%1").arg(++run_number_));
  running_overrides_ = overrides;
  progress_->setValue(0);
  runner_->start(q(doc_->path.string()), overrides, out);
  statusBar()->showMessage(QStringLiteral("running gputwin run %1").arg(q(doc_->path.filename().string())));
  update_buttons();
  return true;
}

void MainWindow::cancel_run() {
  runner_->cancel();
}

void MainWindow::on_run_finished(bool ok, const QString& out_dir, const QString& message,
                                 const QStringList& diagnostics) {
  if (!ok) {
    progress_->setValue(0);
    run_status_->setText(message);
    show_diagnostics(diagnostics, message);
    statusBar()->showMessage(message);
    update_buttons();
    emit run_finished(false);
    return;
  }
  LoadResult loaded = load_report(std::filesystem::path(out_dir.toStdString()));
  if (!loaded.report) {
    show_diagnostics({q(loaded.error)}, QStringLiteral("The run's report cannot be read:"));
    update_buttons();
    emit run_finished(false);
    return;
  }
  progress_->setValue(100);
  run_status_->setText(
      QStringLiteral("done: %1 of %2 SLOs missed").arg(loaded.report->slos_missed()).arg(loaded.report->slos.size()));
  report_overrides_ = running_overrides_;
  show_diagnostics(diagnostics, diagnostics.isEmpty() ? QString() : QStringLiteral("Warnings:"));
  show_report(std::move(*loaded.report));
  update_buttons();
  emit run_finished(true);
}

void MainWindow::refill_tables() {
  // The SLO, GPU and workload tables carry the baseline's numbers beside the current run's.
  const int keep = selected_slo_;
  fill_slo_table();
  fill_gpu_table();
  fill_workload_table();
  if (keep >= 0) slo_table_->selectRow(keep);
}

QString MainWindow::run_label(const QStringList& overrides) const {
  // "#3 sharing={mode: mig, ...}": the run's number among the pinned ones and its first change (a lab's
  // what-if by its label).
  QString what = QStringLiteral("as written");
  if (lab_ && lab_what_if_ >= 0 && overrides == current_overrides()) {
    what = q(lab_->what_ifs[static_cast<size_t>(lab_what_if_)].label);
  } else if (!overrides.isEmpty()) {
    QString first = overrides.front();
    const auto eq = first.indexOf(QLatin1Char('='));
    const QString path = first.left(eq), value = first.mid(eq + 1);
    what = QStringLiteral("%1=%2").arg(path.section(QLatin1Char('.'), -1), value.left(28));
    if (overrides.size() > 1) what += QStringLiteral(" +%1").arg(overrides.size() - 1);
  }
  return QStringLiteral("#%1 %2").arg(pinned_.size() + 1).arg(what);
}

void MainWindow::pin_baseline() {
  if (!report_) return;
  // Kept for the trade-off chart: the last eight pins.
  pinned_.push_back({run_label(report_overrides_), *report_});
  if (pinned_.size() > 8) pinned_.erase(pinned_.begin());
  baseline_ = report_;
  baseline_overrides_ = report_overrides_;
  statusBar()->showMessage(QStringLiteral("Pinned as baseline: change something and run again"));
  fill_header();
  refill_tables();
  fill_serving_table();
  refresh_charts();
  fill_compliance();
  fill_quotas();
  update_buttons();
}

void MainWindow::clear_baseline() {
  baseline_.reset();
  pinned_.clear();
  baseline_overrides_.clear();
  if (report_) {
    fill_header();
    refill_tables();
    fill_serving_table();
    refresh_charts();
    fill_compliance();
    fill_quotas();
  }
  update_buttons();
}

// ---- Charts.

void MainWindow::refresh_charts() {
  if (!report_) return;
  const Report* base = baseline();
  cdf_chart_->set_chart(make_latency_cdf_chart(*report_, base),
                        QStringLiteral("No inference workloads: no request latencies to show."));
  violation_chart_->set_chart(make_violation_timeline_chart(*report_, base),
                              QStringLiteral("No SLOs declared: nothing to violate."));
  // A run only a few SLO windows long has next to nothing per window: show who used the GPUs per timeline step.
  const auto& sc = report_->scenario;
  const bool few_windows = sc.sla_window_s > 0 && sc.duration_s / sc.sla_window_s < 4 && report_->timeline.step_s > 0;
  utilisation_chart_->set_chart(
      few_windows && !base ? make_timeline_chart(*report_) : make_utilisation_timeline_chart(*report_, base),
      QStringLiteral("This report has no utilisation time series (an older gputwin?)."));
  const QString none = report_->has_leakage ? QString() : QStringLiteral("This report has no leakage section.");
  leakage_chart_->set_chart(make_leakage_heatmap(*report_, base), none);
  security_->show_reports(&*report_, base);
  compare_->show_runs(&*report_, run_label(report_overrides_), base, pinned_);
  topology_->show_report(&*report_, base);
  const int keep_device = timeline_device_->currentData().isValid() ? timeline_device_->currentData().toInt() : -1;
  timeline_device_->clear();
  timeline_device_->addItem(QStringLiteral("all devices (busy GPUs)"), -1);
  for (const auto& [index, series] : report_->timeline.gpus)
    for (const auto& g : report_->gpus)
      if (g.index == index)
        timeline_device_->addItem(
            QStringLiteral("%1 GPU %2%3")
                .arg(q(g.node))
                .arg(g.local_index)
                .arg(g.mig_profile.empty() ? QString() : QStringLiteral(" MIG ") + q(g.mig_profile)),
            index);
  if (base && base->timeline.step_s > 0)
    timeline_device_->addItem(QStringLiteral("baseline: all devices"), BASELINE_TIMELINE);
  timeline_device_->setCurrentIndex(std::max(0, timeline_device_->findData(keep_device)));
  refresh_timeline();
  placement_chart_->set_chart(make_placement_timeline_chart(*report_, base),
                              QStringLiteral("This report lists no placements (an older gputwin?)."));
  placement_chart_->setMinimumHeight(placement_chart_min_height(*report_, base));
}

void MainWindow::fill_compliance() {
  compliance_table_->setRowCount(0);
  const bool any = report_ && (report_->has_compliance || (baseline_ && baseline_->has_compliance));
  if (!any) {
    compliance_placeholder_->setText(
        QStringLiteral("No compliance findings: the scenario declares no compliance policies "
                       "(spec.policies.compliance; `gputwin explain compliance` lists the rules)."));
    compliance_stack_->setCurrentWidget(compliance_placeholder_);
    return;
  }
  int row = 0;
  const auto add = [&](const Report& r, const QString& run) {
    for (const auto& f : r.findings) {
      compliance_table_->insertRow(row);
      const QStringList cells = {run, q(f.rule), q(f.status), q(f.severity), q(f.requirements), q(f.evidence)};
      for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setToolTip(cells[c]);
        if (c == 2 && f.status == "fail") item->setForeground(violation_color());
        if (c == 2 && f.status == "pass") item->setForeground(met_color());
        compliance_table_->setItem(row, c, item);
      }
      ++row;
    }
  };
  add(*report_, QStringLiteral("current"));
  if (baseline_) add(*baseline_, QStringLiteral("baseline"));
  compliance_table_->setColumnHidden(0, !baseline_);
  if (row == 0) {
    compliance_placeholder_->setText(QStringLiteral("The compliance section lists no findings."));
    compliance_stack_->setCurrentWidget(compliance_placeholder_);
    return;
  }
  compliance_table_->resizeColumnsToContents();
  // Requirements lists can be long: cap them so the evidence keeps most of the width, then wrap.
  compliance_table_->setColumnWidth(4, std::min(compliance_table_->columnWidth(4), 300));
  compliance_table_->resizeRowsToContents();
  compliance_stack_->setCurrentWidget(compliance_table_);
}

QImage MainWindow::render_summary(QSize size) const {
  if (!report_) return {};
  return gtw::gui::render_summary(*report_, baseline(), report_overrides_, baseline_overrides_, size);
}

// ---- Dialogs.

void MainWindow::open_scenario_dialog() {
  const QString start = doc_ ? QFileInfo(q(doc_->path.string())).absolutePath() : q(examples_dir().string());
  const QString file = QFileDialog::getOpenFileName(this, QStringLiteral("Open a scenario"), start,
                                                    QStringLiteral("Scenarios (*.yaml *.yml)"));
  if (file.isEmpty()) return;
  QString error;
  if (!open_scenario(file, &error)) statusBar()->showMessage(error);
}

bool MainWindow::save_scenario_as(const QString& path, QString* error) {
  const auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!doc_) return fail(QStringLiteral("no scenario is open"));
  if (doc_->has_errors()) return fail(QStringLiteral("the scenario has errors; fix them before saving it"));
  std::vector<std::string> overrides;
  for (const auto& o : current_overrides()) overrides.push_back(o.toStdString());
  // The loader's own messages for changes it would refuse; nothing is written then.
  for (const auto& d : check_overrides(doc_->path, overrides))
    if (d.severity == Severity::ERROR) return fail(QStringLiteral("the changes have problems: %1").arg(q(d.format())));
  std::string why;
  if (!save_scenario_with_overrides(doc_->path, overrides, path.toStdString(), &why)) return fail(q(why));
  // The saved file must load as it is, without --set.
  for (const auto& d : check_overrides(path.toStdString(), {}))
    if (d.severity == Severity::ERROR)
      return fail(QStringLiteral("saved %1, but it does not load: %2").arg(path, q(d.format())));
  const bool over_original = QFileInfo(path) == QFileInfo(q(doc_->path.string()));
  if (over_original) {
    // The file now holds the changes: show it as written, the controls back at their (new) initial values.
    extra_overrides_.clear();
    QString reopen_error;
    if (!open_scenario(path, &reopen_error)) return fail(reopen_error);
  }
  statusBar()->showMessage(QStringLiteral("Saved %1 (%2 change(s))").arg(path).arg(overrides.size()));
  return true;
}

void MainWindow::save_scenario_dialog() {
  if (!doc_) return;
  const QString original = q(doc_->path.string());
  const QString file = QFileDialog::getSaveFileName(this, QStringLiteral("Save the scenario with the changes as"),
                                                    q(default_save_path(doc_->path).string()),
                                                    QStringLiteral("Scenarios (*.yaml *.yml)"));
  if (file.isEmpty()) return;
  if (QFileInfo(file) == QFileInfo(original) &&
      QMessageBox::question(
          this, QStringLiteral("Overwrite the scenario?"),
          QStringLiteral("Write the changes into %1 itself? Its comments are not kept.").arg(original),
          QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Save)
    return;
  QString error;
  if (!save_scenario_as(file, &error)) QMessageBox::warning(this, QStringLiteral("Cannot save"), error);
}

void MainWindow::export_run_command_dialog() {
  if (!doc_) return;
  // A shell script that runs the unchanged scenario with the changes as --set overrides.
  const QString file = QFileDialog::getSaveFileName(this, QStringLiteral("Export the run command as a script"),
                                                    QString(), QStringLiteral("Shell scripts (*.sh)"));
  if (file.isEmpty()) return;
  std::ofstream out(file.toStdString());
  out << "#!/bin/sh\n# what-if run saved by gputwin-gui\nexec gputwin run '" << doc_->path.string() << "'";
  for (const auto& o : current_overrides()) out << " \\\n  --set '" << o.toStdString() << "'";
  out << " \"$@\"\n";
  if (!out) QMessageBox::warning(this, QStringLiteral("Cannot save"), QStringLiteral("cannot write %1").arg(file));
}

void MainWindow::export_summary_dialog() {
  if (!report_) return;
  const QString file = QFileDialog::getSaveFileName(this, QStringLiteral("Export the one-page summary"),
                                                    QStringLiteral("summary.png"), QStringLiteral("PNG (*.png)"));
  if (file.isEmpty()) return;
  if (!render_summary().save(file, "PNG"))
    QMessageBox::warning(this, QStringLiteral("Export failed"), QStringLiteral("cannot write %1").arg(file));
}

// ---- Guided labs.

void MainWindow::build_lab_dock() {
  lab_panel_ = new LabPanel;
  lab_dock_ = new QDockWidget(QStringLiteral("Guided lab"), this);
  lab_dock_->setObjectName(QStringLiteral("lab"));
  lab_dock_->setWidget(lab_panel_);
  lab_dock_->setMinimumWidth(200);
  addDockWidget(Qt::RightDockWidgetArea, lab_dock_);
  lab_dock_->hide();
  connect(lab_panel_, &LabPanel::run_as_written, this, [this] { run_lab_as_written(); });
  connect(lab_panel_, &LabPanel::what_if_requested, this, [this](int index) { apply_what_if(index); });
}

bool MainWindow::open_lab(const QString& path, QString* error) {
  const LabLoad loaded = load_lab(path.toStdString());
  if (!loaded.lab) {
    if (error) *error = q(loaded.error);
    statusBar()->showMessage(q(loaded.error));
    return false;
  }
  if (!open_scenario(q(loaded.lab->scenario.string()), error)) return false;
  lab_ = *loaded.lab;
  lab_what_if_ = -1;
  set_extra_overrides({});
  lab_panel_->show_lab(*lab_);
  lab_dock_->setWindowTitle(QStringLiteral("Guided lab: %1").arg(q(lab_->outcome)));
  lab_dock_->show();
  resizeDocks({lab_dock_}, {width() < 1300 ? 250 : 320}, Qt::Horizontal);  // narrow windows keep the results
  statusBar()->showMessage(QStringLiteral("Lab: %1. Run the scenario as written first.").arg(q(lab_->title)));
  return true;
}

bool MainWindow::run_lab_as_written() {
  if (!lab_) return false;
  lab_what_if_ = -1;
  set_extra_overrides({});
  lab_panel_->set_applied(-1);
  return run_scenario();
}

bool MainWindow::apply_what_if(int index) {
  if (!lab_ || index < 0 || index >= static_cast<int>(lab_->what_ifs.size()) || runner_->running()) return false;
  // The comparison the lab asks for: the run on show (the scenario as written, or the previous what-if)
  // against the what-if. A baseline pinned by the user stays.
  if (report_ && !baseline_) pin_baseline();
  QStringList overrides;
  for (const auto& o : lab_->what_ifs[static_cast<size_t>(index)].set) overrides << q(o);
  set_extra_overrides(overrides);
  lab_what_if_ = index;
  lab_panel_->set_applied(index);
  return run_scenario();
}

}  // namespace gtw::gui
