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

/// dividend / 2^exponent rounded to nearest, ties away from zero.
inline int32_t divide_by_power_of_two(int32_t dividend, int32_t exponent) {
  if (exponent <= 0) return dividend;
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
  const int32_t scaled = int32_t(uint32_t(value) << left);
  return divide_by_power_of_two(doubling_high_multiply(scaled, multiplier), right);
}

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

}  // namespace etkit::kernels::cmsis
