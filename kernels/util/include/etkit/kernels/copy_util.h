#pragma once
// Copies a strided view of one tensor into another of the same logical
// shape: the engine behind permute, transpose, expand, slice, select, cat,
// split and view copies.

#include "etkit/core/tensor_copy.h"
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
/// writing through `out_strides` at `out_offset` (elements); a large
/// transpose goes over `context`'s workers when one is given.
void copy_view(const StridedView& view, void* out_data, int64_t out_offset, const int64_t* out_strides,
               const KernelContext* context = nullptr);

/// The runtime's logical-order copy (etkit/core/tensor_copy.h): view_copy,
/// reshape.
using etkit::copy_logical_order;

/// Copies with dtype conversion (same shape, any layouts).
Status copy_convert(KernelContext& context, const Tensor& in, Tensor& out);

}  // namespace etkit::kernels
