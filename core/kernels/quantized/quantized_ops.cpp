// quantized_decomposed::{quantize,dequantize}_per_{tensor,channel}: the
// affine (de)quantization the ExecuTorch quantizer leaves in edge programs.

#include <cmath>
#include <limits>

#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

Status check_quantized_type(KernelContext& context, ScalarType type) {
  ETKIT_KERNEL_CHECK(context,
                     type == ScalarType::kByte || type == ScalarType::kChar ||
                         type == ScalarType::kShort || type == ScalarType::kInt,
                     "quantized dtype must be uint8, int8, int16 or int32, got %s",
                     to_string(type));
  return Ok{};
}

// q = clamp(round(x * (1 / scale)) + zero_point, qmin, qmax), in float32
// like the decomposed reference (round half to even).
template <typename Q>
Q quantize_value(float x, float inv_scale, int64_t zero_point, int64_t qmin, int64_t qmax) {
  float q = std::nearbyint(x * inv_scale) + float(zero_point);
  q = std::max(q, float(qmin));
  q = std::min(q, float(qmax));
  return convert<Q>(q);  // NaN stays NaN through the clamp: converted as ATen's cast does
}

// The scale of channel `c` (float32 or float64 scales), or the per-tensor
// scale when there are none.
double channel_scale(const Tensor* scales, int64_t c, double per_tensor) {
  if (scales == nullptr) return per_tensor;
  return scales->scalar_type() == ScalarType::kDouble ? scales->data_as<const double>()[c]
                                                      : double(scales->data_as<const float>()[c]);
}

// Calls f(channel_scale_index, element) over `in`, where the channel index
// follows `axis` (or 0 for per-tensor).
template <typename F>
void for_each_channel(const Tensor& t, int64_t axis, F&& f) {
  int64_t inner = 1, channels = axis < 0 ? 1 : t.size(int(axis));
  for (int d = int(axis) + 1; d < t.dim() && axis >= 0; ++d) inner *= t.size(d);
  for (int64_t i = 0; i < t.numel(); ++i) f(axis < 0 ? 0 : (i / inner) % channels, i);
}

Status quantize(KernelContext& context, const Tensor& in, const Tensor* scales,
                const Tensor* zero_points, double scale, int64_t zero_point, int64_t axis,
                int64_t qmin, int64_t qmax, Tensor& out) {
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == ScalarType::kFloat,
                     "quantize expects a float32 input, got %s", to_string(in.scalar_type()));
  ETKIT_TRY(check_quantized_type(context, out.scalar_type()));
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order() && out.is_default_dim_order(),
                     "expects contiguous tensors");
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const float* x = in.data_as<const float>();
  Status bounds = Ok{};
  ETKIT_TRY(dispatch_real(context, out.scalar_type(), [&](auto tag) {
    using Q = decltype(tag);
    if (qmin > qmax || qmin < int64_t(std::numeric_limits<Q>::min()) ||
        qmax > int64_t(std::numeric_limits<Q>::max())) {
      bounds = Error::make(ErrorCode::kInvalidArgument,
                           "quant_min %lld and quant_max %lld must be ordered and within %s",
                           static_cast<long long>(qmin), static_cast<long long>(qmax),
                           to_string(out.scalar_type()))
                   .with_context("%s", context.op_name);
      return;
    }
    Q* y = out.data_as<Q>();
    for_each_channel(in, scales ? axis : -1, [&](int64_t c, int64_t i) {
      const double s = channel_scale(scales, c, scale);
      const int64_t z = zero_points ? zero_points->data_as<const int64_t>()[c] : zero_point;
      y[i] = quantize_value<Q>(x[i], float(1.0 / s), z, qmin, qmax);
    });
  }));
  return bounds;
}

Status dequantize(KernelContext& context, const Tensor& in, const Tensor* scales,
                  const Tensor* zero_points, double scale, int64_t zero_point, int64_t axis,
                  Tensor& out) {
  ETKIT_TRY(check_quantized_type(context, in.scalar_type()));
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == ScalarType::kFloat,
                     "dequantize writes float32, out is %s", to_string(out.scalar_type()));
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order() && out.is_default_dim_order(),
                     "expects contiguous tensors");
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  float* y = out.data_as<float>();
  ETKIT_TRY(dispatch_real(context, in.scalar_type(), [&](auto tag) {
    using Q = decltype(tag);
    const Q* x = in.data_as<const Q>();
    for_each_channel(in, scales ? axis : -1, [&](int64_t c, int64_t i) {
      const double s = channel_scale(scales, c, scale);
      const int64_t z = zero_points ? zero_points->data_as<const int64_t>()[c] : zero_point;
      y[i] = (float(x[i]) - float(z)) * float(s);
    });
  }));
  return Ok{};
}

Status check_channel_params(KernelContext& context, const Tensor& in, int64_t& axis,
                            const Tensor& scales, const Tensor* zero_points) {
  ETKIT_KERNEL_CHECK(context, in.dim() > 0, "per-channel (de)quantization needs a channel dimension");
  ETKIT_KERNEL_CHECK(context, wrap_dim(axis, in.dim()), "axis out of range");
  ETKIT_KERNEL_CHECK(context, scales.numel() == in.size(int(axis)),
                     "scales has %lld entries for %lld channels", (long long)scales.numel(),
                     (long long)in.size(int(axis)));
  ETKIT_KERNEL_CHECK(context, scales.scalar_type() == ScalarType::kDouble ||
                                  scales.scalar_type() == ScalarType::kFloat,
                     "scales must be float32 or float64");
  ETKIT_KERNEL_CHECK(context, !zero_points || (zero_points->numel() == scales.numel() &&
                                               zero_points->scalar_type() == ScalarType::kLong),
                     "zero_points must be int64 with one entry per channel");
  return Ok{};
}

Status quantize_per_tensor_out(KernelContext& context, Span<Value*> args) {
  return quantize(context, tensor_arg(args, 0), nullptr, nullptr, double_arg(args, 1),
                  int_arg(args, 2), -1, int_arg(args, 3), int_arg(args, 4), tensor_arg(args, 6));
}
Status dequantize_per_tensor_out(KernelContext& context, Span<Value*> args) {
  return dequantize(context, tensor_arg(args, 0), nullptr, nullptr, double_arg(args, 1),
                    int_arg(args, 2), -1, tensor_arg(args, 7));
}
Status quantize_per_channel_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t axis = int_arg(args, 3);
  ETKIT_TRY(check_channel_params(context, in, axis, tensor_arg(args, 1), &tensor_arg(args, 2)));
  return quantize(context, in, &tensor_arg(args, 1), &tensor_arg(args, 2), 0, 0, axis,
                  int_arg(args, 4), int_arg(args, 5), tensor_arg(args, 7));
}
Status dequantize_per_channel_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t axis = int_arg(args, 3);
  const Tensor* zero_points = optional_tensor_arg(args, 2);
  ETKIT_TRY(check_channel_params(context, in, axis, tensor_arg(args, 1), zero_points));
  return dequantize(context, in, &tensor_arg(args, 1), zero_points, 0, 0, axis,
                    tensor_arg(args, 8));
}

}  // namespace

}  // namespace etkit::kernels

namespace etkit {
void register_quantized_kernels(KernelRegistry& r) {
  using namespace kernels;
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::quantize_per_tensor.out", "TdiiiiWW",
                        quantize_per_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::dequantize_per_tensor.out", "TdiiiinWW",
                        dequantize_per_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::quantize_per_channel.out", "TTTiiiiWW",
                        quantize_per_channel_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::dequantize_per_channel.out", "TTtiiiinWW",
                        dequantize_per_channel_out);
}

}  // namespace etkit
