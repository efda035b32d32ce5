// quantized_decomposed::mixed_mm and mixed_linear: float (or half)
// activations times int8 weights that are dequantized by a scale on the
// fly, as upstream's weight-only quantized linears (ExecuTorch
// kernels/quantized, commit cff6f4dd32e6):
//   mixed_mm:     out[i, j] = sum_k x[i, k] * w[k, j] * s[k]            (w: [n, p])
//   mixed_linear: out[i, j] = sum_groups s[j, g] * sum_{k in g} x[i, k] * w[j, k]  (w: [p, n])
// Upstream refuses zero points for both; so does etkit. Sums are float32
// (upstream accumulates a half out in half; ours is the more exact sum).

#include <vector>

#include "etkit/kernels/op_sets.h"
#include "quantize_util.h"
#include "quantized_families.h"

namespace etkit::kernels {
namespace {

bool is_float_or_half(ScalarType t) { return t == ScalarType::kFloat || t == ScalarType::kHalf; }

Status check_operands(KernelContext& context, const Tensor& in, const Tensor& weight, const Tensor& scales,
                      const Tensor* zero_points) {
  ETKIT_KERNEL_CHECK(context, in.dim() == 2 && weight.dim() == 2, "input and weight must be 2-D, got %d and %d dims",
                     in.dim(), weight.dim());
  ETKIT_KERNEL_CHECK(context, is_float_or_half(in.scalar_type()), "input must be float32 or float16, got %s",
                     to_string(in.scalar_type()));
  ETKIT_KERNEL_CHECK(context, weight.scalar_type() == ScalarType::kChar, "weight must be int8, got %s",
                     to_string(weight.scalar_type()));
  ETKIT_KERNEL_CHECK(context, scales.scalar_type() == in.scalar_type(),
                     "weight_scales (%s) must have the input's dtype (%s)", to_string(scales.scalar_type()),
                     to_string(in.scalar_type()));
  ETKIT_KERNEL_CHECK(context, zero_points == nullptr, "weight zero points are not supported (as upstream)");
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order() && weight.is_default_dim_order() &&
                                  scales.is_default_dim_order(),
                     "expects contiguous tensors");
  return Ok{};
}

// x as float32 rows (half inputs converted once, in the kernel scratch).
template <typename T>
const float* float_rows(const Tensor& in, KernelContext& context) {
  if constexpr (std::is_same_v<T, float>) {
    (void)context;
    return in.data_as<const float>();
  } else {
    float* rows = reinterpret_cast<float*>(context.scratch.data());
    const T* x = in.data_as<const T>();
    for (int64_t i = 0; i < in.numel(); ++i) rows[i] = float(x[i]);
    return rows;
  }
}

// mixed_mm.out(input, weight, weight_scales, weight_zero_points?, *, out)
Status mixed_mm_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor& weight = tensor_arg(args, 1);
  const Tensor& scales = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_operands(context, in, weight, scales, optional_tensor_arg(args, 3)));
  const int64_t m = in.size(0), n = in.size(1), p = weight.size(1);
  ETKIT_KERNEL_CHECK(context, weight.size(0) == n && scales.dim() == 1 && scales.size(0) == n,
                     "input [%lld, %lld] needs weight [%lld, p] and %lld scales", static_cast<long long>(m),
                     static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(n));
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == in.scalar_type() && out.is_default_dim_order(),
                     "out must be contiguous %s", to_string(in.scalar_type()));
  ETKIT_KERNEL_CHECK(context, size_t(in.numel() + p) * sizeof(float) <= context.scratch.size(),
                     "operands exceed the kernel scratch");
  const int64_t out_sizes[2] = {m, p};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(out_sizes, 2)));
  return dispatch_all(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const float* x = float_rows<T>(in, context);
    float* acc = reinterpret_cast<float*>(context.scratch.data()) + (std::is_same_v<T, float> ? 0 : in.numel());
    const int8_t* w = weight.data_as<const int8_t>();
    const T* s = scales.data_as<const T>();
    T* y = out.data_as<T>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < p; ++j) acc[j] = 0;
      for (int64_t k = 0; k < n; ++k) {
        const float a = x[i * n + k] * float(s[k]);
        const int8_t* row = w + k * p;
        for (int64_t j = 0; j < p; ++j) acc[j] += a * float(row[j]);
      }
      for (int64_t j = 0; j < p; ++j) y[i * p + j] = T(acc[j]);
    }
  });
}

// mixed_linear.out(input, weight, weight_scales, weight_zero_points?, dtype?, *, out)
Status mixed_linear_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor& weight = tensor_arg(args, 1);
  const Tensor& scales = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 5);
  ETKIT_TRY(check_operands(context, in, weight, scales, optional_tensor_arg(args, 3)));
  const int64_t m = in.size(0), n = in.size(1), p = weight.size(0);
  ETKIT_KERNEL_CHECK(context, weight.size(1) == n && (scales.dim() == 1 || scales.dim() == 2) &&
                                  scales.size(0) == p,
                     "input [%lld, %lld] needs weight [p, %lld] and scales [p] or [p, groups]",
                     static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(n));
  if (!args[4]->is_none()) {
    const ScalarType dtype = ScalarType(args[4]->unchecked_int());
    ETKIT_KERNEL_CHECK(context, dtype_arg_matches(dtype, out.scalar_type()) && is_float_or_half(dtype),
                       "dtype %s must be the out's (%s), float32 or float16", to_string(dtype),
                       to_string(out.scalar_type()));
  }
  ETKIT_KERNEL_CHECK(context, is_float_or_half(out.scalar_type()) && out.is_default_dim_order(),
                     "out must be contiguous float32 or float16, got %s", to_string(out.scalar_type()));
  // Group size as upstream derives it from the number of groups; the
  // scales of row j start at j * ceil(n / group).
  const int64_t group = scales.dim() == 2 && scales.size(1) > 0 ? (n + scales.size(1) - 1) / scales.size(1) : n;
  const int64_t groups_per_row = group > 0 ? (n + group - 1) / group : 0;
  ETKIT_KERNEL_CHECK(context, scales.dim() == 1 ? n == 0 || groups_per_row == 1 : groups_per_row <= scales.size(1),
                     "scales do not cover the groups");
  ETKIT_KERNEL_CHECK(context, size_t(in.numel()) * sizeof(float) <= context.scratch.size(),
                     "input exceeds the kernel scratch");
  const int64_t out_sizes[2] = {m, p};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(out_sizes, 2)));
  return dispatch_all(context, in.scalar_type(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const float* x = float_rows<T>(in, context);
    const int8_t* w = weight.data_as<const int8_t>();
    const T* s = scales.data_as<const T>();
    return dispatch_all(context, out.scalar_type(), [&](auto out_tag) {
      using O = decltype(out_tag);
      O* y = out.data_as<O>();
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < p; ++j) {
          float sum = 0;
          for (int64_t k = 0; k < n; k += group) {
            float partial = 0;
            const int64_t end = std::min(k + group, n);
            for (int64_t kk = k; kk < end; ++kk) partial += x[i * n + kk] * float(w[j * n + kk]);
            sum += partial * float(s[j * groups_per_row + k / group]);
          }
          y[i * p + j] = O(sum);
        }
    });
  });
}

}  // namespace

void register_mixed_matmul_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::mixed_mm.out", "TTTtWW", mixed_mm_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::mixed_linear.out", "TTTtnWW", mixed_linear_out);
}

}  // namespace etkit::kernels
