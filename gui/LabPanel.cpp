#include "LabPanel.hpp"

#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QVBoxLayout>

namespace gtw::gui {
namespace {

// A text block of the lab file as HTML: lines of one paragraph joined (the file wraps them at ~100 columns),
// a new line kept before a numbered step ("2. ...") and a blank line kept as a paragraph break.
QString para(const std::string& s) {
  QString out;
  const QStringList lines = QString::fromStdString(s).split(QLatin1Char('\n'));
  static const QRegularExpression step(QStringLiteral("^\\s*(\\d+\\.|-)\\s"));
  for (int i = 0; i < lines.size(); ++i) {
    const QString line = lines[i].trimmed();
    if (line.isEmpty()) {
      out += QStringLiteral("<br><br>");
      continue;
    }
    if (i > 0 && !out.isEmpty() && !out.endsWith(QStringLiteral("<br>")))
      out += step.match(lines[i]).hasMatch() ? QStringLiteral("<br>") : QStringLiteral(" ");
    out += line.toHtmlEscaped();
  }
  return out;
}

}  // namespace

LabPanel::LabPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(6, 6, 6, 6);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* inner = new QWidget;
  auto* layout = new QVBoxLayout(inner);
  layout->setContentsMargins(0, 0, 4, 0);
  text_ = new QLabel;
  text_->setWordWrap(true);
  text_->setTextFormat(Qt::RichText);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  text_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  layout->addWidget(text_);
  auto* what_if_title =
      new QLabel(QStringLiteral("<b>One-click what-ifs</b> (the run on show is pinned as the "
                                "baseline first, then the change is applied and run):"));
  what_if_title->setWordWrap(true);
  layout->addWidget(what_if_title);
  as_written_ = new QPushButton(QStringLiteral("Run the scenario as written"));
  connect(as_written_, &QPushButton::clicked, this, &LabPanel::run_as_written);
  layout->addWidget(as_written_);
  buttons_layout_ = new QVBoxLayout;
  layout->addLayout(buttons_layout_);
  applied_ = new QLabel;
  applied_->setWordWrap(true);
  applied_->setStyleSheet(QStringLiteral("color:#1f4e79;"));
  layout->addWidget(applied_);
  layout->addStretch(1);
  scroll->setWidget(inner);
  outer->addWidget(scroll);
}

void LabPanel::show_lab(const Lab& lab) {
  lab_ = lab;
  text_->setText(QStringLiteral("<p style='font-size:12pt; font-weight:600'>%1</p>"
                                "<p style='color:#555'>Learning outcome: %2</p>"
                                "<p><b>Question.</b> %3</p><p><b>What to do.</b><br>%4</p>"
                                "<p><b>What to look for.</b> %5</p><p><b>Why.</b> %6</p>")
                     .arg(para(lab.title), para(lab.outcome), para(lab.question), para(lab.steps), para(lab.look_for),
                          para(lab.why)));
  for (auto* b : buttons_) b->deleteLater();
  buttons_.clear();
  for (size_t i = 0; i < lab.what_ifs.size(); ++i) {
    const WhatIf& w = lab.what_ifs[i];
    auto* b = new QPushButton(QString::fromStdString(w.label));
    QStringList sets;
    for (const auto& s : w.set) sets << QString::fromStdString(s);
    b->setToolTip(
        QStringLiteral("%1\n\n--set %2").arg(QString::fromStdString(w.explain), sets.join(QStringLiteral("\n--set "))));
    const int index = static_cast<int>(i);
    connect(b, &QPushButton::clicked, this, [this, index] { emit what_if_requested(index); });
    buttons_layout_->addWidget(b);
    buttons_.push_back(b);
  }
  set_applied(-1);
}

void LabPanel::set_applied(int index) {
  for (size_t i = 0; i < buttons_.size(); ++i) {
    QFont f = buttons_[i]->font();
    f.setBold(static_cast<int>(i) == index);
    buttons_[i]->setFont(f);
  }
  if (!lab_ || index < 0 || index >= static_cast<int>(lab_->what_ifs.size())) {
    applied_->setText(QStringLiteral("Applied: nothing (the scenario as written)."));
    return;
  }
  const WhatIf& w = lab_->what_ifs[static_cast<size_t>(index)];
  applied_->setText(
      QStringLiteral("Applied: <b>%1</b>. %2")
          .arg(QString::fromStdString(w.label).toHtmlEscaped(), QString::fromStdString(w.explain).toHtmlEscaped()));
}

}  // namespace gtw::gui
