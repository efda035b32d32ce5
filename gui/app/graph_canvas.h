#pragma once
// The graph view: the method's ops as Graphviz laid them out (off the UI
// thread, the first time the view is drawn: layout_needed), coloured by latency, output size or numeric gap; delegate
// calls collapsed into their backend or expanded into their ops; search;
// wheel to zoom, drag to pan, click a node to select its instruction in the
// timeline and the table (and the reverse: select_instruction).

#include <imgui.h>

#include <QPointF>
#include <QSizeF>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>
#include <string>

#include "etkit/gui/op_graph.h"
#include "imgui_canvas.h"

namespace etkit::gui {

class Workspace;

/// What nodes are coloured by.
enum class GraphColour { kLatency, kOutputBytes, kConstantBytes, kGap };
inline constexpr const char* kGraphColourNames[] = {"latency", "output size", "constant bytes", "numeric gap"};

class GraphCanvas : public ImGuiCanvas {
  Q_OBJECT
 public:
  explicit GraphCanvas(QWidget* parent = nullptr);
  void set_workspace(const Workspace* workspace);
  /// Highlights the nodes of instruction `id` and brings them into view.
  void select_instruction(int32_t id) { select_node(id, {}); }
  /// Highlights instruction `id`'s nodes that carry one of `handles` (a
  /// delegated op among its delegate call's, expanded; every node of the
  /// instruction when `handles` is empty or the graph's nodes carry none).
  void select_node(int32_t id, std::vector<int64_t> handles);
  /// Whether `node` is part of the selection.
  bool selected(const OpNode& node) const;
  void set_colour(GraphColour colour) { colour_ = colour; update(); }
  void set_expanded(bool expanded);
  void set_search(const std::string& text) { search_ = text; update(); }
  /// Which of the graph's phases (OpGraph::phases) latencies colour by.
  void set_phase(size_t phase) { phase_ = phase; update(); }
  size_t phase() const { return phase_; }
  /// Zooms so the whole graph fits, folded into columns that fill the view
  /// when it is much taller than the view (fold_into_columns) and wrapping is on.
  void fit();
  /// Whether Fit may fold a tall graph into columns (the toolbar's "columns").
  void set_wrap(bool wrap);
  /// Groups ops into their modules `depth` deep (0: every op), every module closed.
  void set_module_depth(size_t depth);
  /// Opens a module drawn as one node (what a double-click on it does).
  void open_module(const std::string& path);
  /// The opening view: the whole graph when it fits at a readable size,
  /// else its top at label size.
  void open_readable();
  /// The graph as drawn: the workspace's, or its folded copy after Fit.
  const OpGraph* graph() const;
  /// How many node labels the last frame drew (tests: labels are readable).
  size_t labels_drawn() const { return labels_drawn_; }
  int32_t selected_instruction() const { return selected_instruction_; }
  /// Where the (first) node of instruction `id`, or the module holding it,
  /// is drawn, in widget pixels.
  std::optional<QPointF> screen_of_instruction(int32_t id) const;
  /// The workspace's graphs were laid out: opens the readable view.
  void layout_ready();

 signals:
  /// A node was clicked: its instruction and debug handles.
  void node_selected(int32_t instruction, std::vector<int64_t> handles);
  /// Drawn with a graph not laid out yet (once per workspace).
  void layout_needed();

 protected:
  void draw() override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  /// The workspace's graph as dot laid it out (expanded or collapsed).
  const OpGraph* laid_out_graph() const;
  /// The graph folding starts from: the module grouping, else the laid-out graph.
  const OpGraph* source_graph() const;
  /// Folds source_graph() to the view's aspect (folded_); its columns.
  size_t fold_to_view();
  /// Re-groups the laid-out graph by module (grouped_) and lays it out.
  void regroup();
  void close_module_of(const OpNode& node);
  void handle_input();
  void toolbar(const OpGraph* graph);
  void phase_picker(const OpGraph* graph);
  void module_slider();
  void bring_into_view(const OpNode& node);
  /// The canvas below the toolbar, less the margins, in pixels.
  QSizeF drawing_area() const;
  void focus_selection();
  /// Layout coordinates to widget pixels (below the toolbar, 8 px margin).
  ImVec2 to_screen(float x, float y) const;
  void draw_centred_note(const std::string& note);
  void draw_edges(const OpGraph& graph);
  /// Draws the nodes on screen; returns the one under the mouse, if any.
  const OpNode* draw_nodes(const OpGraph& graph);
  void draw_node_tooltip(const OpNode& node);

  /// The smallest zoom at which the opening view shows a folded graph whole.
  static constexpr float kReadableScale = 0.6f;

  const Workspace* workspace_ = nullptr;
  std::optional<OpGraph> folded_;            ///< the laid-out graph in columns, after Fit
  const OpGraph* folded_from_ = nullptr;     ///< which graph folded_ was folded from
  bool wrap_ = true;
  size_t module_depth_ = 0;
  std::set<std::string> open_modules_;
  std::optional<OpGraph> grouped_;         ///< the laid-out graph grouped by module
  const OpGraph* grouped_from_ = nullptr;
  GraphColour colour_ = GraphColour::kLatency;
  size_t phase_ = 0;
  bool expanded_ = false;
  std::string search_;
  char search_buffer_[128] = {};
  int32_t selected_instruction_ = -1;
  std::vector<int64_t> selected_handles_;  ///< narrows the selection inside a delegate call
  float scale_ = 1, offset_x_ = 0, offset_y_ = 0;  // screen = (layout - offset) * scale + origin
  bool fitted_ = false;
  bool dragged_ = false;
  bool focus_pending_ = false;
  bool layout_requested_ = false;
  QPointF press_;
  size_t labels_drawn_ = 0;
};

}  // namespace etkit::gui
