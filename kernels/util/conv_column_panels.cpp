#include "etkit/kernels/conv_columns.h"

#include <algorithm>
#include <cstring>

namespace etkit::kernels {
namespace {

constexpr int64_t kLanes = kGemmPanelColumns;
// Per-tap column bounds live on the stack; wider kernels take im2col.
constexpr int64_t kMaxKernelWidth = 16;
bool column_packer_allowed = true;

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
};

// A panel whose sixteen pixels are one output row's: most rows of the
// panel are sixteen consecutive (or evenly strided) input values, copied
// without the per-run bookkeeping.
void pack_one_row_panel(const ConvShape& s, const float* image, const TapColumns* taps, const Run& run,
                        int64_t p0, int64_t kc, float* __restrict out) {
  const int64_t step = s.stride_w * s.is[3];
  const int64_t ih0 = run.oh * s.stride_h - s.pad_h;
  TapCursor tap(s, p0);
  for (int64_t p = 0; p < kc; ++p, tap.next(s)) {
    float* __restrict dst = out + p * kLanes;
    const float* channel = image + tap.c * s.is[1];
    const TapColumns& columns = taps[tap.kw];
    const int64_t ih = ih0 + tap.kh * s.dil_h;
    if (ih >= 0 && ih < s.in_h && run.ow >= columns.lo && run.ow + kLanes <= columns.hi) {
      const float* src = channel + ih * s.is[2] + columns.shift * s.is[3] + run.ow * step;
      if (step == 1) {
        std::memcpy(dst, src, sizeof(float) * kLanes);
      } else {
        for (int64_t lane = 0; lane < kLanes; ++lane) dst[lane] = src[lane * step];
      }
      continue;
    }
    fill_panel_row(s, channel, tap.kh, columns, &run, 1, dst);
  }
}

void pack_conv_columns(const void* state, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  const auto& columns = *static_cast<const ConvColumns*>(state);
  const ConvShape& s = *columns.shape;
  TapColumns taps[kMaxKernelWidth];
  fill_tap_columns(s, taps);
  for (int64_t jr = 0; jr < nc; jr += kLanes, out += kc * kLanes) {
    const int64_t lanes = std::min(kLanes, nc - jr);
    Run runs[kLanes];
    const int count = split_runs(s, j0 + jr, lanes, runs);
    if (count == 1 && lanes == kLanes) {
      pack_one_row_panel(s, columns.image, taps, runs[0], p0, kc, out);
      continue;
    }
    TapCursor tap(s, p0);
    for (int64_t p = 0; p < kc; ++p, tap.next(s)) {
      float* dst = out + p * kLanes;
      fill_panel_row(s, columns.image + tap.c * s.is[1], tap.kh, taps[tap.kw], runs, count, dst);
      for (int64_t lane = lanes; lane < kLanes; ++lane) dst[lane] = 0.0f;
    }
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

PanelPacker conv_column_packer(const ConvColumns& columns) { return {&pack_conv_columns, &columns}; }

}  // namespace etkit::kernels
