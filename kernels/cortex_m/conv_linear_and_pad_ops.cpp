// cortex_m::*: the int8 operators of upstream's Cortex-M backend (the ops
// its passes leave in programs such as the Arduino keyword-spotting model),
// with CMSIS-NN's integer semantics so a program computes the same bits
// here as on the board. Activations are logical NCHW tensors, usually
// channels-last in memory: every access goes through the tensor's strides,
// so any dim order works. Scratch tensors the programs pass are CMSIS-NN
// working memory and are not needed here.

#include "cmsis_arithmetic.h"
#include "cortex_m_families.h"
#include "cortex_m_util.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

// ---- quantize / dequantize per tensor ----

Status quantize_per_tensor_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 6);
  const int64_t qmin = int_arg(args, 3), qmax = int_arg(args, 4);
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == ScalarType::kFloat, "input must be float32, got %s",
                     to_string(in.scalar_type()));
  ETKIT_TRY(check_int8(context, out, "out"));
  ETKIT_KERNEL_CHECK(context, qmin >= -128 && qmax <= 127 && qmin <= qmax,
                     "quant range [%lld, %lld] is not within int8", (long long)qmin, (long long)qmax);
  ETKIT_KERNEL_CHECK(context, same_dim_order(in, out),
                     "input and out must share a dim order");
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  // Same dim order: element i of memory is element i of memory.
  const float inv_scale = 1.0f / float(double_arg(args, 1));
  const int32_t zero_point = int32_t(int_arg(args, 2));
  const float* x = in.data_as<const float>();
  int8_t* y = out.data_as<int8_t>();
  for (int64_t i = 0; i < in.numel(); ++i) {
    y[i] = int8_t(cmsis::quantize_value(x[i], inv_scale, zero_point, int32_t(qmin), int32_t(qmax)));
  }
  return Ok{};
}

Status dequantize_per_tensor_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 6);
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == ScalarType::kFloat, "out must be float32, got %s",
                     to_string(out.scalar_type()));
  ETKIT_KERNEL_CHECK(context, same_dim_order(in, out),
                     "input and out must share a dim order");
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const float scale = float(double_arg(args, 1));
  const int32_t zero_point = int32_t(int_arg(args, 2));
  const int8_t* x = in.data_as<const int8_t>();
  float* y = out.data_as<float>();
  for (int64_t i = 0; i < in.numel(); ++i) y[i] = float(int32_t(x[i]) - zero_point) * scale;
  return Ok{};
}

// ---- convolutions ----

struct ConvParams {
  int64_t stride[2], padding[2], dilation[2];
  int32_t input_offset, output_offset, activation_min, activation_max;
  const int32_t* multipliers;
  const int32_t* shifts;
  const int32_t* bias;  // may be null
};

// Reads the arguments shared by both convolutions, starting at `first`
// (stride); `depthwise` has the depth multiplier before the offsets.
Status conv_params(KernelContext& context, Span<Value*> args, bool depthwise, const Tensor& in,
                   const Tensor& out, int64_t kernel_h, int64_t kernel_w, ConvParams& p) {
  ETKIT_TRY(pair_arg(context, args, 3, "stride", 1, p.stride));
  ETKIT_TRY(pair_arg(context, args, 4, "padding", 0, p.padding));
  ETKIT_TRY(pair_arg(context, args, 5, "dilation", 1, p.dilation));
  const size_t k = depthwise ? 7 : 6;
  p.input_offset = int32_t(int_arg(args, k));
  p.output_offset = int32_t(int_arg(args, k + 1));
  p.activation_min = int32_t(int_arg(args, k + 4));
  p.activation_max = int32_t(int_arg(args, k + 5));
  const int64_t channels = out.size(1);
  ETKIT_TRY(check_int32_vector(context, tensor_arg(args, k + 2), channels, "requantize multipliers"));
  ETKIT_TRY(check_int32_vector(context, tensor_arg(args, k + 3), channels, "requantize shifts"));
  ETKIT_TRY(check_shifts(context, tensor_arg(args, k + 3)));
  p.multipliers = tensor_arg(args, k + 2).data_as<const int32_t>();
  p.shifts = tensor_arg(args, k + 3).data_as<const int32_t>();
  const Tensor* bias = optional_tensor_arg(args, 2);
  if (bias != nullptr) ETKIT_TRY(check_int32_vector(context, *bias, channels, "bias"));
  p.bias = bias != nullptr ? bias->data_as<const int32_t>() : nullptr;
  for (int d = 0; d < 2; ++d) {
    const int64_t span = p.dilation[d] * ((d == 0 ? kernel_h : kernel_w) - 1) + 1;
    const int64_t expected = (in.size(2 + d) + 2 * p.padding[d] - span) / p.stride[d] + 1;
    ETKIT_KERNEL_CHECK(context, out.size(2 + d) == expected, "output %s is %lld, the window gives %lld",
                       d == 0 ? "height" : "width", (long long)out.size(2 + d), (long long)expected);
  }
  return Ok{};
}

Status check_conv_tensors(KernelContext& context, const Tensor& in, const Tensor& weight, const Tensor& out) {
  ETKIT_KERNEL_CHECK(context, in.dim() == 4 && weight.dim() == 4 && out.dim() == 4,
                     "input, weight and out must be 4-D");
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_TRY(check_int8(context, weight, "weight"));
  ETKIT_TRY(check_int8(context, out, "out"));
  ETKIT_KERNEL_CHECK(context, in.size(0) == out.size(0), "batch sizes differ: input %lld, out %lld",
                     (long long)in.size(0), (long long)out.size(0));
  return Ok{};
}

// One output element: bias + sum((x + input_offset) * w) over the window's
// in-bounds taps (padding contributes nothing), requantized per channel,
// offset and clamped.
inline int8_t finish(int32_t acc, int64_t oc, const ConvParams& p) {
  acc = cmsis::requantize(acc, p.multipliers[oc], p.shifts[oc]) + p.output_offset;
  return int8_t(cmsis::clamp(acc, p.activation_min, p.activation_max));
}

// Every output element of a convolution: `tap(n, oc, kh, kw, ih, iw)`
// gives the product of one in-bounds window tap (padding contributes
// nothing), summed onto the channel's bias, then requantized.
template <typename Tap>
void convolve(const Tensor& in, Tensor& out, int64_t kernel_h, int64_t kernel_w, const ConvParams& p, Tap tap) {
  int8_t* y = out.data_as<int8_t>();
  for (int64_t n = 0; n < out.size(0); ++n)
    for (int64_t oc = 0; oc < out.size(1); ++oc)
      for (int64_t oh = 0; oh < out.size(2); ++oh)
        for (int64_t ow = 0; ow < out.size(3); ++ow) {
          int32_t acc = p.bias ? p.bias[oc] : 0;
          for (int64_t kh = 0; kh < kernel_h; ++kh) {
            const int64_t ih = oh * p.stride[0] - p.padding[0] + kh * p.dilation[0];
            if (ih < 0 || ih >= in.size(2)) continue;
            for (int64_t kw = 0; kw < kernel_w; ++kw) {
              const int64_t iw = ow * p.stride[1] - p.padding[1] + kw * p.dilation[1];
              if (iw >= 0 && iw < in.size(3)) acc += tap(n, oc, kh, kw, ih, iw);
            }
          }
          y[at4(out, n, oc, oh, ow)] = finish(acc, oc, p);
        }
}

// Filter [C_out, KH, KW, C_in] (OHWI).
Status quantized_conv2d_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor& w = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 13);
  ETKIT_TRY(check_conv_tensors(context, in, w, out));
  ETKIT_KERNEL_CHECK(context, w.size(0) == out.size(1) && w.size(3) == in.size(1),
                     "weight [%lld, %lld, %lld, %lld] does not map %lld input to %lld output channels",
                     (long long)w.size(0), (long long)w.size(1), (long long)w.size(2), (long long)w.size(3),
                     (long long)in.size(1), (long long)out.size(1));
  ConvParams p;
  ETKIT_TRY(conv_params(context, args, false, in, out, w.size(1), w.size(2), p));
  const int8_t* x = in.data_as<const int8_t>();
  const int8_t* wd = w.data_as<const int8_t>();
  convolve(in, out, w.size(1), w.size(2), p, [&](int64_t n, int64_t oc, int64_t kh, int64_t kw, int64_t ih, int64_t iw) {
    int32_t sum = 0;
    for (int64_t ic = 0; ic < in.size(1); ++ic) {
      sum += (int32_t(x[at4(in, n, ic, ih, iw)]) + p.input_offset) * int32_t(wd[at4(w, oc, kh, kw, ic)]);
    }
    return sum;
  });
  return Ok{};
}

// Filter [1, KH, KW, C_out]; output channel oc reads input channel
// oc / depth_multiplier.
Status quantized_depthwise_conv2d_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor& w = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 14);
  ETKIT_TRY(check_conv_tensors(context, in, w, out));
  const int64_t multiplier = int_arg(args, 6);
  ETKIT_KERNEL_CHECK(context, multiplier >= 1 && out.size(1) == in.size(1) * multiplier,
                     "%lld output channels are not %lld input channels times depth multiplier %lld",
                     (long long)out.size(1), (long long)in.size(1), (long long)multiplier);
  ETKIT_KERNEL_CHECK(context, w.size(0) == 1 && w.size(3) == out.size(1),
                     "weight must be [1, KH, KW, %lld], got [%lld, %lld, %lld, %lld]", (long long)out.size(1),
                     (long long)w.size(0), (long long)w.size(1), (long long)w.size(2), (long long)w.size(3));
  ConvParams p;
  ETKIT_TRY(conv_params(context, args, true, in, out, w.size(1), w.size(2), p));
  const int8_t* x = in.data_as<const int8_t>();
  const int8_t* wd = w.data_as<const int8_t>();
  convolve(in, out, w.size(1), w.size(2), p, [&](int64_t n, int64_t oc, int64_t kh, int64_t kw, int64_t ih, int64_t iw) {
    return (int32_t(x[at4(in, n, oc / multiplier, ih, iw)]) + p.input_offset) * int32_t(wd[at4(w, 0, kh, kw, oc)]);
  });
  return Ok{};
}

// ---- fully connected ----

// weights [out_features, in_features]; per-tensor requantization (the
// first multiplier and shift); kernel_sum is CMSIS-NN's precomputed
// shortcut and changes nothing.
Status quantized_linear_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor& w = tensor_arg(args, 1);
  const Tensor* bias = optional_tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 11);
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_TRY(check_int8(context, w, "weights"));
  ETKIT_TRY(check_int8(context, out, "out"));
  ETKIT_KERNEL_CHECK(context, w.dim() == 2 && in.dim() >= 1 && out.dim() == in.dim(),
                     "weights must be 2-D and out as many dims as input");
  const int64_t in_features = w.size(1), out_features = w.size(0);
  ETKIT_KERNEL_CHECK(context, in.size(in.dim() - 1) == in_features && out.size(out.dim() - 1) == out_features &&
                                  in.numel() / in_features == out.numel() / out_features,
                     "input [..., %lld] and out [..., %lld] do not fit weights [%lld, %lld]",
                     (long long)in.size(in.dim() - 1), (long long)out.size(out.dim() - 1), (long long)out_features,
                     (long long)in_features);
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order() && out.is_default_dim_order() && w.is_default_dim_order(),
                     "expects contiguous tensors");
  if (bias != nullptr) ETKIT_TRY(check_int32_vector(context, *bias, out_features, "bias"));
  IntList multipliers, shifts;
  ETKIT_TRY(int_list_arg(context, args, 7, multipliers));
  ETKIT_TRY(int_list_arg(context, args, 8, shifts));
  ETKIT_KERNEL_CHECK(context, multipliers.size >= 1 && shifts.size >= 1,
                     "requantize multipliers and shifts must hold a value");
  ETKIT_KERNEL_CHECK(context, cmsis::valid_shift(shifts[0]), "requantize shift %lld is outside [%d, %d]",
                     (long long)shifts[0], cmsis::kMinShift, cmsis::kMaxShift);
  const int32_t input_offset = int32_t(int_arg(args, 4)), filter_offset = int32_t(int_arg(args, 5));
  const int32_t output_offset = int32_t(int_arg(args, 6));
  const int32_t activation_max = int32_t(int_arg(args, 9)), activation_min = int32_t(int_arg(args, 10));
  const int8_t* x = in.data_as<const int8_t>();
  const int8_t* wd = w.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  const int32_t* b = bias ? bias->data_as<const int32_t>() : nullptr;
  for (int64_t row = 0; row < in.numel() / in_features; ++row)
    for (int64_t o = 0; o < out_features; ++o) {
      int32_t acc = b ? b[o] : 0;
      for (int64_t i = 0; i < in_features; ++i) {
        acc += (int32_t(x[row * in_features + i]) + input_offset) * (int32_t(wd[o * in_features + i]) + filter_offset);
      }
      acc = cmsis::requantize(acc, int32_t(multipliers[0]), int32_t(shifts[0])) + output_offset;
      y[row * out_features + o] = int8_t(cmsis::clamp(acc, activation_min, activation_max));
    }
  return Ok{};
}

// ---- pooling and padding ----

// The mean of each window's in-bounds int8 values (padding is not
// counted), rounded half away from zero; zero point, multiplier and shift
// are carried by the op but, as in upstream's kernel, not applied.
Status quantized_avg_pool2d_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 9);
  ETKIT_TRY(check_pool_tensors(context, in, out));
  PoolWindow window;
  ETKIT_TRY(pool_window_args(context, args, 1, window));
  ETKIT_TRY(check_pooled_sizes(context, in, out, window, bool_arg(args, 4)));
  const int8_t* x = in.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  return for_each_pool_window(in, out, window, [&](int64_t o, auto&& taps, int64_t oh, int64_t ow) -> Status {
    int32_t sum = 0, count = 0;
    taps([&](int64_t i) { sum += x[i], ++count; });
    ETKIT_KERNEL_CHECK(context, count > 0, "window (%lld, %lld) holds no input", (long long)oh, (long long)ow);
    y[o] = int8_t(cmsis::clamp(cmsis::rounded_average(sum, count), -128, 127));
    return Ok{};
  });
}

// Pads int8 data in memory order: pre_pad and post_pad give, per physical
// dimension (outermost first, right-aligned to 4), how many pad_value
// elements go before and after.
Status pad_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_TRY(check_int8(context, out, "out"));
  IntList pre, post;
  ETKIT_TRY(int_list_arg(context, args, 1, pre));
  ETKIT_TRY(int_list_arg(context, args, 2, post));
  ETKIT_KERNEL_CHECK(context, pre.size == 4 && post.size == 4,
                     "pre_pad and post_pad must have 4 values");
  ETKIT_KERNEL_CHECK(context, in.dim() >= 1 && in.dim() <= 4 && out.dim() == in.dim() &&
                                  same_dim_order(in, out),
                     "input and out must be 1-D to 4-D with the same dim order");
  int64_t in_dims[4] = {1, 1, 1, 1}, out_dims[4] = {1, 1, 1, 1};
  const int offset = 4 - in.dim();
  for (int i = 0; i < in.dim(); ++i) {
    in_dims[offset + i] = in.size(in.dim_order()[size_t(i)]);
    out_dims[offset + i] = out.size(out.dim_order()[size_t(i)]);
  }
  for (int d = 0; d < 4; ++d) {
    ETKIT_KERNEL_CHECK(context, pre[size_t(d)] >= 0 && post[size_t(d)] >= 0 &&
                                    out_dims[d] == in_dims[d] + pre[size_t(d)] + post[size_t(d)],
                       "out dimension %d is %lld, input %lld padded by %lld + %lld", d, (long long)out_dims[d],
                       (long long)in_dims[d], (long long)pre[size_t(d)], (long long)post[size_t(d)]);
  }
  const int8_t value = int8_t(int_arg(args, 3));
  const int8_t* x = in.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  int64_t i = 0;
  for (int64_t a = 0; a < out_dims[0]; ++a)
    for (int64_t b = 0; b < out_dims[1]; ++b)
      for (int64_t c = 0; c < out_dims[2]; ++c)
        for (int64_t d = 0; d < out_dims[3]; ++d, ++i) {
          const int64_t ia = a - pre[0], ib = b - pre[1], ic = c - pre[2], id = d - pre[3];
          const bool inside = ia >= 0 && ia < in_dims[0] && ib >= 0 && ib < in_dims[1] && ic >= 0 &&
                              ic < in_dims[2] && id >= 0 && id < in_dims[3];
          y[i] = inside ? x[((ia * in_dims[1] + ib) * in_dims[2] + ic) * in_dims[3] + id] : value;
        }
  return Ok{};
}

}  // namespace

void register_cortex_m_conv_linear_and_pad(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantize_per_tensor.out", "TdiiiiWW", quantize_per_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::dequantize_per_tensor.out", "TdiiiiWW", dequantize_per_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_conv2d.out", "TTtIIIiiTTiiTWW", quantized_conv2d_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_depthwise_conv2d.out", "TTtIIIiiiTTiiTWW",
                        quantized_depthwise_conv2d_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_linear.out", "TTttiiiIIiiWW", quantized_linear_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_avg_pool2d.out", "TIIIbiiiTWW", quantized_avg_pool2d_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::pad.out", "TIIiWW", pad_out);
}

}  // namespace etkit::kernels
