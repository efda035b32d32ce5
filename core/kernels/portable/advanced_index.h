#pragma once
// Advanced indexing (x[i, j] with index tensors), shared by index.Tensor
// and index_put: int32/int64 index tensors on adjacent dims (None skips a
// dim) broadcast together; the result has self's dims before the first
// indexed one, the broadcast index dims, then self's dims after the last.

#include <cstring>

#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels {

struct AdvancedIndex {
  Span<Tensor* const> indices;
  int first = -1, last = -1;  // the indexed dims of self
  int index_start = 0;        // where the index dims begin in the result
  int brank = 0;              // rank of the broadcast index shape
  int rank = 0;               // rank of the result
  int64_t sizes[kMaxRank] = {};

  Status prepare(KernelContext& context, const Tensor& self, Span<Tensor* const> list) {
    indices = list;
    ETKIT_KERNEL_CHECK(context, list.size() <= size_t(self.dim()),
                       "too many indices for tensor of dimension %d (got %zu)", self.dim(), list.size());
    int64_t bsizes[kMaxRank];
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i] == nullptr) continue;
      const Tensor& idx = *list[i];
      ETKIT_KERNEL_CHECK(context,
                         idx.scalar_type() == ScalarType::kLong || idx.scalar_type() == ScalarType::kInt,
                         "index tensors must be int32 or int64, got %s (bool masks are not supported)",
                         to_string(idx.scalar_type()));
      ETKIT_KERNEL_CHECK(context, idx.is_default_dim_order(), "index tensors must be contiguous");
      if (first < 0) {
        first = int(i);
        brank = idx.dim();
        for (int d = 0; d < brank; ++d) bsizes[d] = idx.size(d);
      } else {
        ETKIT_KERNEL_CHECK(context, last == int(i) - 1, "non-adjacent index tensors are unsupported");
        int64_t merged[kMaxRank];
        int merged_rank = 0;
        ETKIT_KERNEL_CHECK(context,
                           broadcast_shape(Span<const int64_t>(bsizes, size_t(brank)), idx.sizes(),
                                           merged, merged_rank),
                           "shape mismatch: indexing tensors could not be broadcast together");
        std::memcpy(bsizes, merged, sizeof(int64_t) * size_t(merged_rank));
        brank = merged_rank;
      }
      last = int(i);
    }
    ETKIT_KERNEL_CHECK(context, first >= 0, "at least one index tensor is required");
    ETKIT_KERNEL_CHECK(context, first + brank + (self.dim() - last - 1) <= kMaxRank,
                       "result rank too large");
    for (int d = 0; d < first; ++d) sizes[rank++] = self.size(d);
    index_start = rank;
    for (int d = 0; d < brank; ++d) sizes[rank++] = bsizes[d];
    for (int d = last + 1; d < self.dim(); ++d) sizes[rank++] = self.size(d);
    return Ok{};
  }

  /// The element offset in `self` of result position `counter`; an index
  /// out of bounds is an error naming it.
  Status source_offset(KernelContext& context, const Tensor& self, const int64_t* counter,
                       int64_t& offset) const {
    offset = 0;
    for (int d = 0; d < first; ++d) offset += counter[d] * self.stride(d);
    for (int d = last + 1; d < self.dim(); ++d) {
      offset += counter[index_start + brank + (d - last - 1)] * self.stride(d);
    }
    for (int i = first; i <= last; ++i) {
      const Tensor& idx = *indices[size_t(i)];
      int64_t flat = 0, stride = 1;
      for (int d = idx.dim() - 1; d >= 0; --d) {
        const int64_t c = counter[index_start + brank - idx.dim() + d];
        flat += (idx.size(d) == 1 ? 0 : c) * stride;
        stride *= idx.size(d);
      }
      const int64_t at = idx.scalar_type() == ScalarType::kLong ? idx.data_as<const int64_t>()[flat]
                                                                 : idx.data_as<const int32_t>()[flat];
      const int64_t length = self.size(i);
      ETKIT_KERNEL_CHECK(context, at >= -length && at < length,
                         "index %lld is out of bounds for dimension %d with size %lld", (long long)at, i,
                         (long long)length);
      offset += (at < 0 ? at + length : at) * self.stride(i);
    }
    return Ok{};
  }
};

}  // namespace etkit::kernels
