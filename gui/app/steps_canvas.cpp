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
  steps_.clear();
  if (workspace != nullptr && workspace->trace() != nullptr) steps_ = inspector::generation_steps(*workspace->trace());
  update();
}

StepsCanvas::Plot StepsCanvas::plot() const {
  double max_latency = 0;
  for (const auto& s : steps_) max_latency = std::max(max_latency, s.latency());
  return {kLeft, kTop, float(width()) - kRight, float(height()) - kBottom, max_latency > 0 ? max_latency * 1.1 : 1};
}

std::optional<size_t> StepsCanvas::step_at(float x, float y) const {
  const Plot p = plot();
  if (steps_.empty() || x < p.x0 || x >= p.x1 || y < p.y0 || y >= p.y1) return std::nullopt;
  const size_t index = size_t(double(x - p.x0) / double(p.x1 - p.x0) * double(steps_.size()));
  return std::min(index, steps_.size() - 1);
}

void StepsCanvas::mouseReleaseEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton) return;
  if (const auto step = step_at(float(event->position().x()), float(event->position().y()))) {
    emit step_selected(steps_[*step].start, steps_[*step].end);
  }
}

void StepsCanvas::draw() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  if (steps_.empty()) {
    const char* hint = "Open a trace of `etinspect generate --etdump` to see its latency per token";
    const ImVec2 size = ImGui::GetIO().DisplaySize, text = ImGui::CalcTextSize(hint);
    list->AddText(ImVec2((size.x - text.x) / 2, (size.y - text.y) / 2), IM_COL32(110, 110, 110, 255), hint);
    return;
  }
  const inspector::PhaseSummary decode = inspector::summarize_phase(steps_, true);
  const size_t prefill = steps_.size() - decode.steps;
  const double median = decode.median;
  char title[256];
  std::snprintf(title, sizeof(title),
                "latency per step: %zu prefill (orange), %zu decode (blue), decode median %.3f ms (red line)",
                prefill, decode.steps, median / 1e6);
  list->AddText(ImVec2(8, 8), kText, title);
  const Plot p = plot();
  list->AddLine(ImVec2(p.x0, p.y1), ImVec2(p.x1, p.y1), kAxis);
  list->AddLine(ImVec2(p.x0, p.y0), ImVec2(p.x0, p.y1), kAxis);
  // Latency ticks: four, labelled in ms.
  for (int t = 0; t <= 4; ++t) {
    const double value = p.max_latency * t / 4;
    const float y = p.y1 - float(value / p.max_latency) * (p.y1 - p.y0);
    list->AddLine(ImVec2(p.x0 - 4, y), ImVec2(p.x0, y), kAxis);
    list->AddText(ImVec2(4, y - 7), kText, ms_text(value).c_str());
  }
  const float bar = (p.x1 - p.x0) / float(steps_.size());
  for (size_t i = 0; i < steps_.size(); ++i) {
    const auto& s = steps_[i];
    const float x = p.x0 + bar * float(i);
    const float y = p.y1 - float(s.latency() / p.max_latency) * (p.y1 - p.y0);
    list->AddRectFilled(ImVec2(x + (bar > 3 ? 1 : 0), y), ImVec2(x + std::max(bar - 1, 1.0f), p.y1),
                        s.decode ? kDecode : kPrefill);
  }
  if (median > 0) {
    const float y = p.y1 - float(median / p.max_latency) * (p.y1 - p.y0);
    list->AddLine(ImVec2(p.x0, y), ImVec2(p.x1, y), kMedian, 1.5f);
  }
  // Context ticks along x: about every 80 pixels.
  const size_t every = std::max<size_t>(1, size_t(80 / std::max(bar, 0.01f)));
  for (size_t i = 0; i < steps_.size(); i += every) {
    const float x = p.x0 + bar * (float(i) + 0.5f);
    list->AddLine(ImVec2(x, p.y1), ImVec2(x, p.y1 + 4), kAxis);
    list->AddText(ImVec2(x - 8, p.y1 + 6), kText, std::to_string(steps_[i].context).c_str());
  }
  list->AddText(ImVec2(p.x1 - 190, p.y1 + 18), kText, "context (tokens after the step)");
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (const auto hit = step_at(mouse.x, mouse.y)) {
    const auto& s = steps_[*hit];
    ImGui::BeginTooltip();
    ImGui::Text("step %zu (%s), context %lld", s.step, s.decode ? "decode" : "prefill", (long long)s.context);
    ImGui::Text("latency %s", ms_text(s.latency()).c_str());
    ImGui::Text("click: show this run in the timeline");
    ImGui::EndTooltip();
  }
}

}  // namespace etkit::gui
