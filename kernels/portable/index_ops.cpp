// Gathers and padders: embedding, index_select, index.Tensor,
// constant_pad_nd, repeat, upsample_nearest2d.

#include <cmath>
#include <cstring>

#include "etkit/kernels/copy_util.h"
#include "etkit/core/checked_size.h"
#include "advanced_index.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/parallel.h"

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

// index.Tensor_out(self, indices?[], out): advanced indexing
// (advanced_index.h).
Status index_tensor_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  AdvancedIndex plan;
  ETKIT_TRY(plan.prepare(context, in, args[1]->tensor_list()));
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(plan.sizes, size_t(plan.rank))));
  const size_t esize = in.element_size();
  int64_t counter[kMaxRank] = {};
  for (int64_t n = 0; n < out.numel(); ++n) {
    int64_t in_offset = 0, out_offset = 0;
    for (int d = 0; d < plan.rank; ++d) out_offset += counter[d] * out.stride(d);
    ETKIT_TRY(plan.source_offset(context, in, counter, in_offset));
    std::memcpy(static_cast<uint8_t*>(out.data()) + out_offset * int64_t(esize),
                static_cast<const uint8_t*>(in.data()) + in_offset * int64_t(esize), esize);
    next_index(counter, plan.sizes, plan.rank);
  }
  return Ok{};
}

// constant_pad_nd.out(self, pad, value, out): pad pairs from the last dim
// backwards; negative pads crop.
Status constant_pad_nd_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList pad;
  ETKIT_TRY(int_list_arg(context, args, 1, pad));
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
  ETKIT_TRY(int_list_arg(context, args, 1, repeats));
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
    ETKIT_TRY(int_list_arg(context, args, 1, size));
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
  ETKIT_KERNEL_CHECK(context, out.numel() == 0 || (ih > 0 && iw > 0),
                     "an input of size %lldx%lld cannot be resampled to %lldx%lld", (long long)ih,
                     (long long)iw, (long long)oh, (long long)ow);
  const int64_t esize = int64_t(in.element_size());
  const auto* src = static_cast<const uint8_t*>(in.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  // Planes over the workers: every output element is a copy of its own.
  for_each_plane(context, sizes[0], sizes[1], oh * ow, [&](int64_t n, int64_t c) {
    for (int64_t y = 0; y < oh; ++y) {
      const int64_t sy = std::min(static_cast<int64_t>(std::floor(double(y) * float(scale_h))), ih - 1);
      const uint8_t* row = src + (n * in.stride(0) + c * in.stride(1) + sy * in.stride(2)) * esize;
      uint8_t* line = dst + (n * out.stride(0) + c * out.stride(1) + y * out.stride(2)) * esize;
      for (int64_t x = 0; x < ow; ++x) {
        const int64_t sx = std::min(static_cast<int64_t>(std::floor(double(x) * float(scale_w))), iw - 1);
        std::memcpy(line + x * out.stride(3) * esize, row + sx * in.stride(3) * esize, size_t(esize));
      }
    }
  });
  return Ok{};
}

}  // namespace

void register_index_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::embedding.out", "TTibbWW", embedding_out);
  ETKIT_REGISTER_KERNEL(r, "aten::index_select.out", "TiTWW", index_select_out);
  ETKIT_REGISTER_KERNEL(r, "aten::index.Tensor_out", "TOWW", index_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "aten::constant_pad_nd.out", "TIsWW", constant_pad_nd_out);
  ETKIT_REGISTER_KERNEL(r, "aten::repeat.out", "TIWW", repeat_out);
  ETKIT_REGISTER_KERNEL(r, "aten::upsample_nearest2d.vec_out", "TxxWW", upsample_nearest2d_vec_out);
}

}  // namespace etkit::kernels
