#pragma once
// The Topology tab: where every tenant ran, as region > node > GPU > MIG instance / shared slots, each
// tenant in its colour with its data classification. Physical GPUs that hosted more than one tenant are
// highlighted (co-residency: orange when they shared slots, yellow when MIG kept them in separate
// instances), and a tenant that ran outside its own region is flagged in red (a residency violation).
#include <QWidget>

#include "ReportModel.hpp"

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace gtw::gui {

class TopologyView : public QWidget {
  Q_OBJECT

 public:
  enum Column { COL_DEVICE, COL_SHARING, COL_TENANTS, COL_UTILISATION, COL_NOTE, COLUMNS };
  // What an item of the tree is, as data under Qt::UserRole of COL_DEVICE (tests and tools read it).
  static constexpr int KIND_ROLE = Qt::UserRole + 1;

  explicit TopologyView(QWidget* parent = nullptr);
  /// Shows `report`; with `base`, the baseline's tree below it (the counts are the current run's).
  void show_report(const Report* report, const Report* base = nullptr);

  QTreeWidget* tree() const { return tree_; }
  QLabel* summary() const { return summary_; }
  /// Counts of the last report: physical GPUs hosting two or more tenants, and tenant placements outside the
  /// tenant's region.
  int co_resident_gpus() const { return co_resident_; }
  int residency_violations() const { return residency_violations_; }

 private:
  void add_tree(const Report& r, QTreeWidgetItem* root);
  void finish();

  QTreeWidget* tree_ = nullptr;
  int physical_ = 0;
  int regions_ = 0;
  QString summary_base_;
  QLabel* summary_ = nullptr;
  int co_resident_ = 0;
  int residency_violations_ = 0;
};

}  // namespace gtw::gui
