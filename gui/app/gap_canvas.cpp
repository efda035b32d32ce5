#include "gap_canvas.h"

#include <imgui.h>

#include <QMouseEvent>
#include <algorithm>
#include <cmath>

#include "etkit/gui/workspace.h"
#include "palette.h"

namespace etkit::gui {
namespace {

constexpr float kLeft = 64;

// Blue - white - red over [-range, range]; grey for padding.
uint32_t diverging(float v, float range) {
  if (std::isnan(v)) return 0xffdddddd;
  const float t = range > 0 ? std::clamp(v / range, -1.0f, 1.0f) : 0;
  const auto c = [](float x) { return uint32_t(std::clamp(x, 0.0f, 1.0f) * 255); };
  const uint32_t r = t > 0 ? 255 : c(1 + t), g = c(1 - std::abs(t)), b = t < 0 ? 255 : c(1 - t);
  return 0xff000000 | (b << 16) | (g << 8) | r;
}

// White to dark red over [0, max].
uint32_t sequential(float v, float max) {
  if (std::isnan(v)) return 0xffdddddd;
  const float t = max > 0 ? std::clamp(v / max, 0.0f, 1.0f) : 0;
  const uint32_t r = uint32_t(255 - 115 * t), g = uint32_t(255 * (1 - t)), b = uint32_t(255 * (1 - t));
  return 0xff000000 | (b << 16) | (g << 8) | r;
}

}  // namespace

GapCanvas::GapCanvas(QWidget* parent) : ImGuiCanvas(parent) { setMinimumSize(320, 200); }

GapCanvas::~GapCanvas() {
  makeCurrent();
  release_textures();
  doneCurrent();
}

void GapCanvas::release_textures() {
  if (textures_[0] != 0 && context() != nullptr) glDeleteTextures(3, textures_);
  textures_[0] = textures_[1] = textures_[2] = 0;
}

void GapCanvas::set_workspace(const Workspace* workspace) {
  workspace_ = workspace;
  judged_.reset();
  if (workspace_ != nullptr && workspace_->gap() != nullptr) judged_ = *workspace_->gap();
  rejudge();  // at the view's quanta (set before a load, or by the user)
  // Start at the first divergence, else at the largest gap.
  std::optional<size_t> start = series_.first_divergence;
  if (!start && !series_.points.empty()) {
    start = size_t(std::max_element(series_.points.begin(), series_.points.end(),
                                    [](const GapPoint& a, const GapPoint& b) { return a.value < b.value; }) -
                   series_.points.begin());
  }
  select_point(start);
}

void GapCanvas::set_quanta(float quanta) {
  quanta_ = quanta;
  rejudge();
  select_point(series_.first_divergence ? series_.first_divergence : selected_);
}

void GapCanvas::rejudge() {
  if (!judged_) {
    set_metric(metric_);
    return;
  }
  inspector::GapOptions options;  // the tolerances the workspace's gap was computed at (the CLI's defaults)
  options.quanta = std::max(0.0f, quanta_);
  inspector::judge(*judged_, options);
  set_metric(metric_);
}

void GapCanvas::set_metric(GapMetric metric) {
  metric_ = metric;
  series_ = report() != nullptr ? gap_series(*report(), metric, 1e-5, 1e-4, quanta_) : GapSeries{};
  update();
}

void GapCanvas::select_point(std::optional<size_t> point) {
  selected_ = point && *point < series_.points.size() ? point : std::nullopt;
  image_.reset();
  image_problem_.clear();
  if (selected_ && report() != nullptr) {
    // The row's own values (a delegate node's too), as the gap compared them.
    const inspector::GapRow& row = report()->rows[series_.points[*selected_].row];
    if (row.actual_values.empty() || row.reference_values.size() != row.actual_values.size()) {
      image_problem_ = "the tensors of this op could not be read back";
    } else {
      image_ = tensor_image(row.actual_values, row.reference_values, row.actual_sizes);
      if (!image_) image_problem_ = "only 2-D, 3-D and 4-D tensors are shown as images";
    }
  }
  images_dirty_ = true;
  update();
}

GapCanvas::Chart GapCanvas::chart() const {
  const float w = float(width()), h = float(height());
  return {kLeft, 56, w - 16, std::max(120.0f, h * 0.5f)};
}

float GapCanvas::x_of(const Chart& c, double row) const {
  const double rows = double(std::max<size_t>(1, series_.rows));
  return c.x0 + float((row + 0.5) / rows) * (c.x1 - c.x0);
}

void GapCanvas::mouseReleaseEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseReleaseEvent(event);
  const Chart c = chart();
  const float x = float(event->position().x()), y = float(event->position().y());
  if (event->button() != Qt::LeftButton || x < c.x0 || x > c.x1 || y < c.y0 || y > c.y1) return;
  const double row = double(x - c.x0) / double(c.x1 - c.x0) * double(std::max<size_t>(1, series_.rows)) - 0.5;
  const auto point = nearest_point(series_, row);
  select_point(point);
  if (point && report() != nullptr) {
    emit instruction_selected(report()->rows[series_.points[*point].row].instruction_id);
  }
}

void GapCanvas::draw() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  if (report() == nullptr) {
    const char* hint = "Numeric gap: open a trace with --debug-buffer and --reference (a folder of .npy or a trace)";
    const ImVec2 size = ImGui::GetIO().DisplaySize, text = ImGui::CalcTextSize(hint);
    list->AddText(ImVec2((size.x - text.x) / 2, (size.y - text.y) / 2), IM_COL32(110, 110, 110, 255), hint);
    return;
  }
  ImGui::SetCursorPos(ImVec2(8, 6));
  ImGui::SetNextItemWidth(140);
  int metric = int(metric_);
  if (ImGui::Combo("metric", &metric, kGapMetricNames, int(std::size(kGapMetricNames)))) {
    set_metric(GapMetric(metric));
    select_point(selected_);
  }
  const inspector::GapReport& report = *this->report();
  ImGui::SameLine();
  ImGui::Text("   %s", gap_status_line(report).c_str());
  if (const auto quantized = quanta_summary(report)) {
    // int8 values against float ones: float tolerances are the wrong unit.
    ImGui::SameLine();
    ImGui::SetNextItemWidth(70);
    if (ImGui::InputFloat("quantization steps", &quanta_, 0, 0, "%.1f")) rejudge();
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%zu int8 values lie a median %.2f and at most %.2f of their quantization steps from the "
                        "reference.\nJudge them in steps (etinspect gap --quanta K); 0 judges them by atol and rtol.",
                        quantized->rows, quantized->median, quantized->max);
    }
  }
  if (report.first_divergence) {
    const inspector::GapRow& row = report.rows[*report.first_divergence];
    ImGui::SetCursorPos(ImVec2(8, 30));
    ImGui::TextColored(ImVec4(0.75f, 0.1f, 0.1f, 1), "first divergence: %s%s%s", gap_row_label(row).c_str(),
                       row.source.empty() ? "" : " at ", row.source.c_str());
  } else {
    ImGui::SetCursorPos(ImVec2(8, 30));
    ImGui::TextColored(ImVec4(0.1f, 0.5f, 0.1f, 1), "%s",
                       quanta_ > 0 ? "no divergence: int8 values within the chosen quantization steps, the others "
                                     "within atol + rtol * max |reference|"
                                   : "no divergence: every compared output is within atol + rtol * max |reference|");
  }
  const Chart c = chart();
  draw_chart(c);
  draw_tensors(c.y1 + 28);
}

void GapCanvas::draw_chart(const Chart& c) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  list->AddRectFilled(ImVec2(c.x0, c.y0), ImVec2(c.x1, c.y1), IM_COL32(250, 250, 250, 255));
  auto y_of = [&](double v) { return c.y1 - float(gap_fraction(series_, v)) * (c.y1 - c.y0); };
  // Grid: decades on a log scale, five steps otherwise.
  if (series_.log_scale) {
    for (double d = series_.low; d <= series_.high * 1.0001; d *= 10) {
      const float y = y_of(d);
      list->AddLine(ImVec2(c.x0, y), ImVec2(c.x1, y), IM_COL32(225, 225, 225, 255));
      char label[24];
      std::snprintf(label, sizeof(label), "1e%d", int(std::lround(std::log10(d))));
      list->AddText(ImVec2(6, y - 7), kCanvasText, label);
    }
  } else {
    for (int i = 0; i <= 5; ++i) {
      const double v = series_.low + (series_.high - series_.low) * i / 5;
      const float y = y_of(v);
      list->AddLine(ImVec2(c.x0, y), ImVec2(c.x1, y), IM_COL32(225, 225, 225, 255));
      char label[24];
      std::snprintf(label, sizeof(label), "%.3g", v);
      list->AddText(ImVec2(6, y - 7), kCanvasText, label);
    }
  }
  // The first divergence, marked across the chart.
  if (series_.first_divergence) {
    const float x = x_of(c, double(series_.points[*series_.first_divergence].row));
    list->AddLine(ImVec2(x, c.y0), ImVec2(x, c.y1), IM_COL32(200, 40, 40, 160), 2);
  }
  // The threshold: each op's own (atol + rtol * max |reference|), as ticks joined.
  std::vector<ImVec2> threshold;
  for (const GapPoint& p : series_.points) {
    if (p.threshold) threshold.push_back(ImVec2(x_of(c, double(p.row)), y_of(*p.threshold)));
  }
  if (threshold.size() > 1) list->AddPolyline(threshold.data(), int(threshold.size()), IM_COL32(230, 140, 0, 220), 0, 1.5f);
  std::vector<ImVec2> line;
  for (const GapPoint& p : series_.points) line.push_back(ImVec2(x_of(c, double(p.row)), y_of(p.value)));
  if (line.size() > 1) list->AddPolyline(line.data(), int(line.size()), IM_COL32(90, 110, 160, 160), 0, 1);
  for (size_t i = 0; i < series_.points.size(); ++i) {
    const GapPoint& p = series_.points[i];
    const ImU32 colour = p.diverged ? IM_COL32(210, 40, 40, 255) : IM_COL32(40, 90, 180, 255);
    list->AddCircleFilled(line[i], selected_ == i ? 6.0f : 3.5f, colour);
    if (selected_ == i) list->AddCircle(line[i], 9, IM_COL32(0, 0, 0, 255), 0, 1.5f);
  }
  list->AddRect(ImVec2(c.x0, c.y0), ImVec2(c.x1, c.y1), IM_COL32(160, 160, 160, 255));
  char caption[96];
  std::snprintf(caption, sizeof(caption), "%s per op, execution order%s", kGapMetricNames[int(metric_)],
                metric_ == GapMetric::kMaxAbs ? " (orange: divergence threshold)" : "");
  list->AddText(ImVec2(c.x0, c.y1 + 4), IM_COL32(90, 90, 90, 255), caption);
  // Hover: the op under the cursor.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (mouse.x >= c.x0 && mouse.x <= c.x1 && mouse.y >= c.y0 && mouse.y <= c.y1) {
    const double row = double(mouse.x - c.x0) / double(c.x1 - c.x0) * double(std::max<size_t>(1, series_.rows)) - 0.5;
    if (const auto point = nearest_point(series_, row)) {
      const GapPoint& p = series_.points[*point];
      const inspector::GapRow& r = report()->rows[p.row];
      ImGui::SetTooltip("%s\n%s %.4g%s\n%s", gap_row_label(r).c_str(), kGapMetricNames[int(metric_)], p.value,
                        p.diverged ? "  DIVERGED" : "", r.source.c_str());
    }
  }
}

void GapCanvas::upload_images() {
  images_dirty_ = false;
  if (!image_) return;
  if (textures_[0] == 0) glGenTextures(3, textures_);
  const float range = std::max(std::abs(image_->min_value), std::abs(image_->max_value));
  const std::vector<float>* sources[3] = {&image_->actual, &image_->reference, &image_->difference};
  std::vector<uint32_t> pixels(image_->width * image_->height);
  for (int i = 0; i < 3; ++i) {
    for (size_t p = 0; p < pixels.size(); ++p) {
      const float v = (*sources[i])[p];
      pixels[p] = i < 2 ? diverging(v, range) : sequential(v, image_->max_difference);
    }
    glBindTexture(GL_TEXTURE_2D, textures_[i]);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, GLsizei(image_->width), GLsizei(image_->height), 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, pixels.data());
  }
}

void GapCanvas::draw_tensors(float top) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  if (!selected_) return;
  const inspector::GapRow& row = report()->rows[series_.points[*selected_].row];
  std::string sizes;
  for (int64_t s : row.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
  char title[256];
  std::snprintf(title, sizeof(title), "%s [%s]   mse %.3g   snr %.1f dB   cosine %.6f   max abs %.3g",
                gap_row_label(row).c_str(), sizes.c_str(), row.metrics.mse, row.metrics.snr_db, row.metrics.cosine,
                row.metrics.max_abs);
  list->AddText(ImVec2(8, top), kCanvasText, title);
  if (!image_) {
    list->AddText(ImVec2(8, top + 20), IM_COL32(110, 110, 110, 255), image_problem_.c_str());
    return;
  }
  if (images_dirty_) upload_images();
  const float w = float(width()), h = float(height()) - top - 44;
  const float panel = (w - 16 * 4) / 3;
  const float scale = std::min(panel / float(image_->width), h / float(image_->height));
  const float iw = float(image_->width) * scale, ih = float(image_->height) * scale;
  const char* captions[3] = {"actual", "reference", "|actual - reference|"};
  for (int i = 0; i < 3; ++i) {
    const float x = 16 + float(i) * (panel + 16);
    list->AddText(ImVec2(x, top + 22), kCanvasText, captions[i]);
    list->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(textures_[i])), ImVec2(x, top + 40),
                   ImVec2(x + iw, top + 40 + ih));
    list->AddRect(ImVec2(x, top + 40), ImVec2(x + iw, top + 40 + ih), IM_COL32(160, 160, 160, 255));
  }
  char range[96];
  std::snprintf(range, sizeof(range), "values %.3g to %.3g (blue-white-red); difference up to %.3g",
                image_->min_value, image_->max_value, image_->max_difference);
  list->AddText(ImVec2(16, top + 44 + ih), IM_COL32(90, 90, 90, 255), range);
}

}  // namespace etkit::gui
