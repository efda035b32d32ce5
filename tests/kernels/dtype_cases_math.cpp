// Dtype cases of the pointwise math, bitwise and reduction ops added with
// upstream's full portable op list (case_list.h).

#include "case_list.h"

namespace etkit::test {
namespace {

void unary_math_cases(CaseList& l) {
  l.unary("aten::log10.out", [](auto& x) { return at::log10(x); });
  l.unary("aten::tan.out", [](auto& x) { return at::tan(x); });
  l.unary("aten::sinh.out", [](auto& x) { return at::sinh(x); });
  l.unary("aten::cosh.out", [](auto& x) { return at::cosh(x); });
  l.unary("aten::atan.out", [](auto& x) { return at::atan(x); });
  l.unary("aten::asinh.out", [](auto& x) { return at::asinh(x); });
  l.unary("aten::trunc.out", [](auto& x) { return at::trunc(x); });
  // Inside their domains (outside, both give NaN, which compares equal).
  l.add("aten::asin.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::asin(t[0])}; }, {l.unit({5, 7}) * 2 - 1});
  l.add("aten::acos.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::acos(t[0])}; }, {l.unit({5, 7}) * 2 - 1});
  l.add("aten::atanh.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::atanh(t[0])}; }, {l.unit({5, 7}) * 1.8 - 0.9});
  l.add("aten::acosh.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::acosh(t[0])}; }, {l.r({5, 7}).abs() * 2 + 1});
  const at::Tensor special = at::tensor({1.5f, -INFINITY, NAN, 0.0f, INFINITY, -2.0f});
  l.add("aten::isnan.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::isnan(t[0])}; }, {special});
  l.add("aten::isinf.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::isinf(t[0])}; }, {special});
  l.add("aten::logit.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).real(0.125); },
        [](const Tensors& t, auto) { return Tensors{at::logit(t[0], 0.125)}; }, {l.unit({4, 6})});
  l.add("aten::logit.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).none(); },
        [](const Tensors& t, auto) { return Tensors{at::logit(t[0])}; }, {l.unit({4, 6}) * 0.9 + 0.05});
  l.with_scalar("aten::elu.out", [](auto& x) { return at::elu(x, 1.5, 1.25, 0.5); },
                [](OpRunner& o) { o.real(1.5).real(1.25).real(0.5); });
}

void binary_math_cases(CaseList& l) {
  l.binary("aten::atan2.out", [](auto& a, auto& b) { return at::atan2(a, b); });
  l.binary("aten::fmod.Tensor_out", [](auto& a, auto& b) { return at::fmod(a, b); }, nullptr, true);
  l.with_scalar("aten::fmod.Scalar_out", [](auto& a) { return at::fmod(a, 3); }, [](OpRunner& o) { o.integer(3); });
  l.binary("aten::floor_divide.out", [](auto& a, auto& b) { return at::floor_divide(a, b); }, nullptr, true);
  l.with_scalar("aten::rsub.Scalar_out", [](auto& a) { return at::rsub(a, 2, 1); },
                [](OpRunner& o) { o.integer(2).integer(1); });
  l.add("aten::pow.Scalar_out", [](OpRunner& o, const Tensors& t, auto) { o.integer(2).tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::pow(2, t[0])}; }, {l.unit({4, 5})});
  const at::Tensor low = l.r({1, 6}) - 0.5;
  l.add("aten::clamp.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).tensor(t[2]); },
        [](const Tensors& t, auto) { return Tensors{at::clamp(t[0], t[1], t[2])}; },
        {l.r({4, 6}) * 2, low, low + 1});
  l.add("aten::clamp.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).none().tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{at::clamp(t[0], c10::nullopt, t[1])}; }, {l.r({4, 6}) * 2, low});
  l.binary("aten::bitwise_and.Tensor_out", [](auto& a, auto& b) { return at::bitwise_and(a, b); });
  l.binary("aten::bitwise_or.Tensor_out", [](auto& a, auto& b) { return at::bitwise_or(a, b); });
  l.binary("aten::bitwise_xor.Tensor_out", [](auto& a, auto& b) { return at::bitwise_xor(a, b); });
  auto six = [](OpRunner& o) { o.integer(6); };
  l.with_scalar("aten::bitwise_and.Scalar_out", [](auto& a) { return at::bitwise_and(a, 6); }, six);
  l.with_scalar("aten::bitwise_or.Scalar_out", [](auto& a) { return at::bitwise_or(a, 6); }, six);
  l.with_scalar("aten::bitwise_xor.Scalar_out", [](auto& a) { return at::bitwise_xor(a, 6); }, six);
  // Shift counts 0..3 (libtorch 1.13 leaves counts past the width to the CPU).
  l.add("aten::bitwise_left_shift.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{at::bitwise_left_shift(t[0], t[1])}; }, {l.r({4, 5}), l.unit({4, 5})});
  l.add("aten::bitwise_right_shift.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{at::bitwise_right_shift(t[0], t[1])}; }, {l.r({4, 5}), l.unit({4, 5})});
  auto two = [](OpRunner& o) { o.integer(2); };
  l.with_scalar("aten::bitwise_left_shift.Tensor_Scalar_out", [](auto& a) { return at::bitwise_left_shift(a, 2); }, two);
  l.with_scalar("aten::bitwise_right_shift.Tensor_Scalar_out", [](auto& a) { return at::bitwise_right_shift(a, 2); }, two);
}

// Distinct values (so integer versions have no ties), in a shuffled order.
at::Tensor distinct(at::IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return (at::randperm(n).to(at::kFloat) * 0.37f - float(n) * 0.18f).reshape(sizes);
}

}  // namespace

void math_op_cases(CaseList& l) {
  unary_math_cases(l);
  binary_math_cases(l);
}

void reduction_op_cases(CaseList& l) {
  l.add("aten::any.all_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::any(t[0])}; }, {l.r({3, 4}).gt(1.5)});
  l.add("aten::any.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::any(t[0], 1, false)}; }, {l.r({4, 5, 3}).gt(1)});
  // libtorch 1.13 has no any.dims: any over each dim in turn.
  l.add("aten::any.dims_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({0, 2}).boolean(true); },
        [](const Tensors& t, auto) { return Tensors{at::any(at::any(t[0], 2, true), 0, true)}; }, {l.r({4, 5, 3}).gt(1)});
  l.add("aten::max.unary_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::max(t[0])}; }, {l.r({4, 7})});
  l.add("aten::min.unary_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::min(t[0])}; }, {l.r({4, 7})});
  l.add("aten::mean.dtype_out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(static_cast<int64_t>(at::kFloat)); },
        [](const Tensors& t, auto) { return Tensors{at::mean(t[0], at::kFloat)}; }, {l.r({4, 9})});
  l.add("aten::prod.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).none(); },
        [](const Tensors& t, auto) { return Tensors{at::prod(t[0])}; }, {l.r({3, 4})});
  l.add("aten::prod.int_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).boolean(true).none(); },
        [](const Tensors& t, auto) { return Tensors{at::prod(t[0], 1, true)}; }, {l.r({3, 4, 2})});
  l.add("aten::cumsum.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).none(); },
        [](const Tensors& t, auto) { return Tensors{at::cumsum(t[0], 1)}; }, {l.r({3, 40, 2})});
  l.add("aten::cumsum.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(-1).none(); },
        [](const Tensors& t, auto) { return Tensors{at::cumsum(t[0], -1)}; }, {l.r({3, 50})});
  l.add("aten::var.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1}).boolean(true).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::var(t[0], {1}, true, false)}; }, {l.r({4, 30})});
  l.add("aten::var.correction_out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({0, 2}).integer(0).boolean(true); },
        [](const Tensors& t, auto) { return Tensors{at::var(t[0], at::IntArrayRef{0, 2}, int64_t(0), true)}; },
        {l.r({4, 5, 6})});
  l.add("aten::var_mean.correction_out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1}).none().boolean(false); },
        [](const Tensors& t, auto) {
          auto [var, mean] = at::var_mean(t[0], at::IntArrayRef{1}, c10::nullopt, false);
          return Tensors{var, mean};
        },
        {l.r({4, 30})});
  l.add("aten::max.dim_max", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).boolean(false); },
        [](const Tensors& t, auto) {
          auto [values, indices] = at::max(t[0], 1, false);
          return Tensors{values, indices};
        },
        {distinct({4, 6})});
  l.add("aten::min.dim_min", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(0).boolean(true); },
        [](const Tensors& t, auto) {
          auto [values, indices] = at::min(t[0], 0, true);
          return Tensors{values, indices};
        },
        {distinct({4, 6})});
  l.add("aten::topk.values",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(3).integer(1).boolean(true).boolean(true); },
        [](const Tensors& t, auto) {
          auto [values, indices] = at::topk(t[0], 3, 1, true, true);
          return Tensors{values, indices};
        },
        {distinct({4, 9})});
  l.add("aten::topk.values",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(2).integer(0).boolean(false).boolean(true); },
        [](const Tensors& t, auto) {
          auto [values, indices] = at::topk(t[0], 2, 0, false, true);
          return Tensors{values, indices};
        },
        {distinct({5, 3})});
}

}  // namespace etkit::test
