// Gathers and creators: embedding, index_select, index.Tensor,
// constant_pad_nd, repeat, full, full_like, arange, upsample_nearest2d.

#include <cmath>
#include <cstring>

#include "copy_util.h"
#include "etkit/core/checked_size.h"
#include "elementwise.h"

namespace etkit::kernels {
namespace {

// Reads index i of an int32/int64 index tensor (in its own layout).
bool index_at(const Tensor& indices, int64_t flat, int64_t& out) {
  // Flat position in logical order for default-dim-order index tensors.
  if (indices.scalar_type() == ScalarType::kLong) {
    out = indices.data_as<const int64_t>()[flat];
  } else if (indices.scalar_type() == ScalarType::kInt) {
    out = indices.data_as<const int32_t>()[flat];
  } else {
    return false;
  }
  return true;
}

Status embedding_out(KernelContext& context, Span<Value*> args) {
  const Tensor& weight = tensor_arg(args, 0);
  const Tensor& indices = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 5);
  ETKIT_KERNEL_CHECK(context, weight.dim() == 2, "weight must be 2-D");
  ETKIT_KERNEL_CHECK(context, weight.is_default_dim_order() && indices.is_default_dim_order() &&
                                  out.is_default_dim_order(),
                     "expects contiguous tensors");
  ETKIT_KERNEL_CHECK(context, weight.scalar_type() == out.scalar_type(), "out dtype must match weight");
  int64_t sizes[kMaxRank];
  ETKIT_KERNEL_CHECK(context, indices.dim() < kMaxRank, "too many index dims");
  for (int d = 0; d < indices.dim(); ++d) sizes[d] = indices.size(d);
  sizes[indices.dim()] = weight.size(1);
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(indices.dim() + 1))));
  const size_t row = static_cast<size_t>(weight.size(1)) * weight.element_size();
  for (int64_t i = 0; i < indices.numel(); ++i) {
    int64_t index = 0;
    ETKIT_KERNEL_CHECK(context, index_at(indices, i, index), "indices must be int32 or int64");
    ETKIT_KERNEL_CHECK(context, index >= 0 && index < weight.size(0),
                       "index %lld out of range for %lld embeddings", (long long)index,
                       (long long)weight.size(0));
    std::memcpy(static_cast<uint8_t*>(out.data()) + i * row,
                static_cast<const uint8_t*>(weight.data()) + index * row, row);
  }
  return Ok{};
}

Status index_select_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  const Tensor& index = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, in.dim()), "dimension out of range");
  ETKIT_KERNEL_CHECK(context, index.dim() <= 1, "index must be 0-D or 1-D");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  int64_t sizes[kMaxRank];
  for (int d = 0; d < in.dim(); ++d) sizes[d] = in.size(d);
  if (in.dim() > 0) sizes[dim] = index.numel();
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(in.dim()))));
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t at = 0;
    ETKIT_KERNEL_CHECK(context, index_at(index, i, at), "index must be int32 or int64");
    const int64_t length = in.dim() == 0 ? 1 : in.size(int(dim));
    ETKIT_KERNEL_CHECK(context, at >= -length && at < length, "index %lld out of range",
                       (long long)at);
    if (at < 0) at += length;
    StridedView view = whole(in);
    if (in.dim() > 0) {
      view.sizes[dim] = 1;
      view.offset = at * in.stride(int(dim));
    }
    copy_view(view, out.data(), in.dim() > 0 ? i * out.stride(int(dim)) : 0, out.strides().data());
  }
  return Ok{};
}

// index.Tensor_out(self, indices?[], out): advanced indexing with int64
// index tensors on leading dims (None skips a dim), broadcast together;
// the indexed dims must be adjacent (result dims go where they were).
Status index_tensor_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const auto indices = args[1]->tensor_list();
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, indices.size() <= size_t(in.dim()), "too many indices");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  int first = -1, last = -1;
  int64_t bsizes[kMaxRank];
  int brank = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] == nullptr) continue;
    const Tensor& idx = *indices[i];
    ETKIT_KERNEL_CHECK(context, idx.scalar_type() == ScalarType::kLong ||
                                    idx.scalar_type() == ScalarType::kInt,
                       "index tensors must be int32 or int64 (bool masks unsupported)");
    ETKIT_KERNEL_CHECK(context, idx.is_default_dim_order(), "index tensors must be contiguous");
    if (first < 0) {
      first = int(i);
      brank = idx.dim();
      for (int d = 0; d < brank; ++d) bsizes[d] = idx.size(d);
    } else {
      ETKIT_KERNEL_CHECK(context, last == int(i) - 1, "non-adjacent index tensors are unsupported");
      int64_t merged[kMaxRank];
      int rank = 0;
      ETKIT_KERNEL_CHECK(context,
                         broadcast_shape(Span<const int64_t>(bsizes, size_t(brank)), idx.sizes(),
                                         merged, rank),
                         "index shapes cannot be broadcast together");
      std::memcpy(bsizes, merged, sizeof(int64_t) * size_t(rank));
      brank = rank;
    }
    last = int(i);
  }
  ETKIT_KERNEL_CHECK(context, first >= 0, "at least one index tensor is required");
  // Result: in dims before first, broadcast index dims, in dims after last.
  int64_t sizes[kMaxRank];
  int rank = 0;
  for (int d = 0; d < first; ++d) sizes[rank++] = in.size(d);
  const int index_start = rank;
  for (int d = 0; d < brank; ++d) sizes[rank++] = bsizes[d];
  for (int d = last + 1; d < in.dim(); ++d) sizes[rank++] = in.size(d);
  ETKIT_KERNEL_CHECK(context, rank <= kMaxRank, "result rank too large");
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(rank))));
  const size_t esize = in.element_size();
  int64_t counter[kMaxRank] = {};
  for (int64_t n = 0; n < out.numel(); ++n) {
    // Input offset from the output position.
    int64_t in_offset = 0, out_offset = 0;
    for (int d = 0; d < rank; ++d) out_offset += counter[d] * out.stride(d);
    for (int d = 0; d < first; ++d) in_offset += counter[d] * in.stride(d);
    for (int d = last + 1; d < in.dim(); ++d) {
      in_offset += counter[index_start + brank + (d - last - 1)] * in.stride(d);
    }
    for (int i = first; i <= last; ++i) {
      const Tensor& idx = *indices[size_t(i)];
      int64_t flat = 0, stride = 1;
      for (int d = idx.dim() - 1; d >= 0; --d) {
        const int64_t c = counter[index_start + brank - idx.dim() + d];
        flat += (idx.size(d) == 1 ? 0 : c) * stride;
        stride *= idx.size(d);
      }
      int64_t at = 0;
      index_at(idx, flat, at);
      const int64_t length = in.size(i);
      ETKIT_KERNEL_CHECK(context, at >= -length && at < length,
                         "index %lld is out of bounds for dimension %d with size %lld",
                         (long long)at, i, (long long)length);
      in_offset += (at < 0 ? at + length : at) * in.stride(i);
    }
    std::memcpy(static_cast<uint8_t*>(out.data()) + out_offset * int64_t(esize),
                static_cast<const uint8_t*>(in.data()) + in_offset * int64_t(esize), esize);
    next_index(counter, sizes, rank);
  }
  return Ok{};
}

// Fills `out` with a scalar converted to its dtype.
Status fill(KernelContext& context, const Value& value, Tensor& out) {
  const bool known = dispatch_all(out.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T v = value.tag() == ValueTag::kInt ? convert<T>(value.unchecked_int())
                                        : convert<T>(value.scalar_as_double());
    T* p = out.data_as<T>();
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = v;  // dense: order is irrelevant
  });
  ETKIT_KERNEL_CHECK(context, known, "unsupported dtype %s", to_string(out.scalar_type()));
  return Ok{};
}

Status full_out(KernelContext& context, Span<Value*> args) {
  IntList size;
  int_list_arg(args, 0, size);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(size.items, size.size)));
  return fill(context, *args[1], out);
}

Status full_like_out(KernelContext& context, Span<Value*> args) {
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(resize_output(context, out, tensor_arg(args, 0).sizes()));
  return fill(context, *args[1], out);
}

// arange.start_out(start, end, step, out); arange.out(end, out).
Status arange_impl(KernelContext& context, const Value& start, const Value& end,
                   const Value& step, Tensor& out) {
  const double s = start.scalar_as_double(), e = end.scalar_as_double();
  const double d = step.scalar_as_double();
  ETKIT_KERNEL_CHECK(context, d != 0, "step must be nonzero");
  ETKIT_KERNEL_CHECK(context, (d > 0 && e >= s) || (d < 0 && e <= s),
                     "upper bound and larger bound inconsistent with step sign");
  ETKIT_KERNEL_CHECK(context, std::isfinite(s) && std::isfinite(e),
                     "unsupported range: start and end must be finite");
  const double length = std::ceil((e - s) / d);
  ETKIT_KERNEL_CHECK(context, length >= 0 && length < double(kMaxTensorBytes),
                     "invalid size, possible overflow: %g elements", length);
  const auto count = static_cast<int64_t>(length);
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(&count, 1)));
  const bool integral = start.tag() == ValueTag::kInt && step.tag() == ValueTag::kInt;
  const bool known = dispatch_real(out.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data_as<T>();
    for (int64_t i = 0; i < count; ++i) {
      p[i] = integral ? convert<T>(start.unchecked_int() + i * step.unchecked_int()) : convert<T>(s + double(i) * d);
    }
  });
  ETKIT_KERNEL_CHECK(context, known, "unsupported dtype %s", to_string(out.scalar_type()));
  return Ok{};
}
Status arange_start_out(KernelContext& context, Span<Value*> args) {
  return arange_impl(context, *args[0], *args[1], *args[2], tensor_arg(args, 3));
}
Status arange_out(KernelContext& context, Span<Value*> args) {
  const Value zero = Value::from_int(0), one = Value::from_int(1);
  return arange_impl(context, zero, *args[0], one, tensor_arg(args, 1));
}

// constant_pad_nd.out(self, pad, value, out): pad pairs from the last dim
// backwards; negative pads crop.
Status constant_pad_nd_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList pad;
  int_list_arg(args, 1, pad);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, pad.size % 2 == 0 && pad.size / 2 <= size_t(in.dim()),
                     "padding length must be even and at most twice the rank");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  int64_t sizes[kMaxRank], before[kMaxRank] = {};
  for (int d = 0; d < in.dim(); ++d) sizes[d] = in.size(d);
  for (size_t i = 0; i < pad.size / 2; ++i) {
    const int d = in.dim() - 1 - int(i);
    before[d] = pad[2 * i];
    sizes[d] += pad[2 * i] + pad[2 * i + 1];
    ETKIT_KERNEL_CHECK(context, sizes[d] >= 0, "resulting padded dimension is negative");
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(in.dim()))));
  ETKIT_TRY(fill(context, *args[2], out));
  // Copy the overlapping region.
  StridedView view = whole(in);
  int64_t out_offset = 0;
  for (int d = 0; d < in.dim(); ++d) {
    const int64_t lo = before[d] < 0 ? -before[d] : 0;  // cropped from the input
    const int64_t dst = before[d] > 0 ? before[d] : 0;
    const int64_t count = std::min(in.size(d) - lo, sizes[d] - dst);
    view.sizes[d] = count < 0 ? 0 : count;
    view.offset += lo * in.stride(d);
    out_offset += dst * out.stride(d);
  }
  copy_view(view, out.data(), out_offset, out.strides().data());
  return Ok{};
}

Status repeat_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList repeats;
  int_list_arg(args, 1, repeats);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, repeats.size >= size_t(in.dim()) && repeats.size <= kMaxRank,
                     "number of repeat dims can not be smaller than number of tensor dims");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  const int rank = int(repeats.size), lead = rank - in.dim();
  int64_t sizes[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    ETKIT_KERNEL_CHECK(context, repeats[size_t(d)] >= 0, "repeats can not be negative");
    sizes[d] = repeats[size_t(d)] * (d < lead ? 1 : in.size(d - lead));
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(rank))));
  // Output element (o_d) reads input (o_d mod in_size_d).
  const size_t esize = in.element_size();
  int64_t counter[kMaxRank] = {};
  for (int64_t n = 0; n < out.numel(); ++n) {
    int64_t in_offset = 0, out_offset = 0;
    for (int d = 0; d < rank; ++d) {
      out_offset += counter[d] * out.stride(d);
      if (d >= lead) in_offset += (counter[d] % in.size(d - lead)) * in.stride(d - lead);
    }
    std::memcpy(static_cast<uint8_t*>(out.data()) + out_offset * int64_t(esize),
                static_cast<const uint8_t*>(in.data()) + in_offset * int64_t(esize), esize);
    next_index(counter, sizes, rank);
  }
  return Ok{};
}

// upsample_nearest2d.vec_out(input, output_size?, scale_factors?, out).
Status upsample_nearest2d_vec_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, in.dim() == 4, "expected a 4-D input");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  const int64_t ih = in.size(2), iw = in.size(3);
  int64_t oh = 0, ow = 0;
  double scale_h = 0, scale_w = 0;
  if (args[1]->tag() == ValueTag::kIntList) {
    IntList size;
    int_list_arg(args, 1, size);
    ETKIT_KERNEL_CHECK(context, size.size == 2, "output_size must have 2 elements");
    oh = size[0];
    ow = size[1];
    scale_h = double(ih) / double(oh);
    scale_w = double(iw) / double(ow);
  } else {
    ETKIT_KERNEL_CHECK(context, args[2]->tag() == ValueTag::kDoubleList &&
                                    args[2]->double_list().size() == 2,
                       "either output_size or 2 scale_factors must be given");
    const auto scales = args[2]->double_list();
    oh = static_cast<int64_t>(std::floor(double(ih) * scales[0]));
    ow = static_cast<int64_t>(std::floor(double(iw) * scales[1]));
    scale_h = 1.0 / scales[0];
    scale_w = 1.0 / scales[1];
  }
  const int64_t sizes[4] = {in.size(0), in.size(1), oh, ow};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 4)));
  const size_t esize = in.element_size();
  for (int64_t n = 0; n < sizes[0]; ++n)
    for (int64_t c = 0; c < sizes[1]; ++c)
      for (int64_t y = 0; y < oh; ++y) {
        const int64_t sy = std::min(static_cast<int64_t>(std::floor(double(y) * float(scale_h))), ih - 1);
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t sx = std::min(static_cast<int64_t>(std::floor(double(x) * float(scale_w))), iw - 1);
          std::memcpy(static_cast<uint8_t*>(out.data()) +
                          (n * out.stride(0) + c * out.stride(1) + y * out.stride(2) + x * out.stride(3)) *
                              int64_t(esize),
                      static_cast<const uint8_t*>(in.data()) +
                          (n * in.stride(0) + c * in.stride(1) + sy * in.stride(2) + sx * in.stride(3)) *
                              int64_t(esize),
                      esize);
        }
      }
  return Ok{};
}

}  // namespace

void register_index_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::embedding.out", "TTibbWW", embedding_out);
  ETKIT_REGISTER_KERNEL(r, "aten::index_select.out", "TiTWW", index_select_out);
  ETKIT_REGISTER_KERNEL(r, "aten::index.Tensor_out", "TOWW", index_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "aten::full.out", "IsWW", full_out);
  ETKIT_REGISTER_KERNEL(r, "aten::full_like.out", "TsnWW", full_like_out);
  ETKIT_REGISTER_KERNEL(r, "aten::arange.start_out", "sssWW", arange_start_out);
  ETKIT_REGISTER_KERNEL(r, "aten::arange.out", "sWW", arange_out);
  ETKIT_REGISTER_KERNEL(r, "aten::constant_pad_nd.out", "TIsWW", constant_pad_nd_out);
  ETKIT_REGISTER_KERNEL(r, "aten::repeat.out", "TIWW", repeat_out);
  ETKIT_REGISTER_KERNEL(r, "aten::upsample_nearest2d.vec_out", "TxxWW", upsample_nearest2d_vec_out);
}

}  // namespace etkit::kernels
