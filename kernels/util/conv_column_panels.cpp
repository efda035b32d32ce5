#include "etkit/kernels/conv_columns.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "etkit/kernels/fast_math.h"

namespace etkit::kernels {
namespace {

constexpr int64_t kLanes = kGemmPanelColumns;
// Per-tap column bounds live on the stack; wider kernels take im2col.
constexpr int64_t kMaxKernelWidth = 16;
// Kernels of up to this many taps pack through per-panel tap plans (a 7 x 7
// stem's 49 fit); larger ones fill their panels run by run.
constexpr int64_t kMaxPlannedTaps = 49;
bool column_packer_allowed = true;
ColumnRowCopy row_copy_choice = ColumnRowCopy::kBest;

// A panel's pixels inside one output row: `len` pixels from (oh, ow), at
// lane `lane` of the panel.
struct Run {
  int64_t oh, ow, len, lane;
};

// Pixels [j, j + lanes) as runs, one per output row they touch.
int split_runs(const ConvShape& s, int64_t j, int64_t lanes, Run* runs) {
  int count = 0;
  int64_t oh = j / s.out_w, ow = j % s.out_w;
  for (int64_t lane = 0; lane < lanes; ++oh, ow = 0) {
    const int64_t len = std::min(s.out_w - ow, lanes - lane);
    runs[count++] = {oh, ow, len, lane};
    lane += len;
  }
  return count;
}

void fill_tap_columns(const ConvShape& s, TapColumns* taps) {
  for (int64_t kw = 0; kw < s.k_w; ++kw) taps[kw] = tap_columns(s, kw);
}

// Row (c, kh, kw) of one panel: under each run, its input row segment,
// zero where the tap falls in the padding.
inline void fill_panel_row(const ConvShape& s, const float* channel, int64_t kh, const TapColumns& tap,
                           const Run* runs, int count, float* __restrict dst) {
  const int64_t step = s.stride_w * s.is[3];
  for (int r = 0; r < count; ++r) {
    const Run& run = runs[r];
    float* __restrict out = dst + run.lane - run.ow;  // indexed by output column
    const int64_t end = run.ow + run.len;
    const int64_t ih = run.oh * s.stride_h - s.pad_h + kh * s.dil_h;
    int64_t lo = end, hi = end;
    if (ih >= 0 && ih < s.in_h) {
      lo = std::clamp(tap.lo, run.ow, end);
      hi = std::clamp(tap.hi, lo, end);
    }
    const float* src = lo < hi ? channel + ih * s.is[2] + tap.shift * s.is[3] : nullptr;
    for (int64_t ow = run.ow; ow < lo; ++ow) out[ow] = 0.0f;
    if (step == 1) {
      for (int64_t ow = lo; ow < hi; ++ow) out[ow] = src[ow];
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) out[ow] = src[ow * step];
    }
    for (int64_t ow = hi; ow < end; ++ow) out[ow] = 0.0f;
  }
}

// Steps (c, kh, kw) through the rows of the im2col matrix.
struct TapCursor {
  int64_t c, kh, kw;
  TapCursor(const ConvShape& s, int64_t row)
      : c(row / (s.k_h * s.k_w)), kh((row / s.k_w) % s.k_h), kw(row % s.k_w) {}
  void next(const ConvShape& s) {
    if (++kw == s.k_w) {
      kw = 0;
      if (++kh == s.k_h) kh = 0, ++c;
    }
  }
  int64_t tap(const ConvShape& s) const { return kh * s.k_w + kw; }
};

// What one tap (kh, kw) puts in a panel's row, the same for every input
// channel: segments of lanes, segment i's lane l reading the channel at
// offset[i] + l * step (offset[i] is where lane 0 would read; it can lie
// outside the channel, and only the segment's lanes are read). Every other
// lane is zero. Planned once per panel, a row is then a few masked loads
// instead of the runs' bookkeeping, which cost a sixth of ResNet-18.
struct TapPlan {
  int count;
  uint32_t lanes[kLanes];   ///< the segment's lanes as bits
  int64_t offset[kLanes];
  bool whole() const { return count == 1 && lanes[0] == 0xFFFFu; }
};

void plan_tap(const ConvShape& s, int64_t kh, const TapColumns& tap, const Run* runs, int run_count,
              TapPlan& plan) {
  const int64_t step = s.stride_w * s.is[3];
  plan.count = 0;
  for (int r = 0; r < run_count; ++r) {
    const Run& run = runs[r];
    const int64_t ih = run.oh * s.stride_h - s.pad_h + kh * s.dil_h;
    if (ih < 0 || ih >= s.in_h) continue;
    const int64_t end = run.ow + run.len;
    const int64_t lo = std::clamp(tap.lo, run.ow, end), hi = std::clamp(tap.hi, lo, end);
    if (lo == hi) continue;
    const int64_t first_lane = run.lane + lo - run.ow;
    plan.lanes[plan.count] = ((1u << (hi - lo)) - 1u) << first_lane;
    plan.offset[plan.count] = ih * s.is[2] + tap.shift * s.is[3] + lo * step - first_lane * step;
    ++plan.count;
  }
}

// The address of element `offset` of `channel`, formed as an integer: a
// segment's lane 0 can lie before the channel, where pointer arithmetic
// would be undefined.
inline const float* at_offset(const float* channel, int64_t offset) {
  return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(channel) +
                                        static_cast<uintptr_t>(offset) * sizeof(float));
}

void copy_row_plain(const TapPlan& plan, const float* channel, int64_t step, float* __restrict dst) {
  for (int64_t lane = 0; lane < kLanes; ++lane) dst[lane] = 0.0f;
  for (int i = 0; i < plan.count; ++i) {
    for (int64_t lane = 0; lane < kLanes; ++lane) {
      if (plan.lanes[i] >> lane & 1u) dst[lane] = *at_offset(channel, plan.offset[i] + lane * step);
    }
  }
}

// Rows [p0, p0 + kc) of one panel through its tap plans, element by element.
// The vector variants below walk the rows themselves: a loop shared through a
// template could not call their target-specific intrinsics.
void pack_planned_plain(const ConvShape& s, const float* image, const TapPlan* plans, int64_t p0, int64_t kc,
                        float* out) {
  const int64_t step = s.stride_w * s.is[3];
  TapCursor tap(s, p0);
  for (int64_t p = 0; p < kc; ++p, tap.next(s)) {
    copy_row_plain(plans[tap.tap(s)], image + tap.c * s.is[1], step, out + p * kLanes);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// Sixteen lanes as two eight-lane halves, each segment one masked load per
// half (lanes outside the mask read nothing and load zero; the segments'
// lanes are disjoint, so OR joins them). Other steps than 1 go lane by lane.
ETKIT_AVX2_FMA inline __m256i half_mask(uint32_t bits) {
  const __m256i lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(int(bits)), lane_bits), lane_bits);
}

ETKIT_AVX2_FMA void pack_planned_avx2(const ConvShape& s, const float* image, const TapPlan* plans, int64_t p0,
                                      int64_t kc, float* out) {
  if (s.stride_w * s.is[3] != 1) return pack_planned_plain(s, image, plans, p0, kc, out);
  TapCursor tap(s, p0);
  for (int64_t p = 0; p < kc; ++p, tap.next(s)) {
    const TapPlan& plan = plans[tap.tap(s)];
    const float* channel = image + tap.c * s.is[1];
    float* dst = out + p * kLanes;
    if (plan.whole()) {
      const float* src = channel + plan.offset[0];
      _mm256_storeu_ps(dst, _mm256_loadu_ps(src));
      _mm256_storeu_ps(dst + 8, _mm256_loadu_ps(src + 8));
      continue;
    }
    __m256 low = _mm256_setzero_ps(), high = _mm256_setzero_ps();
    for (int i = 0; i < plan.count; ++i) {
      const float* src = at_offset(channel, plan.offset[i]);
      low = _mm256_or_ps(low, _mm256_maskload_ps(src, half_mask(plan.lanes[i] & 0xFFu)));
      high = _mm256_or_ps(high, _mm256_maskload_ps(at_offset(src, 8), half_mask(plan.lanes[i] >> 8)));
    }
    _mm256_storeu_ps(dst, low);
    _mm256_storeu_ps(dst + 8, high);
  }
}

// All sixteen lanes in one register: a segment is one masked load at step
// 1; at step 2 two masked loads of the 32 values under its lanes and one
// permute that keeps every second. Other steps go lane by lane.
__attribute__((target("avx512f,bmi2"))) void pack_planned_avx512(const ConvShape& s, const float* image,
                                                            const TapPlan* plans, int64_t p0, int64_t kc,
                                                            float* out) {
  const int64_t step = s.stride_w * s.is[3];
  if (step != 1 && step != 2) return pack_planned_plain(s, image, plans, p0, kc, out);
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  TapCursor tap(s, p0);
  for (int64_t p = 0; p < kc; ++p, tap.next(s)) {
    const TapPlan& plan = plans[tap.tap(s)];
    const float* channel = image + tap.c * s.is[1];
    __m512 row = _mm512_setzero_ps();
    for (int i = 0; i < plan.count; ++i) {
      const float* src = at_offset(channel, plan.offset[i]);
      const __mmask16 lanes = static_cast<__mmask16>(plan.lanes[i]);
      if (step == 1) {
        row = _mm512_mask_loadu_ps(row, lanes, src);
        continue;
      }
      // Lane l reads value 2l of the 32 from src: bit 2l of the pair of loads.
      const uint32_t spread = _pdep_u32(plan.lanes[i], 0x55555555u);
      const __m512 even_low = _mm512_maskz_loadu_ps(static_cast<__mmask16>(spread), src);
      const __m512 even_high = _mm512_maskz_loadu_ps(static_cast<__mmask16>(spread >> 16), at_offset(src, 16));
      row = _mm512_mask_mov_ps(row, lanes, _mm512_permutex2var_ps(even_low, evens, even_high));
    }
    _mm512_storeu_ps(out + p * kLanes, row);
  }
}

bool cpu_has_avx512_bmi2() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("bmi2");
  return has;
}
#endif

// One panel's rows through its tap plans, by the widest copy the core runs
// (or the one a test chose).
void pack_planned(const ConvShape& s, const float* image, const TapPlan* plans, int64_t p0, int64_t kc,
                  float* out) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (row_copy_choice == ColumnRowCopy::kBest && cpu_has_avx512_bmi2()) {
    return pack_planned_avx512(s, image, plans, p0, kc, out);
  }
  if (row_copy_choice != ColumnRowCopy::kPlain && cpu_has_avx2_fma()) {
    return pack_planned_avx2(s, image, plans, p0, kc, out);
  }
#endif
  pack_planned_plain(s, image, plans, p0, kc, out);
}

// A panel's rows run by run, for kernels with more taps than plans kept.
void pack_runs(const ConvShape& s, const float* image, const TapColumns* taps, const Run* runs, int count,
               int64_t p0, int64_t kc, float* out) {
  TapCursor tap(s, p0);
  for (int64_t p = 0; p < kc; ++p, tap.next(s)) {
    float* dst = out + p * kLanes;
    for (int64_t lane = 0; lane < kLanes; ++lane) dst[lane] = 0.0f;
    fill_panel_row(s, image + tap.c * s.is[1], tap.kh, taps[tap.kw], runs, count, dst);
  }
}

void pack_conv_columns(const void* state, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  const auto& columns = *static_cast<const ConvColumns*>(state);
  const ConvShape& s = *columns.shape;
  TapColumns taps[kMaxKernelWidth];
  fill_tap_columns(s, taps);
  const bool planned = s.k_h * s.k_w <= kMaxPlannedTaps;
  TapPlan plans[kMaxPlannedTaps];
  for (int64_t jr = 0; jr < nc; jr += kLanes, out += kc * kLanes) {
    Run runs[kLanes];
    const int count = split_runs(s, j0 + jr, std::min(kLanes, nc - jr), runs);
    if (!planned) {
      pack_runs(s, columns.image, taps, runs, count, p0, kc, out);
      continue;
    }
    for (int64_t kh = 0; kh < s.k_h; ++kh) {
      for (int64_t kw = 0; kw < s.k_w; ++kw) plan_tap(s, kh, taps[kw], runs, count, plans[kh * s.k_w + kw]);
    }
    pack_planned(s, columns.image, plans, p0, kc, out);
  }
}

}  // namespace

TapColumns tap_columns(const ConvShape& s, int64_t kw) {
  const int64_t shift = kw * s.dil_w - s.pad_w;
  int64_t lo = shift >= 0 ? 0 : (-shift + s.stride_w - 1) / s.stride_w;
  int64_t hi = (s.in_w - 1 - shift) < 0 ? 0 : (s.in_w - 1 - shift) / s.stride_w + 1;
  lo = std::min(lo, s.out_w);
  hi = std::max(lo, std::min(hi, s.out_w));
  return {lo, hi, shift};
}

bool conv_columns_suit(const ConvShape& s) {
  return column_packer_allowed && s.k_w >= 1 && s.k_w <= kMaxKernelWidth && s.out_w >= 1;
}

void conv_allow_column_packer(bool allow) { column_packer_allowed = allow; }

void conv_choose_column_row_copy(ColumnRowCopy choice) { row_copy_choice = choice; }

PanelPacker conv_column_packer(const ConvColumns& columns) { return {&pack_conv_columns, &columns}; }

}  // namespace etkit::kernels
