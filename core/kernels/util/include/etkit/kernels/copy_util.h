#pragma once
// Copies a strided view of one tensor into another of the same logical
// shape: the engine behind permute, transpose, expand, slice, select, cat,
// split and view copies.

#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels {

/// A logical view into `source`'s memory: element at index (i0, i1, …) is
/// at source.data + (offset + sum(i_d * strides[d])) * element_size.
struct StridedView {
  const Tensor* source = nullptr;
  int64_t offset = 0;
  int rank = 0;
  int64_t sizes[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
};

/// A view of the whole tensor.
StridedView whole(const Tensor& t);

/// Copies `view` into `out` (same dtype, out already sized like the view),
/// writing through `out_strides` at `out_offset` (elements).
void copy_view(const StridedView& view, void* out_data, int64_t out_offset,
               const int64_t* out_strides);

/// Copies `in` into `out` element by element in logical (row-major) order
/// even when their shapes differ (view_copy, reshape); numel must match.
void copy_logical_order(const Tensor& in, Tensor& out);

/// Copies with dtype conversion (same shape, any layouts).
Status copy_convert(KernelContext& context, const Tensor& in, Tensor& out);

}  // namespace etkit::kernels
