// cortex_m:: elementwise, softmax, transpose, transposed convolution,
// batch matmul and max pooling: values derived by hand from CMSIS-NN's
// documented integer arithmetic, libtorch (float products of small
// integers are exact) as the real-number reference within one output
// step, and published values of CMSIS-NN's fixed-point exp and reciprocal.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../../kernels/cortex_m/cmsis_arithmetic.h"
#include "cmsis_test_tensors.h"
#include "op_runner.h"

namespace etkit {
namespace {

using test::OpRunner;
namespace cmsis = kernels::cmsis;

using test::int8;
using test::int32;
using test::kHalf;
using test::values_of;

TEST(CmsisFixedPoint, ExpAndReciprocalMatchPublishedValues) {
  // Input -> output pairs of CMSIS-NN's arm_nn_exp_on_negative_values and
  // arm_nn_one_over_one_plus_x_for_x_in_0_1, as listed by a third-party
  // CMSIS-NN test generator (AmbiqAI/ns-cmsis-nn).
  const std::pair<int32_t, int32_t> exps[] = {{0, 2147483647},          {-1, 2147483124},
                                              {-256, 2147474965},       {-65536, 2145387047},
                                              {-1048576, 2114189749},   {-16777216, 1672462419},
                                              {-67108864, 790015308},   {-268435456, 39332546},
                                              {-1073741824, 242}};
  for (const auto& [in, out] : exps) EXPECT_EQ(cmsis::exp_on_negative_values(in), out) << in;
  const std::pair<int32_t, int32_t> reciprocals[] = {
      {0, 2147483647},          {1, 2147483647},          {65536, 2147418112},
      {16777216, 2130836488},   {268435456, 1908874352},  {536870912, 1717986914},
      {1073741824, 1431655762}, {1610612736, 1227133516}, {2147483647, 1073741820}};
  for (const auto& [in, out] : reciprocals) EXPECT_EQ(cmsis::one_over_one_plus_x(in), out) << in;
  // And against the real functions: exp(v / 2^26) in Q31, 1 / (1 + v / 2^31) / 2 in Q31.
  for (int32_t v = 0; v > -(1 << 30); v -= 9876543) {
    EXPECT_NEAR(cmsis::exp_on_negative_values(v) / 2147483648.0, std::exp(v / 67108864.0), 1e-6) << v;
  }
  for (int32_t v = 0; v < (1 << 30); v += 9876543) {
    EXPECT_NEAR(cmsis::one_over_one_plus_x(v) / 2147483648.0, 1.0 / (1.0 + v / 2147483648.0), 1e-6) << v;
  }
}

TEST(CortexMElementwise, AddRequantizesEachInputThenTheSum) {
  // Inputs scaled by 0.5 after the 2^20 lift, the sum by 0.5 / 2^18: a + b.
  // b is one value per channel, broadcast over a's [1, 2, 1, 2] (channels last).
  OpRunner op("cortex_m::quantized_add.out");
  op.tensor(int8({1, 2, 3, 4}, {1, 2, 1, 2}).contiguous(at::MemoryFormat::ChannelsLast)).integer(0).integer(kHalf)
      .integer(0).tensor(int8({10, 20}, {1, 2, 1, 1})).integer(0).integer(kHalf).integer(0).integer(0)
      .integer(kHalf).integer(-18).integer(-128).integer(23)
      .out(at::kChar, {1, 2, 1, 2}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{11, 12, 23, 23}));  // 24 clamps to 23
  // Zero points and an output offset: (10 - 2) and (6 + 2) halved twice = 4, + 1.
  OpRunner zp("cortex_m::quantized_add.out");
  zp.tensor(int8({10}, {1})).integer(2).integer(kHalf).integer(0).tensor(int8({6}, {1})).integer(-2)
      .integer(kHalf).integer(0).integer(1).integer(kHalf).integer(-20).integer(-128).integer(127)
      .out(at::kChar, {1}).returned();
  ASSERT_EQ(zp.run(), "");
  EXPECT_EQ(values_of(zp.result()), (std::vector<int64_t>{5}));
}

TEST(CortexMElementwise, MulDivAndActivationByHand) {
  // (3 - 1) * 4 = 8 and (-2 - 1) * 5 = -15, halved: 4 and -7.5 -> -7 (the
  // doubling multiply rounds half up).
  OpRunner mul("cortex_m::quantized_mul.out");
  mul.tensor(int8({3, -2}, {2})).integer(1).tensor(int8({4, 5}, {2})).integer(0).integer(0).integer(kHalf)
      .integer(0).out(at::kChar, {2}).returned();
  ASSERT_EQ(mul.run(), "");
  EXPECT_EQ(values_of(mul.result()), (std::vector<int64_t>{4, -7}));
  // (x - 1) / y: 6/3 = 2, 3/0 -> 0, 5/2 = 2.5 -> 3, -5/2 -> -3 (half away from zero).
  OpRunner div("cortex_m::quantized_div.out");
  div.tensor(int8({7, 4, 6, -4}, {4})).integer(1).tensor(int8({3, 0, 2, 2}, {4})).integer(0).integer(0).real(1.0)
      .out(at::kChar, {4}).returned();
  ASSERT_EQ(div.run(), "");
  EXPECT_EQ(values_of(div.result()), (std::vector<int64_t>{2, 0, 3, -3}));
  OpRunner wide("cortex_m::quantized_div.out");
  wide.tensor(int8({30001}, {1}, at::kShort)).integer(0).tensor(int8({1}, {1}, at::kShort)).integer(0).integer(0)
      .real(2.0).out(at::kShort, {1}).returned();
  ASSERT_EQ(wide.run(), "");
  EXPECT_EQ(values_of(wide.result()), (std::vector<int64_t>{32767}));
  // The table is indexed by input + 128: lut[k] = 127 - k.
  std::vector<int64_t> table(256);
  for (int k = 0; k < 256; ++k) table[size_t(k)] = 127 - k;
  OpRunner lut("cortex_m::quantized_activation.out");
  lut.tensor(int8({-128, 127, 0}, {3})).tensor(int8(table, {256})).out(at::kChar, {3}).returned();
  ASSERT_EQ(lut.run(), "");
  EXPECT_EQ(values_of(lut.result()), (std::vector<int64_t>{127, -128, -1}));
}

// Found by the execute_generated fuzzer: a shift of 623191334 reached a
// 64-bit shift. The arithmetic is total (past 31 every value rounds to 0),
// and the kernels refuse such shifts.
TEST(CortexMElementwise, OutOfRangeShiftsAreRefusedAndTheArithmeticStaysDefined) {
  EXPECT_EQ(cmsis::divide_by_power_of_two(1000, 40), 0);
  EXPECT_EQ(cmsis::divide_by_power_of_two(-1000, 623191334), 0);
  EXPECT_EQ(cmsis::requantize(5, kHalf, 40), 0);  // 5 << 40 wraps away in 32 bits
  for (const int64_t shift : {int64_t(32), int64_t(-32), int64_t(623191334)}) {
    OpRunner mul("cortex_m::quantized_mul.out");
    mul.tensor(int8({3}, {1})).integer(0).tensor(int8({4}, {1})).integer(0).integer(0).integer(kHalf)
        .integer(shift).out(at::kChar, {1}).returned();
    EXPECT_NE(mul.run().find("outside [-31, 31]"), std::string::npos) << shift;
  }
}

TEST(CortexMElementwise, MinimumAndMaximumBroadcast) {
  const at::Tensor a = int8({1, 5}, {2, 1}), b = int8({2, 3, 4}, {3});
  for (bool maximum : {false, true}) {
    OpRunner op(maximum ? "cortex_m::maximum.out" : "cortex_m::minimum.out");
    op.tensor(a).tensor(b).out(at::kChar, {2, 3}).returned();
    ASSERT_EQ(op.run(), "");
    EXPECT_EQ(values_of(op.result()), values_of(maximum ? at::maximum(a, b) : at::minimum(a, b)));
  }
}

TEST(CortexMSoftmax, EqualLogitsGiveAQuarterEach) {
  // exp(0) = 1 four times: 1/4 in Q0.8 is 64, minus 128.
  OpRunner op("cortex_m::softmax.out");
  op.tensor(int8({5, 5, 5, 5}, {1, 4})).integer(-1).integer(0).integer(-128).integer(kHalf).integer(23)
      .integer(-255).out(at::kChar, {1, 4}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{-64, -64, -64, -64}));
}

TEST(CortexMSoftmax, MatchesTheRealSoftmaxWithinOneStep) {
  // Input scale 1/16: diff * 2^23 * 0.5 = diff / 16 in Q5.26.
  std::mt19937_64 rng(test::kernel_test_seed());
  const at::Tensor x = test::random_tensor(rng, {6, 10}, at::kChar, -128, 128);
  OpRunner op("cortex_m::softmax.out");
  op.tensor(x).integer(1).integer(0).integer(-128).integer(kHalf).integer(23).integer(-255)
      .out(at::kChar, {6, 10}).returned();
  ASSERT_EQ(op.run(), "");
  const at::Tensor real = at::softmax(x.to(at::kDouble) / 16.0, 1) * 256.0 - 128.0;
  const at::Tensor gap = (op.result().to(at::kDouble) - real.clamp(-128, 127)).abs();
  EXPECT_LE(gap.max().item<double>(), 1.0) << "seed " << test::kernel_test_seed();
  // Two classes, small differences (the sums of their probabilities near 1).
  const at::Tensor pairs = test::random_tensor(rng, {50, 2}, at::kChar, -20, 20);
  OpRunner two("cortex_m::softmax.out");
  two.tensor(pairs).integer(1).integer(0).integer(-128).integer(kHalf).integer(23).integer(-255)
      .out(at::kChar, {50, 2}).returned();
  ASSERT_EQ(two.run(), "");
  const at::Tensor real_pairs = at::softmax(pairs.to(at::kDouble) / 16.0, 1) * 256.0 - 128.0;
  EXPECT_LE((two.result().to(at::kDouble) - real_pairs.clamp(-128, 127)).abs().max().item<double>(), 1.0)
      << two.result().slice(0, 0, 4) << real_pairs.slice(0, 0, 4);
  OpRunner wrong("cortex_m::softmax.out");
  wrong.tensor(x).integer(0).integer(0).integer(-128).integer(kHalf).integer(23).integer(-255)
      .out(at::kChar, {6, 10}).returned();
  EXPECT_NE(wrong.run().find("last dimension"), std::string::npos);
}

TEST(CortexMLayout, TransposeMatchesPermute) {
  std::mt19937_64 rng(test::kernel_test_seed());
  const at::Tensor x = test::random_tensor(rng, {2, 3, 4, 5}, at::kChar, -128, 128);
  OpRunner op("cortex_m::transpose.out");
  op.tensor(x).ints({0, 2, 3, 1}).out(at::kChar, {2, 4, 5, 3}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), values_of(x.permute({0, 2, 3, 1})));
  OpRunner bad("cortex_m::transpose.out");
  bad.tensor(x).ints({0, 1, 1, 2}).out(at::kChar, {2, 3, 3, 4}).returned();
  EXPECT_NE(bad.run().find("not a permutation"), std::string::npos);
}

TEST(CortexMConv, TransposeConvMatchesLibtorchWithinOneStep) {
  std::mt19937_64 rng(test::kernel_test_seed());
  const at::Tensor x = test::random_tensor(rng, {1, 3, 4, 5}, at::kChar, -128, 128);
  const at::Tensor w = test::random_tensor(rng, {2, 3, 3, 3}, at::kChar, -128, 128);  // OHWI
  const at::Tensor bias = test::random_tensor(rng, {2}, at::kInt, -5000, 5000);
  const std::vector<int64_t> mults{1518500250, 1200000000}, shifts{-9, -10};
  // stride 2, padding 1, output_padding 1, dilation 1: (4 - 1) * 2 - 2 + 2 + 1 + 1 = 8 rows, 10 columns.
  OpRunner op("cortex_m::quantized_transpose_conv2d.out");
  op.tensor(x.contiguous(at::MemoryFormat::ChannelsLast)).tensor(w).tensor(bias).ints({2, 2}).ints({1, 1})
      .ints({1, 1}).ints({1, 1}).integer(3).integer(-5).tensor(int32(mults)).tensor(int32(shifts)).integer(-128)
      .integer(127).tensor(at::zeros({0}, at::kChar)).tensor(at::zeros({0}, at::kChar))
      .out(at::kChar, {1, 2, 8, 10}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(op.run(), "");
  // libtorch's weight layout is [C_in, C_out, KH, KW].
  const at::Tensor acc = at::conv_transpose2d(x.to(at::kDouble) + 3.0, w.to(at::kDouble).permute({3, 0, 1, 2}),
                                              bias.to(at::kDouble), {2, 2}, {1, 1}, {1, 1}, 1, {1, 1});
  const at::Tensor scale = at::tensor({double(mults[0]) / 2147483648.0 / 512, double(mults[1]) / 2147483648.0 / 1024},
                                      at::kDouble).reshape({1, 2, 1, 1});
  const at::Tensor real = (acc * scale - 5.0).clamp(-128, 127);
  EXPECT_LE((op.result().to(at::kDouble) - real).abs().max().item<double>(), 1.0)
      << "seed " << test::kernel_test_seed();
}

TEST(CortexMMatmul, BatchMatmulByHandAndAgainstLibtorch) {
  // [1, 2] . [3, 4] = 11, halved: 5.5 -> 6.
  OpRunner op("cortex_m::quantized_batch_matmul.out");
  op.tensor(int8({1, 2}, {1, 1, 2})).integer(0).tensor(int8({3, 4}, {1, 1, 2})).integer(0).integer(0)
      .integer(kHalf).integer(0).tensor(at::zeros({0}, at::kChar)).out(at::kChar, {1, 1, 1}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{6}));
  std::mt19937_64 rng(test::kernel_test_seed());
  const at::Tensor a = test::random_tensor(rng, {2, 3, 16}, at::kChar, -128, 128);
  const at::Tensor b = test::random_tensor(rng, {2, 5, 16}, at::kChar, -128, 128);
  OpRunner big("cortex_m::quantized_batch_matmul.out");
  big.tensor(a).integer(7).tensor(b).integer(-3).integer(2).integer(1300000000).integer(-8)
      .tensor(at::zeros({0}, at::kChar)).out(at::kChar, {2, 3, 5}).returned();
  ASSERT_EQ(big.run(), "");
  const at::Tensor acc = at::bmm(a.to(at::kDouble) + 7, (b.to(at::kDouble) - 3).transpose(1, 2));
  const at::Tensor real = (acc * (1300000000.0 / 2147483648.0 / 256) + 2).clamp(-128, 127);
  EXPECT_LE((big.result().to(at::kDouble) - real).abs().max().item<double>(), 1.0);
}

TEST(CortexMPooling, MaxPoolTakesInBoundsTapsThenClamps) {
  // 2x2 windows, stride 2: max(1, -3, 7, 2) = 7 -> clamped to 6; max(5, 0, -1, 4) = 5.
  OpRunner op("cortex_m::quantized_max_pool2d.out");
  op.tensor(int8({1, -3, 5, 0, 7, 2, -1, 4}, {1, 1, 2, 4}).contiguous(at::MemoryFormat::ChannelsLast))
      .ints({2, 2}).ints({2, 2}).ints({0, 0}).ints({1, 1}).boolean(false).integer(-3).integer(-3).integer(-128)
      .integer(6).out(at::kChar, {1, 1, 1, 2}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{6, 5}));
  // Padding never wins; against libtorch on random data (no clamp).
  std::mt19937_64 rng(test::kernel_test_seed());
  const at::Tensor x = test::random_tensor(rng, {1, 3, 7, 6}, at::kChar, -128, 128);
  OpRunner big("cortex_m::quantized_max_pool2d.out");
  big.tensor(x.contiguous(at::MemoryFormat::ChannelsLast)).ints({3, 3}).ints({2, 2}).ints({1, 1}).ints({1, 1})
      .boolean(false).integer(0).integer(0).integer(-128).integer(127)
      .out(at::kChar, {1, 3, 4, 3}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(big.run(), "");
  EXPECT_EQ(values_of(big.result()), values_of(at::max_pool2d(x.to(at::kFloat), {3, 3}, {2, 2}, {1, 1})));
  OpRunner zp("cortex_m::quantized_max_pool2d.out");
  zp.tensor(x).ints({3, 3}).ints({2, 2}).ints({1, 1}).ints({1, 1}).boolean(false).integer(0).integer(1)
      .integer(-128).integer(127).out(at::kChar, {1, 3, 4, 3}).returned();
  EXPECT_NE(zp.run().find("zero points"), std::string::npos);
}

}  // namespace
}  // namespace etkit
