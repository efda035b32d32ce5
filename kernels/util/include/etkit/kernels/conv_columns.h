#pragma once
// A float convolution's im2col matrix as a gemm PanelPacker: column j is
// output pixel j (row-major over out_h x out_w), row (c, kh, kw) the input
// tap under it (zero in the padding). The gemm packs its panels straight
// from the image, so the matrix is never written out whole: one pass over
// the input instead of an im2col pass and a packing pass over a matrix
// k_h * k_w times the input's size.

#include <cstdint>

#include "etkit/kernels/gemm.h"

namespace etkit::kernels {

/// The geometry of one convolution call (convolution.out's).
struct ConvShape {
  int64_t n, in_c, in_h, in_w;
  int64_t out_c, out_h, out_w;
  int64_t k_h, k_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  int64_t groups;
  // Element strides of input and output as (n, c, h, w).
  int64_t is[4], os[4];
};

/// For kernel column kw: the output columns [lo, hi) whose input column
/// ow * stride_w + shift lies inside the image (shift = kw * dil_w - pad_w).
/// The one rule im2col, the depthwise stencil and the packer share.
struct TapColumns {
  int64_t lo, hi, shift;
};
TapColumns tap_columns(const ConvShape& s, int64_t kw);

struct ConvColumns {
  const ConvShape* shape;
  const float* image;  ///< the group's first input channel of one batch item
};

/// Whether conv_column_packer handles this shape (kernel widths it keeps
/// per-tap bounds for on the stack) and is allowed to.
bool conv_columns_suit(const ConvShape& s);

/// Whether convolutions may pack their columns from the image (the default;
/// same bits as im2col), for tests and benches that compare both paths.
/// Not thread-safe: set it before running.
void conv_allow_column_packer(bool allow);

/// Whether float depthwise convolutions run 16-lane tiles on cores with
/// AVX-512 (the default; the same bits as the 8-lane ones), for tests and
/// benches that compare both paths. Not thread-safe: set it before running.
void conv_allow_wide_depthwise_tiles(bool allow);

/// How the packer copies a panel's rows: the widest vectors the core has
/// (the default), at most AVX2, or element by element; the same bytes in
/// every case, for tests that compare them. Not thread-safe.
enum class ColumnRowCopy { kBest, kAvx2, kPlain };
void conv_choose_column_row_copy(ColumnRowCopy choice);

/// The packer of `columns`' im2col matrix (it must outlive the gemm call).
PanelPacker conv_column_packer(const ConvColumns& columns);

}  // namespace etkit::kernels
