#pragma once
/// @file
/// Tensor element types, numbered as PyTorch's c10::ScalarType (the numbers
/// stored in every ExecuTorch file).

#include <cstddef>
#include <cstdint>

namespace etkit {

enum class ScalarType : int8_t {
  kUndefined = -1,  ///< No type (e.g. the identity of type promotion).
  kByte = 0,
  kChar = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kHalf = 5,
  kFloat = 6,
  kDouble = 7,
  kComplexHalf = 8,
  kComplexFloat = 9,
  kComplexDouble = 10,
  kBool = 11,
  kQInt8 = 12,
  kQUInt8 = 13,
  kQInt32 = 14,
  kBFloat16 = 15,
  kQUInt4x2 = 16,
  kQUInt2x4 = 17,
  kBits1x8 = 18,
  kBits2x4 = 19,
  kBits4x2 = 20,
  kBits8 = 21,
  kBits16 = 22,
  kFloat8_e5m2 = 23,
  kFloat8_e4m3fn = 24,
  kFloat8_e5m2fnuz = 25,
  kFloat8_e4m3fnuz = 26,
  kUInt16 = 27,
  kUInt32 = 28,
  kUInt64 = 29,
};

/// True for the values listed above; anything else read from a file is
/// malformed.
bool is_valid(ScalarType type);

/// Bytes per element, or 0 for an invalid type.
size_t element_size(ScalarType type);

/// NumPy-style name ("float32", "int64", "bool", "bfloat16", "qint8", …);
/// "invalid" for values outside the enum.
const char* to_string(ScalarType type);

}  // namespace etkit
