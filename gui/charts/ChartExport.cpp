#include "ChartExport.hpp"

#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QDir>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

#include "Charts.hpp"

namespace gtw::gui {
namespace {

// Tenant and SLO names are free text in the scenario; keep file names portable.
QString file_part(const std::string& name) {
  QString out = QString::fromStdString(name);
  for (auto& c : out)
    if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != '-' && c != '_' && c != '.') c = '_';
  return out;
}

}  // namespace

QImage render_chart(QChart* chart, QSize size) {
  QChartView view(chart);  // owns the chart from here on
  view.setRenderHint(QPainter::Antialiasing);
  view.resize(size);
  // Laid out and painted like a shown widget, but nothing appears on any screen.
  view.setAttribute(Qt::WA_DontShowOnScreen);
  view.show();
  QCoreApplication::processEvents();
  return view.grab().toImage();
}

ExportResult export_charts(const Report& report, const QString& dir, QSize size) {
  ExportResult out;
  if (!QDir().mkpath(dir)) {
    out.error = QStringLiteral("cannot create the directory %1").arg(dir);
    return out;
  }
  const QDir target(dir);
  auto save = [&](QChart* chart, const QString& name, QSize at) {
    if (!chart || !out.error.isEmpty()) {
      delete chart;
      return;
    }
    const QString path = target.filePath(name);
    if (!render_chart(chart, at).save(path, "PNG")) {
      out.error = QStringLiteral("cannot write %1").arg(path);
      return;
    }
    out.files << path;
  };
  save(make_latency_chart(report), QStringLiteral("latency.png"), size);
  save(make_gpu_utilisation_chart(report), QStringLiteral("gpu-utilisation.png"),
       QSize(size.width(), std::max(size.height(), gpu_chart_min_height(report))));
  for (const auto& slo : report.slos) {
    const QString stem = file_part(slo.tenant) + "-" + file_part(slo.name);
    // An SLO never evaluated has no points: no file rather than an empty chart.
    if (!slo.windows.empty())
      save(make_slo_window_chart(slo, report.scenario.duration_s, tenant_color(report.tenant_index(slo.tenant))),
           "slo-" + stem + ".png", size);
    // Out of the window, the chart must name its SLO itself.
    QChart* blame = make_attribution_chart(slo, report);
    if (blame)
      blame->setTitle(QStringLiteral("%1 / %2: who held the GPUs during violations")
                          .arg(QString::fromStdString(slo.tenant), QString::fromStdString(slo.name)));
    save(blame, "attribution-" + stem + ".png", QSize(size.height() * 4 / 3, size.height()));
  }
  return out;
}

ExportResult export_whatif_charts(const Report& now, const Report* base, const QString& dir,
                                  const QStringList& now_overrides, const QStringList& base_overrides, QSize size) {
  ExportResult out;
  if (!QDir().mkpath(dir)) {
    out.error = QStringLiteral("cannot create the directory %1").arg(dir);
    return out;
  }
  const QDir target(dir);
  const auto save_image = [&](const QImage& image, const QString& name) {
    if (!out.error.isEmpty() || image.isNull()) return;
    const QString path = target.filePath(name);
    if (!image.save(path, "PNG")) {
      out.error = QStringLiteral("cannot write %1").arg(path);
      return;
    }
    out.files << path;
  };
  const auto save = [&](QChart* chart, const QString& name) {
    if (!chart) return;
    save_image(render_chart(chart, size), name);
  };
  save(make_latency_cdf_chart(now, base), QStringLiteral("latency-cdf.png"));
  save(make_violation_timeline_chart(now, base), QStringLiteral("sla-violations.png"));
  save(make_utilisation_timeline_chart(now, base), QStringLiteral("utilisation-over-time.png"));
  save(make_leakage_heatmap(now, base), QStringLiteral("leakage-heatmap.png"));
  for (const auto& r : leakage_resources(now, base))
    save(make_leakage_heatmap(now, base, r), QStringLiteral("leakage-heatmap-%1.png").arg(r));
  save(make_placement_timeline_chart(now, base), QStringLiteral("placements.png"));
  save_image(render_summary(now, base, now_overrides, base_overrides), QStringLiteral("summary.png"));
  return out;
}

QImage render_summary(const Report& now, const Report* base, const QStringList& now_overrides,
                      const QStringList& base_overrides, QSize size) {
  QImage image(size, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  const int margin = 24;
  // Header: the scenario, the verdicts, the what-ifs.
  QFont title = p.font();
  title.setPixelSize(30);
  title.setBold(true);
  p.setFont(title);
  p.setPen(QColor(0x222222));
  p.drawText(QRect(margin, margin, size.width() - 2 * margin, 40), Qt::AlignLeft | Qt::AlignVCenter,
             QStringLiteral("gputwin: %1").arg(QString::fromStdString(now.scenario.name)));
  QFont body = p.font();
  body.setPixelSize(17);
  body.setBold(false);
  p.setFont(body);
  const auto verdict = [](const Report& r) {
    return QStringLiteral("%1 of %2 SLOs missed, leakage bound %3, seed %4, %5 simulated")
        .arg(r.slos_missed())
        .arg(r.slos.size())
        .arg(format_bits(r.leakage_bits))
        .arg(r.scenario.seed)
        .arg(QString::fromStdString(format_value(r.scenario.duration_s, "s")));
  };
  int y = margin + 46;
  const auto line = [&](const QString& text, QColor color) {
    p.setPen(color);
    p.drawText(QRect(margin, y, size.width() - 2 * margin, 24), Qt::AlignLeft | Qt::AlignVCenter, text);
    y += 26;
  };
  line(QStringLiteral("current: ") + verdict(now) +
           (now_overrides.isEmpty() ? QString() : QStringLiteral("  |  ") + now_overrides.join(QStringLiteral("  "))),
       now.slos_missed() > 0 ? violation_color() : met_color());
  if (base)
    line(QStringLiteral("baseline (dashed): ") + verdict(*base) +
             (base_overrides.isEmpty() ? QString()
                                       : QStringLiteral("  |  ") + base_overrides.join(QStringLiteral("  "))),
         QColor(0x555555));
  y += 8;
  // Five charts and the SLO list in a 3 x 2 grid.
  const int cols = 3, rows = 2, gap = 12;
  const int cell_w = (size.width() - 2 * margin - (cols - 1) * gap) / cols;
  const int cell_h = (size.height() - y - margin - (rows - 1) * gap) / rows;
  const QSize cell(cell_w, cell_h);
  QChart* charts[] = {make_latency_cdf_chart(now, base), make_violation_timeline_chart(now, base),
                      make_utilisation_timeline_chart(now, base), make_leakage_heatmap(now, base),
                      make_placement_timeline_chart(now, base)};
  for (int i = 0; i < 5; ++i) {
    const QPoint at(margin + (i % cols) * (cell_w + gap), y + (i / cols) * (cell_h + gap));
    if (charts[i]) {
      p.drawImage(at, render_chart(charts[i], cell));
    } else {
      p.setPen(QColor(0x999999));
      p.drawRect(QRect(at, cell));
      p.drawText(QRect(at, cell), Qt::AlignCenter, QStringLiteral("(nothing to draw)"));
    }
  }
  // The SLO verdicts, current against baseline.
  const QRect box(margin + 2 * (cell_w + gap), y + cell_h + gap, cell_w, cell_h);
  p.setPen(QColor(0xdddddd));
  p.drawRect(box);
  QFont head = body;
  head.setBold(true);
  p.setFont(head);
  p.setPen(QColor(0x222222));
  int ty = box.top() + 12;
  p.drawText(QRect(box.left() + 12, ty, box.width() - 24, 24), Qt::AlignLeft, QStringLiteral("SLOs"));
  ty += 32;
  QFont small = body;
  small.setPixelSize(15);
  p.setFont(small);
  for (const auto& s : now.slos) {
    if (ty > box.bottom() - 24) break;
    QString text = QStringLiteral("%1 / %2: %3 (%4/%5)")
                       .arg(QString::fromStdString(s.tenant), QString::fromStdString(s.name),
                            s.met ? QStringLiteral("met") : QStringLiteral("MISSED"))
                       .arg(s.violated)
                       .arg(s.evaluated);
    if (base)
      for (const auto& b : base->slos)
        if (b.tenant == s.tenant && b.name == s.name)
          text += QStringLiteral("   baseline: %1 (%2/%3)")
                      .arg(b.met ? QStringLiteral("met") : QStringLiteral("MISSED"))
                      .arg(b.violated)
                      .arg(b.evaluated);
    p.setPen(s.met ? met_color() : violation_color());
    p.drawText(QRect(box.left() + 12, ty, box.width() - 24, 22), Qt::AlignLeft | Qt::AlignVCenter, text);
    ty += 24;
  }
  // Continuous-batching services under the SLOs: their token-level numbers and the change from the baseline.
  const auto text_line = [&](const QString& text, QColor color) {
    if (ty > box.bottom() - 24) return;
    p.setPen(color);
    const QRect r(box.left() + 12, ty, box.width() - 24, 22);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, p.fontMetrics().elidedText(text, Qt::ElideRight, r.width()));
    ty += 24;
  };
  const auto& metrics = serving_metrics();
  const auto metric_text = [&](const ServingStats& sv, size_t m) {
    return QStringLiteral("%1 %2").arg(QString::fromUtf8(metrics[m].label),
                                       QString::fromStdString(format_value(metrics[m].value(sv), metrics[m].unit)));
  };
  bool serving_title = false;
  for (const auto& w : now.workloads) {
    if (!w.serving || ty > box.bottom() - 72) continue;
    if (!serving_title) {
      ty += 10;
      p.setFont(head);
      text_line(QStringLiteral("Serving (continuous batching)"), QColor(0x222222));
      p.setFont(small);
      serving_title = true;
    }
    const ServingStats& sv = *w.serving;
    const QString who = QString::fromStdString(w.tenant + "/" + w.name);
    text_line(QStringLiteral("%1: %2, %3, %4 out")
                  .arg(who, metric_text(sv, 1), metric_text(sv, 3),
                       QString::fromStdString(format_value(sv.output_tokens_per_s, "tok/s"))),
              QColor(0x222222));
    text_line(QStringLiteral("    goodput %1, KV use %2 / %3, %4 preemptions")
                  .arg(QString::fromStdString(format_value(sv.goodput, "share")),
                       QString::fromStdString(format_value(sv.kv_utilisation, "share")),
                       QString::fromStdString(format_value(sv.kv_peak, "share")))
                  .arg(sv.preemptions),
              QColor(0x444444));
    if (!base) continue;
    const ServingStats* was = nullptr;
    for (const auto& b : base->workloads)
      if (b.tenant == w.tenant && b.name == w.name && b.serving) was = &*b.serving;
    if (!was) {
      text_line(QStringLiteral("    baseline: not served with continuous batching"), QColor(0x555555));
      continue;
    }
    const auto change = [&](size_t m, const char* label) {
      return QStringLiteral("%1 %2").arg(
          QString::fromUtf8(label),
          QString::fromStdString(format_delta(metrics[m].value(sv), metrics[m].value(*was), metrics[m].unit)));
    };
    text_line(QStringLiteral("    vs baseline: %1, %2").arg(change(1, "TTFT p99"), change(3, "TPOT p99")),
              QColor(0x555555));
    text_line(
        QStringLiteral("        %1, %2, %3").arg(change(4, "output"), change(5, "goodput"), change(8, "preemptions")),
        QColor(0x555555));
  }
  p.end();
  return image;
}

}  // namespace gtw::gui
