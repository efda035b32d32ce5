#include "subgraph_builder.h"

#include <unordered_map>

#include "subgraph_nodes.h"

namespace etkit::xnnpack {
namespace {

Error xnn_error(xnn_status status, const char* what, const XnnGraph& graph, const PlanStep& step) {
  const GraphNode& first = graph.nodes[step.nodes.front()];
  return Error::make(ErrorCode::kUnsupported,
                     "XNNPACK %s failed (status %d) for the step starting at node %u (%s, debug "
                     "handle %u)",
                     what, static_cast<int>(status), step.nodes.front(),
                     node_kind_name(first.kind), first.debug_handle);
}

// Owns a subgraph until the runtime is made from it.
struct SubgraphHolder {
  xnn_subgraph_t subgraph = nullptr;
  ~SubgraphHolder() {
    if (subgraph != nullptr) xnn_delete_subgraph(subgraph);
  }
};

// The values a step's nodes read or write, in first-use order, and which
// of them (by graph value) the step writes.
void list_step_values(const XnnGraph& graph, const PlanStep& step, std::vector<uint32_t>& used,
                      std::vector<uint8_t>& written) {
  std::vector<uint8_t> seen(graph.values.size(), 0);
  written.assign(graph.values.size(), 0);
  for (uint32_t n : step.nodes) {
    for (uint32_t v : graph.nodes[n].inputs) {
      if (v != kNoValue && !seen[v]) seen[v] = 1, used.push_back(v);
    }
    for (uint32_t v : graph.nodes[n].outputs) {
      if (!seen[v]) seen[v] = 1, used.push_back(v);
      written[v] = 1;
    }
  }
}

}  // namespace

Result<xnn_runtime_t> create_step_runtime(const XnnGraph& graph, const PlanStep& step,
                                          const std::vector<uint8_t>& boundary,
                                          const std::vector<void*>& buffers,
                                          pthreadpool_t threadpool) {
  // The step's values in first-use order; boundary ones become external.
  std::vector<uint32_t> used;
  std::vector<uint8_t> written;
  list_step_values(graph, step, used, written);
  uint32_t external_count = 0;
  for (uint32_t v : used) external_count += boundary[v];
  SubgraphHolder holder;
  xnn_status status = xnn_create_subgraph(external_count, 0, &holder.subgraph);
  if (status != xnn_status_success) return xnn_error(status, "subgraph creation", graph, step);
  std::unordered_map<uint32_t, uint32_t> ids;
  std::vector<xnn_external_value> externals;  // external id i is externals[i]
  for (uint32_t v : used) {
    const GraphValue& value = graph.values[v];
    uint32_t external_id = XNN_INVALID_VALUE_ID, flags = 0;
    if (boundary[v]) {
      external_id = static_cast<uint32_t>(externals.size());
      externals.push_back({external_id, buffers[v]});
      flags = written[v] ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
    }
    uint32_t id = XNN_INVALID_VALUE_ID;
    std::vector<size_t> dims = value.dims;
    if (is_pointwise_filter(graph, v) && dims.size() == 2) dims = {dims[0], 1, 1, dims[1]};
    status = define_value(holder.subgraph, value, dims, value.constant.size > 0 ? value.constant.data : nullptr,
                          external_id, flags, &id);
    if (status != xnn_status_success) return xnn_error(status, "value definition", graph, step);
    ids[v] = id;
  }
  const SubgraphIds id_of = [&ids](uint32_t v) {
    return v == kNoValue ? XNN_INVALID_VALUE_ID : ids.at(v);
  };
  for (uint32_t n : step.nodes) {
    status = define_node(holder.subgraph, graph, graph.nodes[n], id_of);
    if (status != xnn_status_success) {
      const GraphNode& node = graph.nodes[n];
      return Error::make(ErrorCode::kUnsupported,
                         "XNNPACK rejects node %u (%s, debug handle %u): status %d", n,
                         node_kind_name(node.kind), node.debug_handle, static_cast<int>(status));
    }
  }
  xnn_runtime_t runtime = nullptr;
  status = xnn_create_runtime_v2(holder.subgraph, threadpool, 0, &runtime);
  if (status != xnn_status_success) return xnn_error(status, "runtime creation", graph, step);
  status = xnn_setup_runtime(runtime, externals.size(), externals.data());
  if (status != xnn_status_success) {
    xnn_delete_runtime(runtime);
    return xnn_error(status, "runtime setup", graph, step);
  }
  return runtime;
}

}  // namespace etkit::xnnpack
