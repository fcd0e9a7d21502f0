#pragma once
// The window's read-only tables: one look (row selection that keeps cell colours, alternating rows, left
// headers) and the cell helpers every tab uses.
#include <QString>
#include <QStringList>

class QLabel;
class QTableWidget;
class QTableWidgetItem;

namespace gtw::gui {

/// A read-only, row-selecting table with these column headers.
QTableWidget* make_table(const QStringList& headers);
/// A text cell (its text also as tooltip, for elided cells).
QTableWidgetItem* text_cell(const QString& text, Qt::Alignment align = Qt::AlignLeft);
/// A right-aligned cell.
QTableWidgetItem* number_cell(const QString& text);
/// Fits columns to their contents, but no wider than `cap`, so one long cell cannot push the rest away.
void fit_columns(QTableWidget* t, int cap);
/// Appends a row of cells; returns its index.
int append_row(QTableWidget* t, const QList<QTableWidgetItem*>& cells);
/// The grey, centred sentence a tab shows instead of an empty table or chart.
QLabel* make_placeholder();

}  // namespace gtw::gui
