// cortex_m::quantized_max_pool2d: the largest int8 value of each window's
// in-bounds taps (padding never wins), clamped to the activation range
// (CMSIS-NN's arm_max_pool_s8). As upstream, the input and output zero
// points must be equal (max commutes with the affine map), dilation is 1
// and ceil_mode is off.

#include "cmsis_arithmetic.h"
#include "cortex_m_families.h"
#include "cortex_m_util.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

// quantized_max_pool2d.out(input, kernel_size, stride, padding, dilation, ceil_mode,
//     input_zero_point, output_zero_point, activation_min, activation_max, *, out)
Status quantized_max_pool2d_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 10);
  ETKIT_TRY(check_pool_tensors(context, in, out));
  PoolWindow window;
  ETKIT_TRY(pool_window_args(context, args, 1, window));
  int64_t dilation[2];
  ETKIT_TRY(pair_arg(context, args, 4, "dilation", 1, dilation));
  ETKIT_KERNEL_CHECK(context, dilation[0] == 1 && dilation[1] == 1, "dilation must be 1 (as upstream)");
  ETKIT_KERNEL_CHECK(context, !bool_arg(args, 5), "ceil_mode is not supported (as upstream)");
  const int64_t in_zero = int_arg(args, 6), out_zero = int_arg(args, 7);
  ETKIT_KERNEL_CHECK(context, in_zero == out_zero && in_zero >= -128 && in_zero <= 127,
                     "input and output zero points must be one int8 value, got %lld and %lld",
                     static_cast<long long>(in_zero), static_cast<long long>(out_zero));
  const int64_t act_min = int_arg(args, 8), act_max = int_arg(args, 9);
  ETKIT_KERNEL_CHECK(context, act_min <= act_max && act_min >= INT32_MIN && act_max <= INT32_MAX,
                     "activation range [%lld, %lld] is not ordered", static_cast<long long>(act_min),
                     static_cast<long long>(act_max));
  ETKIT_TRY(check_pooled_sizes(context, in, out, window, false));
  const int8_t* x = in.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  return for_each_pool_window(in, out, window, [&](int64_t o, auto&& taps, int64_t oh, int64_t ow) -> Status {
    int32_t best = INT32_MIN;
    taps([&](int64_t i) { best = std::max(best, int32_t(x[i])); });
    ETKIT_KERNEL_CHECK(context, best != INT32_MIN, "window (%lld, %lld) holds no input", static_cast<long long>(oh),
                       static_cast<long long>(ow));
    y[o] = int8_t(cmsis::clamp(best, int32_t(act_min), int32_t(act_max)));
    return Ok{};
  });
}

}  // namespace

void register_cortex_m_max_pool2d(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_max_pool2d.out", "TIIIIbiiiiWW", quantized_max_pool2d_out);
}

}  // namespace etkit::kernels
