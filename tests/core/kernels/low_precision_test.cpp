// float16 and bfloat16 through the float32 kernels (core's low-precision
// staging), against libtorch in the same dtype. Where libtorch 1.13 has no
// CPU kernel for the dtype (it throws), the reference is the op computed in
// float32 and rounded to the dtype, which is what ATen's CPU kernels do
// where they exist; each such case says so in its trace. Results may differ
// from libtorch by one unit in the last place: its kernels accumulate in
// another order before the one rounding.
//
// Debian's libtorch 1.13 is the exception for bfloat16 matrix multiplies
// and layer norm: they do not accumulate in float32 (measured: up to 0.125
// off the float32 result rounded, on 64-term dot products of N(0, 1)
// values), where later ATen releases and upstream's portable kernels do.
// Those cases are checked against the float32 computation rounded to
// bfloat16, and against libtorch within its own accumulation error.

#include <gtest/gtest.h>

#include <functional>

#include "op_runner.h"

namespace etkit {
namespace {

using test::OpRunner;
using Tensors = std::vector<at::Tensor>;

struct Case {
  std::string name;
  bool libtorch_bf16_accumulates_low = false;  // see the file comment
  std::function<void(OpRunner&, const Tensors&, at::ScalarType)> arguments;  // inputs in the dtype
  std::function<Tensors(const Tensors&)> reference;                           // any float dtype
  Tensors inputs;                                                              // float32 values
};

// One unit in the last place of `dtype`, relative, and a floor for values
// near zero (whose products cancel).
double ulp(at::ScalarType dtype) { return dtype == at::kBFloat16 ? 1.0 / 128 : 1.0 / 1024; }

void check(const Case& c, at::ScalarType dtype) {
  SCOPED_TRACE(c.name + " in " + std::string(c10::toString(dtype)));
  Tensors low;
  for (const at::Tensor& t : c.inputs) low.push_back(t.is_floating_point() ? t.to(dtype) : t);
  auto rounded_float32 = [&] {
    Tensors widened, out;
    for (const at::Tensor& t : low) widened.push_back(t.is_floating_point() ? t.to(at::kFloat) : t);
    for (const at::Tensor& t : c.reference(widened)) out.push_back(t.is_floating_point() ? t.to(dtype) : t);
    return out;
  };
  Tensors expected, libtorch;
  try {
    libtorch = c.reference(low);
    expected = c.libtorch_bf16_accumulates_low && dtype == at::kBFloat16 ? rounded_float32() : libtorch;
  } catch (const c10::Error&) {
    SCOPED_TRACE("libtorch has no CPU kernel in this dtype: float32 computation rounded to it");
    expected = rounded_float32();
  }
  OpRunner op(c.name);
  c.arguments(op, low, dtype);
  for (const at::Tensor& e : expected) op.out(e.scalar_type(), e.sizes());
  if (expected.size() == 1) op.returned(); else op.outs_as_list();
  ASSERT_EQ(op.run(), "");
  for (size_t k = 0; k < expected.size(); ++k) {
    const at::Tensor actual = op.result(k);
    EXPECT_EQ(actual.scalar_type(), expected[k].scalar_type()) << "output " << k;
    EXPECT_TRUE(test::tensors_close(actual.to(at::kFloat), expected[k].to(at::kFloat), ulp(dtype), ulp(dtype)))
        << "output " << k;
    if (k < libtorch.size() && expected[k].data_ptr() != libtorch[k].data_ptr()) {
      EXPECT_TRUE(test::tensors_close(actual.to(at::kFloat), libtorch[k].to(at::kFloat), 0.05, 0.15))
          << "output " << k << " against libtorch's own bfloat16 accumulation";
    }
  }
}

std::vector<Case> cases(std::mt19937_64& rng) {
  auto r = [&](at::IntArrayRef sizes) { return test::random_tensor(rng, sizes, at::kFloat); };
  std::vector<Case> all;
  all.push_back({"aten::mm.out", true, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
                 [](const Tensors& t) { return Tensors{at::mm(t[0], t[1])}; }, {r({5, 64}), r({64, 7})}});
  all.push_back({"aten::addmm.out", true,
                 [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).tensor(t[2]).integer(1).integer(1); },
                 [](const Tensors& t) { return Tensors{at::addmm(t[0], t[1], t[2])}; }, {r({7}), r({5, 48}), r({48, 7})}});
  all.push_back({"aten::bmm.out", true, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
                 [](const Tensors& t) { return Tensors{at::bmm(t[0], t[1])}; }, {r({3, 4, 32}), r({3, 32, 6})}});
  all.push_back({"aten::_softmax.out", false, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(-1).boolean(false); },
                 [](const Tensors& t) { return Tensors{at::_softmax(t[0], -1, false)}; }, {r({4, 64}) * 3}});
  all.push_back({"aten::_log_softmax.out", false, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).boolean(false); },
                 [](const Tensors& t) { return Tensors{at::_log_softmax(t[0], 1, false)}; }, {r({4, 9, 5})}});
  all.push_back({"aten::native_layer_norm.out", true,
                 [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({32}).tensor(t[1]).tensor(t[2]).real(1e-5); },
                 [](const Tensors& t) {
                   auto [y, mean, rstd] = at::native_layer_norm(t[0], {32}, t[1], t[2], 1e-5);
                   return Tensors{y, mean, rstd};
                 },
                 {r({3, 5, 32}) * 2 + 1, r({32}), r({32})}});
  all.push_back({"aten::gelu.out", false, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).string("none"); },
                 [](const Tensors& t) { return Tensors{at::gelu(t[0])}; }, {r({6, 33}) * 2}});
  all.push_back({"aten::sum.IntList_out", false,
                 [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1}).boolean(false).none(); },
                 [](const Tensors& t) { return Tensors{at::sum(t[0], {1})}; }, {r({4, 100, 3})}});
  all.push_back({"aten::mean.out", false,
                 [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({-1}).boolean(true).none(); },
                 [](const Tensors& t) { return Tensors{at::mean(t[0], {-1}, true)}; }, {r({4, 3, 50})}});
  all.push_back({"aten::exp.out", false, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
                 [](const Tensors& t) { return Tensors{at::exp(t[0])}; }, {r({40})}});
  all.push_back({"aten::convolution.out", false,
                 [](OpRunner& o, const Tensors& t, auto) {
                   o.tensor(t[0]).tensor(t[1]).tensor(t[2]).ints({1, 1}).ints({1, 1}).ints({1, 1}).boolean(false)
                       .ints({0, 0}).integer(1);
                 },
                 [](const Tensors& t) {
                   return Tensors{at::convolution(t[0], t[1], t[2], {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1)};
                 },
                 {r({1, 3, 8, 7}), r({4, 3, 3, 3}), r({4})}});
  all.push_back({"aten::embedding.out", false,
                 [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).integer(-1).boolean(false).boolean(false); },
                 [](const Tensors& t) { return Tensors{at::embedding(t[0], t[1])}; },
                 {r({10, 6}), at::tensor({3, 0, 9, 3}, at::kLong)}});
  all.push_back({"aten::masked_fill.Scalar_out", false,
                 [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).real(-INFINITY); },
                 [](const Tensors& t) { return Tensors{at::masked_fill(t[0], t[1], -INFINITY)}; },
                 {r({4, 4}), at::tensor({1, 0, 0, 1}, at::kLong).to(at::kBool).reshape({1, 4})}});
  all.push_back({"aten::permute_copy.out", false, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({2, 0, 1}); },
                 [](const Tensors& t) { return Tensors{t[0].permute({2, 0, 1}).contiguous()}; }, {r({2, 3, 4})}});
  return all;
}

TEST(LowPrecision, BFloat16AgainstLibtorch) {
  std::mt19937_64 rng(test::kernel_test_seed());
  for (const Case& c : cases(rng)) check(c, at::kBFloat16);
}

TEST(LowPrecision, Float16AgainstLibtorchOrFloat32Rounded) {
  std::mt19937_64 rng(test::kernel_test_seed());
  for (const Case& c : cases(rng)) check(c, at::kHalf);
}

TEST(LowPrecision, Float32KernelsAreNotStaged) {
  // The staging is for float16/bfloat16 only: a float32 call runs the
  // kernel directly (an out of the wrong dtype is still refused by it).
  OpRunner op("aten::mm.out");
  op.tensor(at::ones({2, 2})).tensor(at::ones({2, 2})).out(at::kFloat, {2, 2}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_TRUE(test::tensors_close(op.result(), at::full({2, 2}, 2.0f)));
}

}  // namespace
}  // namespace etkit
