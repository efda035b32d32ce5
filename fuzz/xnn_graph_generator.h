#pragma once
// Generates XNNPACK delegate payloads in upstream's layout (XH00 header,
// XNNGraph flatbuffer, 16-byte aligned constants) from fuzz input bytes:
// chains of every node kind the backend reads, over fp32 and every
// quantized value kind (qs8, qu8, qs32, qc8w, qc32, qc4w, qb4w, qd8 with
// static and dynamic quantization), with shapes that mostly fit the node
// (odd and size-1 dims included) and now and then do not, so both the
// execution paths and the refusals are reached.

#include <cstdint>
#include <vector>

#include "fuzz_input.h"

namespace etkit::fuzz {

/// A payload built from `choices`; consumes as many choices as it needs.
std::vector<uint8_t> generate_xnn_payload(Choices& choices);

}  // namespace etkit::fuzz
