#pragma once
// Argument checks and tensor addressing the cortex_m:: kernels share.
// Activations are logical NCHW tensors, usually channels-last in memory:
// kernels address them through their strides, so any dim order works.

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

}  // namespace etkit::kernels
