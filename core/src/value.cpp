#include "etkit/core/value.h"

#include <cstdio>
#include <cstdlib>

namespace etkit {

const char* to_string(ValueTag tag) {
  switch (tag) {
    case ValueTag::kNone: return "none";
    case ValueTag::kInt: return "int";
    case ValueTag::kDouble: return "double";
    case ValueTag::kBool: return "bool";
    case ValueTag::kString: return "string";
    case ValueTag::kTensor: return "tensor";
    case ValueTag::kIntList: return "int list";
    case ValueTag::kDoubleList: return "double list";
    case ValueTag::kBoolList: return "bool list";
    case ValueTag::kTensorList: return "tensor list";
    case ValueTag::kOptionalTensorList: return "optional tensor list";
  }
  return "unknown";
}

double Value::scalar_as_double() const {
  switch (tag_) {
    case ValueTag::kInt: return static_cast<double>(int_);
    case ValueTag::kDouble: return double_;
    case ValueTag::kBool: return bool_ ? 1.0 : 0.0;
    default: return 0.0;
  }
}

namespace detail {
void value_misuse(ValueTag wanted, ValueTag held) {
  std::fprintf(stderr, "etkit: read a %s value as %s\n", to_string(held), to_string(wanted));
  std::abort();
}
}  // namespace detail

}  // namespace etkit
