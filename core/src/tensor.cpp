#include "etkit/core/tensor.h"

#include "etkit/core/checked_size.h"

namespace etkit {

Result<Tensor> Tensor::make(ScalarType type, Span<const int64_t> sizes,
                            Span<const uint8_t> dim_order, void* data, size_t capacity) {
  if (!is_valid(type)) {
    return Error::make(ErrorCode::kInvalidArgument, "invalid scalar type %d",
                       static_cast<int>(type));
  }
  if (sizes.size() > static_cast<size_t>(kMaxRank)) {
    return Error::make(ErrorCode::kUnsupported, "rank %zu exceeds etkit's limit %d",
                       sizes.size(), kMaxRank);
  }
  if (!dim_order.empty() && dim_order.size() != sizes.size()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "dim order has %zu entries for rank %zu", dim_order.size(),
                       sizes.size());
  }
  // Sizes may come from a file (a logged tensor, a .npy shape).
  ETKIT_TRY(checked_nbytes(sizes, etkit::element_size(type)));
  Tensor tensor;
  tensor.type_ = type;
  tensor.dim_ = static_cast<int>(sizes.size());
  uint32_t seen = 0;
  for (int d = 0; d < tensor.dim_; ++d) {
    tensor.sizes_[d] = sizes[d];
    const uint8_t order = dim_order.empty() ? static_cast<uint8_t>(d) : dim_order[d];
    if (order >= tensor.dim_ || (seen >> order & 1u) != 0) {
      return Error::make(ErrorCode::kInvalidArgument, "dim order is not a permutation");
    }
    seen |= 1u << order;
    tensor.dim_order_[d] = order;
  }
  tensor.compute_strides();
  tensor.data_ = data;
  tensor.capacity_ = capacity;
  return tensor;
}

void Tensor::compute_strides() {
  int64_t stride = 1;
  numel_ = 1;
  for (int i = dim_ - 1; i >= 0; --i) {
    const int d = dim_order_[i];
    strides_[d] = stride;
    stride *= sizes_[d] == 0 ? 1 : sizes_[d];
  }
  for (int d = 0; d < dim_; ++d) {
    numel_ *= sizes_[d];
  }
}

bool Tensor::is_default_dim_order() const {
  for (int d = 0; d < dim_; ++d) {
    if (dim_order_[d] != d) {
      return false;
    }
  }
  return true;
}

bool Tensor::is_channels_last() const {
  return dim_ == 4 && dim_order_[0] == 0 && dim_order_[1] == 2 && dim_order_[2] == 3 &&
         dim_order_[3] == 1;
}

Status Tensor::resize(Span<const int64_t> sizes) {
  if (sizes.size() != static_cast<size_t>(dim_)) {
    return Error::make(ErrorCode::kInvalidArgument, "cannot resize a rank-%d tensor to rank %zu",
                       dim_, sizes.size());
  }
  ETKIT_ASSIGN_OR_RETURN(const uint64_t bytes, checked_nbytes(sizes, element_size()));
  const uint64_t count = element_size() == 0 ? 0 : bytes / element_size();
  if (bytes > capacity_) {
    return Error::make(ErrorCode::kOutOfRange,
                       "resize to %llu elements needs %llu bytes, more than the %zu "
                       "planned for it (its upper bound)",
                       static_cast<unsigned long long>(count),
                       static_cast<unsigned long long>(bytes), capacity_);
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    sizes_[d] = sizes[d];
  }
  compute_strides();
  return Ok{};
}

}  // namespace etkit
