#pragma once
// The per-token view of a traced generation: one bar per step, x = the
// context it ran at, y = its latency, prefill and decode in their own
// colours, the decode median as a line; hover for the numbers, click a step
// to see its run in the timeline.

#include <optional>
#include <vector>

#include "etkit/gui/steps_chart.h"
#include "imgui_canvas.h"

namespace etkit::gui {

class Workspace;

class StepsCanvas : public ImGuiCanvas {
  Q_OBJECT
 public:
  explicit StepsCanvas(QWidget* parent = nullptr);
  void set_workspace(const Workspace* workspace);
  const std::vector<inspector::GenerationStepTiming>& steps() const { return chart_.steps(); }

 signals:
  /// A step was clicked: its run's span, in ns from the trace's first event.
  void step_selected(double start, double end);

 protected:
  void draw() override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  struct Plot {
    float x0, y0, x1, y1;
    float y_of(double fraction) const { return y1 - float(fraction) * (y1 - y0); }
  };
  Plot plot() const;
  std::optional<size_t> step_at(float x, float y) const;

  StepsChart chart_;
};

}  // namespace etkit::gui
