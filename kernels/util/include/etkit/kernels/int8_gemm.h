#pragma once
// Integer dot products of dynamically quantized linears: int8 activations
// (one row per token) times int8 or packed 4-bit weights, in int32.
// Weights are [n][k] rows (a linear's layout); 4-bit rows pack two values
// per byte, the even column in the low nibble, stored + 8 (the layout of
// XNNPACK's qc4w/qb4w weights, which upstream serializes).
//
// 4-bit products run on the packed bytes: the activation row is split
// once into its even and odd columns, so each weight byte meets its two
// activations at the same index and the loop vectorizes without
// unpacking; the stored + 8 is taken back as 8 * sum(activations).

#include <cstddef>
#include <cstdint>

namespace etkit::kernels {

/// sum_i x[i] * w[i] in int32.
int32_t dot_s8(const int8_t* x, const int8_t* w, size_t k);

/// sum_i even[i] * (packed[i] & 15) + odd[i] * (packed[i] >> 4) in int32:
/// activations split by split_even_odd times unsigned nibbles.
int32_t dot_s8_u4(const int8_t* even, const int8_t* odd, const uint8_t* packed, size_t bytes);

/// dot_s8_u4 over `groups` consecutive groups of `group_bytes` bytes each,
/// into dots[g]: one call per weight row and activation row. `scratch`
/// holds group_scratch_ints(groups) int32 (group 32 sums in passes over
/// the whole row instead of one reduction per group).
void group_dots_s8_u4(const int8_t* even, const int8_t* odd, const uint8_t* packed, size_t groups,
                      size_t group_bytes, int32_t* dots, int32_t* scratch);
inline size_t group_scratch_ints(size_t groups) { return groups * 16 + 2; }
/// What group_dots_s8_u4 runs where AVX2 is absent (16-byte groups in
/// vectorizable passes over the row); exposed so tests check both paths.
void group_dots_s8_u4_generic(const int8_t* even, const int8_t* odd, const uint8_t* packed, size_t groups,
                              size_t group_bytes, int32_t* dots, int32_t* scratch);

/// Where group_dots_s8_u4_rows writes row r's group g:
/// dots[r * row + g * group].
struct DotLayout {
  size_t row;
  size_t group;
};

/// group_dots_s8_u4 of one weight row against `rows` activation rows
/// (row r's even and odd halves at even/odd + r * row_stride) into `dots`
/// laid out as `layout` says: each weight byte is split into its nibbles
/// once for every row, and AVX2 sums four rows' groups in one reduction.
/// The same integers as one group_dots_s8_u4 call per row.
void group_dots_s8_u4_rows(const int8_t* even, const int8_t* odd, size_t row_stride, size_t rows,
                           const uint8_t* packed, size_t groups, size_t group_bytes, int32_t* dots, DotLayout layout,
                           int32_t* scratch);
/// Scratch of group_dots_s8_u4_rows: its int32 count.
inline size_t rows_scratch_ints(size_t groups) { return group_scratch_ints(groups) + groups; }

/// Splits `k` columns into even and odd ones ((k + 1) / 2 each; the odd
/// half ends with a 0 when k is odd, matching the row's padding nibble).
void split_even_odd(const int8_t* x, size_t k, int8_t* even, int8_t* odd);

/// Unpacks `k` 4-bit values (from ceil(k / 2) bytes) to int8 in [-8, 7].
void unpack_s4(const uint8_t* packed, size_t k, int8_t* out);

}  // namespace etkit::kernels
