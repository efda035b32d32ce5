#pragma once
// The numeric-gap view: the chosen metric per op in execution order on a
// log scale, the divergence threshold, the first divergence with its source
// line; a clicked point shows its actual and reference tensors side by side
// with their difference as heat maps.

#include <optional>

#include "etkit/gui/gap_view.h"
#include "imgui_canvas.h"

namespace etkit::gui {

class Workspace;

class GapCanvas : public ImGuiCanvas {
  Q_OBJECT
 public:
  explicit GapCanvas(QWidget* parent = nullptr);
  ~GapCanvas() override;
  void set_workspace(const Workspace* workspace);
  void set_metric(GapMetric metric);
  /// Judges int8 values in `quanta` quantization steps (0: atol and rtol).
  void set_quanta(float quanta);
  /// Selects point `point` of the series (shows its tensors).
  void select_point(std::optional<size_t> point);
  std::optional<size_t> selected_point() const { return selected_; }
  const GapSeries& series() const { return series_; }

 signals:
  /// A point was clicked: the op's instruction id.
  void instruction_selected(int instruction_id);

 protected:
  void draw() override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  const inspector::GapReport* report() const { return judged_ ? &*judged_ : nullptr; }
  void rejudge();
  struct Chart {
    float x0, y0, x1, y1;
  };
  Chart chart() const;
  float x_of(const Chart& c, double row) const;
  void draw_chart(const Chart& c);
  void draw_tensors(float top);
  void upload_images();
  void release_textures();

  const Workspace* workspace_ = nullptr;
  GapMetric metric_ = GapMetric::kMaxAbs;
  // The workspace's gap judged again at the view's tolerances (int8 values
  // in quantization steps when quanta_ > 0): the library's rule, inspector::judge.
  std::optional<inspector::GapReport> judged_;
  float quanta_ = 0;
  GapSeries series_;
  std::optional<size_t> selected_;
  std::optional<TensorImage> image_;
  std::string image_problem_;  // why no image is shown
  unsigned textures_[3] = {0, 0, 0};
  bool images_dirty_ = false;
};

}  // namespace etkit::gui
