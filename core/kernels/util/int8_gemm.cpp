#include "etkit/kernels/int8_gemm.h"

#include <algorithm>

namespace etkit::kernels {

int32_t dot_s8(const int8_t* a, const int8_t* b, size_t k) {
  // 16-bit products summed pairwise in 32 bits: the compiler's widening
  // multiply-add (pmaddwd on x86).
  int32_t sum = 0;
  for (size_t i = 0; i < k; ++i) sum += int32_t(int16_t(a[i]) * int16_t(b[i]));
  return sum;
}

void unpack_s4(const uint8_t* packed, size_t k, int8_t* out) {
  const size_t pairs = k / 2;
  for (size_t i = 0; i < pairs; ++i) {
    const uint8_t byte = packed[i];
    out[2 * i] = int8_t((byte & 0x0F) - 8);
    out[2 * i + 1] = int8_t((byte >> 4) - 8);
  }
  if (k % 2 != 0) out[k - 1] = int8_t((packed[pairs] & 0x0F) - 8);
}

void gemm_s8_s8_s32(const Int8GemmShape& shape, const int8_t* x, const uint8_t* w, size_t k0, size_t k1,
                    int32_t* acc, size_t acc_stride, int8_t* unpacked) {
  const size_t width = k1 - k0;
  for (size_t j0 = 0; j0 < shape.n; j0 += kRowBlock) {
    const size_t block = std::min(kRowBlock, shape.n - j0);
    const int8_t* rows[kRowBlock];
    for (size_t b = 0; b < block; ++b) {
      const uint8_t* row = w + (j0 + b) * shape.w_row_bytes;
      if (shape.four_bit) {
        // k0 is even (groups are multiples of 32), so the block starts on a byte.
        unpack_s4(row + k0 / 2, width, unpacked + b * width);
        rows[b] = unpacked + b * width;
      } else {
        rows[b] = reinterpret_cast<const int8_t*>(row) + k0;
      }
    }
    for (size_t m = 0; m < shape.rows; ++m) {
      const int8_t* a = x + m * shape.k + k0;
      for (size_t b = 0; b < block; ++b) acc[m * acc_stride + j0 + b] = dot_s8(a, rows[b], width);
    }
  }
}

}  // namespace etkit::kernels
