#include "dtype_cases.h"

#include "case_list.h"

#include <cmath>
#include <optional>

namespace etkit::test {
namespace {

void elementwise_cases(CaseList& l) {
  auto one = [](OpRunner& o) { o.integer(1); };
  auto two_one = [](OpRunner& o) { o.integer(2).integer(1); };
  l.binary("aten::add.out", [](auto& a, auto& b) { return at::add(a, b); }, one);
  l.with_scalar("aten::add.Scalar_out", [](auto& a) { return at::add(a, 2); }, two_one);
  l.binary("aten::sub.out", [](auto& a, auto& b) { return at::sub(a, b); }, one);
  l.with_scalar("aten::sub.Scalar_out", [](auto& a) { return at::sub(a, 2); }, two_one);
  l.binary("aten::mul.out", [](auto& a, auto& b) { return at::mul(a, b); });
  l.with_scalar("aten::mul.Scalar_out", [](auto& a) { return at::mul(a, 1.5); }, [](OpRunner& o) { o.real(1.5); });
  l.binary("aten::div.out", [](auto& a, auto& b) { return at::div(a, b); }, nullptr, true);
  l.binary("aten::div.out_mode", [](auto& a, auto& b) { return at::div(a, b, "floor"); },
           [](OpRunner& o) { o.string("floor"); }, true);
  l.with_scalar("aten::div.Scalar_out", [](auto& a) { return at::div(a, 3); }, [](OpRunner& o) { o.integer(3); });
  l.with_scalar("aten::div.Scalar_mode_out", [](auto& a) { return at::div(a, 3, "trunc"); },
                [](OpRunner& o) { o.integer(3).string("trunc"); });
  l.binary("aten::eq.Tensor_out", [](auto& a, auto& b) { return at::eq(a, b); });
  l.binary("aten::ne.Tensor_out", [](auto& a, auto& b) { return at::ne(a, b); });
  l.binary("aten::lt.Tensor_out", [](auto& a, auto& b) { return at::lt(a, b); });
  l.binary("aten::le.Tensor_out", [](auto& a, auto& b) { return at::le(a, b); });
  l.binary("aten::gt.Tensor_out", [](auto& a, auto& b) { return at::gt(a, b); });
  l.binary("aten::ge.Tensor_out", [](auto& a, auto& b) { return at::ge(a, b); });
  auto quarter = [](OpRunner& o) { o.real(0.25); };
  l.with_scalar("aten::eq.Scalar_out", [](auto& a) { return at::eq(a, 0.25); }, quarter);
  l.with_scalar("aten::ne.Scalar_out", [](auto& a) { return at::ne(a, 0.25); }, quarter);
  l.with_scalar("aten::lt.Scalar_out", [](auto& a) { return at::lt(a, 0.25); }, quarter);
  l.with_scalar("aten::le.Scalar_out", [](auto& a) { return at::le(a, 0.25); }, quarter);
  l.with_scalar("aten::gt.Scalar_out", [](auto& a) { return at::gt(a, 0.25); }, quarter);
  l.with_scalar("aten::ge.Scalar_out", [](auto& a) { return at::ge(a, 0.25); }, quarter);
  l.binary("aten::maximum.out", [](auto& a, auto& b) { return at::maximum(a, b); });
  l.binary("aten::minimum.out", [](auto& a, auto& b) { return at::minimum(a, b); });
  l.add("aten::pow.Tensor_Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{at::pow(t[0], t[1])}; }, {l.r({4, 5}), l.unit({4, 5})});
  l.with_scalar("aten::pow.Tensor_Scalar_out", [](auto& a) { return at::pow(a, 2); }, [](OpRunner& o) { o.integer(2); });
  l.binary("aten::remainder.Tensor_out", [](auto& a, auto& b) { return at::remainder(a, b); }, nullptr, true);
  l.with_scalar("aten::remainder.Scalar_out", [](auto& a) { return at::remainder(a, 3); }, [](OpRunner& o) { o.integer(3); });
  l.binary("aten::logical_and.out", [](auto& a, auto& b) { return at::logical_and(a, b); });
  l.binary("aten::logical_or.out", [](auto& a, auto& b) { return at::logical_or(a, b); });
  l.binary("aten::logical_xor.out", [](auto& a, auto& b) { return at::logical_xor(a, b); });
  l.add("aten::where.self_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).tensor(t[2]); },
        [](const Tensors& t, auto) { return Tensors{at::where(t[0], t[1], t[2])}; },
        {l.r({4, 1}).gt(0), l.r({4, 5}), l.r({1, 5})});
  l.add("aten::masked_fill.Scalar_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).integer(-7); },
        [](const Tensors& t, auto) { return Tensors{at::masked_fill(t[0], t[1], -7)}; },
        {l.r({4, 4}), l.r({1, 4}).gt(0)});

  l.unary("aten::exp.out", [](auto& x) { return at::exp(x); });
  l.unary("aten::expm1.out", [](auto& x) { return at::expm1(x); });
  l.unary("aten::log.out", [](auto& x) { return at::log(x); });
  l.unary("aten::log1p.out", [](auto& x) { return at::log1p(x); });
  l.unary("aten::log2.out", [](auto& x) { return at::log2(x); });
  l.unary("aten::sqrt.out", [](auto& x) { return at::sqrt(x); });
  l.unary("aten::rsqrt.out", [](auto& x) { return at::rsqrt(x); });
  l.unary("aten::sin.out", [](auto& x) { return at::sin(x); });
  l.unary("aten::cos.out", [](auto& x) { return at::cos(x); });
  l.unary("aten::tanh.out", [](auto& x) { return at::tanh(x); });
  l.unary("aten::erf.out", [](auto& x) { return at::erf(x); });
  l.unary("aten::reciprocal.out", [](auto& x) { return at::reciprocal(x); });
  l.unary("aten::sigmoid.out", [](auto& x) { return at::sigmoid(x); });
  l.unary("aten::neg.out", [](auto& x) { return at::neg(x); });
  l.unary("aten::abs.out", [](auto& x) { return at::abs(x); });
  l.unary("aten::sign.out", [](auto& x) { return at::sign(x); });
  l.unary("aten::floor.out", [](auto& x) { return at::floor(x); });
  l.unary("aten::ceil.out", [](auto& x) { return at::ceil(x); });
  l.unary("aten::round.out", [](auto& x) { return at::round(x); });
  l.unary("aten::relu.out", [](auto& x) { return at::relu(x); });
  l.unary("aten::hardswish.out", [](auto& x) { return at::hardswish(x); });
  l.unary("aten::hardsigmoid.out", [](auto& x) { return at::hardsigmoid(x); });
  l.unary("aten::silu.out", [](auto& x) { return at::silu(x); });
  l.unary("aten::logical_not.out", [](auto& x) { return at::logical_not(x); });
  l.unary("aten::bitwise_not.out", [](auto& x) { return at::bitwise_not(x); });
  l.with_scalar("aten::gelu.out", [](auto& x) { return at::gelu(x); }, [](OpRunner& o) { o.string("none"); });
  l.with_scalar("aten::gelu.out", [](auto& x) { return at::gelu(x, "tanh"); }, [](OpRunner& o) { o.string("tanh"); });
  l.with_scalar("aten::hardtanh.out", [](auto& x) { return at::hardtanh(x, -1, 2); },
                [](OpRunner& o) { o.integer(-1).integer(2); });
  l.with_scalar("aten::leaky_relu.out", [](auto& x) { return at::leaky_relu(x, 0.125); }, [](OpRunner& o) { o.real(0.125); });
  l.with_scalar("aten::clamp.out", [](auto& x) { return at::clamp(x, -1, 2); }, [](OpRunner& o) { o.integer(-1).integer(2); });
  l.with_scalar("aten::clamp.out", [](auto& x) { return at::clamp(x, c10::nullopt, 1.5); },
                [](OpRunner& o) { o.none().real(1.5); });
}

void linear_algebra_and_nn_cases(CaseList& l) {
  l.add("aten::mm.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{at::mm(t[0], t[1])}; }, {l.r({5, 64}), l.r({64, 7})})
      .libtorch_bf16_accumulates_low = true;
  l.add("aten::addmm.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).tensor(t[2]).integer(1).integer(1); },
        [](const Tensors& t, auto) { return Tensors{at::addmm(t[0], t[1], t[2])}; }, {l.r({7}), l.r({5, 48}), l.r({48, 7})})
      .libtorch_bf16_accumulates_low = true;
  l.add("aten::bmm.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{at::bmm(t[0], t[1])}; }, {l.r({3, 4, 32}), l.r({3, 32, 6})})
      .libtorch_bf16_accumulates_low = true;
  l.add("aten::linear.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).tensor(t[2]); },
        [](const Tensors& t, auto) { return Tensors{at::linear(t[0], t[1], t[2])}; },
        {l.r({2, 3, 40}), l.r({6, 40}), l.r({6})})
      .libtorch_bf16_accumulates_low = true;
  l.add("aten::convolution.out",
        [](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).tensor(t[1]).tensor(t[2]).ints({1, 1}).ints({1, 1}).ints({1, 1}).boolean(false).ints({0, 0}).integer(1);
        },
        [](const Tensors& t, auto) {
          return Tensors{at::convolution(t[0], t[1], t[2], {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1)};
        },
        {l.r({1, 3, 8, 7}), l.r({4, 3, 3, 3}), l.r({4})})
      .libtorch_bf16_accumulates_low = true;
  l.add("aten::_softmax.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(-1).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::_softmax(t[0], -1, false)}; }, {l.r({4, 64}) * 3});
  l.add("aten::_log_softmax.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::_log_softmax(t[0], 1, false)}; }, {l.r({4, 9, 5})});
  auto three_outs = [](OpRunner& o, const Tensors& e, auto) {
    for (const at::Tensor& t : e) o.out(t.scalar_type(), t.sizes());
    o.outs_as_list();
  };
  l.add("aten::native_layer_norm.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({32}).tensor(t[1]).tensor(t[2]).real(1e-5); },
        [](const Tensors& t, auto) {
          auto [y, mean, rstd] = at::native_layer_norm(t[0], {32}, t[1], t[2], 1e-5);
          return Tensors{y, mean, rstd};
        },
        {l.r({3, 5, 32}) * 2 + 1, l.r({32}), l.r({32})})
      .libtorch_bf16_accumulates_low = true;
  l.add("aten::native_group_norm.out",
        [](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).tensor(t[1]).tensor(t[2]).integer(2).integer(6).integer(20).integer(3).real(1e-5);
        },
        [](const Tensors& t, auto) {
          auto [y, mean, rstd] = at::native_group_norm(t[0], t[1], t[2], 2, 6, 20, 3, 1e-5);
          return Tensors{y, mean, rstd};
        },
        {l.r({2, 6, 4, 5}), l.r({6}), l.r({6})});
  l.last().outs = three_outs;
  l.last().libtorch_bf16_accumulates_low = true;
  // libtorch 1.13 predates _native_batch_norm_legit_no_training: inference
  // native_batch_norm is the same computation. Its mean and invstd outs
  // are empty in inference, so only the output is compared.
  l.add("aten::_native_batch_norm_legit_no_training.out",
        [](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).tensor(t[1]).tensor(t[2]).tensor(t[3]).tensor(t[4]).real(0.1).real(1e-5);
        },
        [](const Tensors& t, auto) {
          return Tensors{std::get<0>(at::native_batch_norm(t[0], t[1], t[2], t[3], t[4], false, 0.1, 1e-5))};
        },
        {l.r({2, 3, 4, 5}), l.r({3}), l.r({3}), l.r({3}), l.r({3}).abs() + 0.5})
      .outs = [](OpRunner& o, const Tensors& e, at::ScalarType dtype) {
        o.out(e[0].scalar_type(), e[0].sizes()).out(dtype, {0}).out(dtype, {0}).outs_as_list();
      };
  l.add("aten::max_pool2d_with_indices.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({3, 3}).ints({2, 2}).ints({1, 1}).ints({1, 1}).boolean(false); },
        [](const Tensors& t, auto) {
          auto [values, indices] = at::max_pool2d_with_indices(t[0], {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
          return Tensors{values, indices};
        },
        {l.r({1, 2, 6, 7})})
      .outs = three_outs;
  l.add("aten::avg_pool2d.out",
        [](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).ints({3, 3}).ints({2, 2}).ints({1, 1}).boolean(false).boolean(true).none();
        },
        [](const Tensors& t, auto) { return Tensors{at::avg_pool2d(t[0], {3, 3}, {2, 2}, {1, 1}, false, true)}; },
        {l.r({1, 2, 6, 7})});
  l.add("aten::_adaptive_avg_pool2d.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({3, 4}); },
        [](const Tensors& t, auto) { return Tensors{at::_adaptive_avg_pool2d(t[0], {3, 4})}; }, {l.r({2, 4, 7, 9})});
}

void reduction_cases(CaseList& l) {
  l.add("aten::sum.IntList_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1}).boolean(false).none(); },
        [](const Tensors& t, auto) { return Tensors{at::sum(t[0], {1})}; }, {l.r({4, 100, 3})});
  l.add("aten::mean.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({-1}).boolean(true).none(); },
        [](const Tensors& t, auto) { return Tensors{at::mean(t[0], {-1}, true)}; }, {l.r({4, 3, 50})});
  // With dtype float32, which integer inputs need (ATen cannot infer a
  // floating result dtype for them).
  l.add("aten::mean.out",
        [](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).ints({1}).boolean(false).integer(static_cast<int64_t>(at::kFloat));
        },
        [](const Tensors& t, auto) { return Tensors{at::mean(t[0], at::IntArrayRef{1}, false, at::kFloat)}; }, {l.r({4, 30, 3})});
  l.add("aten::sum.IntList_out",
        [](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).ints({0, 2}).boolean(true).integer(static_cast<int64_t>(at::kDouble));
        },
        [](const Tensors& t, auto) { return Tensors{at::sum(t[0], at::IntArrayRef{0, 2}, true, at::kDouble)}; }, {l.r({4, 30, 3})});
  l.add("aten::amax.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1}).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::amax(t[0], {1}, false)}; }, {l.r({4, 9, 3})});
  l.add("aten::amin.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({0}).boolean(true); },
        [](const Tensors& t, auto) { return Tensors{at::amin(t[0], {0}, true)}; }, {l.r({4, 9, 3})});
  l.add("aten::argmax.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::argmax(t[0], 1, false)}; }, {l.r({4, 9, 3})});
  l.add("aten::argmin.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).none().boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::argmin(t[0])}; }, {l.r({4, 9, 3})});
}

void shape_and_copy_cases(CaseList& l) {
  auto x = [&] { return l.r({2, 3, 4}); };
  l.add("aten::view_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({4, -1}); },
        [](const Tensors& t, auto) { return Tensors{t[0].reshape({4, -1})}; }, {x()});
  l.add("aten::permute_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({2, 0, 1}); },
        [](const Tensors& t, auto) { return Tensors{t[0].permute({2, 0, 1}).contiguous()}; }, {x()});
  l.add("aten::transpose_copy.int_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(0).integer(2); },
        [](const Tensors& t, auto) { return Tensors{t[0].transpose(0, 2).contiguous()}; }, {x()});
  l.add("aten::expand_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({2, -1, 5}).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{t[0].expand({2, -1, 5}).contiguous()}; }, {l.r({3, 1})});
  l.add("aten::squeeze_copy.dim_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(2); },
        [](const Tensors& t, auto) { return Tensors{t[0].squeeze(2)}; }, {l.r({1, 3, 1, 2})});
  l.add("aten::squeeze_copy.dims_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({0, 2}); },
        [](const Tensors& t, auto) { return Tensors{t[0].squeeze(0).squeeze(1)}; }, {l.r({1, 3, 1, 2})});
  l.add("aten::squeeze_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{t[0].squeeze()}; }, {l.r({1, 3, 1, 2})});
  l.add("aten::unsqueeze_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(-1); },
        [](const Tensors& t, auto) { return Tensors{t[0].unsqueeze(-1)}; }, {x()});
  l.add("aten::slice_copy.Tensor_out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(2).integer(1).none().integer(2); },
        [](const Tensors& t, auto) { return Tensors{t[0].slice(2, 1, c10::nullopt, 2).contiguous()}; }, {l.r({2, 3, 7})});
  l.add("aten::select_copy.int_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).integer(-1); },
        [](const Tensors& t, auto) { return Tensors{t[0].select(1, -1).contiguous()}; }, {x()});
  l.add("aten::cat.out", [](OpRunner& o, const Tensors& t, auto) { o.tensors({t[0], t[1]}).integer(1); },
        [](const Tensors& t, auto) { return Tensors{at::cat({t[0], t[1]}, 1)}; }, {l.r({2, 3}), l.r({2, 5})});
  l.add("aten::split_with_sizes_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1, 3, 2}).integer(1); },
        [](const Tensors& t, auto) {
          Tensors parts;
          for (const at::Tensor& p : at::split_with_sizes(t[0], {1, 3, 2}, 1)) parts.push_back(p.contiguous());
          return parts;
        },
        {l.r({5, 6})})
      .outs = [](OpRunner& o, const Tensors& e, auto) {
        for (const at::Tensor& t : e) o.list_out(t.scalar_type(), t.sizes());
        o.outs_as_list().returned();
      };
  l.add("aten::clone.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).none(); },
        [](const Tensors& t, auto) { return Tensors{t[0].clone()}; }, {x()});
  // _to_copy both ways: from the dtype to float32, and from float64 into it.
  l.add("aten::_to_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).boolean(false).none(); },
        [](const Tensors& t, auto) { return Tensors{t[0].to(at::kFloat)}; }, {x()});
  l.add("aten::_to_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).boolean(false).none(); },
        [](const Tensors& t, at::ScalarType dtype) { return Tensors{t[0].to(dtype)}; }, {x().to(at::kDouble) * 3});
  l.add("dim_order_ops::_to_dim_order_copy.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).boolean(false).ints({0, 2, 3, 1}); },
        [](const Tensors& t, auto) { return Tensors{t[0].contiguous(at::MemoryFormat::ChannelsLast)}; },
        {l.r({2, 3, 4, 5})})
      .outs = [](OpRunner& o, const Tensors& e, auto) {
        o.out(e[0].scalar_type(), e[0].sizes(), at::MemoryFormat::ChannelsLast).returned();
      };
  l.add("dim_order_ops::_clone_dim_order.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).boolean(false).none(); },
        [](const Tensors& t, auto) { return Tensors{t[0].clone()}; }, {x()});
}

void index_and_creation_cases(CaseList& l) {
  l.add("aten::embedding.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).integer(-1).boolean(false).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::embedding(t[0], t[1])}; },
        {l.r({10, 6}), at::tensor({3, 0, 9, 3}, at::kLong)});
  l.add("aten::index_select.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{at::index_select(t[0], 1, t[1])}; },
        {l.r({3, 6, 2}), at::tensor({5, 0, 5, 2}, at::kLong)});
  l.add("aten::index.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensors({t[1], t[2]}); },
        [](const Tensors& t, auto) { return Tensors{at::index(t[0], {t[1], t[2]})}; },
        {l.r({4, 5, 3}), at::tensor({3, 0, 1}, at::kLong), at::tensor({4, 4, 0}, at::kLong)});
  l.add("aten::full.out", [](OpRunner& o, const Tensors&, auto) { o.ints({2, 3}).integer(3); },
        [](const Tensors&, at::ScalarType dtype) { return Tensors{at::full({2, 3}, 3, at::TensorOptions().dtype(dtype))}; }, {});
  l.add("aten::full_like.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(3).none(); },
        [](const Tensors& t, auto) { return Tensors{at::full_like(t[0], 3)}; }, {l.r({2, 5})});
  l.add("aten::arange.start_out", [](OpRunner& o, const Tensors&, auto) { o.integer(-3).integer(9).integer(2); },
        [](const Tensors&, at::ScalarType dtype) { return Tensors{at::arange(-3, 9, 2, at::TensorOptions().dtype(dtype))}; }, {});
  l.add("aten::arange.out", [](OpRunner& o, const Tensors&, auto) { o.integer(7); },
        [](const Tensors&, at::ScalarType dtype) { return Tensors{at::arange(7, at::TensorOptions().dtype(dtype))}; }, {});
  l.add("aten::constant_pad_nd.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1, 2, -1, 1}).integer(2); },
        [](const Tensors& t, auto) { return Tensors{at::constant_pad_nd(t[0], {1, 2, -1, 1}, 2)}; }, {l.r({2, 3, 4})});
  l.add("aten::repeat.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({2, 1, 3}); },
        [](const Tensors& t, auto) { return Tensors{t[0].repeat({2, 1, 3})}; }, {l.r({3, 4})});
  l.add("aten::upsample_nearest2d.vec_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({7, 9}).none(); },
        [](const Tensors& t, auto) { return Tensors{at::upsample_nearest2d(t[0], {7, 9}, c10::nullopt, c10::nullopt)}; },
        {l.r({1, 2, 4, 5})});
}

// The op computed in float32 on the inputs' values, floating results
// rounded to `dtype`: the reference where libtorch has no kernel, and the
// outs' shapes and dtypes for a call libtorch refuses.
Tensors float32_rounded(const DtypeCase& c, const Tensors& inputs, at::ScalarType dtype) {
  Tensors widened, out;
  for (const at::Tensor& t : inputs) widened.push_back(t.scalar_type() == dtype ? t.to(at::kFloat) : t);
  for (const at::Tensor& t : c.reference(widened, at::kFloat)) out.push_back(t.is_floating_point() ? t.to(dtype) : t);
  return out;
}

std::string first_line(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  std::string message = c10_error ? c10_error->what_without_backtrace() : e.what();
  return message.substr(0, message.find('\n'));
}

std::string compare(OpRunner& op, const Tensors& expected, double rtol_floor = 0, double atol_floor = 0) {
  for (size_t k = 0; k < expected.size(); ++k) {
    const at::Tensor actual = op.result(k);
    const double tol = tolerance(expected[k].scalar_type());
    auto close = tensors_close(actual, expected[k], std::max(tol, rtol_floor), std::max(tol, atol_floor));
    if (!close) return "out " + std::to_string(k) + ": " + close.message();
  }
  return "";
}

}  // namespace

at::Tensor in_dtype(const at::Tensor& t, at::ScalarType dtype) {
  if (t.scalar_type() != at::kFloat) return t;
  if (dtype == at::kBool) return t.gt(0);
  if (at::isIntegralType(dtype, /*includeBool=*/false)) return (t * 3).round().to(dtype);
  return t.to(dtype);
}

// Relative and absolute tolerance: one unit in the last place for the
// 16-bit floats (results may differ from libtorch's by its other
// accumulation order before the one rounding), accumulation-order noise
// for float32 and float64, exact for integers and bool.
double tolerance(at::ScalarType dtype) {
  switch (dtype) {
    case at::kBFloat16: return 1.0 / 128;
    case at::kHalf: return 1.0 / 1024;
    case at::kFloat: return 1e-5;
    case at::kDouble: return 1e-12;
    default: return 0;
  }
}

std::vector<DtypeCase> dtype_cases(std::mt19937_64& rng) {
  at::manual_seed(static_cast<uint64_t>(rng()));  // for unit(): at::rand
  CaseList list(rng);
  elementwise_cases(list);
  linear_algebra_and_nn_cases(list);
  reduction_cases(list);
  shape_and_copy_cases(list);
  index_and_creation_cases(list);
  math_op_cases(list);
  reduction_op_cases(list);
  view_and_copy_cases(list);
  index_and_scatter_cases(list);
  creation_op_cases(list);
  nn_op_cases(list);
  return list.take();
}

const UncoveredKernels& uncovered_kernels() {
  static const UncoveredKernels uncovered{
      {"executorch_prim::", "cortex_m::", "quantized_decomposed::", "llama::"},
      {"aten::sym_size.int", "aten::sym_numel", "aten::_local_scalar_dense", "aten::empty.out",
       "dim_order_ops::_empty_dim_order.out", "aten::rand.out", "aten::randn.out",
       "aten::view_as_real_copy.out"}};
  return uncovered;
}

std::string UncoveredKernels::reason(const std::string& op) const {
  if (op.rfind("executorch_prim::", 0) == 0) return "scalar ops on int and double values: no tensor dtype";
  if (op.rfind("cortex_m::", 0) == 0) return "int8 quantized kernels by definition (as upstream's)";
  if (op.rfind("quantized_decomposed::", 0) == 0) {
    return "float32 <-> integer quantization, tested against the formula (libtorch 1.13 has no such op)";
  }
  if (op.rfind("llama::", 0) == 0) {
    return "LLM custom ops on float32 (float16 and bfloat16 staged to float32 by the runtime), int8 for the "
           "quantized SDPA: tested against attention in libtorch ops (llm_ops_test)";
  }
  if (op == "aten::_local_scalar_dense") return "tensor to scalar value: tested by hand in every dtype";
  if (op == "aten::rand.out" || op == "aten::randn.out") {
    return "random contents: range, moments and reproducibility tested (creation_ops_test)";
  }
  if (op == "aten::empty.out" || op == "dim_order_ops::_empty_dim_order.out") {
    return "no defined contents: shape and dim order tested (creation_ops_test)";
  }
  if (op == "aten::view_as_real_copy.out") return "complex inputs only: tested in complex64 and complex128";
  return "reads the shape only: the same for every dtype";
}

const std::vector<at::ScalarType>& table_dtypes() {
  static const std::vector<at::ScalarType> dtypes{at::kBool, at::kByte,  at::kChar,   at::kShort, at::kInt,
                                                  at::kLong, at::kHalf,  at::kBFloat16, at::kFloat, at::kDouble};
  return dtypes;
}

DtypeResult run_dtype_case(const DtypeCase& c, at::ScalarType dtype) {
  Tensors inputs;
  for (const at::Tensor& t : c.inputs) inputs.push_back(in_dtype(t, dtype));
  const bool low_precision = dtype == at::kHalf || dtype == at::kBFloat16;

  std::optional<Tensors> libtorch;
  std::string libtorch_refusal;
  try {
    libtorch = c.reference(inputs, dtype);
  } catch (const std::exception& e) {
    libtorch_refusal = first_line(e);
  }
  std::optional<Tensors> model;
  try {
    model = float32_rounded(c, inputs, dtype);
  } catch (const std::exception&) {
  }
  const bool use_model = low_precision && model && (!libtorch || (c.libtorch_bf16_accumulates_low && dtype == at::kBFloat16));
  const std::optional<Tensors>& expected = use_model ? model : libtorch;
  const std::optional<Tensors>& outs = libtorch ? libtorch : model;

  OpRunner op(c.op);
  c.arguments(op, inputs, dtype);
  if (!outs) {
    op.out(dtype, {64}).returned();
  } else if (c.outs) {
    c.outs(op, *outs, dtype);
  } else {
    for (const at::Tensor& e : *outs) op.out(e.scalar_type(), e.sizes());
    if (outs->size() == 1) op.returned(); else op.outs_as_list();
  }
  const std::string refusal = op.run();
  if (!refusal.empty()) {
    if (libtorch) return {DtypeOutcome::kRefusedLibtorchRuns, refusal};
    return {DtypeOutcome::kRefusedLikeLibtorch, refusal + " (libtorch: " + libtorch_refusal + ")"};
  }
  if (!expected) {
    // No libtorch kernel for an integer or bool dtype: the float32
    // computation converted to it is a reference where it is exact (small
    // integers, selections and comparisons); where it differs the call is
    // left unchecked, not counted wrong.
    if (model && compare(op, *model).empty()) return {DtypeOutcome::kMatchesFloat32Rounded, "libtorch: " + libtorch_refusal};
    return {DtypeOutcome::kRunsUnchecked, "libtorch: " + libtorch_refusal};
  }
  if (std::string difference = compare(op, *expected); !difference.empty()) {
    return {DtypeOutcome::kWrongResult, difference};
  }
  if (!use_model) return {DtypeOutcome::kMatchesLibtorch, ""};
  if (libtorch) {
    // Also within libtorch's own bfloat16 accumulation error.
    if (std::string difference = compare(op, *libtorch, 0.05, 0.15); !difference.empty()) {
      return {DtypeOutcome::kWrongResult, "against libtorch's bfloat16 accumulation: " + difference};
    }
  }
  return {DtypeOutcome::kMatchesFloat32Rounded, libtorch ? "libtorch accumulates in bfloat16" : "libtorch: " + libtorch_refusal};
}

}  // namespace etkit::test
