#pragma once
// Reads a QuantizedTensorValue's quantization parameters (see the .cpp).

#include <functional>

#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "xnnpack_graph_generated.h"

namespace etkit::xnnpack {

/// The bytes of constant `index` (scale buffers live in the constant data).
using ConstantLookup = std::function<Result<ByteSpan>(uint32_t index)>;

/// Fills value.quant (value.datatype, dims and constant already read).
Status read_quant_params(size_t index, const etkit_xnnpack_fb::QuantizedTensorValue& wrapper,
                         const ConstantLookup& constant, GraphValue& value);

}  // namespace etkit::xnnpack
