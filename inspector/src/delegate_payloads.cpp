#include "etkit/inspector/delegate_payloads.h"

#include "etkit/core/backend.h"
#include "etkit/core/program.h"
#include "etkit/core/program_summary.h"
#include "etkit/delegates/xnnpack/xnn_support.h"

namespace etkit::inspector {
namespace {

const char* runner_name(xnnpack::NodeRunner runner) {
  switch (runner) {
    case xnnpack::NodeRunner::kXnnpack: return "xnnpack";
    case xnnpack::NodeRunner::kPortable: return "portable";
    case xnnpack::NodeRunner::kDynamicQuant: return "etkit-qd8";
    case xnnpack::NodeRunner::kUnsupported: break;
  }
  return "unsupported";
}

void describe_graph(const xnnpack::XnnGraph& graph, DelegatePayloadSummary& out) {
  out.version = graph.version;
  out.has_header = graph.has_header;
  out.node_count = graph.nodes.size();
  out.value_count = graph.values.size();
  for (const xnnpack::GraphValue& value : graph.values) out.constant_bytes += value.constant.size;
  for (uint32_t i = 0; i < graph.nodes.size(); ++i) {
    const xnnpack::GraphNode& node = graph.nodes[i];
    const std::string kind = xnnpack::node_kind_name(node.kind);
    const xnnpack::NodeRunner runner = xnnpack::node_runner(graph, node);
    bool counted = false;
    for (DelegateNodeTypeCount& type : out.node_types) {
      if (type.kind == kind && type.runs_on == runner_name(runner)) ++type.count, counted = true;
    }
    if (!counted) out.node_types.push_back({kind, 1, runner_name(runner)});
    if (runner == xnnpack::NodeRunner::kPortable) {
      out.portable_nodes.push_back({i, kind, node.debug_handle,
                                    xnnpack::portable_kernel_of(node.kind)});
    }
  }
  for (const xnnpack::GraphValue& value : graph.values) {
    const std::string kind = xnnpack::value_kind(value);
    bool counted = false;
    for (DelegateValueKindCount& entry : out.value_kinds) {
      if (entry.kind == kind) ++entry.count, counted = true;
    }
    if (!counted) out.value_kinds.push_back({kind, 1});
  }
  out.unsupported = xnnpack::unsupported_reason(graph);
}

}  // namespace

std::vector<DelegatePayloadSummary> summarize_delegate_payloads(const Program& program,
                                                                const ProgramSummary& summary) {
  std::vector<DelegatePayloadSummary> summaries;
  BackendInitContext context;
  context.program = &program;
  const auto named = [&context](const std::string& key) { return find_named_data(context, key); };
  for (const MethodSummary& method : summary.methods) {
    for (size_t d = 0; d < method.delegates.size(); ++d) {
      const DelegateSummary& delegate = method.delegates[d];
      if (delegate.backend_id != "XnnpackBackend") continue;
      DelegatePayloadSummary out;
      out.method = method.name;
      out.delegate_index = d;
      out.backend_id = delegate.backend_id;
      const ByteSpan blob = delegate.location == "inline"
                                ? program.inline_delegate_data(delegate.index)
                                : (delegate.index < program.segment_count()
                                       ? program.segment(delegate.index)
                                       : ByteSpan{});
      auto graph = xnnpack::read_xnn_graph(blob, named);
      if (graph.ok()) {
        describe_graph(*graph, out);
      } else {
        out.error = graph.error().message();
      }
      summaries.push_back(std::move(out));
    }
  }
  return summaries;
}

}  // namespace etkit::inspector
