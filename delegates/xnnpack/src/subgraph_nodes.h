#pragma once
// Defines one graph node into an XNNPACK subgraph.

#include <xnnpack.h>

#include <functional>

#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::xnnpack {

/// Value index → the subgraph's id for it (XNN_INVALID_VALUE_ID for kNoValue).
using SubgraphIds = std::function<uint32_t(uint32_t value)>;

/// Defines `node`; a clamp range on a kind whose XNNPACK node takes none
/// becomes a clamp node after it, through a value defined here.
xnn_status define_node(xnn_subgraph_t subgraph, const XnnGraph& graph, const GraphNode& node,
                       const SubgraphIds& id);

}  // namespace etkit::xnnpack
