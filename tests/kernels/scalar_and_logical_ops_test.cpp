// The kernels whose overloads had no direct libtorch comparison: Scalar
// overloads of comparisons and arithmetic, division by a scalar with and
// without rounding, logical and bitwise ops, full_like, copies, per-channel
// dequantization and the executorch_prim scalar ops (against ATen's
// arithmetic on 0-d tensors, which follows Python's rules as they do).

#include <gtest/gtest.h>

#include <limits>

#include "op_runner.h"

namespace etkit::test {
namespace {

const at::ScalarType kTypes[] = {at::kFloat, at::kDouble, at::kInt, at::kLong, at::kByte};

// Runs `op` on tensor `a` and a scalar (int or double), out of the dtype
// ATen gives, and compares with `expected`.
void expect_scalar_op(const std::string& op, const at::Tensor& a, const at::Scalar& s, const at::Tensor& expected,
                      bool alpha = false) {
  OpRunner runner(op);
  runner.tensor(a);
  if (s.isFloatingPoint()) runner.real(s.toDouble());
  else runner.integer(s.toLong());
  if (alpha) runner.integer(1);
  runner.out(expected.scalar_type(), expected.sizes()).returned();
  ASSERT_EQ(runner.run(), "") << op;
  EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-6, 1e-7)) << op << " " << a.scalar_type() << " " << s;
}

TEST(ScalarOverloads, ComparisonsMatchAten) {
  std::mt19937_64 rng(kernel_test_seed() + 21);
  for (at::ScalarType dtype : kTypes) {
    at::Tensor a = random_tensor(rng, {3, 5}, dtype, 0, 4);
    for (const at::Scalar& s : {at::Scalar(int64_t(2)), at::Scalar(1.5)}) {
      expect_scalar_op("aten::eq.Scalar_out", a, s, at::eq(a, s));
      expect_scalar_op("aten::ne.Scalar_out", a, s, at::ne(a, s));
      expect_scalar_op("aten::lt.Scalar_out", a, s, at::lt(a, s));
      expect_scalar_op("aten::le.Scalar_out", a, s, at::le(a, s));
      expect_scalar_op("aten::ge.Scalar_out", a, s, at::ge(a, s));
    }
  }
}

TEST(ScalarOverloads, ArithmeticMatchesAten) {
  std::mt19937_64 rng(kernel_test_seed() + 22);
  for (at::ScalarType dtype : {at::kFloat, at::kDouble, at::kInt, at::kLong}) {
    at::Tensor a = random_tensor(rng, {4, 3}, dtype, -5, 5);
    for (const at::Scalar& s : {at::Scalar(int64_t(3)), at::Scalar(2.5)}) {
      expect_scalar_op("aten::sub.Scalar_out", a, s, at::sub(a, s, 1), /*alpha=*/true);
      expect_scalar_op("aten::div.Scalar_out", a, s, at::div(a, s));
      expect_scalar_op("aten::remainder.Scalar_out", a, s, at::remainder(a, s));
      expect_scalar_op("aten::pow.Tensor_Scalar_out", a, s, at::pow(a, s));
      for (const char* mode : {"trunc", "floor"}) {
        const at::Tensor expected = at::div(a, s, mode);
        OpRunner runner("aten::div.Scalar_mode_out");
        runner.tensor(a);
        if (s.isFloatingPoint()) runner.real(s.toDouble());
        else runner.integer(s.toLong());
        runner.string(mode).out(expected.scalar_type(), expected.sizes()).returned();
        ASSERT_EQ(runner.run(), "") << mode;
        EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-6, 1e-7)) << dtype << " " << s << " " << mode;
      }
    }
  }
}

TEST(LogicalOps, MatchAten) {
  std::mt19937_64 rng(kernel_test_seed() + 23);
  for (at::ScalarType ta : {at::kBool, at::kFloat, at::kInt}) {
    for (at::ScalarType tb : {at::kBool, at::kLong}) {
      at::Tensor a = random_tensor(rng, {3, 4}, ta, 0, 2);
      at::Tensor b = random_tensor(rng, {4}, tb, 0, 2);
      const std::vector<std::pair<const char*, at::Tensor>> cases = {
          {"aten::logical_and.out", at::logical_and(a, b)},
          {"aten::logical_or.out", at::logical_or(a, b)},
          {"aten::logical_xor.out", at::logical_xor(a, b)}};
      for (const auto& [op, expected] : cases) {
        OpRunner runner(op);
        runner.tensor(a).tensor(b).out(at::kBool, expected.sizes()).returned();
        ASSERT_EQ(runner.run(), "") << op;
        EXPECT_TRUE(tensors_close(runner.result(), expected)) << op << " " << ta << " " << tb;
      }
    }
    at::Tensor a = random_tensor(rng, {6}, ta, 0, 2);
    const at::Tensor expected = at::logical_not(a);
    OpRunner runner("aten::logical_not.out");
    runner.tensor(a).out(at::kBool, expected.sizes()).returned();
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), expected)) << ta;
  }
  for (at::ScalarType dtype : {at::kBool, at::kByte, at::kInt, at::kLong}) {
    at::Tensor a = random_tensor(rng, {5}, dtype, 0, dtype == at::kBool ? 2 : 100);
    const at::Tensor expected = at::bitwise_not(a);
    OpRunner runner("aten::bitwise_not.out");
    runner.tensor(a).out(dtype, expected.sizes()).returned();
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), expected)) << dtype;
  }
}

TEST(Copies, FullLikeCloneSqueezeMatchAten) {
  at::Tensor x = at::randn({2, 1, 3});
  for (const at::Scalar& s : {at::Scalar(int64_t(7)), at::Scalar(-0.25)}) {
    const at::Tensor expected = at::full_like(x, s);
    OpRunner runner("aten::full_like.out");
    runner.tensor(x);
    if (s.isFloatingPoint()) runner.real(s.toDouble());
    else runner.integer(s.toLong());
    runner.none().out(at::kFloat, x.sizes()).returned();
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), expected)) << s;
  }
  OpRunner clone("aten::clone.out");
  clone.tensor(x).none().out(at::kFloat, x.sizes()).returned();
  ASSERT_EQ(clone.run(), "");
  EXPECT_TRUE(tensors_close(clone.result(), at::clone(x)));
  OpRunner clone_dim_order("dim_order_ops::_clone_dim_order.out");
  clone_dim_order.tensor(x).boolean(false).none().out(at::kFloat, x.sizes()).returned();
  ASSERT_EQ(clone_dim_order.run(), "");
  EXPECT_TRUE(tensors_close(clone_dim_order.result(), at::clone(x)));
  const at::Tensor squeezed = at::squeeze(x);
  OpRunner squeeze("aten::squeeze_copy.out");
  squeeze.tensor(x).out(at::kFloat, squeezed.sizes()).returned();
  ASSERT_EQ(squeeze.run(), "");
  EXPECT_TRUE(tensors_close(squeeze.result(), squeezed));
  EXPECT_EQ(squeeze.result().sizes(), squeezed.sizes());
}

TEST(Quantized, DequantizePerChannelMatchesAten) {
  at::Tensor q = at::randint(-128, 128, {4, 6}, at::kChar);
  at::Tensor scales = at::tensor({0.1, 0.02, 0.5, 0.07}, at::kDouble);
  at::Tensor zps = at::tensor({0, 2, -1, 5}, at::kLong);
  // ATen's own per-channel quantized tensor, dequantized by ATen.
  const at::Tensor expected = at::_make_per_channel_quantized_tensor(q, scales, zps, 0).dequantize();
  OpRunner dq("quantized_decomposed::dequantize_per_channel.out");
  dq.tensor(q).tensor(scales).tensor(zps).integer(0).integer(-128).integer(127).integer(int64_t(at::kChar)).none()
      .out(at::kFloat, q.sizes()).returned();
  ASSERT_EQ(dq.run(), "");
  EXPECT_TRUE(tensors_close(dq.result(), expected, 1e-6, 1e-7));
}

// ATen's result of `op` on two 0-d tensors, as a double.
double aten_scalar(const char* op, double a, double b, bool integral) {
  const auto dtype = integral ? at::kLong : at::kDouble;
  const at::Tensor x = at::scalar_tensor(a, dtype), y = at::scalar_tensor(b, dtype);
  const std::string name = op;
  if (name == "add") return at::add(x, y).item<double>();
  if (name == "sub") return at::sub(x, y).item<double>();
  if (name == "mul") return at::mul(x, y).item<double>();
  if (name == "floordiv") return at::div(x, y, "floor").item<double>();
  if (name == "mod") return at::remainder(x, y).item<double>();  // Python's %: the divisor's sign
  if (name == "eq") return at::eq(x, y).item<bool>();
  if (name == "gt") return at::gt(x, y).item<bool>();
  if (name == "lt") return at::lt(x, y).item<bool>();
  if (name == "ge") return at::ge(x, y).item<bool>();
  if (name == "le") return at::le(x, y).item<bool>();
  ADD_FAILURE() << "no ATen op for " << op;
  return 0;
}

double value_of(const Value& v) { return v.scalar_as_double(); }

TEST(PrimOps, ScalarOpsFollowAtenArithmetic) {
  const std::pair<const char*, const char*> ops[] = {
      {"executorch_prim::add.Scalar", "add"},      {"executorch_prim::sub.Scalar", "sub"},
      {"executorch_prim::mul.Scalar", "mul"},      {"executorch_prim::floordiv.Scalar", "floordiv"},
      {"executorch_prim::floordiv.int", "floordiv"}, {"executorch_prim::mod.Scalar", "mod"},
      {"executorch_prim::mod.int", "mod"},         {"executorch_prim::eq.Scalar", "eq"},
      {"executorch_prim::gt.Scalar", "gt"},        {"executorch_prim::lt.Scalar", "lt"},
      {"executorch_prim::ge.Scalar", "ge"},        {"executorch_prim::le.Scalar", "le"}};
  const std::pair<int64_t, int64_t> ints[] = {{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {3, 3}};
  for (const auto& [op, aten_op] : ops) {
    for (const auto& [a, b] : ints) {
      OpRunner runner(op);
      runner.integer(a).integer(b).integer(0);
      ASSERT_EQ(runner.run(), "") << op;
      EXPECT_EQ(value_of(runner.arg(2)), aten_scalar(aten_op, double(a), double(b), true))
          << op << "(" << a << ", " << b << ")";
    }
    const bool int_only = std::string(op).find(".int") != std::string::npos;
    if (int_only) continue;
    for (const auto& [a, b] : {std::pair<double, double>{7.5, 2.0}, {-7.5, 2.0}, {7.5, -2.0}}) {
      OpRunner runner(op);
      runner.real(a).real(b).real(0);
      ASSERT_EQ(runner.run(), "") << op;
      EXPECT_DOUBLE_EQ(value_of(runner.arg(2)), aten_scalar(aten_op, a, b, false)) << op << "(" << a << ", " << b << ")";
    }
  }
  OpRunner neg("executorch_prim::neg.Scalar");
  neg.integer(5).integer(0);
  ASSERT_EQ(neg.run(), "");
  EXPECT_EQ(value_of(neg.arg(1)), at::neg(at::scalar_tensor(5, at::kLong)).item<double>());
  at::Tensor t = at::zeros({3, 5, 2});
  OpRunner numel("aten::sym_numel");
  numel.tensor(t).integer(0);
  ASSERT_EQ(numel.run(), "");
  EXPECT_EQ(numel.arg(1).unchecked_int(), t.numel());
}

}  // namespace
// Found by fuzzing (tests/fuzz_regressions/execute_generated): integer
// extremes wrap in two's complement, as ATen's int64 tensors do, instead of
// being undefined behaviour.
TEST(PrimOps, IntegerExtremesWrapAsAtenInt64Does) {
  const int64_t min = std::numeric_limits<int64_t>::min();
  OpRunner neg("executorch_prim::neg.Scalar");
  neg.integer(min).integer(0);
  ASSERT_EQ(neg.run(), "");
  EXPECT_EQ(neg.arg(1).unchecked_int(), at::neg(at::scalar_tensor(min, at::kLong)).item<int64_t>());
  OpRunner floordiv("executorch_prim::floordiv.int");
  floordiv.integer(min).integer(-1).integer(0);
  ASSERT_EQ(floordiv.run(), "");
  EXPECT_EQ(floordiv.arg(2).unchecked_int(), min);  // -min wraps to min
  OpRunner mod("executorch_prim::mod.int");
  mod.integer(min).integer(-1).integer(0);
  ASSERT_EQ(mod.run(), "");
  EXPECT_EQ(mod.arg(2).unchecked_int(), 0);
}

TEST(Quantized, QuantizeRefusesBoundsOutsideItsDtypeAndMapsNanAsAtenCasts) {
  OpRunner wide("quantized_decomposed::quantize_per_tensor.out");
  wide.tensor(at::ones({2})).real(0.5).integer(0).integer(-1000).integer(1000).integer(int64_t(at::kChar));
  wide.out(at::kChar, {2}).returned();
  EXPECT_NE(wide.run().find("quant_min -1000 and quant_max 1000 must be ordered and within int8"),
            std::string::npos);
  // NaN passes the clamp; the cast gives what ATen's float->int8 cast gives.
  const at::Tensor nan = at::full({1}, std::numeric_limits<float>::quiet_NaN());
  OpRunner quantize("quantized_decomposed::quantize_per_tensor.out");
  quantize.tensor(nan).real(0.5).integer(0).integer(-128).integer(127).integer(int64_t(at::kChar));
  quantize.out(at::kChar, {1}).returned();
  ASSERT_EQ(quantize.run(), "");
  EXPECT_EQ(quantize.result().item<int8_t>(), nan.to(at::kChar).item<int8_t>());
}

TEST(Quantized, PerChannelNeedsAChannelDimension) {
  OpRunner runner("quantized_decomposed::dequantize_per_channel.out");
  runner.tensor(at::ones({}, at::kChar)).tensor(at::ones({1}, at::kDouble)).none().integer(0)
      .integer(-128).integer(127).integer(int64_t(at::kChar)).none();
  runner.out(at::kFloat, {1}).returned();
  EXPECT_NE(runner.run().find("needs a channel dimension"), std::string::npos);
}

}  // namespace etkit::test
