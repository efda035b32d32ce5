#pragma once
// One XNNGraph node's parameters, read from its flatbuffer table into a
// GraphNode (ids still raw; the graph reader resolves them).

#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit_xnnpack_fb {
struct Node;
}

namespace etkit::xnnpack {

/// Kind, input and output ids, flags and parameters of `node`; fails for
/// an unknown kind or a malformed parameter list.
Result<GraphNode> node_params(const etkit_xnnpack_fb::Node& node);

}  // namespace etkit::xnnpack
