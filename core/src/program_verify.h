#pragma once
// Checks of a program beyond what the flatbuffers Verifier knows: every
// index, offset and size against the tables and the file, so that the rest
// of etkit can read a loaded Program without bounds checks.

#include "etkit/core/byte_span.h"
#include "etkit/core/extended_header.h"
#include "etkit/core/result.h"

namespace executorch_flatbuffer {
struct Program;
}

namespace etkit::detail {

/// `file` is the whole program (flatbuffer plus segments).
Status verify_program_references(const executorch_flatbuffer::Program& program,
                                 ByteSpan file, const ExtendedHeader& header);

/// Bytes of a tensor with these sizes and element size, or an error when
/// sizes are negative or the product overflows.
Result<uint64_t> tensor_nbytes(const int32_t* sizes, size_t rank,
                               size_t element_size);

}  // namespace etkit::detail
