#include "etkit/kernels/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "etkit/kernels/cpu_features.h"
#include "etkit/kernels/fast_math.h"
#include "etkit/kernels/parallel.h"

namespace etkit::kernels {
namespace {

// Blocking: a KC x NC panel of B stays in L2, an MC x KC panel of A in L1/L2;
// the MR x NR tile of C lives in registers (6 x 16 floats = 12 AVX vectors).
constexpr int64_t kMR = 6;
constexpr int64_t kNR = 16;
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 72;
constexpr int64_t kNC = 512;
static_assert(kNR == kGemmPanelColumns, "a PanelPacker writes the micro-kernel's panels");

template <typename T>
size_t packed_bytes() {
  return sizeof(T) * static_cast<size_t>(kMC * kKC + kKC * kNC) + 128;
}

// Packs rows [i0, i0+mc) x cols [p0, p0+kc) of A into MR-row micro-panels:
// panel-major, then k, then row. Rows past the edge are zero. A row-major A
// (a layer's weights, most often from memory) is read in row segments too
// short for the hardware prefetcher: each panel asks for the next one's.
template <typename T>
void pack_a(const MatrixView<const T>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, T* out) {
  constexpr int64_t kLineValues = 64 / sizeof(T);
  for (int64_t ir = 0; ir < mc; ir += kMR) {
    const int64_t mr = std::min(kMR, mc - ir);
    const int64_t next_rows = a.col_stride == 1 ? std::clamp<int64_t>(mc - ir - kMR, 0, kMR) : 0;
    const T* next = next_rows > 0 ? a.data + (i0 + ir + kMR) * a.row_stride + p0 : nullptr;
    for (int64_t p = 0; p < kc; ++p) {
      if (p % kLineValues == 0) {
        for (int64_t r = 0; r < next_rows; ++r) __builtin_prefetch(next + r * a.row_stride + p);
      }
      const T* src = a.data + (i0 + ir) * a.row_stride + (p0 + p) * a.col_stride;
      for (int64_t r = 0; r < mr; ++r) out[r] = src[r * a.row_stride];
      for (int64_t r = mr; r < kMR; ++r) out[r] = T(0);
      out += kMR;
    }
  }
}

// Packs rows [p0, p0+kc) x cols [j0, j0+nc) of B into NR-column panels.
template <typename T>
void pack_b(const MatrixView<const T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) {
  for (int64_t jr = 0; jr < nc; jr += kNR) {
    const int64_t nr = std::min(kNR, nc - jr);
    for (int64_t p = 0; p < kc; ++p) {
      const T* src = b.data + (p0 + p) * b.row_stride + (j0 + jr) * b.col_stride;
      if (b.col_stride == 1 && nr == kNR) {
        std::memcpy(out, src, sizeof(T) * kNR);
      } else {
        for (int64_t c = 0; c < nr; ++c) out[c] = src[c * b.col_stride];
        for (int64_t c = nr; c < kNR; ++c) out[c] = T(0);
      }
      out += kNR;
    }
  }
}

// The register tile: acc = sum_p a[p][0..MR) (x) b[p][0..NR), then
// C[0..mr)[0..nr) += alpha * acc. Built for AVX2+FMA when the CPU has it.
template <typename T>
void micro_kernel(int64_t kc, const T* __restrict a, const T* __restrict b, T* c,
                  int64_t row_stride, int64_t col_stride, int64_t mr, int64_t nr, T alpha) {
  T acc[kMR][kNR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t r = 0; r < kMR; ++r) {
      const T av = a[r];
      for (int64_t j = 0; j < kNR; ++j) acc[r][j] += av * b[j];
    }
    a += kMR;
    b += kNR;
  }
  for (int64_t r = 0; r < mr; ++r) {
    T* row = c + r * row_stride;
    if (col_stride == 1) {
      for (int64_t j = 0; j < nr; ++j) row[j] += alpha * acc[r][j];
    } else {
      for (int64_t j = 0; j < nr; ++j) row[j * col_stride] += alpha * acc[r][j];
    }
  }
}

// float32 register tile: 6 rows x 16 columns = 12 eight-lane accumulators.
// The AVX2+FMA variant gets 256-bit registers and fused multiply-adds (this
// file is built with -ffp-contract=fast).
__attribute__((always_inline)) inline void micro_kernel_f32_body(int64_t kc, const float* __restrict a, const float* __restrict b, float* c,
                      int64_t row_stride, int64_t col_stride, int64_t mr, int64_t nr, float alpha) {
  static_assert(kMR == 6 && kNR == 16, "the float tile is written for 6 x 16");
  Float8 acc[6][2] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const Float8 b0 = load8(b), b1 = load8(b + 8);
#pragma GCC unroll 6
    for (int r = 0; r < 6; ++r) {
      const Float8 av = splat(a[r]);
      acc[r][0] += av * b0;
      acc[r][1] += av * b1;
    }
    a += kMR;
    b += kNR;
  }
  if (mr == kMR && nr == kNR && col_stride == 1) {
#pragma GCC unroll 6
    for (int r = 0; r < 6; ++r) {
      float* row = c + r * row_stride;
      store8(row, load8(row) + acc[r][0] * alpha);
      store8(row + 8, load8(row + 8) + acc[r][1] * alpha);
    }
    return;
  }
  for (int64_t r = 0; r < mr; ++r) {
    for (int64_t j = 0; j < nr; ++j) {
      c[r * row_stride + j * col_stride] += alpha * acc[r][j / 8][j % 8];
    }
  }
}

// Where the AVX2 and 512-bit tiles read A's six rows: a packed micro-panel
// (value (r, p) at a[p * kMR + r]), or A's rows in place (row r at
// rows[r], its values contiguous). In place spares the packing pass, which
// costs as much as the tiles where A is a layer's weights read once per
// inference; the values, and so the bits, are the same.
// fetch_ahead(p): asks for the next 16 values from p of the rows the
// following tile reads. In place they are a layer's weights, most often
// straight from memory in short row segments the hardware prefetcher does
// not follow: the last layers of ResNet-18 waited on them at a third of
// the FMA rate.
struct PackedRows {
  const float* a;
  float at(int r, int64_t p) const { return a[p * kMR + r]; }
  void fetch_ahead(int64_t /*p*/) const {}
};
struct RowsInPlace {
  const float* rows[kMR];
  const float* next[kMR];  ///< the following tile's rows; null: none
  float at(int r, int64_t p) const { return rows[r][p]; }
  // Always inlined: as a call of its own GCC finds it free of side effects
  // (a prefetch has none it models) and drops it.
  __attribute__((always_inline)) void fetch_ahead(int64_t p) const {
    if (next[0] == nullptr) return;
    for (int r = 0; r < kMR; ++r) __builtin_prefetch(next[r] + p);
  }
};

#if defined(__x86_64__)
// The same tile with intrinsics: GCC builds the generic body's broadcast
// from scalar inserts and spills accumulators, at a third of peak.
template <typename Rows>
ETKIT_AVX2_FMA void micro_kernel_f32_avx2(int64_t kc, const Rows a, const float* __restrict b, float* c,
                                          int64_t rs, int64_t cs, int64_t mr, int64_t nr, float alpha) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c10 = _mm256_setzero_ps(),
         c11 = _mm256_setzero_ps(), c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(),
         c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(), c40 = _mm256_setzero_ps(),
         c41 = _mm256_setzero_ps(), c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    if (p % 16 == 0) a.fetch_ahead(p);
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
    __m256 av = _mm256_set1_ps(a.at(0, p));
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_set1_ps(a.at(1, p));
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_set1_ps(a.at(2, p));
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_set1_ps(a.at(3, p));
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_set1_ps(a.at(4, p));
    c40 = _mm256_fmadd_ps(av, b0, c40);
    c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_set1_ps(a.at(5, p));
    c50 = _mm256_fmadd_ps(av, b0, c50);
    c51 = _mm256_fmadd_ps(av, b1, c51);
    b += kNR;
  }
  alignas(32) float acc[kMR][kNR];
  _mm256_store_ps(acc[0], c00);
  _mm256_store_ps(acc[0] + 8, c01);
  _mm256_store_ps(acc[1], c10);
  _mm256_store_ps(acc[1] + 8, c11);
  _mm256_store_ps(acc[2], c20);
  _mm256_store_ps(acc[2] + 8, c21);
  _mm256_store_ps(acc[3], c30);
  _mm256_store_ps(acc[3] + 8, c31);
  _mm256_store_ps(acc[4], c40);
  _mm256_store_ps(acc[4] + 8, c41);
  _mm256_store_ps(acc[5], c50);
  _mm256_store_ps(acc[5] + 8, c51);
  if (mr == kMR && nr == kNR && cs == 1) {
    const __m256 scale = _mm256_set1_ps(alpha);
    for (int r = 0; r < 6; ++r) {
      float* row = c + r * rs;
      _mm256_storeu_ps(row, _mm256_fmadd_ps(_mm256_load_ps(acc[r]), scale, _mm256_loadu_ps(row)));
      _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(_mm256_load_ps(acc[r] + 8), scale, _mm256_loadu_ps(row + 8)));
    }
    return;
  }
  // A fused multiply-add, as the full tile's (and the 512-bit tiles'): the
  // same bits in every build, contracted or not.
  for (int64_t r = 0; r < mr; ++r) {
    for (int64_t j = 0; j < nr; ++j) c[r * rs + j * cs] = std::fma(acc[r][j], alpha, c[r * rs + j * cs]);
  }
}
#else
template <typename Rows>
void micro_kernel_f32_avx2(int64_t kc, const Rows a, const float* b, float* c, int64_t rs, int64_t cs, int64_t mr,
                           int64_t nr, float alpha) {
  micro_kernel_f32_body(kc, a.a, b, c, rs, cs, mr, nr, alpha);
}
#endif
#if defined(__x86_64__) && defined(__GNUC__)
// Two adjacent full 6 x 16 tiles at once in 512-bit registers: twelve
// accumulators keep both FMA units of an AVX-512 core busy (one 6 x 16
// tile in zmm registers has six, too few to hide the FMA latency). Every
// element's sum is the same sequence of fused multiply-adds, and the same
// final fma into C, as the 256-bit kernel's: the bits are the same.
// `mr`: the rows of C it writes (A's rows past it are zeros or repeats).
template <typename Rows>
__attribute__((target("avx512f"))) void micro_kernel_f32_pair_avx512(int64_t kc, const Rows a,
                                                                      const float* __restrict b0,
                                                                      const float* __restrict b1, float* c,
                                                                      int64_t rs, int64_t mr, float alpha) {
  __m512 l0 = _mm512_setzero_ps(), l1 = _mm512_setzero_ps(), l2 = _mm512_setzero_ps(), l3 = _mm512_setzero_ps(),
         l4 = _mm512_setzero_ps(), l5 = _mm512_setzero_ps(), r0 = _mm512_setzero_ps(), r1 = _mm512_setzero_ps(),
         r2 = _mm512_setzero_ps(), r3 = _mm512_setzero_ps(), r4 = _mm512_setzero_ps(), r5 = _mm512_setzero_ps();
  for (int r = 0; r < mr; ++r) {
    for (int line : {0, 16, 31}) _mm_prefetch(reinterpret_cast<const char*>(c + r * rs + line), _MM_HINT_T0);
  }
  for (int64_t p = 0; p < kc; ++p) {
    if (p % 16 == 0) a.fetch_ahead(p);
    const __m512 left = _mm512_load_ps(b0), right = _mm512_load_ps(b1);
    __m512 av = _mm512_set1_ps(a.at(0, p));
    l0 = _mm512_fmadd_ps(av, left, l0);
    r0 = _mm512_fmadd_ps(av, right, r0);
    av = _mm512_set1_ps(a.at(1, p));
    l1 = _mm512_fmadd_ps(av, left, l1);
    r1 = _mm512_fmadd_ps(av, right, r1);
    av = _mm512_set1_ps(a.at(2, p));
    l2 = _mm512_fmadd_ps(av, left, l2);
    r2 = _mm512_fmadd_ps(av, right, r2);
    av = _mm512_set1_ps(a.at(3, p));
    l3 = _mm512_fmadd_ps(av, left, l3);
    r3 = _mm512_fmadd_ps(av, right, r3);
    av = _mm512_set1_ps(a.at(4, p));
    l4 = _mm512_fmadd_ps(av, left, l4);
    r4 = _mm512_fmadd_ps(av, right, r4);
    av = _mm512_set1_ps(a.at(5, p));
    l5 = _mm512_fmadd_ps(av, left, l5);
    r5 = _mm512_fmadd_ps(av, right, r5);
    b0 += kNR;
    b1 += kNR;
  }
  const __m512 scale = _mm512_set1_ps(alpha);
  const __m512 left[6] = {l0, l1, l2, l3, l4, l5}, right[6] = {r0, r1, r2, r3, r4, r5};
  for (int r = 0; r < mr; ++r) {
    float* row = c + r * rs;
    _mm512_storeu_ps(row, _mm512_fmadd_ps(left[r], scale, _mm512_loadu_ps(row)));
    _mm512_storeu_ps(row + kNR, _mm512_fmadd_ps(right[r], scale, _mm512_loadu_ps(row + kNR)));
  }
}

// One 6 x 16 tile in 512-bit registers, for the columns after the last
// pair: six accumulators (three quarters of the FMA units' rate, against
// half for the 256-bit tile), C's first `nr` columns and `mr` rows read
// and written under a mask. The same fused multiply-adds per element.
template <typename Rows>
__attribute__((target("avx512f"))) void micro_kernel_f32_avx512(int64_t kc, const Rows a,
                                                                 const float* __restrict b, float* c, int64_t rs,
                                                                 int64_t mr, int64_t nr, float alpha) {
  __m512 acc[6] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 bv = _mm512_load_ps(b);
    for (int r = 0; r < 6; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a.at(r, p)), bv, acc[r]);
    b += kNR;
  }
  const __m512 scale = _mm512_set1_ps(alpha);
  const __mmask16 columns = static_cast<__mmask16>((1u << nr) - 1u);
  for (int r = 0; r < mr; ++r) {
    float* row = c + r * rs;
    _mm512_mask_storeu_ps(row, columns, _mm512_fmadd_ps(acc[r], scale, _mm512_maskz_loadu_ps(columns, row)));
  }
}

// Two 6 x 16 tiles stacked (rows 0-5 from `top`, 6-11 from `bottom`), for
// the columns after the last pair: twelve accumulators run the FMA units at
// the pair's rate where one tile's six leave a quarter idle (the last
// columns of a 14 x 14 or 7 x 7 convolution were a tenth of ResNet-18).
// C's first `nr` columns and `mr` rows (more than six) under a mask; the
// same fused multiply-adds per element as every other tile.
template <typename Rows>
__attribute__((target("avx512f"))) void micro_kernel_f32_tall_avx512(int64_t kc, const Rows top, const Rows bottom,
                                                                      const float* __restrict b, float* c,
                                                                      int64_t rs, int64_t mr, int64_t nr,
                                                                      float alpha) {
  __m512 upper[6], lower[6];
  for (int r = 0; r < 6; ++r) upper[r] = lower[r] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 bv = _mm512_load_ps(b);
#pragma GCC unroll 6
    for (int r = 0; r < 6; ++r) {
      upper[r] = _mm512_fmadd_ps(_mm512_set1_ps(top.at(r, p)), bv, upper[r]);
      lower[r] = _mm512_fmadd_ps(_mm512_set1_ps(bottom.at(r, p)), bv, lower[r]);
    }
    b += kNR;
  }
  const __m512 scale = _mm512_set1_ps(alpha);
  const __mmask16 columns = static_cast<__mmask16>((1u << nr) - 1u);
  for (int r = 0; r < mr; ++r) {
    float* row = c + r * rs;
    const __m512 acc = r < 6 ? upper[r] : lower[r - 6];
    _mm512_mask_storeu_ps(row, columns, _mm512_fmadd_ps(acc, scale, _mm512_maskz_loadu_ps(columns, row)));
  }
}

// 256- and 128-bit lanes for the narrow tail tiles below.
template <int W>
struct NarrowLanes;
template <>
struct NarrowLanes<8> {
  using V = __m256;
  static ETKIT_AVX2_FMA V zero() { return _mm256_setzero_ps(); }
  static ETKIT_AVX2_FMA V splat(float x) { return _mm256_set1_ps(x); }
  static ETKIT_AVX2_FMA V load(const float* b) { return _mm256_load_ps(b); }
  static ETKIT_AVX2_FMA V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static ETKIT_AVX2_FMA __m256i mask(int64_t nr) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(nr)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static ETKIT_AVX2_FMA V load(const float* c, __m256i m) { return _mm256_maskload_ps(c, m); }
  static ETKIT_AVX2_FMA void store(float* c, __m256i m, V v) { _mm256_maskstore_ps(c, m, v); }
};
template <>
struct NarrowLanes<4> {
  using V = __m128;
  static ETKIT_AVX2_FMA V zero() { return _mm_setzero_ps(); }
  static ETKIT_AVX2_FMA V splat(float x) { return _mm_set1_ps(x); }
  static ETKIT_AVX2_FMA V load(const float* b) { return _mm_load_ps(b); }
  static ETKIT_AVX2_FMA V fma(V a, V b, V c) { return _mm_fmadd_ps(a, b, c); }
  static ETKIT_AVX2_FMA __m128i mask(int64_t nr) {
    return _mm_cmpgt_epi32(_mm_set1_epi32(int(nr)), _mm_setr_epi32(0, 1, 2, 3));
  }
  static ETKIT_AVX2_FMA V load(const float* c, __m128i m) { return _mm_maskload_ps(c, m); }
  static ETKIT_AVX2_FMA void store(float* c, __m128i m, V v) { _mm_maskstore_ps(c, m, v); }
};

// The last columns of a block when they are at most W (8 or 4): `Groups`
// stacked groups of six rows in W-lane registers, where a 16-lane tile
// computed a whole panel for them (a 7 x 7 convolution's 49th column, a
// 14 x 14 one's last four; FMAs of any width run at the same rate). C's
// first `nr` columns and `mr` rows; the same fused multiply-adds per
// element as every other tile.
template <int W, int Groups, typename Rows>
ETKIT_AVX2_FMA void micro_kernel_f32_narrow(int64_t kc, const Rows top, const Rows bottom, const float* __restrict b,
                                            float* c, int64_t rs, int64_t mr, int64_t nr, float alpha) {
  using L = NarrowLanes<W>;
  typename L::V upper[6], lower[6];
  for (int r = 0; r < 6; ++r) upper[r] = lower[r] = L::zero();
  for (int64_t p = 0; p < kc; ++p) {
    const typename L::V bv = L::load(b);
#pragma GCC unroll 6
    for (int r = 0; r < 6; ++r) {
      upper[r] = L::fma(L::splat(top.at(r, p)), bv, upper[r]);
      if constexpr (Groups == 2) lower[r] = L::fma(L::splat(bottom.at(r, p)), bv, lower[r]);
    }
    b += kNR;
  }
  const typename L::V scale = L::splat(alpha);
  const auto columns = L::mask(nr);
  for (int r = 0; r < mr; ++r) {
    float* row = c + r * rs;
    const typename L::V acc = r < 6 ? upper[r] : lower[r - 6];
    L::store(row, columns, L::fma(acc, scale, L::load(row, columns)));
  }
}

bool wide_tiles_enabled = true;
bool cpu_has_avx512() {
  return cpu_has_avx512f() && cpu_has_avx2_fma();
}
#else
template <typename Rows>
void micro_kernel_f32_pair_avx512(int64_t, const Rows, const float*, const float*, float*, int64_t, int64_t, float) {}
template <typename Rows>
void micro_kernel_f32_avx512(int64_t, const Rows, const float*, float*, int64_t, int64_t, int64_t, float) {}
template <typename Rows>
void micro_kernel_f32_tall_avx512(int64_t, const Rows, const Rows, const float*, float*, int64_t, int64_t, int64_t,
                                  float) {}
template <int W, int Groups, typename Rows>
void micro_kernel_f32_narrow(int64_t, const Rows, const Rows, const float*, float*, int64_t, int64_t, int64_t, float) {}
bool wide_tiles_enabled = false;
bool cpu_has_avx512() { return false; }
#endif

void micro_kernel_f32_baseline(int64_t kc, const float* a, const float* b, float* c, int64_t rs,
                               int64_t cs, int64_t mr, int64_t nr, float alpha) {
  micro_kernel_f32_body(kc, a, b, c, rs, cs, mr, nr, alpha);
}

template <>
void micro_kernel<float>(int64_t kc, const float* __restrict a, const float* __restrict b, float* c,
                         int64_t row_stride, int64_t col_stride, int64_t mr, int64_t nr, float alpha) {
  if (cpu_has_avx2_fma()) {
    micro_kernel_f32_avx2(kc, PackedRows{a}, b, c, row_stride, col_stride, mr, nr, alpha);
  } else {
    micro_kernel_f32_baseline(kc, a, b, c, row_stride, col_stride, mr, nr, alpha);
  }
}

// What C starts from before the products are added: beta times its
// contents, or, when row_values is set, row i's value (RowStart).
template <typename T>
struct CStart {
  T beta;
  const T* row_values;
  int64_t row_stride;
  // The start of the rows from i0 on (a worker's part of C).
  CStart from_row(int64_t i0) const {
    return {beta, row_values ? row_values + i0 * row_stride : nullptr, row_stride};
  }
};

template <typename T>
CStart<T> beta_start(T beta) { return {beta, nullptr, 0}; }
template <typename T>
CStart<T> row_start(RowStart<T> start) { return {T(1), start.values, start.stride}; }

// C's rows [i0, i0 + mc) by columns [j0, j0 + nc) set to their row's start
// value (nothing to do when C starts from beta * C: scale_c did that).
template <typename T>
void fill_block(const MatrixView<T>& c, const CStart<T>& start, int64_t i0, int64_t mc, int64_t j0, int64_t nc) {
  if (start.row_values == nullptr) return;
  for (int64_t i = i0; i < i0 + mc; ++i) {
    const T v = start.row_values[i * start.row_stride];
    T* row = c.data + i * c.row_stride + j0 * c.col_stride;
    if (c.col_stride == 1) {
      std::fill(row, row + nc, v);
    } else {
      for (int64_t j = 0; j < nc; ++j) row[j * c.col_stride] = v;
    }
  }
}

template <typename T>
void scale_c(MatrixView<T> c, T beta) {
  for (int64_t i = 0; i < c.rows; ++i) {
    for (int64_t j = 0; j < c.cols; ++j) {
      T& v = c.data[i * c.row_stride + j * c.col_stride];
      v = beta == T(0) ? T(0) : v * beta;
    }
  }
}

// One row of A times B with contiguous rows (a batch-1 linear layer):
// packing would cost more than the product, so accumulate rows of B
// scaled by A's entries straight into C's row.
template <typename T>
void row_times_matrix(const T* a, int64_t a_stride, MatrixView<const T> b, T* __restrict c, T alpha) {
  for (int64_t p = 0; p < b.rows; ++p) {
    const T scale = alpha * a[p * a_stride];
    const T* __restrict row = b.data + p * b.row_stride;
    for (int64_t j = 0; j < b.cols; ++j) c[j] += scale * row[j];
  }
}

// One row of A times B whose columns are contiguous (a batch-1 linear
// layer's transposed weight: each output is the dot product of the input
// row and one weight row): a dot product per column, no packing. Each sum is
// four interleaved partial sums over the row, added pairwise at the end: a
// function of the row length alone, so any split of the columns gives the
// same bits.
template <typename T>
T dot_generic(const T* __restrict a, const T* __restrict b, int64_t k) {
  T partial[4] = {T(0), T(0), T(0), T(0)};
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    for (int64_t i = 0; i < 4; ++i) partial[i] += a[p + i] * b[p + i];
  }
  for (; p < k; ++p) partial[0] += a[p] * b[p];
  return (partial[0] + partial[1]) + (partial[2] + partial[3]);
}

#if defined(__x86_64__)
// Four eight-lane fused multiply-add chains, then the 32 lanes summed in a
// fixed order.
ETKIT_AVX2_FMA float dot_f32_avx2(const float* __restrict a, const float* __restrict b, int64_t k) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  int64_t p = 0;
  for (; p + 32 <= k; p += 32) {
    for (int i = 0; i < 4; ++i) {
      acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(a + p + 8 * i), _mm256_loadu_ps(b + p + 8 * i), acc[i]);
    }
  }
  for (; p + 8 <= k; p += 8) acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(a + p), _mm256_loadu_ps(b + p), acc[0]);
  const __m256 sum = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (; p < k; ++p) total += a[p] * b[p];
  return total;
}
#endif

template <typename T>
void row_times_columns(const T* a, MatrixView<const T> b, T* __restrict c, T alpha) {
  for (int64_t j = 0; j < b.cols; ++j) {
    const T* column = b.data + j * b.col_stride;
    T sum;
#if defined(__x86_64__)
    if constexpr (std::is_same_v<T, float>) {
      sum = cpu_has_avx2_fma() ? dot_f32_avx2(a, column, b.rows) : dot_generic(a, column, b.rows);
    } else {
      sum = dot_generic(a, column, b.rows);
    }
#else
    sum = dot_generic(a, column, b.rows);
#endif
    c[j] += alpha * sum;
  }
}

// The block's last panel when it has at most 8 columns, in 8- or 4-lane
// tiles of twelve rows, then six for what is left.
template <typename RowsOf>
void multiply_narrow_tail(const RowsOf& rows_of, const float* panel_b, int64_t mc, int64_t kc, float* c,
                          int64_t row_stride, int64_t nr, float alpha) {
  const auto tiles = [&](auto lanes) {
    constexpr int W = decltype(lanes)::value;
    int64_t ir = 0;
    for (; ir + kMR < mc; ir += 2 * kMR) {
      micro_kernel_f32_narrow<W, 2>(kc, rows_of(ir, false), rows_of(ir + kMR, false), panel_b,
                                    c + ir * row_stride, row_stride, std::min(2 * kMR, mc - ir), nr, alpha);
    }
    if (ir < mc) {
      const auto rows = rows_of(ir, false);
      micro_kernel_f32_narrow<W, 1>(kc, rows, rows, panel_b, c + ir * row_stride, row_stride, mc - ir, nr, alpha);
    }
  };
  if (nr <= 4) {
    tiles(std::integral_constant<int, 4>{});
  } else {
    tiles(std::integral_constant<int, 8>{});
  }
}

// A block (mc rows) times packed B (nc columns) into C's block at `c` with
// contiguous rows, where the core has 512-bit FMAs: two tiles at once and
// the last columns in stacked 512-bit tiles. rows_of(ir, fetch_next) says
// where the tile at row ir reads A (and, when fetch_next, asks for what the
// next tile reads).
template <typename RowsOf>
void multiply_panels_wide(const RowsOf& rows_of, const float* packed_b, int64_t mc, int64_t nc, int64_t kc,
                          float* c, int64_t row_stride, float alpha) {
  int64_t jr = 0;
  for (; jr + 2 * kNR <= nc; jr += 2 * kNR) {
    const float* panel_b = packed_b + (jr / kNR) * kc * kNR;
    for (int64_t ir = 0; ir < mc; ir += kMR) {
      micro_kernel_f32_pair_avx512(kc, rows_of(ir, jr == 0), panel_b, panel_b + kc * kNR, c + ir * row_stride + jr,
                                   row_stride, std::min(kMR, mc - ir), alpha);
    }
  }
  for (; jr < nc; jr += kNR) {
    const float* panel_b = packed_b + (jr / kNR) * kc * kNR;
    const int64_t nr = std::min(kNR, nc - jr);
    if (nr <= 8) {
      multiply_narrow_tail(rows_of, panel_b, mc, kc, c + jr, row_stride, nr, alpha);
      continue;
    }
    int64_t ir = 0;
    for (; ir + kMR < mc; ir += 2 * kMR) {
      micro_kernel_f32_tall_avx512(kc, rows_of(ir, false), rows_of(ir + kMR, false), panel_b, c + ir * row_stride + jr,
                                   row_stride, std::min(2 * kMR, mc - ir), nr, alpha);
    }
    if (ir < mc) {
      micro_kernel_f32_avx512(kc, rows_of(ir, false), panel_b, c + ir * row_stride + jr, row_stride, mc - ir, nr,
                              alpha);
    }
  }
}

// Packed A (mc rows) times packed B (nc columns) into C's block at `c`:
// tile by tile, or by the 512-bit tiles where they run.
template <typename T>
void multiply_panels(const T* packed_a, const T* packed_b, int64_t mc, int64_t nc, int64_t kc, T* c,
                     int64_t row_stride, int64_t col_stride, T alpha) {
  if constexpr (std::is_same_v<T, float>) {
    if (col_stride == 1 && wide_tiles_enabled && cpu_has_avx512()) {
      const auto rows_of = [&](int64_t ir, bool) { return PackedRows{packed_a + (ir / kMR) * kc * kMR}; };
      multiply_panels_wide(rows_of, packed_b, mc, nc, kc, c, row_stride, alpha);
      return;
    }
  }
  for (int64_t jr = 0; jr < nc; jr += kNR) {
    const int64_t nr = std::min(kNR, nc - jr);
    const T* panel_b = packed_b + (jr / kNR) * kc * kNR;
    for (int64_t ir = 0; ir < mc; ir += kMR) {
      const int64_t mr = std::min(kMR, mc - ir);
      const T* panel_a = packed_a + (ir / kMR) * kc * kMR;
      micro_kernel<T>(kc, panel_a, panel_b, c + ir * row_stride + jr * col_stride, row_stride, col_stride, mr, nr,
                      alpha);
    }
  }
}

// A's rows [i0, i0 + mc) read in place from column p0 (A's values contiguous
// along a row) times packed B, by the 512-bit tiles or else the AVX2 ones
// (packing A once per column block was a tenth of ResNet-18 on them). A
// tile's rows past A's last repeat it: read, never stored.
inline void multiply_a_in_place(const MatrixView<const float>& a, int64_t i0, int64_t mc, int64_t p0,
                                const float* packed_b, int64_t nc, int64_t kc, float* c, int64_t row_stride,
                                float alpha) {
  const auto rows_of = [&](int64_t ir, bool fetch_next) {
    RowsInPlace rows;
    const int64_t last = std::min(kMR, mc - ir) - 1;
    for (int64_t r = 0; r < kMR; ++r) rows.rows[r] = a.data + (i0 + ir + std::min(r, last)) * a.row_stride + p0;
    // The first column panels ask for the next tile's rows, in this block
    // or the next one (A's last rows repeated where it has fewer); the
    // others find them in the caches.
    const int64_t next = fetch_next ? i0 + ir + kMR : a.rows;
    for (int64_t r = 0; r < kMR; ++r) {
      rows.next[r] = next < a.rows ? a.data + std::min(next + r, a.rows - 1) * a.row_stride + p0 : nullptr;
    }
    return rows;
  };
  if (wide_tiles_enabled && cpu_has_avx512()) {
    multiply_panels_wide(rows_of, packed_b, mc, nc, kc, c, row_stride, alpha);
    return;
  }
#if defined(__x86_64__)
  for (int64_t jr = 0; jr < nc; jr += kNR) {
    const float* panel_b = packed_b + (jr / kNR) * kc * kNR;
    for (int64_t ir = 0; ir < mc; ir += kMR) {
      micro_kernel_f32_avx2(kc, rows_of(ir, jr == 0), panel_b, c + ir * row_stride + jr, row_stride, 1,
                            std::min(kMR, mc - ir), std::min(kNR, nc - jr), alpha);
    }
  }
#endif
}

// Whether gemm's float tiles read A in place rather than packed: a
// row-major A, where the core runs the AVX2 or the 512-bit tiles.
bool reads_a_in_place(const MatrixView<const float>& a, const MatrixView<float>& c) {
  return a.col_stride == 1 && c.col_stride == 1 && ((wide_tiles_enabled && cpu_has_avx512()) || cpu_has_avx2_fma());
}

// Where gemm_impl gets B's panels: a strided matrix it packs itself, or a
// caller's packer (PanelPacker). `columns` is the part a worker multiplies.
template <typename T>
struct ViewSource {
  MatrixView<const T> view;
  void pack(int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) const { pack_b(view, p0, kc, j0, nc, out); }
  ViewSource columns(int64_t j0, int64_t j1) const {
    return {{view.data + j0 * view.col_stride, view.rows, j1 - j0, view.row_stride, view.col_stride}};
  }
};

struct PackerSource {
  const PanelPacker* packer;
  int64_t first_column;
  void pack(int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) const {
    packer->pack(packer->state, p0, kc, first_column + j0, nc, out);
  }
  PackerSource columns(int64_t j0, int64_t /*j1*/) const { return {packer, first_column + j0}; }
};

// `one_row`: the whole product has one row (a part of a split product is
// computed as the whole would be: the row path rounds differently). A
// packer's B always takes the packed path.
template <typename T, typename Source>
void gemm_impl(MatrixView<const T> a, const Source& b, MatrixView<T> c, T alpha, const CStart<T>& start,
               Span<uint8_t> scratch, bool one_row) {
  if (start.row_values == nullptr && start.beta != T(1)) scale_c(c, start.beta);
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == T(0)) return fill_block(c, start, 0, m, 0, n);
  if constexpr (std::is_same_v<Source, ViewSource<T>>) {
    if (one_row && b.view.col_stride == 1 && c.col_stride == 1) {
      fill_block(c, start, 0, m, 0, n);
      row_times_matrix(a.data, a.col_stride, b.view, c.data, alpha);
      return;
    }
    if (one_row && a.col_stride == 1 && b.view.row_stride == 1 && c.col_stride == 1) {
      fill_block(c, start, 0, m, 0, n);
      row_times_columns(a.data, b.view, c.data, alpha);
      return;
    }
  }
  // Align the packed panels to 64 bytes inside the scratch.
  auto base = reinterpret_cast<uintptr_t>(scratch.data());
  base = (base + 63) & ~uintptr_t{63};
  T* packed_a = reinterpret_cast<T*>(base);
  T* packed_b = packed_a + kMC * kKC;
  bool a_in_place = false;
  if constexpr (std::is_same_v<T, float>) a_in_place = reads_a_in_place(a, c);
  for (int64_t j0 = 0; j0 < n; j0 += kNC) {
    const int64_t nc = std::min(kNC, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKC) {
      const int64_t kc = std::min(kKC, k - p0);
      b.pack(p0, kc, j0, nc, packed_b);
      for (int64_t i0 = 0; i0 < m; i0 += kMC) {
        const int64_t mc = std::min(kMC, m - i0);
        if (p0 == 0) fill_block(c, start, i0, mc, j0, nc);
        if constexpr (std::is_same_v<T, float>) {
          if (a_in_place) {
            multiply_a_in_place(a, i0, mc, p0, packed_b, nc, kc, c.data + i0 * c.row_stride + j0, c.row_stride,
                                alpha);
            continue;
          }
        }
        pack_a(a, i0, mc, p0, kc, packed_a);
        multiply_panels(packed_a, packed_b, mc, nc, kc, c.data + i0 * c.row_stride + j0 * c.col_stride,
                        c.row_stride, c.col_stride, alpha);
      }
    }
  }
}

// Over the workers: C's columns in whole NR panels (its rows in whole MR
// panels when it has too few columns to share), each part a gemm of its
// own with the worker's scratch. An element's sum runs over the same KC
// blocks in the same order whatever part it is in: the bits are the
// one-thread product's.
template <typename T, typename Source>
void gemm_parallel(MatrixView<const T> a, const Source& b, MatrixView<T> c, T alpha, const CStart<T>& start,
                   const KernelContext& context) {
  const bool one_row = c.rows == 1;
  // Below ~2^18 multiply-adds a thread costs more than it saves.
  constexpr int64_t kMinWork = int64_t{1} << 18;
  const int64_t work = c.rows * c.cols * std::max<int64_t>(a.cols, 1);
  const int64_t min_items = work >= kMinWork ? 0 : std::numeric_limits<int64_t>::max();
  if (c.cols >= 4 * kNR || c.rows < 4 * kMR) {
    parallel_ranges(context, c.cols, kNR, min_items, [&](Span<uint8_t> scratch, int64_t j0, int64_t j1) {
      const MatrixView<T> c_part{c.data + j0 * c.col_stride, c.rows, j1 - j0, c.row_stride, c.col_stride};
      gemm_impl(a, b.columns(j0, j1), c_part, alpha, start, scratch, one_row);
    });
    return;
  }
  parallel_ranges(context, c.rows, kMR, min_items, [&](Span<uint8_t> scratch, int64_t i0, int64_t i1) {
    const MatrixView<const T> a_part{a.data + i0 * a.row_stride, i1 - i0, a.cols, a.row_stride, a.col_stride};
    const MatrixView<T> c_part{c.data + i0 * c.row_stride, i1 - i0, c.cols, c.row_stride, c.col_stride};
    gemm_impl(a_part, b, c_part, alpha, start.from_row(i0), scratch, one_row);
  });
}

}  // namespace

size_t gemm_scratch_bytes() { return packed_bytes<double>(); }

void gemm_allow_wide_tiles(bool allow) {
#if defined(__x86_64__) && defined(__GNUC__)
  wide_tiles_enabled = allow;
#else
  (void)allow;
#endif
}

bool gemm_uses_wide_tiles() { return wide_tiles_enabled && cpu_has_avx512(); }

void gemm(MatrixView<const float> a, MatrixView<const float> b, MatrixView<float> c, float alpha,
          float beta, Span<uint8_t> scratch) {
  gemm_impl(a, ViewSource<float>{b}, c, alpha, beta_start(beta), scratch, c.rows == 1);
}

void gemm(MatrixView<const double> a, MatrixView<const double> b, MatrixView<double> c,
          double alpha, double beta, Span<uint8_t> scratch) {
  gemm_impl(a, ViewSource<double>{b}, c, alpha, beta_start(beta), scratch, c.rows == 1);
}

void gemm(MatrixView<const float> a, MatrixView<const float> b, MatrixView<float> c, float alpha, float beta,
          const KernelContext& context) {
  gemm_parallel(a, ViewSource<float>{b}, c, alpha, beta_start(beta), context);
}

void gemm(MatrixView<const double> a, MatrixView<const double> b, MatrixView<double> c, double alpha,
          double beta, const KernelContext& context) {
  gemm_parallel(a, ViewSource<double>{b}, c, alpha, beta_start(beta), context);
}

void gemm(MatrixView<const float> a, MatrixView<const float> b, MatrixView<float> c, float alpha,
          RowStart<float> start, const KernelContext& context) {
  gemm_parallel(a, ViewSource<float>{b}, c, alpha, row_start(start), context);
}

void gemm(MatrixView<const double> a, MatrixView<const double> b, MatrixView<double> c, double alpha,
          RowStart<double> start, const KernelContext& context) {
  gemm_parallel(a, ViewSource<double>{b}, c, alpha, row_start(start), context);
}

void gemm(MatrixView<const float> a, const PanelPacker& b, MatrixView<float> c, float alpha, float beta,
          const KernelContext& context) {
  gemm_parallel(a, PackerSource{&b, 0}, c, alpha, beta_start(beta), context);
}

void gemm(MatrixView<const float> a, const PanelPacker& b, MatrixView<float> c, float alpha, RowStart<float> start,
          const KernelContext& context) {
  gemm_parallel(a, PackerSource{&b, 0}, c, alpha, row_start(start), context);
}

}  // namespace etkit::kernels
