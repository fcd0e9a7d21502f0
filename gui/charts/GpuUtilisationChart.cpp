#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QValueAxis>

#include <algorithm>

#include "ChartStyle.hpp"
#include "Charts.hpp"

namespace gtw::gui {

QString gpu_label(const Gpu& gpu) {
  return QStringLiteral("GPU %1 (%2)").arg(gpu.index).arg(QString::fromStdString(gpu.sharing));
}

int gpu_chart_min_height(const Report& report) {
  return 140 + 26 * static_cast<int>(report.gpus.size());
}

QChart* make_gpu_utilisation_chart(const Report& report) {
  if (report.gpus.empty()) return nullptr;
  // One bar set per tenant that used any GPU (tenant order, so colours match the other charts), plus
  // tenants the report does not declare, should a GPU name one.
  std::vector<std::string> users;
  for (const auto& t : report.tenants) users.push_back(t.name);
  for (const auto& g : report.gpus)
    for (const auto& s : g.utilisation_by_tenant)
      if (std::find(users.begin(), users.end(), s.tenant) == users.end()) users.push_back(s.tenant);
  std::erase_if(users, [&report](const std::string& u) {
    return std::none_of(report.gpus.begin(), report.gpus.end(), [&u](const Gpu& g) {
      return std::any_of(g.utilisation_by_tenant.begin(), g.utilisation_by_tenant.end(),
                         [&u](const TenantShare& s) { return s.tenant == u && s.ratio > 0; });
    });
  });

  // Horizontal bars keep "GPU n (sharing)" labels readable however many GPUs there are. Categories
  // are listed bottom-up, so the GPUs are appended in reverse to read GPU 0 at the top.
  std::vector<const Gpu*> order;
  for (auto it = report.gpus.rbegin(); it != report.gpus.rend(); ++it) order.push_back(&*it);
  auto* series = new QHorizontalStackedBarSeries;
  series->setBarWidth(0.7);
  for (const auto& u : users) {
    auto* set = new QBarSet(QString::fromStdString(u));
    const QColor c = tenant_color(report.tenant_index(u));
    set->setColor(c);
    set->setBorderColor(c);
    for (const auto* g : order) {
      double ratio = 0;
      for (const auto& s : g->utilisation_by_tenant)
        if (s.tenant == u) ratio = s.ratio;
      *set << ratio * 100;
    }
    series->append(set);
  }
  QStringList categories;
  for (const auto* g : order) categories << gpu_label(*g);

  auto* chart = new QChart;
  detail::style_chart(
      chart,
      QStringLiteral("GPU utilisation by tenant (share of the %1 s run)").arg(report.scenario.duration_s, 0, 'g', 4));
  chart->addSeries(series);
  auto* y_axis = new QBarCategoryAxis;
  y_axis->append(categories);
  auto* x_axis = new QValueAxis;
  x_axis->setTitleText(QStringLiteral("busy time (% of the run)"));
  x_axis->setRange(0, 100);
  x_axis->setTickCount(11);
  x_axis->setLabelFormat(QStringLiteral("%.0f"));
  chart->addAxis(y_axis, Qt::AlignLeft);
  chart->addAxis(x_axis, Qt::AlignBottom);
  series->attachAxis(y_axis);
  series->attachAxis(x_axis);
  chart->legend()->setVisible(!users.empty());
  return chart;
}

}  // namespace gtw::gui
