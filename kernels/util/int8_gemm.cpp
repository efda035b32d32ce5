#include "etkit/kernels/int8_gemm.h"
#include "etkit/kernels/cpu_features.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ETKIT_INT8_AVX2 1
#endif

namespace etkit::kernels {

// 16-bit products summed in 32 bits: the compiler's widening multiply-add
// (pmaddwd on x86, smlal on Arm).
int32_t dot_s8(const int8_t* x, const int8_t* w, size_t k) {
  int32_t sum = 0;
  for (size_t i = 0; i < k; ++i) sum += int32_t(int16_t(x[i]) * int16_t(w[i]));
  return sum;
}

int32_t dot_s8_u4(const int8_t* even, const int8_t* odd, const uint8_t* packed, size_t bytes) {
  int32_t sum = 0;
  for (size_t i = 0; i < bytes; ++i) {
    sum += int32_t(int16_t(even[i]) * int16_t(packed[i] & 0x0F)) + int32_t(int16_t(odd[i]) * int16_t(packed[i] >> 4));
  }
  return sum;
}

#ifdef ETKIT_INT8_AVX2
namespace {
// Two groups of 16 bytes per step with AVX2's unsigned x signed byte
// multiply-add (nibbles are unsigned, activations signed; a pair sums to at
// most 2 * 15 * 128, so nothing saturates), as XNNPACK's x86 kernels do.
// The baseline build is SSE2, so this is compiled for AVX2 alone and
// chosen at run time.
__attribute__((target("avx2"))) void group_dots_16_avx2(const int8_t* even, const int8_t* odd, const uint8_t* packed,
                                                         size_t groups, int32_t* dots) {
  const __m256i low_nibbles = _mm256_set1_epi8(0x0F);
  const __m256i ones = _mm256_set1_epi16(1);
  size_t g = 0;
  for (; g + 2 <= groups; g += 2) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(packed + 16 * g));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(even + 16 * g));
    const __m256i o = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(odd + 16 * g));
    const __m256i lo = _mm256_and_si256(b, low_nibbles);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), low_nibbles);
    const __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(lo, e), _mm256_maddubs_epi16(hi, o));
    __m256i sums = _mm256_madd_epi16(pairs, ones);  // 4 int32 per group, one group per 128-bit half
    sums = _mm256_hadd_epi32(sums, sums);
    sums = _mm256_hadd_epi32(sums, sums);
    dots[g] = _mm256_extract_epi32(sums, 0);
    dots[g + 1] = _mm256_extract_epi32(sums, 4);
  }
  for (; g < groups; ++g) dots[g] = dot_s8_u4(even + 16 * g, odd + 16 * g, packed + 16 * g, 16);
}

// The nibbles of one 32-byte chunk (two groups) of a weight row against
// four activation rows: four pair sums reduced together, so three
// horizontal adds give the four rows' totals of both groups (low 128 bits:
// the first group, high: the second).
__attribute__((target("avx2"))) inline __m256i four_row_sums(__m256i lo, __m256i hi, const int8_t* even,
                                                             const int8_t* odd, size_t row_stride) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i sums[4];
  for (size_t i = 0; i < 4; ++i) {
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(even + i * row_stride));
    const __m256i o = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(odd + i * row_stride));
    sums[i] = _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(lo, e), _mm256_maddubs_epi16(hi, o)), ones);
  }
  return _mm256_hadd_epi32(_mm256_hadd_epi32(sums[0], sums[1]), _mm256_hadd_epi32(sums[2], sums[3]));
}

__attribute__((target("avx2"))) void group_dots_rows_16_avx2(const int8_t* even, const int8_t* odd,
                                                              size_t row_stride, size_t rows, const uint8_t* packed,
                                                              size_t groups, int32_t* dots, DotLayout to) {
  const __m256i low_nibbles = _mm256_set1_epi8(0x0F);
  size_t g = 0;
  for (; g + 2 <= groups; g += 2) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(packed + 16 * g));
    const __m256i lo = _mm256_and_si256(b, low_nibbles);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), low_nibbles);
    size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      alignas(32) int32_t totals[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(totals),
                         four_row_sums(lo, hi, even + r * row_stride + 16 * g, odd + r * row_stride + 16 * g,
                                       row_stride));
      for (size_t i = 0; i < 4; ++i) {
        dots[(r + i) * to.row + g * to.group] = totals[i];
        dots[(r + i) * to.row + (g + 1) * to.group] = totals[4 + i];
      }
    }
    for (; r < rows; ++r) {
      int32_t pair[2];
      group_dots_16_avx2(even + r * row_stride + 16 * g, odd + r * row_stride + 16 * g, packed + 16 * g, 2, pair);
      dots[r * to.row + g * to.group] = pair[0];
      dots[r * to.row + (g + 1) * to.group] = pair[1];
    }
  }
  for (; g < groups; ++g) {
    for (size_t r = 0; r < rows; ++r) {
      dots[r * to.row + g * to.group] =
          dot_s8_u4(even + r * row_stride + 16 * g, odd + r * row_stride + 16 * g, packed + 16 * g, 16);
    }
  }
}

}  // namespace
#endif

void group_dots_s8_u4(const int8_t* even, const int8_t* odd, const uint8_t* packed, size_t groups,
                      size_t group_bytes, int32_t* dots, int32_t* scratch) {
#ifdef ETKIT_INT8_AVX2
  if (group_bytes == 16 && cpu_has_avx2()) {
    group_dots_16_avx2(even, odd, packed, groups, dots);
    return;
  }
#endif
  group_dots_s8_u4_generic(even, odd, packed, groups, group_bytes, dots, scratch);
}

void group_dots_s8_u4_rows(const int8_t* even, const int8_t* odd, size_t row_stride, size_t rows,
                           const uint8_t* packed, size_t groups, size_t group_bytes, int32_t* dots, DotLayout layout,
                           int32_t* scratch) {
#ifdef ETKIT_INT8_AVX2
  if (group_bytes == 16 && cpu_has_avx2()) {
    group_dots_rows_16_avx2(even, odd, row_stride, rows, packed, groups, dots, layout);
    return;
  }
#endif
  // One row's groups land in scratch past what the generic kernel uses.
  int32_t* row_dots = scratch + group_scratch_ints(groups);
  for (size_t r = 0; r < rows; ++r) {
    group_dots_s8_u4_generic(even + r * row_stride, odd + r * row_stride, packed, groups, group_bytes, row_dots,
                             scratch);
    for (size_t g = 0; g < groups; ++g) dots[r * layout.row + g * layout.group] = row_dots[g];
  }
}

// Groups of 16 bytes (32 columns) without a reduction per group: the
// byte products of the whole row first (int16: at most 2 * 128 * 15), then
// neighbours summed pairwise four times (16 -> 8 -> 4 -> 2 -> 1 per
// group), every pass a plain vectorizable loop over the row.
void group_dots_s8_u4_generic(const int8_t* even, const int8_t* odd, const uint8_t* packed, size_t groups,
                              size_t group_bytes, int32_t* dots, int32_t* scratch) {
  if (group_bytes != 16) {
    for (size_t g = 0; g < groups; ++g) {
      dots[g] = dot_s8_u4(even + g * group_bytes, odd + g * group_bytes, packed + g * group_bytes, group_bytes);
    }
    return;
  }
  const size_t bytes = groups * 16;
  int16_t* products = reinterpret_cast<int16_t*>(scratch);
  for (size_t i = 0; i < bytes; ++i) {
    products[i] = int16_t(int16_t(even[i]) * int16_t(packed[i] & 0x0F) + int16_t(odd[i]) * int16_t(packed[i] >> 4));
  }
  int32_t* sums = scratch + bytes / 2 + 1;  // past the int16 products
  for (size_t i = 0; i < bytes / 2; ++i) sums[i] = int32_t(products[2 * i]) + int32_t(products[2 * i + 1]);
  for (size_t width = bytes / 4; width > groups; width /= 2) {
    for (size_t i = 0; i < width; ++i) sums[i] = sums[2 * i] + sums[2 * i + 1];
  }
  for (size_t g = 0; g < groups; ++g) dots[g] = sums[2 * g] + sums[2 * g + 1];
}

void split_even_odd(const int8_t* x, size_t k, int8_t* even, int8_t* odd) {
  for (size_t i = 0; i < k / 2; ++i) {
    even[i] = x[2 * i];
    odd[i] = x[2 * i + 1];
  }
  if (k % 2 != 0) {
    even[k / 2] = x[k - 1];
    odd[k / 2] = 0;
  }
}

void unpack_s4(const uint8_t* packed, size_t k, int8_t* out) {
  const size_t pairs = k / 2;
  for (size_t i = 0; i < pairs; ++i) {
    const uint8_t byte = packed[i];
    out[2 * i] = int8_t((byte & 0x0F) - 8);
    out[2 * i + 1] = int8_t((byte >> 4) - 8);
  }
  if (k % 2 != 0) out[k - 1] = int8_t((packed[pairs] & 0x0F) - 8);
}

}  // namespace etkit::kernels
