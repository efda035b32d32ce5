#include "steps_canvas.h"

#include <imgui.h>

#include <QMouseEvent>
#include <algorithm>
#include <cstdio>

#include "etkit/gui/workspace.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/event_text.h"
#include "display_format.h"
#include "palette.h"

namespace etkit::gui {
namespace {

constexpr float kPlotLeft = 70, kPlotRight = 16, kPlotTop = 56, kPlotBottom = 42;
constexpr float kPhaseStrip = 5;  // under the axis: which steps are prefill
constexpr ImU32 kAxis = IM_COL32(120, 120, 120, 255);
constexpr ImU32 kPrefill = IM_COL32(230, 140, 40, 255);
constexpr ImU32 kDecode = IM_COL32(50, 110, 200, 255);
constexpr ImU32 kMedian = IM_COL32(200, 40, 40, 200);
constexpr ImU32 kOtherOps = IM_COL32(190, 190, 190, 255);
constexpr ImU32 kOutsideOps = IM_COL32(225, 225, 225, 255);  // the step's time outside its ops

// By the key's place in the stack, not its name's hash: neighbours in a
// bar never share a colour (linear and custom_sdpa hashed alike).
ImU32 key_colour(const StepBreakdown& stack, size_t k) {
  return stack.keys[k].empty() ? kOtherOps : palette_colour(uint32_t(k));
}

std::string key_name(const std::string& key) { return key.empty() ? "other ops" : inspector::short_op_name(key); }

}  // namespace

StepsCanvas::StepsCanvas(QWidget* parent) : ImGuiCanvas(parent) { setMinimumSize(320, 200); }

void StepsCanvas::set_workspace(const Workspace* workspace) {
  chart_ = workspace != nullptr && workspace->trace() != nullptr
               ? StepsChart(inspector::generation_steps(*workspace->trace()))
               : StepsChart();
  breakdown_ = workspace != nullptr ? stack_by_key(step_op_times(*workspace, chart_.steps())) : StepBreakdown{};
  update();
}

StepsCanvas::Plot StepsCanvas::plot() const {
  return {kPlotLeft, kPlotTop, float(width()) - kPlotRight, float(height()) - kPlotBottom};
}

std::optional<size_t> StepsCanvas::step_at(float x, float y) const {
  const Plot p = plot();
  if (y < p.y0 || y >= p.y1 || p.x1 <= p.x0) return std::nullopt;
  return chart_.step_at(double(x - p.x0) / double(p.x1 - p.x0));
}

void StepsCanvas::mouseReleaseEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton) return;
  if (const auto step = step_at(float(event->position().x()), float(event->position().y()))) {
    emit step_selected(chart_.steps()[*step].start, chart_.steps()[*step].end);
  }
}

void StepsCanvas::draw() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const std::vector<inspector::GenerationStepTiming>& steps = chart_.steps();
  if (steps.empty()) {
    const char* hint = "Open a trace of `etinspect generate --etdump` to see its latency per token";
    const ImVec2 size = ImGui::GetIO().DisplaySize, text = ImGui::CalcTextSize(hint);
    list->AddText(ImVec2((size.x - text.x) / 2, (size.y - text.y) / 2), IM_COL32(110, 110, 110, 255), hint);
    return;
  }
  list->AddText(ImVec2(8, 8), kCanvasText, chart_.title().c_str());
  const Plot p = plot();
  draw_axes(p);
  const float bar = (p.x1 - p.x0) / float(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) draw_bar(p, i, p.x0 + bar * float(i), bar);
  if (chart_.decode().median > 0) {
    const float y = p.y_of(chart_.height_fraction(chart_.decode().median));
    list->AddLine(ImVec2(p.x0, y), ImVec2(p.x1, y), kMedian, 1.5f);
  }
  // Context labels along x, about every 80 pixels, under the phase strip.
  for (size_t i = 0; i < steps.size(); i += chart_.label_every(bar, 80)) {
    const float x = p.x0 + bar * (float(i) + 0.5f);
    list->AddLine(ImVec2(x, p.y1 + kPhaseStrip), ImVec2(x, p.y1 + kPhaseStrip + 4), kAxis);
    list->AddText(ImVec2(x - 8, p.y1 + kPhaseStrip + 6), kCanvasText, std::to_string(steps[i].context).c_str());
  }
  list->AddText(ImVec2(p.x1 - 190, p.y1 + kPhaseStrip + 22), kCanvasText, "context (tokens after the step)");
  draw_legend(p);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (const auto hit = step_at(mouse.x, mouse.y)) draw_step_tooltip(*hit);
}

void StepsCanvas::draw_axes(const Plot& p) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  list->AddLine(ImVec2(p.x0, p.y1), ImVec2(p.x1, p.y1), kAxis);
  list->AddLine(ImVec2(p.x0, p.y0), ImVec2(p.x0, p.y1), kAxis);
  for (double value : chart_.latency_ticks()) {
    const float y = p.y_of(chart_.height_fraction(value));
    list->AddLine(ImVec2(p.x0 - 4, y), ImVec2(p.x0, y), kAxis);
    list->AddText(ImVec2(4, y - 7), kCanvasText, tick_label(value, chart_.tick_step()).c_str());
  }
}

void StepsCanvas::draw_bar(const Plot& p, size_t i, float x, float bar) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const inspector::GenerationStepTiming& step = chart_.steps()[i];
  const ImU32 phase = step.decode ? kDecode : kPrefill;
  const float left = x + (bar > 3 ? 1 : 0), right = x + std::max(bar - 1, 1.0f);
  const float top = p.y_of(chart_.height_fraction(step.latency()));
  if (by_op()) {
    // The step's time outside its ops first (the whole bar), then its ops
    // bottom up in the legend's order; heights clip at the axis' top.
    list->AddRectFilled(ImVec2(left, top), ImVec2(right, p.y1), kOutsideOps);
    double below = 0;
    for (size_t k = 0; k < breakdown_.keys.size(); ++k) {
      const double ns = breakdown_.ns[i][k];
      if (ns <= 0) continue;
      const float y0 = p.y_of(chart_.height_fraction(below + ns)), y1 = p.y_of(chart_.height_fraction(below));
      list->AddRectFilled(ImVec2(left, y0), ImVec2(right, y1), key_colour(breakdown_, k));
      below += ns;
    }
  } else {
    list->AddRectFilled(ImVec2(left, top), ImVec2(right, p.y1), phase);
  }
  list->AddRectFilled(ImVec2(x, p.y1 + 1), ImVec2(x + std::max(bar, 1.0f), p.y1 + kPhaseStrip), phase);
  if (chart_.clipped(step.latency())) {  // above the axis: a caret on the clipped top
    const float mid = x + bar / 2;
    list->AddTriangleFilled(ImVec2(mid - 5, top + 8), ImVec2(mid + 5, top + 8), ImVec2(mid, top), kMedian);
  }
}

void StepsCanvas::draw_legend(const Plot& p) {
  // A checkbox choosing the bars' colouring, then what the colours mean.
  ImGui::SetCursorPos(ImVec2(p.x0, 28));
  bool stacked = by_op_;
  if (!breakdown_.keys.empty() && ImGui::Checkbox("by op", &stacked)) by_op_ = stacked;
  ImDrawList* list = ImGui::GetWindowDrawList();
  float x = p.x0 + (breakdown_.keys.empty() ? 0 : 90);
  const auto entry = [&](ImU32 colour, const std::string& text) {
    const float width = 16 + ImGui::CalcTextSize(text.c_str()).x + 14;
    if (x + width > p.x1) return;
    list->AddRectFilled(ImVec2(x, 32), ImVec2(x + 12, 44), colour);
    list->AddText(ImVec2(x + 16, 30), kCanvasText, text.c_str());
    x += width;
  };
  if (!by_op()) {
    entry(kPrefill, "prefill");
    entry(kDecode, "decode");
    return;
  }
  double all = 0;
  for (double ns : breakdown_.totals) all += ns;
  for (size_t k = 0; k < breakdown_.keys.size(); ++k) {
    char share[16];
    std::snprintf(share, sizeof share, " %.0f%%", all > 0 ? 100 * breakdown_.totals[k] / all : 0.0);
    entry(key_colour(breakdown_, k), key_name(breakdown_.keys[k]) + share);
  }
  entry(kOutsideOps, "outside ops");
}

void StepsCanvas::draw_step_tooltip(size_t i) {
  const inspector::GenerationStepTiming& s = chart_.steps()[i];
  ImGui::BeginTooltip();
  ImGui::Text("step %zu (%s), context %lld", s.step, s.decode ? "decode" : "prefill", (long long)s.context);
  ImGui::Text("latency %s", format_duration(s.latency()).c_str());
  if (i < breakdown_.ns.size()) {
    ImGui::Separator();
    for (size_t k = 0; k < breakdown_.keys.size(); ++k) {
      if (breakdown_.ns[i][k] <= 0) continue;
      ImGui::Text("%-22s %10s  %3.0f%%", key_name(breakdown_.keys[k]).c_str(),
                  format_duration(breakdown_.ns[i][k]).c_str(),
                  s.latency() > 0 ? 100 * breakdown_.ns[i][k] / s.latency() : 0.0);
    }
  }
  ImGui::Separator();
  ImGui::Text("click: show this run in the timeline");
  ImGui::EndTooltip();
}

}  // namespace etkit::gui
