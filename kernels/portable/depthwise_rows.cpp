// The float32 depthwise convolution's vector path (depthwise_rows.h).
//
// A depthwise 3 x 3 does nine multiply-adds per output and reads each input
// nine times, so what it costs is loads and latency, not arithmetic. An
// output row at a time (the path this replaces) loaded three input rows for
// each output row and ran short chains of dependent multiply-adds; here a
// tile of up to four output rows by sixteen columns stays in registers
// while the input rows under it go by once each, every row fused into each
// output row it feeds, so a load serves up to three multiply-adds and eight
// independent chains hide the multiply-add's latency. Columns whose taps
// all read inside the row go unmasked; only the edge columns take masks.

#include "depthwise_rows.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "etkit/kernels/cpu_features.h"
#include "etkit/kernels/fast_math.h"

namespace etkit::kernels {
namespace {

constexpr int64_t kMaxTaps = 64;

// Where the phase planes of a stride-2 input plane need room.
size_t phase_plane_bytes(const ConvShape& s) {
  return s.stride_w == 1 ? 0 : sizeof(float) * size_t(s.stride_w * s.in_h * ((s.in_w + s.stride_w - 1) / s.stride_w));
}

}  // namespace

// Off x86 there is no vector path: nothing suits it, so the stub below is
// never called.
bool depthwise_rows_suit(const ConvShape& s, size_t scratch_bytes) {
#if !defined(__x86_64__)
  return false;
#endif
  return s.is[3] == 1 && s.os[3] == 1 && (s.stride_w == 1 || s.stride_w == 2) && s.k_h * s.k_w <= kMaxTaps &&
         phase_plane_bytes(s) <= scratch_bytes && s.in_w < (int64_t{1} << 28) &&
         s.out_w < (int64_t{1} << 28);  // lane columns in 32 bits
}

#if defined(__x86_64__)
namespace {

// Output columns [lo, hi) whose every tap reads inside the input row.
void interior_columns(const ConvShape& s, int64_t& lo, int64_t& hi) {
  lo = std::min(s.out_w, (s.pad_w + s.stride_w - 1) / s.stride_w);
  const int64_t last = s.in_w - 1 - (s.k_w - 1) * s.dil_w + s.pad_w;  // the largest ow * stride allowed
  hi = last < 0 ? lo : std::clamp(last / s.stride_w + 1, lo, s.out_w);
}

// An input plane as `stride` phase planes, phase r holding its columns
// r, r + stride, …: at stride 2 the even and the odd columns apart, so the
// eight inputs a tap needs for eight outputs are one contiguous load. At
// stride 1 the plane itself.
struct PhasePlanes {
  const float* data;
  int64_t row_stride;    ///< between rows of one phase
  int64_t phase_stride;  ///< between phases
  /// Input column ow * stride + offset is (ow + q) * stride + r: column
  /// ow + q of phase r, this far from column ow of phase 0.
  int64_t offset_of(const ConvShape& s, int64_t offset) const {
    const int64_t r = ((offset % s.stride_w) + s.stride_w) % s.stride_w;
    return r * phase_stride + (offset - r) / s.stride_w;
  }
};

ETKIT_AVX2_FMA PhasePlanes split_phases(const ConvShape& s, const float* plane, float* scratch) {
  if (s.stride_w == 1) return {plane, s.is[2], 0};
  // Stride 2 (the only other one this path takes): sixteen columns at a
  // time into eight even and eight odd ones.
  const int64_t width = (s.in_w + 1) / 2;
  float* even = scratch;
  float* odd = scratch + s.in_h * width;
  for (int64_t ih = 0; ih < s.in_h; ++ih) {
    const float* row = plane + ih * s.is[2];
    float* even_row = even + ih * width;
    float* odd_row = odd + ih * width;
    int64_t j = 0;
    for (; 2 * j + 16 <= s.in_w; j += 8) {
      const __m256 a = _mm256_loadu_ps(row + 2 * j), b = _mm256_loadu_ps(row + 2 * j + 8);
      // a0 a2 b0 b2 a4 a6 b4 b6 and a1 a3 b1 b3 a5 a7 b5 b7, then the 64-bit lanes in order.
      const __m256 evens = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
      const __m256 odds = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
      _mm256_storeu_ps(even_row + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(evens), _MM_SHUFFLE(3, 1, 2, 0))));
      _mm256_storeu_ps(odd_row + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(odds), _MM_SHUFFLE(3, 1, 2, 0))));
    }
    for (; 2 * j < s.in_w; ++j) {
      even_row[j] = row[2 * j];
      if (2 * j + 1 < s.in_w) odd_row[j] = row[2 * j + 1];
    }
  }
  return {scratch, width, s.in_h * width};
}

// Eight float lanes, and lane masks as AVX2 keeps them (all ones where set).
struct Lanes8 {
  static constexpr int64_t kWidth = 8;
  using V = __m256;
  using Mask = __m256i;
  static ETKIT_AVX2_FMA V splat(float x) { return _mm256_set1_ps(x); }
  static ETKIT_AVX2_FMA V load(const float* p) { return _mm256_loadu_ps(p); }
  static ETKIT_AVX2_FMA V load(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static ETKIT_AVX2_FMA void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static ETKIT_AVX2_FMA void store(float* p, Mask m, V v) { _mm256_maskstore_ps(p, m, v); }
  static ETKIT_AVX2_FMA V fma(V w, V x, V acc) { return _mm256_fmadd_ps(w, x, acc); }
  /// acc + w * x in the lanes of m; acc itself in the others (the tap
  /// skipped there, not w * 0 added, which would turn -0 and infinities).
  static ETKIT_AVX2_FMA V fma(Mask m, V w, V x, V acc) {
    return _mm256_blendv_ps(acc, _mm256_fmadd_ps(w, x, acc), _mm256_castsi256_ps(m));
  }
  /// The lanes j where first + j * step lies in [0, end).
  static ETKIT_AVX2_FMA Mask within(int64_t first, int64_t step, int64_t end) {
    const __m256i at = _mm256_add_epi32(_mm256_set1_epi32(int32_t(first)),
                                        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                                           _mm256_set1_epi32(int32_t(step))));
    return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), at),
                               _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(end)), at));
  }
  static ETKIT_AVX2_FMA Mask both(Mask a, Mask b) { return _mm256_and_si256(a, b); }
};

// One output plane's stencil: where its input lies and its taps.
struct DepthwisePlane {
  const ConvShape& s;
  PhasePlanes phases;
  const int64_t* tap_offsets;  ///< tap column kw's inputs in the phase planes, less ow (offset_of)
  const float* taps;           ///< [kh * k_w + kw]
  float bias;
  float* dst;  ///< the output plane
};

// Which tile a plane's stencil runs: any taps, or 3 x 3 at row stride 1 or 2.
enum class Stencil { kAny, kThreeByThree1, kThreeByThree2 };

Stencil stencil_of(const ConvShape& s) {
  if (s.k_h != 3 || s.k_w != 3 || s.dil_h != 1) return Stencil::kAny;
  if (s.stride_h == 1) return Stencil::kThreeByThree1;
  return s.stride_h == 2 ? Stencil::kThreeByThree2 : Stencil::kAny;
}


// Sixteen float lanes in 512-bit registers, and masks in mask registers:
// a masked load reads nothing outside its lanes and a masked multiply-add
// leaves the others, so the edges cost little more than the interior.
#define ETKIT_AVX512 __attribute__((target("avx2,fma,avx512f")))
struct Lanes16 {
  static constexpr int64_t kWidth = 16;
  using V = __m512;
  using Mask = __mmask16;
  static ETKIT_AVX512 V splat(float x) { return _mm512_set1_ps(x); }
  static ETKIT_AVX512 V load(const float* p) { return _mm512_loadu_ps(p); }
  static ETKIT_AVX512 V load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static ETKIT_AVX512 void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static ETKIT_AVX512 void store(float* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }
  static ETKIT_AVX512 V fma(V w, V x, V acc) { return _mm512_fmadd_ps(w, x, acc); }
  static ETKIT_AVX512 V fma(Mask m, V w, V x, V acc) { return _mm512_mask3_fmadd_ps(w, x, acc, m); }
  static ETKIT_AVX512 Mask within(int64_t first, int64_t step, int64_t end) {
    const __m512i at = _mm512_add_epi32(
        _mm512_set1_epi32(int32_t(first)),
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(int32_t(step))));
    return _mm512_cmpge_epi32_mask(at, _mm512_setzero_si512()) & _mm512_cmplt_epi32_mask(at, _mm512_set1_epi32(int32_t(end)));
  }
  static ETKIT_AVX512 Mask both(Mask a, Mask b) { return Mask(a & b); }
};
#undef ETKIT_AVX512

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace lanes8 {
using Lanes = Lanes8;
#include "depthwise_tiles.inc"
}  // namespace lanes8
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f")
#endif
namespace lanes16 {
using Lanes = Lanes16;
#include "depthwise_tiles.inc"
}  // namespace lanes16
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

bool wide_tiles_allowed = true;

bool use_wide_tiles() { return wide_tiles_allowed && cpu_has_avx512f(); }

}  // namespace

ETKIT_AVX2_FMA void conv_depthwise_rows_f32(const ConvShape& s, const float* in, const float* weight,
                                            const int64_t* ws, const float* bias, int64_t bias_stride, float* out,
                                            int64_t first, int64_t last, Span<uint8_t> scratch) {
  int64_t lo = 0, hi = 0;
  interior_columns(s, lo, hi);
  const int64_t multiplier = s.out_c / s.groups;
  float* phase_scratch = reinterpret_cast<float*>(scratch.data());
  const float* split = nullptr;  // the input plane `phases` holds
  PhasePlanes phases{};
  for (int64_t plane_index = first; plane_index < last; ++plane_index) {
    const int64_t n = plane_index / s.out_c, oc = plane_index % s.out_c;
    const float* plane = in + n * s.is[0] + (oc / multiplier) * s.is[1];
    // Output planes sharing an input plane (a depth multiplier) split it once.
    if (plane != split) {
      phases = split_phases(s, plane, phase_scratch);
      split = plane;
    }
    int64_t tap_offsets[kMaxTaps];
    for (int64_t kw = 0; kw < s.k_w; ++kw) tap_offsets[kw] = phases.offset_of(s, kw * s.dil_w - s.pad_w);
    float taps[kMaxTaps];
    for (int64_t kh = 0; kh < s.k_h; ++kh) {
      for (int64_t kw = 0; kw < s.k_w; ++kw) taps[kh * s.k_w + kw] = weight[oc * ws[0] + kh * ws[2] + kw * ws[3]];
    }
    const DepthwisePlane p{s, phases, tap_offsets, taps, bias != nullptr ? bias[oc * bias_stride] : 0.0f,
                           out + n * s.os[0] + oc * s.os[1]};
    if (use_wide_tiles()) lanes16::depthwise_plane(p, lo, hi);
    else lanes8::depthwise_plane(p, lo, hi);
  }
}

void conv_allow_wide_depthwise_tiles(bool allow) { wide_tiles_allowed = allow; }

#else

void conv_allow_wide_depthwise_tiles(bool) {}

void conv_depthwise_rows_f32(const ConvShape&, const float*, const float*, const int64_t*, const float*, int64_t,
                             float*, int64_t, int64_t, Span<uint8_t>) {}

#endif

}  // namespace etkit::kernels
