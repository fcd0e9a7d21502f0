#include "TopologyView.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "Charts.hpp"

namespace gtw::gui {
namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

const QColor SHARED_SLOTS(0xffe0b2);  // co-resident on shared slots: orange
const QColor SEPARATE_MIG(0xfff9c4);  // co-resident in separate MIG instances: yellow
const QColor OUT_OF_REGION(0xffcdd2);

struct PhysicalGpu {
  std::string node, pool, region, product;
  int local = 0;
  std::vector<const Gpu*> devices;  // the whole GPU, or its MIG instances
};

// Whether two different tenants held devices of this GPU at the same time (from the placements).
bool tenants_overlap(const Report& r, const PhysicalGpu& p) {
  std::set<int> devices;
  for (const Gpu* d : p.devices) devices.insert(d->index);
  std::vector<const Placement*> stays;
  for (const auto& pl : r.placements)
    if (devices.count(pl.gpu)) stays.push_back(&pl);
  const double end_of_run = std::max(r.scenario.duration_s, r.summary.simulated_end_s);
  for (size_t i = 0; i < stays.size(); ++i)
    for (size_t j = i + 1; j < stays.size(); ++j) {
      const Placement& a = *stays[i];
      const Placement& b = *stays[j];
      if (a.tenant == b.tenant) continue;
      const double a_end = std::isfinite(a.end_s) ? a.end_s : end_of_run;
      const double b_end = std::isfinite(b.end_s) ? b.end_s : end_of_run;
      if (a.start_s < b_end && b.start_s < a_end) return true;
    }
  return false;
}

QString tenant_text(const Report& r, const std::string& name) {
  const int t = r.tenant_index(name);
  const std::string cls = t >= 0 ? r.tenants[static_cast<size_t>(t)].classification : "";
  return cls.empty() ? q(name) : QStringLiteral("%1 [%2]").arg(q(name), q(cls));
}

// The tenants of a set of devices, in the report's tenant order.
std::vector<std::string> tenants_of(const Report& r, const std::vector<const Gpu*>& devices) {
  std::set<std::string> names;
  for (const Gpu* d : devices) names.insert(d->tenants.begin(), d->tenants.end());
  std::vector<std::string> out(names.begin(), names.end());
  std::stable_sort(out.begin(), out.end(), [&r](const std::string& a, const std::string& b) {
    return static_cast<unsigned>(r.tenant_index(a)) < static_cast<unsigned>(r.tenant_index(b));
  });
  return out;
}

void set_tenants(QTreeWidgetItem* item, const Report& r, const std::vector<std::string>& tenants) {
  QStringList texts;
  for (const auto& t : tenants) texts << tenant_text(r, t);
  item->setText(TopologyView::COL_TENANTS, texts.join(QStringLiteral(", ")));
  // One tenant: its colour; several: the highlight of the row says more than a mixed colour.
  if (tenants.size() == 1) item->setForeground(TopologyView::COL_TENANTS, tenant_color(r.tenant_index(tenants[0])));
}

void paint_row(QTreeWidgetItem* item, const QColor& color) {
  for (int c = 0; c < TopologyView::COLUMNS; ++c) item->setBackground(c, color);
}

}  // namespace

TopologyView::TopologyView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  layout->addWidget(summary_);
  tree_ = new QTreeWidget;
  tree_->setColumnCount(COLUMNS);
  tree_->setHeaderLabels({QStringLiteral("Region / node / GPU / instance"), QStringLiteral("Sharing"),
                          QStringLiteral("Tenants [classification]"), QStringLiteral("Busy"),
                          QStringLiteral("Why highlighted")});
  tree_->setAlternatingRowColors(false);
  tree_->setUniformRowHeights(true);
  tree_->header()->setStretchLastSection(true);
  layout->addWidget(tree_, 1);
}

void TopologyView::show_report(const Report* report, const Report* base) {
  tree_->clear();
  co_resident_ = 0;
  residency_violations_ = 0;
  if (!report) {
    summary_->clear();
    return;
  }
  QTreeWidgetItem* root = nullptr;
  if (base) {
    // The baseline's tree under the current one's, each under a heading; the counts are the current run's.
    auto* base_root = new QTreeWidgetItem;
    base_root->setText(COL_DEVICE, QStringLiteral("Baseline run"));
    base_root->setData(COL_DEVICE, KIND_ROLE, QStringLiteral("run"));
    add_tree(*base, base_root);
    const int co = co_resident_, out = residency_violations_;
    root = new QTreeWidgetItem(tree_);
    root->setText(COL_DEVICE, QStringLiteral("Current run"));
    root->setData(COL_DEVICE, KIND_ROLE, QStringLiteral("run"));
    tree_->addTopLevelItem(base_root);
    co_resident_ = 0;
    residency_violations_ = 0;
    summary_base_ = QStringLiteral(" Baseline: %1 shared, %2 outside their region.").arg(co).arg(out);
  } else {
    summary_base_.clear();
  }
  add_tree(*report, root);
  finish();
}

void TopologyView::add_tree(const Report& r, QTreeWidgetItem* root) {
  // region -> node -> physical GPU, in the report's device order.
  std::map<std::string, std::vector<std::string>> nodes_of_region;
  std::map<std::string, std::vector<PhysicalGpu>> gpus_of_node;
  for (const auto& g : r.gpus) {
    auto& gpus = gpus_of_node[g.node];
    if (gpus.empty()) nodes_of_region[g.region].push_back(g.node);
    auto it = std::find_if(gpus.begin(), gpus.end(), [&g](const PhysicalGpu& p) { return p.local == g.local_index; });
    if (it == gpus.end()) {
      gpus.push_back({g.node, g.pool, g.region, g.product, g.local_index, {}});
      it = gpus.end() - 1;
    }
    it->devices.push_back(&g);
  }
  physical_ = 0;
  regions_ = static_cast<int>(nodes_of_region.size());
  for (const auto& [region, nodes] : nodes_of_region) {
    auto* region_item = root ? new QTreeWidgetItem(root) : new QTreeWidgetItem(tree_);
    region_item->setText(COL_DEVICE,
                         region.empty() ? QStringLiteral("(no region)") : QStringLiteral("region %1").arg(q(region)));
    region_item->setData(COL_DEVICE, KIND_ROLE, QStringLiteral("region"));
    for (const auto& node : nodes) {
      const auto& gpus = gpus_of_node[node];
      auto* node_item = new QTreeWidgetItem(region_item);
      node_item->setText(COL_DEVICE, QStringLiteral("node %1 (pool %2, %3 x %4)")
                                         .arg(q(node), q(gpus.front().pool))
                                         .arg(gpus.size())
                                         .arg(q(gpus.front().product)));
      node_item->setData(COL_DEVICE, KIND_ROLE, QStringLiteral("node"));
      for (const auto& p : gpus) {
        ++physical_;
        auto* gpu_item = new QTreeWidgetItem(node_item);
        gpu_item->setData(COL_DEVICE, KIND_ROLE, QStringLiteral("gpu"));
        const bool mig = !p.devices.front()->mig_profile.empty();
        gpu_item->setText(COL_DEVICE, QStringLiteral("GPU %1").arg(p.local));
        gpu_item->setText(COL_SHARING, mig ? QStringLiteral("mig (%1 instances)").arg(p.devices.size())
                                           : QStringLiteral("%1, %2 slot(s)")
                                                 .arg(q(p.devices.front()->sharing))
                                                 .arg(p.devices.front()->slot_count));
        const auto tenants = tenants_of(r, p.devices);
        set_tenants(gpu_item, r, tenants);
        double busy = 0;
        for (const Gpu* d : p.devices) busy += d->utilisation / static_cast<double>(p.devices.size());
        gpu_item->setText(COL_UTILISATION, q(format_value(busy, "share")));
        QStringList notes;
        if (tenants.size() >= 2) {
          ++co_resident_;
          const bool at_once = tenants_overlap(r, p);
          notes << (mig       ? QStringLiteral("co-resident in separate MIG instances")
                    : at_once ? QStringLiteral("co-resident on shared slots, at the same time")
                              : QStringLiteral("shared one after another (memory residue)"));
          paint_row(gpu_item, mig ? SEPARATE_MIG : SHARED_SLOTS);
        }
        for (const auto& t : tenants) {
          const int ti = r.tenant_index(t);
          const std::string& home = ti >= 0 ? r.tenants[static_cast<size_t>(ti)].region : std::string();
          if (!home.empty() && !p.region.empty() && home != p.region) {
            ++residency_violations_;
            notes << QStringLiteral("%1 (region %2) ran in %3").arg(q(t), q(home), q(p.region));
            paint_row(gpu_item, OUT_OF_REGION);
          }
        }
        gpu_item->setText(COL_NOTE, notes.join(QStringLiteral("; ")));
        if (!mig) continue;
        for (const Gpu* d : p.devices) {
          auto* inst = new QTreeWidgetItem(gpu_item);
          inst->setData(COL_DEVICE, KIND_ROLE, QStringLiteral("instance"));
          inst->setText(COL_DEVICE, QStringLiteral("MIG %1 (device %2)").arg(q(d->mig_profile)).arg(d->index));
          inst->setText(COL_SHARING, QStringLiteral("%1 slot(s)").arg(d->slot_count));
          set_tenants(inst, r, tenants_of(r, {d}));
          inst->setText(COL_UTILISATION, q(format_value(d->utilisation, "share")));
        }
      }
    }
  }
}

void TopologyView::finish() {
  tree_->expandAll();
  for (int c = 0; c < COLUMNS - 1; ++c) tree_->resizeColumnToContents(c);
  summary_->setText(
      QStringLiteral("%1 physical GPUs in %2 region(s); <span style='background:#ffe0b2'>&nbsp;%3 hosted two or more "
                     "tenants&nbsp;</span> (yellow: kept apart by MIG); <span style='background:#ffcdd2'>&nbsp;%4 "
                     "placement(s) outside the tenant's region&nbsp;</span>.%5")
          .arg(physical_)
          .arg(regions_)
          .arg(co_resident_)
          .arg(residency_violations_)
          .arg(summary_base_.toHtmlEscaped()));
}

}  // namespace gtw::gui
