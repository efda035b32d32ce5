#pragma once
/// @file
/// Reading single elements of any tensor as double, by logical (row-major)
/// index, whatever its dtype and dim order. For reports and comparisons,
/// not for kernels.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/core/tensor.h"

namespace etkit {

/// Element `index` (logical row-major order) converted to double; NaN for
/// dtypes without a numeric reading (complex, quantized packs).
double element_as_double(const Tensor& tensor, int64_t index);

/// "[2, 3]": sizes or a position, as error messages and reports print them.
std::string format_sizes(Span<const int64_t> sizes);
inline std::string format_sizes(const std::vector<int64_t>& sizes) {
  return format_sizes(Span<const int64_t>(sizes.data(), sizes.size()));
}

/// The multi-dimensional position of logical `index` in `sizes`.
std::vector<int64_t> unravel_index(int64_t index, Span<const int64_t> sizes);

}  // namespace etkit
