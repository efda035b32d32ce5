// link_constants: `etinspect size --etrecord`'s constants named by the op
// that reads them. Constant parts end in "(method M, value V)" (as
// file_size names them); the program's instructions say who reads value V,
// the ETRecord what that instruction is in the model.

#include <cstdlib>
#include <map>

#include "etkit/inspector/file_size.h"
#include "etkit/inspector/source_links.h"

namespace etkit::inspector {
namespace {

struct Reader {
  int32_t instruction = -1;
  std::string op;  // the kernel, when the record has no node for it
};

// "… (method forward, value 153)" -> ("forward", 153).
bool method_and_value(const std::string& name, std::string& method, int64_t& value) {
  const size_t open = name.rfind("(method ");
  const size_t comma = name.find(", value ", open == std::string::npos ? 0 : open);
  if (open == std::string::npos || comma == std::string::npos || name.back() != ')') return false;
  method = name.substr(open + 8, comma - open - 8);
  char* end = nullptr;
  value = std::strtoll(name.c_str() + comma + 8, &end, 10);
  return end != nullptr && *end == ')';
}

size_t link(SizePart& part, const std::map<std::pair<std::string, int64_t>, Reader>& readers,
            const etrecord::Etrecord& record) {
  size_t linked = 0;
  for (SizePart& sub : part.parts) linked += link(sub, readers, record);
  std::string method;
  int64_t value = -1;
  if (!part.parts.empty() || !method_and_value(part.name, method, value)) return linked;
  auto reader = readers.find({method, value});
  if (reader == readers.end()) return linked;
  const etrecord::MethodRecord* m = record.method(method);
  const etrecord::GraphNode* node = nullptr;
  if (m != nullptr) {
    for (int64_t handle : record.instruction_handles(method, reader->second.instruction)) {
      if ((node = m->graph.find(handle)) != nullptr) break;
    }
  }
  std::string detail = "read by instruction " + std::to_string(reader->second.instruction) + " " + reader->second.op;
  if (node != nullptr) {
    detail = "read by " + node->name + " (" + node->target + ")";
    const std::string module = innermost_module(node->module_stack);
    if (!module.empty()) detail += " in " + module;
    const std::string source = etrecord::innermost_source_line(node->stack_trace);
    if (!source.empty()) detail += ", " + source;
  }
  part.detail = detail;
  part.method = method;
  part.instruction = reader->second.instruction;
  return linked + (node != nullptr ? 1 : 0);
}

}  // namespace

size_t link_constants(SizePart& root, const ProgramSummary& program, const etrecord::Etrecord& record) {
  std::map<std::pair<std::string, int64_t>, Reader> readers;  // the first kernel to read each value
  for (const MethodSummary& method : program.methods) {
    for (const InstructionSummary& instruction : method.instructions) {
      if (instruction.kind != "kernel") continue;
      for (int32_t v : instruction.references) readers.emplace(std::make_pair(method.name, int64_t(v)), Reader{instruction.index, instruction.target});
    }
  }
  return link(root, readers, record);
}

}  // namespace etkit::inspector
