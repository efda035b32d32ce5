#pragma once
/// @file
/// The nodes of a serialized edge program (torch.export's JSON schema) that
/// the Inspector links runtime events to: target op, debug handle, stack
/// trace, module stack and source function.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "etkit/core/result.h"

namespace etkit::etrecord {

/// One entry of a node's nn_module_stack: the exporter's key, the module's
/// qualified path in the model ("" for the root) and its Python type.
struct ModuleFrame {
  std::string key;
  std::string path;
  std::string type;
};

struct GraphNode {
  std::string name;    ///< the node's output name
  std::string target;  ///< e.g. "aten.convolution.default" (dialect prefix removed)
  std::vector<std::string> inputs;  ///< names of tensor inputs
  int64_t debug_handle = -1;        ///< -1 when the node has none
  std::string stack_trace;
  std::vector<ModuleFrame> module_stack;  ///< outermost first
  std::string source_fn;
  /// The sizes of the node's output tensor (graph.tensor_values), -1 for a
  /// symbolic size; absent when the graph does not give them.
  std::optional<std::vector<int64_t>> output_sizes;
};

struct EdgeGraph {
  std::vector<GraphNode> nodes;
  /// Every node carrying a debug handle, in graph order: upstream's passes
  /// give the nodes they derive from one node its handle (a view and the
  /// expand after it), and upstream's Inspector links an event to all of them.
  std::unordered_map<int64_t, std::vector<size_t>> nodes_by_handle;

  /// The first node with `debug_handle`, or null.
  const GraphNode* find(int64_t debug_handle) const;
  /// All nodes with `debug_handle`, in graph order.
  std::vector<const GraphNode*> find_all(int64_t debug_handle) const;
};

/// Parses the JSON of a serialized ExportedProgram, with the nodes of the
/// lowered modules its delegate calls hold (their original programs, where
/// the delegated nodes and their debug handles are). `warnings` receives
/// problems that leave the rest usable (a node without a target, an
/// unparsable debug handle). Python's json writes non-finite floats as
/// NaN, Infinity and -Infinity (upstream's serialized graphs hold them,
/// e.g. attention masks' fill values); they are read as strings.
Result<EdgeGraph> parse_edge_graph(const std::string& json_text, const std::string& where,
                                   std::vector<std::string>& warnings);

/// "key,path,type;key,path,type" as torch.export serializes nn_module_stack.
std::vector<ModuleFrame> parse_module_stack(const std::string& text);

/// The innermost "File ..., line N" frame of a stack trace that is the
/// user's code, as "file:N": frames inside PyTorch's own package (its
/// modules' forward methods, which torch.export records innermost) are
/// passed over, unless every frame is one. "" when there is none.
std::string innermost_source_line(const std::string& stack_trace);

}  // namespace etkit::etrecord
