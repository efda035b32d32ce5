// bitwise_and/or/xor (Tensor and Scalar; integers and bool) and the shifts
// (integers only). Shifts past the width follow current ATen: a left shift
// gives 0, a right shift fills with the sign bit (0 for unsigned), as does
// a negative shift count.

#include "binary_util.h"

namespace etkit::kernels {
namespace {

enum class Bitwise { kAnd, kOr, kXor, kLeftShift, kRightShift };

template <Bitwise kind, typename C>
C bitwise(C a, C b) {
  if constexpr (kind == Bitwise::kAnd) {
    return C(a & b);
  } else if constexpr (kind == Bitwise::kOr) {
    return C(a | b);
  } else if constexpr (kind == Bitwise::kXor) {
    return C(a ^ b);
  } else {
    using U = std::make_unsigned_t<C>;
    constexpr int bits = int(sizeof(C) * 8);
    bool out_of_range = int64_t(b) >= bits;
    if constexpr (std::is_signed_v<C>) out_of_range = out_of_range || b < 0;
    if constexpr (kind == Bitwise::kLeftShift) {
      if (out_of_range) return C(0);
      return static_cast<C>(static_cast<U>(static_cast<U>(a) << b));
    } else {
      if (out_of_range) {
        if constexpr (std::is_signed_v<C>) return C(a < 0 ? -1 : 0);
        return C(0);
      }
      return static_cast<C>(a >> b);
    }
  }
}

template <Bitwise kind>
Status bitwise_impl(KernelContext& context, const Tensor& a, const Tensor& b, ScalarType common,
                    Tensor& out) {
  ETKIT_TRY(check_out_type(context, common, out));
  constexpr bool shift = kind == Bitwise::kLeftShift || kind == Bitwise::kRightShift;
  ETKIT_KERNEL_CHECK(context, is_integral(common, /*include_bool=*/!shift),
                     "not implemented for %s (%s)", to_string(common),
                     shift ? "shifts take integer tensors" : "bitwise ops take integer or bool tensors");
  if (!shift && common == ScalarType::kBool) {
    return binary_map<bool>(context, a, b, out, [](bool x, bool y) {
      return kind == Bitwise::kAnd ? (x && y) : kind == Bitwise::kOr ? (x || y) : (x != y);
    });
  }
  return dispatch_integral(context, common, [&](auto tag) {
    using C = decltype(tag);
    return binary_map<C>(context, a, b, out, [](C x, C y) { return bitwise<kind>(x, y); });
  });
}

template <Bitwise kind>
Status bitwise_tensor(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return bitwise_impl<kind>(context, a, b, common_type(a, &b, nullptr), tensor_arg(args, 2));
}

template <Bitwise kind>
Status bitwise_scalar(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  ScalarTensor b(*args[1]);
  return bitwise_impl<kind>(context, a, b.tensor, common_type(a, nullptr, args[1]),
                            tensor_arg(args, 2));
}

}  // namespace

void register_bitwise_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_and.Tensor_out", "TTWW", bitwise_tensor<Bitwise::kAnd>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_and.Scalar_out", "TsWW", bitwise_scalar<Bitwise::kAnd>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_or.Tensor_out", "TTWW", bitwise_tensor<Bitwise::kOr>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_or.Scalar_out", "TsWW", bitwise_scalar<Bitwise::kOr>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_xor.Tensor_out", "TTWW", bitwise_tensor<Bitwise::kXor>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_xor.Scalar_out", "TsWW", bitwise_scalar<Bitwise::kXor>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_left_shift.Tensor_out", "TTWW",
                        bitwise_tensor<Bitwise::kLeftShift>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_left_shift.Tensor_Scalar_out", "TsWW",
                        bitwise_scalar<Bitwise::kLeftShift>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_right_shift.Tensor_out", "TTWW",
                        bitwise_tensor<Bitwise::kRightShift>);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_right_shift.Tensor_Scalar_out", "TsWW",
                        bitwise_scalar<Bitwise::kRightShift>);
}

}  // namespace etkit::kernels
