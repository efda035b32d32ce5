#pragma once
/// @file
/// Sizes read from files multiplied out safely: the one place where a
/// shape's element count and byte count are computed from untrusted numbers
/// (program tensors, bundled values, logged tensors, .npy shapes, resizes).

#include <cstddef>
#include <cstdint>

#include "etkit/core/result.h"
#include "etkit/core/span.h"

namespace etkit {

/// No tensor of a real program comes near this (256 TiB); the cap keeps
/// every later size, stride and offset computation far from overflow.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 48;

/// A shape's element count, built one dimension at a time.
class CheckedShape {
 public:
  /// Multiplies in `size`: fails for a negative size, or when the count
  /// would exceed kMaxTensorBytes elements, counting only non-zero sizes
  /// (strides are products of those, whatever the other dimensions).
  Status add(int64_t size);
  uint64_t numel() const { return numel_; }
  /// numel × element_size, failing above kMaxTensorBytes.
  Result<uint64_t> nbytes(size_t element_size) const;

 private:
  uint64_t numel_ = 1;
  uint64_t extent_ = 1;  // product of the non-zero sizes
  size_t dims_ = 0;
};

/// The byte count of `sizes` with elements of `element_size` bytes.
Result<uint64_t> checked_nbytes(Span<const int64_t> sizes, size_t element_size);

}  // namespace etkit
