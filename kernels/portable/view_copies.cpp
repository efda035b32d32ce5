// View-like copies that take part of a tensor or look at it another way:
// alias/detach/lift_fresh copies, t, narrow, diagonal, as_strided, unfold,
// split (equal chunks), unbind and stack. Each is a strided view of the
// input plus one copy (view_util.h).

#include <algorithm>

#include "etkit/core/tensor_access.h"
#include "view_util.h"

namespace etkit::kernels {
namespace {

// alias_copy, detach_copy, lift_fresh_copy(self, out): a plain copy.
Status identity_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  ETKIT_TRY(check_same_dtype(context, in, out));
  return copy_into(context, whole(in), out);
}

// t_copy.out(self, out): the transpose of a tensor of at most 2 dims.
Status t_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is %dD",
                     in.dim());
  StridedView view = whole(in);
  if (in.dim() == 2) {
    std::swap(view.sizes[0], view.sizes[1]);
    std::swap(view.strides[0], view.strides[1]);
  }
  return copy_into(context, view, out);
}

// narrow_copy.out(self, dim, start, length, out); start may count from the end.
Status narrow_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1), start = int_arg(args, 2);
  const int64_t length = int_arg(args, 3);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() > 0, "narrow() cannot be applied to a 0-dim tensor");
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, in.dim()), "dimension out of range");
  const int64_t size = in.size(int(dim));
  ETKIT_KERNEL_CHECK(context, start >= -size && start <= size,
                     "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                     (long long)-size, (long long)size, (long long)start);
  if (start < 0) start += size;
  ETKIT_KERNEL_CHECK(context, length >= 0 && start <= size - length,
                     "start (%lld) + length (%lld) exceeds dimension size (%lld)", (long long)start,
                     (long long)length, (long long)size);
  return copy_into(context, narrowed(in, int(dim), start, length), out);
}

// diagonal_copy.out(self, offset, dim1, dim2, out): dim1 and dim2 go, the
// diagonal becomes the last dim.
Status diagonal_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const int64_t offset = int_arg(args, 1);
  int64_t d1 = int_arg(args, 2), d2 = int_arg(args, 3);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() >= 2 && wrap_dim(d1, in.dim()) && wrap_dim(d2, in.dim()),
                     "dimension out of range");
  ETKIT_KERNEL_CHECK(context, d1 != d2, "diagonal dimensions cannot be identical %lld, %lld",
                     (long long)d1, (long long)d2);
  const int64_t n1 = in.size(int(d1)), n2 = in.size(int(d2));
  int64_t length = offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2);
  if (length < 0) length = 0;
  StridedView view;
  view.source = &in;
  if (length > 0) {
    view.offset = offset >= 0 ? offset * in.stride(int(d2)) : -offset * in.stride(int(d1));
  }
  for (int d = 0; d < in.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    view.sizes[view.rank] = in.size(d);
    view.strides[view.rank++] = in.stride(d);
  }
  view.sizes[view.rank] = length;
  view.strides[view.rank++] = in.stride(int(d1)) + in.stride(int(d2));
  return copy_into(context, view, out);
}

// as_strided_copy.out(self, size, stride, storage_offset?, out): sizes and
// strides over self's elements from its first one; every element the view
// reaches must lie inside self.
Status as_strided_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList size, stride;
  ETKIT_TRY(int_list_arg(context, args, 1, size));
  ETKIT_TRY(int_list_arg(context, args, 2, stride));
  const int64_t storage_offset = args[3]->is_none() ? 0 : int_arg(args, 3);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, size.size == stride.size && size.size <= size_t(kMaxRank),
                     "mismatch in length of strides and shape");
  ETKIT_KERNEL_CHECK(context, storage_offset >= 0, "negative storage offset %lld",
                     (long long)storage_offset);
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order(), "as_strided_copy needs a contiguous input");
  StridedView view;
  view.source = &in;
  view.offset = storage_offset;
  view.rank = int(size.size);
  int64_t last = storage_offset;
  bool empty = false;
  for (size_t d = 0; d < size.size; ++d) {
    ETKIT_KERNEL_CHECK(context, size[d] >= 0 && stride[d] >= 0,
                       "negative size or stride (%lld, %lld) in dim %zu", (long long)size[d],
                       (long long)stride[d], d);
    view.sizes[d] = size[d];
    view.strides[d] = stride[d];
    if (size[d] == 0) empty = true;
    else last += (size[d] - 1) * stride[d];
  }
  ETKIT_KERNEL_CHECK(context, empty || last < in.numel(),
                     "the view reaches element %lld of an input of %lld elements", (long long)last,
                     (long long)in.numel());
  return copy_into(context, view, out);
}

// unfold_copy.out(self, dimension, size, step, out): windows of `size`
// along `dimension` every `step`, as a new last dim.
Status unfold_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  const int64_t size = int_arg(args, 2), step = int_arg(args, 3);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, in.dim()), "dimension out of range");
  ETKIT_KERNEL_CHECK(context, step > 0, "step is %lld but must be > 0", (long long)step);
  ETKIT_KERNEL_CHECK(context, in.dim() < kMaxRank, "too many dimensions");
  const int64_t length = in.dim() == 0 ? 1 : in.size(int(dim));
  ETKIT_KERNEL_CHECK(context, size >= 0 && size <= length,
                     "maximum size for tensor at dimension %lld is %lld but size is %lld",
                     (long long)dim, (long long)length, (long long)size);
  StridedView view = whole(in);
  const int64_t inner_stride = in.dim() == 0 ? 1 : in.stride(int(dim));
  if (in.dim() > 0) {
    view.sizes[dim] = (length - size) / step + 1;
    view.strides[dim] = inner_stride * step;
  }
  view.sizes[view.rank] = size;
  view.strides[view.rank++] = inner_stride;
  return copy_into(context, view, out);
}

// split_copy.Tensor_out(self, split_size, dim, out[]): chunks of split_size,
// the last one shorter when the size does not divide.
Status split_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const int64_t split = int_arg(args, 1);
  int64_t dim = int_arg(args, 2);
  const auto outs = args[3]->tensor_list();
  ETKIT_KERNEL_CHECK(context, in.dim() > 0 && wrap_dim(dim, in.dim()), "dimension out of range");
  const int64_t length = in.size(int(dim));
  ETKIT_KERNEL_CHECK(context, split > 0 || (split == 0 && length == 0),
                     "split_size can only be 0 if dimension size is 0, but got dimension size of %lld",
                     (long long)length);
  const int64_t chunks = split == 0 ? 1 : std::max<int64_t>((length + split - 1) / split, 1);
  ETKIT_KERNEL_CHECK(context, int64_t(outs.size()) == chunks, "%lld chunks for %zu outputs",
                     (long long)chunks, outs.size());
  for (int64_t i = 0; i < chunks; ++i) {
    const int64_t start = i * split;
    ETKIT_TRY(check_same_dtype(context, in, *outs[size_t(i)]));
    ETKIT_TRY(copy_into(context, narrowed(in, int(dim), start, std::min(split, length - start)),
                        *outs[size_t(i)]));
  }
  return Ok{};
}

// unbind_copy.int_out(self, dim, out[]): one out per index along dim.
Status unbind_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  const auto outs = args[2]->tensor_list();
  ETKIT_KERNEL_CHECK(context, in.dim() > 0 && wrap_dim(dim, in.dim()), "dimension out of range");
  ETKIT_KERNEL_CHECK(context, int64_t(outs.size()) == in.size(int(dim)),
                     "%zu outputs for a dimension of size %lld", outs.size(),
                     (long long)in.size(int(dim)));
  for (size_t i = 0; i < outs.size(); ++i) {
    ETKIT_TRY(check_same_dtype(context, in, *outs[i]));
    StridedView view;
    view.source = &in;
    view.offset = int64_t(i) * in.stride(int(dim));
    for (int d = 0; d < in.dim(); ++d) {
      if (d == dim) continue;
      view.sizes[view.rank] = in.size(d);
      view.strides[view.rank++] = in.stride(d);
    }
    ETKIT_TRY(copy_into(context, view, *outs[i]));
  }
  return Ok{};
}

// stack.out(tensors, dim, out): tensors of one shape along a new dim.
Status stack_out(KernelContext& context, Span<Value*> args) {
  const auto tensors = args[0]->tensor_list();
  int64_t dim = int_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, !tensors.empty(), "stack expects a non-empty TensorList");
  const Tensor& first = *tensors[0];
  ETKIT_KERNEL_CHECK(context, first.dim() < kMaxRank, "too many dimensions");
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, first.dim() + 1), "dimension out of range");
  int64_t sizes[kMaxRank];
  for (int d = 0, k = 0; d <= first.dim(); ++d) {
    sizes[d] = d == dim ? int64_t(tensors.size()) : first.size(k++);
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    ETKIT_TRY(check_same_dtype(context, *tensors[i], out));
    const Span<const int64_t> a = tensors[i]->sizes(), b = first.sizes();
    ETKIT_KERNEL_CHECK(context, a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin()),
                       "stack expects each tensor to be equal size, but got %s at entry 0 and %s at "
                       "entry %zu",
                       format_sizes(first.sizes()).c_str(), format_sizes(tensors[i]->sizes()).c_str(), i);
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(first.dim() + 1))));
  int64_t out_strides[kMaxRank];
  for (int d = 0, k = 0; d <= first.dim(); ++d) {
    if (d != dim) out_strides[k++] = out.stride(d);
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    copy_view(whole(*tensors[i]), out.data(), int64_t(i) * out.stride(int(dim)), out_strides);
  }
  return Ok{};
}

}  // namespace

void register_view_copies(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::alias_copy.out", "TWW", identity_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::detach_copy.out", "TWW", identity_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::lift_fresh_copy.out", "TWW", identity_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::t_copy.out", "TWW", t_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::narrow_copy.out", "TiiiWW", narrow_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::diagonal_copy.out", "TiiiWW", diagonal_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::as_strided_copy.out", "TIInWW", as_strided_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::unfold_copy.out", "TiiiWW", unfold_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::split_copy.Tensor_out", "TiiMM", split_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::unbind_copy.int_out", "TiMM", unbind_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::stack.out", "LiWW", stack_out);
}

}  // namespace etkit::kernels
