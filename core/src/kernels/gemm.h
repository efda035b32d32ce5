#pragma once
// The one matrix multiply behind mm, addmm, bmm, linear and convolution:
// C = alpha * op(A) * op(B) + beta * C over strided operands, blocked for
// the caches, with a register-tiled float32 micro-kernel.

#include <cstddef>
#include <cstdint>

#include "etkit/core/span.h"

namespace etkit::kernels {

/// A matrix view: element (i, j) is at data[i * row_stride + j * col_stride].
template <typename T>
struct MatrixView {
  T* data;
  int64_t rows;
  int64_t cols;
  int64_t row_stride;
  int64_t col_stride;
};

/// C = alpha * A * B + beta * C. beta == 0 ignores C's contents (NaNs
/// included), as ATen does. `scratch` holds packed panels.
void gemm(MatrixView<const float> a, MatrixView<const float> b, MatrixView<float> c,
          float alpha, float beta, Span<uint8_t> scratch);
void gemm(MatrixView<const double> a, MatrixView<const double> b, MatrixView<double> c,
          double alpha, double beta, Span<uint8_t> scratch);

/// Scratch bytes gemm needs at most.
size_t gemm_scratch_bytes();

}  // namespace etkit::kernels
