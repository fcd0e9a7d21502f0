// The what-if charts: latency CDF, SLA violations over time, utilisation over time, leakage heatmap and the
// placement timeline, each with an optional baseline run drawn beside the current one.
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "ChartStyle.hpp"
#include "Charts.hpp"

namespace gtw::gui {
namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// Colour of a tenant by its position in the current run, else in the baseline (after the current ones).
QColor color_of(const std::string& tenant, const Report& now, const Report* base) {
  int i = now.tenant_index(tenant);
  if (i < 0 && base) {
    const int j = base->tenant_index(tenant);
    i = j < 0 ? -1 : static_cast<int>(now.tenants.size()) + j;
  }
  return tenant_color(i);
}

QPen line_pen(QColor c, bool baseline, double width = 2.2) {
  QPen pen(baseline ? c.lighter(115) : c);
  pen.setWidthF(baseline ? width * 0.8 : width);
  if (baseline) pen.setStyle(Qt::DashLine);
  pen.setCapStyle(Qt::RoundCap);
  return pen;
}

void hide_legend_entry(QChart* chart, QAbstractSeries* s) {
  for (auto* m : chart->legend()->markers(s)) m->setVisible(false);
}

using detail::add_rectangle;
using detail::add_text;
using detail::time_axis;
using detail::TimeAxis;

double window_of(const Report& r) {
  return r.scenario.sla_window_s > 0 ? r.scenario.sla_window_s : 60;
}

QString suffix(bool baseline) {
  return baseline ? QStringLiteral(" (baseline)") : QString();
}

QString series_id(bool baseline, const QString& key) {
  return QLatin1String(baseline ? BASE_PREFIX : NOW_PREFIX) + key;
}

// The leakage colour bar: one band per decade of bits from 1 bit to 1 Tbit, labelled every three decades,
// over `height` units of the y axis starting at 0; "open ?" and "closed" swatches below it.
void add_leakage_scale(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, double left, double width, double height) {
  const double top = height * 0.92, bottom = height * 0.18;
  const double band = (top - bottom) / LEAKAGE_SCALE_DECADES;
  for (int d = 0; d < static_cast<int>(LEAKAGE_SCALE_DECADES); ++d) {
    auto* r = add_rectangle(chart, x, y, QRectF(left, bottom + d * band, width, band),
                            leakage_color(std::pow(10.0, d + 0.5)), Qt::transparent);
    r->setObjectName(QStringLiteral("scale:%1").arg(d));
  }
  for (int d = 0; d <= static_cast<int>(LEAKAGE_SCALE_DECADES); d += 3)
    add_text(chart, x, y, QPointF(left + width + 0.3, bottom + d * band - band * 0.35), format_bits(std::pow(10.0, d)),
             7.5);
  add_text(chart, x, y, QPointF(left + width / 2 + 0.1, top + band * 0.2), QStringLiteral("bits"), 7.5);
  const double sw = height * 0.05;
  add_rectangle(chart, x, y, QRectF(left, bottom - 2.2 * sw, width, sw), unquantified_color(), QColor(0xbdbdbd));
  add_text(chart, x, y, QPointF(left + width + 0.3, bottom - 2.2 * sw - sw * 0.5), QStringLiteral("open ?"), 7.5);
  add_rectangle(chart, x, y, QRectF(left, bottom - 4 * sw, width, sw), closed_color(), QColor(0xbdbdbd));
  add_text(chart, x, y, QPointF(left + width + 0.3, bottom - 4 * sw - sw * 0.5), QStringLiteral("closed"), 7.5);
}

}  // namespace

QString format_bits(double bits) {
  if (!std::isfinite(bits)) return QStringLiteral("?");
  static const char* units[] = {"bit", "kbit", "Mbit", "Gbit", "Tbit", "Pbit"};
  int u = 0;
  double v = bits;
  while (std::fabs(v) >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  return QStringLiteral("%1 %2").arg(v, 0, 'g', v >= 100 ? 3 : 2).arg(QLatin1String(units[u]));
}

QColor leakage_color(double bits) {
  if (!(bits > 0)) return closed_color();
  const double f = std::clamp(std::log10(std::max(bits, 1.0)) / LEAKAGE_SCALE_DECADES, 0.0, 1.0);
  // Light lilac (1 bit) to deep purple (1 Tbit and more): the same bits, the same colour, in every chart.
  const QColor a(0xf2e6f7), b(0x4a148c);
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}
QColor unquantified_color() {
  return QColor(0xfff3cd);
}
QColor closed_color() {
  return QColor(0xfafafa);
}
QColor same_tenant_color() {
  return QColor(0xe0e0e0);
}

// ---- Latency CDF.

QChart* make_latency_cdf_chart(const Report& now, const Report* base) {
  struct Curve {
    QString key;
    QColor color;
    bool baseline;
    std::vector<std::pair<double, double>> points;  // (seconds, percent)
  };
  std::vector<Curve> curves;
  double lo = INFINITY, hi = 0;
  const auto add = [&](const Report& r, bool baseline) {
    for (const auto& w : r.workloads) {
      if (!w.inference()) continue;
      Curve c{q(w.tenant + "/" + w.name), color_of(w.tenant, now, base), baseline, {}};
      if (!w.latency_cdf.empty()) {
        for (const auto& [p, s] : w.latency_cdf)
          if (std::isfinite(s) && s > 0) c.points.emplace_back(s, p);
      } else {  // an older report: its percentiles only
        for (const auto& [p, s] : {std::pair{50.0, w.latency.p50_s}, std::pair{95.0, w.latency.p95_s},
                                   std::pair{99.0, w.latency.p99_s}, std::pair{100.0, w.latency.max_s}})
          if (std::isfinite(s) && s > 0) c.points.emplace_back(s, p);
      }
      if (c.points.empty()) continue;
      for (const auto& pt : c.points) {
        lo = std::min(lo, pt.first);
        hi = std::max(hi, pt.first);
      }
      curves.push_back(std::move(c));
    }
  };
  add(now, false);
  if (base) add(*base, true);
  if (curves.empty()) return nullptr;

  struct SloMark {
    QString name;
    QColor color;
    double threshold, percentile;
  };
  std::vector<SloMark> slos;
  for (const auto& s : now.slos) {
    if (s.kind != "latency" || !s.threshold || !(*s.threshold > 0)) continue;
    double pct = 99;
    if (s.objective.size() > 1 && s.objective[0] == 'p') pct = std::atof(s.objective.c_str() + 1);
    // The curve is over the whole run; the SLO is judged window by window. Saying both keeps a curve that
    // passes the mark from reading as a contradiction of "violated" (and the other way round).
    slos.push_back({QStringLiteral("%1 SLO: p%2 <= %3, judged per window: %4 of %5 violated")
                        .arg(q(s.tenant))
                        .arg(pct, 0, 'g', 4)
                        .arg(q(format_value(*s.threshold, "s")))
                        .arg(s.violated)
                        .arg(s.evaluated),
                    color_of(s.tenant, now, base), *s.threshold, pct});
    lo = std::min(lo, *s.threshold);
    hi = std::max(hi, *s.threshold);
  }

  auto* chart = new QChart;
  detail::style_chart(chart,
                      base ? QStringLiteral("Request latency CDF over the whole run: current vs baseline (dashed)")
                           : QStringLiteral("Request latency CDF over the whole run"));
  auto* x = new QLogValueAxis;
  x->setBase(10);
  x->setTitleText(QStringLiteral("request latency (s, log scale)"));
  x->setLabelFormat(QStringLiteral("%g"));
  const double x_lo = std::pow(10.0, std::floor(std::log10(lo * 0.9)));
  const double x_hi = std::pow(10.0, std::ceil(std::log10(hi * 1.1)));
  x->setRange(x_lo, x_hi);
  x->setMinorTickCount(8);
  auto* y = detail::padded_axis(QStringLiteral("requests completed within (%)"), 100, 20);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  for (const auto& c : curves) {
    auto* s = new QLineSeries;
    s->setName(c.key + suffix(c.baseline));
    s->setObjectName(series_id(c.baseline, c.key));
    s->setPen(line_pen(c.color, c.baseline));
    for (const auto& [sec, pct] : c.points) s->append(sec, pct);
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
  }
  for (const auto& m : slos) {
    auto* line = new QLineSeries;
    line->setName(m.name);
    line->setObjectName(QStringLiteral("slo:") + m.name);
    QPen pen(m.color.darker(130));
    pen.setWidthF(1.4);
    pen.setStyle(Qt::DotLine);
    line->setPen(pen);
    line->append(m.threshold, 0);
    line->append(m.threshold, 100);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    auto* target = new QScatterSeries;
    target->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    target->setMarkerSize(9);
    target->setColor(m.color.darker(130));
    target->setBorderColor(Qt::white);
    target->append(m.threshold, m.percentile);
    chart->addSeries(target);
    target->attachAxis(x);
    target->attachAxis(y);
    hide_legend_entry(chart, target);
  }
  return chart;
}

// ---- SLA violations over time.

QChart* make_violation_timeline_chart(const Report& now, const Report* base) {
  if (now.slos.empty() && (!base || base->slos.empty())) return nullptr;
  const double duration = std::max(now.scenario.duration_s, base ? base->scenario.duration_s : 0.0);
  TimeAxis t = time_axis(duration);
  auto* chart = new QChart;
  detail::style_chart(chart, base ? QStringLiteral("SLA violations per window: current vs baseline (dashed)")
                                  : QStringLiteral("SLA violations per window"));
  double top = 1;
  std::vector<QLineSeries*> all;
  const auto add = [&](const Report& r, bool baseline) {
    const double w = window_of(r);
    const size_t n = static_cast<size_t>(std::max(1.0, std::ceil(r.scenario.duration_s / w - 1e-9)));
    for (const auto& tenant : r.tenants) {
      std::vector<int> count(n, 0);
      bool has = false;
      for (const auto& s : r.slos) {
        if (s.tenant != tenant.name) continue;
        has = true;
        for (const auto& win : s.windows)
          if (win.violated) count[std::min(n - 1, static_cast<size_t>(std::max(0.0, win.start_s) / w))]++;
      }
      if (!has) continue;
      auto* s = new QLineSeries;
      s->setName(q(tenant.name) + suffix(baseline));
      s->setObjectName(series_id(baseline, q(tenant.name)));
      s->setPen(line_pen(color_of(tenant.name, now, base), baseline));
      s->setPointsVisible(true);
      for (size_t k = 0; k < n; ++k) {
        s->append((static_cast<double>(k) + 0.5) * w / t.scale, count[k]);
        top = std::max(top, static_cast<double>(count[k]));
      }
      all.push_back(s);
    }
  };
  add(now, false);
  if (base) add(*base, true);
  if (all.empty()) {
    delete chart;
    return nullptr;
  }
  auto* y = detail::padded_axis(QStringLiteral("violated SLO windows or jobs"), top, top <= 10 ? 1 : 0);
  chart->addAxis(t.axis, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (auto* s : all) {
    chart->addSeries(s);
    s->attachAxis(t.axis);
    s->attachAxis(y);
  }
  return chart;
}

// ---- Utilisation over time.

QChart* make_utilisation_timeline_chart(const Report& now, const Report* base) {
  bool any = false;
  for (const auto& g : now.gpus) any = any || !g.utilisation_windows.empty();
  if (base)
    for (const auto& g : base->gpus) any = any || !g.utilisation_windows.empty();
  if (!any) return nullptr;
  const double duration = std::max(now.scenario.duration_s, base ? base->scenario.duration_s : 0.0);
  TimeAxis t = time_axis(duration);
  auto* chart = new QChart;
  auto* y = detail::padded_axis(QStringLiteral("busy share of the window (%)"), 100, 20);
  chart->addAxis(t.axis, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  const bool per_gpu = !base && now.gpus.size() <= 10;
  detail::style_chart(chart, per_gpu ? QStringLiteral("GPU utilisation per window")
                             : base  ? QStringLiteral("Utilisation per pool / sharing: current vs baseline")
                                     : QStringLiteral("Utilisation per node pool / sharing mode"));
  const auto palette = [](int i) { return QColor::fromHsv((i * 47 + 200) % 360, 150, 190); };
  const auto add_series = [&](const QString& name, const QString& id, const std::vector<double>& values, double w,
                              QColor color, bool baseline) {
    auto* s = new QLineSeries;
    s->setName(name);
    s->setObjectName(id);
    s->setPen(line_pen(color, baseline, 1.8));
    for (size_t k = 0; k < values.size(); ++k) s->append((static_cast<double>(k) + 0.5) * w / t.scale, values[k] * 100);
    chart->addSeries(s);
    s->attachAxis(t.axis);
    s->attachAxis(y);
  };
  if (per_gpu) {
    for (size_t i = 0; i < now.gpus.size(); ++i) {
      const Gpu& g = now.gpus[i];
      QString name = gpu_label(g);
      if (!g.mig_profile.empty()) name += QStringLiteral(" ") + q(g.mig_profile);
      add_series(name, series_id(false, name), g.utilisation_windows, window_of(now), palette(static_cast<int>(i)),
                 false);
    }
    return chart;
  }
  // Groups: mean over the devices of each (pool, sharing mode), in order of first appearance in either run.
  std::vector<std::string> order;
  const auto groups_of = [&](const Report& r) {
    std::map<std::string, std::pair<std::vector<double>, int>> groups;
    for (const auto& g : r.gpus) {
      const std::string key = g.pool + "/" + g.sharing;
      if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
      auto& [sum, count] = groups[key];
      if (sum.size() < g.utilisation_windows.size()) sum.resize(g.utilisation_windows.size(), 0.0);
      for (size_t k = 0; k < g.utilisation_windows.size(); ++k) sum[k] += g.utilisation_windows[k];
      ++count;
    }
    for (auto& [key, group] : groups)
      for (double& v : group.first) v /= std::max(1, group.second);
    return groups;
  };
  const auto now_groups = groups_of(now);
  const auto base_groups = base ? groups_of(*base) : decltype(now_groups){};
  for (size_t i = 0; i < order.size(); ++i) {
    const QString key = q(order[i]);
    if (const auto it = now_groups.find(order[i]); it != now_groups.end())
      add_series(QStringLiteral("%1 (%2)").arg(key).arg(it->second.second), series_id(false, key), it->second.first,
                 window_of(now), palette(static_cast<int>(i)), false);
    if (const auto it = base_groups.find(order[i]); base && it != base_groups.end())
      add_series(QStringLiteral("%1 (%2)%3").arg(key).arg(it->second.second).arg(suffix(true)), series_id(true, key),
                 it->second.first, window_of(*base), palette(static_cast<int>(i)), true);
  }
  return chart;
}

// ---- Leakage heatmap.

QStringList leakage_resources(const Report& now, const Report* base) {
  std::set<std::string> seen;
  for (const auto& c : now.leak_channels) seen.insert(c.resource);
  if (base)
    for (const auto& c : base->leak_channels) seen.insert(c.resource);
  QStringList out;
  for (const auto& r : seen) out << q(r);
  return out;
}

QChart* make_leakage_heatmap(const Report& now, const Report* base, const QString& resource) {
  if (!now.has_leakage || now.tenants.empty()) return nullptr;
  std::vector<std::string> tenants;
  for (const auto& t : now.tenants) tenants.push_back(t.name);
  if (base)
    for (const auto& t : base->tenants)
      if (std::find(tenants.begin(), tenants.end(), t.name) == tenants.end()) tenants.push_back(t.name);
  const size_t n = tenants.size();
  using Cell = PairLeakage;
  const auto cells_of = [&resource](const Report& r) { return leakage_by_pair(r, resource.toStdString()); };
  const auto now_cells = cells_of(now);
  const auto base_cells = base && base->has_leakage ? cells_of(*base) : decltype(now_cells){};
  double total = 0, total_bytes = 0;
  for (const auto& [k, c] : now_cells) {
    total += c.bits;
    total_bytes += c.bytes;
  }

  auto* chart = new QChart;
  const QString which = resource.isEmpty() ? QString() : QStringLiteral(", %1 channels").arg(resource);
  double base_total = 0;
  for (const auto& [k, c] : base_cells) base_total += c.bits;
  double base_bytes = 0;
  for (const auto& [k, c] : base_cells) base_bytes += c.bytes;
  const auto amount = [&](double bits, double bytes) {
    QString text = format_bits(bits);
    if (resource.isEmpty() && bytes > 0) text += QStringLiteral(" + %1").arg(q(format_value(bytes, "B")));
    return text;
  };
  detail::style_chart(chart,
                      base ? QStringLiteral("Leakage per pair%1: %2 (baseline %3)")
                                 .arg(which, amount(total, total_bytes), amount(base_total, base_bytes))
                           : QStringLiteral("Leakage per pair%1: %2 in total").arg(which, amount(total, total_bytes)));
  chart->legend()->hide();
  auto* x = new QCategoryAxis;
  auto* y = new QCategoryAxis;
  x->setTitleText(QStringLiteral("source tenant (whose activity leaks)"));
  y->setTitleText(QStringLiteral("observer tenant (who learns)"));
  x->setStartValue(0);
  y->setStartValue(0);
  for (size_t i = 0; i < n; ++i) x->append(q(tenants[i]), static_cast<double>(i + 1));
  for (size_t j = 0; j < n; ++j) y->append(q(tenants[n - 1 - j]), static_cast<double>(j + 1));
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
  y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
  // The matrix, then a colour bar of the absolute scale to its right (inside the chart, so exports carry it).
  const double bar_x = static_cast<double>(n) + 0.25, bar_w = 0.22;
  x->setRange(0, static_cast<double>(n) + 1.1);
  y->setRange(0, static_cast<double>(n));
  x->setGridLineVisible(false);
  y->setGridLineVisible(false);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  for (size_t i = 0; i < n; ++i) {    // observer, top to bottom
    for (size_t s = 0; s < n; ++s) {  // source
      const double x0 = static_cast<double>(s), y0 = static_cast<double>(n - 1 - i);
      const auto key = std::make_pair(tenants[i], tenants[s]);
      const auto it = now_cells.find(key);
      const Cell cell = it == now_cells.end() ? Cell{} : it->second;
      auto* upper = new QLineSeries;
      auto* lower = new QLineSeries;
      const double pad = 0.03;
      upper->append(x0 + pad, y0 + 1 - pad);
      upper->append(x0 + 1 - pad, y0 + 1 - pad);
      lower->append(x0 + pad, y0 + pad);
      lower->append(x0 + 1 - pad, y0 + pad);
      auto* area = new QAreaSeries(upper, lower);
      area->setObjectName(QStringLiteral("cell:%1<-%2").arg(q(tenants[i]), q(tenants[s])));
      QColor fill = i == s                            ? same_tenant_color()
                    : cell.bits > 0 || cell.bytes > 0 ? leakage_color(std::max(cell.bits, cell.bytes * 8))
                    : cell.open                       ? unquantified_color()
                                                      : closed_color();
      area->setBrush(fill);
      area->setPen(QPen(QColor(0xbdbdbd), 1));
      chart->addSeries(area);
      area->attachAxis(x);
      area->attachAxis(y);
      QString label;
      if (i == s) {
        label = QStringLiteral("-");
      } else {
        const auto text_of = [&](const Cell& c) {
          QString t = c.bits > 0 ? format_bits(c.bits) : c.open ? QStringLiteral("open ?") : QString();
          if (c.bits > 0 && c.unquantified) t += QStringLiteral(" +?");
          // Bytes on a line of their own: a cell is narrow once there are a few tenants.
          if (c.bytes > 0) t += (t.isEmpty() ? QString() : QStringLiteral("\n+ ")) + q(format_value(c.bytes, "B"));
          return t.isEmpty() ? QStringLiteral("closed") : t;
        };
        label = text_of(cell);
        if (base) {
          // The baseline's value in brackets, only where it differs: "closed (closed)" says nothing twice.
          const auto bt = base_cells.find(key);
          Cell b = bt == base_cells.end() ? Cell{} : bt->second;
          if (b.bytes == cell.bytes && b.bits > 0) b.bytes = 0;  // the same bytes: say them once, above
          const QString before = text_of(b);
          if (before != label)
            label += QStringLiteral("\n(%1)").arg(QString(before).replace(QLatin1Char('\n'), QLatin1Char(' ')));
        }
      }
      // One text series per line (point labels draw one line): the first is named "label:OBSERVER<-SOURCE"
      // and carries the whole label in its "text" property.
      const QStringList lines = label.split(QLatin1Char('\n'));
      const double line_height = 0.13;
      for (int k = 0; k < lines.size(); ++k) {
        auto* text = new QScatterSeries;
        text->setObjectName(k == 0 ? QStringLiteral("label:%1<-%2").arg(q(tenants[i]), q(tenants[s]))
                                   : QStringLiteral("line:%1<-%2:%3").arg(q(tenants[i]), q(tenants[s])).arg(k));
        if (k == 0) text->setProperty("text", lines.join(QLatin1Char(' ')));
        text->setMarkerSize(1);
        text->setColor(Qt::transparent);
        text->setBorderColor(Qt::transparent);
        text->append(x0 + 0.5, y0 + 0.45 + line_height * ((lines.size() - 1) / 2.0 - k));
        text->setPointLabelsFormat(lines[k]);
        text->setPointLabelsVisible(true);
        text->setPointLabelsClipping(false);
        text->setPointLabelsColor(fill.lightnessF() < 0.5 ? Qt::white : QColor(0x222222));
        QFont f = text->pointLabelsFont();
        f.setPointSizeF(n > 5 || (base && n > 3) ? 7 : n > 3 ? 8 : 9);
        text->setPointLabelsFont(f);
        chart->addSeries(text);
        text->attachAxis(x);
        text->attachAxis(y);
      }
    }
  }
  add_leakage_scale(chart, x, y, bar_x, bar_w, static_cast<double>(n));
  return chart;
}

// ---- Placement timeline.

namespace {

struct PlacementRow {
  QString label;
  const Report* report;
  int gpu;
};

// One row per device: every device of a small cluster, else those that held a replica. A device is named by its
// node and local GPU (and MIG instance), which is what an operator reads on the machine.
std::vector<PlacementRow> placement_rows(const Report& now, const Report* base) {
  std::vector<PlacementRow> rows;
  const auto add_rows = [&rows](const Report& r, bool baseline) {
    std::set<int> used;
    for (const auto& p : r.placements) used.insert(p.gpu);
    const bool all = r.gpus.size() <= 16 && !baseline;
    for (const auto& g : r.gpus) {
      if (!all && !used.count(g.index)) continue;
      QString label = QStringLiteral("%1%2 GPU %3 ")
                          .arg(baseline ? QStringLiteral("base: ") : QString(), q(g.node))
                          .arg(g.local_index);
      label +=
          g.mig_profile.empty() ? q(g.sharing) : QStringLiteral("MIG %1 (dev %2)").arg(q(g.mig_profile)).arg(g.index);
      rows.push_back({label, &r, g.index});
    }
  };
  add_rows(now, false);
  if (base) add_rows(*base, true);
  return rows;
}

}  // namespace

int placement_chart_min_height(const Report& now, const Report* base) {
  // 22 px per row keeps each label whole; the chart's title, axis and legend need about 170 more.
  return 170 + 22 * static_cast<int>(placement_rows(now, base).size());
}

QChart* make_placement_timeline_chart(const Report& now, const Report* base) {
  if (now.placements.empty() && (!base || base->placements.empty())) return nullptr;
  const std::vector<PlacementRow> rows = placement_rows(now, base);
  if (rows.empty()) return nullptr;
  const size_t n = rows.size();
  const double duration = std::max(now.scenario.duration_s, base ? base->scenario.duration_s : 0.0);
  const double end_of = std::max({duration, now.summary.simulated_end_s, base ? base->summary.simulated_end_s : 0.0});
  TimeAxis t = time_axis(end_of);

  auto* chart = new QChart;
  detail::style_chart(chart, base ? QStringLiteral("Placements over time (current above, baseline below)")
                                  : QStringLiteral("Placements over time"));
  auto* y = new QCategoryAxis;
  y->setTitleText(QStringLiteral("device"));
  y->setStartValue(0);
  for (size_t j = 0; j < n; ++j) y->append(rows[n - 1 - j].label, static_cast<double>(j + 1));
  y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
  y->setRange(0, static_cast<double>(n));
  chart->addAxis(t.axis, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  std::set<std::string> in_legend;
  auto* ended = new QScatterSeries;
  ended->setName(QStringLiteral("ended early (fault, eviction, out of memory)"));
  ended->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  ended->setMarkerSize(7);
  ended->setColor(violation_color());
  ended->setBorderColor(violation_color());
  int bars = 0;
  for (size_t row = 0; row < n; ++row) {
    const PlacementRow& r = rows[row];
    const double yc = static_cast<double>(n - 1 - row) + 0.5;
    int on_gpu = 0;
    for (const auto& p : r.report->placements) on_gpu += p.gpu == r.gpu ? 1 : 0;
    const int lanes = std::clamp(on_gpu, 1, 4);
    int slot = 0;
    for (const auto& p : r.report->placements) {
      if (p.gpu != r.gpu || bars > 600) continue;
      const bool baseline = r.report != &now;
      const double offset = (slot % lanes - (lanes - 1) / 2.0) * 0.6 / lanes;
      ++slot;
      ++bars;
      // A bar is a filled rectangle (an area between two lines): it stays centred on its row at any size.
      const double end = std::max(std::isfinite(p.end_s) ? p.end_s : end_of, p.start_s + end_of * 0.002);
      const double half = std::min(0.3, 0.55 / lanes / 2);
      auto* top = new QLineSeries;
      auto* bottom = new QLineSeries;
      top->append(p.start_s / t.scale, yc + offset + half);
      top->append(end / t.scale, yc + offset + half);
      bottom->append(p.start_s / t.scale, yc + offset - half);
      bottom->append(end / t.scale, yc + offset - half);
      auto* s = new QAreaSeries(top, bottom);
      s->setName(q(p.tenant));
      s->setObjectName(series_id(baseline, q(p.tenant + "/" + p.workload + "[" + std::to_string(p.replica) + "]")));
      QColor color = color_of(p.tenant, now, base);
      if (baseline) color = color.lighter(125);
      s->setBrush(color);
      s->setPen(QPen(color.darker(115), 1));
      chart->addSeries(s);
      s->attachAxis(t.axis);
      s->attachAxis(y);
      if (!in_legend.insert(p.tenant).second) hide_legend_entry(chart, s);
      // "done" is a job that finished: only failures, faults and evictions end a stay early.
      if (std::isfinite(p.end_s) && !p.end_reason.empty() && p.end_reason != "unfinished" && p.end_reason != "done")
        ended->append(p.end_s / t.scale, yc + offset);
    }
  }
  chart->addSeries(ended);
  ended->attachAxis(t.axis);
  ended->attachAxis(y);
  if (ended->count() == 0) hide_legend_entry(chart, ended);
  return chart;
}

}  // namespace gtw::gui
