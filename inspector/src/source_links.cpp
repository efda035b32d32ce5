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
  if (m == nullptr) return false;
  // A delegate call's events (the call and the ops inside it) take the
  // backend its delegate_map entry names, as upstream's Inspector does,
  // unless the program already named it.
  if (event.delegate_backend_name.empty() && m->handles_by_instruction.count(event.instruction_id) > 0) {
    if (auto d = m->delegates_by_instruction.find(event.instruction_id); d != m->delegates_by_instruction.end()) {
      event.delegate_backend_name = d->second.backend;
    }
  }
  if (!m->has_graph) return false;
  bool any = false;
  std::vector<std::string> op_types;
  for (int64_t handle : event.debug_handles) {
    for (const etrecord::GraphNode* node : m->graph.find_all(handle)) {
      any = true;
      op_types.push_back(node->target);
      if (!node->stack_trace.empty()) event.stack_traces.emplace_back(node->name, node->stack_trace);
      if (!node->module_stack.empty()) event.module_hierarchy.emplace_back(node->name, node->module_stack);
    }
  }
  if (any) event.op_types = std::move(op_types);
  return any;
}

LinkReport link_etrecord(EventBlock& block, const etrecord::Etrecord& record, const std::string& method) {
  LinkReport report;
  for (Event& event : block.events) {
    if (event.instruction_id < 0) continue;
    const bool linked = link_event(event, record, method);
    // A delegate call is no edge graph node (its nodes are the delegated
    // events'), so it links when the record maps it and is not missed when not.
    if (linked) ++report.linked;
    else if (event.name != "DELEGATE_CALL") ++report.unmatched;
  }
  return report;
}

namespace {

// The op a name stands for, without namespace, overload and the "_copy"
// of out-variant views: "native_call_view_copy.out" and "aten.view.default"
// are both "view".
std::string op_stem(std::string name) {
  if (name.rfind("native_call_", 0) == 0) name.erase(0, 12);
  const size_t last_dot = name.rfind('.');
  if (last_dot != std::string::npos) name.erase(last_dot);
  const size_t scope = name.find_last_of(".:");
  if (scope != std::string::npos) name.erase(0, scope + 1);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, "_copy") == 0) name.erase(name.size() - 5);
  return name;
}

// Whether a linked kernel event's graph nodes compute its op (an edge
// lowering such as t -> permute_copy does not; a record of another program
// mostly does not).
bool same_op(const Event& event) {
  const std::string stem = op_stem(event.name);
  for (const std::string& target : event.op_types) {
    if (op_stem(target) == stem) return true;
  }
  return false;
}

}  // namespace

LinkReport record_fit(const GroupedEvents& grouped, const etrecord::Etrecord& record, const std::string& method) {
  EventBlock block;
  for (size_t b = 0; b < grouped.block_count(); ++b) {
    grouped.block_into(b, block);
    if (block.name != "Execute") continue;
    link_etrecord(block, record, method);
    // Operator and delegated-op events only (OPERATOR_CALL and DELEGATE_CALL
    // link through the same instruction and would count twice); one linked
    // to a node of another op counts as not linked.
    LinkReport report;
    for (const Event& event : block.events) {
      if (event.instruction_id < 0 || event.name == "OPERATOR_CALL" || event.name == "DELEGATE_CALL") continue;
      const bool kernel = event.name.rfind("native_call_", 0) == 0;
      if (!event.op_types.empty() && (!kernel || same_op(event))) ++report.linked;
      else ++report.unmatched;
    }
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

LinkReport annotate_block(EventBlock& block, const BlockContext& context) {
  if (context.method != nullptr) annotate_backends(block, *context.method);
  if (context.record == nullptr) return {};
  return link_etrecord(block, *context.record, context.record_method);
}

}  // namespace etkit::inspector
