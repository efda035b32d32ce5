#include "etkit/kernels/qd8_rows.h"
#include "etkit/kernels/cpu_features.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ETKIT_QD8_AVX2 1
#endif

namespace etkit::kernels {
namespace {

// std::nearbyint in the default rounding mode for |x| < 2^22 (here |x| is
// at most 255): adding 1.5 * 2^23 leaves no fraction bits, so the float add
// rounds half to even, and subtracting it back is exact.
constexpr float kRoundingShift = 12582912.0f;  // 1.5 * 2^23

inline float round_half_even(float x) { return (x + kRoundingShift) - kRoundingShift; }

}  // namespace

void finite_range_generic(const float* x, size_t n, float& min, float& max) {
  min = INFINITY;
  max = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) continue;
    min = std::min(min, x[i]);
    max = std::max(max, x[i]);
  }
}

void quantize_qd8_generic(const float* x, size_t n, float multiplier, float lo, float hi, int32_t zero_point,
                          int8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const float product = x[i] * multiplier;
    const float scaled = std::isnan(product) ? 0.0f : std::min(std::max(product, lo), hi);
    out[i] = int8_t(int32_t(round_half_even(scaled)) + zero_point);
  }
}

#ifdef ETKIT_QD8_AVX2
namespace {


// Which lanes are finite: |x| below infinity (false for NaN too).
__attribute__((target("avx2"))) inline __m256 finite_lanes(__m256 v) {
  const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
  return _mm256_cmp_ps(magnitude, _mm256_set1_ps(INFINITY), _CMP_LT_OQ);
}

__attribute__((target("avx2"))) float horizontal(__m256 v, bool smallest) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  float result = lanes[0];
  for (float lane : lanes) result = smallest ? std::min(result, lane) : std::max(result, lane);
  return result;
}

// Only the minimum and maximum are kept, so the order lanes are compared
// in does not change them (a zero's sign may differ, which the row's
// parameters do not see: they widen the range to include +0).
__attribute__((target("avx2"))) void finite_range_avx2(const float* x, size_t n, float& min, float& max) {
  __m256 lowest = _mm256_set1_ps(INFINITY), highest = _mm256_set1_ps(-INFINITY);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 finite = finite_lanes(v);
    lowest = _mm256_min_ps(lowest, _mm256_blendv_ps(_mm256_set1_ps(INFINITY), v, finite));
    highest = _mm256_max_ps(highest, _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), v, finite));
  }
  float tail_min, tail_max;
  finite_range_generic(x + i, n - i, tail_min, tail_max);
  min = std::min(horizontal(lowest, true), tail_min);
  max = std::max(horizontal(highest, false), tail_max);
}

// Eight values per step: the same float operations as the generic loop
// (a zero's sign may differ after the clamp, which rounding to an integer
// removes), then int32 -> int8 without saturation mattering (the clamp
// keeps every value in range).
__attribute__((target("avx2"))) void quantize_qd8_avx2(const float* x, size_t n, float multiplier, float lo,
                                                        float hi, int32_t zero_point, int8_t* out) {
  const __m256 scale = _mm256_set1_ps(multiplier), low = _mm256_set1_ps(lo), high = _mm256_set1_ps(hi);
  const __m256 shift = _mm256_set1_ps(kRoundingShift);
  const __m256i zero = _mm256_set1_epi32(zero_point);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 product = _mm256_mul_ps(_mm256_loadu_ps(x + i), scale);
    const __m256 ordered = _mm256_cmp_ps(product, product, _CMP_ORD_Q);
    const __m256 clamped = _mm256_and_ps(_mm256_min_ps(_mm256_max_ps(product, low), high), ordered);
    const __m256 rounded = _mm256_sub_ps(_mm256_add_ps(clamped, shift), shift);
    const __m256i values = _mm256_add_epi32(_mm256_cvttps_epi32(rounded), zero);
    const __m256i words = _mm256_packs_epi32(values, values);  // per 128-bit half: 4 values twice
    const __m256i bytes = _mm256_packs_epi16(words, words);
    const int32_t first = _mm_cvtsi128_si32(_mm256_castsi256_si128(bytes));
    const int32_t second = _mm_cvtsi128_si32(_mm256_extracti128_si256(bytes, 1));
    std::memcpy(out + i, &first, 4);
    std::memcpy(out + i + 4, &second, 4);
  }
  quantize_qd8_generic(x + i, n - i, multiplier, lo, hi, zero_point, out + i);
}

}  // namespace
#endif

void finite_range(const float* x, size_t n, float& min, float& max) {
#ifdef ETKIT_QD8_AVX2
  if (cpu_has_avx2()) {
    finite_range_avx2(x, n, min, max);
    return;
  }
#endif
  finite_range_generic(x, n, min, max);
}

void quantize_qd8(const float* x, size_t n, float multiplier, float lo, float hi, int32_t zero_point, int8_t* out) {
#ifdef ETKIT_QD8_AVX2
  if (cpu_has_avx2()) {
    quantize_qd8_avx2(x, n, multiplier, lo, hi, zero_point, out);
    return;
  }
#endif
  quantize_qd8_generic(x, n, multiplier, lo, hi, zero_point, out);
}

}  // namespace etkit::kernels
