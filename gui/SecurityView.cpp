#include "SecurityView.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "ChartPanel.hpp"
#include "Charts.hpp"
#include "Tables.hpp"

namespace gtw::gui {
namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// A number cell showing `text` and holding `value` exactly.
QTableWidgetItem* value_cell(double value, const std::string& unit) {
  auto* item = number_cell(q(format_value(value, unit)));
  item->setData(SecurityView::VALUE_ROLE, value);
  return item;
}

QTableWidgetItem* status_cell(const QString& text, bool bad) {
  auto* item = text_cell(text);
  item->setForeground(bad ? violation_color() : met_color());
  return item;
}

// The runs to list: the current one, then the baseline (the "Run" column tells them apart).
template <typename Fill>
void for_runs(const Report* now, const Report* base, Fill fill) {
  if (now) fill(*now, QStringLiteral("current"));
  if (base) fill(*base, QStringLiteral("baseline"));
}

void finish_table(QTableWidget* t, bool with_baseline, int cap = 260) {
  t->setColumnHidden(0, !with_baseline);
  fit_columns(t, cap);
}

}  // namespace

SecurityView::SecurityView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  totals_ = new QLabel;
  totals_->setTextFormat(Qt::RichText);
  totals_->setWordWrap(true);
  totals_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(totals_);

  auto* split = new QSplitter(Qt::Horizontal);
  auto* left = new QWidget;
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(QStringLiteral("Channels:")));
  resource_ = new QComboBox;
  resource_->setToolTip(QStringLiteral("All channels of a pair, or those of one shared resource"));
  connect(resource_, &QComboBox::activated, this, [this] { refresh_heatmap(); });
  row->addWidget(resource_);
  row->addStretch(1);
  left_layout->addLayout(row);
  heatmap_ = new ChartPanel;
  heatmap_->setMinimumSize(240, 200);
  left_layout->addWidget(heatmap_, 1);
  auto* key = new QLabel(QStringLiteral(
      "<b>bit</b>: upper bound on what the observer (row) can learn from the source's (column) activity over the "
      "run, capacity x co-active time, summed over the open channels of the pair (one measurement counts once). "
      "<b>B</b>: bytes of discrete exposures no mitigation closed (unscrubbed memory, plaintext on PCIe, network "
      "or storage), placed on the colour scale at 8 bit per byte. <b>open ?</b> / <b>+?</b>: a channel is open but "
      "no published capacity carries over to this hardware. Pairs on different GPUs of one node still share PCIe, "
      "NVLink and the host: see the relation column of <i>Open channels</i>. In brackets: the baseline."));
  key->setWordWrap(true);
  key->setStyleSheet(QStringLiteral("color:#555; font-size:8pt;"));
  left_layout->addWidget(key);
  split->addWidget(left);

  table_tabs_ = new QTabWidget;
  const QString run = QStringLiteral("Run");
  // What it achieved beside the bound first: the columns a narrow window still shows.
  tables_[ATTACKS] = make_table({run, QStringLiteral("Attack"), QStringLiteral("Measure"), QStringLiteral("Achieved"),
                                 QStringLiteral("Bound"), QStringLiteral("Within bound"), QStringLiteral("Type"),
                                 QStringLiteral("Attacker"), QStringLiteral("Victim"), QStringLiteral("Channel"),
                                 QStringLiteral("Ran"), QStringLiteral("Outcome")});
  tables_[EXPOSURES] =
      make_table({run, QStringLiteral("Observer"), QStringLiteral("Source"), QStringLiteral("Bytes"),
                  QStringLiteral("Status"), QStringLiteral("Kind"), QStringLiteral("Workload"), QStringLiteral("GPU"),
                  QStringLiteral("Closed by"), QStringLiteral("How the bytes were derived")});
  tables_[MODELS] = make_table({run, QStringLiteral("Model"), QStringLiteral("Owner"), QStringLiteral("Weights"),
                                QStringLiteral("Part"), QStringLiteral("Channel"), QStringLiteral("Status"),
                                QStringLiteral("Exposed to"), QStringLiteral("Bits"), QStringLiteral("Bytes"),
                                QStringLiteral("Closed by (mitigations)"), QStringLiteral("Detail")});
  tables_[CHANNELS] = make_table({run, QStringLiteral("Observer"), QStringLiteral("Source"), QStringLiteral("Resource"),
                                  QStringLiteral("Relation"), QStringLiteral("State"), QStringLiteral("Capacity"),
                                  QStringLiteral("Co-active"), QStringLiteral("Bound"), QStringLiteral("Counted"),
                                  QStringLiteral("Capacity from")});
  tables_[CLOSED] = make_table({run, QStringLiteral("Observer"), QStringLiteral("Source"), QStringLiteral("Resource"),
                                QStringLiteral("Relation"), QStringLiteral("Co-active"), QStringLiteral("Why closed")});
  tables_[BOUNDARIES] = make_table({run, QStringLiteral("Tenants"), QStringLiteral("Node"), QStringLiteral("Same GPU"),
                                    QStringLiteral("Shared layers")});
  tables_[AGENTS] =
      make_table({run, QStringLiteral("Invocation"), QStringLiteral("Principal -> entry"), QStringLiteral("Calls"),
                  QStringLiteral("Hops"), QStringLiteral("Confused deputy"), QStringLiteral("First deputy at"),
                  QStringLiteral("Over-privileged"), QStringLiteral("After revocation"), QStringLiteral("Refused"),
                  QStringLiteral("Refused because")});
  tables_[SECRET_LEAKS] =
      make_table({run, QStringLiteral("Secret"), QStringLiteral("Owner"), QStringLiteral("To"),
                  QStringLiteral("Leaked at"), QStringLiteral("Known at"), QStringLiteral("Usable until"),
                  QStringLiteral("Exposed for"), QStringLiteral("Ended by"), QStringLiteral("Opens")});
  tables_[INCIDENTS] =
      make_table({run, QStringLiteral("Kind"), QStringLiteral("Of"), QStringLiteral("Affected"), QStringLiteral("By"),
                  QStringLiteral("At"), QStringLiteral("Known at"), QStringLiteral("Notified at")});
  const char* names[TABLES] = {"Attacks",       "Exposures (bytes)", "Model IP",
                               "Open channels", "Closed channels",   "Isolation boundaries",
                               "Invocations",   "Secret leaks",      "Incidents"};
  for (int t = 0; t < TABLES; ++t) table_tabs_->addTab(tables_[t], QString::fromLatin1(names[t]));
  split->addWidget(table_tabs_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);
}

QString SecurityView::totals_line(const Report& r) {
  if (!r.has_leakage) return QStringLiteral("no leakage section in this report");
  double closed_bytes = 0;
  for (const auto& d : r.leak_discrete) closed_bytes += d.closed ? d.bytes : 0;
  QString line = QStringLiteral("leakage bound %1 over %2 open channels (%3 not quantified); discrete exposures %4")
                     .arg(q(format_value(r.leakage_bits, "bit")))
                     .arg(r.leakage_open_channels)
                     .arg(r.leakage_unquantified_channels)
                     .arg(q(format_value(r.leakage_bytes, "B")));
  if (closed_bytes > 0)
    line += QStringLiteral(" (%1 more closed by mitigations)").arg(q(format_value(closed_bytes, "B")));
  int ran = 0, beyond = 0;
  for (const auto& a : r.attacks) {
    ran += a.ran ? 1 : 0;
    beyond += a.ran && !a.within_bound ? 1 : 0;
  }
  if (!r.attacks.empty())
    line += QStringLiteral("; %1 of %2 attacks ran%3")
                .arg(ran)
                .arg(r.attacks.size())
                .arg(beyond ? QStringLiteral(", %1 beyond the analytic bound").arg(beyond) : QString());
  int open_models = 0;
  for (const auto& m : r.models)
    for (const auto& x : m.exposures)
      if (x.status == "open") {
        ++open_models;
        break;
      }
  if (!r.models.empty()) line += QStringLiteral("; %1 of %2 models exposed").arg(open_models).arg(r.models.size());
  int deputies = 0;
  for (const auto& a : r.agents) deputies += a.confused_deputy;
  if (!r.agents.empty()) line += QStringLiteral("; %1 confused-deputy hops at run time").arg(deputies);
  if (!r.secret_leaks.empty())
    line += r.secret_leaks.size() == 1 ? QStringLiteral("; 1 secret leaked")
                                       : QStringLiteral("; %1 secrets leaked").arg(r.secret_leaks.size());
  return line;
}

void SecurityView::show_reports(const Report* now, const Report* base) {
  now_ = now;
  base_ = base;
  QString text;
  if (now) text = QStringLiteral("<b>Current run:</b> %1").arg(totals_line(*now).toHtmlEscaped());
  if (base)
    text += QStringLiteral("<br><span style='color:#555'><b>Baseline:</b> %1</span>")
                .arg(totals_line(*base).toHtmlEscaped());
  totals_->setText(text);
  const QString keep = resource_->currentData().toString();
  resource_->clear();
  resource_->addItem(QStringLiteral("all"), QString());
  if (now)
    for (const auto& r : leakage_resources(*now, base)) resource_->addItem(r, r);
  resource_->setCurrentIndex(std::max(0, resource_->findData(keep)));
  refresh_heatmap();
  fill_attacks();
  fill_exposures();
  fill_models();
  fill_identity_runtime();
  fill_channels();
  fill_closed();
  fill_boundaries();
  // Open on a table that has rows: attacks first, then exposures, the model-IP view, the channels.
  if (tables_[table_tabs_->currentIndex()]->rowCount() == 0)
    for (int t = 0; t < TABLES; ++t)
      if (tables_[t]->rowCount() > 0) {
        table_tabs_->setCurrentIndex(t);
        break;
      }
}

void SecurityView::refresh_heatmap() {
  if (!now_) {
    heatmap_->set_chart(nullptr);
    return;
  }
  heatmap_->set_chart(make_leakage_heatmap(*now_, base_, resource_->currentData().toString()),
                      now_->has_leakage ? QString() : QStringLiteral("This report has no leakage section."));
}

void SecurityView::fill_attacks() {
  QTableWidget* t = tables_[ATTACKS];
  t->setRowCount(0);
  for_runs(now_, base_, [t](const Report& r, const QString& run) {
    for (const auto& a : r.attacks) {
      const QString channel = q(a.resource + " / " + a.relation + " (" + a.bound_state + ")");
      append_row(t,
                 {text_cell(run), text_cell(q(a.name)), text_cell(q(a.measure)), value_cell(a.achieved, a.unit),
                  value_cell(a.bound, a.unit),
                  status_cell(a.within_bound ? QStringLiteral("yes") : QStringLiteral("NO"), !a.within_bound),
                  text_cell(q(a.type)), text_cell(q(a.attacker)),
                  text_cell(q(a.victim + (a.target.empty() ? "" : " / " + a.target))), text_cell(channel),
                  status_cell(a.ran ? QStringLiteral("yes") : QStringLiteral("no"), false), text_cell(q(a.outcome))});
    }
  });
  finish_table(t, base_ != nullptr);
}

void SecurityView::fill_exposures() {
  QTableWidget* t = tables_[EXPOSURES];
  t->setRowCount(0);
  for_runs(now_, base_, [t](const Report& r, const QString& run) {
    for (const auto& d : r.leak_discrete) {
      const QString status =
          d.closed ? QStringLiteral("closed: %1").arg(q(d.closed_reason)) : QStringLiteral("OPEN: counted as leaked");
      append_row(t, {text_cell(run), text_cell(q(d.observer)), text_cell(q(d.source)), value_cell(d.bytes, "B"),
                     status_cell(status, !d.closed), text_cell(q(d.kind)), text_cell(q(d.workload)),
                     number_cell(d.gpu >= 0 ? QString::number(d.gpu) : QStringLiteral("-")), text_cell(q(d.closed_by)),
                     text_cell(q(d.basis))});
    }
  });
  finish_table(t, base_ != nullptr);
}

void SecurityView::fill_models() {
  QTableWidget* t = tables_[MODELS];
  t->setRowCount(0);
  for_runs(now_, base_, [t](const Report& r, const QString& run) {
    for (const auto& m : r.models)
      for (const auto& x : m.exposures)
        append_row(t, {text_cell(run), text_cell(q(m.workload)), text_cell(q(m.owner)), value_cell(m.weight_bytes, "B"),
                       text_cell(q(x.part)), text_cell(q(x.channel)), status_cell(q(x.status), x.status == "open"),
                       text_cell(q(x.tenants)), value_cell(x.bits, "bit"), value_cell(x.bytes, "B"),
                       text_cell(q(x.closed_by)), text_cell(q(x.detail))});
  });
  finish_table(t, base_ != nullptr);
}

void SecurityView::fill_channels() {
  QTableWidget* t = tables_[CHANNELS];
  t->setRowCount(0);
  for_runs(now_, base_, [t](const Report& r, const QString& run) {
    for (const auto& c : r.leak_channels)
      append_row(t, {text_cell(run), text_cell(q(c.observer)), text_cell(q(c.source)), text_cell(q(c.resource)),
                     text_cell(q(c.mode)), text_cell(q(c.state)), value_cell(c.capacity_bps, "bit/s"),
                     value_cell(c.exposure_s, "s"), value_cell(c.bound_bits, "bit"),
                     text_cell(c.counted ? QStringLiteral("yes") : QStringLiteral("no: same measurement")),
                     text_cell(q(c.capacity_source))});
  });
  finish_table(t, base_ != nullptr);
}

void SecurityView::fill_closed() {
  QTableWidget* t = tables_[CLOSED];
  t->setRowCount(0);
  for_runs(now_, base_, [t](const Report& r, const QString& run) {
    for (const auto& c : r.leak_closed)
      append_row(t, {text_cell(run), text_cell(q(c.observer)), text_cell(q(c.source)), text_cell(q(c.resource)),
                     text_cell(q(c.mode)), value_cell(c.co_active_s, "s"), text_cell(q(c.reason))});
  });
  finish_table(t, base_ != nullptr, 200);
}

void SecurityView::fill_identity_runtime() {
  const auto when = [](double t) {
    return !std::isfinite(t) ? text_cell(QStringLiteral("never")) : value_cell(t, "s");
  };
  QTableWidget* agents = tables_[AGENTS];
  agents->setRowCount(0);
  for_runs(now_, base_, [&](const Report& r, const QString& run) {
    for (const auto& a : r.agents)
      append_row(
          agents,
          {text_cell(run), text_cell(q(a.name)), text_cell(q(a.principal + " -> " + a.entry)), value_cell(a.calls, ""),
           value_cell(a.hops, ""), status_cell(QString::number(a.confused_deputy), a.confused_deputy > 0),
           !std::isfinite(a.first_deputy_at_s) ? text_cell(QStringLiteral("-")) : value_cell(a.first_deputy_at_s, "s"),
           status_cell(QString::number(a.over_privileged), a.over_privileged > 0),
           status_cell(QString::number(a.after_revocation), a.after_revocation > 0), value_cell(a.refused, ""),
           text_cell(q(a.refused_by))});
  });
  finish_table(agents, base_ != nullptr);
  QTableWidget* leaks = tables_[SECRET_LEAKS];
  leaks->setRowCount(0);
  for_runs(now_, base_, [&](const Report& r, const QString& run) {
    for (const auto& l : r.secret_leaks)
      append_row(leaks, {text_cell(run), text_cell(q(l.secret)), text_cell(q(l.owner)),
                         text_cell(l.to.empty() ? QStringLiteral("outsider") : q(l.to)), value_cell(l.at_s, "s"),
                         when(l.known_at_s),
                         !std::isfinite(l.end_s) ? status_cell(QStringLiteral("still usable at the end"), true)
                                                 : value_cell(l.end_s, "s"),
                         value_cell(l.exposure_s, "s"), text_cell(q(l.ended_by)), text_cell(q(l.protects))});
  });
  finish_table(leaks, base_ != nullptr);
  QTableWidget* incidents = tables_[INCIDENTS];
  incidents->setRowCount(0);
  for_runs(now_, base_, [&](const Report& r, const QString& run) {
    for (const auto& i : r.incidents)
      append_row(incidents, {text_cell(run), text_cell(q(i.kind)), text_cell(q(i.resource)), text_cell(q(i.affected)),
                             text_cell(i.observer.empty() ? QStringLiteral("outsider") : q(i.observer)),
                             value_cell(i.time_s, "s"), when(i.known_at_s), when(i.notified_at_s)});
  });
  finish_table(incidents, base_ != nullptr);
}

void SecurityView::fill_boundaries() {
  QTableWidget* t = tables_[BOUNDARIES];
  t->setRowCount(0);
  for_runs(now_, base_, [t](const Report& r, const QString& run) {
    for (const auto& b : r.boundaries)
      append_row(t, {text_cell(run), text_cell(q(b.tenant_a + " / " + b.tenant_b)), text_cell(q(b.node)),
                     status_cell(b.same_gpu ? QStringLiteral("yes") : QStringLiteral("no"), b.same_gpu),
                     text_cell(q(b.shared_layers))});
  });
  finish_table(t, base_ != nullptr);
}

}  // namespace gtw::gui
