// layout_op_graph with Graphviz's dot (Debian's libgvc). Node sizes are
// ours (the canvas draws the labels); Graphviz places boxes and routes the
// edges as splines.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "etkit/gui/op_graph.h"

#ifdef ETKIT_HAVE_GRAPHVIZ
#include <gvc.h>
#endif

namespace etkit::gui {

#ifdef ETKIT_HAVE_GRAPHVIZ
namespace {

// Graphviz keeps global state: one layout at a time in the process.
std::mutex& graphviz_mutex() {
  static std::mutex mutex;
  return mutex;
}

void set(void* object, const char* name, const std::string& value) {
  agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

std::string inches(float points) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", double(points) / 72.0);
  return text;
}

// Lays out nodes [begin, end) and the edges between them, the piece's top
// at `top`; returns the piece's width and height.
Result<std::pair<float, float>> layout_piece(GVC_t* context, OpGraph& graph, size_t begin, size_t end, float top) {
  Agraph_t* g = agopen(const_cast<char*>("ops"), Agdirected, nullptr);
  set(g, "rankdir", "TB");
  set(g, "nodesep", "0.25");
  set(g, "ranksep", "0.35");
  std::vector<Agnode_t*> nodes;
  for (size_t i = begin; i < end; ++i) {
    const OpNode& op = graph.nodes[i];
    Agnode_t* n = agnode(g, const_cast<char*>(("n" + std::to_string(i)).c_str()), 1);
    set(n, "shape", "box");
    set(n, "fixedsize", "true");
    set(n, "label", "");
    set(n, "width", inches(op.w));
    set(n, "height", inches(op.h));
    nodes.push_back(n);
  }
  std::vector<std::pair<OpEdge*, Agedge_t*>> edges;
  for (OpEdge& e : graph.edges) {
    if (e.from < begin || e.from >= end || e.to < begin || e.to >= end) continue;
    edges.push_back({&e, agedge(g, nodes[e.from - begin], nodes[e.to - begin], nullptr, 1)});
  }
  if (gvLayout(context, g, "dot") != 0) {
    agclose(g);
    return Error::make(ErrorCode::kInternal, "Graphviz could not lay out the graph (%zu nodes)", end - begin);
  }
  const boxf box = GD_bb(g);
  const auto x_of = [&](double x) { return float(x - box.LL.x); };
  const auto y_of = [&](double y) { return top + float(box.UR.y - y); };  // Graphviz's y grows up
  for (size_t i = begin; i < end; ++i) {
    graph.nodes[i].x = x_of(ND_coord(nodes[i - begin]).x);
    graph.nodes[i].y = y_of(ND_coord(nodes[i - begin]).y);
  }
  for (auto& [edge, drawn] : edges) {
    edge->points.clear();
    const splines* spline = ED_spl(drawn);
    if (spline == nullptr || spline->size == 0) continue;
    const bezier& curve = spline->list[0];
    for (int p = 0; p < curve.size; ++p) {
      edge->points.push_back(x_of(curve.list[p].x));
      edge->points.push_back(y_of(curve.list[p].y));
    }
  }
  gvFreeLayout(context, g);
  agclose(g);
  return std::make_pair(float(box.UR.x - box.LL.x), float(box.UR.y - box.LL.y));
}

// dot's network simplex grows faster than linearly (Debian's Graphviz 2.42
// takes about a second for 1,000 ops): bigger graphs are laid out in pieces
// of consecutive ops (nodes come in execution order) stacked top to bottom;
// edges between pieces are drawn straight.
constexpr size_t kPieceNodes = 250;

}  // namespace

Status layout_op_graph(OpGraph& graph, float (*label_width)(const std::string&)) {
  const auto start = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(graphviz_mutex());
  for (OpNode& op : graph.nodes) {
    op.w = std::max(56.0f, (label_width != nullptr ? label_width(op.label) : 7.5f * float(op.label.size())) + 16);
    op.h = 26;
  }
  for (OpEdge& e : graph.edges) e.points.clear();
  GVC_t* context = gvContext();
  const size_t pieces = std::max<size_t>(1, (graph.nodes.size() + kPieceNodes - 1) / kPieceNodes);
  std::vector<std::pair<size_t, size_t>> ranges;
  std::vector<float> widths;
  float top = 0, width = 0;
  for (size_t p = 0; p < pieces; ++p) {
    const size_t begin = graph.nodes.size() * p / pieces, end = graph.nodes.size() * (p + 1) / pieces;
    auto size = layout_piece(context, graph, begin, end, top);
    if (!size.ok()) {
      gvFreeContext(context);
      return size.error();
    }
    ranges.push_back({begin, end});
    widths.push_back(size->first);
    width = std::max(width, size->first);
    top += size->second + (p + 1 < pieces ? 36 : 0);
  }
  gvFreeContext(context);
  // Pieces centred on one axis.
  for (size_t p = 0; p < ranges.size(); ++p) {
    const float shift = (width - widths[p]) / 2;
    for (size_t i = ranges[p].first; i < ranges[p].second; ++i) graph.nodes[i].x += shift;
    for (OpEdge& e : graph.edges) {
      if (e.from < ranges[p].first || e.from >= ranges[p].second || e.points.empty()) continue;
      for (size_t k = 0; k < e.points.size(); k += 2) e.points[k] += shift;
    }
  }
  graph.width = width;
  graph.height = top;
  graph.layout_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  graph.laid_out = true;
  return Ok{};
}

#else

Status layout_op_graph(OpGraph& graph, float (*label_width)(const std::string&)) {
  (void)graph;
  (void)label_width;
  return Error::make(ErrorCode::kUnsupported,
                     "the graph view needs Graphviz: install libgraphviz-dev (scripts/install-deps) and rebuild");
}

#endif

void layout_op_graphs(OpGraphs& graphs, float (*label_width)(const std::string&)) {
  for (std::optional<OpGraph>* graph : {&graphs.collapsed, &graphs.expanded}) {
    if (!*graph) continue;
    if (Status laid = layout_op_graph(**graph, label_width); !laid.ok()) {
      graphs = OpGraphs{std::nullopt, std::nullopt, laid.error().message()};
      return;
    }
  }
}

}  // namespace etkit::gui
