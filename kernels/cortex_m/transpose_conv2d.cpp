// cortex_m::quantized_transpose_conv2d: an int8 transposed convolution
// (CMSIS-NN's arm_transpose_conv_s8) with PyTorch's geometry: input pixel
// (ih, iw) reaches output (ih * stride - padding + k * dilation), the
// output has (in - 1) * stride - 2 * padding + dilation * (k - 1) +
// output_padding + 1 rows. Each output sums bias and (x + input_offset) * w
// in int32, is requantized by its channel's multiplier and shift, offset
// and clamped. Filter layout [C_out, KH, KW, C_in] (OHWI).

#include "cmsis_arithmetic.h"
#include "cortex_m_families.h"
#include "cortex_m_util.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

// A transposed convolution's output height and width, from the input's
// (PyTorch's formula), against the out tensor's.
Status check_output_size(KernelContext& context, const Tensor& in, const Tensor& out, const int64_t kernel[2],
                         const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                         const int64_t dilation[2]) {
  for (int d = 0; d < 2; ++d) {
    const int64_t expected =
        (in.size(2 + d) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + output_padding[d] + 1;
    ETKIT_KERNEL_CHECK(context, out.size(2 + d) == expected, "output %s is %lld, the geometry gives %lld",
                       d == 0 ? "height" : "width", static_cast<long long>(out.size(2 + d)),
                       static_cast<long long>(expected));
  }
  return Ok{};
}

// quantized_transpose_conv2d.out(input, weight, bias?, stride, padding, output_padding, dilation,
//     input_offset, output_offset, requantize_multipliers, requantize_shifts, activation_min,
//     activation_max, scratch, output_scratch, *, out)
Status quantized_transpose_conv2d_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor& w = tensor_arg(args, 1);
  const Tensor* bias = optional_tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 15);
  ETKIT_KERNEL_CHECK(context, in.dim() == 4 && w.dim() == 4 && out.dim() == 4, "input, weight and out must be 4-D");
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_TRY(check_int8(context, w, "weight"));
  ETKIT_TRY(check_int8(context, out, "out"));
  int64_t stride[2], padding[2], output_padding[2], dilation[2];
  ETKIT_TRY(pair_arg(context, args, 3, "stride", 1, stride));
  ETKIT_TRY(pair_arg(context, args, 4, "padding", 0, padding));
  ETKIT_TRY(pair_arg(context, args, 5, "output_padding", 0, output_padding));
  ETKIT_TRY(pair_arg(context, args, 6, "dilation", 1, dilation));
  const int64_t channels_out = w.size(0), kernel_h = w.size(1), kernel_w = w.size(2), channels_in = w.size(3);
  ETKIT_KERNEL_CHECK(context, in.size(1) == channels_in && out.size(1) == channels_out && in.size(0) == out.size(0),
                     "weight [%lld, %lld, %lld, %lld] does not map input channels %lld to out channels %lld",
                     static_cast<long long>(channels_out), static_cast<long long>(kernel_h),
                     static_cast<long long>(kernel_w), static_cast<long long>(channels_in),
                     static_cast<long long>(in.size(1)), static_cast<long long>(out.size(1)));
  const int64_t kernel[2] = {kernel_h, kernel_w};
  ETKIT_TRY(check_output_size(context, in, out, kernel, stride, padding, output_padding, dilation));
  ETKIT_TRY(check_int32_vector(context, tensor_arg(args, 9), channels_out, "requantize multipliers"));
  ETKIT_TRY(check_int32_vector(context, tensor_arg(args, 10), channels_out, "requantize shifts"));
  ETKIT_TRY(check_shifts(context, tensor_arg(args, 10)));
  if (bias != nullptr) ETKIT_TRY(check_int32_vector(context, *bias, channels_out, "bias"));
  const int32_t input_offset = int32_t(int_arg(args, 7)), output_offset = int32_t(int_arg(args, 8));
  const int32_t act_min = int32_t(int_arg(args, 11)), act_max = int32_t(int_arg(args, 12));
  const int32_t* multipliers = tensor_arg(args, 9).data_as<const int32_t>();
  const int32_t* shifts = tensor_arg(args, 10).data_as<const int32_t>();
  const int32_t* b = bias ? bias->data_as<const int32_t>() : nullptr;
  const int8_t* x = in.data_as<const int8_t>();
  const int8_t* wd = w.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  // Gather form: output (oh, ow) takes input (ih, iw) through tap (kh, kw)
  // when oh + padding - kh * dilation is a multiple of stride.
  for (int64_t n = 0; n < out.size(0); ++n)
    for (int64_t oc = 0; oc < channels_out; ++oc)
      for (int64_t oh = 0; oh < out.size(2); ++oh)
        for (int64_t ow = 0; ow < out.size(3); ++ow) {
          int32_t acc = b ? b[oc] : 0;
          for (int64_t kh = 0; kh < kernel_h; ++kh) {
            const int64_t th = oh + padding[0] - kh * dilation[0];
            if (th < 0 || th % stride[0] != 0 || th / stride[0] >= in.size(2)) continue;
            for (int64_t kw = 0; kw < kernel_w; ++kw) {
              const int64_t tw = ow + padding[1] - kw * dilation[1];
              if (tw < 0 || tw % stride[1] != 0 || tw / stride[1] >= in.size(3)) continue;
              for (int64_t ic = 0; ic < channels_in; ++ic) {
                acc += (int32_t(x[at4(in, n, ic, th / stride[0], tw / stride[1])]) + input_offset) *
                       int32_t(wd[at4(w, oc, kh, kw, ic)]);
              }
            }
          }
          acc = cmsis::requantize(acc, multipliers[oc], shifts[oc]) + output_offset;
          y[at4(out, n, oc, oh, ow)] = int8_t(cmsis::clamp(acc, act_min, act_max));
        }
  return Ok{};
}

}  // namespace

void register_cortex_m_transpose_conv2d(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_transpose_conv2d.out", "TTtIIIIiiTTiiTTWW",
                        quantized_transpose_conv2d_out);
}

}  // namespace etkit::kernels
