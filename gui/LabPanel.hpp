#pragma once
// The guided-lab panel (a dock beside the results): the lab's question, what to do, what to look for and why,
// and one button per what-if. The window does the work: the panel only asks (signals).
#include <QWidget>

#include <optional>

#include "Lab.hpp"

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace gtw::gui {

class LabPanel : public QWidget {
  Q_OBJECT

 public:
  explicit LabPanel(QWidget* parent = nullptr);
  void show_lab(const Lab& lab);
  /// Marks what-if `index` as the one applied (-1: the scenario as written).
  void set_applied(int index);

  QLabel* text() const { return text_; }
  int what_if_count() const { return static_cast<int>(buttons_.size()); }
  QPushButton* what_if_button(int index) const { return buttons_.at(static_cast<size_t>(index)); }
  QPushButton* as_written_button() const { return as_written_; }

 signals:
  /// Run the scenario as written (no what-if).
  void run_as_written();
  /// Pin the run on show as the baseline if none is pinned, apply what-if `index` and run.
  void what_if_requested(int index);

 private:
  QLabel* text_ = nullptr;
  QLabel* applied_ = nullptr;
  QPushButton* as_written_ = nullptr;
  QVBoxLayout* buttons_layout_ = nullptr;
  std::vector<QPushButton*> buttons_;
  std::optional<Lab> lab_;
};

}  // namespace gtw::gui
