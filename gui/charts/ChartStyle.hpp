#pragma once
// Shared look of the charts: fonts, margins, legend placement and axis label formats.
#include <QString>

#include <QColor>
#include <QPointF>
#include <QRectF>

class QAbstractAxis;
class QAreaSeries;
class QChart;
class QValueAxis;

namespace gtw::gui::detail {

/// White background, bold title, legend at the bottom, no animation (headless renders must be final).
void style_chart(QChart* chart, const QString& title);
/// A 1-2-5 step near `raw` (0.37 gives 0.5, 140 gives 200).
double nice_step(double raw);
/// An axis from 0 to above `data_max`, with ticks every `step` from 0 (`step` <= 0: a nice one) and a
/// small margin past both ends so that markers on 0 or on the top are not cut in half by the plot edge.
/// `top`, if given, receives the last tick: where unbounded values are drawn.
QValueAxis* padded_axis(const QString& title, double data_max, double step = 0, double* top = nullptr);

/// Time axis over [0, duration]: minutes from 5 minutes on; `scale` seconds per axis unit.
struct TimeAxis {
  double scale = 1;
  QValueAxis* axis = nullptr;
};
TimeAxis time_axis(double duration_s);

/// A filled rectangle (an area between two lines) on the chart's axes, added to the chart.
QAreaSeries* add_rectangle(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, QRectF r, QColor fill, QColor edge);
/// Text at a point of the chart (a transparent point with its label).
void add_text(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, QPointF at, const QString& text, double size);

}  // namespace gtw::gui::detail
