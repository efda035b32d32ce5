#pragma once
/// @file
/// The graph view's module hierarchy, as Netron and Model Explorer show
/// it: the ops of a module drawn as one node until the reader opens it, so
/// a 150-op network reads as its 20 blocks first.

#include <cstddef>
#include <set>
#include <string>

#include "etkit/gui/op_graph.h"

namespace etkit::gui {

/// `graph` with each module `depth` deep (1: the model's children, 2:
/// theirs, …) drawn as one node, except modules in `open`, whose ops are
/// grouped one level deeper (and so on). An op made in no module that deep
/// stays itself, and so does the only op of a module. A group sums its
/// ops' latencies, constant bytes and runs, takes its last op's output
/// bytes and its ops' largest gap. Edges join what their ops joined, with
/// the tensors' shapes; edges inside a group go. Depth 0: `graph` as it
/// is. The result is not laid out.
OpGraph group_by_module(const OpGraph& graph, size_t depth, const std::set<std::string>& open = {});

/// How deep the graph's ops are nested in modules (0: none carries one).
size_t module_depth(const OpGraph& graph);

}  // namespace etkit::gui
