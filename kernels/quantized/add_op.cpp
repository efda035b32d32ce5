// quantized_decomposed::add: two quantized tensors of one shape and
// integer dtype added in real numbers and requantized,
//   out = quantize(dequantize(a) + dequantize(b))
// with each step in float32 as upstream (ExecuTorch kernels/quantized,
// commit cff6f4dd32e6) computes it. Upstream bounds every quant range to
// [0, 255] (uint8 programs); so does etkit.

#include "etkit/kernels/op_sets.h"
#include "quantize_util.h"
#include "quantized_families.h"

namespace etkit::kernels {
namespace {

Status check_range(KernelContext& context, int64_t qmin, int64_t qmax, const char* which) {
  ETKIT_KERNEL_CHECK(context, qmin >= 0 && qmax <= 255 && qmin <= qmax,
                     "quant range [%lld, %lld] of %s must be ordered within [0, 255]", static_cast<long long>(qmin),
                     static_cast<long long>(qmax), which);
  return Ok{};
}

// add.out(a, a_scale, a_zero_point, a_quant_min, a_quant_max, b, b_scale, ..., out_scale,
//         out_zero_point, out_quant_min, out_quant_max, *, out)
Status quantized_add_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 5);
  Tensor& out = tensor_arg(args, 14);
  ETKIT_TRY(check_range(context, int_arg(args, 3), int_arg(args, 4), "a"));
  ETKIT_TRY(check_range(context, int_arg(args, 8), int_arg(args, 9), "b"));
  ETKIT_TRY(check_range(context, int_arg(args, 12), int_arg(args, 13), "out"));
  ETKIT_KERNEL_CHECK(context, a.scalar_type() == b.scalar_type() && a.scalar_type() == out.scalar_type(),
                     "a, b and out must share a dtype, got %s, %s and %s", to_string(a.scalar_type()),
                     to_string(b.scalar_type()), to_string(out.scalar_type()));
  ETKIT_KERNEL_CHECK(context, same_sizes(a, b), "a and b must have the same shape");
  ETKIT_KERNEL_CHECK(context, a.is_default_dim_order() && b.is_default_dim_order() && out.is_default_dim_order(),
                     "expects contiguous tensors");
  ETKIT_TRY(resize_output(context, out, a.sizes()));
  const float a_scale = float(double_arg(args, 1)), b_scale = float(double_arg(args, 6));
  const int32_t a_zero = int32_t(int_arg(args, 2)), b_zero = int32_t(int_arg(args, 7));
  const float out_inv_scale = 1.0f / float(double_arg(args, 10));
  const int64_t out_zero = int32_t(int_arg(args, 11));
  const int64_t qmin = int_arg(args, 12), qmax = int_arg(args, 13);
  return dispatch_integral(context, a.scalar_type(), [&](auto tag) {
    using Q = decltype(tag);
    const Q* x = a.data_as<const Q>();
    const Q* y = b.data_as<const Q>();
    Q* z = out.data_as<Q>();
    for (int64_t i = 0; i < a.numel(); ++i) {
      const float sum = quantized::dequantize_value(x[i], a_zero, a_scale) +
                        quantized::dequantize_value(y[i], b_zero, b_scale);
      z[i] = quantized::quantize_value<Q>(sum, out_inv_scale, out_zero, qmin, qmax);
    }
  });
}

}  // namespace

void register_quantized_add(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::add.out", "TdiiiTdiiidiiiWW", quantized_add_out);
}

}  // namespace etkit::kernels
