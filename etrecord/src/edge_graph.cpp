#include "etkit/etrecord/edge_graph.h"

#include <cctype>
#include <cstdlib>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "python_json.h"

namespace etkit::etrecord {
namespace {

using nlohmann::json;

// Dialect prefixes the serializer writes before the op's own name.
constexpr const char* kTargetPrefixes[] = {
    "executorch.exir.dialects.edge.ops.", "executorch.exir.dialects.edge._ops.",
    "executorch.exir.dialects.backend._ops.", "executorch.exir.dialects._ops.ops.",
    "torch.ops.",
};

std::string short_target(const std::string& target) {
  for (const char* prefix : kTargetPrefixes) {
    const std::string p(prefix);
    if (target.compare(0, p.size(), p) == 0) {
      return target.substr(p.size());
    }
  }
  return target;
}

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string string_member(const json& object, const char* key) {
  const json* value = member(object, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

// Names of the tensors an Argument refers to (as_tensor / as_tensors).
void collect_tensor_names(const json& argument, std::vector<std::string>& names) {
  if (const json* tensor = member(argument, "as_tensor")) {
    std::string name = string_member(*tensor, "name");
    if (!name.empty()) names.push_back(std::move(name));
  }
  if (const json* tensors = member(argument, "as_tensors"); tensors && tensors->is_array()) {
    for (const json& t : *tensors) {
      std::string name = string_member(t, "name");
      if (!name.empty()) names.push_back(std::move(name));
    }
  }
}

// debug_handle is a string ("12") in serialized metadata; some writers use
// a number.
bool parse_handle(const json& value, int64_t& handle) {
  if (value.is_number_integer()) {
    handle = value.get<int64_t>();
    return true;
  }
  if (!value.is_string()) return false;
  const std::string text = value.get<std::string>();
  char* end = nullptr;
  const long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size()) return false;
  handle = parsed;
  return true;
}

}  // namespace

const GraphNode* EdgeGraph::find(int64_t debug_handle) const {
  auto it = nodes_by_handle.find(debug_handle);
  return it == nodes_by_handle.end() ? nullptr : &nodes[it->second.front()];
}

std::vector<const GraphNode*> EdgeGraph::find_all(int64_t debug_handle) const {
  std::vector<const GraphNode*> found;
  if (auto it = nodes_by_handle.find(debug_handle); it != nodes_by_handle.end()) {
    for (size_t index : it->second) found.push_back(&nodes[index]);
  }
  return found;
}

std::vector<ModuleFrame> parse_module_stack(const std::string& text) {
  std::vector<ModuleFrame> frames;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string entry = text.substr(start, end - start);
    start = end + 1;
    // key,path,type: the key has no comma and the type has none either;
    // the path in between may (dynamo-style "getattr(L['m'], '0')").
    const size_t first = entry.find(',');
    const size_t last = entry.rfind(',');
    if (first == std::string::npos || last == first) {
      continue;
    }
    frames.push_back({entry.substr(0, first), entry.substr(first + 1, last - first - 1),
                      entry.substr(last + 1)});
  }
  return frames;
}

namespace {

// "file:N" of the frame starting at `file` ("File \"...\", line N"), or "".
std::string frame_source_line(const std::string& stack_trace, size_t file) {
  const size_t name_start = file + 6;
  const size_t name_end = stack_trace.find('"', name_start);
  if (name_end == std::string::npos) return std::string();
  const size_t line = stack_trace.find("line ", name_end);
  if (line == std::string::npos) return std::string();
  size_t digits_end = line + 5;
  while (digits_end < stack_trace.size() && std::isdigit(static_cast<unsigned char>(stack_trace[digits_end]))) {
    ++digits_end;
  }
  return stack_trace.substr(name_start, name_end - name_start) + ":" +
         stack_trace.substr(line + 5, digits_end - line - 5);
}

// PyTorch's own modules (torch.nn's forward methods, functional wrappers):
// torch.export records them as the innermost frames of every node.
bool in_pytorch(const std::string& source_line) {
  return source_line.find("/torch/") != std::string::npos;
}

}  // namespace

std::string innermost_source_line(const std::string& stack_trace) {
  std::string innermost;
  for (size_t file = stack_trace.rfind("File \""); file != std::string::npos;
       file = file == 0 ? std::string::npos : stack_trace.rfind("File \"", file - 1)) {
    const std::string line = frame_source_line(stack_trace, file);
    if (line.empty()) continue;
    if (!in_pytorch(line)) return line;
    if (innermost.empty()) innermost = line;
  }
  return innermost;
}

namespace {

// One parse: quoting is a linear copy, where parsing strictly first would
// parse upstream's graphs (which hold -Infinity) twice.
json parse_python_json(const std::string& text) {
  return json::parse(with_quoted_non_finite_numbers(text), nullptr, /*allow_exceptions=*/false);
}

const json* graph_of(const json& exported_program) {
  const json* graph_module = member(exported_program, "graph_module");
  return graph_module ? member(*graph_module, "graph") : nullptr;
}

const json* graph_nodes(const json& exported_program) {
  const json* graph = graph_of(exported_program);
  const json* nodes = graph ? member(*graph, "nodes") : nullptr;
  return nodes != nullptr && nodes->is_array() ? nodes : nullptr;
}

// The sizes of a graph's tensors by name (graph.tensor_values[name].sizes,
// each {"as_int": n}); a size that is not an integer (a symbolic
// {"as_expr": ...}) reads -1. Entries without a sizes list are left out.
std::unordered_map<std::string, std::vector<int64_t>> tensor_sizes(const json* graph) {
  std::unordered_map<std::string, std::vector<int64_t>> out;
  const json* values = graph ? member(*graph, "tensor_values") : nullptr;
  if (values == nullptr || !values->is_object()) return out;
  for (const auto& [name, value] : values->items()) {
    const json* sizes = member(value, "sizes");
    if (sizes == nullptr || !sizes->is_array()) continue;
    std::vector<int64_t> dims;
    for (const json& size : *sizes) {
      const json* as_int = member(size, "as_int");
      dims.push_back(as_int && as_int->is_number_integer() ? as_int->get<int64_t>() : -1);
    }
    out.emplace(name, std::move(dims));
  }
  return out;
}

GraphNode parse_node(const json& node, size_t index, const std::string& where, std::vector<std::string>& warnings) {
  GraphNode parsed;
  parsed.target = short_target(string_member(node, "target"));
  if (const json* outputs = member(node, "outputs"); outputs && outputs->is_array()) {
    std::vector<std::string> names;
    for (const json& output : *outputs) collect_tensor_names(output, names);
    if (!names.empty()) parsed.name = names.front();
  }
  if (parsed.name.empty()) parsed.name = parsed.target + "#" + std::to_string(index);
  if (const json* inputs = member(node, "inputs"); inputs && inputs->is_array()) {
    for (const json& input : *inputs) {
      if (const json* arg = member(input, "arg")) collect_tensor_names(*arg, parsed.inputs);
    }
  }
  if (const json* metadata = member(node, "metadata"); metadata && metadata->is_object()) {
    parsed.stack_trace = string_member(*metadata, "stack_trace");
    parsed.module_stack = parse_module_stack(string_member(*metadata, "nn_module_stack"));
    parsed.source_fn = string_member(*metadata, "source_fn_stack");
    if (const json* handle = member(*metadata, "debug_handle")) {
      if (!parse_handle(*handle, parsed.debug_handle)) {
        warnings.push_back(where + ": node " + parsed.name + " has debug_handle " + handle->dump() +
                           ", not an integer");
      }
    }
  }
  return parsed;
}

// A delegate call's lowered module, serialized by upstream as a JSON string
// argument whose original_module is the exported program of the nodes it
// took over: those nodes carry the debug handles the delegate's events and
// the debug handle map name.
const json* lowered_original_module(const json& node, json& storage) {
  const json* inputs = member(node, "inputs");
  if (inputs == nullptr || !inputs->is_array() || inputs->empty()) return nullptr;
  const json* arg = member((*inputs)[0], "arg");
  const json* text = arg ? member(*arg, "as_string") : nullptr;
  if (text == nullptr || !text->is_string()) return nullptr;
  storage = parse_python_json(text->get<std::string>());
  return storage.is_discarded() ? nullptr : member(storage, "original_module");
}

void add_nodes(const json& exported_program, const std::string& where, int depth, EdgeGraph& result,
               std::vector<std::string>& warnings) {
  const json& nodes = *graph_nodes(exported_program);
  const auto sizes = tensor_sizes(graph_of(exported_program));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const json& node = nodes[i];
    GraphNode parsed = parse_node(node, i, where, warnings);
    if (parsed.target.empty()) {
      warnings.push_back(where + ": node " + std::to_string(i) + " has no target; skipped");
      continue;
    }
    if (const auto found = sizes.find(parsed.name); found != sizes.end()) parsed.output_sizes = found->second;
    if (parsed.debug_handle >= 0) result.nodes_by_handle[parsed.debug_handle].push_back(result.nodes.size());
    const bool delegate_call = parsed.target.find("executorch_call_delegate") != std::string::npos;
    const std::string name = parsed.name;
    result.nodes.push_back(std::move(parsed));
    json lowered;
    const json* original = delegate_call && depth < 4 ? lowered_original_module(node, lowered) : nullptr;
    if (original != nullptr && graph_nodes(*original) != nullptr) {
      add_nodes(*original, where + " (lowered module of " + name + ")", depth + 1, result, warnings);
    }
  }
}

}  // namespace

Result<EdgeGraph> parse_edge_graph(const std::string& json_text, const std::string& where,
                                   std::vector<std::string>& warnings) {
  const json document = parse_python_json(json_text);
  if (document.is_discarded()) {
    return Error::make(ErrorCode::kMalformed, "%s: not valid JSON", where.c_str());
  }
  if (graph_nodes(document) == nullptr) {
    return Error::make(ErrorCode::kMalformed, "%s: no graph_module.graph.nodes array", where.c_str());
  }
  EdgeGraph result;
  add_nodes(document, where, 0, result, warnings);
  return result;
}

}  // namespace etkit::etrecord
