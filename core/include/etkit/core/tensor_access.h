#pragma once
/// @file
/// Reading single elements of any tensor as double, by logical (row-major)
/// index, whatever its dtype and dim order. For reports and comparisons,
/// not for kernels.

#include <cstdint>
#include <vector>

#include "etkit/core/tensor.h"

namespace etkit {

/// Element `index` (logical row-major order) converted to double; NaN for
/// dtypes without a numeric reading (complex, quantized packs).
double element_as_double(const Tensor& tensor, int64_t index);

/// The multi-dimensional position of logical `index` in `sizes`.
std::vector<int64_t> unravel_index(int64_t index, Span<const int64_t> sizes);

}  // namespace etkit
