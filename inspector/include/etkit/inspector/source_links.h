#pragma once
/// @file
/// Links runtime events to the model through an ETRecord: debug handles per
/// instruction (or per delegate debug id), then the graph nodes' op types,
/// stack traces and module hierarchy, as upstream's Inspector does.

#include <string>
#include <vector>

#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::inspector {

struct LinkReport {
  size_t linked = 0;      ///< events that got at least one graph node
  size_t unmatched = 0;   ///< events with an instruction id but no node
};

/// How well `record` fits a trace: link_etrecord on the first "Execute"
/// block that has instruction events (all runs of one program share its
/// instructions), where a kernel event linked to nodes of another op
/// ("native_call_relu.out" to aten.convolution) counts as unmatched. A
/// record of another program links few events, or links them to the wrong
/// ops.
LinkReport record_fit(const GroupedEvents& grouped, const etrecord::Etrecord& record, const std::string& method);

/// Annotates every event of `blocks` that has an instruction id with the
/// handles and nodes of `method` in `record`. Events outside the record
/// keep empty fields and are counted as unmatched.
LinkReport link_etrecord(std::vector<EventBlock>& blocks, const etrecord::Etrecord& record,
                         const std::string& method);
/// The same for one block.
LinkReport link_etrecord(EventBlock& block, const etrecord::Etrecord& record, const std::string& method);
/// The same for one event; true when it reached a graph node.
bool link_event(Event& event, const etrecord::Etrecord& record, const std::string& method);

/// What a table attaches to each block it shows: the backends of delegate
/// events from the program's method, graph nodes from the ETRecord. Both
/// borrowed, either may be null.
struct BlockContext {
  const MethodSummary* method = nullptr;
  const etrecord::Etrecord* record = nullptr;
  std::string record_method = "forward";
};

/// annotate_backends() and link_etrecord() on `block`: what `etinspect
/// table` and the GUI do to every block. The report is empty without a
/// record.
LinkReport annotate_block(EventBlock& block, const BlockContext& context);

/// The operators a block ran, in order: each operator or delegated-op
/// event's op types when linked to an ETRecord, else its event name
/// (OPERATOR_CALL, DELEGATE_CALL and method-level events are not ops).
std::vector<std::string> op_list(const EventBlock& block);

/// The innermost module of a node's stack as "path (Type)", or "".
std::string innermost_module(const std::vector<etrecord::ModuleFrame>& stack);

}  // namespace etkit::inspector
