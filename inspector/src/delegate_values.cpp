#include "etkit/inspector/delegate_values.h"

#include <cstdio>
#include <map>

#include "etkit/core/backend.h"
#include "etkit/core/program.h"
#include "etkit/core/program_summary.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "etkit/delegates/xnnpack/xnn_support.h"

namespace etkit::inspector {
namespace {

using xnnpack::Datatype;

struct LoggedValue {
  const xnnpack::GraphNode* node;
  const xnnpack::GraphValue* value;
};

// What the delegate logs per execute when traced: every node's outputs, in
// node order.
std::vector<LoggedValue> logged_values(const xnnpack::XnnGraph& graph) {
  std::vector<LoggedValue> logged;
  for (const xnnpack::GraphNode& node : graph.nodes) {
    for (uint32_t v : node.outputs) {
      if (v < graph.values.size()) logged.push_back({&node, &graph.values[v]});
    }
  }
  return logged;
}

bool per_tensor_quantized(const xnnpack::GraphValue& value) {
  return value.quant.kind == xnnpack::QuantKind::kPerTensor &&
         (value.datatype == Datatype::kQint8 || value.datatype == Datatype::kQuint8 ||
          value.datatype == Datatype::kQint32);
}

// NHWC unless the delegate hands it out or a transpose made it NCHW.
bool is_nhwc(const LoggedValue& logged) {
  return logged.value->dims.size() == 4 && !logged.value->external_output &&
         logged.node->kind != xnnpack::NodeKind::kStaticTranspose;
}

void decode(RecordedOutput& output, const LoggedValue& logged) {
  output.nhwc = is_nhwc(logged);
  if (!per_tensor_quantized(*logged.value)) return;
  const double scale = logged.value->quant.scale;
  const double zero_point = logged.value->quant.zero_point;
  for (double& v : output.values) v = (v - zero_point) * scale;
  output.dtype = ScalarType::kFloat;
  char text[96];
  std::snprintf(text, sizeof text, "dequantized %s: scale %g, zero point %d",
                xnnpack::value_kind(*logged.value).c_str(), scale, logged.value->quant.zero_point);
  output.decoded = text;
  output.quantum = scale;
}

}  // namespace

std::vector<std::string> decode_delegate_outputs(const Program& program, const std::string& method,
                                                 std::vector<RecordedOutput>& outputs) {
  std::vector<std::string> warnings;
  const ProgramSummary summary = summarize(program);
  const MethodSummary* found = nullptr;
  for (const MethodSummary& m : summary.methods) {
    if (m.name == method) found = &m;
  }
  if (found == nullptr) return warnings;
  BackendInitContext context;
  context.program = &program;
  const auto named = [&context](const std::string& key) { return find_named_data(context, key); };
  for (const InstructionSummary& instruction : found->instructions) {
    if (instruction.chain != 0 || instruction.delegate_index < 0 || instruction.target != "XnnpackBackend") continue;
    std::vector<RecordedOutput*> mine;
    for (RecordedOutput& output : outputs) {
      if (output.instruction_id == instruction.index && output.delegate_debug_id >= 0) mine.push_back(&output);
    }
    if (mine.empty()) continue;
    const DelegateSummary& delegate = found->delegates[size_t(instruction.delegate_index)];
    const ByteSpan blob = delegate.location == "inline"
                              ? program.inline_delegate_data(delegate.index)
                              : (delegate.index < program.segment_count() ? program.segment(delegate.index)
                                                                          : ByteSpan{});
    auto graph = xnnpack::read_xnn_graph(blob, named);
    const std::string where = "instruction " + std::to_string(instruction.index) + " (XnnpackBackend)";
    if (!graph.ok()) {
      warnings.push_back(where + ": payload unreadable, values left as logged: " + graph.error().message());
      continue;
    }
    const std::vector<LoggedValue> logged = logged_values(*graph);
    size_t next = 0;
    bool undecodable = false;
    for (RecordedOutput* output : mine) {
      // A node whose output the delegate does not keep logs nothing: skip
      // to the next node of this debug id with as many elements.
      while (next < logged.size() &&
             (int64_t(logged[next].node->debug_handle) != output->delegate_debug_id ||
              logged[next].value->element_count() != output->values.size())) {
        ++next;
      }
      if (next == logged.size()) {
        warnings.push_back(where + ": logged values do not line up with the payload's nodes (delegate debug id " +
                           std::to_string(output->delegate_debug_id) + "); the rest are left as logged");
        break;
      }
      decode(*output, logged[next]);
      undecodable |= logged[next].value->quant.kind == xnnpack::QuantKind::kPerTokenDynamic;
      ++next;
    }
    if (undecodable) {
      warnings.push_back(where + ": qd8 values carry per-row parameters the trace does not hold; left as integers");
    }
  }
  return warnings;
}

}  // namespace etkit::inspector
