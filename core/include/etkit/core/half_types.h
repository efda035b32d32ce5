#pragma once
// float16 and bfloat16 storage types with conversion to and from float,
// rounding to nearest even as PyTorch does.

#include <cstdint>
#include <cstring>

namespace etkit {

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float value) : bits(from_float(value)) {}
  operator float() const { return to_float(bits); }

  static uint16_t from_float(float value) {
    uint32_t f;
    std::memcpy(&f, &value, 4);
    const uint32_t sign = (f >> 16) & 0x8000u;
    const uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or nan
      return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
    }
    if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
      return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (abs < 0x38800000u) {  // subnormal half (or zero)
      float magnitude;
      std::memcpy(&magnitude, &abs, 4);
      // Adding 0.5 (2^-1) aligns the mantissa so FP rounding does RNE.
      float shifted = magnitude + 0.5f;
      uint32_t bits;
      std::memcpy(&bits, &shifted, 4);
      return static_cast<uint16_t>(sign | ((bits - 0x3f000000u) & 0x3ffu));
    }
    const uint32_t mantissa_odd = (abs >> 13) & 1u;
    uint32_t rounded = abs + 0xfffu + mantissa_odd;
    rounded -= (127u - 15u) << 23;
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }
  static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    const uint32_t mantissa = h & 0x3ffu;
    uint32_t f;
    if (exponent == 0) {
      if (mantissa == 0) {
        f = sign;
      } else {
        float value = static_cast<float>(mantissa) * (1.0f / 16777216.0f);  // 2^-24
        std::memcpy(&f, &value, 4);
        f |= sign;
      }
    } else if (exponent == 31) {
      f = sign | 0x7f800000u | (mantissa << 13);
    } else {
      f = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    }
    float out;
    std::memcpy(&out, &f, 4);
    return out;
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float value) {
    uint32_t f;
    std::memcpy(&f, &value, 4);
    if ((f & 0x7fffffffu) > 0x7f800000u) {
      bits = 0x7fc0;  // canonical NaN, as c10::BFloat16
    } else {
      const uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
      bits = static_cast<uint16_t>((f + rounding) >> 16);
    }
  }
  operator float() const {
    const uint32_t f = static_cast<uint32_t>(bits) << 16;
    float out;
    std::memcpy(&out, &f, 4);
    return out;
  }
};

}  // namespace etkit
