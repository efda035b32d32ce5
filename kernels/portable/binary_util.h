#pragma once
// Shared by the binary op families (binary_ops.cpp, binary_math_ops.cpp,
// bitwise_ops.cpp): Scalar operands as 0-dim tensors, the result dtype of
// two operands, and the out-dtype check.

#include "etkit/kernels/elementwise.h"

namespace etkit::kernels {

// A Value or a tensor "other" operand: scalars become 0-dim tensors backed
// by a local double, which keeps one code path for both overloads.
// Ints stay int64 so large values keep every bit.
struct ScalarTensor {
  union {
    double d;
    int64_t i;
    bool b;
  } storage{};
  Tensor tensor;
  explicit ScalarTensor(const Value& v) {
    ScalarType type = ScalarType::kDouble;
    if (v.tag() == ValueTag::kInt) {
      storage.i = v.unchecked_int();
      type = ScalarType::kLong;
    } else if (v.tag() == ValueTag::kBool) {
      storage.b = v.unchecked_bool();
      type = ScalarType::kBool;
    } else {
      storage.d = v.scalar_as_double();
    }
    tensor = *Tensor::make(type, {}, {}, &storage, sizeof(storage));
  }
};

inline Status check_out_type(KernelContext& context, ScalarType common, const Tensor& out) {
  ETKIT_KERNEL_CHECK(context, common != ScalarType::kUndefined, "inputs have no common dtype");
  ETKIT_KERNEL_CHECK(context, can_cast(common, out.scalar_type()),
                     "result type %s can't be cast to the out dtype %s", to_string(common),
                     to_string(out.scalar_type()));
  return Ok{};
}

/// The result dtype of `a` with `b` and/or `scalar` (ATen's priorities).
inline ScalarType common_type(const Tensor& a, const Tensor* b, const Value* scalar) {
  ResultTypeState state;
  state.add_tensor(a);
  if (b) state.add_tensor(*b);
  if (scalar) state.add_scalar(*scalar);
  return state.result();
}

}  // namespace etkit::kernels
