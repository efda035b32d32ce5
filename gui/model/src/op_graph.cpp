#include "etkit/gui/op_graph.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "etkit/inspector/source_links.h"

namespace etkit::gui {
namespace {

// "aten.convolution.default" / "aten::convolution.out" -> "convolution";
// other namespaces stay ("llama.custom_sdpa"): they are what a reader
// looks for. The overload (after the last dot) goes.
std::string short_label(std::string target) {
  for (const std::string prefix : {"aten.", "aten::"}) {
    if (target.rfind(prefix, 0) == 0) target = target.substr(prefix.size());
  }
  const size_t namespace_end = target.find("::");
  const size_t dot = target.rfind('.');
  if (dot != std::string::npos && (namespace_end == std::string::npos || dot > namespace_end)) target.resize(dot);
  return target;
}

// "1×16×24×24" (a symbolic size "?"), "scalar" for no dims.
std::string shape_label(const std::vector<int64_t>& sizes) {
  if (sizes.empty()) return "scalar";
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += "×";
    text += sizes[i] < 0 ? "?" : std::to_string(sizes[i]);
  }
  return text;
}

void add_edge(std::set<std::pair<size_t, size_t>>& seen, OpGraph& graph, size_t from, size_t to,
              std::string shape = {}) {
  if (from == to || !seen.insert({from, to}).second) return;
  graph.edges.push_back({from, to, {}, false, std::move(shape)});
}

// Which instruction runs a record's node: by its debug handle, through the
// delegate map or the instruction map.
class NodePlacement {
 public:
  explicit NodePlacement(const etrecord::MethodRecord& record) : record_(record) {
    // A handle's instructions in execution order: nodes sharing a handle (a
    // linear's weight transpose and its matmul, in upstream's records) are
    // emitted in graph order, so the k-th node of a handle ran as its k-th
    // instruction.
    for (const auto& [instruction, handles] : record.handles_by_instruction) {
      for (int64_t h : handles) {
        std::vector<int32_t>& list = instructions_of_handle_[h];
        if (list.empty() || list.back() != int32_t(instruction)) list.push_back(int32_t(instruction));
      }
    }
    for (const auto& [instruction, mapping] : record.delegates_by_instruction) {
      for (const auto& [id, handles] : mapping.handles_by_delegate_id) {
        (void)id;
        for (int64_t h : handles) delegate_of_handle_.emplace(h, std::make_pair(int32_t(instruction), mapping.backend));
      }
    }
  }

  // Sets the op's instruction and backend from the node's handle; false
  // when the program runs the node as no instruction (an alias of its
  // input's memory).
  bool place(const etrecord::GraphNode& node, OpNode& op) {
    if (node.debug_handle < 0) return true;
    op.handles.push_back(node.debug_handle);
    if (auto d = delegate_of_handle_.find(node.debug_handle); d != delegate_of_handle_.end()) {
      op.instruction = d->second.first;
      op.backend = d->second.second;
    } else if (auto i = instructions_of_handle_.find(node.debug_handle); i != instructions_of_handle_.end()) {
      const size_t k = nodes_seen_of_handle_[node.debug_handle]++;
      op.instruction = i->second[std::min(k, i->second.size() - 1)];
      // A delegate whose map names no nodes (upstream's XNNPACK records):
      // the handle's instruction is the call.
      if (auto call = record_.delegates_by_instruction.find(op.instruction);
          call != record_.delegates_by_instruction.end()) {
        op.backend = call->second.backend;
      }
    } else if (!record_.handles_by_instruction.empty() && !node.inputs.empty()) {
      return false;
    }
    return true;
  }

 private:
  const etrecord::MethodRecord& record_;
  std::map<int64_t, std::vector<int32_t>> instructions_of_handle_;
  std::map<int64_t, size_t> nodes_seen_of_handle_;
  std::map<int64_t, std::pair<int32_t, std::string>> delegate_of_handle_;  // handle -> (instruction, backend)
};

// An edge from each drawn node's inputs (through aliases) to it.
void connect(OpGraph& graph, const etrecord::MethodRecord& record,
             const std::unordered_map<std::string, std::string>& alias,
             const std::unordered_map<std::string, size_t>& index_of) {
  const auto resolve = [&](std::string name) {
    for (int hops = 0; hops < 64; ++hops) {
      auto a = alias.find(name);
      if (a == alias.end()) break;
      name = a->second;
    }
    auto found = index_of.find(name);
    return found == index_of.end() ? int64_t(-1) : int64_t(found->second);
  };
  std::unordered_map<std::string, const std::vector<int64_t>*> sizes_of;
  for (const etrecord::GraphNode& node : record.graph.nodes) {
    if (node.output_sizes) sizes_of[node.name] = &*node.output_sizes;
  }
  std::set<std::pair<size_t, size_t>> seen;
  for (const etrecord::GraphNode& node : record.graph.nodes) {
    auto to = index_of.find(node.name);
    if (to == index_of.end()) continue;
    for (const std::string& input : node.inputs) {
      const int64_t from = resolve(input);
      // The edge carries the input as the node reads it (a getitem's pick,
      // a view's shape), not its producer's whole output.
      const auto sizes = sizes_of.find(input);
      if (from >= 0) add_edge(seen, graph, size_t(from), to->second, sizes == sizes_of.end() ? "" : shape_label(*sizes->second));
    }
  }
}

OpGraph from_record(const etrecord::MethodRecord& record) {
  OpGraph graph;
  graph.source = "ETRecord";
  NodePlacement placement(record);
  // getitem nodes pick one output of a multi-output op, and a node the
  // program runs as no instruction (a view the emitter turned into an alias
  // of its input's memory) is its input: both drawn as what they read.
  std::unordered_map<std::string, std::string> alias;
  std::unordered_map<std::string, size_t> index_of;
  for (const etrecord::GraphNode& node : record.graph.nodes) {
    if (node.target.find("getitem") != std::string::npos && !node.inputs.empty()) {
      alias[node.name] = node.inputs.front();
      continue;
    }
    OpNode op;
    op.label = short_label(node.target);
    op.name = node.name;
    op.detail = node.target;
    const std::string module = inspector::innermost_module(node.module_stack);
    if (!module.empty()) op.detail += "\n" + module;
    for (const etrecord::ModuleFrame& frame : node.module_stack) {
      if (frame.path.empty()) continue;  // the model itself
      op.modules.push_back(frame.path);
      op.module_types.push_back(frame.type);
    }
    if (!placement.place(node, op)) {
      alias[node.name] = node.inputs.front();
      continue;
    }
    index_of[node.name] = graph.nodes.size();
    graph.nodes.push_back(std::move(op));
  }
  connect(graph, record, alias, index_of);
  return graph;
}

// Without a record: one node per kernel or delegate call of chain 0, an
// edge where an instruction reads a value an earlier one wrote. An
// instruction writes the planned tensors it is first to touch (its out
// arguments: a batch norm has three); method inputs and constants are
// written by nobody.
OpGraph from_instructions(const MethodSummary& method) {
  OpGraph graph;
  graph.source = "instructions";
  std::unordered_map<int32_t, size_t> writer;
  std::set<std::pair<size_t, size_t>> seen;
  std::set<int32_t> inputs;
  std::map<int32_t, const PlannedTensorSummary*> planned;
  for (const ValueSummary& v : method.inputs) inputs.insert(v.index);
  for (const PlannedTensorSummary& t : method.planned_tensors) planned.emplace(t.value, &t);
  for (const InstructionSummary& instruction : method.instructions) {
    if (instruction.chain != 0 || (instruction.kind != "kernel" && instruction.kind != "delegate")) continue;
    OpNode op;
    const bool delegate = instruction.kind == "delegate";
    op.label = delegate ? instruction.target : short_label(instruction.target);
    op.name = "instruction " + std::to_string(instruction.index);
    op.detail = instruction.target;
    op.instruction = instruction.index;
    if (delegate) op.backend = instruction.target;
    const size_t self = graph.nodes.size();
    graph.nodes.push_back(std::move(op));
    for (int32_t v : instruction.references) {
      if (auto w = writer.find(v); w != writer.end()) {
        const auto tensor = planned.find(v);
        add_edge(seen, graph, w->second, self, tensor == planned.end() ? "" : shape_label(tensor->second->tensor.sizes));
      }
    }
    for (int32_t v : instruction.references) {
      if (planned.count(v) && !inputs.count(v)) writer.emplace(v, self);
    }
  }
  return graph;
}

// One node per delegate call for the ops it runs.
OpGraph collapsed(const OpGraph& full) {
  OpGraph graph;
  graph.source = full.source;
  std::vector<size_t> new_index(full.nodes.size());
  std::map<int32_t, size_t> call_node;  // delegate instruction -> node
  for (size_t i = 0; i < full.nodes.size(); ++i) {
    const OpNode& op = full.nodes[i];
    if (op.backend.empty() || op.instruction < 0) {
      new_index[i] = graph.nodes.size();
      graph.nodes.push_back(op);
      continue;
    }
    auto [at, fresh] = call_node.emplace(op.instruction, graph.nodes.size());
    if (fresh) {
      OpNode call;
      call.name = "instruction " + std::to_string(op.instruction);
      call.instruction = op.instruction;
      call.backend = op.backend;
      call.members = 0;
      graph.nodes.push_back(std::move(call));
    }
    OpNode& call = graph.nodes[at->second];
    ++call.members;
    call.handles.insert(call.handles.end(), op.handles.begin(), op.handles.end());
    new_index[i] = at->second;
  }
  for (auto& [instruction, index] : call_node) {
    OpNode& call = graph.nodes[index];
    call.label = call.backend + " (" + std::to_string(call.members) + " ops)";
    call.detail = "delegate call, instruction " + std::to_string(instruction) + "\n" + std::to_string(call.members) +
                  " graph ops run by " + call.backend;
  }
  std::set<std::pair<size_t, size_t>> seen;
  for (const OpEdge& e : full.edges) add_edge(seen, graph, new_index[e.from], new_index[e.to], e.shape);
  return graph;
}

}  // namespace

Result<OpGraph> build_op_graph(const MethodSummary* method, const etrecord::Etrecord* record,
                               const std::string& method_name, bool collapse_delegates) {
  const etrecord::MethodRecord* method_record = record != nullptr ? record->method(method_name) : nullptr;
  OpGraph graph;
  if (method_record != nullptr && method_record->has_graph && !method_record->graph.nodes.empty()) {
    graph = from_record(*method_record);
    if (collapse_delegates) graph = collapsed(graph);
  } else if (method != nullptr) {
    graph = from_instructions(*method);
  } else {
    return Error::make(ErrorCode::kNotFound, "no graph for method '%s': open its program or its ETRecord",
                       method_name.c_str());
  }
  graph.delegates_collapsed = collapse_delegates;
  return graph;
}

namespace {

// The node stands for a whole delegate call (its DELEGATE_CALL event and its
// blob): a collapsed call, or any delegate node of a graph from instructions
// (they know no ops inside a call) or of one shown with calls collapsed.
bool is_delegate_call(const OpGraph& graph, const OpNode& node) {
  return !node.backend.empty() && (node.members > 1 || graph.source == "instructions" || graph.delegates_collapsed);
}

// The graph's nodes by instruction index and by debug handle.
struct NodeIndex {
  std::map<int32_t, std::vector<size_t>> by_instruction;
  std::map<int64_t, std::vector<size_t>> by_handle;
  explicit NodeIndex(const OpGraph& graph) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      if (graph.nodes[i].instruction >= 0) by_instruction[graph.nodes[i].instruction].push_back(i);
      for (int64_t h : graph.nodes[i].handles) by_handle[h].push_back(i);
    }
  }
};

// Applies `apply` to the nodes an event times: a delegated op's nodes by
// its debug handles, else the nodes of its instruction (a delegate call's
// event to the node standing for the call).
void for_event_nodes(OpGraph& graph, const NodeIndex& index, const inspector::Event& event,
                     const std::function<void(OpNode&)>& apply) {
  if (event.is_delegated_op) {
    std::set<size_t> hit;
    for (int64_t h : event.debug_handles) {
      if (auto found = index.by_handle.find(h); found != index.by_handle.end()) {
        hit.insert(found->second.begin(), found->second.end());
      }
    }
    for (size_t i : hit) {
      // A collapsed call takes its DELEGATE_CALL's time, not its ops' too.
      if (!is_delegate_call(graph, graph.nodes[i])) apply(graph.nodes[i]);
    }
    return;
  }
  if (event.instruction_id < 0) return;
  auto found = index.by_instruction.find(event.instruction_id);
  if (found == index.by_instruction.end()) return;
  for (size_t i : found->second) {
    OpNode& node = graph.nodes[i];
    if ((event.name == "DELEGATE_CALL") == is_delegate_call(graph, node)) apply(node);
  }
}

// Each node's latency per phase: the summed averages of its events in the
// first block of that name. The default, latency_ms, is Execute's (one
// run's ops), else, for a generate trace, Decode's (a token's step, what a
// generation repeats), else Prefill's.
void annotate_latency(OpGraph& graph, const NodeIndex& index, const std::vector<inspector::EventBlock>& blocks,
                      double unit_ms) {
  graph.phases.clear();
  for (OpNode& node : graph.nodes) node.phase_latency_ms.clear();
  for (const char* phase : {"Execute", "Decode", "Prefill"}) {
    const auto block = std::find_if(blocks.begin(), blocks.end(),
                                    [phase](const inspector::EventBlock& b) { return b.name == phase; });
    if (block == blocks.end()) continue;
    const size_t p = graph.phases.size();
    graph.phases.push_back(phase);
    for (OpNode& node : graph.nodes) node.phase_latency_ms.push_back(std::numeric_limits<double>::quiet_NaN());
    for (const inspector::Event& event : block->events) {
      if (!event.perf_data || event.name == "OPERATOR_CALL" || event.name == "Method::execute") continue;
      const double ms = event.perf_data->avg * unit_ms;
      for_event_nodes(graph, index, event, [ms, p](OpNode& node) {
        double& at = node.phase_latency_ms[p];
        at = std::isnan(at) ? ms : at + ms;
      });
    }
  }
  if (graph.phases.empty()) return;
  graph.latency_block = graph.phases[0];
  for (OpNode& node : graph.nodes) node.latency_ms = node.phase_latency_ms[0];
}

// Each kernel node's output bytes (its last reference's planned size) and
// the constant bytes it reads; a delegate call's node its blob's size.
void annotate_bytes(OpGraph& graph, const NodeIndex& index, const MethodSummary& method,
                    const std::vector<inspector::ValueConstant>& constants) {
  std::unordered_map<int32_t, uint64_t> planned;
  for (const PlannedTensorSummary& t : method.planned_tensors) planned[t.value] = t.bytes;
  std::unordered_map<size_t, uint64_t> constant_bytes;
  for (const inspector::ValueConstant& c : constants) {
    if (c.method == method.name) constant_bytes[c.value] = c.bytes;
  }
  for (const InstructionSummary& instruction : method.instructions) {
    auto nodes = index.by_instruction.find(instruction.index);
    if (instruction.chain != 0 || instruction.references.empty() || nodes == index.by_instruction.end()) continue;
    if (instruction.kind == "delegate") {
      // A collapsed call (or, without a record, the call itself) carries its blob.
      if (instruction.delegate_index < 0 || size_t(instruction.delegate_index) >= method.delegates.size()) continue;
      for (size_t i : nodes->second) {
        if (is_delegate_call(graph, graph.nodes[i])) {
          graph.nodes[i].constant_bytes = double(method.delegates[size_t(instruction.delegate_index)].size);
        }
      }
      continue;
    }
    if (instruction.kind != "kernel") continue;
    double reads = 0;
    for (int32_t v : instruction.references) {
      if (auto c = constant_bytes.find(size_t(v)); c != constant_bytes.end()) reads += double(c->second);
    }
    auto bytes = planned.find(instruction.references.back());
    for (size_t i : nodes->second) {
      if (bytes != planned.end()) graph.nodes[i].output_bytes = double(bytes->second);
      graph.nodes[i].constant_bytes = reads;
    }
  }
}

// Each node's largest relative error in the gap report, by debug handle
// or, without one, by instruction.
void annotate_gap(OpGraph& graph, const NodeIndex& index, const inspector::GapReport& gap) {
  for (const inspector::GapRow& row : gap.rows) {
    if (std::isnan(row.relative_error)) continue;
    std::vector<size_t> targets;
    for (int64_t h : row.handles) {
      if (auto found = index.by_handle.find(h); found != index.by_handle.end()) {
        targets.insert(targets.end(), found->second.begin(), found->second.end());
      }
    }
    if (targets.empty()) {
      if (auto found = index.by_instruction.find(row.instruction_id); found != index.by_instruction.end()) {
        targets = found->second;
      }
    }
    for (size_t i : targets) {
      OpNode& node = graph.nodes[i];
      node.gap = std::isnan(node.gap) ? row.relative_error : std::max(node.gap, row.relative_error);
    }
  }
}

}  // namespace

void annotate_op_graph(OpGraph& graph, const MethodSummary* method, const std::vector<inspector::EventBlock>& blocks,
                       double unit_ms, const inspector::GapReport* gap,
                       const std::vector<inspector::ValueConstant>& constants) {
  const NodeIndex index(graph);
  annotate_latency(graph, index, blocks, unit_ms);
  if (method != nullptr) annotate_bytes(graph, index, *method, constants);
  if (gap != nullptr) annotate_gap(graph, index, *gap);
}

double phase_latency(const OpNode& node, size_t phase) {
  return phase < node.phase_latency_ms.size() ? node.phase_latency_ms[phase] : std::numeric_limits<double>::quiet_NaN();
}

int64_t node_at(const OpGraph& graph, float x, float y) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const OpNode& n = graph.nodes[i];
    if (std::fabs(x - n.x) <= n.w / 2 && std::fabs(y - n.y) <= n.h / 2) return int64_t(i);
  }
  return -1;
}

}  // namespace etkit::gui
