// The Timeline tab's chart: who kept the GPUs busy when, where the SLOs were violated, and what happened
// (attacks, faults, MIG reconfigurations, compliance violations and refusals).
#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "ChartStyle.hpp"
#include "Charts.hpp"

namespace gtw::gui {
namespace {

QColor mark_color(const std::string& kind) {
  if (kind == "attack") return QColor(0x6a1b9a);
  if (kind == "fault") return QColor(0xe65100);
  if (kind == "reconfiguration") return QColor(0x1565c0);
  return QColor(0x37474f);  // compliance
}

const std::vector<TenantSeries>* series_of(const Report& r, int gpu) {
  if (gpu < 0) return &r.timeline.cluster;
  for (const auto& [index, series] : r.timeline.gpus)
    if (index == gpu) return &series;
  return nullptr;
}

// The start and end of every window in which some window SLO was violated, merged.
std::vector<std::pair<double, double>> violated_windows(const Report& r) {
  std::set<std::pair<double, double>> spans;
  for (const auto& s : r.slos) {
    if (s.per_job()) continue;
    for (size_t i = 0; i < s.windows.size(); ++i) {
      if (!s.windows[i].violated) continue;
      const double start = s.windows[i].start_s;
      const double end = i + 1 < s.windows.size()
                             ? s.windows[i + 1].start_s
                             : start + (r.scenario.sla_window_s > 0 ? r.scenario.sla_window_s : 60);
      spans.insert({start, end});
    }
  }
  std::vector<std::pair<double, double>> merged;
  for (const auto& sp : spans)
    if (!merged.empty() && sp.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, sp.second);
    else
      merged.push_back(sp);
  return merged;
}

}  // namespace

QChart* make_timeline_chart(const Report& r, int gpu) {
  const std::vector<TenantSeries>* series = series_of(r, gpu);
  if (!(r.timeline.step_s > 0) || !series || series->empty()) return nullptr;
  const double step = r.timeline.step_s;
  size_t steps = 0;
  for (const auto& s : *series) steps = std::max(steps, s.values.size());
  std::vector<double> stack(steps, 0.0);
  for (const auto& s : *series)
    for (size_t k = 0; k < s.values.size(); ++k) stack[k] += s.values[k];
  const double top = std::max(1e-9, *std::max_element(stack.begin(), stack.end()));
  // The timeline covers the scenario's duration (the drain after it has no arrivals); marks past it widen it.
  double end_of = r.scenario.duration_s > 0 ? r.scenario.duration_s : step * static_cast<double>(steps);
  for (const auto& m : r.marks) end_of = std::max(end_of, m.time_s);

  auto* chart = new QChart;
  detail::style_chart(chart, gpu < 0 ? QStringLiteral("Who kept the devices busy, per %1 step (all devices)")
                                           .arg(q_string(format_value(step, "s")))
                                     : QStringLiteral("Device %1: busy share by tenant, per %2 step")
                                           .arg(gpu)
                                           .arg(q_string(format_value(step, "s"))));
  detail::TimeAxis t = detail::time_axis(end_of);
  double y_top = 0;
  QValueAxis* y =
      detail::padded_axis(gpu < 0 ? QStringLiteral("busy devices (GPUs, MIG instances)") : QStringLiteral("busy share"),
                          top * 1.18, 0, &y_top);
  chart->addAxis(t.axis, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  // SLO violations first, under the stack: a pale red band over each violated window.
  const auto bands = violated_windows(r);
  for (size_t i = 0; i < bands.size(); ++i) {
    auto* band = detail::add_rectangle(
        chart, t.axis, y, QRectF(bands[i].first / t.scale, 0, (bands[i].second - bands[i].first) / t.scale, top * 1.12),
        QColor(229, 57, 53, 40), Qt::transparent);
    band->setName(QStringLiteral("SLO violated"));
    band->setObjectName(QStringLiteral("violated:%1").arg(i));
    if (i > 0)
      for (auto* m : chart->legend()->markers(band)) m->setVisible(false);
  }

  // The stack: each tenant's steps on top of the previous tenants'.
  std::vector<double> below(steps, 0.0);
  for (const auto& s : *series) {
    auto* upper = new QLineSeries;
    auto* lower = new QLineSeries;
    for (size_t k = 0; k < steps; ++k) {
      const double v = k < s.values.size() ? s.values[k] : 0.0;
      const double x0 = static_cast<double>(k) * step / t.scale, x1 = static_cast<double>(k + 1) * step / t.scale;
      lower->append(x0, below[k]);
      lower->append(x1, below[k]);
      upper->append(x0, below[k] + v);
      upper->append(x1, below[k] + v);
      below[k] += v;
    }
    auto* area = new QAreaSeries(upper, lower);
    area->setName(q_string(s.tenant));
    area->setObjectName(QStringLiteral("tenant:%1").arg(q_string(s.tenant)));
    const QColor color = tenant_color(r.tenant_index(s.tenant));
    area->setBrush(color);
    area->setPen(QPen(color.darker(115), 1));
    chart->addSeries(area);
    area->attachAxis(t.axis);
    area->attachAxis(y);
  }

  // The marks: one dashed line per kind and instant (marks closer than 1% of the axis share it), labelled
  // while there are few enough to read, the labels staggered in height so that neighbours do not overlap.
  struct Group {
    double time_s;
    std::string kind;
    QStringList texts;
  };
  std::vector<Group> groups;
  for (const auto& m : r.marks) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.kind == m.kind && std::fabs(g.time_s - m.time_s) <= end_of * 0.01;
    });
    if (it == groups.end()) {
      groups.push_back({m.time_s, m.kind, {}});
      it = groups.end() - 1;
    }
    if (!it->texts.contains(q_string(m.text))) it->texts << q_string(m.text);
  }
  std::set<std::string> in_legend;
  const bool labels = groups.size() <= 12;
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    auto* line = new QLineSeries;
    line->append(g.time_s / t.scale, 0);
    line->append(g.time_s / t.scale, top * 1.12);
    line->setPen(QPen(mark_color(g.kind), 1.5, Qt::DashLine));
    line->setName(q_string(g.kind));
    line->setObjectName(QStringLiteral("mark:%1").arg(q_string(g.kind)));
    chart->addSeries(line);
    line->attachAxis(t.axis);
    line->attachAxis(y);
    if (!in_legend.insert(g.kind).second)
      for (auto* marker : chart->legend()->markers(line)) marker->setVisible(false);
    if (labels)
      detail::add_text(chart, t.axis, y, QPointF(g.time_s / t.scale, top * (1.15 - 0.05 * static_cast<double>(i % 3))),
                       g.texts.join(QStringLiteral("; ")), 7);
  }
  // Text labels are scatter series: keep them out of the legend.
  for (auto* s : chart->series())
    if (s->objectName().isEmpty())
      for (auto* marker : chart->legend()->markers(s)) marker->setVisible(false);
  return chart;
}

}  // namespace gtw::gui
