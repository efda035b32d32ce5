// cortex_m:: elementwise int8 ops: quantized add and mul (CMSIS-NN's
// arm_elementwise_add_s8 / _mul_s8 arithmetic), quantized div (upstream's
// float-scaled quotient), the table lookup of quantized activations, and
// minimum / maximum. Operands either share a shape or broadcast as
// NumPy does (upstream's add and mul broadcast one [1, C, 1, 1] operand
// over channels; min and max broadcast any size-1 dim); elements are
// addressed through the strides, so any dim order works.

#include <algorithm>
#include <cmath>

#include "cmsis_arithmetic.h"
#include "cortex_m_families.h"
#include "cortex_m_util.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

// Resizes out to the broadcast of a and b, then calls f(a_offset,
// b_offset, out_offset) for every element of out.
template <typename F>
Status for_each_pair(KernelContext& context, const Tensor& a, const Tensor& b, Tensor& out, F&& f) {
  int64_t sizes[kMaxRank];
  int rank = 0;
  ETKIT_KERNEL_CHECK(context, broadcast_shape(a.sizes(), b.sizes(), sizes, rank),
                     "operand shapes do not broadcast");
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(rank))));
  int64_t sa[kMaxRank], sb[kMaxRank];
  broadcast_strides(a, rank, sizes, sa);
  broadcast_strides(b, rank, sizes, sb);
  const int64_t* strides[3] = {sa, sb, out.strides().data()};
  for_each_index<3>(rank, sizes, strides, [&](const int64_t* o) { f(o[0], o[1], o[2]); });
  return Ok{};
}

Status check_int8_operands(KernelContext& context, const Tensor& a, const Tensor& b, const Tensor& out) {
  ETKIT_TRY(check_int8(context, a, "self"));
  ETKIT_TRY(check_int8(context, b, "other"));
  return check_int8(context, out, "out");
}

Status check_int32_arg(KernelContext& context, int64_t value, const char* what) {
  ETKIT_KERNEL_CHECK(context, value >= INT32_MIN && value <= INT32_MAX, "%s %lld does not fit int32", what,
                     static_cast<long long>(value));
  return Ok{};
}

// quantized_add.out(self, self_zero_point, self_multiplier, self_shift, other, other_zero_point,
//                   other_multiplier, other_shift, output_zero_point, output_multiplier,
//                   output_shift, activation_min, activation_max, *, out)
// Each input, offset by minus its zero point, is scaled up by 2^20 and
// requantized by its own multiplier and shift; the sum is requantized by
// the output's, offset and clamped.
Status quantized_add_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 4);
  Tensor& out = tensor_arg(args, 13);
  ETKIT_TRY(check_int8_operands(context, a, b, out));
  for (size_t i : {1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12}) ETKIT_TRY(check_int32_arg(context, int_arg(args, i), "argument"));
  const int32_t a_offset = -int32_t(int_arg(args, 1)), b_offset = -int32_t(int_arg(args, 5));
  const int32_t a_mult = int32_t(int_arg(args, 2)), a_shift = int32_t(int_arg(args, 3));
  const int32_t b_mult = int32_t(int_arg(args, 6)), b_shift = int32_t(int_arg(args, 7));
  const int32_t out_offset = int32_t(int_arg(args, 8));
  const int32_t out_mult = int32_t(int_arg(args, 9)), out_shift = int32_t(int_arg(args, 10));
  for (const int32_t shift : {a_shift, b_shift, out_shift}) {
    ETKIT_KERNEL_CHECK(context, cmsis::valid_shift(shift), "shift %d is outside [%d, %d]", shift, cmsis::kMinShift,
                       cmsis::kMaxShift);
  }
  const int32_t act_min = int32_t(int_arg(args, 11)), act_max = int32_t(int_arg(args, 12));
  constexpr int kLeftShift = 20;
  const int8_t* x = a.data_as<const int8_t>();
  const int8_t* y = b.data_as<const int8_t>();
  int8_t* z = out.data_as<int8_t>();
  return for_each_pair(context, a, b, out, [&](int64_t i, int64_t j, int64_t k) {
    const int32_t lhs = cmsis::requantize((int32_t(x[i]) + a_offset) * (1 << kLeftShift), a_mult, a_shift);
    const int32_t rhs = cmsis::requantize((int32_t(y[j]) + b_offset) * (1 << kLeftShift), b_mult, b_shift);
    const int32_t sum = cmsis::requantize(lhs + rhs, out_mult, out_shift) + out_offset;
    z[k] = int8_t(cmsis::clamp(sum, act_min, act_max));
  });
}

// quantized_mul.out(self, self_zero_point, other, other_zero_point, output_zero_point,
//                   output_multiplier, output_shift, *, out): the product of the
// offset inputs, requantized, offset and clamped to int8.
Status quantized_mul_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 7);
  ETKIT_TRY(check_int8_operands(context, a, b, out));
  for (size_t i : {1, 3, 4, 5, 6}) ETKIT_TRY(check_int32_arg(context, int_arg(args, i), "argument"));
  const int32_t a_offset = -int32_t(int_arg(args, 1)), b_offset = -int32_t(int_arg(args, 3));
  const int32_t out_offset = int32_t(int_arg(args, 4));
  const int32_t out_mult = int32_t(int_arg(args, 5)), out_shift = int32_t(int_arg(args, 6));
  ETKIT_KERNEL_CHECK(context, cmsis::valid_shift(out_shift), "output_shift %d is outside [%d, %d]", out_shift,
                     cmsis::kMinShift, cmsis::kMaxShift);
  const int8_t* x = a.data_as<const int8_t>();
  const int8_t* y = b.data_as<const int8_t>();
  int8_t* z = out.data_as<int8_t>();
  return for_each_pair(context, a, b, out, [&](int64_t i, int64_t j, int64_t k) {
    const int32_t product = (int32_t(x[i]) + a_offset) * (int32_t(y[j]) + b_offset);
    z[k] = int8_t(cmsis::clamp(cmsis::requantize(product, out_mult, out_shift) + out_offset, -128, 127));
  });
}

// quantized_div.out(self, self_zero_point, other, other_zero_point, output_zero_point,
//                   output_scale, *, out): int8 or int16; the float quotient of the
// offset inputs (0 for a zero divisor) times the scale, rounded half away
// from zero, offset and saturated. Operands share a shape, as upstream requires.
Status quantized_div_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 7);
  const ScalarType type = out.scalar_type();
  ETKIT_KERNEL_CHECK(context, type == ScalarType::kChar || type == ScalarType::kShort,
                     "out must be int8 or int16, got %s", to_string(type));
  ETKIT_KERNEL_CHECK(context, a.scalar_type() == type && b.scalar_type() == type,
                     "self, other and out must share a dtype");
  ETKIT_KERNEL_CHECK(context, same_sizes(a, b), "self and other must have the same shape");
  const int32_t a_zero = int32_t(int_arg(args, 1)), b_zero = int32_t(int_arg(args, 3));
  const float out_zero = float(int32_t(int_arg(args, 4)));
  const float scale = float(double_arg(args, 5));
  return dispatch_integral(context, type, [&](auto tag) -> Status {
    using Q = decltype(tag);
    const Q* x = a.data_as<const Q>();
    const Q* y = b.data_as<const Q>();
    Q* z = out.data_as<Q>();
    const float lo = float(std::numeric_limits<Q>::min()), hi = float(std::numeric_limits<Q>::max());
    return for_each_pair(context, a, b, out, [&](int64_t i, int64_t j, int64_t k) {
      const int32_t numerator = int32_t(x[i]) - a_zero, denominator = int32_t(y[j]) - b_zero;
      const float quotient = denominator != 0 ? float(numerator) / float(denominator) : 0.0f;
      const float scaled = std::round(quotient * scale) + out_zero;
      z[k] = Q(std::max(lo, std::min(hi, scaled)));
    });
  });
}

// quantized_activation.out(input, lut, *, out): out = lut[input + 128], a
// 256-entry int8 table the AoT pass computes for the activation.
Status quantized_activation_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor& lut = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_TRY(check_int8(context, lut, "lut"));
  ETKIT_TRY(check_int8(context, out, "out"));
  ETKIT_KERNEL_CHECK(context, lut.numel() == 256, "lut must have 256 entries, got %lld",
                     static_cast<long long>(lut.numel()));
  ETKIT_KERNEL_CHECK(context, same_dim_order(in, out), "input and out must share a dim order");
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const int8_t* x = in.data_as<const int8_t>();
  const int8_t* table = lut.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  for (int64_t i = 0; i < in.numel(); ++i) y[i] = table[uint8_t(int32_t(x[i]) + 128)];
  return Ok{};
}

template <bool maximum>
Status extreme_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_int8_operands(context, a, b, out));
  const int8_t* x = a.data_as<const int8_t>();
  const int8_t* y = b.data_as<const int8_t>();
  int8_t* z = out.data_as<int8_t>();
  return for_each_pair(context, a, b, out, [&](int64_t i, int64_t j, int64_t k) {
    z[k] = maximum ? std::max(x[i], y[j]) : std::min(x[i], y[j]);
  });
}

}  // namespace

void register_cortex_m_elementwise_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_add.out", "TiiiTiiiiiiiiWW", quantized_add_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_mul.out", "TiTiiiiWW", quantized_mul_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_div.out", "TiTiidWW", quantized_div_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_activation.out", "TTWW", quantized_activation_out);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::minimum.out", "TTWW", extreme_out<false>);
  ETKIT_REGISTER_KERNEL(r, "cortex_m::maximum.out", "TTWW", extreme_out<true>);
}

}  // namespace etkit::kernels
