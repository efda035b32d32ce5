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

bool link_event(Event& event, const etrecord::Etrecord& record, const std::string& method) {
  if (event.instruction_id < 0) return false;
  if (event.is_delegated_op) {
    const std::string id = event.delegate_debug_id_int ? std::to_string(*event.delegate_debug_id_int)
                                                       : event.delegate_debug_id_str.value_or(event.name);
    event.debug_handles = record.delegate_handles(method, event.instruction_id, id);
  } else {
    event.debug_handles = record.instruction_handles(method, event.instruction_id);
  }
  const etrecord::MethodRecord* m = record.method(method);
  if (m == nullptr || !m->has_graph) return false;
  bool any = false;
  std::vector<std::string> op_types;
  for (int64_t handle : event.debug_handles) {
    const etrecord::GraphNode* node = m->graph.find(handle);
    if (node == nullptr) continue;
    any = true;
    op_types.push_back(node->target);
    if (!node->stack_trace.empty()) event.stack_traces.emplace_back(node->name, node->stack_trace);
    if (!node->module_stack.empty()) event.module_hierarchy.emplace_back(node->name, node->module_stack);
  }
  if (any) event.op_types = std::move(op_types);
  return any;
}

LinkReport link_etrecord(EventBlock& block, const etrecord::Etrecord& record, const std::string& method) {
  LinkReport report;
  for (Event& event : block.events) {
    if (event.instruction_id < 0) continue;
    if (link_event(event, record, method)) ++report.linked;
    else ++report.unmatched;
  }
  return report;
}

LinkReport record_fit(const GroupedEvents& grouped, const etrecord::Etrecord& record, const std::string& method) {
  EventBlock block;
  for (size_t b = 0; b < grouped.block_count(); ++b) {
    grouped.block_into(b, block);
    if (block.name != "Execute") continue;
    const LinkReport report = link_etrecord(block, record, method);
    if (report.linked + report.unmatched > 0) return report;
  }
  return LinkReport{};
}

LinkReport link_etrecord(std::vector<EventBlock>& blocks, const etrecord::Etrecord& record,
                         const std::string& method) {
  LinkReport report;
  for (EventBlock& block : blocks) {
    const LinkReport one = link_etrecord(block, record, method);
    report.linked += one.linked;
    report.unmatched += one.unmatched;
  }
  return report;
}

}  // namespace etkit::inspector
