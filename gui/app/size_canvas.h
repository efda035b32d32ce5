#pragma once
// The size view: the program file's bytes as a treemap (etinspect size),
// three levels at a time, coloured by kind of bytes; hover for the part's
// path and bytes, click a part to open it, right-click to go back up.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/gui/size_treemap.h"
#include "imgui_canvas.h"

namespace etkit::gui {

class Workspace;

class SizeCanvas : public ImGuiCanvas {
  Q_OBJECT
 public:
  explicit SizeCanvas(QWidget* parent = nullptr);
  void set_workspace(const Workspace* workspace);
  /// The part shown ("" is the whole file); unknown paths show the file.
  void focus(const std::string& path);
  const std::string& focused() const { return focus_; }
  const std::vector<TreemapCell>& cells() const { return cells_; }

 signals:
  /// A constant linked to the model was clicked: the instruction that reads it.
  void instruction_selected(int32_t id);

 protected:
  void draw() override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void relayout();
  const TreemapCell* cell_at(float x, float y) const;

  const Workspace* workspace_ = nullptr;
  std::string focus_;
  std::vector<TreemapCell> cells_;
};

}  // namespace etkit::gui
