#pragma once
// The affine arithmetic every quantized_decomposed kernel shares, written
// from the formulas of upstream's decomposed quantization (ExecuTorch
// kernels/quantized, commit cff6f4dd32e6):
//   q = clamp(zero_point + round_half_even(x * (1 / scale)), qmin, qmax)
//   x = (q - zero_point) * scale
// with 1 / scale and the product in float32, as upstream computes them.

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <type_traits>

#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels::quantized {

/// Calls f with a value of a quantized dtype's C++ type: uint8, int8,
/// int16, uint16 (also as the legacy Bits16) or int32.
template <typename F>
[[nodiscard]] bool visit_quantized(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kByte: f(uint8_t{}); return true;
    case ScalarType::kChar: f(int8_t{}); return true;
    case ScalarType::kShort: f(int16_t{}); return true;
    case ScalarType::kUInt16:
    case ScalarType::kBits16: f(uint16_t{}); return true;
    case ScalarType::kInt: f(int32_t{}); return true;
    default: return false;
  }
}

/// f(float{}) etc. for the float dtypes a quantization reads and a
/// dequantization writes (upstream's float, double and half; bfloat16
/// too). Half types compute in float32.
template <typename F>
[[nodiscard]] bool visit_float(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kFloat: f(float{}); return true;
    case ScalarType::kDouble: f(double{}); return true;
    case ScalarType::kHalf: f(Half{}); return true;
    case ScalarType::kBFloat16: f(BFloat16{}); return true;
    default: return false;
  }
}

/// x * inv_scale rounded half to even, plus the zero point, clamped, as
/// the decomposed reference computes it (float32 for float inputs, double
/// for double ones). Infinities saturate; NaN passes the clamp and is
/// converted as ATen's cast converts it.
template <typename Q, typename V>
inline Q quantize_value(V x, float inv_scale, int64_t zero_point, int64_t qmin, int64_t qmax) {
  using Compute = std::conditional_t<std::is_same_v<V, double>, double, float>;
  Compute q = std::nearbyint(Compute(inv_scale) * Compute(x)) + Compute(zero_point);
  q = std::max(q, Compute(qmin));
  q = std::min(q, Compute(qmax));
  return convert<Q>(q);
}

/// (q - zero_point) * scale in float32.
template <typename Q>
inline float dequantize_value(Q q, int32_t zero_point, float scale) {
  return float(int32_t(q) - zero_point) * scale;
}

/// Whether [qmin, qmax] is ordered and within Q.
template <typename Q>
inline bool range_fits(int64_t qmin, int64_t qmax) {
  return qmin <= qmax && qmin >= int64_t(std::numeric_limits<Q>::min()) &&
         qmax <= int64_t(std::numeric_limits<Q>::max());
}

/// Splits a dense tensor around `axis` for per-channel loops: element
/// (o, c, i) is at (o * channels + c) * inner + i.
struct ChannelSplit {
  int64_t outer = 1, channels = 1, inner = 1;
};
inline ChannelSplit split_at(const Tensor& t, int axis) {
  ChannelSplit s;
  for (int d = 0; d < t.dim(); ++d) {
    if (d < axis) s.outer *= t.size(d);
    else if (d == axis) s.channels = t.size(d);
    else s.inner *= t.size(d);
  }
  return s;
}

}  // namespace etkit::kernels::quantized
