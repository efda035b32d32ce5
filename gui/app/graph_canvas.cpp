#include "graph_canvas.h"

#include <imgui.h>

#include <QMouseEvent>

#include <algorithm>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <iterator>

#include "display_format.h"
#include "etkit/gui/module_groups.h"
#include "etkit/gui/workspace.h"

namespace etkit::gui {
namespace {

constexpr float kShapeScale = 0.6f;  // the zoom from which edges show their tensors' shapes
constexpr float kBar = 34;  // the toolbar's height: the graph is drawn below it, never under it

// Light yellow to dark red: more of the chosen quantity, darker.
ImU32 ramp(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const auto mix = [t](int a, int b) { return int(double(a) + (double(b) - double(a)) * t); };
  return IM_COL32(mix(255, 189), mix(237, 0), mix(160, 38), 255);
}

double value_of(const OpNode& node, GraphColour colour, size_t phase) {
  switch (colour) {
    case GraphColour::kLatency: return phase_latency(node, phase);
    case GraphColour::kOutputBytes: return node.output_bytes;
    case GraphColour::kConstantBytes: return node.constant_bytes > 0 ? node.constant_bytes : std::nan("");
    case GraphColour::kGap: return node.gap;
  }
  return std::nan("");
}

std::string metric_text(double value, GraphColour colour) {
  if (std::isnan(value)) return "n/a";
  if (colour == GraphColour::kLatency) return format_duration(value * 1e6);
  if (colour == GraphColour::kOutputBytes || colour == GraphColour::kConstantBytes) return format_bytes(uint64_t(value));
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

GraphCanvas::GraphCanvas(QWidget* parent) : ImGuiCanvas(parent) { setMinimumSize(320, 200); }

void GraphCanvas::set_workspace(const Workspace* workspace) {
  workspace_ = workspace;
  selected_instruction_ = -1;
  phase_ = 0;
  folded_.reset();
  grouped_.reset();
  module_depth_ = 0;
  open_modules_.clear();
  fitted_ = false;
  layout_requested_ = false;
  update();
}

void GraphCanvas::layout_ready() {
  regroup();  // drops the old grouping and folding, asks for the opening view and a frame
}

const OpGraph* GraphCanvas::laid_out_graph() const {
  return workspace_ != nullptr ? workspace_->graph(!expanded_) : nullptr;
}

const OpGraph* GraphCanvas::source_graph() const {
  const OpGraph* base = laid_out_graph();
  return grouped_ && grouped_from_ == base ? &*grouped_ : base;
}

const OpGraph* GraphCanvas::graph() const {
  const OpGraph* source = source_graph();
  return folded_ && folded_from_ == source ? &*folded_ : source;
}

void GraphCanvas::set_module_depth(size_t depth) {
  module_depth_ = depth;
  open_modules_.clear();
  regroup();
}

void GraphCanvas::open_module(const std::string& path) {
  open_modules_.insert(path);
  regroup();
}

void GraphCanvas::close_module_of(const OpNode& node) {
  // The innermost opened module holding the node, with what was opened inside it.
  for (auto module = node.modules.rbegin(); module != node.modules.rend(); ++module) {
    if (!open_modules_.count(*module)) continue;
    const std::string inside = *module + ".";
    for (auto it = open_modules_.begin(); it != open_modules_.end();) {
      it = *it == *module || it->rfind(inside, 0) == 0 ? open_modules_.erase(it) : std::next(it);
    }
    return regroup();
  }
}

void GraphCanvas::regroup() {
  grouped_.reset();
  folded_.reset();
  fitted_ = false;
  const OpGraph* base = laid_out_graph();
  if (module_depth_ > 0 && base != nullptr && base->laid_out) {
    // A few dozen modules lay out in milliseconds: on this thread.
    OpGraph grouped = group_by_module(*base, module_depth_, open_modules_);
    if (layout_op_graph(grouped, nullptr).ok()) {
      grouped_ = std::move(grouped);
      grouped_from_ = base;
    }
  }
  update();
}

void GraphCanvas::set_expanded(bool expanded) {
  expanded_ = expanded;
  regroup();
}

void GraphCanvas::set_wrap(bool wrap) {
  wrap_ = wrap;
  fitted_ = false;
  folded_.reset();
  update();
}

size_t GraphCanvas::fold_to_view() {
  folded_.reset();
  const OpGraph* base = source_graph();
  if (!wrap_ || base == nullptr || !base->laid_out) return 1;
  const QSizeF area = drawing_area();
  size_t columns = 1;
  OpGraph folded = fold_into_columns(*base, float(area.width() / area.height()), &columns);
  if (columns > 1) {
    folded_ = std::move(folded);
    folded_from_ = base;
  }
  return columns;
}

QSizeF GraphCanvas::drawing_area() const {
  return QSizeF(std::max(1.0f, float(width()) - 16), std::max(1.0f, float(height()) - kBar - 16));
}

void GraphCanvas::fit() {
  fold_to_view();
  const OpGraph* g = graph();
  if (g == nullptr || g->width <= 0 || g->height <= 0) return;
  const float w = float(drawing_area().width()), h = float(drawing_area().height());
  scale_ = std::min({w / g->width, h / g->height, 1.5f});
  offset_x_ = -(w / scale_ - g->width) / 2;
  offset_y_ = 0;
  fitted_ = true;
  update();
}

void GraphCanvas::open_readable() {
  // The opening view: the whole graph when it fits at a readable size,
  // folded into columns when it is taller than the view; else the top of
  // the graph as dot laid it, at label size (Fit shows any graph whole).
  const OpGraph* base = source_graph();
  if (base == nullptr || base->width <= 0 || base->height <= 0) return;
  const float w = float(drawing_area().width()), h = float(drawing_area().height());
  if (base->width <= w && base->height <= h) return fit();
  fold_to_view();
  if (const OpGraph* g = graph(); g != base && std::min(w / g->width, h / g->height) >= kReadableScale) return fit();
  folded_.reset();
  scale_ = std::clamp(w / base->width, 0.75f, 1.0f);
  offset_x_ = -(w / scale_ - base->width) / 2;
  offset_y_ = 0;
  fitted_ = true;
  update();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
  ImGuiCanvas::resizeEvent(event);
  fitted_ = false;
  folded_.reset();  // folded for another aspect
}

void GraphCanvas::bring_into_view(const OpNode& node) {
  const float w = float(width()), h = float(height()) - kBar;
  const ImVec2 at = to_screen(node.x, node.y);
  const float sx = at.x, sy = at.y;
  if (sx < 0 || sx > w || sy < kBar || sy > kBar + h) {
    offset_x_ = node.x - (w / 2) / scale_;
    offset_y_ = node.y - (h / 2) / scale_;
  }
}

void GraphCanvas::select_node(int32_t id, std::vector<int64_t> handles) {
  selected_instruction_ = id;
  selected_handles_ = std::move(handles);
  focus_pending_ = true;  // brought into view at the next frame, once the canvas has its size
  update();
}

bool GraphCanvas::selected(const OpNode& node) const {
  if (selected_instruction_ < 0) return false;
  if (!node.module_group.empty()) {  // a module: one of its ops is selected
    return std::find(node.group_instructions.begin(), node.group_instructions.end(), selected_instruction_) !=
           node.group_instructions.end();
  }
  if (node.instruction != selected_instruction_) return false;
  if (selected_handles_.empty() || node.handles.empty()) return true;
  for (int64_t handle : node.handles) {
    if (std::find(selected_handles_.begin(), selected_handles_.end(), handle) != selected_handles_.end()) return true;
  }
  return false;
}

void GraphCanvas::focus_selection() {
  focus_pending_ = false;
  const OpGraph* g = graph();
  if (g == nullptr) return;
  for (const OpNode& node : g->nodes) {
    if (selected(node)) return bring_into_view(node);
  }
}

void GraphCanvas::phase_picker(const OpGraph* graph) {
  // A generate trace's latencies come from Decode or Prefill: the reader picks.
  if (graph == nullptr || graph->phases.size() <= 1 || colour_ != GraphColour::kLatency) return;
  ImGui::SetNextItemWidth(100);
  if (ImGui::BeginCombo("##phase", graph->phases[std::min(phase_, graph->phases.size() - 1)].c_str())) {
    for (size_t p = 0; p < graph->phases.size(); ++p) {
      if (ImGui::Selectable(graph->phases[p].c_str(), p == phase_)) phase_ = p;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
}

void GraphCanvas::module_slider() {
  const OpGraph* base = laid_out_graph();
  if (base == nullptr || module_depth(*base) == 0) return;
  // 0: every op; 1: the model's children as boxes; 2: theirs; …
  int depth = int(module_depth_);
  ImGui::SetNextItemWidth(110);
  if (ImGui::SliderInt("##modules", &depth, 0, int(module_depth(*base)), depth == 0 ? "ops" : "modules %d deep")) {
    set_module_depth(size_t(depth));
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("Group ops into their modules; double-click a module to open it, right-click to close");
  }
  ImGui::SameLine();
}

void GraphCanvas::toolbar(const OpGraph* graph) {
  ImGui::SetCursorPos(ImVec2(6, 6));
  ImGui::SetNextItemWidth(150);
  int colour = int(colour_);
  if (ImGui::Combo("##colour", &colour, kGraphColourNames, int(std::size(kGraphColourNames)))) {
    colour_ = GraphColour(colour);
  }
  ImGui::SameLine();
  phase_picker(graph);
  const bool can_expand = workspace_ != nullptr && workspace_->graph(false) != workspace_->graph(true);
  if (can_expand) {
    bool expanded = expanded_;
    if (ImGui::Checkbox("expand delegates", &expanded)) set_expanded(expanded);
    ImGui::SameLine();
  }
  module_slider();
  bool wrap = wrap_;
  if (ImGui::Checkbox("columns", &wrap)) set_wrap(wrap);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Fit folds a tall graph into columns that fill the view");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(180);
  if (ImGui::InputTextWithHint("##search", "search ops", search_buffer_, sizeof search_buffer_)) search_ = search_buffer_;
  ImGui::SameLine();
  if (ImGui::Button("Fit")) fit();
  if (graph == nullptr) return;
  // The colour scale, on the toolbar row: it never covers a node.
  double lo = INFINITY, hi = -INFINITY;
  for (const OpNode& n : graph->nodes) {
    const double v = value_of(n, colour_, phase_);
    if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  ImGui::SameLine();
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  for (int i = 0; i < 60; ++i) {
    list->AddRectFilled(ImVec2(at.x + float(i) * 2, at.y + 4), ImVec2(at.x + float(i) * 2 + 2, at.y + 16), ramp(i / 59.0));
  }
  std::string scale = std::isfinite(lo) ? metric_text(lo, colour_) + " … " + metric_text(hi, colour_) : "no data";
  // Which runs the latencies are from (a generate trace: a Decode step's).
  if (colour_ == GraphColour::kLatency && phase_ < graph->phases.size()) scale += " (" + graph->phases[phase_] + ")";
  char info[256];
  std::snprintf(info, sizeof info, "%s   %zu ops from the %s, laid out in %.0f ms", scale.c_str(), graph->nodes.size(),
                graph->source.c_str(), graph->layout_seconds * 1e3);
  list->AddText(ImVec2(at.x + 128, at.y + 3), IM_COL32(60, 60, 60, 255), info);
}

void GraphCanvas::handle_input() {
  const ImGuiIO& io = ImGui::GetIO();
  const bool over_canvas = io.MousePos.y > kBar && !ImGui::IsAnyItemHovered() && !ImGui::IsAnyItemActive();
  const float ox = 8, oy = kBar + 8;
  if (over_canvas && io.MouseWheel != 0) {
    // Zoom around the pointer.
    const float lx = (io.MousePos.x - ox) / scale_ + offset_x_, ly = (io.MousePos.y - oy) / scale_ + offset_y_;
    scale_ = std::clamp(scale_ * std::pow(1.2f, io.MouseWheel), 0.02f, 8.0f);
    offset_x_ = lx - (io.MousePos.x - ox) / scale_;
    offset_y_ = ly - (io.MousePos.y - oy) / scale_;
  }
  if (over_canvas && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3)) {
    offset_x_ -= io.MouseDelta.x / scale_;
    offset_y_ -= io.MouseDelta.y / scale_;
    dragged_ = true;
  }
  if (ImGui::IsMouseReleased(ImGuiMouseButton_Left)) dragged_ = false;
}

// Clicks are Qt's (press and release at one place), so a click selects at
// once, whatever the frame rate; drags and the wheel are ImGui's.
void GraphCanvas::mousePressEvent(QMouseEvent* event) {
  ImGuiCanvas::mousePressEvent(event);
  press_ = event->position();
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseReleaseEvent(event);
  const OpGraph* g = graph();
  const QPointF at = event->position();
  if (g == nullptr || !g->laid_out || at.y() <= kBar || (at - press_).manhattanLength() > 4) return;
  if (event->button() == Qt::RightButton) {  // closes the opened module around what was clicked
    const int64_t hit = node_at(*g, float(at.x() - 8) / scale_ + offset_x_, float(at.y() - kBar - 8) / scale_ + offset_y_);
    if (hit >= 0) close_module_of(g->nodes[size_t(hit)]);
    return;
  }
  if (event->button() != Qt::LeftButton) return;
  const int64_t hit = node_at(*g, float(at.x() - 8) / scale_ + offset_x_, float(at.y() - kBar - 8) / scale_ + offset_y_);
  if (hit >= 0 && !g->nodes[size_t(hit)].module_group.empty() && !g->nodes[size_t(hit)].group_instructions.empty()) {
    const OpNode& group = g->nodes[size_t(hit)];  // a module: select its first op
    selected_instruction_ = group.group_instructions.front();
    selected_handles_.clear();
    emit node_selected(selected_instruction_, {});
    update();
  } else if (hit >= 0 && g->nodes[size_t(hit)].instruction >= 0) {
    const OpNode& node = g->nodes[size_t(hit)];
    selected_instruction_ = node.instruction;
    selected_handles_ = node.handles;
    emit node_selected(node.instruction, node.handles);
    update();
  }
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseDoubleClickEvent(event);
  const OpGraph* g = graph();
  const QPointF at = event->position();
  if (g == nullptr || !g->laid_out || event->button() != Qt::LeftButton || at.y() <= kBar) return;
  const int64_t hit = node_at(*g, float(at.x() - 8) / scale_ + offset_x_, float(at.y() - kBar - 8) / scale_ + offset_y_);
  if (hit >= 0 && !g->nodes[size_t(hit)].module_group.empty()) open_module(g->nodes[size_t(hit)].module_group);
}

std::optional<QPointF> GraphCanvas::screen_of_instruction(int32_t id) const {
  const OpGraph* g = graph();
  if (g == nullptr || !g->laid_out) return std::nullopt;
  for (const OpNode& n : g->nodes) {
    const bool holds = n.instruction == id || std::find(n.group_instructions.begin(), n.group_instructions.end(), id) !=
                                                  n.group_instructions.end();
    if (holds) {
      const ImVec2 at = to_screen(n.x, n.y);
      return QPointF(at.x, at.y);
    }
  }
  return std::nullopt;
}

ImVec2 GraphCanvas::to_screen(float x, float y) const {
  return ImVec2((x - offset_x_) * scale_ + 8, (y - offset_y_) * scale_ + kBar + 8);
}

void GraphCanvas::draw_centred_note(const std::string& note) {
  const ImVec2 size = ImGui::GetIO().DisplaySize, text = ImGui::CalcTextSize(note.c_str());
  ImGui::GetWindowDrawList()->AddText(ImVec2((size.x - text.x) / 2, (size.y - text.y) / 2), IM_COL32(110, 110, 110, 255),
                                      note.c_str());
}

void GraphCanvas::draw() {
  const OpGraph* g = graph();
  toolbar(g);
  labels_drawn_ = 0;
  if (g == nullptr) {
    draw_centred_note(workspace_ != nullptr && !workspace_->graph_problem().empty()
                          ? workspace_->graph_problem()
                          : "Open a program or its ETRecord to see the graph of its ops");
    return;
  }
  if (!g->laid_out) {
    draw_centred_note("Laying out " + std::to_string(g->nodes.size()) + " ops with Graphviz…");
    if (!layout_requested_) {
      layout_requested_ = true;
      emit layout_needed();
    }
    return;
  }
  if (!fitted_) {
    open_readable();
    focus_pending_ = focus_pending_ || selected_instruction_ >= 0;  // a new size keeps the selection in view
  }
  if (focus_pending_) focus_selection();
  handle_input();
  ImDrawList* list = ImGui::GetWindowDrawList();
  list->PushClipRect(ImVec2(0, kBar), ImGui::GetIO().DisplaySize, true);
  draw_edges(*g);
  const OpNode* hovered = draw_nodes(*g);
  list->PopClipRect();
  if (hovered != nullptr && ImGui::GetIO().MousePos.y > kBar) draw_node_tooltip(*hovered);
}

void GraphCanvas::draw_edges(const OpGraph& g) {
  // Far out (a 1,000-op graph fitted to the window) boxes are a few pixels:
  // edges would be a grey smear over them, so only the boxes are drawn.
  if (scale_ <= 0.08f) return;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  // Edges: splines when zoomed in, straight lines when far out (level of detail).
  const ImU32 edge_colour = IM_COL32(120, 120, 120, 200);
  const bool detailed = scale_ > 0.25f;
  for (const OpEdge& e : g.edges) {
    const OpNode &a = g.nodes[e.from], &b = g.nodes[e.to];
    if (e.folded) {  // to another column: a stub out of the source, an arrow into the target
      const ImVec2 out = to_screen(a.x, a.y + a.h / 2), in = to_screen(b.x, b.y - b.h / 2);
      const float stub = std::max(6.0f, 14 * scale_);
      list->AddLine(out, ImVec2(out.x, out.y + stub), edge_colour, 1.2f);
      list->AddCircleFilled(ImVec2(out.x, out.y + stub), 2.5f, edge_colour);
      list->AddLine(ImVec2(in.x, in.y - stub), in, edge_colour, 1.2f);
      list->AddTriangleFilled(ImVec2(in.x - 4, in.y - 7), ImVec2(in.x + 4, in.y - 7), in, edge_colour);
      continue;
    }
    const ImVec2 pa = to_screen(a.x, a.y), pb = to_screen(b.x, b.y);
    if (std::max(pa.y, pb.y) < kBar || std::min(pa.y, pb.y) > size.y ||
        std::max(pa.x, pb.x) < 0 || std::min(pa.x, pb.x) > size.x) {
      continue;  // both ends off one side of the screen
    }
    // The tensor it carries, beside its middle, when zoomed in far enough to read it.
    if (scale_ >= kShapeScale && !e.shape.empty()) {
      const size_t mid = (e.points.size() / 4) * 2;
      const ImVec2 at = e.points.size() >= 2 ? to_screen(e.points[mid], e.points[mid + 1])
                                             : ImVec2((pa.x + pb.x) / 2, (pa.y + pb.y) / 2);
      list->AddText(ImVec2(at.x + 5, at.y - 7), IM_COL32(110, 110, 110, 255), e.shape.c_str());
    }
    if (!detailed || e.points.size() < 8) {
      list->AddLine(to_screen(a.x, a.y + a.h / 2), to_screen(b.x, b.y - b.h / 2), edge_colour);
      continue;
    }
    for (size_t p = 0; p + 7 < e.points.size(); p += 6) {
      list->AddBezierCubic(to_screen(e.points[p], e.points[p + 1]), to_screen(e.points[p + 2], e.points[p + 3]),
                           to_screen(e.points[p + 4], e.points[p + 5]), to_screen(e.points[p + 6], e.points[p + 7]),
                           edge_colour, 1.2f, 12);
    }
    // Arrow head where the edge meets its target's top.
    const ImVec2 tip = to_screen(b.x, b.y - b.h / 2);
    list->AddTriangleFilled(ImVec2(tip.x - 4, tip.y - 7), ImVec2(tip.x + 4, tip.y - 7), tip, edge_colour);
  }
}

const OpNode* GraphCanvas::draw_nodes(const OpGraph& g) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  double lo = INFINITY, hi = -INFINITY;
  for (const OpNode& n : g.nodes) {
    const double v = value_of(n, colour_, phase_);
    if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  // Log scale for sizes and times (they span decades), linear for the gap.
  const auto position = [&](double v) {
    if (!(hi > lo)) return 1.0;
    if (colour_ == GraphColour::kGap || lo <= 0) return (v - lo) / (hi - lo);
    return std::log(v / lo) / std::log(hi / lo);
  };
  const ImGuiIO& io = ImGui::GetIO();
  const OpNode* hovered = nullptr;
  for (const OpNode& n : g.nodes) {
    const ImVec2 a = to_screen(n.x - n.w / 2, n.y - n.h / 2), b = to_screen(n.x + n.w / 2, n.y + n.h / 2);
    if (b.x < 0 || a.x > size.x || b.y < kBar || a.y > size.y) continue;  // off screen
    const double v = value_of(n, colour_, phase_);
    const bool match = search_.empty() || contains(n.label, search_) || contains(n.name, search_) || contains(n.detail, search_);
    ImU32 fill = std::isnan(v) ? IM_COL32(225, 225, 225, 255) : ramp(position(v));
    if (!match) fill = (fill & 0x00ffffffu) | 0x50000000u;  // not found: faded
    const bool picked = selected(n);
    if (b.y - a.y < 6 && !picked) {  // level of detail: a plain box, no border, no label
      list->AddRectFilled(a, ImVec2(std::max(b.x, a.x + 1), std::max(b.y, a.y + 1)), fill);
      continue;
    }
    list->AddRectFilled(a, b, fill, 3);
    const ImU32 border = picked ? IM_COL32(30, 90, 220, 255) : !n.backend.empty() ? IM_COL32(120, 60, 160, 255)
                                                                               : IM_COL32(90, 90, 90, 255);
    list->AddRect(a, b, border, 3, 0, picked ? 3.0f : n.members > 1 ? 2.0f : 1.0f);
    if (!search_.empty() && match) list->AddRect(ImVec2(a.x - 3, a.y - 3), ImVec2(b.x + 3, b.y + 3), IM_COL32(230, 170, 0, 255), 4, 0, 2);
    // Labels scale with the boxes, and only where they are readable (level of detail).
    const float font_size = ImGui::GetFontSize() * std::min(scale_, 1.5f);
    if (font_size >= 7) {
      ImFont* font = ImGui::GetFont();
      const ImVec2 text = font->CalcTextSizeA(font_size, FLT_MAX, 0, n.label.c_str());
      const bool dark = !std::isnan(v) && position(v) > 0.6 && match;
      list->PushClipRect(a, b, true);
      list->AddText(font, font_size, ImVec2((a.x + b.x - text.x) / 2, (a.y + b.y - text.y) / 2),
                    dark ? IM_COL32(255, 255, 255, 255) : IM_COL32(20, 20, 20, 255), n.label.c_str());
      list->PopClipRect();
      ++labels_drawn_;
    }
    if (io.MousePos.x >= a.x && io.MousePos.x <= b.x && io.MousePos.y >= a.y && io.MousePos.y <= b.y) hovered = &n;
  }
  return hovered;
}

void GraphCanvas::draw_node_tooltip(const OpNode& node) {
  ImGui::BeginTooltip();
  ImGui::Text("%s  (%s)", node.label.c_str(), node.name.c_str());
  ImGui::TextUnformatted(node.detail.c_str());
  if (node.instruction >= 0) ImGui::Text("instruction %d%s", node.instruction, " (click: timeline and table)");
  for (GraphColour c : {GraphColour::kLatency, GraphColour::kOutputBytes, GraphColour::kConstantBytes, GraphColour::kGap}) {
    ImGui::Text("%s: %s", kGraphColourNames[int(c)], metric_text(value_of(node, c, phase_), c).c_str());
  }
  ImGui::EndTooltip();
}

}  // namespace etkit::gui
