#pragma once
// The integer arithmetic of upstream's Cortex-M backend, which calls
// CMSIS-NN: requantization of int32 accumulators by a Q31 multiplier and a
// power-of-two shift, with CMSIS-NN's default (double) rounding. Written
// from CMSIS-NN's documented semantics; these few lines decide every output
// bit of the cortex_m:: kernels, so they are tested against hand-derived
// values (tests/core/cortex_m_ops_test.cpp).

#include <cmath>
#include <cstdint>

namespace etkit::kernels::cmsis {

/// round(a * b / 2^31) with the rounding offset 2^30 added before the shift
/// (CMSIS-NN's doubling high multiply without saturation).
inline int32_t doubling_high_multiply(int32_t a, int32_t b) {
  const int64_t product = int64_t(a) * int64_t(b) + (int64_t(1) << 30);
  return int32_t(product >> 31);  // arithmetic shift: floor
}

/// dividend / 2^exponent rounded to nearest, ties away from zero. Total
/// for any exponent: past 31 every int32 rounds to 0 (kernels refuse such
/// shifts, but the arithmetic itself never shifts out of range).
inline int32_t divide_by_power_of_two(int32_t dividend, int32_t exponent) {
  if (exponent <= 0) return dividend;
  if (exponent > 31) return 0;
  const int32_t mask = int32_t((int64_t(1) << exponent) - 1);
  const int32_t remainder = dividend & mask;
  int32_t result = dividend >> exponent;
  int32_t threshold = mask >> 1;
  if (result < 0) ++threshold;
  if (remainder > threshold) ++result;
  return result;
}

/// value * multiplier / 2^(31 - shift): a positive shift scales up before
/// the multiply, a negative one divides after it.
inline int32_t requantize(int32_t value, int32_t multiplier, int32_t shift) {
  const int32_t left = shift > 0 ? shift : 0;
  const int32_t right = shift > 0 ? 0 : -shift;
  // The left shift wraps like CMSIS-NN's 32-bit multiply, without the
  // undefined behaviour of a signed overflow.
  const int32_t scaled = left > 31 ? 0 : int32_t(uint32_t(value) << left);
  return divide_by_power_of_two(doubling_high_multiply(scaled, multiplier), right);
}

/// Shifts a 32-bit requantization can mean: beyond ±31 every value
/// vanishes or wraps away, so kernels refuse them as a corrupted parameter.
constexpr int32_t kMinShift = -31, kMaxShift = 31;
inline bool valid_shift(int64_t shift) { return shift >= kMinShift && shift <= kMaxShift; }

inline int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// Average of `count` summed int8 values, rounded half away from zero (as
/// CMSIS-NN's reference average pooling does).
inline int32_t rounded_average(int32_t sum, int32_t count) {
  return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
}

/// q = zero_point + nearbyint(x * (1 / scale)) in float32, clamped. A NaN
/// becomes the zero point, as the float-to-int conversion of the Arm cores
/// this backend targets gives 0 for it; huge values saturate before the
/// conversion, so host and board agree bit for bit.
inline int32_t quantize_value(float x, float inv_scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  float r = std::nearbyint(inv_scale * x);
  if (std::isnan(r)) r = 0;
  r = r < -2147483648.0f ? -2147483648.0f : (r > 2147483520.0f ? 2147483520.0f : r);
  const int64_t q = int64_t(zero_point) + int64_t(r);
  return int32_t(q < qmin ? qmin : (q > qmax ? qmax : q));
}

// ---- fixed-point helpers of CMSIS-NN's int8 softmax ----
// Q31 arithmetic of the gemmlowp kind that CMSIS-NN's softmax uses:
// exp on [-inf, 0] by a polynomial on the last quarter and powers of two
// for the rest, 1 / (1 + x) by Newton-Raphson, both with saturating
// rounding multiplies. Known values are tested in cortex_m_ops_test.cpp.

/// round(a * b / 2^31) with rounding half away from zero and saturation of
/// the one overflowing case (INT32_MIN squared), like VQRDMULH.
inline int32_t saturating_doubling_high_multiply(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  int64_t product = int64_t(a) * int64_t(b);
  product += (a < 0) != (b < 0) ? 1 - (int64_t(1) << 30) : (int64_t(1) << 30);
  return int32_t(product / (int64_t(1) << 31));  // C division: toward zero
}

/// value * 2^exponent, saturated to int32.
inline int32_t saturating_multiply_by_power_of_two(int32_t value, int32_t exponent) {
  const int32_t threshold = int32_t((int64_t(1) << (31 - exponent)) - 1);
  if (value > threshold) return INT32_MAX;
  if (value < -threshold) return INT32_MIN;
  return int32_t(uint32_t(value) << exponent);
}

/// exp(x) for x <= 0, x in Q5.26 (value / 2^26), result in Q0.31.
inline int32_t exp_on_negative_values(int32_t value) {
  const int32_t mod_minus_quarter = (value & ((1 << 24) - 1)) - (1 << 24);
  const int32_t remainder = mod_minus_quarter - value;
  const int32_t x = int32_t(uint32_t(mod_minus_quarter) << 5) + (1 << 28);
  const int32_t x2 = saturating_doubling_high_multiply(x, x);
  const int32_t x3 = saturating_doubling_high_multiply(x2, x);
  const int32_t x4_over_4 = divide_by_power_of_two(saturating_doubling_high_multiply(x2, x2), 2);
  const int32_t poly = x + divide_by_power_of_two(
                               saturating_doubling_high_multiply(x4_over_4 + x3, 715827883) + x2, 1);
  int32_t result = 1895147668 + saturating_doubling_high_multiply(1895147668, poly);
  // exp(-2^k / 4) for k = 0..6, applied for each set bit of the remainder.
  const int32_t factors[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = 0; k < 7; ++k) {
    if (remainder & (1 << (24 + k))) result = saturating_doubling_high_multiply(result, factors[k]);
  }
  return value == 0 ? INT32_MAX : result;
}

/// 1 / (1 + x) for x in [0, 1) in Q0.31, result in Q0.31 (scaled by 1/2).
inline int32_t one_over_one_plus_x(int32_t value) {
  const int64_t sum = int64_t(value) + int64_t(INT32_MAX);
  const int32_t half_denominator = int32_t((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t x = 1515870810 + saturating_doubling_high_multiply(half_denominator, -1010580540);
  const int32_t one_quarter = 1 << 29;
  for (int i = 0; i < 3; ++i) {
    x += saturating_multiply_by_power_of_two(
        saturating_doubling_high_multiply(x, one_quarter - saturating_doubling_high_multiply(half_denominator, x)),
        2);
  }
  return saturating_multiply_by_power_of_two(x, 1);
}

inline int32_t count_leading_zeros(uint32_t value) {
  int32_t n = 0;
  while (n < 32 && !(value & (0x80000000u >> n))) ++n;
  return n;
}

}  // namespace etkit::kernels::cmsis
