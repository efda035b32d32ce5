#pragma once
// The two passes of quantizing an fp32 row to qdint8 (XNNPACK's Convert
// fp32 -> qd8, which Debian's XNNPACK lacks): the row's range over its
// finite values, then each value scaled, clamped and rounded half to even.
// An AVX2 path where the CPU has it; the same int8 values either way.

#include <cstddef>
#include <cstdint>

namespace etkit::kernels {

/// The smallest and largest finite values of x[0, n); min > max when
/// there is none (NaN and infinities are left out: a diverged activation
/// would make the scale non-finite).
void finite_range(const float* x, size_t n, float& min, float& max);

/// out[i] = round_half_even(clamp(x[i] * multiplier, lo, hi)) + zero_point,
/// a NaN product taken as 0 (the zero point). lo and hi are whole numbers
/// with lo + zero_point >= -128 and hi + zero_point <= 127.
void quantize_qd8(const float* x, size_t n, float multiplier, float lo, float hi, int32_t zero_point, int8_t* out);

/// What the two run without AVX2; exposed so tests check both paths.
void finite_range_generic(const float* x, size_t n, float& min, float& max);
void quantize_qd8_generic(const float* x, size_t n, float multiplier, float lo, float hi, int32_t zero_point,
                          int8_t* out);

}  // namespace etkit::kernels
