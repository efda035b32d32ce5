#pragma once
// exp for float in a branch-free form compilers vectorize: range reduction
// to r in [-ln2/2, ln2/2], a degree-6 polynomial, and scaling by 2^n built
// from exponent bits (split in two factors so subnormal results and the
// top of the range stay representable). Within 2 ulp of the exact result;
// infinities, NaN, overflow and underflow behave as std::exp.

#include <cmath>
#include <cstdint>
#include <cstring>

namespace etkit::kernels {

inline float pow2_bits(int32_t e) {
  const int32_t bits = (e + 127) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline float exp_approx(float x) {
  constexpr float kHigh = 88.7228394f;   // largest x with finite exp
  constexpr float kLow = -103.972084f;   // below: exp rounds to 0
  const bool nan = x != x;
  float c = nan ? 0.0f : x;
  c = c > kHigh ? kHigh : c;
  c = c < kLow ? kLow : c;
  // Round to nearest by adding 1.5 * 2^23 (vectorizes without SSE4.1).
  const float n = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  // Cody-Waite split of ln2 keeps the reduction exact enough.
  float r = c - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t ni = static_cast<int32_t>(n);
  const int32_t half = ni / 2;
  float y = p * pow2_bits(half) * pow2_bits(ni - half);
  y = x > kHigh ? INFINITY : y;
  y = x < kLow ? 0.0f : y;
  return nan ? x : y;
}

}  // namespace etkit::kernels

// Hot loops are compiled twice: for the baseline ISA and for AVX2+FMA,
// chosen once at run time by CPU feature. (GCC's target_clones picks by
// CPU model for arch= targets and lacks AVX2 broadcasts for its plain
// "fma" target, so the choice is explicit.)
#if defined(__x86_64__) && defined(__GNUC__)
#define ETKIT_AVX2_FMA __attribute__((target("avx2,fma")))
inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#else
#define ETKIT_AVX2_FMA
inline bool cpu_has_avx2_fma() { return false; }
#endif

namespace etkit::kernels {

// Eight floats as one GCC vector: AVX registers in the avx2 clone, two SSE
// registers otherwise. Comparisons give lane masks and `?:` selects per
// lane, so NaN and range handling stay branch-free.
typedef float Float8 __attribute__((vector_size(32)));
typedef int32_t Int8 __attribute__((vector_size(32)));

__attribute__((always_inline)) inline Float8 splat(float v) {
  // Brace initialisation compiles to a single broadcast instruction.
  return Float8{v, v, v, v, v, v, v, v};
}

/// exp_approx on eight lanes at once (same algorithm, same results).
__attribute__((always_inline)) inline Float8 exp8(Float8 x) {
  const Float8 high = splat(88.7228394f), low = splat(-103.972084f);
  const Int8 nan = x != x;
  Float8 c = nan ? splat(0) : x;  // NaN lanes compute on 0, fixed at the end
  c = c > high ? high : c;
  c = c < low ? low : c;
  const Float8 n = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  Float8 r = c - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  Float8 p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const Int8 ni = __builtin_convertvector(n, Int8);
  const Int8 half = ni / 2;
  const Int8 e1 = (half + 127) << 23;
  const Int8 e2 = (ni - half + 127) << 23;
  // A cast between same-size GCC vectors reinterprets the bits.
  Float8 y = p * (Float8)e1 * (Float8)e2;
  y = x > high ? splat(INFINITY) : y;
  y = x < low ? splat(0) : y;
  return nan ? x : y;
}

__attribute__((always_inline)) inline Float8 load8(const float* p) {
  Float8 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
__attribute__((always_inline)) inline void store8(float* p, Float8 v) { std::memcpy(p, &v, sizeof(v)); }

/// Softmax (or log-softmax) of one contiguous float row.
__attribute__((always_inline)) inline void softmax_row_body(const float* x, float* y, int64_t n,
                                                            bool log) {
  // Max with NaN propagation, eight lanes wide.
  Float8 max8 = splat(-INFINITY);
  Int8 nan8 = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const Float8 v = load8(x + i);
    max8 = v > max8 ? v : max8;
    nan8 |= v != v;
  }
  float max = -INFINITY;
  bool nan = false;
  for (int k = 0; k < 8; ++k) {
    max = max8[k] > max ? max8[k] : max;
    nan |= nan8[k] != 0;
  }
  for (; i < n; ++i) {
    max = x[i] > max ? x[i] : max;
    nan |= x[i] != x[i];
  }
  if (nan) max = NAN;
  // exp into y (log-softmax overwrites it below) and the sum, per lane.
  Float8 sum8 = {};
  for (i = 0; i + 8 <= n; i += 8) {
    const Float8 e = exp8(load8(x + i) - max);
    store8(y + i, e);
    sum8 += e;
  }
  float sum = 0;
  for (int k = 0; k < 8; ++k) sum += sum8[k];
  for (; i < n; ++i) {
    y[i] = exp_approx(x[i] - max);
    sum += y[i];
  }
  if (log) {
    const float shift = max + std::log(sum);
    for (int64_t j = 0; j < n; ++j) y[j] = x[j] - shift;
  } else {
    const float scale = 1.0f / sum;
    for (int64_t j = 0; j < n; ++j) y[j] *= scale;
  }
}

ETKIT_AVX2_FMA inline void softmax_row_avx2(const float* x, float* y, int64_t n, bool log) {
  softmax_row_body(x, y, n, log);
}
inline void softmax_row_baseline(const float* x, float* y, int64_t n, bool log) {
  softmax_row_body(x, y, n, log);
}
inline void softmax_row(const float* x, float* y, int64_t n, bool log) {
  if (cpu_has_avx2_fma()) {
    softmax_row_avx2(x, y, n, log);
  } else {
    softmax_row_baseline(x, y, n, log);
  }
}

}  // namespace etkit::kernels
