// Copies that move elements around: flip, roll, tril, pixel_shuffle and
// pixel_unshuffle (strided views of the input written through strided
// views of the out), and repeat_interleave.

#include <algorithm>
#include <cstring>

#include "view_util.h"

namespace etkit::kernels {
namespace {

// flip.out(self, dims, out): a view walking the flipped dims backwards.
Status flip_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList dims;
  ETKIT_TRY(int_list_arg(context, args, 1, dims));
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, in, out));
  StridedView view = whole(in);
  uint32_t seen = 0;
  for (size_t i = 0; i < dims.size; ++i) {
    int64_t d = dims[i];
    ETKIT_KERNEL_CHECK(context, wrap_dim(d, in.dim()), "dimension %lld out of range", (long long)dims[i]);
    ETKIT_KERNEL_CHECK(context, !(seen >> d & 1u), "dim %lld appears multiple times in the list of dims",
                       (long long)d);
    seen |= 1u << d;
    if (in.dim() == 0 || in.size(int(d)) == 0) continue;
    view.offset += (in.size(int(d)) - 1) * in.stride(int(d));
    view.strides[d] = -in.stride(int(d));
  }
  return copy_into(context, view, out);
}

// roll without dims: the tensor rolls in logical (row-major) order,
// element k going to (k + shift) mod n.
void roll_flattened(const Tensor& in, int64_t shift_by, Tensor& out) {
  const size_t size = in.element_size();
  const auto* src = static_cast<const uint8_t*>(in.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  const int64_t n = in.numel();
  const int64_t shift = ((shift_by % n) + n) % n;
  int64_t in_index[kMaxRank] = {}, out_index[kMaxRank] = {};
  // Position the out odometer at `shift`, then walk both.
  for (int64_t k = 0, rest = shift; k < in.dim(); ++k) {
    int64_t block = 1;
    for (int d = int(k) + 1; d < in.dim(); ++d) block *= in.size(d);
    out_index[k] = rest / block;
    rest %= block;
  }
  for (int64_t k = 0; k < n; ++k) {
    int64_t io = 0, oo = 0;
    for (int d = 0; d < in.dim(); ++d) {
      io += in_index[d] * in.stride(d);
      oo += out_index[d] * out.stride(d);
    }
    std::memcpy(dst + oo * int64_t(size), src + io * int64_t(size), size);
    next_index(in_index, in.sizes().data(), in.dim());
    if (!next_index(out_index, out.sizes().data(), out.dim())) {
      for (int d = 0; d < out.dim(); ++d) out_index[d] = 0;
    }
  }
}

// roll.out(self, shifts, dims, out): element i of a rolled dim comes from
// i - shift (mod size); without dims the flattened tensor rolls by one shift.
Status roll_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList shifts, dims;
  ETKIT_TRY(int_list_arg(context, args, 1, shifts));
  ETKIT_TRY(int_list_arg(context, args, 2, dims));
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  if (in.numel() == 0) return Ok{};
  const size_t size = in.element_size();
  const auto* src = static_cast<const uint8_t*>(in.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  if (dims.size == 0) {
    ETKIT_KERNEL_CHECK(context, shifts.size == 1, "shifts must have one value when dims is empty, got %zu",
                       shifts.size);
    roll_flattened(in, shifts[0], out);
    return Ok{};
  }
  ETKIT_KERNEL_CHECK(context, shifts.size == dims.size,
                     "shifts and dimensions must align. shifts: %zu, dims: %zu", shifts.size, dims.size);
  int64_t shift_of[kMaxRank] = {};
  for (size_t i = 0; i < dims.size; ++i) {
    int64_t d = dims[i];
    ETKIT_KERNEL_CHECK(context, in.dim() > 0 && wrap_dim(d, in.dim()), "dimension %lld out of range",
                       (long long)dims[i]);
    const int64_t n = in.size(int(d));
    shift_of[d] = ((shift_of[d] + shifts[i]) % n + n) % n;
  }
  int64_t index[kMaxRank] = {};
  do {
    int64_t io = 0, oo = 0;
    for (int d = 0; d < in.dim(); ++d) {
      const int64_t n = in.size(d);
      int64_t from = index[d] - shift_of[d];
      if (from < 0) from += n;
      io += from * in.stride(d);
      oo += index[d] * out.stride(d);
    }
    std::memcpy(dst + oo * int64_t(size), src + io * int64_t(size), size);
  } while (next_index(index, in.sizes().data(), in.dim()));
  return Ok{};
}

// tril.out(self, diagonal, out): zero above the `diagonal`-th diagonal of
// the last two dims.
Status tril_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const int64_t diagonal = int_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() >= 2, "tril: input tensor must have at least 2 dimensions");
  ETKIT_TRY(copy_into(context, whole(in), out));
  const int rows = out.dim() - 2, cols = out.dim() - 1;
  const size_t size = out.element_size();
  auto* dst = static_cast<uint8_t*>(out.data());
  int64_t index[kMaxRank] = {};
  if (out.numel() == 0) return Ok{};
  do {
    if (index[cols] - index[rows] > diagonal) {
      int64_t o = 0;
      for (int d = 0; d < out.dim(); ++d) o += index[d] * out.stride(d);
      std::memset(dst + o * int64_t(size), 0, size);
    }
  } while (next_index(index, out.sizes().data(), out.dim()));
  return Ok{};
}

// pixel_shuffle.out(self, r, out): [*, C*r*r, H, W] -> [*, C, H*r, W*r],
// out[c, h*r+i, w*r+j] = in[c*r*r + i*r + j, h, w]; pixel_unshuffle is the
// inverse. Both are one copy between [*, C, H, r, W, r]-shaped views.
template <bool shuffle>
Status pixel_shuffle_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const int64_t r = int_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() >= 3 && in.dim() <= kMaxRank - 3,
                     "pixel_%sshuffle expects input to have at least 3 dimensions, but got input with %d "
                     "dimension(s)", shuffle ? "" : "un", in.dim());
  ETKIT_KERNEL_CHECK(context, r > 0, "pixel_%sshuffle expects a positive factor, but got %lld",
                     shuffle ? "" : "un", (long long)r);
  const int c_dim = in.dim() - 3;
  const int64_t c = in.size(c_dim), h = in.size(c_dim + 1), w = in.size(c_dim + 2);
  int64_t sizes[kMaxRank];
  for (int d = 0; d < c_dim; ++d) sizes[d] = in.size(d);
  if (shuffle) {
    ETKIT_KERNEL_CHECK(context, c % (r * r) == 0,
                       "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
                       "square of upscale_factor, but input.size(-3)=%lld is not divisible by %lld",
                       (long long)c, (long long)(r * r));
    sizes[c_dim] = c / (r * r);
    sizes[c_dim + 1] = h * r;
    sizes[c_dim + 2] = w * r;
  } else {
    ETKIT_KERNEL_CHECK(context, h % r == 0 && w % r == 0,
                       "pixel_unshuffle expects height and width to be divisible by downscale_factor");
    sizes[c_dim] = c * r * r;
    sizes[c_dim + 1] = h / r;
    sizes[c_dim + 2] = w / r;
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(in.dim()))));
  // The shuffled side (out for shuffle, in for unshuffle) as [*, C, H, r, W, r]
  // and the channel-packed side as the same logical shape.
  const Tensor& spatial = shuffle ? out : in;
  const Tensor& packed = shuffle ? in : out;
  const int64_t small_h = shuffle ? h : h / r, small_w = shuffle ? w : w / r;
  StridedView view;
  view.source = &in;
  view.rank = c_dim + 5;
  int64_t packed_strides[kMaxRank], spatial_strides[kMaxRank];
  for (int d = 0; d < c_dim; ++d) {
    view.sizes[d] = in.size(d);
    packed_strides[d] = packed.stride(d);
    spatial_strides[d] = spatial.stride(d);
  }
  const int64_t pc = packed.stride(c_dim), ph = packed.stride(c_dim + 1), pw = packed.stride(c_dim + 2);
  const int64_t sc = spatial.stride(c_dim), sh = spatial.stride(c_dim + 1), sw = spatial.stride(c_dim + 2);
  const int64_t shape[5] = {sizes[c_dim] / (shuffle ? 1 : r * r), small_h, r, small_w, r};
  const int64_t packed5[5] = {pc * r * r, ph, pc * r, pw, pc};
  const int64_t spatial5[5] = {sc, sh * r, sh, sw * r, sw};
  for (int k = 0; k < 5; ++k) {
    view.sizes[c_dim + k] = shape[k];
    packed_strides[c_dim + k] = packed5[k];
    spatial_strides[c_dim + k] = spatial5[k];
  }
  for (int d = 0; d < view.rank; ++d) view.strides[d] = shuffle ? packed_strides[d] : spatial_strides[d];
  copy_view(view, out.data(), 0, shuffle ? spatial_strides : packed_strides);
  return Ok{};
}

// repeat_interleave.Tensor_out(repeats, output_size?, out): index i
// repeated repeats[i] times.
Status repeat_interleave_out(KernelContext& context, Span<Value*> args) {
  const Tensor& repeats = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  ETKIT_KERNEL_CHECK(context,
                     repeats.scalar_type() == ScalarType::kLong || repeats.scalar_type() == ScalarType::kInt,
                     "repeats has to be Long or Int tensor, got %s", to_string(repeats.scalar_type()));
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == repeats.scalar_type(),
                     "out dtype %s differs from repeats' %s", to_string(out.scalar_type()),
                     to_string(repeats.scalar_type()));
  return dispatch_integral(context, repeats.scalar_type(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* r = repeats.data_as<const T>();
    const int64_t step = repeats.stride(0);
    int64_t total = 0;
    for (int64_t i = 0; i < repeats.size(0); ++i) {
      ETKIT_KERNEL_CHECK(context, r[i * step] >= 0, "repeats can not be negative");
      total += int64_t(r[i * step]);
    }
    if (!args[1]->is_none()) {
      ETKIT_KERNEL_CHECK(context, int_arg(args, 1) == total,
                         "allocated size does not match required size: output_size %lld, total %lld",
                         (long long)int_arg(args, 1), (long long)total);
    }
    ETKIT_TRY(resize_output(context, out, Span<const int64_t>(&total, 1)));
    T* y = out.data_as<T>();
    int64_t k = 0;
    for (int64_t i = 0; i < repeats.size(0); ++i) {
      for (int64_t j = 0; j < int64_t(r[i * step]); ++j) y[(k++) * out.stride(0)] = T(i);
    }
    return Ok{};
  });
}

}  // namespace

void register_rearrange_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::flip.out", "TIWW", flip_out);
  ETKIT_REGISTER_KERNEL(r, "aten::roll.out", "TIIWW", roll_out);
  ETKIT_REGISTER_KERNEL(r, "aten::tril.out", "TiWW", tril_out);
  ETKIT_REGISTER_KERNEL(r, "aten::pixel_shuffle.out", "TiWW", pixel_shuffle_out<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::pixel_unshuffle.out", "TiWW", pixel_shuffle_out<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::repeat_interleave.Tensor_out", "TnWW", repeat_interleave_out);
}

}  // namespace etkit::kernels
