#include "etkit/core/checked_size.h"

namespace etkit {

Status CheckedShape::add(int64_t size) {
  if (size < 0) {
    return Error::make(ErrorCode::kMalformed, "dimension %zu has negative size %lld", dims_,
                       static_cast<long long>(size));
  }
  // The strides multiply the non-zero sizes, so they are bounded even when
  // another dimension is 0 and the element count stays 0.
  if (size != 0 && extent_ > kMaxTensorBytes / static_cast<uint64_t>(size)) {
    return Error::make(ErrorCode::kMalformed, "tensor sizes multiply to more than 2^48 elements (dimension %zu: %lld)",
                       dims_, static_cast<long long>(size));
  }
  numel_ *= static_cast<uint64_t>(size);
  if (size != 0) extent_ *= static_cast<uint64_t>(size);
  ++dims_;
  return Ok{};
}

Result<uint64_t> CheckedShape::nbytes(size_t element_size) const {
  if (element_size != 0 && numel_ > kMaxTensorBytes / element_size) {
    return Error::make(ErrorCode::kMalformed, "tensor of %llu elements is larger than 2^48 bytes",
                       static_cast<unsigned long long>(numel_));
  }
  return numel_ * element_size;
}

Result<uint64_t> checked_nbytes(Span<const int64_t> sizes, size_t element_size) {
  CheckedShape shape;
  for (int64_t size : sizes) ETKIT_TRY(shape.add(size));
  return shape.nbytes(element_size);
}

}  // namespace etkit
