// The prim ops added with upstream's full prim list (rounding of scalars,
// sym_* ops, _local_scalar_dense, et_view, et_copy_index) and the creation
// ops without a dtype case (empty, _empty_dim_order, rand, randn,
// view_as_real_copy). References: Python's rules for scalars (hand-derived
// values), libtorch for tensors.

#include <gtest/gtest.h>

#include <cmath>

#include "op_runner.h"

namespace etkit::test {
namespace {

const Value& run_scalar(OpRunner& op, size_t result_index) {
  EXPECT_EQ(op.run(), "");
  return op.arg(result_index);
}

TEST(PrimOps, CeilRoundTruncGiveIntsAsPython) {
  // Python: math.ceil, round (half to even) and math.trunc of doubles.
  const struct {
    double x;
    int64_t ceil, round, trunc;
  } cases[] = {{2.5, 3, 2, 2}, {3.5, 4, 4, 3}, {-2.5, -2, -2, -2}, {-3.5, -3, -4, -3},
               {1.2, 2, 1, 1}, {-1.7, -1, -2, -1}, {0.5, 1, 0, 0},  {-0.5, 0, 0, 0}};
  for (const auto& c : cases) {
    OpRunner ceil("executorch_prim::ceil.Scalar"), round("executorch_prim::round.Scalar"),
        trunc("executorch_prim::trunc.Scalar");
    EXPECT_EQ(run_scalar(ceil.real(c.x).none(), 1).unchecked_int(), c.ceil) << c.x;
    EXPECT_EQ(run_scalar(round.real(c.x).none(), 1).unchecked_int(), c.round) << c.x;
    EXPECT_EQ(run_scalar(trunc.real(c.x).none(), 1).unchecked_int(), c.trunc) << c.x;
  }
  OpRunner int_stays("executorch_prim::round.Scalar");
  EXPECT_EQ(run_scalar(int_stays.integer(-7).none(), 1).unchecked_int(), -7);
  OpRunner too_big("executorch_prim::ceil.Scalar");
  too_big.real(1e300).none();
  EXPECT_NE(too_big.run().find("cannot convert"), std::string::npos);
}

TEST(PrimOps, SymOps) {
  OpRunner max("executorch_prim::sym_max.Scalar"), min("executorch_prim::sym_min.Scalar");
  EXPECT_EQ(run_scalar(max.integer(3).integer(-9).none(), 2).unchecked_int(), 3);
  EXPECT_EQ(run_scalar(min.integer(3).integer(-9).none(), 2).unchecked_int(), -9);
  OpRunner max_double("executorch_prim::sym_max.Scalar");
  max_double.real(1.5).integer(2).none();
  EXPECT_NE(max_double.run().find("only supports int inputs"), std::string::npos);
  OpRunner to_float("executorch_prim::sym_float.Scalar"), to_int("executorch_prim::sym_int.Scalar");
  EXPECT_EQ(run_scalar(to_float.integer(7).none(), 1).unchecked_double(), 7.0);
  EXPECT_EQ(run_scalar(to_int.real(-7.9).none(), 1).unchecked_int(), -7);  // int() truncates
  OpRunner not_op("executorch_prim::sym_not.Scalar");
  EXPECT_EQ(run_scalar(not_op.boolean(true).none(), 1).unchecked_bool(), false);
  OpRunner ite_true("executorch_prim::sym_ite.Scalar"), ite_false("executorch_prim::sym_ite.Scalar");
  EXPECT_EQ(run_scalar(ite_true.boolean(true).integer(4).real(2.5).none(), 3).unchecked_int(), 4);
  EXPECT_EQ(run_scalar(ite_false.boolean(false).integer(4).real(2.5).none(), 3).unchecked_double(), 2.5);
}

TEST(PrimOps, LocalScalarDenseTakesTheOneElementInEveryDtype) {
  for (at::ScalarType dtype : {at::kByte, at::kChar, at::kShort, at::kInt, at::kLong, at::kHalf, at::kBFloat16,
                               at::kFloat, at::kDouble, at::kBool}) {
    const at::Tensor t = at::full({1, 1}, 3, at::TensorOptions().dtype(dtype));
    OpRunner op("aten::_local_scalar_dense");
    const Value& v = run_scalar(op.tensor(t).none(), 1);
    const at::Scalar expected = t.item();  // ATen's item(): the same rule
    if (dtype == at::kBool) {
      EXPECT_EQ(v.unchecked_bool(), expected.toBool());
    } else if (at::isIntegralType(dtype, false)) {
      EXPECT_EQ(v.unchecked_int(), expected.toLong()) << dtype;
    } else {
      EXPECT_EQ(v.unchecked_double(), expected.toDouble()) << dtype;
    }
  }
  OpRunner two("aten::_local_scalar_dense");
  two.tensor(at::ones({2})).none();
  EXPECT_NE(two.run().find("2 elements cannot be converted"), std::string::npos);
}

TEST(PrimOps, EtViewSharesSelfsMemory) {
  const at::Tensor self = at::arange(24, at::kFloat).reshape({2, 12});
  OpRunner op("executorch_prim::et_view.default");
  op.tensor(self).ints({3, -1, 2}).out(at::kFloat, {0, 0, 0});
  ASSERT_EQ(op.run(), "");
  const Tensor& out = op.arg(2).unchecked_tensor();
  EXPECT_EQ(out.data(), self.data_ptr());  // a view, not a copy
  EXPECT_TRUE(tensors_close(op.result(), self.reshape({3, 4, 2})));
  OpRunner bad("executorch_prim::et_view.default");
  bad.tensor(self).ints({5, -1, 0}).out(at::kFloat, {0, 0, 0});
  EXPECT_NE(bad.run().find("Cannot infer dimension size if there is a zero dim"), std::string::npos);
}

TEST(PrimOps, EtCopyIndexGrowsTheStackedOutput) {
  // As control-flow map's loop: iteration i writes row i.
  const at::Tensor rows = at::randn({3, 4});
  // One runner per iteration; the grown result carries over.
  at::Tensor stacked = at::zeros({3, 4});
  for (int64_t i = 0; i < 3; ++i) {
    OpRunner step("executorch_prim::et_copy_index.tensor");
    step.inout(stacked).tensor(rows[i]).integer(i);
    ASSERT_EQ(step.run(), "");
    const at::Tensor grown = step.result(0);
    EXPECT_EQ(grown.size(0), i + 1);
    EXPECT_TRUE(tensors_close(grown[i], rows[i]));
    stacked.narrow(0, 0, i + 1).copy_(grown);
  }
  EXPECT_TRUE(tensors_close(stacked, rows));
  OpRunner negative("executorch_prim::et_copy_index.tensor");
  negative.inout(stacked).tensor(rows[0]).integer(-1);
  EXPECT_NE(negative.run().find("non-negative"), std::string::npos);
}

TEST(CreationOps, EmptyTakesTheShapeAndDimOrder) {
  OpRunner empty("aten::empty.out");
  empty.ints({2, 3}).none().out(at::kFloat, {6}).returned();
  // The out was allocated as 1-D: the rank must match, as for any resize.
  EXPECT_NE(empty.run(), "");
  OpRunner shaped("aten::empty.out");
  shaped.ints({2, 3}).none().out(at::kInt, {4, 4}).returned();
  ASSERT_EQ(shaped.run(), "");
  EXPECT_EQ(shaped.result().sizes(), (at::IntArrayRef{2, 3}));
  OpRunner channels_last("dim_order_ops::_empty_dim_order.out");
  channels_last.ints({1, 3, 4, 5}).ints({0, 2, 3, 1}).out(at::kFloat, {1, 3, 4, 5}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(channels_last.run(), "");
  OpRunner mismatch("dim_order_ops::_empty_dim_order.out");
  mismatch.ints({1, 3, 4, 5}).ints({0, 2, 3, 1}).out(at::kFloat, {1, 3, 4, 5}).returned();
  EXPECT_NE(mismatch.run().find("dim_order does not match"), std::string::npos);
}

TEST(CreationOps, RandAndRandnDrawTheirDistributionsReproducibly) {
  for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
    OpRunner rand("aten::rand.out"), again("aten::rand.out"), randn("aten::randn.out");
    rand.ints({200, 100}).out(dtype, {200, 100}).returned();
    again.ints({200, 100}).out(dtype, {200, 100}).returned();
    randn.ints({200, 100}).out(dtype, {200, 100}).returned();
    ASSERT_EQ(rand.run(), "");
    ASSERT_EQ(again.run(), "");
    ASSERT_EQ(randn.run(), "");
    const at::Tensor u = rand.result().to(at::kDouble), n = randn.result().to(at::kDouble);
    EXPECT_TRUE(at::equal(rand.result(), again.result()));  // seeded the same at every call
    EXPECT_GE(u.min().item<double>(), 0.0);
    EXPECT_LT(u.max().item<double>(), 1.0);
    // 20,000 draws: the mean and variance within 5 standard errors.
    EXPECT_NEAR(u.mean().item<double>(), 0.5, 5 * std::sqrt(1.0 / 12 / 20000));
    EXPECT_NEAR(u.var().item<double>(), 1.0 / 12, 0.004);
    EXPECT_NEAR(n.mean().item<double>(), 0.0, 5 * std::sqrt(1.0 / 20000));
    EXPECT_NEAR(n.var().item<double>(), 1.0, 0.05);
  }
  OpRunner ints("aten::rand.out");
  ints.ints({3}).out(at::kLong, {3}).returned();
  EXPECT_NE(ints.run().find("expects a floating out"), std::string::npos);
}

// Data-dependent sizes: a result larger than the out's planned capacity is
// an error naming the op, never a write past the out.
TEST(DataDependentOps, AResultPastTheOutsCapacityFailsNamingTheOp) {
  const at::Tensor x = at::arange(12, at::kFloat).reshape({3, 4});
  OpRunner select("aten::masked_select.out");
  select.tensor(x).tensor(x.gt(2)).out(at::kFloat, {4}).returned();  // 9 selected, room for 4
  const std::string error = select.run();
  EXPECT_NE(error.find("aten::masked_select.out"), std::string::npos) << error;
  OpRunner nonzero("aten::nonzero.out");
  nonzero.tensor(x).out(at::kLong, {5, 2}).returned();  // 11 non-zero, room for 5
  EXPECT_NE(nonzero.run().find("aten::nonzero.out"), std::string::npos);
  OpRunner fits("aten::nonzero.out");
  fits.tensor(x).out(at::kLong, {12, 2}).returned();
  ASSERT_EQ(fits.run(), "");
  EXPECT_TRUE(at::equal(fits.result(), at::nonzero(x)));
}

TEST(ComplexOps, ViewAsRealAndConjPhysicalInComplex64And128) {
  for (at::ScalarType dtype : {at::kComplexFloat, at::kComplexDouble}) {
    const at::Tensor z = at::randn({3, 4}, at::TensorOptions().dtype(dtype));
    OpRunner real("aten::view_as_real_copy.out");
    real.tensor(z).out(at::toRealValueType(dtype), {3, 4, 2}).returned();
    ASSERT_EQ(real.run(), "");
    EXPECT_TRUE(at::equal(real.result(), at::view_as_real(z)));
    OpRunner conj("aten::_conj_physical.out");
    conj.tensor(z).out(dtype, {3, 4}).returned();
    ASSERT_EQ(conj.run(), "");
    EXPECT_TRUE(at::equal(conj.result(), at::_conj_physical(z)));
  }
  OpRunner not_complex("aten::view_as_real_copy.out");
  not_complex.tensor(at::ones({2})).out(at::kFloat, {2, 2}).returned();
  EXPECT_NE(not_complex.run().find("only supported for complex tensors"), std::string::npos);
}

}  // namespace
}  // namespace etkit::test
