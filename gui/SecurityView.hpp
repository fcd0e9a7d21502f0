#pragma once
// The Security tab: what the run says about leakage and attacks, from report.json's leakage section
// (docs/models/leakage.md). Totals in one line; the tenant-pair heatmap on the absolute colour scale; tables of
// the replayed attacks beside their analytic bound, the discrete exposures in bytes, the model-IP view with the
// mitigations that close each channel, the open channels, the closed ones with their reason and the isolation
// boundaries, and identity at run time: the invocations (confused-deputy, refused and after-revocation hops),
// leaked secrets' exposure windows and the incidents with when each was known and notified. With a baseline pinned
// every table has its rows too (column "Run").
#include <QString>
#include <QWidget>

#include "ReportModel.hpp"

class QComboBox;
class QLabel;
class QTabWidget;
class QTableWidget;

namespace gtw::gui {

class ChartPanel;

class SecurityView : public QWidget {
  Q_OBJECT

 public:
  // The tables, in tab order.
  enum Table { ATTACKS, EXPOSURES, MODELS, CHANNELS, CLOSED, BOUNDARIES, AGENTS, SECRET_LEAKS, INCIDENTS, TABLES };
  // Each numeric cell carries its exact value as data under this role (tests and copy-paste read it).
  static constexpr int VALUE_ROLE = Qt::UserRole + 1;

  explicit SecurityView(QWidget* parent = nullptr);

  /// Shows `now` (nullptr: nothing) with `base` beside it.
  void show_reports(const Report* now, const Report* base);

  QLabel* totals() const { return totals_; }
  ChartPanel* heatmap() const { return heatmap_; }
  QComboBox* resource_choice() const { return resource_; }
  QTableWidget* table(Table t) const { return tables_[t]; }
  QTabWidget* table_tabs() const { return table_tabs_; }

  /// One line of totals, as the header of the tab writes it (plain text).
  static QString totals_line(const Report& r);

 private:
  void refresh_heatmap();
  void fill_attacks();
  void fill_exposures();
  void fill_models();
  void fill_channels();
  void fill_closed();
  void fill_boundaries();
  void fill_identity_runtime();

  const Report* now_ = nullptr;
  const Report* base_ = nullptr;
  QLabel* totals_ = nullptr;
  ChartPanel* heatmap_ = nullptr;
  QComboBox* resource_ = nullptr;
  QTabWidget* table_tabs_ = nullptr;
  QTableWidget* tables_[TABLES] = {};
};

}  // namespace gtw::gui
