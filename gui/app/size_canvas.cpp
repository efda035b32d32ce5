#include "size_canvas.h"

#include <imgui.h>

#include <QMouseEvent>
#include <cstdio>
#include <iterator>

#include "display_format.h"
#include "etkit/gui/workspace.h"

namespace etkit::gui {
namespace {

constexpr float kTop = 50;  // room for the title and the legend below it
constexpr int kLevels = 3;

// A colour per kind of bytes (what `diff-program` sums by), nested parts darker.
struct Kind {
  const char* marker;  ///< found in the part's path
  const char* label;
  ImU32 colour;
};
constexpr Kind kKinds[] = {
    {"alignment padding", "padding", IM_COL32(217, 217, 217, 255)},
    {"named data", "delegate constants", IM_COL32(251, 128, 114, 255)},
    {"XNNPACK constant data", "delegate constants", IM_COL32(251, 128, 114, 255)},
    {"delegate ", "delegate graphs", IM_COL32(253, 180, 98, 255)},
    {"constants", "constants", IM_COL32(128, 177, 211, 255)},
    {"mutable", "mutable state", IM_COL32(179, 222, 105, 255)},
    {"test cases", "test cases", IM_COL32(190, 186, 218, 255)},
    {"program flatbuffer", "program tables", IM_COL32(141, 211, 199, 255)},
    {"", "headers and other", IM_COL32(252, 205, 229, 255)},
};

const Kind& kind_of(const std::string& path) {
  for (const Kind& k : kKinds) {
    if (path.find(k.marker) != std::string::npos) return k;
  }
  return kKinds[std::size(kKinds) - 1];
}

ImU32 colour(const std::string& path, int depth) {
  const ImU32 c = kind_of(path).colour;
  const float shade = 1.0f - 0.1f * float(depth - 1);
  const auto channel = [&](int shift) { return ImU32(float((c >> shift) & 0xff) * shade) << shift; };
  return channel(0) | channel(8) | channel(16) | 0xff000000u;
}

}  // namespace

SizeCanvas::SizeCanvas(QWidget* parent) : ImGuiCanvas(parent) { setMinimumSize(320, 200); }

void SizeCanvas::set_workspace(const Workspace* workspace) {
  workspace_ = workspace;
  focus_.clear();
  relayout();
}

void SizeCanvas::focus(const std::string& path) {
  focus_ = path;
  relayout();
}

void SizeCanvas::relayout() {
  cells_.clear();
  const inspector::SizePart* root = workspace_ != nullptr ? workspace_->size() : nullptr;
  if (root != nullptr) {
    const inspector::SizePart* node = find_part(*root, focus_);
    if (node == nullptr) {
      focus_.clear();
      node = root;
    }
    cells_ = layout_treemap(*node, {4, kTop, std::max(0.0, double(width()) - 8), std::max(0.0, double(height()) - kTop - 4)},
                            kLevels);
  }
  update();
}

void SizeCanvas::resizeEvent(QResizeEvent* event) {
  ImGuiCanvas::resizeEvent(event);
  relayout();
}

const TreemapCell* SizeCanvas::cell_at(float x, float y) const {
  const TreemapCell* hit = nullptr;  // the deepest cell under the point (parents come first)
  for (const TreemapCell& c : cells_) {
    if (x >= c.rect.x && x < c.rect.x + c.rect.w && y >= c.rect.y && y < c.rect.y + c.rect.h) hit = &c;
  }
  return hit;
}

void SizeCanvas::mouseReleaseEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseReleaseEvent(event);
  if (event->button() == Qt::RightButton) {  // up one level
    const size_t cut = focus_.rfind('/');
    focus(cut == std::string::npos ? std::string() : focus_.substr(0, cut));
    return;
  }
  if (event->button() != Qt::LeftButton) return;
  const float x = float(event->position().x()), y = float(event->position().y());
  // A constant linked to the model (an ETRecord is open): select the op that reads it.
  if (const TreemapCell* leaf = cell_at(x, y); leaf != nullptr && leaf->part->parts.empty() && leaf->part->instruction >= 0) {
    emit instruction_selected(leaf->part->instruction);
    return;
  }
  // One level down: into the shown part under the click (a leaf has nothing inside).
  for (const TreemapCell& c : cells_) {
    if (c.depth != 1 || x < c.rect.x || x >= c.rect.x + c.rect.w || y < c.rect.y || y >= c.rect.y + c.rect.h) continue;
    if (!c.part->parts.empty()) focus(focus_.empty() ? c.path : focus_ + "/" + c.path);
    return;
  }
}

void SizeCanvas::draw() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const inspector::SizePart* root = workspace_ != nullptr ? workspace_->size() : nullptr;
  if (root == nullptr) {
    const char* hint = "Open a program (.pte, .bpte) to see where its bytes go";
    const ImVec2 size = ImGui::GetIO().DisplaySize, text = ImGui::CalcTextSize(hint);
    list->AddText(ImVec2((size.x - text.x) / 2, (size.y - text.y) / 2), IM_COL32(110, 110, 110, 255), hint);
    return;
  }
  const inspector::SizePart* node = find_part(*root, focus_);
  const std::string title = (focus_.empty() ? root->name : focus_) + ": " + format_bytes(node ? node->bytes : 0) +
                            " (click a part to open it, right-click to go up)";
  list->AddText(ImVec2(6, 8), IM_COL32(20, 20, 20, 255), title.c_str());
  // The legend on its own row, one swatch per kind.
  float x = 6;
  for (size_t k = 0; k < std::size(kKinds); ++k) {
    if (k > 0 && std::string(kKinds[k].label) == kKinds[k - 1].label) continue;
    list->AddRectFilled(ImVec2(x, 30), ImVec2(x + 12, 42), kKinds[k].colour);
    list->AddText(ImVec2(x + 16, 28), IM_COL32(20, 20, 20, 255), kKinds[k].label);
    x += 16 + ImGui::CalcTextSize(kKinds[k].label).x + 14;
  }
  for (const TreemapCell& c : cells_) {
    const ImVec2 a(float(c.rect.x), float(c.rect.y)), b(float(c.rect.x + c.rect.w), float(c.rect.y + c.rect.h));
    list->AddRectFilled(a, b, colour(focus_ + "/" + c.path, c.depth));
    list->AddRect(a, b, IM_COL32(255, 255, 255, 255));
    // Labels where they fit: the name and the size.
    if (c.rect.w > 60 && c.rect.h > 18 && (c.depth == 1 || c.part->parts.empty())) {
      const std::string label = c.part->name + " " + format_bytes(c.part->bytes);
      list->PushClipRect(a, b, true);
      list->AddText(ImVec2(a.x + 3, a.y + 2), IM_COL32(20, 20, 20, 255), label.c_str());
      list->PopClipRect();
    }
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (const TreemapCell* hit = cell_at(mouse.x, mouse.y)) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(hit->path.c_str());
    ImGui::Text("%s (%.2f%% of the file)", format_bytes(hit->part->bytes).c_str(),
                100.0 * double(hit->part->bytes) / double(std::max<uint64_t>(1, root->bytes)));
    if (!hit->part->detail.empty()) {
      ImGui::TextUnformatted(hit->part->detail.c_str());
      ImGui::TextDisabled("click: show this op in the graph, timeline and table");
    }
    ImGui::EndTooltip();
  }
}

}  // namespace etkit::gui
