#pragma once
// Shared by the view-like copies (shape_ops.cpp, view_copies.cpp,
// rearrange_ops.cpp, scatter_ops.cpp): a strided view of the input copied
// into a resized out.

#include "etkit/kernels/copy_util.h"
#include "etkit/core/tensor_access.h"
#include "etkit/kernels/elementwise.h"

namespace etkit::kernels {

inline Status check_same_dtype(KernelContext& context, const Tensor& in, const Tensor& out) {
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(),
                     "out dtype %s differs from input dtype %s", to_string(out.scalar_type()),
                     to_string(in.scalar_type()));
  return Ok{};
}

/// Resizes `out` to the view's sizes and copies the view into it.
inline Status copy_into(KernelContext& context, const StridedView& view, Tensor& out) {
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(view.sizes, size_t(view.rank))));
  copy_view(view, out.data(), 0, out.strides().data(), &context);
  return Ok{};
}

/// `in` with dim `dim` (already wrapped) restricted to [start, start +
/// length) with `step`.
inline StridedView narrowed(const Tensor& in, int dim, int64_t start, int64_t length,
                            int64_t step = 1) {
  StridedView view = whole(in);
  view.sizes[dim] = length;
  view.strides[dim] = in.stride(dim) * step;
  view.offset = start * in.stride(dim);
  return view;
}

}  // namespace etkit::kernels
