#pragma once
// The memory view: per arena of a method, x = step, y = byte offset, one
// rectangle per planned tensor over its lifetime coloured by its producing
// op, the bytes alive at each step and the arena's size; a toggle shows the
// best-fit re-plan beside the program's own.

#include <memory>
#include <optional>

#include "etkit/gui/memory_view.h"
#include "imgui_canvas.h"

namespace etkit::gui {

class Workspace;

class MemoryCanvas : public ImGuiCanvas {
  Q_OBJECT
 public:
  explicit MemoryCanvas(QWidget* parent = nullptr);
  void set_workspace(const Workspace* workspace);
  void set_method(size_t method);
  void set_show_best_fit(bool show);
  bool show_best_fit() const { return show_best_fit_; }
  const MemoryViewModel* model() const { return model_.get(); }

 signals:
  /// A tensor was clicked: the step of the instruction that produced it.
  void step_selected(size_t step);

 protected:
  void draw() override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  struct Plot {
    float x0, y0, x1, y1;  // the plot's pixels
    const ArenaPicture* arena;
    bool best_fit;
  };
  std::vector<Plot> plots() const;
  std::optional<size_t> tensor_at(float x, float y, const Plot** plot) const;
  void draw_plot(const Plot& plot);
  void draw_legend(float y);

  const Workspace* workspace_ = nullptr;
  size_t method_ = 0;
  bool show_best_fit_ = false;
  std::unique_ptr<MemoryViewModel> model_;
};

}  // namespace etkit::gui
