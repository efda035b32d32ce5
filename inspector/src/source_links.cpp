#include "etkit/inspector/source_links.h"

namespace etkit::inspector {

std::string innermost_module(const std::vector<etrecord::ModuleFrame>& stack) {
  if (stack.empty()) return std::string();
  const etrecord::ModuleFrame& frame = stack.back();
  const size_t dot = frame.type.rfind('.');
  const std::string type = dot == std::string::npos ? frame.type : frame.type.substr(dot + 1);
  return (frame.path.empty() ? std::string("<root>") : frame.path) + " (" + type + ")";
}

std::vector<std::string> op_list(const EventBlock& block) {
  std::vector<std::string> ops;
  for (const Event& event : block.events) {
    if (event.instruction_id < 0 || event.name == "OPERATOR_CALL" || event.name == "DELEGATE_CALL") continue;
    if (event.op_types.empty()) {
      ops.push_back(event.name);
    } else {
      ops.insert(ops.end(), event.op_types.begin(), event.op_types.end());
    }
  }
  return ops;
}

LinkReport link_etrecord(std::vector<EventBlock>& blocks, const etrecord::Etrecord& record,
                         const std::string& method) {
  LinkReport report;
  const etrecord::MethodRecord* m = record.method(method);
  for (EventBlock& block : blocks) {
    for (Event& event : block.events) {
      if (event.instruction_id < 0) continue;
      std::vector<int64_t> handles;
      if (event.is_delegated_op) {
        const std::string id = event.delegate_debug_id_int
                                   ? std::to_string(*event.delegate_debug_id_int)
                                   : event.delegate_debug_id_str.value_or(event.name);
        handles = record.delegate_handles(method, event.instruction_id, id);
      } else {
        handles = record.instruction_handles(method, event.instruction_id);
      }
      event.debug_handles = handles;
      bool any = false;
      if (m != nullptr && m->has_graph) {
        std::vector<std::string> op_types;
        for (int64_t handle : handles) {
          const etrecord::GraphNode* node = m->graph.find(handle);
          if (node == nullptr) continue;
          any = true;
          op_types.push_back(node->target);
          if (!node->stack_trace.empty()) event.stack_traces.emplace_back(node->name, node->stack_trace);
          if (!node->module_stack.empty()) event.module_hierarchy.emplace_back(node->name, node->module_stack);
        }
        if (any) event.op_types = std::move(op_types);
      }
      if (any) ++report.linked;
      else ++report.unmatched;
    }
  }
  return report;
}

}  // namespace etkit::inspector
