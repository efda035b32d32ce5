#include "graph_canvas.h"

#include <imgui.h>

#include <QMouseEvent>

#include <algorithm>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <iterator>

#include "display_format.h"
#include "etkit/gui/workspace.h"

namespace etkit::gui {
namespace {

constexpr float kBar = 34;  // the toolbar's height: the graph is drawn below it, never under it

// Light yellow to dark red: more of the chosen quantity, darker.
ImU32 ramp(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const auto mix = [t](int a, int b) { return int(double(a) + (double(b) - double(a)) * t); };
  return IM_COL32(mix(255, 189), mix(237, 0), mix(160, 38), 255);
}

double value_of(const OpNode& node, GraphColour colour) {
  switch (colour) {
    case GraphColour::kLatency: return node.latency_ms;
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
  fitted_ = false;
  layout_requested_ = false;
  update();
}

void GraphCanvas::layout_ready() {
  fitted_ = false;
  update();
}

const OpGraph* GraphCanvas::graph() const { return workspace_ != nullptr ? workspace_->graph(!expanded_) : nullptr; }

void GraphCanvas::set_expanded(bool expanded) {
  expanded_ = expanded;
  fitted_ = false;
  update();
}

QSizeF GraphCanvas::drawing_area() const {
  return QSizeF(std::max(1.0f, float(width()) - 16), std::max(1.0f, float(height()) - kBar - 16));
}

void GraphCanvas::fit() {
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
  // The opening view: labels at their size, the graph's top centred; a
  // graph that fits the canvas is shown whole (Fit shows any graph whole).
  const OpGraph* g = graph();
  if (g == nullptr || g->width <= 0 || g->height <= 0) return;
  const float w = float(drawing_area().width()), h = float(drawing_area().height());
  if (g->width <= w && g->height <= h) return fit();
  scale_ = std::clamp(w / g->width, 0.75f, 1.0f);
  offset_x_ = -(w / scale_ - g->width) / 2;
  offset_y_ = 0;
  fitted_ = true;
  update();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
  ImGuiCanvas::resizeEvent(event);
  fitted_ = false;
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
  if (selected_instruction_ < 0 || node.instruction != selected_instruction_) return false;
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

void GraphCanvas::toolbar(const OpGraph* graph) {
  ImGui::SetCursorPos(ImVec2(6, 6));
  ImGui::SetNextItemWidth(150);
  int colour = int(colour_);
  if (ImGui::Combo("##colour", &colour, kGraphColourNames, int(std::size(kGraphColourNames)))) {
    colour_ = GraphColour(colour);
  }
  ImGui::SameLine();
  const bool can_expand = workspace_ != nullptr && workspace_->graph(false) != workspace_->graph(true);
  if (can_expand) {
    bool expanded = expanded_;
    if (ImGui::Checkbox("expand delegates", &expanded)) set_expanded(expanded);
    ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(180);
  if (ImGui::InputTextWithHint("##search", "search ops", search_buffer_, sizeof search_buffer_)) search_ = search_buffer_;
  ImGui::SameLine();
  if (ImGui::Button("Fit")) fit();
  if (graph == nullptr) return;
  // The colour scale, on the toolbar row: it never covers a node.
  double lo = INFINITY, hi = -INFINITY;
  for (const OpNode& n : graph->nodes) {
    const double v = value_of(n, colour_);
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
  if (colour_ == GraphColour::kLatency && !graph->latency_block.empty()) scale += " (" + graph->latency_block + ")";
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
  if (g == nullptr || !g->laid_out || event->button() != Qt::LeftButton || at.y() <= kBar ||
      (at - press_).manhattanLength() > 4) {
    return;
  }
  const int64_t hit = node_at(*g, float(at.x() - 8) / scale_ + offset_x_, float(at.y() - kBar - 8) / scale_ + offset_y_);
  if (hit >= 0 && g->nodes[size_t(hit)].instruction >= 0) {
    const OpNode& node = g->nodes[size_t(hit)];
    selected_instruction_ = node.instruction;
    selected_handles_ = node.handles;
    emit node_selected(node.instruction, node.handles);
    update();
  }
}

std::optional<QPointF> GraphCanvas::screen_of_instruction(int32_t id) const {
  const OpGraph* g = graph();
  if (g == nullptr || !g->laid_out) return std::nullopt;
  for (const OpNode& n : g->nodes) {
    if (n.instruction == id) {
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
    const ImVec2 pa = to_screen(a.x, a.y), pb = to_screen(b.x, b.y);
    if (std::max(pa.y, pb.y) < kBar || std::min(pa.y, pb.y) > size.y ||
        std::max(pa.x, pb.x) < 0 || std::min(pa.x, pb.x) > size.x) {
      continue;  // both ends off one side of the screen
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
    const double v = value_of(n, colour_);
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
    const double v = value_of(n, colour_);
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
    ImGui::Text("%s: %s", kGraphColourNames[int(c)], metric_text(value_of(node, c), c).c_str());
  }
  ImGui::EndTooltip();
}

}  // namespace etkit::gui
