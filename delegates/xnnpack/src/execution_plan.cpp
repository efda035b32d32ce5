#include "execution_plan.h"

namespace etkit::xnnpack {

std::vector<PlanStep> plan_steps(const XnnGraph& graph, bool per_node) {
  std::vector<PlanStep> steps;
  for (uint32_t n = 0; n < graph.nodes.size(); ++n) {
    const NodeRunner runner = node_runner(graph, graph.nodes[n]);
    const bool extends = !per_node && !steps.empty() && runner == NodeRunner::kXnnpack &&
                         steps.back().runner == NodeRunner::kXnnpack;
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
