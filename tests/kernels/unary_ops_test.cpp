// Unary kernels against libtorch, with edge values.

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>

#include "etkit/kernels/elementwise.h"
#include "op_runner.h"

namespace etkit::test {
namespace {

at::Tensor edge_input(std::mt19937_64& rng, at::ScalarType dtype) {
  at::Tensor t = random_tensor(rng, {4, 9}, dtype, -6, 6);
  if (at::isFloatingType(dtype)) {
    auto flat = t.view(-1);
    flat[0] = NAN;
    flat[1] = INFINITY;
    flat[2] = -INFINITY;
    flat[3] = 0.0;
    flat[4] = -0.0;
    flat[5] = 1e-30;
    flat[6] = 88.0;
  }
  return t;
}

using UnaryFn = at::Tensor (*)(const at::Tensor&);

struct UnaryCase {
  const char* name;
  UnaryFn fn;
  double rtol;  // libm vs ATen's vectorized (Sleef) implementations
  bool float_only;
};

TEST(UnaryOps, MatchAtenOnFloatsAndPromotedIntegers) {
  const std::vector<UnaryCase> cases = {
      {"exp", at::exp, 1e-6, false},     {"expm1", at::expm1, 1e-6, false},
      {"log", at::log, 1e-6, false},     {"log1p", at::log1p, 1e-6, false},
      {"log2", at::log2, 1e-6, false},   {"sqrt", at::sqrt, 1e-6, false},
      {"rsqrt", at::rsqrt, 1e-6, false}, {"sin", at::sin, 1e-6, false},
      {"cos", at::cos, 1e-6, false},     {"tanh", at::tanh, 1e-6, false},
      {"erf", at::erf, 1e-6, false},     {"reciprocal", at::reciprocal, 1e-6, false},
      {"sigmoid", at::sigmoid, 1e-6, false},
      {"neg", at::neg, 0, true},         {"abs", at::abs, 0, true},
      {"sign", at::sign, 0, true},       {"floor", at::floor, 0, true},
      {"ceil", at::ceil, 0, true},       {"round", at::round, 0, true},
      {"relu", at::relu, 0, true},       {"hardswish", at::hardswish, 1e-6, true},
      {"hardsigmoid", at::hardsigmoid, 1e-6, true}, {"silu", at::silu, 1e-6, true},
  };
  std::mt19937_64 rng(kernel_test_seed() + 10);
  for (const UnaryCase& c : cases) {
    for (at::ScalarType dtype : {at::kFloat, at::kDouble, at::kInt, at::kLong}) {
      const bool integral = !at::isFloatingType(dtype);
      const std::string name = c.name;
      if (integral && name == "silu") continue;
      at::Tensor in = edge_input(rng, dtype);
      if (integral && (name == "hardswish" || name == "hardsigmoid")) {
        // ATen has no integer kernel for these; etkit refused to compute one
        // only after fuzzing found its int32 arithmetic overflowing.
        EXPECT_ANY_THROW(c.fn(in)) << c.name << " " << dtype;
        OpRunner runner(std::string("aten::") + c.name + ".out");
        runner.tensor(in).out(dtype, in.sizes()).returned();
        EXPECT_NE(runner.run().find("not implemented for"), std::string::npos) << c.name << " " << dtype;
        continue;
      }
      at::Tensor expected = c.fn(in);
      OpRunner runner(std::string("aten::") + c.name + ".out");
      runner.tensor(in).out(expected.scalar_type(), expected.sizes()).returned();
      ASSERT_EQ(runner.run(), "") << c.name << " " << dtype;
      EXPECT_TRUE(tensors_close(runner.result(), expected, c.rtol, 1e-7))
          << c.name << " " << dtype;
    }
  }
}

// Float maps run a second build of their loop on AVX2 cores (dense_map,
// dense_zip): the same operations, so the same bits as the baseline loop,
// over edge values and a length that leaves a vector remainder. A
// multiply-add fused there (gelu, batch norm's x * alpha + beta, add's
// a + alpha * b) would show in an optimized build. The ops whose result is
// one exact operation (relu, clamp, one product or quotient) are also held
// to libtorch's values exactly, through either loop: that part fails in a
// debug build too, where neither loop is vectorized, and on a core without
// AVX2, where both runs take the baseline loop.
TEST(ElementwiseMaps, AvxLoopsGiveTheBaselineLoopsBits) {
  std::mt19937_64 rng(kernel_test_seed() + 12);
  at::Tensor in = random_tensor(rng, {3, 4, 87}, at::kFloat, -9, 9);
  in.view(-1).slice(0, 0, 36).copy_(edge_input(rng, at::kFloat).view(-1));
  // Positive: a negative variance makes every scale NaN, and where both
  // operands are NaN which one comes out is the compiler's operand order.
  const at::Tensor stats = random_tensor(rng, {4}, at::kFloat, 0, 1).abs() + 0.1;
  const at::Tensor other = random_tensor(rng, in.sizes(), at::kFloat, 0, 1), single = at::full({1}, 0.3f);
  const std::map<std::string, at::Tensor> exact = {{"aten::relu.out", at::relu(in)},
                                                   {"aten::hardtanh.out", at::hardtanh(in, 0.0, 6.0)},
                                                   {"aten::mul.out", at::mul(other, in)},
                                                   {"aten::div.out", at::div(single, in)}};
  const std::vector<std::pair<std::string, std::function<void(OpRunner&)>>> cases = {
      {"aten::relu.out", [&](OpRunner& r) { r.tensor(in); }},
      {"aten::hardtanh.out", [&](OpRunner& r) { r.tensor(in).real(0.0).real(6.0); }},
      {"aten::gelu.out", [&](OpRunner& r) { r.tensor(in).string("tanh"); }},
      {"aten::silu.out", [&](OpRunner& r) { r.tensor(in); }},
      {"aten::sigmoid.out", [&](OpRunner& r) { r.tensor(in); }},
      {"aten::add.out", [&](OpRunner& r) { r.tensor(in).tensor(other).real(0.7); }},
      {"aten::mul.out", [&](OpRunner& r) { r.tensor(other).tensor(in); }},
      {"aten::sub.out", [&](OpRunner& r) { r.tensor(in).tensor(single).real(1.5); }},
      {"aten::div.out", [&](OpRunner& r) { r.tensor(single).tensor(in); }},
      {"aten::_native_batch_norm_legit_no_training.out",
       [&](OpRunner& r) { r.tensor(in).tensor(stats).tensor(-stats).tensor(stats * 0.5).tensor(stats).real(0.1).real(1e-5); }},
  };
  for (const auto& [op, arguments] : cases) {
    std::vector<at::Tensor> results;
    for (bool avx : {true, false}) {
      kernels::dense_map_avx2_allowed() = avx;
      OpRunner runner(op);
      arguments(runner);
      runner.out(at::kFloat, in.sizes());
      if (op.find("batch_norm") != std::string::npos) {
        runner.out(at::kFloat, {0}).out(at::kFloat, {0}).outs_as_list();
      } else {
        runner.returned();
      }
      const std::string error = runner.run();
      kernels::dense_map_avx2_allowed() = true;
      ASSERT_EQ(error, "") << op;
      results.push_back(runner.result());
    }
    ASSERT_EQ(results[0].numel(), in.numel()) << op;
    EXPECT_EQ(std::memcmp(results[0].data_ptr(), results[1].data_ptr(), size_t(in.numel()) * sizeof(float)), 0) << op;
    const auto reference = exact.find(op);
    if (reference == exact.end()) continue;
    for (const at::Tensor& result : results) {
      EXPECT_TRUE(result.allclose(reference->second, 0.0, 0.0, /*equal_nan=*/true)) << op << " against libtorch";
    }
  }
}

TEST(UnaryOps, ChannelsLastInputKeepsValues) {
  at::Tensor in = at::randn({2, 3, 4, 5}).contiguous(at::MemoryFormat::ChannelsLast);
  at::Tensor expected = at::relu(in);
  OpRunner runner("aten::relu.out");
  runner.tensor(in).out(at::kFloat, {2, 3, 4, 5}).returned();  // contiguous out
  ASSERT_EQ(runner.run(), "");
  EXPECT_TRUE(tensors_close(runner.result(), expected));
}

TEST(UnaryOps, ActivationsWithArguments) {
  std::mt19937_64 rng(kernel_test_seed() + 11);
  at::Tensor in = edge_input(rng, at::kFloat);
  for (const char* mode : {"none", "tanh"}) {
    at::Tensor expected = at::gelu(in, mode);
    OpRunner runner("aten::gelu.out");
    runner.tensor(in).string(mode).out(at::kFloat, in.sizes()).returned();
    ASSERT_EQ(runner.run(), "");
    // 1 + erf(x) cancels for x << 0: both sides carry ~|x| * 2^-24 of
    // absolute float error there, hence the absolute tolerance.
    EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-6, 1e-6)) << mode;
  }
  {
    at::Tensor expected = at::hardtanh(in, -0.5, 2.0);
    OpRunner runner("aten::hardtanh.out");
    runner.tensor(in).real(-0.5).real(2.0).out(at::kFloat, in.sizes()).returned();
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), expected));
  }
  {
    at::Tensor expected = at::leaky_relu(in, 0.1);
    OpRunner runner("aten::leaky_relu.out");
    runner.tensor(in).real(0.1).out(at::kFloat, in.sizes()).returned();
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), expected));
  }
  for (at::ScalarType dtype : {at::kFloat, at::kInt}) {
    at::Tensor x = edge_input(rng, dtype);
    at::Tensor expected = at::clamp(x, -2, 3);
    OpRunner runner("aten::clamp.out");
    runner.tensor(x).integer(-2).integer(3).out(expected.scalar_type(), x.sizes()).returned();
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), expected)) << dtype;
    at::Tensor upper = at::clamp(x, c10::nullopt, 1.5);  // float bound promotes ints
    OpRunner only_max("aten::clamp.out");
    only_max.tensor(x).none().real(1.5).out(upper.scalar_type(), x.sizes()).returned();
    ASSERT_EQ(only_max.run(), "");
    EXPECT_TRUE(tensors_close(only_max.result(), upper)) << dtype;
  }
  at::Tensor mask = at::randn({3, 3}) > 0;
  OpRunner logical("aten::logical_not.out");
  logical.tensor(mask).out(at::kBool, {3, 3}).returned();
  ASSERT_EQ(logical.run(), "");
  EXPECT_TRUE(tensors_close(logical.result(), at::logical_not(mask)));
}

TEST(UnaryOps, HalfAndBFloat16CopiesRoundLikeAten) {
  // _to_copy across float16/bfloat16 uses PyTorch's round-to-nearest-even.
  at::Tensor in = at::randn({1000}) * 1000;
  auto flat = in.view(-1);
  flat[0] = 65519.0;   // rounds down to the largest half
  flat[1] = 65520.0;   // overflows to inf
  flat[2] = 1e-8;      // subnormal half
  flat[3] = NAN;
  for (at::ScalarType dtype : {at::kHalf, at::kBFloat16}) {
    at::Tensor expected = in.to(dtype);
    OpRunner to("aten::_to_copy.out");
    to.tensor(in).boolean(false).none().out(dtype, in.sizes()).returned();
    ASSERT_EQ(to.run(), "");
    EXPECT_TRUE(tensors_close(to.result(), expected)) << dtype;
    OpRunner back("aten::_to_copy.out");
    back.tensor(expected).boolean(false).none().out(at::kFloat, in.sizes()).returned();
    ASSERT_EQ(back.run(), "");
    EXPECT_TRUE(tensors_close(back.result(), expected.to(at::kFloat))) << dtype;
  }
}

}  // namespace
}  // namespace etkit::test
