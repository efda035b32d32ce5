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

#include "etkit/kernels/fast_math.h"

namespace etkit::kernels {
namespace {

constexpr int64_t kMaxTaps = 64;

// Where the phase planes of a stride-2 input plane need room.
size_t phase_plane_bytes(const ConvShape& s) {
  return s.stride_w == 1 ? 0 : sizeof(float) * size_t(s.stride_w * s.in_h * ((s.in_w + s.stride_w - 1) / s.stride_w));
}

}  // namespace

bool depthwise_rows_suit(const ConvShape& s, size_t scratch_bytes) {
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

// The tap row each of the R output rows from `top` takes from input row
// ih (kh * k_w into the taps), or null where ih feeds no tap of it.
template <int R>
inline bool tap_rows_of(const DepthwisePlane& p, int64_t top, int64_t ih, const float* (&rows)[R]) {
  const ConvShape& s = p.s;
  bool any = false;
  for (int r = 0; r < R; ++r) {
    const int64_t d = ih - top - r * s.stride_h;  // kh * dil_h, if a tap
    const int64_t kh = s.dil_h == 1 ? d : d / s.dil_h;
    const bool hit = d >= 0 && kh < s.k_h && (s.dil_h == 1 || d % s.dil_h == 0);
    rows[r] = hit ? p.taps + kh * s.k_w : nullptr;
    any |= hit;
  }
  return any;
}

// Output rows [oh0, oh0 + R) by columns [ow, ow + V * kWidth): R x V
// accumulators from the bias; each input row under them is loaded once per
// tap column and fused into every output row it feeds, rows in order, so
// each output still takes its taps kh then kw. Unmasked: every tap of
// these columns reads inside the row and every column is an output.
// Masked: the taps reading outside the row are skipped lane by lane and
// the lanes past out_w are not stored.
template <typename L, int R, int V, bool Masked>
ETKIT_AVX2_FMA void depthwise_tile(const DepthwisePlane& p, int64_t oh0, int64_t ow) {
  const ConvShape& s = p.s;
  constexpr int64_t W = L::kWidth;
  typename L::V acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = L::splat(p.bias);
  typename L::Mask inside[Masked ? kMaxTaps : 1][V];
  if constexpr (Masked) {
    for (int64_t kw = 0; kw < s.k_w; ++kw)
      for (int v = 0; v < V; ++v)
        inside[kw][v] = L::both(L::within(ow + v * W, 1, s.out_w),
                                L::within((ow + v * W) * s.stride_w + kw * s.dil_w - s.pad_w, s.stride_w, s.in_w));
  }
  const int64_t top = oh0 * s.stride_h - s.pad_h;  // output row oh0's input row for kh = 0
  const int64_t end = std::min(s.in_h, top + (R - 1) * s.stride_h + (s.k_h - 1) * s.dil_h + 1);
  for (int64_t ih = std::max<int64_t>(top, 0); ih < end; ++ih) {
    const float* tap_rows[R];
    if (!tap_rows_of<R>(p, top, ih, tap_rows)) continue;
    const float* row = p.phases.data + ih * p.phases.row_stride + ow;
    for (int64_t kw = 0; kw < s.k_w; ++kw) {
      typename L::V x[V];
      for (int v = 0; v < V; ++v) {
        if constexpr (Masked) x[v] = L::load(row + p.tap_offsets[kw] + v * W, inside[kw][v]);
        else x[v] = L::load(row + p.tap_offsets[kw] + v * W);
      }
      for (int r = 0; r < R; ++r) {
        if (tap_rows[r] == nullptr) continue;
        const typename L::V w = L::splat(tap_rows[r][kw]);
        for (int v = 0; v < V; ++v) {
          if constexpr (Masked) acc[r][v] = L::fma(inside[kw][v], w, x[v], acc[r][v]);
          else acc[r][v] = L::fma(w, x[v], acc[r][v]);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    float* out_row = p.dst + (oh0 + r) * s.os[2] + ow;
    for (int v = 0; v < V; ++v) {
      if constexpr (Masked) L::store(out_row + v * W, L::within(ow + v * W, 1, s.out_w), acc[r][v]);
      else L::store(out_row + v * W, acc[r][v]);
    }
  }
}

// depthwise_tile for 3 x 3 taps, undilated rows, row stride SH: the input
// rows and their output rows known at compile time, so a row's three tap
// columns are loaded once and fused into up to three output rows without a
// test per tap (MobileNet's depthwise convolutions, all of them).
template <typename L, int R, int V, bool Masked, int SH>
ETKIT_AVX2_FMA void depthwise_tile3(const DepthwisePlane& p, int64_t oh0, int64_t ow) {
  const ConvShape& s = p.s;
  constexpr int64_t W = L::kWidth;
  constexpr int kInputRows = (R - 1) * SH + 3;
  typename L::V acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = L::splat(p.bias);
  typename L::Mask inside[3][V];
  if constexpr (Masked) {
    for (int kw = 0; kw < 3; ++kw)
      for (int v = 0; v < V; ++v)
        inside[kw][v] = L::both(L::within(ow + v * W, 1, s.out_w),
                                L::within((ow + v * W) * s.stride_w + kw * s.dil_w - s.pad_w, s.stride_w, s.in_w));
  }
  const int64_t top = oh0 * SH - s.pad_h;
#pragma GCC unroll 16
  for (int i = 0; i < kInputRows; ++i) {
    const int64_t ih = top + i;
    if (ih < 0 || ih >= s.in_h) continue;
    const float* row = p.phases.data + ih * p.phases.row_stride + ow;
    typename L::V x[3][V];
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        if constexpr (Masked) x[kw][v] = L::load(row + p.tap_offsets[kw] + v * W, inside[kw][v]);
        else x[kw][v] = L::load(row + p.tap_offsets[kw] + v * W);
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const int kh = i - r * SH;
      if (kh < 0 || kh > 2) continue;
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw) {
        const typename L::V w = L::splat(p.taps[kh * 3 + kw]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
          if constexpr (Masked) acc[r][v] = L::fma(inside[kw][v], w, x[kw][v], acc[r][v]);
          else acc[r][v] = L::fma(w, x[kw][v], acc[r][v]);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    float* out_row = p.dst + (oh0 + r) * s.os[2] + ow;
    for (int v = 0; v < V; ++v) {
      if constexpr (Masked) L::store(out_row + v * W, L::within(ow + v * W, 1, s.out_w), acc[r][v]);
      else L::store(out_row + v * W, acc[r][v]);
    }
  }
}

// Which tile a plane's stencil runs: any taps, or 3 x 3 at row stride 1 or 2.
enum class Stencil { kAny, kThreeByThree1, kThreeByThree2 };

Stencil stencil_of(const ConvShape& s) {
  if (s.k_h != 3 || s.k_w != 3 || s.dil_h != 1) return Stencil::kAny;
  if (s.stride_h == 1) return Stencil::kThreeByThree1;
  return s.stride_h == 2 ? Stencil::kThreeByThree2 : Stencil::kAny;
}

template <typename L, int R, int V, bool Masked, Stencil K>
ETKIT_AVX2_FMA inline void tile(const DepthwisePlane& p, int64_t oh0, int64_t ow) {
  if constexpr (K == Stencil::kThreeByThree1) depthwise_tile3<L, R, V, Masked, 1>(p, oh0, ow);
  else if constexpr (K == Stencil::kThreeByThree2) depthwise_tile3<L, R, V, Masked, 2>(p, oh0, ow);
  else depthwise_tile<L, R, V, Masked>(p, oh0, ow);
}

// Output rows [oh0, oh0 + R) across the plane, in tiles: unmasked two- and
// one-vector tiles over the interior columns [lo, hi), where the last of
// them, short of a vector, is one tile ending at hi over columns already
// done (it stores the same values, each tile starting from the bias), and
// masked tiles at the edges and where the row is too narrow.
template <typename L, int R, Stencil K>
ETKIT_AVX2_FMA void depthwise_rows(const DepthwisePlane& p, int64_t oh0, int64_t lo, int64_t hi) {
  constexpr int64_t W = L::kWidth;
  const int64_t out_w = p.s.out_w;
  for (int64_t ow = 0; ow < out_w;) {
    if (ow >= lo && ow + 2 * W <= hi) {
      tile<L, R, 2, false, K>(p, oh0, ow);
      ow += 2 * W;
    } else if (ow >= lo && ow + W <= hi) {
      tile<L, R, 1, false, K>(p, oh0, ow);
      ow += W;
    } else if (ow >= lo && ow < hi && hi - W >= lo && out_w - ow > W) {
      tile<L, R, 1, false, K>(p, oh0, hi - W);
      ow = hi;
    } else {
      tile<L, R, 1, true, K>(p, oh0, ow);
      ow += W;
    }
  }
}

template <Stencil K>
ETKIT_AVX2_FMA void depthwise_plane(const DepthwisePlane& p, int64_t lo, int64_t hi) {
  constexpr int kRows = 4;
  const int64_t out_h = p.s.out_h;
  int64_t oh = 0;
  for (; oh + kRows <= out_h; oh += kRows) depthwise_rows<Lanes8, kRows, K>(p, oh, lo, hi);
  switch (out_h - oh) {
    case 3: return depthwise_rows<Lanes8, 3, K>(p, oh, lo, hi);
    case 2: return depthwise_rows<Lanes8, 2, K>(p, oh, lo, hi);
    case 1: return depthwise_rows<Lanes8, 1, K>(p, oh, lo, hi);
    default: return;
  }
}

ETKIT_AVX2_FMA void depthwise_plane(const DepthwisePlane& p, int64_t lo, int64_t hi) {
  switch (stencil_of(p.s)) {
    case Stencil::kThreeByThree1: return depthwise_plane<Stencil::kThreeByThree1>(p, lo, hi);
    case Stencil::kThreeByThree2: return depthwise_plane<Stencil::kThreeByThree2>(p, lo, hi);
    default: return depthwise_plane<Stencil::kAny>(p, lo, hi);
  }
}

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
    depthwise_plane(p, lo, hi);
  }
}

#else

void conv_depthwise_rows_f32(const ConvShape&, const float*, const float*, const int64_t*, const float*, int64_t,
                             float*, int64_t, int64_t, Span<uint8_t>) {}

#endif

}  // namespace etkit::kernels
