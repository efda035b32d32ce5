#pragma once
// Integer matrix products of dynamically quantized linears: int8
// activations (one row per token) times int8 or packed 4-bit weights, in
// int32. Weights are [n][k] rows (a linear's layout); 4-bit rows pack two
// values per byte, the even column in the low nibble, stored + 8 (the
// layout of XNNPACK's qc4w/qb4w weights, which upstream serializes).

#include <cstddef>
#include <cstdint>

namespace etkit::kernels {

/// sum_i a[i] * b[i] in int32.
int32_t dot_s8(const int8_t* a, const int8_t* b, size_t k);

/// Unpacks `k` 4-bit values (from ceil(k / 2) bytes) to int8 in [-8, 7].
void unpack_s4(const uint8_t* packed, size_t k, int8_t* out);

/// acc[m][j] = sum over columns [k0, k1) of x[m][c] * w[j][c] for the
/// `rows` activation rows and the `n` weight rows [n0, n0 + n): weight rows
/// are unpacked (4-bit) once per block of `kRowBlock` rows and reused for
/// every activation row, which is what makes the M > 1 product cheap.
/// `w_row_bytes` is the byte stride of a weight row; `acc_stride` the
/// int32 stride of an acc row; `unpacked` holds kRowBlock * (k1 - k0) int8.
struct Int8GemmShape {
  size_t rows = 0;          ///< activation rows (M)
  size_t k = 0;             ///< activation row length
  size_t n = 0;             ///< weight rows (output channels)
  size_t w_row_bytes = 0;
  bool four_bit = false;
};
constexpr size_t kRowBlock = 4;
void gemm_s8_s8_s32(const Int8GemmShape& shape, const int8_t* x, const uint8_t* w, size_t k0, size_t k1,
                    int32_t* acc, size_t acc_stride, int8_t* unpacked);

}  // namespace etkit::kernels
