#pragma once
/// @file
/// The nodes of a serialized edge program (torch.export's JSON schema) that
/// the Inspector links runtime events to: target op, debug handle, stack
/// trace, module stack and source function.

#include <cstdint>
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
};

struct EdgeGraph {
  std::vector<GraphNode> nodes;
  std::unordered_map<int64_t, size_t> node_by_handle;

  const GraphNode* find(int64_t debug_handle) const;
};

/// Parses the JSON of a serialized ExportedProgram. `warnings` receives
/// problems that leave the rest usable (a node without a target, an
/// unparsable debug handle, a duplicated handle).
Result<EdgeGraph> parse_edge_graph(const std::string& json_text, const std::string& where,
                                   std::vector<std::string>& warnings);

/// "key,path,type;key,path,type" as torch.export serializes nn_module_stack.
std::vector<ModuleFrame> parse_module_stack(const std::string& text);

/// The innermost "File ..., line N" frame of a stack trace as "file:N",
/// or "" when there is none.
std::string innermost_source_line(const std::string& stack_trace);

}  // namespace etkit::etrecord
