// The XNNPACK delegate's payload reader: header, graph flatbuffer, every
// id, shape and constant check. Named data (constants stored by key outside
// the payload) resolves for some keys, to a zero-filled block, and is
// missing for others, so both paths are exercised.

#include <cstddef>
#include <cstdint>
#include <string>

#include "etkit/core/error.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "etkit/delegates/xnnpack/xnn_support.h"
#include "fuzz_input.h"

namespace {

alignas(64) const uint8_t kNamedBlock[1u << 16] = {};

etkit::Result<etkit::ByteSpan> named_data(const std::string& key) {
  if (key.empty() || (key[0] & 1) != 0) {
    return etkit::Error::make(etkit::ErrorCode::kNotFound, "no named data '%s'", key.c_str());
  }
  return etkit::ByteSpan{kNamedBlock, sizeof kNamedBlock};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = etkit::fuzz::as_file(data, size, "fuzz.xnnpack");
  auto graph = etkit::xnnpack::read_xnn_graph(file->bytes(), named_data);
  if (!graph.ok()) {
    return 0;
  }
  for (const etkit::xnnpack::GraphValue& value : graph->values) {
    etkit::fuzz::touch(value.constant);
    if (value.constant.size != 0 && value.constant.size < value.byte_size()) {
      __builtin_trap();  // a constant shorter than its shape passed the checks
    }
    if (value.quant.kind == etkit::xnnpack::QuantKind::kPerChannel &&
        value.quant.scales.size() != value.dims.at(value.quant.channel_dim)) {
      __builtin_trap();  // per-channel scales that do not match the channels passed the checks
    }
  }
  // What the backend and `etinspect info` decide from a graph: who runs
  // each node, its event name, and whether the whole graph can run.
  for (const etkit::xnnpack::GraphNode& node : graph->nodes) {
    (void)etkit::xnnpack::node_runner(*graph, node);
    const std::string name = etkit::xnnpack::operator_name(*graph, node);
    etkit::fuzz::touch(etkit::ByteSpan{reinterpret_cast<const uint8_t*>(name.data()), name.size()});
  }
  const std::string reason = etkit::xnnpack::unsupported_reason(*graph);
  etkit::fuzz::touch(etkit::ByteSpan{reinterpret_cast<const uint8_t*>(reason.data()), reason.size()});
  return 0;
}
