// View-like copies: view, permute, transpose, expand, squeeze, unsqueeze,
// slice, select, cat, split, clone, _to_copy and the dim-order copies.

#include <cstring>

#include "etkit/kernels/copy_util.h"
#include "etkit/kernels/elementwise.h"
#include "view_util.h"

namespace etkit::kernels {
namespace {

// view_copy.out(self, size, out); one size may be -1.
Status view_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, in, out));
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 1, size));
  ETKIT_KERNEL_CHECK(context, size.size <= kMaxRank,
                     "too many dimensions");
  int64_t sizes[kMaxRank];
  int64_t known = 1;
  int inferred = -1;
  for (size_t d = 0; d < size.size; ++d) {
    sizes[d] = size[d];
    if (size[d] == -1) {
      ETKIT_KERNEL_CHECK(context, inferred < 0, "only one dimension can be inferred");
      inferred = static_cast<int>(d);
    } else {
      ETKIT_KERNEL_CHECK(context, size[d] >= 0, "invalid shape dimension %lld", (long long)size[d]);
      known *= size[d];
    }
  }
  if (inferred >= 0) {
    ETKIT_KERNEL_CHECK(context, known != 0 && in.numel() % known == 0,
                       "shape is invalid for input of size %lld", (long long)in.numel());
    sizes[inferred] = in.numel() / known;
    known *= sizes[inferred];
  }
  ETKIT_KERNEL_CHECK(context, known == in.numel(), "shape is invalid for input of size %lld",
                     (long long)in.numel());
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size.size)));
  copy_logical_order(in, out);
  return Ok{};
}

Status permute_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, in, out));
  IntList dims;
  ETKIT_TRY(int_list_arg(context, args, 1, dims));
  ETKIT_KERNEL_CHECK(context, dims.size == size_t(in.dim()),
                     "number of dims (%zu) doesn't match the input's rank %d", dims.size, in.dim());
  StridedView view = whole(in);
  uint32_t seen = 0;
  for (size_t i = 0; i < dims.size; ++i) {
    int64_t d = dims[i];
    ETKIT_KERNEL_CHECK(context, wrap_dim(d, in.dim()) && !(seen >> d & 1u),
                       "dims is not a permutation");
    seen |= 1u << d;
    view.sizes[i] = in.size(int(d));
    view.strides[i] = in.stride(int(d));
  }
  return copy_into(context, view, out);
}

Status transpose_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t d0 = int_arg(args, 1), d1 = int_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, wrap_dim(d0, in.dim()) && wrap_dim(d1, in.dim()),
                     "dimension out of range");
  StridedView view = whole(in);
  if (in.dim() > 0) {
    std::swap(view.sizes[d0], view.sizes[d1]);
    std::swap(view.strides[d0], view.strides[d1]);
  }
  return copy_into(context, view, out);
}

// expand_copy.out(self, size, implicit, out): -1 keeps a size.
Status expand_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(check_same_dtype(context, in, out));
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 1, size));
  ETKIT_KERNEL_CHECK(context, size.size >= size_t(in.dim()) && size.size <= kMaxRank,
                     "the number of sizes provided (%zu) must be greater or equal to the "
                     "number of dimensions in the tensor (%d)",
                     size.size, in.dim());
  StridedView view;
  view.source = &in;
  view.rank = int(size.size);
  const int lead = view.rank - in.dim();
  for (int d = 0; d < view.rank; ++d) {
    const int id = d - lead;
    int64_t target = size[size_t(d)];
    if (id < 0) {
      ETKIT_KERNEL_CHECK(context, target >= 0, "-1 is not allowed in a leading, new dimension");
      view.sizes[d] = target;
      view.strides[d] = 0;
      continue;
    }
    if (target == -1) target = in.size(id);
    ETKIT_KERNEL_CHECK(context, in.size(id) == target || in.size(id) == 1,
                       "expanded size %lld must match the existing size %lld at dimension %d",
                       (long long)target, (long long)in.size(id), d);
    view.sizes[d] = target;
    view.strides[d] = in.size(id) == 1 && target != 1 ? 0 : in.stride(id);
  }
  return copy_into(context, view, out);
}

Status reshape_to(KernelContext& context, const Tensor& in, const int64_t* sizes, int rank,
                  Tensor& out) {
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(rank))));
  copy_logical_order(in, out);
  return Ok{};
}

Status squeeze_dims(KernelContext& context, const Tensor& in, uint32_t mask, Tensor& out) {
  int64_t sizes[kMaxRank];
  int rank = 0;
  for (int d = 0; d < in.dim(); ++d) {
    if ((mask >> d & 1u) && in.size(d) == 1) continue;
    sizes[rank++] = in.size(d);
  }
  return reshape_to(context, in, sizes, rank, out);
}

Status squeeze_copy_dim_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, in.dim()), "dimension out of range");
  return squeeze_dims(context, in, in.dim() == 0 ? 0u : 1u << dim, tensor_arg(args, 2));
}

Status squeeze_copy_dims_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList dims;
  ETKIT_TRY(int_list_arg(context, args, 1, dims));
  uint32_t mask = 0;
  for (size_t i = 0; i < dims.size; ++i) {
    int64_t d = dims[i];
    ETKIT_KERNEL_CHECK(context, wrap_dim(d, in.dim()), "dimension out of range");
    if (in.dim() > 0) mask |= 1u << d;
  }
  return squeeze_dims(context, in, mask, tensor_arg(args, 2));
}

Status squeeze_copy_out(KernelContext& context, Span<Value*> args) {
  return squeeze_dims(context, tensor_arg(args, 0), ~0u, tensor_arg(args, 1));
}

Status unsqueeze_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, in.dim() < kMaxRank && wrap_dim(dim, in.dim() + 1),
                     "dimension out of range");
  int64_t sizes[kMaxRank];
  int rank = 0;
  for (int d = 0; d <= in.dim(); ++d) {
    if (d == dim) sizes[rank++] = 1;
    if (d < in.dim()) sizes[rank++] = in.size(d);
  }
  return reshape_to(context, in, sizes, rank, tensor_arg(args, 2));
}

// slice_copy.Tensor_out(self, dim, start?, end?, step, out), Python rules
// for negative and out-of-range bounds.
Status slice_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  const int64_t step = int_arg(args, 4);
  Tensor& out = tensor_arg(args, 5);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() > 0 && wrap_dim(dim, in.dim()), "dimension out of range");
  ETKIT_KERNEL_CHECK(context, step > 0, "slice step must be positive");
  const int64_t length = in.size(int(dim));
  int64_t start = args[2]->is_none() ? 0 : int_arg(args, 2);
  int64_t end = args[3]->is_none() ? length : int_arg(args, 3);
  if (start < 0) start += length;
  if (end < 0) end += length;
  start = start < 0 ? 0 : (start > length ? length : start);
  end = end < start ? start : (end > length ? length : end);
  StridedView view = whole(in);
  view.sizes[dim] = (end - start + step - 1) / step;
  view.strides[dim] = in.stride(int(dim)) * step;
  view.offset = start * in.stride(int(dim));
  return copy_into(context, view, out);
}

Status select_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  int64_t index = int_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() > 0 && wrap_dim(dim, in.dim()), "dimension out of range");
  const int64_t length = in.size(int(dim));
  ETKIT_KERNEL_CHECK(context, index >= -length && index < length,
                     "index %lld out of range for dimension of size %lld", (long long)index,
                     (long long)length);
  if (index < 0) index += length;
  StridedView view;
  view.source = &in;
  view.offset = index * in.stride(int(dim));
  for (int d = 0; d < in.dim(); ++d) {
    if (d == dim) continue;
    view.sizes[view.rank] = in.size(d);
    view.strides[view.rank++] = in.stride(d);
  }
  return copy_into(context, view, out);
}

// cat.out(tensors, dim, out). Like ATen, 1-D empty tensors are skipped.
Status cat_out(KernelContext& context, Span<Value*> args) {
  const auto tensors = args[0]->tensor_list();
  int64_t dim = int_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  const Tensor* reference = nullptr;
  for (Tensor* t : tensors) {
    if (!(t->dim() == 1 && t->size(0) == 0)) {
      reference = t;
      break;
    }
  }
  if (reference == nullptr) {
    const int64_t zero = 0;
    return resize_output(context, out, Span<const int64_t>(&zero, out.dim() == 1 ? 1 : 0));
  }
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, reference->dim()), "dimension out of range");
  int64_t sizes[kMaxRank];
  for (int d = 0; d < reference->dim(); ++d) sizes[d] = reference->size(d);
  sizes[dim] = 0;
  for (Tensor* t : tensors) {
    if (t->dim() == 1 && t->size(0) == 0) continue;
    ETKIT_KERNEL_CHECK(context, t->dim() == reference->dim(),
                       "tensors must have the same number of dimensions");
    ETKIT_KERNEL_CHECK(context, t->scalar_type() == out.scalar_type(),
                       "expected %s inputs, got %s", to_string(out.scalar_type()),
                       to_string(t->scalar_type()));
    for (int d = 0; d < t->dim(); ++d) {
      ETKIT_KERNEL_CHECK(context, d == dim || t->size(d) == reference->size(d),
                         "sizes of tensors must match except in dimension %lld", (long long)dim);
    }
    sizes[dim] += t->size(int(dim));
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(reference->dim()))));
  int64_t offset = 0;
  for (Tensor* t : tensors) {
    if (t->dim() == 1 && t->size(0) == 0) continue;
    copy_view(whole(*t), out.data(), offset * out.stride(int(dim)), out.strides().data());
    offset += t->size(int(dim));
  }
  return Ok{};
}

// split_with_sizes_copy.out(self, split_sizes, dim, out[]).
Status split_with_sizes_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList split;
  ETKIT_TRY(int_list_arg(context, args, 1, split));
  int64_t dim = int_arg(args, 2);
  const auto outs = args[3]->tensor_list();
  ETKIT_KERNEL_CHECK(context, in.dim() > 0 && wrap_dim(dim, in.dim()), "dimension out of range");
  ETKIT_KERNEL_CHECK(context, split.size == outs.size(), "%zu split sizes for %zu outputs",
                     split.size, outs.size());
  int64_t total = 0;
  for (size_t i = 0; i < split.size; ++i) total += split[i];
  ETKIT_KERNEL_CHECK(context, total == in.size(int(dim)),
                     "split sizes add up to %lld, the dimension has %lld", (long long)total,
                     (long long)in.size(int(dim)));
  int64_t offset = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    StridedView view = whole(in);
    view.sizes[dim] = split[i];
    view.offset = offset * in.stride(int(dim));
    ETKIT_TRY(check_same_dtype(context, in, *outs[i]));
    ETKIT_TRY(copy_into(context, view, *outs[i]));
    offset += split[i];
  }
  return Ok{};
}

// clone.out(self, memory_format?, out): the out tensor's own dim order
// is the layout the program planned.
Status clone_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, in, out));
  return copy_convert(context, in, out);
}

// _to_copy.out(self, non_blocking, memory_format?, out): converts dtype.
Status to_copy_out(KernelContext& context, Span<Value*> args) {
  return copy_convert(context, tensor_arg(args, 0), tensor_arg(args, 3));
}

// dim_order_ops::_to_dim_order_copy.out / _clone_dim_order.out(self,
// non_blocking, dim_order?, out): out's dim order must be the one asked for.
Status dim_order_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 3);
  if (!args[2]->is_none()) {
    IntList order;
    ETKIT_TRY(int_list_arg(context, args, 2, order));
    ETKIT_KERNEL_CHECK(context, order.size == size_t(out.dim()),
                       "dim_order has %zu entries for a rank-%d out", order.size, out.dim());
    for (size_t d = 0; d < order.size; ++d) {
      ETKIT_KERNEL_CHECK(context, order[d] == out.dim_order()[d],
                         "out tensor's dim order differs from the requested dim_order");
    }
  }
  return copy_convert(context, in, out);
}

}  // namespace

void register_shape_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::view_copy.out", "TIWW", view_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::permute_copy.out", "TIWW", permute_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::transpose_copy.int_out", "TiiWW", transpose_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::expand_copy.out", "TIbWW", expand_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::squeeze_copy.dim_out", "TiWW", squeeze_copy_dim_out);
  ETKIT_REGISTER_KERNEL(r, "aten::squeeze_copy.dims_out", "TIWW", squeeze_copy_dims_out);
  ETKIT_REGISTER_KERNEL(r, "aten::squeeze_copy.out", "TWW", squeeze_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::unsqueeze_copy.out", "TiWW", unsqueeze_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::slice_copy.Tensor_out", "TinniWW", slice_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::select_copy.int_out", "TiiWW", select_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::cat.out", "LiWW", cat_out);
  ETKIT_REGISTER_KERNEL(r, "aten::split_with_sizes_copy.out", "TIiMM", split_with_sizes_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::clone.out", "TnWW", clone_out);
  ETKIT_REGISTER_KERNEL(r, "aten::_to_copy.out", "TbnWW", to_copy_out);
  ETKIT_REGISTER_KERNEL(r, "dim_order_ops::_to_dim_order_copy.out", "TbJWW", dim_order_copy_out);
  ETKIT_REGISTER_KERNEL(r, "dim_order_ops::_clone_dim_order.out", "TbJWW", dim_order_copy_out);
}

}  // namespace etkit::kernels
