// The XNNPACK delegate's payload reader: header, graph flatbuffer, every
// id, shape and constant check. Named data (constants stored by key outside
// the payload) resolves for some keys, to a zero-filled block, and is
// missing for others, so both paths are exercised.

#include <cstddef>
#include <cstdint>
#include <string>

#include "etkit/core/error.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
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
  }
  return 0;
}
