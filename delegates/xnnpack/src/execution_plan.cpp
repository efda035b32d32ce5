#include "execution_plan.h"

namespace etkit::xnnpack {

namespace {

// How many node inputs read each value (delegate outputs count as readers).
std::vector<uint32_t> reader_counts(const XnnGraph& graph) {
  std::vector<uint32_t> readers(graph.values.size(), 0);
  for (const GraphNode& node : graph.nodes) {
    for (uint32_t v : node.inputs) {
      if (v < readers.size()) ++readers[v];
    }
  }
  for (uint32_t v : graph.outputs) {
    if (v < readers.size()) ++readers[v];
  }
  return readers;
}

// Producers XNNPACK folds a following clamp into (their output range),
// one operator in its own profile. Elementwise producers are left apart:
// upstream's traces show their clamps as operators of their own.
bool absorbs_clamp(NodeKind kind) {
  return kind == NodeKind::kConv2d || kind == NodeKind::kDepthwiseConv2d || kind == NodeKind::kFullyConnected ||
         kind == NodeKind::kConvTranspose2d;
}

// A Clamp whose input the step's last node writes and nothing else reads.
bool fuses_into(const XnnGraph& graph, const PlanStep& step, const GraphNode& node,
                const std::vector<uint32_t>& readers) {
  if (node.kind != NodeKind::kClamp || node.inputs.empty() || step.runner != NodeRunner::kXnnpack) return false;
  const GraphNode& producer = graph.nodes[step.nodes.back()];
  const uint32_t v = node.inputs[0];
  return absorbs_clamp(producer.kind) && producer.outputs.size() == 1 && producer.outputs[0] == v &&
         v < readers.size() && readers[v] == 1;
}

}  // namespace

std::vector<PlanStep> plan_steps(const XnnGraph& graph, bool per_node) {
  std::vector<PlanStep> steps;
  const std::vector<uint32_t> readers = per_node ? reader_counts(graph) : std::vector<uint32_t>{};
  for (uint32_t n = 0; n < graph.nodes.size(); ++n) {
    const NodeRunner runner = node_runner(graph, graph.nodes[n]);
    const bool same_runtime = !steps.empty() && runner == NodeRunner::kXnnpack &&
                              steps.back().runner == NodeRunner::kXnnpack;
    const bool extends = same_runtime && (!per_node || fuses_into(graph, steps.back(), graph.nodes[n], readers));
    if (!extends) steps.push_back({runner, {}});
    steps.back().nodes.push_back(n);
  }
  return steps;
}

std::vector<uint8_t> boundary_values(const XnnGraph& graph, const std::vector<PlanStep>& steps) {
  constexpr uint32_t kNoStep = UINT32_MAX;
  std::vector<uint32_t> producer(graph.values.size(), kNoStep);
  std::vector<uint8_t> boundary(graph.values.size(), 0);
  for (uint32_t v : graph.inputs) boundary[v] = 1;
  for (uint32_t v : graph.outputs) boundary[v] = 1;
  for (uint32_t s = 0; s < steps.size(); ++s) {
    for (uint32_t n : steps[s].nodes) {
      const GraphNode& node = graph.nodes[n];
      for (uint32_t v : node.inputs) {
        if (v == kNoValue || graph.values[v].constant.size > 0) continue;
        if (producer[v] != s) boundary[v] = 1;
      }
      for (uint32_t v : node.outputs) producer[v] = s;
    }
  }
  // An output no node reads and no one receives (ArgMaxPooling's unused
  // indices, a node left dead) gets etkit's buffer too: XNNPACK plans no
  // memory for it and asserts when its operator is set up.
  std::vector<uint8_t> read(graph.values.size(), 0);
  for (const GraphNode& node : graph.nodes) {
    for (uint32_t v : node.inputs) {
      if (v != kNoValue) read[v] = 1;
    }
  }
  for (const GraphNode& node : graph.nodes) {
    for (uint32_t v : node.outputs) {
      if (!read[v]) boundary[v] = 1;
    }
  }
  // Portable and dynamic-quantization steps read and write their values
  // through etkit's buffers.
  for (const PlanStep& step : steps) {
    if (step.runner != NodeRunner::kPortable && step.runner != NodeRunner::kDynamicQuant) continue;
    for (uint32_t n : step.nodes) {
      for (uint32_t v : graph.nodes[n].outputs) boundary[v] = 1;
    }
  }
  return boundary;
}

}  // namespace etkit::xnnpack
