#pragma once
// Argument checks and tensor addressing the cortex_m:: kernels share.
// Activations are logical NCHW tensors, usually channels-last in memory:
// kernels address them through their strides, so any dim order works.

#include <algorithm>

#include "cmsis_arithmetic.h"
#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels {

// Logical NCHW (or 4-D weight) element offset through the strides.
inline int64_t at4(const Tensor& t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return a * t.stride(0) + b * t.stride(1) + c * t.stride(2) + d * t.stride(3);
}

inline bool same_dim_order(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int d = 0; d < a.dim(); ++d) {
    if (a.dim_order()[size_t(d)] != b.dim_order()[size_t(d)]) return false;
  }
  return true;
}

inline Status check_int8(KernelContext& context, const Tensor& t, const char* what) {
  ETKIT_KERNEL_CHECK(context, t.scalar_type() == ScalarType::kChar, "%s must be int8, got %s", what,
                     to_string(t.scalar_type()));
  return Ok{};
}

inline Status check_int32_vector(KernelContext& context, const Tensor& t, int64_t n, const char* what) {
  ETKIT_KERNEL_CHECK(context, t.scalar_type() == ScalarType::kInt && t.numel() == n,
                     "%s must be %lld int32 values, got %lld %s", what, (long long)n, (long long)t.numel(),
                     to_string(t.scalar_type()));
  return Ok{};
}

/// Every requantization shift of a per-channel int32 tensor within the
/// range a 32-bit requantization can mean (cmsis::valid_shift).
inline Status check_shifts(KernelContext& context, const Tensor& shifts) {
  const int32_t* s = shifts.data_as<const int32_t>();
  for (int64_t c = 0; c < shifts.numel(); ++c) {
    ETKIT_KERNEL_CHECK(context, cmsis::valid_shift(s[c]), "requantize shift %d (channel %lld) is outside [%d, %d]",
                       s[c], (long long)c, cmsis::kMinShift, cmsis::kMaxShift);
  }
  return Ok{};
}

inline Status pair_arg(KernelContext& context, Span<Value*> args, size_t i, const char* what, int64_t minimum,
                int64_t pair[2]) {
  IntList list;
  ETKIT_TRY(int_list_arg(context, args, i, list));
  ETKIT_KERNEL_CHECK(context, list.size == 2, "%s must have 2 values", what);
  ETKIT_KERNEL_CHECK(context, list[0] >= minimum && list[1] >= minimum, "%s must be >= %lld, got [%lld, %lld]",
                     what, (long long)minimum, (long long)list[0], (long long)list[1]);
  pair[0] = list[0];
  pair[1] = list[1];
  return Ok{};
}

/// A pooling's int8 input and out: 4-D, same batch and channels.
inline Status check_pool_tensors(KernelContext& context, const Tensor& in, const Tensor& out) {
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_TRY(check_int8(context, out, "out"));
  ETKIT_KERNEL_CHECK(context, in.dim() == 4 && out.dim() == 4 && in.size(0) == out.size(0) &&
                                  in.size(1) == out.size(1),
                     "input and out must be 4-D with the same batch and channels");
  return Ok{};
}

/// A 2-D pooling window: kernel, stride and padding per spatial dim.
struct PoolWindow {
  int64_t kernel[2], stride[2], padding[2];
};

/// Reads kernel_size, stride and padding from args first, first + 1, first + 2.
inline Status pool_window_args(KernelContext& context, Span<Value*> args, size_t first, PoolWindow& w) {
  ETKIT_TRY(pair_arg(context, args, first, "kernel_size", 1, w.kernel));
  ETKIT_TRY(pair_arg(context, args, first + 1, "stride", 1, w.stride));
  return pair_arg(context, args, first + 2, "padding", 0, w.padding);
}

/// Output rows (or columns) of a window over `input`; ceil_mode counts a
/// last partial window that starts inside the input or its left padding.
inline int64_t pooled_size(int64_t input, int64_t kernel, int64_t stride, int64_t padding, bool ceil_mode) {
  const int64_t numerator = input + 2 * padding - kernel;
  int64_t size = numerator / stride + 1;
  if (ceil_mode && numerator % stride != 0) ++size;
  if (ceil_mode && (size - 1) * stride >= input + padding) --size;
  return size;
}

inline Status check_pooled_sizes(KernelContext& context, const Tensor& in, const Tensor& out, const PoolWindow& w,
                                 bool ceil_mode) {
  for (int d = 0; d < 2; ++d) {
    const int64_t expected = pooled_size(in.size(2 + d), w.kernel[d], w.stride[d], w.padding[d], ceil_mode);
    ETKIT_KERNEL_CHECK(context, out.size(2 + d) == expected, "output %s is %lld, the window gives %lld",
                       d == 0 ? "height" : "width", static_cast<long long>(out.size(2 + d)),
                       static_cast<long long>(expected));
  }
  return Ok{};
}

/// For every output element of a pooling: reduce(out_offset, taps, oh, ow),
/// where taps(g) calls g(in_offset) for each in-bounds input tap of the
/// window (padding is never a tap).
template <typename Reduce>
Status for_each_pool_window(const Tensor& in, const Tensor& out, const PoolWindow& w, Reduce&& reduce) {
  for (int64_t n = 0; n < out.size(0); ++n)
    for (int64_t c = 0; c < out.size(1); ++c)
      for (int64_t oh = 0; oh < out.size(2); ++oh)
        for (int64_t ow = 0; ow < out.size(3); ++ow) {
          const int64_t h0 = oh * w.stride[0] - w.padding[0], w0 = ow * w.stride[1] - w.padding[1];
          auto taps = [&](auto&& g) {
            for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + w.kernel[0], in.size(2)); ++ih)
              for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + w.kernel[1], in.size(3)); ++iw) {
                g(at4(in, n, c, ih, iw));
              }
          };
          ETKIT_TRY(reduce(at4(out, n, c, oh, ow), taps, oh, ow));
        }
  return Ok{};
}

}  // namespace etkit::kernels
