#include "Tables.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QStyledItemDelegate>
#include <QTableWidget>

#include <algorithm>

namespace gtw::gui {
namespace {

// Selected rows keep their cells' own text colours (a red "MISSED" stays red) on a light highlight.
class KeepColoursDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

 protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    const QVariant fg = index.data(Qt::ForegroundRole);
    if (fg.canConvert<QBrush>()) option->palette.setBrush(QPalette::HighlightedText, qvariant_cast<QBrush>(fg));
  }
};

}  // namespace

QTableWidget* make_table(const QStringList& headers) {
  auto* t = new QTableWidget(0, static_cast<int>(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->setAlternatingRowColors(true);
  t->setWordWrap(false);
  t->verticalHeader()->setVisible(false);
  t->horizontalHeader()->setStretchLastSection(true);
  t->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  t->setItemDelegate(new KeepColoursDelegate(t));
  QPalette palette = t->palette();
  palette.setColor(QPalette::Highlight, QColor(0xc6dcf2));
  palette.setColor(QPalette::HighlightedText, Qt::black);
  t->setPalette(palette);
  return t;
}

QTableWidgetItem* text_cell(const QString& text, Qt::Alignment align) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(align | Qt::AlignVCenter);
  item->setToolTip(text);
  return item;
}

QTableWidgetItem* number_cell(const QString& text) {
  return text_cell(text, Qt::AlignRight);
}

void fit_columns(QTableWidget* t, int cap) {
  t->resizeColumnsToContents();
  const int fitted = t->columnCount() - (t->horizontalHeader()->stretchLastSection() ? 1 : 0);
  for (int c = 0; c < fitted; ++c) t->setColumnWidth(c, std::min(t->columnWidth(c) + 12, cap));
}

int append_row(QTableWidget* t, const QList<QTableWidgetItem*>& cells) {
  const int row = t->rowCount();
  t->insertRow(row);
  for (int c = 0; c < cells.size() && c < t->columnCount(); ++c) t->setItem(row, c, cells[c]);
  return row;
}

QLabel* make_placeholder() {
  auto* label = new QLabel;
  label->setAlignment(Qt::AlignCenter);
  label->setWordWrap(true);
  label->setStyleSheet(QStringLiteral("color: #666; font-size: 11pt; padding: 24px;"));
  return label;
}

}  // namespace gtw::gui
