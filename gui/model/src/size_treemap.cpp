#include "etkit/gui/size_treemap.h"

#include <algorithm>
#include <limits>

namespace etkit::gui {
namespace {

// Worst aspect ratio of a row of areas laid along a side of length `side`.
double worst(const std::vector<double>& row, double side) {
  double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double a : row) {
    sum += a;
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
  if (sum <= 0 || lo <= 0) return std::numeric_limits<double>::infinity();
  const double s2 = side * side, sum2 = sum * sum;
  return std::max(s2 * hi / sum2, sum2 / (s2 * lo));
}

// Squarified layout (Bruls, Huizing, van Wijk): rows along the shorter side,
// each grown while it makes the worst aspect ratio no worse.
void squarify(std::vector<std::pair<size_t, double>> items, TreemapRect bounds, std::vector<TreemapRect>& out) {
  size_t next = 0;
  while (next < items.size()) {
    const double side = std::min(bounds.w, bounds.h);
    std::vector<double> row{items[next].second};
    size_t end = next + 1;
    while (end < items.size()) {
      std::vector<double> grown = row;
      grown.push_back(items[end].second);
      if (worst(grown, side) > worst(row, side)) break;
      row = std::move(grown);
      ++end;
    }
    double sum = 0;
    for (double a : row) sum += a;
    const bool horizontal = bounds.w >= bounds.h;  // the row is a column on the left, or a strip on top
    const double thickness = side > 0 ? sum / side : 0;
    double along = 0;
    for (size_t i = next; i < end; ++i) {
      const double length = thickness > 0 ? items[i].second / thickness : 0;
      out[items[i].first] = horizontal ? TreemapRect{bounds.x, bounds.y + along, thickness, length}
                                       : TreemapRect{bounds.x + along, bounds.y, length, thickness};
      along += length;
    }
    if (horizontal) {
      bounds.x += thickness;
      bounds.w = std::max(0.0, bounds.w - thickness);
    } else {
      bounds.y += thickness;
      bounds.h = std::max(0.0, bounds.h - thickness);
    }
    next = end;
  }
}

void lay_out(const inspector::SizePart& node, const std::string& path, TreemapRect bounds, int depth, int max_depth,
             size_t top, std::vector<TreemapCell>& cells) {
  std::vector<std::pair<size_t, double>> items;  // (index into parts, area), largest first
  double total = 0;
  for (const auto& part : node.parts) total += double(part.bytes);
  if (total <= 0) return;
  for (size_t i = 0; i < node.parts.size(); ++i) {
    if (node.parts[i].bytes > 0) items.emplace_back(i, double(node.parts[i].bytes) / total * bounds.area());
  }
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<TreemapRect> rects(node.parts.size());
  squarify(items, bounds, rects);
  for (const auto& [i, area] : items) {
    const inspector::SizePart& part = node.parts[i];
    const std::string sub = path.empty() ? part.name : path + "/" + part.name;
    cells.push_back({&part, sub, depth, rects[i], depth == 1 ? i : top});
    if (depth < max_depth) {
      // A margin so nested parts show their parent's edge.
      TreemapRect inner = rects[i];
      const double pad = std::min({2.0, inner.w / 8, inner.h / 8});
      inner = {inner.x + pad, inner.y + pad, std::max(0.0, inner.w - 2 * pad), std::max(0.0, inner.h - 2 * pad)};
      lay_out(part, sub, inner, depth + 1, max_depth, depth == 1 ? i : top, cells);
    }
  }
}

}  // namespace

std::vector<TreemapCell> layout_treemap(const inspector::SizePart& node, TreemapRect bounds, int depth) {
  std::vector<TreemapCell> cells;
  lay_out(node, "", bounds, 1, std::max(1, depth), 0, cells);
  return cells;
}

const inspector::SizePart* find_part(const inspector::SizePart& root, const std::string& path) {
  const inspector::SizePart* at = &root;
  size_t begin = 0;
  while (begin < path.size()) {
    // Names may hold '/': match the longest child name that is a prefix here.
    const inspector::SizePart* next = nullptr;
    for (const auto& part : at->parts) {
      if (path.compare(begin, part.name.size(), part.name) == 0 &&
          (begin + part.name.size() == path.size() || path[begin + part.name.size()] == '/')) {
        if (next == nullptr || part.name.size() > next->name.size()) next = &part;
      }
    }
    if (next == nullptr) return nullptr;
    at = next;
    begin += next->name.size() + 1;
  }
  return at;
}

}  // namespace etkit::gui
