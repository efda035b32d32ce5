#include "etkit/inspector/event_text.h"

#include "etkit/etrecord/edge_graph.h"
#include "etkit/inspector/source_links.h"

namespace etkit::inspector {
namespace {

// The distinct non-empty texts `describe` gives for each linked node, joined.
template <typename Items, typename Describe>
std::string join_distinct(const Items& items, Describe describe) {
  std::string text;
  for (const auto& [node, item] : items) {
    const std::string part = describe(item);
    if (part.empty() || text.find(part) != std::string::npos) continue;
    text += (text.empty() ? "" : ", ") + part;
  }
  return text;
}

}  // namespace

int decimals_for(TimeUnit source, TimeUnit target) {
  const double ratio = nanoseconds_per(target) / nanoseconds_per(source);
  int decimals = 0;
  for (double r = ratio; r > 1.5 && decimals < 9; r /= 10) ++decimals;
  return decimals;
}

DebugOutputs by_instruction(std::vector<RecordedOutput> outputs) {
  DebugOutputs debug;
  for (RecordedOutput& output : outputs) debug[output.instruction_id].push_back(std::move(output));
  return debug;
}

const std::vector<RecordedOutput>* outputs_of(const Event& event, const DebugOutputs& debug) {
  if (event.instruction_id < 0 || event.is_delegated_op) return nullptr;
  const auto it = debug.find(event.instruction_id);
  return it == debug.end() ? nullptr : &it->second;
}

std::string op_types_text(const Event& event) {
  std::string text = "[";
  for (size_t i = 0; i < event.op_types.size(); ++i) text += (i ? ", " : "") + event.op_types[i];
  return text + "]";
}

std::string source_text(const Event& event, bool full_paths) {
  return join_distinct(event.stack_traces, [full_paths](const std::string& trace) {
    std::string line = etrecord::innermost_source_line(trace);
    if (full_paths) return line;
    // "…/models/cnn.py:23": the last folder and the file say where.
    const size_t last = line.rfind('/');
    const size_t folder = last == std::string::npos || last == 0 ? std::string::npos : line.rfind('/', last - 1);
    return folder == std::string::npos ? line : "…" + line.substr(folder);
  });
}

std::string module_text(const Event& event) { return join_distinct(event.module_hierarchy, innermost_module); }

std::string short_op_name(std::string_view name) {
  constexpr std::string_view kKernel = "native_call_";
  const size_t namespace_end = name.find("::");
  const size_t dot_namespace = name.find('.');
  if (name.substr(0, kKernel.size()) == kKernel) {
    name.remove_prefix(kKernel.size());  // native_call_convolution.out
  } else if (namespace_end != std::string_view::npos && name.find(' ') == std::string_view::npos &&
             name.find('.', namespace_end) != std::string_view::npos) {
    name.remove_prefix(namespace_end + 2);  // aten::convolution.out
  } else if (dot_namespace != std::string_view::npos && name.find(' ') == std::string_view::npos &&
             name.substr(0, dot_namespace).find_first_of(":()") == std::string_view::npos &&
             name.find('.', dot_namespace + 1) != std::string_view::npos) {
    name.remove_prefix(dot_namespace + 1);  // aten.convolution.default
  } else {
    return std::string(name);
  }
  return std::string(name.substr(0, name.find('.')));  // the overload goes
}

std::string op_label(const Event& event) {
  const std::string op = short_op_name(event.name);
  for (const auto& [node, stack] : event.module_hierarchy) {
    if (!stack.empty()) return op + " · " + (stack.back().path.empty() ? "<root>" : stack.back().path);
  }
  return op;
}

std::string shape_text(const RecordedOutput& output) {
  std::string text = to_string(output.dtype);
  text += '[';
  for (size_t d = 0; d < output.sizes.size(); ++d) text += (d ? "," : "") + std::to_string(output.sizes[d]);
  return text + ']';
}

std::string debug_data_text(const Event& event, const DebugOutputs& debug) {
  std::string text;
  if (const auto* outputs = outputs_of(event, debug)) {
    for (const RecordedOutput& output : *outputs) text += (text.empty() ? "" : ", ") + shape_text(output);
  }
  return text;
}

}  // namespace etkit::inspector
