#pragma once
// Kernels read bool tensors as C++ bool, for which any byte other than 0
// and 1 is undefined behaviour. Bytes from outside (method inputs, program
// constants) are checked where they enter; kernels only ever write 0 or 1.

#include <cstddef>
#include <cstdint>

namespace etkit::detail {

/// Index of the first byte that is neither 0 nor 1, or -1.
inline int64_t first_non_bool_byte(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) {
    if (bytes[i] > 1) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace etkit::detail
