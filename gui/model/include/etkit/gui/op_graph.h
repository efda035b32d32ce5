#pragma once
/// @file
/// The graph view's model: a method's operators and the tensors between
/// them, from the ETRecord's edge graph (or, without one, from the
/// program's instructions), delegated ops collapsed into their backend's
/// call or shown one by one, each node carrying what the trace and the
/// gap measured, laid out by Graphviz's dot once (never per frame).

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/program_summary.h"
#include "etkit/core/result.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/file_size.h"
#include "etkit/inspector/gap_report.h"

namespace etkit::gui {

struct OpNode {
  std::string label;  ///< what the box shows: "convolution", "XnnpackBackend (52 ops)"
  std::string name;   ///< graph node name, or "instruction N"
  std::string detail; ///< target op and innermost module, for the tooltip
  int32_t instruction = -1;   ///< chain-0 instruction that runs it; -1 when none does
  std::string backend;        ///< set for delegated ops and delegate calls
  size_t members = 1;         ///< ops inside a collapsed delegate call or a module group
  std::vector<int64_t> handles;  ///< debug handles (with an ETRecord)
  /// The modules (their paths, "features", "features.3", …) the op was made
  /// in, outermost first, the model itself left out; with their types.
  std::vector<std::string> modules, module_types;
  /// Set on a node standing for a whole module (group_by_module): its path,
  /// and the instructions of every op in it.
  std::string module_group;
  std::vector<int32_t> group_instructions;
  // What was measured; NaN when unknown.
  double latency_ms = std::numeric_limits<double>::quiet_NaN();   ///< average per run, in OpGraph::latency_block
  /// Per OpGraph::phases: its average per run in that block (NaN: none).
  std::vector<double> phase_latency_ms;
  double output_bytes = std::numeric_limits<double>::quiet_NaN(); ///< planned bytes of its output
  double gap = std::numeric_limits<double>::quiet_NaN();          ///< relative error vs the reference
  /// Constant bytes it reads (weights); a collapsed delegate call: its
  /// processed blob, where the backend keeps its constants.
  double constant_bytes = std::numeric_limits<double>::quiet_NaN();
  // Layout (Graphviz points, y growing down), set by layout_op_graph.
  float x = 0, y = 0, w = 0, h = 0;  ///< centre and size
};

struct OpEdge {
  size_t from = 0, to = 0;
  std::vector<float> points;  ///< x, y pairs of the spline's cubic Bézier control points
  /// Set by fold_into_columns on an edge from one column to another: the
  /// view draws its two ends, not a line across the drawing.
  bool folded = false;
  /// The tensor it carries, "1×16×24×24" ("?" a symbolic size), when the
  /// ETRecord's graph or the program's plan gives it.
  std::string shape;
};

struct OpGraph {
  std::vector<OpNode> nodes;
  std::vector<OpEdge> edges;
  std::string source;        ///< "ETRecord" or "instructions"
  std::string latency_block; ///< the event block latencies come from ("Execute", "Decode", …); empty: none
  /// Every block a latency can come from, latency_block first (a generate
  /// trace: Decode, then Prefill): the view's phase picker.
  std::vector<std::string> phases;
  bool delegates_collapsed = true;
  float width = 0, height = 0;  ///< of the laid-out drawing
  bool laid_out = false;        ///< set by layout_op_graph
  double layout_seconds = 0;
};

/// A method's graphs: delegate calls collapsed, and expanded into their ops
/// when there are any; or, when there is none, why.
struct OpGraphs {
  std::optional<OpGraph> collapsed, expanded;
  std::string problem;
};

/// Builds the graph of `method` (chain 0) from `record`'s edge graph when it
/// has one for `method_name`, else from the instructions; fails when there
/// is neither. `collapse_delegates` puts every op of a delegate call into
/// one node of its backend.
Result<OpGraph> build_op_graph(const MethodSummary* method, const etrecord::Etrecord* record,
                               const std::string& method_name, bool collapse_delegates);

/// Sets each node's latency (the first "Execute" block's averages, in
/// `unit_ms` milliseconds per unit), output bytes, constant bytes (from
/// `constants`, the program's constant values; may be empty) and gap.
void annotate_op_graph(OpGraph& graph, const MethodSummary* method, const std::vector<inspector::EventBlock>& blocks,
                       double unit_ms, const inspector::GapReport* gap,
                       const std::vector<inspector::ValueConstant>& constants);

/// Lays the graph out top to bottom with Graphviz's dot (`label_width`
/// gives a label's width in points). Graphviz is not thread-safe: calls are
/// serialized. Fails when etkit was built without Graphviz.
Status layout_op_graph(OpGraph& graph, float (*label_width)(const std::string&));

/// Lays out both graphs (layout_op_graph); a failure drops them and says
/// why in `problem`.
void layout_op_graphs(OpGraphs& graphs, float (*label_width)(const std::string&));

/// `node`'s latency in `graph.phases[phase]` (NaN when it has none there,
/// or `phase` is out of range).
double phase_latency(const OpNode& node, size_t phase);

/// A laid-out graph much taller than a view of `aspect` (width / height)
/// cut between ranks into side-by-side columns, as many as bring the whole
/// nearest that aspect, so a view fitting it is filled (a 150-op chain was
/// a 20-pixel column). Nodes, and the edges within a column, move with
/// their column; an edge between columns is `folded`. A graph the aspect
/// does not ask to fold, or without a place to cut, comes back as it is;
/// `columns` (if given) says how many it has.
OpGraph fold_into_columns(const OpGraph& graph, float aspect, size_t* columns = nullptr);

/// The index of the node drawn at (x, y) in layout coordinates, or -1.
int64_t node_at(const OpGraph& graph, float x, float y);

}  // namespace etkit::gui
