#pragma once
// The one matrix multiply behind mm, addmm, bmm, linear and convolution:
// C = alpha * op(A) * op(B) + beta * C (or + a start value per row, a
// convolution's bias) over strided operands, blocked for the caches, with a
// register-tiled float32 micro-kernel; integer types by a plain loop.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "etkit/core/kernel_registry.h"
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

/// What a product that overwrites C starts each row from: C(i, j) =
/// alpha * (A * B)(i, j) + values[i * stride] (a convolution's bias, one per
/// output channel; stride 0 repeats one value). C's old contents are not
/// read. The bits are those of filling C with the values, then gemm with
/// beta 1; gemm fills each block of C just before its first products, while
/// the block is in the caches, instead of in a pass of its own.
template <typename T>
struct RowStart {
  const T* values;
  int64_t stride;
};

/// The same over the runtime's workers (etkit/kernels/parallel.h): C split
/// into column (or row) panels, each with its worker's scratch; the result
/// is bit for bit the one-thread gemm's.
void gemm(MatrixView<const float> a, MatrixView<const float> b, MatrixView<float> c, float alpha, float beta,
          const KernelContext& context);
void gemm(MatrixView<const double> a, MatrixView<const double> b, MatrixView<double> c, double alpha,
          double beta, const KernelContext& context);
/// C = alpha * A * B + start (RowStart), over the workers.
void gemm(MatrixView<const float> a, MatrixView<const float> b, MatrixView<float> c, float alpha,
          RowStart<float> start, const KernelContext& context);
void gemm(MatrixView<const double> a, MatrixView<const double> b, MatrixView<double> c, double alpha,
          RowStart<double> start, const KernelContext& context);

/// B supplied by what packs it, never stored whole: a convolution packs its
/// im2col columns straight from the image. pack(state, p0, kc, j0, nc, out)
/// writes B's rows [p0, p0 + kc) by columns [j0, j0 + nc) the way gemm packs
/// a matrix: panels of kGemmPanelColumns columns one after another, each kc
/// rows of kGemmPanelColumns values, the columns past nc zero.
inline constexpr int64_t kGemmPanelColumns = 16;
struct PanelPacker {
  void (*pack)(const void* state, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out);
  const void* state;
};

/// C = alpha * A * B + beta * C over the workers, B from `b` (A's columns
/// by C's columns). When C has more than one row, the bits are those of the
/// gemm above on the matrix `b` packs (a one-row C takes no row shortcut).
void gemm(MatrixView<const float> a, const PanelPacker& b, MatrixView<float> c, float alpha, float beta,
          const KernelContext& context);
void gemm(MatrixView<const float> a, const PanelPacker& b, MatrixView<float> c, float alpha, RowStart<float> start,
          const KernelContext& context);

namespace detail {
// The integer product's loop: C starts from beta * C, or from row i's value
// when `start.values` is set.
template <typename T>
void integer_gemm(MatrixView<const T> a, MatrixView<const T> b, MatrixView<T> c, T alpha, T beta,
                  RowStart<T> start) {
  const auto wide = [](T v) { return static_cast<uint64_t>(static_cast<int64_t>(v)); };
  for (int64_t i = 0; i < c.rows; ++i) {
    for (int64_t j = 0; j < c.cols; ++j) {
      uint64_t sum = 0;
      for (int64_t k = 0; k < a.cols; ++k) {
        sum += wide(a.data[i * a.row_stride + k * a.col_stride]) * wide(b.data[k * b.row_stride + j * b.col_stride]);
      }
      T& dst = c.data[i * c.row_stride + j * c.col_stride];
      uint64_t result = wide(alpha) * sum;
      if (start.values != nullptr) {
        result += wide(start.values[i * start.stride]);
      } else if (beta != T(0)) {
        result += wide(beta) * wide(dst);
      }
      dst = static_cast<T>(static_cast<int64_t>(result));
    }
  }
}
}  // namespace detail

/// Integer types: C = alpha * A * B + beta * C modulo the type's width,
/// as ATen's integer kernels compute (two's complement wrap-around; the
/// products are summed in 64 bits, which gives the same residue as
/// summing in the type). beta == 0 ignores C.
template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
void gemm(MatrixView<const T> a, MatrixView<const T> b, MatrixView<T> c, T alpha, T beta,
          Span<uint8_t> /*scratch*/) {
  detail::integer_gemm(a, b, c, alpha, beta, RowStart<T>{nullptr, 0});
}

/// Integer products on one thread (the plain loop), for callers that pass
/// their kernel context.
template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
void gemm(MatrixView<const T> a, MatrixView<const T> b, MatrixView<T> c, T alpha, T beta,
          const KernelContext& /*context*/) {
  detail::integer_gemm(a, b, c, alpha, beta, RowStart<T>{nullptr, 0});
}

/// Integer C = alpha * A * B + start (RowStart), modulo the type's width.
template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
void gemm(MatrixView<const T> a, MatrixView<const T> b, MatrixView<T> c, T alpha, RowStart<T> start,
          const KernelContext& /*context*/) {
  detail::integer_gemm(a, b, c, alpha, T(1), start);
}

/// Scratch bytes gemm needs at most.
size_t gemm_scratch_bytes();

/// Whether float gemm computes two register tiles at once in 512-bit
/// registers on cores with AVX-512 (the default; same bits as without),
/// for tests and benches that compare both paths. Not thread-safe: set it
/// before running.
void gemm_allow_wide_tiles(bool allow);
/// True when float gemm runs the 512-bit tiles on this core.
bool gemm_uses_wide_tiles();

}  // namespace etkit::kernels
