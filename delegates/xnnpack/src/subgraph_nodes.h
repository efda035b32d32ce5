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

/// Defines a value of `graph` with its datatype and quantization (per
/// tensor or per channel), over `dims` (its own, or a reshaped view).
xnn_status define_value(xnn_subgraph_t subgraph, const GraphValue& value, const std::vector<size_t>& dims,
                        const void* data, uint32_t external_id, uint32_t flags, uint32_t* id_out);

/// Whether `value` is the per-channel int8 filter of a static-quantized
/// fully connected node, which this XNNPACK refuses: such a node becomes a
/// 1×1 convolution, and its filter is defined as [N, 1, 1, K].
bool is_pointwise_filter(const XnnGraph& graph, uint32_t value);

}  // namespace etkit::xnnpack
