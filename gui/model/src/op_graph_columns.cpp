#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "etkit/gui/op_graph.h"

namespace etkit::gui {
namespace {

constexpr float kColumnGap = 36;  // points between columns, room for the folded edges' ends

// The middles of the horizontal bands no node covers, top to bottom: where
// the drawing can be cut without cutting a node.
std::vector<float> free_bands(const OpGraph& graph) {
  std::vector<std::pair<float, float>> spans;
  for (const OpNode& n : graph.nodes) spans.emplace_back(n.y - n.h / 2, n.y + n.h / 2);
  std::sort(spans.begin(), spans.end());
  std::vector<float> cuts;
  float covered = spans.empty() ? 0 : spans.front().second;
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first > covered) cuts.push_back((covered + spans[i].first) / 2);
    covered = std::max(covered, spans[i].second);
  }
  return cuts;
}

// The cuts nearest k * height / columns for k = 1 .. columns - 1, each below
// the last; fewer when the bands run out.
std::vector<float> choose_cuts(const std::vector<float>& bands, float height, size_t columns) {
  std::vector<float> cuts;
  for (size_t k = 1; k < columns; ++k) {
    const float target = height * float(k) / float(columns);
    float best = -1;
    for (float band : bands) {
      if (!cuts.empty() && band <= cuts.back()) continue;
      if (best < 0 || std::fabs(band - target) < std::fabs(best - target)) best = band;
    }
    if (best < 0) break;
    cuts.push_back(best);
  }
  return cuts;
}

}  // namespace

OpGraph fold_into_columns(const OpGraph& graph, float aspect, size_t* columns) {
  if (columns != nullptr) *columns = 1;
  if (!graph.laid_out || graph.nodes.empty() || graph.width <= 0 || graph.height <= 0 || aspect <= 0) return graph;
  // n columns of (width + gap) by height / n have the aspect n^2 (w + g) / h.
  const double wanted = std::round(std::sqrt(double(aspect) * graph.height / (graph.width + kColumnGap)));
  const size_t count = size_t(std::clamp(wanted, 1.0, double(graph.nodes.size())));
  if (count <= 1) return graph;
  std::vector<float> cuts = choose_cuts(free_bands(graph), graph.height, count);
  if (cuts.empty()) return graph;
  cuts.insert(cuts.begin(), 0);
  cuts.push_back(std::max(graph.height, cuts.back()));
  const auto column_of = [&cuts](float y) {
    return size_t(std::upper_bound(cuts.begin() + 1, cuts.end() - 1, y) - (cuts.begin() + 1));
  };
  const float pitch = graph.width + kColumnGap;
  OpGraph folded = graph;
  std::vector<size_t> node_column(graph.nodes.size());
  for (size_t i = 0; i < folded.nodes.size(); ++i) {
    OpNode& n = folded.nodes[i];
    node_column[i] = column_of(n.y);
    n.x += float(node_column[i]) * pitch;
    n.y -= cuts[node_column[i]];
  }
  for (OpEdge& e : folded.edges) {
    const size_t column = node_column[e.from];
    if (column != node_column[e.to]) {
      e.folded = true;
      e.points.clear();
      continue;
    }
    for (size_t p = 0; p + 1 < e.points.size(); p += 2) {
      e.points[p] += float(column) * pitch;
      e.points[p + 1] -= cuts[column];
    }
  }
  float tallest = 0;
  for (size_t c = 0; c + 1 < cuts.size(); ++c) tallest = std::max(tallest, cuts[c + 1] - cuts[c]);
  folded.width = float(cuts.size() - 1) * pitch - kColumnGap;
  folded.height = tallest;
  if (columns != nullptr) *columns = cuts.size() - 1;
  return folded;
}

}  // namespace etkit::gui
