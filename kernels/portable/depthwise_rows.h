#pragma once
// The float32 depthwise convolution's vector path (x86 with AVX2 and FMA):
// tiles of output rows and columns held in registers across all taps, each
// input row loaded once for every output row of the tile it feeds.

#include <cstdint>

#include "etkit/kernels/conv_columns.h"
#include "etkit/core/span.h"

namespace etkit::kernels {

/// Whether conv_depthwise_rows_f32 takes this shape with `scratch_bytes` of
/// worker scratch: contiguous rows, column stride 1 or 2, at most 64 taps.
bool depthwise_rows_suit(const ConvShape& s, size_t scratch_bytes);

/// Output planes [first, last) of the n * out_c: each output is its bias
/// (`bias[oc * bias_stride]`, zero without one), then w * x fused into it
/// tap by tap, kh then kw, the padding's taps skipped: the sequence of the
/// generic stencil, so the bits do not depend on the path. Call only where
/// depthwise_rows_suit and the core has AVX2 and FMA.
void conv_depthwise_rows_f32(const ConvShape& s, const float* in, const float* weight, const int64_t* ws,
                             const float* bias, int64_t bias_stride, float* out, int64_t first, int64_t last,
                             Span<uint8_t> scratch);

}  // namespace etkit::kernels
