#pragma once
// The flatbuffers Verifier checks that a vector's length prefix is 4-byte
// aligned, not that its elements are aligned to their own size. A corrupt
// file can thus place an int64 or double vector at a 4-byte boundary, and
// reading it is undefined behaviour. Readers check 8-byte vectors with this.

#include <cstdint>

#include <flatbuffers/flatbuffers.h>

namespace etkit::detail {

template <typename T>
bool elements_aligned(const flatbuffers::Vector<T>* vector) {
  return vector == nullptr ||
         reinterpret_cast<uintptr_t>(vector->Data()) % alignof(T) == 0;
}

}  // namespace etkit::detail
