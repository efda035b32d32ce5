#pragma once
// How a payload's nodes run: steps in node order, each either one XNNPACK
// runtime (consecutive XNNPACK nodes, or a single node when traced) or one
// node on etkit's portable kernels. Pure: no XNNPACK calls.

#include <cstdint>
#include <vector>

#include "etkit/delegates/xnnpack/xnn_support.h"

namespace etkit::xnnpack {

struct PlanStep {
  NodeRunner runner = NodeRunner::kXnnpack;
  std::vector<uint32_t> nodes;  ///< node indices, in order
};

/// Splits the graph into steps; `per_node` gives every node its own step
/// (what a traced run needs, since this XNNPACK reports no per-operator
/// times), except that a Clamp stays with the node whose output only it
/// reads: XNNPACK fuses the pair into one operator, so the traced run
/// computes what the untraced one does and times it as XNNPACK's own
/// profiler would (one operator).
std::vector<PlanStep> plan_steps(const XnnGraph& graph, bool per_node);

/// Per value: 1 when it needs a buffer of etkit's, because it is a
/// delegate input or output, or one step writes it and another reads it.
std::vector<uint8_t> boundary_values(const XnnGraph& graph, const std::vector<PlanStep>& steps);

}  // namespace etkit::xnnpack
