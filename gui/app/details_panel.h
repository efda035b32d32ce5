#pragma once
// The details of the selected event: statistics with a histogram of its
// durations across runs, where it comes from in the model, its delegate,
// and a preview of its intermediate outputs (gui::event_details()).

#include <QWidget>
#include <optional>

#include "etkit/gui/event_details.h"

class QTextBrowser;

namespace etkit::gui {

/// Durations across runs as bars (Tracy's find-zone histogram); with a
/// baseline, its bars drawn over the same bins (Tracy's compare overlay).
class HistogramWidget : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  void set_histogram(Histogram histogram, double unit_ns, std::optional<double> marker);
  /// The baseline's bars (over the histogram's bins) and its p50; none: clear.
  void set_baseline(std::optional<Histogram> baseline, std::optional<double> marker);
  QSize sizeHint() const override { return {320, 110}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  Histogram histogram_;
  double unit_ns_ = 1;
  std::optional<double> marker_;  // p50, in the histogram's unit
  std::optional<Histogram> baseline_;
  std::optional<double> baseline_marker_;
};

class DetailsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DetailsPanel(QWidget* parent = nullptr);
  void show_details(const EventDetails& details, const char* unit, double unit_ns);
  void show_text(const QString& html);
  void clear();
  /// The panel's text, for tests.
  QString text() const;

 private:
  QTextBrowser* text_;
  HistogramWidget* histogram_;
};

}  // namespace etkit::gui
