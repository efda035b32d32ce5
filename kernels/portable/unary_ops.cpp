// Pointwise unary ops: arithmetic (neg, abs, sign), floating functions (exp,
// log, sqrt, …, which promote integer inputs to float as ATen does),
// activations (relu, gelu, sigmoid, hardtanh, leaky_relu, …), clamp and
// logical_not.

#include <cmath>
#include <string_view>

#include "etkit/kernels/elementwise.h"

namespace etkit::kernels {
namespace {

// Ops over floats: integer and bool inputs compute (and must be written) as
// float32.
template <typename Op>
Status float_unary(KernelContext& context, Span<Value*> args, Op op, size_t out_index = 1) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, out_index);
  ScalarType common = in.scalar_type();
  if (is_integral(common, true)) common = ScalarType::kFloat;
  ETKIT_KERNEL_CHECK(context, can_cast(common, out.scalar_type()),
                     "result type %s can't be cast to the out dtype %s", to_string(common),
                     to_string(out.scalar_type()));
  const ScalarType compute = common == ScalarType::kDouble ? common : ScalarType::kFloat;
  return dispatch_floating(context, compute, [&](auto tag) {
    using C = decltype(tag);
    return unary_map<C>(context, in, out, [&op](C x) { return C(op(x)); });
  });
}

#define ETKIT_FLOAT_UNARY(name, expr)                                  \
  Status name(KernelContext& context, Span<Value*> args) {             \
    return float_unary(context, args, [](auto x) { return expr; });   \
  }

ETKIT_FLOAT_UNARY(exp_out, std::exp(x))
ETKIT_FLOAT_UNARY(expm1_out, std::expm1(x))
ETKIT_FLOAT_UNARY(log_out, std::log(x))
ETKIT_FLOAT_UNARY(log1p_out, std::log1p(x))
ETKIT_FLOAT_UNARY(log2_out, std::log2(x))
ETKIT_FLOAT_UNARY(sqrt_out, std::sqrt(x))
ETKIT_FLOAT_UNARY(rsqrt_out, decltype(x)(1) / std::sqrt(x))
ETKIT_FLOAT_UNARY(sin_out, std::sin(x))
ETKIT_FLOAT_UNARY(cos_out, std::cos(x))
ETKIT_FLOAT_UNARY(tanh_out, std::tanh(x))
ETKIT_FLOAT_UNARY(erf_out, std::erf(x))
ETKIT_FLOAT_UNARY(reciprocal_out, decltype(x)(1) / x)
ETKIT_FLOAT_UNARY(sigmoid_out, decltype(x)(1) / (decltype(x)(1) + std::exp(-x)))
ETKIT_FLOAT_UNARY(log10_out, std::log10(x))
ETKIT_FLOAT_UNARY(tan_out, std::tan(x))
ETKIT_FLOAT_UNARY(sinh_out, std::sinh(x))
ETKIT_FLOAT_UNARY(cosh_out, std::cosh(x))
ETKIT_FLOAT_UNARY(asin_out, std::asin(x))
ETKIT_FLOAT_UNARY(acos_out, std::acos(x))
ETKIT_FLOAT_UNARY(atan_out, std::atan(x))
ETKIT_FLOAT_UNARY(asinh_out, std::asinh(x))
ETKIT_FLOAT_UNARY(acosh_out, std::acosh(x))
ETKIT_FLOAT_UNARY(atanh_out, std::atanh(x))

// logit.out(self, eps?, out): log(x / (1 - x)), x first clamped to
// [eps, 1 - eps] when eps is given and not negative.
Status logit_out(KernelContext& context, Span<Value*> args) {
  const bool clamp = !args[1]->is_none() && double_arg(args, 1) >= 0;
  const double eps = clamp ? double_arg(args, 1) : 0;
  return float_unary(
      context, args,
      [clamp, eps](auto x) {
        using C = decltype(x);
        if (clamp) {
          const C lo = C(eps), hi = C(1) - C(eps);
          x = x < lo ? lo : (x > hi ? hi : x);
        }
        return std::log(x / (C(1) - x));
      },
      2);
}

// Ops that keep the input dtype (out must be castable).
template <typename Op>
Status same_type_unary(KernelContext& context, const Tensor& in, Tensor& out, Op op,
                       bool allow_bool = true) {
  const ScalarType type = in.scalar_type();
  ETKIT_KERNEL_CHECK(context, allow_bool || type != ScalarType::kBool,
                     "not supported for bool tensors");
  ETKIT_KERNEL_CHECK(context, can_cast(type, out.scalar_type()),
                     "result type %s can't be cast to the out dtype %s", to_string(type),
                     to_string(out.scalar_type()));
  Status status = Ok{};
  ETKIT_TRY(dispatch_compute(context, type, [&](auto tag) {
    using C = decltype(tag);
    status = unary_map<C>(context, in, out, [&op](C x) { return C(op(x)); });
  }));
  return status;
}

Status neg_out(KernelContext& context, Span<Value*> args) {
  return same_type_unary(
      context, tensor_arg(args, 0), tensor_arg(args, 1),
      [](auto x) { return wrap_sub(decltype(x)(0), x); }, /*allow_bool=*/false);
}

Status abs_out(KernelContext& context, Span<Value*> args) {
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 1), [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, bool> || std::is_unsigned_v<C>) {
      return x;
    } else if constexpr (std::is_floating_point_v<C>) {
      return std::fabs(x);
    } else {
      return x < 0 ? wrap_sub(C(0), x) : x;
    }
  });
}

Status sign_out(KernelContext& context, Span<Value*> args) {
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 1), [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, bool>) {
      return x;
    } else {
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(x)) return C(0);
      }
      return C((C(0) < x) - (x < C(0)));
    }
  });
}

Status floor_out(KernelContext& context, Span<Value*> args) {
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 1), [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::floor(x);
    else return x;
  });
}
Status ceil_out(KernelContext& context, Span<Value*> args) {
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 1), [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::ceil(x);
    else return x;
  });
}
Status round_out(KernelContext& context, Span<Value*> args) {
  // Round half to even, as torch.round.
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 1), [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::nearbyint(x);
    else return x;
  });
}

Status trunc_out(KernelContext& context, Span<Value*> args) {
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 1), [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::trunc(x);
    else return x;
  });
}

// isnan.out / isinf.out: a bool out; integers are never either.
template <bool inf>
Status nonfinite_test(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == ScalarType::kBool,
                     "expected a bool out, got %s", to_string(out.scalar_type()));
  return dispatch_compute(context, in.scalar_type(), [&](auto tag) {
    using C = decltype(tag);
    return unary_map<C>(context, in, out, [](C x) {
      bool result = false;
      if constexpr (std::is_floating_point_v<C>) result = inf ? std::isinf(x) : std::isnan(x);
      (void)x;
      return result;
    });
  });
}

Status relu_out(KernelContext& context, Span<Value*> args) {
  return same_type_unary(
      context, tensor_arg(args, 0), tensor_arg(args, 1),
      [](auto x) {
        using C = decltype(x);
        if constexpr (std::is_floating_point_v<C>) {
          if (std::isnan(x)) return x;
        }
        return x > C(0) ? x : C(0);
      },
      /*allow_bool=*/false);
}

Status gelu_out(KernelContext& context, Span<Value*> args) {
  const std::string_view mode = args[1]->unchecked_string_view();
  ETKIT_KERNEL_CHECK(context, mode == "none" || mode == "tanh",
                     "approximate argument must be either none or tanh");
  const Tensor& in = tensor_arg(args, 0);
  ETKIT_KERNEL_CHECK(context, is_floating(in.scalar_type()), "gelu needs a floating input");
  if (mode == "tanh") {
    return float_unary(
        context, args,
        [](auto x) {
          using C = decltype(x);
          const C k = C(0.7978845608028654);  // sqrt(2 / pi)
          return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
        },
        2);
  }
  return float_unary(
      context, args,
      [](auto x) {
        using C = decltype(x);
        return x * C(0.5) * (C(1) + std::erf(x * C(0.7071067811865476)));
      },
      2);
}

Status hardtanh_out(KernelContext& context, Span<Value*> args) {
  const double lo = double_arg(args, 1), hi = double_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, tensor_arg(args, 0).scalar_type() != ScalarType::kBool,
                     "not supported for bool tensors");
  ETKIT_KERNEL_CHECK(context, tensor_arg(args, 0).scalar_type() != ScalarType::kByte || (lo >= 0 && hi >= 0),
                     "cannot do hardtanh on an unsigned type with negative limits (as ATen refuses)");
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 3), [lo, hi](auto x) {
    using C = decltype(x);
    const C l = convert<C>(lo), h = convert<C>(hi);
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x)) return x;
    }
    return x < l ? l : (x > h ? h : x);
  });
}

Status leaky_relu_out(KernelContext& context, Span<Value*> args) {
  const double slope = double_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, is_floating(tensor_arg(args, 0).scalar_type()),
                     "leaky_relu needs a floating input");
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 2), [slope](auto x) {
    using C = decltype(x);
    return x > C(0) ? x : x * C(slope);
  });
}

Status hardswish_out(KernelContext& context, Span<Value*> args) {
  ETKIT_KERNEL_CHECK(context, is_floating(tensor_arg(args, 0).scalar_type()),
                     "not implemented for %s (ATen's hardswish takes floating tensors)",
                     to_string(tensor_arg(args, 0).scalar_type()));
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 1), [](auto x) {
    using C = decltype(x);
    const C t = x + C(3);
    return x * (t < C(0) ? C(0) : (t > C(6) ? C(6) : t)) / C(6);
  });
}

Status hardsigmoid_out(KernelContext& context, Span<Value*> args) {
  ETKIT_KERNEL_CHECK(context, is_floating(tensor_arg(args, 0).scalar_type()),
                     "not implemented for %s (ATen's hardsigmoid takes floating tensors)",
                     to_string(tensor_arg(args, 0).scalar_type()));
  return same_type_unary(context, tensor_arg(args, 0), tensor_arg(args, 1), [](auto x) {
    using C = decltype(x);
    const C t = x + C(3);
    return (t < C(0) ? C(0) : (t > C(6) ? C(6) : t)) / C(6);
  });
}

// elu.out(self, alpha, scale, input_scale, out): floating inputs only, as
// ATen's kernel.
Status elu_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  ETKIT_KERNEL_CHECK(context, is_floating(in.scalar_type()),
                     "not implemented for %s (ATen's elu takes floating tensors)",
                     to_string(in.scalar_type()));
  const double alpha = double_arg(args, 1), scale = double_arg(args, 2);
  const double input_scale = double_arg(args, 3);
  return same_type_unary(context, in, tensor_arg(args, 4), [=](auto x) {
    using C = decltype(x);
    if constexpr (std::is_floating_point_v<C>) {
      return x <= C(0) ? (std::exp(x * C(input_scale)) - C(1)) * C(alpha) * C(scale)
                       : x * C(scale);
    } else {
      return x;  // not reached: refused above
    }
  });
}

Status silu_out(KernelContext& context, Span<Value*> args) {
  return float_unary(context, args, [](auto x) {
    using C = decltype(x);
    return x / (C(1) + std::exp(-x));
  });
}

// clamp.out(self, Scalar? min, Scalar? max, out): the result type includes
// the bounds, like torch.clamp.
Status clamp_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 3);
  const bool has_min = !args[1]->is_none(), has_max = !args[2]->is_none();
  ETKIT_KERNEL_CHECK(context, has_min || has_max, "at least one of 'min' or 'max' must not be None");
  ResultTypeState state;
  state.add_tensor(in);
  if (has_min) state.add_scalar(*args[1]);
  if (has_max) state.add_scalar(*args[2]);
  const ScalarType common = state.result();
  ETKIT_KERNEL_CHECK(context, can_cast(common, out.scalar_type()),
                     "result type %s can't be cast to the out dtype %s", to_string(common),
                     to_string(out.scalar_type()));
  ETKIT_KERNEL_CHECK(context, common != ScalarType::kBool, "not supported for bool tensors");
  const double lo = has_min ? args[1]->scalar_as_double() : 0;
  const double hi = has_max ? args[2]->scalar_as_double() : 0;
  Status status = Ok{};
  ETKIT_TRY(dispatch_compute(context, common, [&](auto tag) {
    using C = decltype(tag);
    const C l = convert<C>(lo), h = convert<C>(hi);
    status = unary_map<C>(context, in, out, [=](C x) {
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(x)) return x;
      }
      C y = x;
      if (has_min) y = y < l ? l : y;
      if (has_max) y = y > h ? h : y;
      return y;
    });
  }));
  return status;
}

Status logical_not_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  // A bool mask into a bool mask (attention masks): read and written
  // straight; other dtypes through double, which holds every value's
  // zero-ness.
  if (in.scalar_type() == ScalarType::kBool && out.scalar_type() == ScalarType::kBool) {
    return unary_map<bool>(context, in, out, [](bool x) { return !x; });
  }
  return unary_map<double>(context, in, out, [](double x) { return x == 0; });
}

Status bitwise_not_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  ETKIT_KERNEL_CHECK(context, is_integral(in.scalar_type(), true),
                     "bitwise_not needs an integer or bool tensor");
  return same_type_unary(context, in, tensor_arg(args, 1), [](auto x) {
    if constexpr (std::is_same_v<decltype(x), bool>) return !x;
    else if constexpr (std::is_integral_v<decltype(x)>) return decltype(x)(~x);
    else return x;
  });
}

}  // namespace

void register_unary_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::exp.out", "TWW", exp_out);
  ETKIT_REGISTER_KERNEL(r, "aten::expm1.out", "TWW", expm1_out);
  ETKIT_REGISTER_KERNEL(r, "aten::log.out", "TWW", log_out);
  ETKIT_REGISTER_KERNEL(r, "aten::log1p.out", "TWW", log1p_out);
  ETKIT_REGISTER_KERNEL(r, "aten::log2.out", "TWW", log2_out);
  ETKIT_REGISTER_KERNEL(r, "aten::sqrt.out", "TWW", sqrt_out);
  ETKIT_REGISTER_KERNEL(r, "aten::rsqrt.out", "TWW", rsqrt_out);
  ETKIT_REGISTER_KERNEL(r, "aten::sin.out", "TWW", sin_out);
  ETKIT_REGISTER_KERNEL(r, "aten::cos.out", "TWW", cos_out);
  ETKIT_REGISTER_KERNEL(r, "aten::tanh.out", "TWW", tanh_out);
  ETKIT_REGISTER_KERNEL(r, "aten::erf.out", "TWW", erf_out);
  ETKIT_REGISTER_KERNEL(r, "aten::reciprocal.out", "TWW", reciprocal_out);
  ETKIT_REGISTER_KERNEL(r, "aten::sigmoid.out", "TWW", sigmoid_out);
  ETKIT_REGISTER_KERNEL(r, "aten::neg.out", "TWW", neg_out);
  ETKIT_REGISTER_KERNEL(r, "aten::abs.out", "TWW", abs_out);
  ETKIT_REGISTER_KERNEL(r, "aten::sign.out", "TWW", sign_out);
  ETKIT_REGISTER_KERNEL(r, "aten::floor.out", "TWW", floor_out);
  ETKIT_REGISTER_KERNEL(r, "aten::ceil.out", "TWW", ceil_out);
  ETKIT_REGISTER_KERNEL(r, "aten::round.out", "TWW", round_out);
  ETKIT_REGISTER_KERNEL(r, "aten::relu.out", "TWW", relu_out);
  ETKIT_REGISTER_KERNEL(r, "aten::gelu.out", "TSWW", gelu_out);
  ETKIT_REGISTER_KERNEL(r, "aten::hardtanh.out", "TssWW", hardtanh_out);
  ETKIT_REGISTER_KERNEL(r, "aten::leaky_relu.out", "TsWW", leaky_relu_out);
  ETKIT_REGISTER_KERNEL(r, "aten::hardswish.out", "TWW", hardswish_out);
  ETKIT_REGISTER_KERNEL(r, "aten::hardsigmoid.out", "TWW", hardsigmoid_out);
  ETKIT_REGISTER_KERNEL(r, "aten::silu.out", "TWW", silu_out);
  ETKIT_REGISTER_KERNEL(r, "aten::clamp.out", "TooWW", clamp_out);
  ETKIT_REGISTER_KERNEL(r, "aten::logical_not.out", "TWW", logical_not_out);
  ETKIT_REGISTER_KERNEL(r, "aten::bitwise_not.out", "TWW", bitwise_not_out);
  ETKIT_REGISTER_KERNEL(r, "aten::log10.out", "TWW", log10_out);
  ETKIT_REGISTER_KERNEL(r, "aten::tan.out", "TWW", tan_out);
  ETKIT_REGISTER_KERNEL(r, "aten::sinh.out", "TWW", sinh_out);
  ETKIT_REGISTER_KERNEL(r, "aten::cosh.out", "TWW", cosh_out);
  ETKIT_REGISTER_KERNEL(r, "aten::asin.out", "TWW", asin_out);
  ETKIT_REGISTER_KERNEL(r, "aten::acos.out", "TWW", acos_out);
  ETKIT_REGISTER_KERNEL(r, "aten::atan.out", "TWW", atan_out);
  ETKIT_REGISTER_KERNEL(r, "aten::asinh.out", "TWW", asinh_out);
  ETKIT_REGISTER_KERNEL(r, "aten::acosh.out", "TWW", acosh_out);
  ETKIT_REGISTER_KERNEL(r, "aten::atanh.out", "TWW", atanh_out);
  ETKIT_REGISTER_KERNEL(r, "aten::logit.out", "TeWW", logit_out);
  ETKIT_REGISTER_KERNEL(r, "aten::trunc.out", "TWW", trunc_out);
  ETKIT_REGISTER_KERNEL(r, "aten::isnan.out", "TWW", nonfinite_test<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::isinf.out", "TWW", nonfinite_test<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::elu.out", "TsssWW", elu_out);
}

}  // namespace etkit::kernels
