// add, sub, mul, div (Tensor and Scalar out variants, rounding modes),
// maximum, minimum, pow, remainder, comparisons, logical ops and where.

#include <algorithm>
#include <cmath>
#include <string_view>

#include "binary_util.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/core/tensor_access.h"

namespace etkit::kernels {
namespace {

enum class Arith { kAdd, kSub, kMul };

// a (op) alpha * b, the shared body of add/sub/mul in both overloads.
Status arith(KernelContext& context, const Tensor& a, const Tensor& b, ScalarType common,
             const Value* alpha, Tensor& out, Arith kind) {
  ETKIT_TRY(check_out_type(context, common, out));
  if (alpha != nullptr) {
    ETKIT_KERNEL_CHECK(context,
                       !(is_integral(common, true) && alpha->tag() == ValueTag::kDouble),
                       "for integral input tensors, argument alpha must not be a floating "
                       "point number");
  }
  ETKIT_KERNEL_CHECK(context,
                     !(kind == Arith::kSub && (a.scalar_type() == ScalarType::kBool ||
                                               b.scalar_type() == ScalarType::kBool)),
                     "subtraction with a bool tensor is not supported");
  Status status = Ok{};
  ETKIT_TRY(dispatch_compute(context, common, [&](auto tag) {
    using C = decltype(tag);
    const C scale = alpha ? convert<C>(alpha->scalar_as_double()) : C(1);
    const bool unit = alpha == nullptr || alpha->scalar_as_double() == 1.0;
    if constexpr (std::is_same_v<C, bool>) {
      if (kind == Arith::kMul) {
        status = binary_map<C>(context, a, b, out, [](C x, C y) { return C(x && y); });
      } else {
        status = binary_map<C>(context, a, b, out,
                               [scale](C x, C y) { return C(x || (scale && y)); });
      }
    } else if (kind == Arith::kMul) {
      status = binary_map<C>(context, a, b, out, [](C x, C y) { return wrap_mul(x, y); });
    } else if (unit) {
      if (kind == Arith::kAdd) {
        status = binary_map<C>(context, a, b, out, [](C x, C y) { return wrap_add(x, y); });
      } else {
        status = binary_map<C>(context, a, b, out, [](C x, C y) { return wrap_sub(x, y); });
      }
    } else if (kind == Arith::kAdd) {
      status = binary_map<C>(context, a, b, out,
                             [scale](C x, C y) { return wrap_add(x, wrap_mul(scale, y)); });
    } else {
      status = binary_map<C>(context, a, b, out,
                             [scale](C x, C y) { return wrap_sub(x, wrap_mul(scale, y)); });
    }
  }));
  return status;
}


template <Arith kind>
Status arith_tensor(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  const bool has_alpha = kind != Arith::kMul;
  Tensor& out = tensor_arg(args, has_alpha ? 3 : 2);
  return arith(context, a, b, common_type(a, &b, nullptr), has_alpha ? args[2] : nullptr, out,
               kind);
}

template <Arith kind>
Status arith_scalar(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  ScalarTensor b(*args[1]);
  const bool has_alpha = kind != Arith::kMul;
  Tensor& out = tensor_arg(args, has_alpha ? 3 : 2);
  return arith(context, a, b.tensor, common_type(a, nullptr, args[1]),
               has_alpha ? args[2] : nullptr, out, kind);
}

// Python-style floor division for floats, as ATen's div_floor_floating.
template <typename C>
C floor_divide(C a, C b) {
  if (b == 0) return a / b;
  C mod = std::fmod(a, b);
  C div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= C(1);
  C floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > C(0.5)) floordiv += C(1);
  } else {
    floordiv = std::copysign(C(0), a / b);
  }
  return floordiv;
}

Status divide(KernelContext& context, const Tensor& a, const Tensor& b, ScalarType common,
              std::string_view mode, Tensor& out) {
  ETKIT_KERNEL_CHECK(context, mode.empty() || mode == "trunc" || mode == "floor",
                     "div expected rounding_mode to be one of None, 'trunc', or 'floor', got "
                     "'%.*s'",
                     static_cast<int>(mode.size()), mode.data());
  if (mode.empty() && is_integral(common, true)) {
    common = ScalarType::kFloat;  // true division promotes integers to float
  }
  ETKIT_TRY(check_out_type(context, common, out));
  Status status = Ok{};
  bool divided_by_zero = false;
  ETKIT_TRY(dispatch_compute(context, common, [&](auto tag) {
    using C = decltype(tag);
    if constexpr (std::is_same_v<C, bool>) {
      status = Error::make(ErrorCode::kInvalidArgument, "%s: bool division", context.op_name);
    } else if constexpr (std::is_integral_v<C>) {
      const bool floor = mode == "floor";
      status = binary_map<C>(context, a, b, out, [&divided_by_zero, floor](C x, C y) {
        if (y == 0) {
          divided_by_zero = true;
          return C(0);
        }
        if (std::is_signed_v<C> && y == C(-1)) return wrap_sub(C(0), x);  // avoid INT_MIN/-1
        C q = static_cast<C>(x / y);
        if (floor && (x % y != 0) && ((x < 0) != (y < 0))) q = static_cast<C>(q - 1);
        return q;
      });
    } else if (mode == "trunc") {
      status = binary_map<C>(context, a, b, out, [](C x, C y) { return std::trunc(x / y); });
    } else if (mode == "floor") {
      status = binary_map<C>(context, a, b, out, [](C x, C y) { return floor_divide(x, y); });
    } else {
      status = binary_map<C>(context, a, b, out, [](C x, C y) { return x / y; });
    }
  }));
  ETKIT_KERNEL_CHECK(context, !divided_by_zero, "ZeroDivisionError");
  return status;
}

std::string_view mode_arg(Span<Value*> args, size_t i) {
  return args[i]->tag() == ValueTag::kString ? args[i]->unchecked_string_view() : std::string_view();
}

Status div_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return divide(context, a, b, common_type(a, &b, nullptr), {}, tensor_arg(args, 2));
}
Status div_out_mode(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return divide(context, a, b, common_type(a, &b, nullptr), mode_arg(args, 2),
                tensor_arg(args, 3));
}
Status div_scalar_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  ScalarTensor b(*args[1]);
  return divide(context, a, b.tensor, common_type(a, nullptr, args[1]), {}, tensor_arg(args, 2));
}
Status div_scalar_mode_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  ScalarTensor b(*args[1]);
  return divide(context, a, b.tensor, common_type(a, nullptr, args[1]), mode_arg(args, 2),
                tensor_arg(args, 3));
}

// floor_divide.out(self, other, out): div with rounding_mode='floor'.
Status floor_divide_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return divide(context, a, b, common_type(a, &b, nullptr), "floor", tensor_arg(args, 2));
}

// rsub.Scalar_out(self, other, alpha, out) = other - alpha * self.
Status rsub_scalar_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  ScalarTensor other(*args[1]);
  return arith(context, other.tensor, self, common_type(self, nullptr, args[1]), args[2],
               tensor_arg(args, 4), Arith::kSub);
}

enum class Compare { kEq, kNe, kLt, kLe, kGt, kGe };

template <Compare kind, typename C>
bool compare(C x, C y) {
  switch (kind) {
    case Compare::kEq: return x == y;
    case Compare::kNe: return x != y;
    case Compare::kLt: return x < y;
    case Compare::kLe: return x <= y;
    case Compare::kGt: return x > y;
    case Compare::kGe: return x >= y;
  }
  return false;
}

template <Compare kind>
Status compare_impl(KernelContext& context, const Tensor& a, const Tensor& b, ScalarType common,
                    Tensor& out) {
  ETKIT_KERNEL_CHECK(context, common != ScalarType::kUndefined, "inputs have no common dtype");
  Status status = Ok{};
  ETKIT_TRY(dispatch_compute(context, common, [&](auto tag) {
    using C = decltype(tag);
    status = binary_map<C>(context, a, b, out, [](C x, C y) { return compare<kind>(x, y); });
  }));
  return status;
}

template <Compare kind>
Status compare_tensor(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return compare_impl<kind>(context, a, b, common_type(a, &b, nullptr), tensor_arg(args, 2));
}
template <Compare kind>
Status compare_scalar(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  ScalarTensor b(*args[1]);
  return compare_impl<kind>(context, a, b.tensor, common_type(a, nullptr, args[1]),
                            tensor_arg(args, 2));
}

enum class Extremum { kMax, kMin };

template <Extremum kind>
Status extremum(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  const ScalarType common = common_type(a, &b, nullptr);
  ETKIT_TRY(check_out_type(context, common, out));
  Status status = Ok{};
  ETKIT_TRY(dispatch_compute(context, common, [&](auto tag) {
    using C = decltype(tag);
    // NaN propagates, as torch.maximum/minimum.
    status = binary_map<C>(context, a, b, out, [](C x, C y) {
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<C>::quiet_NaN();
      }
      return kind == Extremum::kMax ? (x > y ? x : y) : (x < y ? x : y);
    });
  }));
  return status;
}

template <typename C>
C power(C base, C exponent) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::pow(base, exponent);
  } else if constexpr (std::is_same_v<C, bool>) {
    return base || !exponent;
  } else {
    // Integer pow by squaring, wrapping; negative exponents as ATen: 1 for
    // base 1, +-1 for base -1, else 0.
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
      return 0;
    }
    C result = 1;
    C b = base;
    auto e = static_cast<std::make_unsigned_t<C>>(exponent);
    while (e) {
      if (e & 1) result = wrap_mul(result, b);
      b = wrap_mul(b, b);
      e >>= 1;
    }
    return result;
  }
}

Status pow_impl(KernelContext& context, const Tensor& a, const Tensor& b, ScalarType common,
                Tensor& out) {
  ETKIT_TRY(check_out_type(context, common, out));
  Status status = Ok{};
  ETKIT_TRY(dispatch_compute(context, common, [&](auto tag) {
    using C = decltype(tag);
    status = binary_map<C>(context, a, b, out, [](C x, C y) { return power(x, y); });
  }));
  return status;
}
Status pow_tensor_tensor(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return pow_impl(context, a, b, common_type(a, &b, nullptr), tensor_arg(args, 2));
}
Status pow_tensor_scalar(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  ScalarTensor b(*args[1]);
  return pow_impl(context, a, b.tensor, common_type(a, nullptr, args[1]), tensor_arg(args, 2));
}

// pow.Scalar_out(Scalar self, Tensor exponent, out): the base is the
// wrapped scalar.
Status pow_scalar_tensor(KernelContext& context, Span<Value*> args) {
  ScalarTensor base(*args[0]);
  const Tensor& exponent = tensor_arg(args, 1);
  return pow_impl(context, base.tensor, exponent, common_type(exponent, nullptr, args[0]),
                  tensor_arg(args, 2));
}

Status remainder_impl(KernelContext& context, const Tensor& a, const Tensor& b,
                      ScalarType common, Tensor& out) {
  ETKIT_TRY(check_out_type(context, common, out));
  ETKIT_KERNEL_CHECK(context, common != ScalarType::kBool, "remainder is not defined for bool (as in ATen)");
  Status status = Ok{};
  bool divided_by_zero = false;
  ETKIT_TRY(dispatch_compute(context, common, [&](auto tag) {
    using C = decltype(tag);
    status = binary_map<C>(context, a, b, out, [&](C x, C y) {
      if constexpr (std::is_floating_point_v<C>) {
        C mod = std::fmod(x, y);
        if (mod != 0 && ((y < 0) != (mod < 0))) mod += y;
        return mod;
      } else if constexpr (std::is_same_v<C, bool>) {
        return C(false);  // not reached: refused above
      } else {
        if (y == 0) {
          divided_by_zero = true;
          return C(0);
        }
        if (std::is_signed_v<C> && y == C(-1)) return C(0);
        C mod = static_cast<C>(x % y);
        if (mod != 0 && ((y < 0) != (mod < 0))) mod = static_cast<C>(mod + y);
        return mod;
      }
    });
  }));
  ETKIT_KERNEL_CHECK(context, !divided_by_zero, "ZeroDivisionError");
  return status;
}
Status remainder_tensor(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return remainder_impl(context, a, b, common_type(a, &b, nullptr), tensor_arg(args, 2));
}
Status remainder_scalar(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  ScalarTensor b(*args[1]);
  return remainder_impl(context, a, b.tensor, common_type(a, nullptr, args[1]),
                        tensor_arg(args, 2));
}

enum class Logical { kAnd, kOr, kXor };

template <Logical kind>
Status logical_binary(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return binary_map<double>(context, a, b, tensor_arg(args, 2), [](double x, double y) {
    const bool p = x != 0, q = y != 0;
    return kind == Logical::kAnd ? (p && q) : kind == Logical::kOr ? (p || q) : (p != q);
  });
}

// where.self_out(condition, self, other, out): three-way broadcast, done
// as two steps would need scratch memory, so iterate directly.
Status where_out(KernelContext& context, Span<Value*> args) {
  const Tensor& cond = tensor_arg(args, 0);
  const Tensor& a = tensor_arg(args, 1);
  const Tensor& b = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, cond.scalar_type() == ScalarType::kBool ||
                                  cond.scalar_type() == ScalarType::kByte,
                     "where expected condition to be a boolean tensor, got %s",
                     to_string(cond.scalar_type()));
  const ScalarType common = common_type(a, &b, nullptr);
  ETKIT_TRY(check_out_type(context, common, out));
  int64_t ab[kMaxRank], sizes[kMaxRank];
  int rank_ab = 0, rank = 0;
  ETKIT_KERNEL_CHECK(context, broadcast_shape(a.sizes(), b.sizes(), ab, rank_ab),
                     "shapes cannot be broadcast together");
  ETKIT_KERNEL_CHECK(context,
                     broadcast_shape(cond.sizes(), Span<const int64_t>(ab, size_t(rank_ab)),
                                     sizes, rank),
                     "shapes cannot be broadcast together");
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(rank))));
  int64_t sc[kMaxRank], sa[kMaxRank], sb[kMaxRank];
  broadcast_strides(cond, rank, sizes, sc);
  broadcast_strides(a, rank, sizes, sa);
  broadcast_strides(b, rank, sizes, sb);
  const int64_t* strides[4] = {sc, sa, sb, out.strides().data()};
  return dispatch_compute(context, common, [&](auto tag) -> Status {
    using C = decltype(tag);
    Loader<C> la = loader_for<C>(a.scalar_type());
    Loader<C> lb = loader_for<C>(b.scalar_type());
    Storer<C> so = storer_for<C>(out.scalar_type());
    // A dtype without a conversion (a quantized or bit type) has none.
    ETKIT_KERNEL_CHECK(context, la != nullptr && lb != nullptr && so != nullptr,
                       "where does not support %s and %s into %s", to_string(a.scalar_type()),
                       to_string(b.scalar_type()), to_string(out.scalar_type()));
    const auto* pc = cond.data_as<const uint8_t>();
    // Both sides and the output in C (the usual where(mask, scores, fill)):
    // the last dim in a loop of its own over each tensor's stride there (0
    // where it broadcasts), the outer dims by index, no conversions.
    const auto in_c = [](const Tensor& t) { return t.scalar_type() == scalar_type_of<C>(); };
    if (rank > 0 && in_c(a) && in_c(b) && in_c(out) && a.numel() > 0 && b.numel() > 0) {
      const C* pa = a.data_as<const C>();
      const C* pb = b.data_as<const C>();
      C* po = out.data_as<C>();
      const int64_t inner = sizes[rank - 1], last = rank - 1;
      const int64_t ic = sc[last], ia = sa[last], ib = sb[last], io = out.strides()[size_t(last)];
      for_each_index<4>(rank - 1, sizes, strides, [&](const int64_t* o) {
        for (int64_t i = 0; i < inner; ++i) {
          po[o[3] + i * io] = pc[o[0] + i * ic] ? pa[o[1] + i * ia] : pb[o[2] + i * ib];
        }
      });
      return Ok{};
    }
    for_each_index<4>(rank, sizes, strides, [&](const int64_t* o) {
      so(out.data(), o[3], pc[o[0]] ? la(a.data(), o[1]) : lb(b.data(), o[2]));
    });
    return Ok{};
  });
}

// masked_fill keeps self's dtype and shape (the value is cast to it, as in
// ATen); the mask is bool and broadcasts to self, never the other way.
Status masked_fill_scalar_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  const Tensor& mask = tensor_arg(args, 1);
  ScalarTensor value(*args[2]);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, mask.scalar_type() == ScalarType::kBool,
                     "masked_fill only supports boolean masks, but got mask with dtype %s",
                     to_string(mask.scalar_type()));
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == self.scalar_type(),
                     "masked_fill expected out dtype %s, got %s", to_string(self.scalar_type()),
                     to_string(out.scalar_type()));
  int64_t sizes[kMaxRank];
  int rank = 0;
  ETKIT_KERNEL_CHECK(context,
                     broadcast_shape(self.sizes(), mask.sizes(), sizes, rank) &&
                         rank == self.dim() &&
                         std::equal(sizes, sizes + rank, self.sizes().begin()),
                     "masked_fill: mask of shape %s does not broadcast to self of shape %s",
                     format_sizes(mask.sizes()).c_str(), format_sizes(self.sizes()).c_str());
  ETKIT_TRY(resize_output(context, out, self.sizes()));
  int64_t sm[kMaxRank], ss[kMaxRank];
  broadcast_strides(mask, rank, sizes, sm);
  broadcast_strides(self, rank, sizes, ss);
  const int64_t* strides[3] = {sm, ss, out.strides().data()};
  ETKIT_TRY(dispatch_compute(context, self.scalar_type(), [&](auto tag) -> Status {
    using C = decltype(tag);
    Loader<C> ls = loader_for<C>(self.scalar_type());
    Storer<C> so = storer_for<C>(out.scalar_type());
    Loader<C> lv = loader_for<C>(value.tensor.scalar_type());
    ETKIT_KERNEL_CHECK(context, ls != nullptr && so != nullptr && lv != nullptr,
                       "masked_fill does not support %s with a %s value", to_string(self.scalar_type()),
                       to_string(value.tensor.scalar_type()));
    const C fill = lv(value.tensor.data(), 0);
    const auto* pm = mask.data_as<const uint8_t>();
    for_each_index<3>(rank, sizes, strides, [&](const int64_t* o) {
      so(out.data(), o[2], pm[o[0]] ? fill : ls(self.data(), o[1]));
    });
    return Ok{};
  }));
  return Ok{};
}

}  // namespace

void register_binary_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::masked_fill.Scalar_out", "TTsWW", masked_fill_scalar_out);
  ETKIT_REGISTER_KERNEL(r, "aten::add.out", "TTsWW", arith_tensor<Arith::kAdd>);
  ETKIT_REGISTER_KERNEL(r, "aten::add.Scalar_out", "TssWW", arith_scalar<Arith::kAdd>);
  ETKIT_REGISTER_KERNEL(r, "aten::sub.out", "TTsWW", arith_tensor<Arith::kSub>);
  ETKIT_REGISTER_KERNEL(r, "aten::sub.Scalar_out", "TssWW", arith_scalar<Arith::kSub>);
  ETKIT_REGISTER_KERNEL(r, "aten::mul.out", "TTWW", arith_tensor<Arith::kMul>);
  ETKIT_REGISTER_KERNEL(r, "aten::mul.Scalar_out", "TsWW", arith_scalar<Arith::kMul>);
  ETKIT_REGISTER_KERNEL(r, "aten::div.out", "TTWW", div_out);
  ETKIT_REGISTER_KERNEL(r, "aten::div.out_mode", "TTSWW", div_out_mode);
  ETKIT_REGISTER_KERNEL(r, "aten::div.Scalar_out", "TsWW", div_scalar_out);
  ETKIT_REGISTER_KERNEL(r, "aten::div.Scalar_mode_out", "TsSWW", div_scalar_mode_out);
  ETKIT_REGISTER_KERNEL(r, "aten::eq.Tensor_out", "TTWW", compare_tensor<Compare::kEq>);
  ETKIT_REGISTER_KERNEL(r, "aten::ne.Tensor_out", "TTWW", compare_tensor<Compare::kNe>);
  ETKIT_REGISTER_KERNEL(r, "aten::lt.Tensor_out", "TTWW", compare_tensor<Compare::kLt>);
  ETKIT_REGISTER_KERNEL(r, "aten::le.Tensor_out", "TTWW", compare_tensor<Compare::kLe>);
  ETKIT_REGISTER_KERNEL(r, "aten::gt.Tensor_out", "TTWW", compare_tensor<Compare::kGt>);
  ETKIT_REGISTER_KERNEL(r, "aten::ge.Tensor_out", "TTWW", compare_tensor<Compare::kGe>);
  ETKIT_REGISTER_KERNEL(r, "aten::eq.Scalar_out", "TsWW", compare_scalar<Compare::kEq>);
  ETKIT_REGISTER_KERNEL(r, "aten::ne.Scalar_out", "TsWW", compare_scalar<Compare::kNe>);
  ETKIT_REGISTER_KERNEL(r, "aten::lt.Scalar_out", "TsWW", compare_scalar<Compare::kLt>);
  ETKIT_REGISTER_KERNEL(r, "aten::le.Scalar_out", "TsWW", compare_scalar<Compare::kLe>);
  ETKIT_REGISTER_KERNEL(r, "aten::gt.Scalar_out", "TsWW", compare_scalar<Compare::kGt>);
  ETKIT_REGISTER_KERNEL(r, "aten::ge.Scalar_out", "TsWW", compare_scalar<Compare::kGe>);
  ETKIT_REGISTER_KERNEL(r, "aten::maximum.out", "TTWW", extremum<Extremum::kMax>);
  ETKIT_REGISTER_KERNEL(r, "aten::minimum.out", "TTWW", extremum<Extremum::kMin>);
  ETKIT_REGISTER_KERNEL(r, "aten::pow.Tensor_Tensor_out", "TTWW", pow_tensor_tensor);
  ETKIT_REGISTER_KERNEL(r, "aten::pow.Tensor_Scalar_out", "TsWW", pow_tensor_scalar);
  ETKIT_REGISTER_KERNEL(r, "aten::pow.Scalar_out", "sTWW", pow_scalar_tensor);
  ETKIT_REGISTER_KERNEL(r, "aten::floor_divide.out", "TTWW", floor_divide_out);
  ETKIT_REGISTER_KERNEL(r, "aten::rsub.Scalar_out", "TssWW", rsub_scalar_out);
  ETKIT_REGISTER_KERNEL(r, "aten::remainder.Tensor_out", "TTWW", remainder_tensor);
  ETKIT_REGISTER_KERNEL(r, "aten::remainder.Scalar_out", "TsWW", remainder_scalar);
  ETKIT_REGISTER_KERNEL(r, "aten::logical_and.out", "TTWW", logical_binary<Logical::kAnd>);
  ETKIT_REGISTER_KERNEL(r, "aten::logical_or.out", "TTWW", logical_binary<Logical::kOr>);
  ETKIT_REGISTER_KERNEL(r, "aten::logical_xor.out", "TTWW", logical_binary<Logical::kXor>);
  ETKIT_REGISTER_KERNEL(r, "aten::where.self_out", "TTTWW", where_out);
}

}  // namespace etkit::kernels
