// Binary kernels against libtorch on random shapes, dtypes, broadcast
// patterns and edge values (NaN, infinities, integer overflow, zeros).

#include <gtest/gtest.h>

#include "op_runner.h"

namespace etkit::test {
namespace {

const std::vector<at::ScalarType> kDtypes = {at::kFloat, at::kDouble, at::kInt,  at::kLong,
                                             at::kShort, at::kChar,   at::kByte, at::kBool};

// Shapes that broadcast in different ways (including size-1, empty and 0-dim).
const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> kShapes = {
    {{2, 3}, {2, 3}},       {{4, 1, 5}, {3, 1}}, {{3, 4}, {4}},  {{}, {2, 2}},
    {{2, 0, 3}, {1, 3}},    {{1}, {6, 1, 2}},    {{5, 7, 3}, {}}, {{2, 3, 4, 5}, {3, 1, 5}},
};

at::Tensor with_edges(at::Tensor t) {
  // Sprinkle special values into floating inputs.
  if (at::isFloatingType(t.scalar_type()) && t.numel() >= 4) {
    auto flat = t.view(-1);
    flat[0] = NAN;
    flat[1] = INFINITY;
    flat[2] = -INFINITY;
    flat[3] = 0.0;
  } else if (t.scalar_type() == at::kInt && t.numel() >= 2) {
    auto flat = t.view(-1);
    flat[0] = std::numeric_limits<int32_t>::max();
    flat[1] = std::numeric_limits<int32_t>::min();
  }
  return t;
}

TEST(BinaryOps, AddSubMulMatchAtenAcrossDtypesAndBroadcasts) {
  std::mt19937_64 rng(kernel_test_seed());
  for (const char* name : {"add", "sub", "mul"}) {
    for (at::ScalarType ta : kDtypes) {
      for (at::ScalarType tb : {at::kFloat, at::kInt, at::kBool, ta}) {
        for (const auto& [sa, sb] : kShapes) {
          at::Tensor a = with_edges(random_tensor(rng, sa, ta));
          at::Tensor b = random_tensor(rng, sb, tb);
          const at::ScalarType common = at::result_type(a, b);
          const std::string op = name;
          if (op == "sub" && (ta == at::kBool || tb == at::kBool)) {
            // ATen rejects subtraction with any bool operand; so must we.
            OpRunner runner("aten::sub.out");
            runner.tensor(a).tensor(b).integer(1).out(common, {8}).returned();
            EXPECT_NE(runner.run().find("bool tensor is not supported"), std::string::npos);
            continue;
          }
          const bool integral = !at::isFloatingType(common);
          const at::Scalar alpha_value = integral ? at::Scalar(int64_t{2}) : at::Scalar(0.5);
          at::Tensor expected;
          OpRunner runner("aten::" + op + ".out");
          runner.tensor(a).tensor(b);
          if (op == "mul") {
            expected = at::mul(a, b);
          } else {
            if (common == at::kBool) {
              runner.boolean(true);
              expected = op == "add" ? at::add(a, b, true) : at::sub(a, b, true);
            } else {
              if (integral) runner.integer(2); else runner.real(0.5);
              expected = op == "add" ? at::add(a, b, alpha_value) : at::sub(a, b, alpha_value);
            }
          }
          runner.out(common, expected.sizes()).returned();
          ASSERT_EQ(runner.run(), "") << op;
          // ATen fuses a + alpha*b into one FMA: allow 1 ulp-ish for floats.
          EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-6, 1e-6))
              << op << " " << ta << " " << tb << " " << a.sizes() << " " << b.sizes();
        }
      }
    }
  }
}

TEST(BinaryOps, ScalarOverloadsPromoteLikeAten) {
  std::mt19937_64 rng(kernel_test_seed() + 1);
  for (at::ScalarType ta : kDtypes) {
    at::Tensor a = random_tensor(rng, {3, 4}, ta);
    for (bool float_scalar : {false, true}) {
      const at::Scalar s = float_scalar ? at::Scalar(2.5) : at::Scalar(int64_t(3));
      at::Tensor expected = at::mul(a, s);
      OpRunner runner("aten::mul.Scalar_out");
      runner.tensor(a);
      if (float_scalar) runner.real(2.5); else runner.integer(3);
      runner.out(expected.scalar_type(), expected.sizes()).returned();
      ASSERT_EQ(runner.run(), "");
      EXPECT_TRUE(tensors_close(runner.result(), expected)) << ta << " float=" << float_scalar;
      if (ta == at::kBool) continue;
      at::Tensor added = at::add(a, s, 1);
      OpRunner add("aten::add.Scalar_out");
      add.tensor(a);
      if (float_scalar) add.real(2.5); else add.integer(3);
      add.integer(1).out(added.scalar_type(), added.sizes()).returned();
      ASSERT_EQ(add.run(), "");
      EXPECT_TRUE(tensors_close(add.result(), added)) << ta;
    }
  }
}

TEST(BinaryOps, IntegerOverflowWraps) {
  at::Tensor a = at::full({4}, std::numeric_limits<int32_t>::max(), at::kInt);
  at::Tensor b = at::full({4}, 5, at::kInt);
  for (const char* op : {"add", "mul"}) {
    OpRunner runner(std::string("aten::") + op + ".out");
    runner.tensor(a).tensor(b);
    if (std::string(op) == "add") runner.integer(1);
    runner.out(at::kInt, {4}).returned();
    ASSERT_EQ(runner.run(), "");
    at::Tensor expected = std::string(op) == "add" ? at::add(a, b) : at::mul(a, b);
    EXPECT_TRUE(tensors_close(runner.result(), expected)) << op;
  }
}

TEST(BinaryOps, DivisionModes) {
  std::mt19937_64 rng(kernel_test_seed() + 2);
  for (at::ScalarType dtype : {at::kFloat, at::kDouble, at::kInt, at::kLong}) {
    at::Tensor a = random_tensor(rng, {5, 6}, dtype, -50, 50);
    at::Tensor b = random_tensor(rng, {6}, dtype, 1, 7);
    if (at::isIntegralType(dtype, false)) b = b * (at::arange(6, at::kLong).remainder(2) * 2 - 1).to(dtype);
    // True division.
    at::Tensor expected = at::div(a, b);
    OpRunner div("aten::div.out");
    div.tensor(a).tensor(b).out(expected.scalar_type(), expected.sizes()).returned();
    ASSERT_EQ(div.run(), "");
    EXPECT_TRUE(tensors_close(div.result(), expected, 1e-7, 0)) << dtype;
    for (const char* mode : {"trunc", "floor"}) {
      at::Tensor rounded = at::div(a, b, mode);
      OpRunner runner("aten::div.out_mode");
      runner.tensor(a).tensor(b).string(mode).out(rounded.scalar_type(), rounded.sizes()).returned();
      ASSERT_EQ(runner.run(), "");
      EXPECT_TRUE(tensors_close(runner.result(), rounded)) << dtype << " " << mode;
    }
  }
  // Integer division by zero is an error, as in ATen.
  at::Tensor a = at::ones({2}, at::kInt);
  at::Tensor zero = at::zeros({2}, at::kInt);
  OpRunner runner("aten::div.out_mode");
  runner.tensor(a).tensor(zero).string("trunc").out(at::kInt, {2}).returned();
  EXPECT_NE(runner.run().find("ZeroDivisionError"), std::string::npos);
}

TEST(BinaryOps, ComparisonsAndExtrema) {
  std::mt19937_64 rng(kernel_test_seed() + 3);
  for (at::ScalarType dtype : {at::kFloat, at::kInt, at::kLong, at::kByte}) {
    at::Tensor a = with_edges(random_tensor(rng, {3, 5}, dtype, 0, 4));
    at::Tensor b = random_tensor(rng, {5}, dtype, 0, 4);
    const std::vector<std::pair<const char*, at::Tensor>> cases = {
        {"eq", at::eq(a, b)}, {"ne", at::ne(a, b)}, {"lt", at::lt(a, b)},
        {"le", at::le(a, b)}, {"gt", at::gt(a, b)}, {"ge", at::ge(a, b)}};
    for (const auto& [name, expected] : cases) {
      OpRunner runner(std::string("aten::") + name + ".Tensor_out");
      runner.tensor(a).tensor(b).out(at::kBool, expected.sizes()).returned();
      ASSERT_EQ(runner.run(), "");
      EXPECT_TRUE(tensors_close(runner.result(), expected)) << name << " " << dtype;
    }
    for (const char* name : {"maximum", "minimum"}) {
      at::Tensor expected = std::string(name) == "maximum" ? at::maximum(a, b) : at::minimum(a, b);
      OpRunner runner(std::string("aten::") + name + ".out");
      runner.tensor(a).tensor(b).out(expected.scalar_type(), expected.sizes()).returned();
      ASSERT_EQ(runner.run(), "");
      EXPECT_TRUE(tensors_close(runner.result(), expected)) << name << " " << dtype;
    }
  }
  at::Tensor a = at::randn({4, 4}, at::kDouble);
  at::Tensor expected = at::gt(a, 0.25);
  OpRunner runner("aten::gt.Scalar_out");
  runner.tensor(a).real(0.25).out(at::kBool, {4, 4}).returned();
  ASSERT_EQ(runner.run(), "");
  EXPECT_TRUE(tensors_close(runner.result(), expected));
}

TEST(BinaryOps, PowRemainderWhere) {
  std::mt19937_64 rng(kernel_test_seed() + 4);
  for (at::ScalarType dtype : {at::kFloat, at::kDouble, at::kInt, at::kLong}) {
    at::Tensor a = random_tensor(rng, {4, 3}, dtype, -5, 5);
    at::Tensor b = random_tensor(rng, {3}, dtype, 0, 4);
    at::Tensor expected = at::pow(a, b);
    OpRunner pow("aten::pow.Tensor_Tensor_out");
    pow.tensor(a).tensor(b).out(expected.scalar_type(), expected.sizes()).returned();
    ASSERT_EQ(pow.run(), "");
    EXPECT_TRUE(tensors_close(pow.result(), expected, 1e-6, 0)) << dtype;
    at::Tensor nonzero = random_tensor(rng, {3}, dtype, 1, 5);
    at::Tensor rem = at::remainder(a, nonzero * -1);
    OpRunner remainder("aten::remainder.Tensor_out");
    remainder.tensor(a).tensor(nonzero * -1).out(rem.scalar_type(), rem.sizes()).returned();
    ASSERT_EQ(remainder.run(), "");
    EXPECT_TRUE(tensors_close(remainder.result(), rem, 1e-6, 1e-6)) << dtype;
  }
  at::Tensor cond = at::randn({3, 1}) > 0;
  at::Tensor x = at::randn({3, 4});
  at::Tensor y = at::randn({4}, at::kDouble);
  at::Tensor expected = at::where(cond, x, y);
  OpRunner where("aten::where.self_out");
  where.tensor(cond).tensor(x).tensor(y).out(expected.scalar_type(), expected.sizes()).returned();
  ASSERT_EQ(where.run(), "");
  EXPECT_TRUE(tensors_close(where.result(), expected));
}

// The paths that read straight: a mask broadcast along the last dim, a
// side that is one value, a transposed (strided) side; and a binary op of a
// tensor with a one-element tensor on either side, in its dtype or another.
TEST(BinaryOps, WhereAndOneValueOperandsMatchLibtorch) {
  at::Tensor scores = at::randn({2, 3, 4, 5});
  at::Tensor row_mask = at::randn({2, 3, 4, 1}) > 0;
  at::Tensor fill = at::full({}, -INFINITY);
  at::Tensor transposed = at::randn({5, 4}).t();
  const std::vector<std::vector<at::Tensor>> cases = {
      {row_mask, scores, fill},
      {at::randn({5}) > 0, transposed, at::randn({4, 1})},
      {at::randn({2, 3, 4, 5}) > 0, fill, scores},
      {row_mask, at::randint(-9, 9, {3, 4, 5}, at::kLong), at::full({}, 7, at::kLong)},
  };
  for (const auto& c : cases) {
    const at::Tensor expected = at::where(c[0], c[1], c[2]);
    OpRunner where("aten::where.self_out");
    where.tensor(c[0]).tensor(c[1]).tensor(c[2]).out(expected.scalar_type(), expected.sizes()).returned();
    ASSERT_EQ(where.run(), "");
    EXPECT_TRUE(tensors_close(where.result(), expected)) << c[0].sizes() << c[1].sizes() << c[2].sizes();
  }
  const at::Tensor x = at::randn({3, 4});
  for (const at::Tensor& one : {at::full({}, 1.5, at::kDouble), at::full({1}, -2.0), at::full({1, 1}, 3.0)}) {
    for (const bool one_first : {false, true}) {
      const at::Tensor a = one_first ? one : x, b = one_first ? x : one;
      const at::Tensor expected = at::sub(a, b);
      OpRunner sub("aten::sub.out");
      sub.tensor(a).tensor(b).integer(1).out(expected.scalar_type(), expected.sizes()).returned();
      ASSERT_EQ(sub.run(), "");
      EXPECT_TRUE(tensors_close(sub.result(), expected)) << one.sizes() << " first " << one_first;
    }
  }
}

TEST(BinaryOps, MaskedFillMatchesLibtorch) {
  // A causal mask broadcast over heads, as attention uses it, and an int
  // tensor whose fill value is cast to its dtype.
  at::Tensor scores = at::randn({2, 3, 4, 4});
  at::Tensor causal = at::tril(at::ones({4, 4})).view({1, 1, 4, 4}) == 0;
  at::Tensor expected = scores.masked_fill(causal, -INFINITY);
  OpRunner fill("aten::masked_fill.Scalar_out");
  fill.tensor(scores).tensor(causal).real(-INFINITY).out(at::kFloat, {2, 3, 4, 4}).returned();
  ASSERT_EQ(fill.run(), "");
  EXPECT_TRUE(tensors_close(fill.result(), expected));

  at::Tensor ints = at::randint(-5, 5, {3, 2}, at::kInt);
  at::Tensor mask = at::randn({2}) > 0;
  OpRunner fill_int("aten::masked_fill.Scalar_out");
  fill_int.tensor(ints).tensor(mask).real(2.7).out(at::kInt, {3, 2}).returned();
  ASSERT_EQ(fill_int.run(), "");
  EXPECT_TRUE(tensors_close(fill_int.result(), ints.masked_fill(mask, 2.7)));

  OpRunner wide_mask("aten::masked_fill.Scalar_out");
  wide_mask.tensor(at::randn({2})).tensor(at::ones({3, 2}, at::kBool)).real(0.0)
      .out(at::kFloat, {2}).returned();
  EXPECT_NE(wide_mask.run().find("does not broadcast"), std::string::npos);
}

TEST(BinaryOps, ErrorsInsteadOfCrashes) {
  at::Tensor a = at::ones({2, 3});
  at::Tensor b = at::ones({4});
  OpRunner bad_shapes("aten::add.out");
  bad_shapes.tensor(a).tensor(b).integer(1).out(at::kFloat, {2, 3}).returned();
  EXPECT_NE(bad_shapes.run().find("cannot be broadcast"), std::string::npos);
  OpRunner bad_cast("aten::add.out");
  bad_cast.tensor(a).tensor(a).integer(1).out(at::kInt, {2, 3}).returned();
  EXPECT_NE(bad_cast.run().find("can't be cast to the out dtype int32"), std::string::npos);
  OpRunner too_small("aten::mul.out");
  too_small.tensor(a).tensor(a).out(at::kFloat, {1, 3}).returned();
  EXPECT_NE(too_small.run().find("planned for it"), std::string::npos);
}

}  // namespace
}  // namespace etkit::test
