#include "memory_canvas.h"

#include <imgui.h>

#include <QMouseEvent>
#include <algorithm>

#include "display_format.h"
#include "etkit/gui/workspace.h"
#include "etkit/inspector/event_text.h"
#include "palette.h"

namespace etkit::gui {
namespace {

constexpr float kMargin = 56;  // room for the byte axis

std::string sizes_text(const TensorShape& shape) {
  std::string text = to_string(shape.scalar_type) + std::string("[");
  for (size_t i = 0; i < shape.sizes.size(); ++i) text += (i ? "," : "") + std::to_string(shape.sizes[i]);
  return text + "]";
}

}  // namespace

MemoryCanvas::MemoryCanvas(QWidget* parent) : ImGuiCanvas(parent) { setMinimumSize(320, 200); }

void MemoryCanvas::set_workspace(const Workspace* workspace) {
  workspace_ = workspace;
  method_ = 0;
  if (workspace != nullptr) {
    // The workspace's method first, as the other views show it.
    for (size_t m = 0; m < workspace->memory().size(); ++m) {
      if (workspace->memory()[m].name == workspace->request().method) method_ = m;
    }
  }
  set_method(method_);
}

void MemoryCanvas::set_method(size_t method) {
  method_ = method;
  model_.reset();
  if (workspace_ != nullptr && method < workspace_->memory().size()) {
    model_ = std::make_unique<MemoryViewModel>(workspace_->memory()[method]);
  }
  update();
}

void MemoryCanvas::set_show_best_fit(bool show) {
  show_best_fit_ = show;
  update();
}

// One plot per arena (and per plan when the best fit is shown beside),
// stacked, all on one byte scale so sizes compare by eye.
std::vector<MemoryCanvas::Plot> MemoryCanvas::plots() const {
  std::vector<Plot> out;
  if (!model_) return out;
  const float w = float(width()), h = float(height());
  const size_t arenas = model_->arenas().size();
  if (arenas == 0) return out;
  const float top = 52, band = (h - top - 8) / float(arenas);  // under the title and the legend
  for (size_t a = 0; a < arenas; ++a) {
    const ArenaPicture& arena = model_->arenas()[a];
    const float y0 = top + float(a) * band + 18, y1 = top + float(a + 1) * band - 26;  // room for the step axis
    if (show_best_fit_) {
      const float mid = kMargin + (w - kMargin - 12) / 2;
      out.push_back({kMargin, y0, mid - 10, y1, &arena, false});
      out.push_back({mid + 10 + kMargin / 2, y0, w - 12, y1, &arena, true});
    } else {
      out.push_back({kMargin, y0, w - 12, y1, &arena, false});
    }
  }
  return out;
}

std::optional<size_t> MemoryCanvas::tensor_at(float x, float y, const Plot** hit_plot) const {
  for (const Plot& plot : plots()) {
    if (x < plot.x0 || x >= plot.x1 || y < plot.y0 || y >= plot.y1) continue;
    const uint64_t extent = std::max({plot.arena->size, plot.arena->best_fit, uint64_t(1)});
    const double step = double(x - plot.x0) / double(plot.x1 - plot.x0) * double(std::max<size_t>(1, model_->steps()));
    const double byte = double(plot.y1 - y) / double(plot.y1 - plot.y0) * double(extent);
    if (hit_plot != nullptr) *hit_plot = &plot;
    return model_->hit_test(*plot.arena, step, byte, plot.best_fit);
  }
  return std::nullopt;
}

void MemoryCanvas::mouseReleaseEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton) return;
  const auto tensor = tensor_at(float(event->position().x()), float(event->position().y()), nullptr);
  if (!tensor) return;
  const inspector::TensorLifetime& t = model_->memory().tensors[*tensor];
  if (t.producer && t.first) emit step_selected(*t.first);
}

void MemoryCanvas::draw() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  if (!model_) {
    const char* hint = "Open a program (.pte or .bpte) to see its memory plan";
    const ImVec2 size = ImGui::GetIO().DisplaySize, text = ImGui::CalcTextSize(hint);
    list->AddText(ImVec2((size.x - text.x) / 2, (size.y - text.y) / 2), IM_COL32(110, 110, 110, 255), hint);
    return;
  }
  const inspector::MethodMemory& memory = model_->memory();
  std::string title = "method " + memory.name + ": " + std::to_string(memory.instructions) + " steps, " +
                      std::to_string(memory.tensors.size()) +
                      " planned tensors, coloured by producing op;  black: bytes alive per step,  red: arena size,  "
                      "dashed: peak";
  if (!memory.errors.empty()) title += ", " + std::to_string(memory.errors.size()) + " PLANNING ERROR(S)";
  list->AddText(ImVec2(8, 8), memory.errors.empty() ? kCanvasText : IM_COL32(200, 30, 30, 255), title.c_str());
  draw_legend(30);
  for (const Plot& plot : plots()) draw_plot(plot);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const Plot* plot = nullptr;
  if (const auto tensor = tensor_at(mouse.x, mouse.y, &plot)) {
    const inspector::TensorLifetime& t = memory.tensors[*tensor];
    ImGui::BeginTooltip();
    ImGui::Text("value %d", t.planned.value);
    ImGui::Separator();
    ImGui::Text("tensor     %s", sizes_text(t.planned.tensor).c_str());
    ImGui::Text("bytes      %s at offset %llu", format_bytes(t.planned.bytes).c_str(),
                static_cast<unsigned long long>(t.planned.offset));
    ImGui::Text("lifetime   steps %zu-%zu", *t.first, *t.last);
    ImGui::Text("producer   %s", t.producer ? t.producer->c_str() : "(method input)");
    std::string consumers;
    for (const std::string& c : t.consumers) consumers += (consumers.empty() ? "" : ", ") + c;
    ImGui::Text("consumers  %s", consumers.empty() ? "(none)" : consumers.c_str());
    if (t.producer) ImGui::TextDisabled("click: select the producing instruction");
    ImGui::EndTooltip();
  }
}

// What the colours mean: the producers of the most planned bytes (the
// lines are named in the title).
void MemoryCanvas::draw_legend(float y) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  uint64_t total = 0;
  for (const MemoryLegendEntry& entry : model_->legend()) total += entry.bytes;
  float x = 8;
  for (size_t i = 0; i < model_->legend().size() && i < 5; ++i) {
    const MemoryLegendEntry& entry = model_->legend()[i];
    char text[160];
    std::snprintf(text, sizeof(text), "%s %.0f%%", inspector::short_op_name(entry.producer).c_str(),
                  total > 0 ? 100.0 * double(entry.bytes) / double(total) : 0.0);
    list->AddRectFilled(ImVec2(x, y + 2), ImVec2(x + 10, y + 12), palette_colour(entry.colour, 230));
    list->AddText(ImVec2(x + 14, y), kCanvasText, text);
    x += 22 + ImGui::CalcTextSize(text).x;
  }
}

void MemoryCanvas::draw_plot(const Plot& plot) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ArenaPicture& arena = *plot.arena;
  const uint64_t extent = std::max({arena.size, arena.best_fit, uint64_t(1)});
  const double steps = double(std::max<size_t>(1, model_->steps()));
  auto x_of = [&](double step) { return plot.x0 + float(step / steps) * (plot.x1 - plot.x0); };
  auto y_of = [&](double byte) { return plot.y1 - float(byte / double(extent)) * (plot.y1 - plot.y0); };
  const uint64_t size = plot.best_fit ? arena.best_fit : arena.size;
  char label[160];
  std::snprintf(label, sizeof(label), "arena %u %s: %s, peak live %s (%.0f%%)%s", arena.arena,
                plot.best_fit ? "re-planned best fit" : "as planned", format_bytes(size).c_str(),
                format_bytes(arena.peak).c_str(), size ? 100.0 * double(arena.peak) / double(size) : 0.0,
                plot.best_fit || arena.best_fit >= arena.size
                    ? ""
                    : ("; best fit " + format_bytes(arena.best_fit)).c_str());
  list->AddText(ImVec2(plot.x0, plot.y0 - 17), kCanvasText, label);
  list->AddRectFilled(ImVec2(plot.x0, plot.y0), ImVec2(plot.x1, plot.y1), IM_COL32(248, 248, 248, 255));
  const std::vector<MemoryRect>& rects = plot.best_fit ? arena.best_fit_plan : arena.planned;
  for (const MemoryRect& r : rects) {
    const ImVec2 a(x_of(double(r.first)), y_of(double(r.offset + r.bytes)));
    const ImVec2 b(std::max(a.x + 1, x_of(double(r.last + 1))), std::max(a.y + 1, y_of(double(r.offset))));
    list->AddRectFilled(a, b, palette_colour(r.colour, 230));
    if (b.x - a.x > 4 && b.y - a.y > 4) list->AddRect(a, b, IM_COL32(60, 60, 60, 120));
  }
  // The arena's size, and the bytes alive at each step.
  list->AddLine(ImVec2(plot.x0, y_of(double(size))), ImVec2(plot.x1, y_of(double(size))), IM_COL32(200, 40, 40, 255), 1.5f);
  std::vector<ImVec2> curve;
  for (size_t s = 0; s < arena.live_bytes.size(); ++s) {
    curve.push_back(ImVec2(x_of(double(s)), y_of(double(arena.live_bytes[s]))));
    curve.push_back(ImVec2(x_of(double(s + 1)), y_of(double(arena.live_bytes[s]))));
  }
  if (!curve.empty()) list->AddPolyline(curve.data(), int(curve.size()), IM_COL32(30, 30, 30, 255), 0, 1.5f);
  list->AddRect(ImVec2(plot.x0, plot.y0), ImVec2(plot.x1, plot.y1), IM_COL32(150, 150, 150, 255));
  list->AddText(ImVec2(plot.x0 - kMargin + 2, plot.y0), kCanvasText, format_bytes(extent).c_str());
  list->AddText(ImVec2(plot.x0 - kMargin + 2, plot.y1 - 14), kCanvasText, "0");
  // The peak: a dashed line at its step, named.
  if (!plot.best_fit && arena.peak > 0) {
    const float px = x_of(double(arena.peak_step) + 0.5);
    for (float y = plot.y0; y < plot.y1; y += 8) {
      list->AddLine(ImVec2(px, y), ImVec2(px, std::min(y + 4, plot.y1)), IM_COL32(200, 40, 40, 255), 1.5f);
    }
    char peak[96];
    std::snprintf(peak, sizeof(peak), "peak %s at step %zu", format_bytes(arena.peak).c_str(), arena.peak_step);
    list->AddText(ImVec2(std::min(px + 4, plot.x1 - ImGui::CalcTextSize(peak).x), plot.y0 + 2), IM_COL32(200, 40, 40, 255),
                  peak);
  }
  // The step axis.
  for (size_t step : model_->step_ticks(8)) {
    const float x = x_of(double(step));
    list->AddLine(ImVec2(x, plot.y1), ImVec2(x, plot.y1 + 4), IM_COL32(150, 150, 150, 255));
    list->AddText(ImVec2(x - 6, plot.y1 + 5), kCanvasText, std::to_string(step).c_str());
  }
}

}  // namespace etkit::gui
