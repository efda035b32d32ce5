#pragma once
// The per-token view of a traced generation: one bar per step, x = the
// context it ran at, y = its latency, stacked by the op types that took the
// time (or, unticked, prefill and decode in their own colours), a strip
// under the axis saying which steps are prefill, the decode median as a
// line; hover for the step's ops, click a step to see its run in the
// timeline.

#include <optional>
#include <vector>

#include "etkit/gui/step_breakdown.h"
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
  const StepBreakdown& breakdown() const { return breakdown_; }
  /// Bars stacked by op type (the default when the steps have ops) or
  /// coloured by phase.
  void set_by_op(bool by_op) { by_op_ = by_op; update(); }
  bool by_op() const { return by_op_ && !breakdown_.keys.empty(); }

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
  void draw_axes(const Plot& p);
  void draw_bar(const Plot& p, size_t step, float x, float bar);
  void draw_legend(const Plot& p);
  void draw_step_tooltip(size_t step);

  StepsChart chart_;
  StepBreakdown breakdown_;
  bool by_op_ = true;
};

}  // namespace etkit::gui
