// quantized_decomposed::{quantize,dequantize}_per_{tensor,channel,token}:
// the affine (de)quantization upstream's quantizer leaves in edge programs
// around every quantized op, per tensor (scale and zero point as scalars or
// as one-element tensors), per channel along an axis, or per token (one
// scale and zero point per row of the last dimension).

#include "etkit/kernels/op_sets.h"
#include "quantize_util.h"
#include "quantized_families.h"

namespace etkit::kernels {
namespace {

using quantized::ChannelSplit;

// Where each channel's scale and zero point come from: tensors (one entry
// per channel) or one scalar pair for the whole tensor.
struct AffineParams {
  const Tensor* scales = nullptr;       // float32 or float64
  const Tensor* zero_points = nullptr;  // int64 or int32; none = 0
  double scale = 1;
  int64_t zero_point = 0;
  ChannelSplit split;  // channels == 1 for per tensor

  float scale_at(int64_t c) const {
    if (scales == nullptr) return float(scale);
    return scales->scalar_type() == ScalarType::kDouble ? float(scales->data_as<const double>()[c])
                                                        : scales->data_as<const float>()[c];
  }
  int64_t zero_point_at(int64_t c) const {
    if (scales == nullptr) return zero_point;
    if (zero_points == nullptr) return 0;
    return zero_points->scalar_type() == ScalarType::kLong ? zero_points->data_as<const int64_t>()[c]
                                                           : zero_points->data_as<const int32_t>()[c];
  }
};

ScalarType dtype_arg(Span<Value*> args, size_t i) { return static_cast<ScalarType>(int_arg(args, i)); }

// Per-channel parameter tensors: `count` float scales and (optional)
// integer zero points.
Status check_param_tensors(KernelContext& context, const Tensor& scales, const Tensor* zero_points,
                           int64_t count) {
  ETKIT_KERNEL_CHECK(context, scales.scalar_type() == ScalarType::kDouble ||
                                  scales.scalar_type() == ScalarType::kFloat,
                     "scales must be float64 or float32, got %s", to_string(scales.scalar_type()));
  ETKIT_KERNEL_CHECK(context, scales.numel() == count, "scales has %lld entries for %lld channels",
                     static_cast<long long>(scales.numel()), static_cast<long long>(count));
  ETKIT_KERNEL_CHECK(context, scales.is_default_dim_order(), "scales must be contiguous");
  if (zero_points != nullptr) {
    ETKIT_KERNEL_CHECK(context, zero_points->scalar_type() == ScalarType::kLong ||
                                    zero_points->scalar_type() == ScalarType::kInt,
                       "zero_points must be int64 or int32, got %s", to_string(zero_points->scalar_type()));
    ETKIT_KERNEL_CHECK(context, zero_points->numel() == count,
                       "zero_points has %lld entries for %lld channels",
                       static_cast<long long>(zero_points->numel()), static_cast<long long>(count));
    ETKIT_KERNEL_CHECK(context, zero_points->is_default_dim_order(), "zero_points must be contiguous");
  }
  return Ok{};
}

// ---- quantize ----

Status quantize(KernelContext& context, const Tensor& in, const AffineParams& params, int64_t qmin,
                int64_t qmax, ScalarType dtype, Tensor& out) {
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == dtype, "out is %s but dtype says %s",
                     to_string(out.scalar_type()), to_string(dtype));
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order() && out.is_default_dim_order(),
                     "expects contiguous tensors");
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  bool in_range = true;
  const bool known_out = quantized::visit_quantized(dtype, [&](auto q_tag) {
    in_range = quantized::range_fits<decltype(q_tag)>(qmin, qmax);
  });
  ETKIT_KERNEL_CHECK(context, known_out, "cannot quantize to %s (uint8, int8, int16, uint16 or int32)",
                     to_string(dtype));
  ETKIT_KERNEL_CHECK(context, in_range, "quant_min %lld and quant_max %lld must be ordered and within %s",
                     static_cast<long long>(qmin), static_cast<long long>(qmax), to_string(dtype));
  const ChannelSplit s = params.scales ? params.split : ChannelSplit{1, 1, in.numel()};
  const bool known_in = quantized::visit_float(in.scalar_type(), [&](auto v_tag) {
    using V = decltype(v_tag);
    using Compute = std::conditional_t<std::is_same_v<V, double>, double, float>;
    const V* x = in.data_as<const V>();
    (void)quantized::visit_quantized(dtype, [&](auto q_tag) {
      using Q = decltype(q_tag);
      Q* y = out.data_as<Q>();
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t c = 0; c < s.channels; ++c) {
          const float inv_scale = 1.0f / params.scale_at(c);
          const int64_t zero_point = params.zero_point_at(c);
          const int64_t base = (o * s.channels + c) * s.inner;
          for (int64_t i = base; i < base + s.inner; ++i) {
            y[i] = quantized::quantize_value<Q>(Compute(x[i]), inv_scale, zero_point, qmin, qmax);
          }
        }
    });
  });
  ETKIT_KERNEL_CHECK(context, known_in,
                     "quantize expects a float input (float32, float64, float16 or bfloat16), got %s",
                     to_string(in.scalar_type()));
  return Ok{};
}

// ---- dequantize ----

Status dequantize(KernelContext& context, const Tensor& in, const AffineParams& params, int64_t qmin,
                  int64_t qmax, ScalarType dtype, const Value& out_dtype, Tensor& out) {
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == dtype, "input is %s but dtype says %s",
                     to_string(in.scalar_type()), to_string(dtype));
  ETKIT_KERNEL_CHECK(context, out_dtype.is_none() || dtype_arg_matches(ScalarType(out_dtype.unchecked_int()), out.scalar_type()),
                     "out is %s but out_dtype says %s", to_string(out.scalar_type()),
                     to_string(ScalarType(out_dtype.is_none() ? 0 : out_dtype.unchecked_int())));
  ETKIT_KERNEL_CHECK(context, qmin <= qmax, "quant_min %lld is greater than quant_max %lld",
                     static_cast<long long>(qmin), static_cast<long long>(qmax));
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order() && out.is_default_dim_order(),
                     "expects contiguous tensors");
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const ChannelSplit s = params.scales ? params.split : ChannelSplit{1, 1, in.numel()};
  bool known_out = false;
  const bool known_in = quantized::visit_quantized(in.scalar_type(), [&](auto q_tag) {
    using Q = decltype(q_tag);
    const Q* x = in.data_as<const Q>();
    known_out = quantized::visit_float(out.scalar_type(), [&](auto v_tag) {
      using V = decltype(v_tag);
      V* y = out.data_as<V>();
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t c = 0; c < s.channels; ++c) {
          const float scale = params.scale_at(c);
          const int32_t zero_point = int32_t(params.zero_point_at(c));
          const int64_t base = (o * s.channels + c) * s.inner;
          for (int64_t i = base; i < base + s.inner; ++i) {
            y[i] = convert<V>(quantized::dequantize_value(x[i], zero_point, scale));
          }
        }
    });
  });
  ETKIT_KERNEL_CHECK(context, known_in, "cannot dequantize %s (uint8, int8, int16, uint16 or int32)",
                     to_string(in.scalar_type()));
  ETKIT_KERNEL_CHECK(context, known_out, "dequantize writes float32, float64, float16 or bfloat16, out is %s",
                     to_string(out.scalar_type()));
  return Ok{};
}

// ---- argument forms ----

AffineParams per_tensor(double scale, int64_t zero_point) {
  AffineParams p;
  p.scale = scale;
  p.zero_point = zero_point;
  return p;
}

// The .Tensor_out overloads: one-element scale and zero point tensors.
Status per_tensor_from_tensors(KernelContext& context, const Tensor& scale, const Tensor& zero_point,
                               AffineParams& p) {
  ETKIT_TRY(check_param_tensors(context, scale, &zero_point, 1));
  AffineParams tensors;
  tensors.scales = &scale;
  tensors.zero_points = &zero_point;
  p = per_tensor(tensors.scale_at(0), tensors.zero_point_at(0));
  return Ok{};
}

Status per_channel(KernelContext& context, const Tensor& in, int64_t axis, const Tensor& scales,
                   const Tensor* zero_points, AffineParams& p) {
  ETKIT_KERNEL_CHECK(context, in.dim() > 0, "per-channel (de)quantization needs a channel dimension");
  ETKIT_KERNEL_CHECK(context, wrap_dim(axis, in.dim()), "axis %lld is out of range for %d dims",
                     static_cast<long long>(axis), in.dim());
  ETKIT_TRY(check_param_tensors(context, scales, zero_points, in.size(int(axis))));
  p.scales = &scales;
  p.zero_points = zero_points;
  p.split = quantized::split_at(in, int(axis));
  return Ok{};
}

// Per token: every row of the last dimension is a channel.
Status per_token(KernelContext& context, const Tensor& in, const Tensor& scales, const Tensor& zero_points,
                 AffineParams& p) {
  ETKIT_KERNEL_CHECK(context, in.dim() > 0, "per-token (de)quantization needs a token dimension");
  const int64_t width = in.size(in.dim() - 1);
  const int64_t tokens = width == 0 ? 0 : in.numel() / width;
  ETKIT_TRY(check_param_tensors(context, scales, &zero_points, tokens));
  p.scales = &scales;
  p.zero_points = &zero_points;
  p.split = ChannelSplit{1, tokens, width};
  return Ok{};
}

// ---- kernels ----

// quantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out)
Status quantize_per_tensor_out(KernelContext& context, Span<Value*> args) {
  return quantize(context, tensor_arg(args, 0), per_tensor(double_arg(args, 1), int_arg(args, 2)),
                  int_arg(args, 3), int_arg(args, 4), dtype_arg(args, 5), tensor_arg(args, 6));
}
// quantize_per_tensor.Tensor_out(input, Tensor scale, Tensor zero_point, ...)
Status quantize_per_tensor_tensor_out(KernelContext& context, Span<Value*> args) {
  AffineParams p;
  ETKIT_TRY(per_tensor_from_tensors(context, tensor_arg(args, 1), tensor_arg(args, 2), p));
  return quantize(context, tensor_arg(args, 0), p, int_arg(args, 3), int_arg(args, 4), dtype_arg(args, 5),
                  tensor_arg(args, 6));
}
// dequantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype, out)
Status dequantize_per_tensor_out(KernelContext& context, Span<Value*> args) {
  return dequantize(context, tensor_arg(args, 0), per_tensor(double_arg(args, 1), int_arg(args, 2)),
                    int_arg(args, 3), int_arg(args, 4), dtype_arg(args, 5), *args[6], tensor_arg(args, 7));
}
Status dequantize_per_tensor_tensor_out(KernelContext& context, Span<Value*> args) {
  AffineParams p;
  ETKIT_TRY(per_tensor_from_tensors(context, tensor_arg(args, 1), tensor_arg(args, 2), p));
  return dequantize(context, tensor_arg(args, 0), p, int_arg(args, 3), int_arg(args, 4), dtype_arg(args, 5),
                    *args[6], tensor_arg(args, 7));
}
// quantize_per_channel.out(input, scales, zero_points, axis, quant_min, quant_max, dtype, *, out)
Status quantize_per_channel_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  AffineParams p;
  ETKIT_TRY(per_channel(context, in, int_arg(args, 3), tensor_arg(args, 1), &tensor_arg(args, 2), p));
  return quantize(context, in, p, int_arg(args, 4), int_arg(args, 5), dtype_arg(args, 6), tensor_arg(args, 7));
}
// dequantize_per_channel.out(input, scales, zero_points?, axis, quant_min, quant_max, dtype, *, out_dtype, out)
Status dequantize_per_channel_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  AffineParams p;
  ETKIT_TRY(per_channel(context, in, int_arg(args, 3), tensor_arg(args, 1), optional_tensor_arg(args, 2), p));
  return dequantize(context, in, p, int_arg(args, 4), int_arg(args, 5), dtype_arg(args, 6), *args[7],
                    tensor_arg(args, 8));
}
// quantize_per_token.out(input, scales, zero_points, quant_min, quant_max, dtype, *, out)
Status quantize_per_token_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  AffineParams p;
  ETKIT_TRY(per_token(context, in, tensor_arg(args, 1), tensor_arg(args, 2), p));
  return quantize(context, in, p, int_arg(args, 3), int_arg(args, 4), dtype_arg(args, 5), tensor_arg(args, 6));
}
// dequantize_per_token.out(input, scales, zero_points, quant_min, quant_max, dtype, output_dtype, *, out)
Status dequantize_per_token_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  AffineParams p;
  ETKIT_TRY(per_token(context, in, tensor_arg(args, 1), tensor_arg(args, 2), p));
  return dequantize(context, in, p, int_arg(args, 3), int_arg(args, 4), dtype_arg(args, 5), *args[6],
                    tensor_arg(args, 7));
}

}  // namespace

void register_quantize_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::quantize_per_tensor.out", "TdiiiiWW", quantize_per_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::quantize_per_tensor.Tensor_out", "TTTiiiWW",
                        quantize_per_tensor_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::dequantize_per_tensor.out", "TdiiiinWW",
                        dequantize_per_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::dequantize_per_tensor.Tensor_out", "TTTiiinWW",
                        dequantize_per_tensor_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::quantize_per_channel.out", "TTTiiiiWW",
                        quantize_per_channel_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::dequantize_per_channel.out", "TTtiiiinWW",
                        dequantize_per_channel_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::quantize_per_token.out", "TTTiiiWW", quantize_per_token_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::dequantize_per_token.out", "TTTiiiiWW",
                        dequantize_per_token_out);
}

}  // namespace etkit::kernels
