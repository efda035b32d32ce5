#pragma once
// Output shapes a node implies, checked against the shapes the payload
// declares: XNNPACK writes what its operators compute, not what the value
// says, so a payload that lies about a shape must fail at load, not
// overrun a buffer at run time.

#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::xnnpack {

/// Checks node `index`'s input ranks and output dims.
Status check_node_shapes(const XnnGraph& graph, size_t index);

}  // namespace etkit::xnnpack
