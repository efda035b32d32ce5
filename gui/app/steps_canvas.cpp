#include "steps_canvas.h"

#include <imgui.h>

#include <QMouseEvent>
#include <algorithm>
#include <cstdio>

#include "etkit/gui/workspace.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::gui {
namespace {

constexpr float kLeft = 70, kRight = 16, kTop = 34, kBottom = 36;
constexpr ImU32 kText = IM_COL32(20, 20, 20, 255);
constexpr ImU32 kAxis = IM_COL32(120, 120, 120, 255);
constexpr ImU32 kPrefill = IM_COL32(230, 140, 40, 255);
constexpr ImU32 kDecode = IM_COL32(50, 110, 200, 255);
constexpr ImU32 kMedian = IM_COL32(200, 40, 40, 200);

std::string ms_text(double ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f ms", ns / 1e6);
  return text;
}

}  // namespace

StepsCanvas::StepsCanvas(QWidget* parent) : ImGuiCanvas(parent) { setMinimumSize(320, 200); }

void StepsCanvas::set_workspace(const Workspace* workspace) {
  chart_ = workspace != nullptr && workspace->trace() != nullptr
               ? StepsChart(inspector::generation_steps(*workspace->trace()))
               : StepsChart();
  update();
}

StepsCanvas::Plot StepsCanvas::plot() const {
  return {kLeft, kTop, float(width()) - kRight, float(height()) - kBottom};
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
  list->AddText(ImVec2(8, 8), kText, chart_.title().c_str());
  const Plot p = plot();
  list->AddLine(ImVec2(p.x0, p.y1), ImVec2(p.x1, p.y1), kAxis);
  list->AddLine(ImVec2(p.x0, p.y0), ImVec2(p.x0, p.y1), kAxis);
  for (double value : chart_.latency_ticks()) {
    const float y = p.y_of(chart_.height_fraction(value));
    list->AddLine(ImVec2(p.x0 - 4, y), ImVec2(p.x0, y), kAxis);
    list->AddText(ImVec2(4, y - 7), kText, tick_label(value, chart_.tick_step()).c_str());
  }
  const float bar = (p.x1 - p.x0) / float(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const float x = p.x0 + bar * float(i);
    const float y = p.y_of(chart_.height_fraction(steps[i].latency()));
    list->AddRectFilled(ImVec2(x + (bar > 3 ? 1 : 0), y), ImVec2(x + std::max(bar - 1, 1.0f), p.y1),
                        steps[i].decode ? kDecode : kPrefill);
    if (chart_.clipped(steps[i].latency())) {  // above the axis: a caret on the clipped top
      const float mid = x + bar / 2;
      list->AddTriangleFilled(ImVec2(mid - 5, y + 8), ImVec2(mid + 5, y + 8), ImVec2(mid, y), kMedian);
    }
  }
  if (chart_.decode().median > 0) {
    const float y = p.y_of(chart_.height_fraction(chart_.decode().median));
    list->AddLine(ImVec2(p.x0, y), ImVec2(p.x1, y), kMedian, 1.5f);
  }
  // Context labels along x, about every 80 pixels.
  for (size_t i = 0; i < steps.size(); i += chart_.label_every(bar, 80)) {
    const float x = p.x0 + bar * (float(i) + 0.5f);
    list->AddLine(ImVec2(x, p.y1), ImVec2(x, p.y1 + 4), kAxis);
    list->AddText(ImVec2(x - 8, p.y1 + 6), kText, std::to_string(steps[i].context).c_str());
  }
  list->AddText(ImVec2(p.x1 - 190, p.y1 + 18), kText, "context (tokens after the step)");
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (const auto hit = step_at(mouse.x, mouse.y)) {
    const auto& s = steps[*hit];
    ImGui::BeginTooltip();
    ImGui::Text("step %zu (%s), context %lld", s.step, s.decode ? "decode" : "prefill", (long long)s.context);
    ImGui::Text("latency %s", ms_text(s.latency()).c_str());
    ImGui::Text("click: show this run in the timeline");
    ImGui::EndTooltip();
  }
}

}  // namespace etkit::gui
