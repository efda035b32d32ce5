// quantized_decomposed::choose_qparams (per tensor) and its per-token
// asymmetric form: the scale and zero point of dynamic quantization,
// computed at run time from the input's range. The rules follow upstream's
// kernel (ExecuTorch kernels/quantized, commit cff6f4dd32e6): the range
// always includes 0; a scale too small to invert becomes 0.1; scales below
// 6.1e-5 are raised to it with the range widened to match; the zero point
// comes from whichever end of the range loses less, clamped and rounded
// half to even.

#include <cmath>
#include <limits>

#include "etkit/kernels/op_sets.h"
#include "quantize_util.h"
#include "quantized_families.h"

namespace etkit::kernels {
namespace {

constexpr float kSmallestScale = 6.1e-5f;

struct QParams {
  double scale;
  int64_t zero_point;
};

QParams qparams_for_range(float min, float max, int32_t qmin, int32_t qmax) {
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  double scale = (double(max) - min) / (qmax - qmin);
  if (float(scale) == 0.0f || std::isinf(1.0f / float(scale))) scale = 0.1;
  if (scale < kSmallestScale) {
    const float original = float(scale);
    scale = kSmallestScale;
    if (min == 0.0f) {
      max = kSmallestScale * float(qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallestScale * float(qmax - qmin);
    } else {
      const float widen = kSmallestScale / original;
      min *= widen;
      max *= widen;
    }
  }
  const double from_min = qmin - min / scale;
  const double from_max = qmax - max / scale;
  const double error_min = std::abs(qmin) - std::abs(min / scale);
  const double error_max = std::abs(qmax) - std::abs(max / scale);
  const double initial = error_min < error_max ? from_min : from_max;
  int64_t zero_point;
  if (initial < qmin) zero_point = qmin;
  else if (initial > qmax) zero_point = qmax;
  else zero_point = int64_t(std::nearbyint(float(initial)));
  return {scale, zero_point};
}

QParams qparams_of(const float* x, int64_t n, int32_t qmin, int32_t qmax) {
  float min = std::numeric_limits<float>::infinity(), max = -min;
  for (int64_t i = 0; i < n; ++i) {
    min = std::min(min, x[i]);
    max = std::max(max, x[i]);
  }
  return qparams_for_range(min, max, qmin, qmax);
}

Status check_outputs(KernelContext& context, const Tensor& in, const Tensor& scale, const Tensor& zero_point) {
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == ScalarType::kFloat, "input must be float32, got %s",
                     to_string(in.scalar_type()));
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order(), "input must be contiguous");
  ETKIT_KERNEL_CHECK(context, scale.scalar_type() == ScalarType::kDouble, "scale_out must be float64, got %s",
                     to_string(scale.scalar_type()));
  ETKIT_KERNEL_CHECK(context, zero_point.scalar_type() == ScalarType::kLong,
                     "zero_point_out must be int64, got %s", to_string(zero_point.scalar_type()));
  return Ok{};
}

// choose_qparams.Tensor_out(input, quant_min, quant_max, eps, dtype, *, scale_out, zero_point_out);
// eps is unused, as upstream leaves it.
Status choose_qparams_tensor_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const int64_t qmin = int_arg(args, 1), qmax = int_arg(args, 2);
  Tensor& scale = tensor_arg(args, 5);
  Tensor& zero_point = tensor_arg(args, 6);
  ETKIT_TRY(check_outputs(context, in, scale, zero_point));
  ETKIT_KERNEL_CHECK(context, qmin < qmax && qmin >= INT32_MIN && qmax <= INT32_MAX,
                     "quant_min %lld must be below quant_max %lld (both int32)", static_cast<long long>(qmin),
                     static_cast<long long>(qmax));
  ETKIT_KERNEL_CHECK(context, scale.numel() == 1 && zero_point.numel() == 1,
                     "scale_out and zero_point_out must hold one value each");
  const QParams q = qparams_of(in.data_as<const float>(), in.numel(), int32_t(qmin), int32_t(qmax));
  scale.data_as<double>()[0] = q.scale;
  zero_point.data_as<int64_t>()[0] = q.zero_point;
  return Ok{};
}

// choose_qparams_per_token_asymmetric.out(input, dtype, *, scale_out, zero_point_out):
// int8's range [-128, 127] for every row of the last dimension; the outs
// take the input's shape with 1 as the last size.
Status choose_qparams_per_token_asymmetric_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& scale = tensor_arg(args, 2);
  Tensor& zero_point = tensor_arg(args, 3);
  ETKIT_TRY(check_outputs(context, in, scale, zero_point));
  ETKIT_KERNEL_CHECK(context, in.dim() >= 1, "input needs a token dimension");
  int64_t sizes[kMaxRank];
  for (int d = 0; d < in.dim(); ++d) sizes[d] = in.size(d);
  sizes[in.dim() - 1] = 1;
  ETKIT_TRY(resize_output(context, scale, Span<const int64_t>(sizes, size_t(in.dim()))));
  ETKIT_TRY(resize_output(context, zero_point, Span<const int64_t>(sizes, size_t(in.dim()))));
  const int64_t width = in.size(in.dim() - 1);
  const int64_t tokens = scale.numel();
  const float* x = in.data_as<const float>();
  for (int64_t t = 0; t < tokens; ++t) {
    const QParams q = qparams_of(x + t * width, width, -128, 127);
    scale.data_as<double>()[t] = q.scale;
    zero_point.data_as<int64_t>()[t] = q.zero_point;
  }
  return Ok{};
}

}  // namespace

void register_choose_qparams_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::choose_qparams.Tensor_out", "TiidiWWM",
                        choose_qparams_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::choose_qparams_per_token_asymmetric.out", "TiWWM",
                        choose_qparams_per_token_asymmetric_out);
}

}  // namespace etkit::kernels
