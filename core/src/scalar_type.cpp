#include "etkit/core/scalar_type.h"

namespace etkit {
namespace {

struct TypeInfo {
  const char* name;
  size_t size;
};

// Indexed by the enum value; sub-byte and complex types keep their storage
// size per element as PyTorch defines it.
constexpr TypeInfo kTypes[] = {
    {"uint8", 1},         {"int8", 1},           {"int16", 2},
    {"int32", 4},         {"int64", 8},          {"float16", 2},
    {"float32", 4},       {"float64", 8},        {"complex32", 4},
    {"complex64", 8},     {"complex128", 16},    {"bool", 1},
    {"qint8", 1},         {"quint8", 1},         {"qint32", 4},
    {"bfloat16", 2},      {"quint4x2", 1},       {"quint2x4", 1},
    {"bits1x8", 1},       {"bits2x4", 1},        {"bits4x2", 1},
    {"bits8", 1},         {"bits16", 2},         {"float8_e5m2", 1},
    {"float8_e4m3fn", 1}, {"float8_e5m2fnuz", 1}, {"float8_e4m3fnuz", 1},
    {"uint16", 2},        {"uint32", 4},         {"uint64", 8},
};
constexpr int kTypeCount = sizeof(kTypes) / sizeof(kTypes[0]);

}  // namespace

bool is_valid(ScalarType type) {
  int value = static_cast<int>(type);
  return value >= 0 && value < kTypeCount;
}

size_t element_size(ScalarType type) {
  return is_valid(type) ? kTypes[static_cast<int>(type)].size : 0;
}

const char* to_string(ScalarType type) {
  return is_valid(type) ? kTypes[static_cast<int>(type)].name : "invalid";
}

}  // namespace etkit
