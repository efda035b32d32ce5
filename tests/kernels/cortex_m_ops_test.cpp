// cortex_m:: kernels against values derived by hand from CMSIS-NN's
// documented arithmetic (Q31 multiplier, power-of-two shift, rounding half
// away from zero; window sums over in-bounds taps only), and against a
// real-number reference that the integer result may differ from by at
// most one step of rounding.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "../../kernels/cortex_m/cmsis_arithmetic.h"
#include "cmsis_test_tensors.h"
#include "op_runner.h"

namespace etkit {
namespace {

using test::OpRunner;

using test::int8;
using test::int32;
using test::kHalf;
using test::values_of;

TEST(CmsisArithmetic, RequantizeRoundsHalfAwayFromZero) {
  // 100 * 0.5 = 50 exactly.
  EXPECT_EQ(kernels::cmsis::requantize(100, kHalf, 0), 50);
  // 7 * 0.5 / 2 = 1.75 -> 2 (multiply rounds 3.5 up to 4, then 4 / 2).
  EXPECT_EQ(kernels::cmsis::requantize(7, kHalf, -1), 2);
  // -7 * 0.5 / 2 = -1.75 -> -2.
  EXPECT_EQ(kernels::cmsis::requantize(-7, kHalf, -1), -2);
  // A positive shift scales before the multiply: 5 * 2 * 0.5 = 5.
  EXPECT_EQ(kernels::cmsis::requantize(5, kHalf, 1), 5);
  // Ties in the final shift go away from zero: 5 / 2 -> 3, -5 / 2 -> -3.
  EXPECT_EQ(kernels::cmsis::divide_by_power_of_two(5, 1), 3);
  EXPECT_EQ(kernels::cmsis::divide_by_power_of_two(-5, 1), -3);
  EXPECT_EQ(kernels::cmsis::divide_by_power_of_two(-4, 1), -2);
  // Window averages: 11 / 4 = 2.75 -> 3, -11 / 4 -> -3, 10 / 4 = 2.5 -> 3.
  EXPECT_EQ(kernels::cmsis::rounded_average(11, 4), 3);
  EXPECT_EQ(kernels::cmsis::rounded_average(-11, 4), -3);
  EXPECT_EQ(kernels::cmsis::rounded_average(10, 4), 3);
}

TEST(CmsisArithmetic, RequantizeIsWithinOneOfTheRealProduct) {
  std::mt19937_64 rng(test::kernel_test_seed());
  std::uniform_int_distribution<int32_t> acc(-(1 << 20), 1 << 20), mult(1 << 30, std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int32_t> shift(-12, 4);
  for (int i = 0; i < 20000; ++i) {
    const int32_t a = acc(rng), m = mult(rng), s = shift(rng);
    const double real = double(a) * double(m) / 2147483648.0 * std::ldexp(1.0, s);
    EXPECT_LE(std::abs(double(kernels::cmsis::requantize(a, m, s)) - real), 1.0)
        << a << " " << m << " " << s << " (seed " << test::kernel_test_seed() << ")";
  }
}

TEST(CortexMOps, QuantizeRoundsHalfToEvenAndSaturates) {
  OpRunner op("cortex_m::quantize_per_tensor.out");
  op.tensor(at::tensor({0.5f, 1.5f, 2.5f, -1e10f, NAN, 3.0f})).real(1.0).integer(0).integer(-128).integer(127)
      .integer(1).out(at::kChar, {6}).returned();
  ASSERT_EQ(op.run(), "");
  // NaN quantizes to the zero point (the Arm float-to-int conversion gives 0).
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{0, 2, 2, -128, 0, 3}));
}

TEST(CortexMOps, DequantizeSubtractsTheZeroPointThenScales) {
  OpRunner op("cortex_m::dequantize_per_tensor.out");
  op.tensor(int8({-128, 0, 5}, {3})).real(0.5).integer(2).integer(-128).integer(127).integer(1)
      .out(at::kFloat, {3}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_TRUE(test::tensors_close(op.result(), at::tensor({-65.f, -1.f, 1.5f}), 0, 0));
}

TEST(CortexMOps, Conv2dByHand) {
  // x = [1, 2, 3, 4] + input offset 1 -> [2, 3, 4, 5]; one 1x1 filter of 2;
  // bias 10: 14, 16, 18, 20; x 0.5: 7, 8, 9, 10; output offset -3: 4..7;
  // clamped to at most 5.
  OpRunner op("cortex_m::quantized_conv2d.out");
  op.tensor(int8({1, 2, 3, 4}, {1, 1, 2, 2})).tensor(int8({2}, {1, 1, 1, 1})).tensor(int32({10}))
      .ints({1, 1}).ints({0, 0}).ints({1, 1}).integer(1).integer(-3).tensor(int32({kHalf})).tensor(int32({0}))
      .integer(-128).integer(5).tensor(at::zeros({0}, at::kChar))
      .out(at::kChar, {1, 1, 2, 2}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{4, 5, 5, 5}));
}

TEST(CortexMOps, DepthwiseConvWithMultiplierAndPaddingByHand) {
  // One input channel, one pixel (3), a 3x3 window with padding 1: only the
  // centre tap is in bounds. Depth multiplier 2: centre weights 2 and -1;
  // x 1.0 (Q31 0.5, shift 1): 6 and -3.
  std::vector<int64_t> weights(18, 9);  // [1, 3, 3, 2]: 9 outside the centre
  weights[8] = 2;
  weights[9] = -1;
  OpRunner op("cortex_m::quantized_depthwise_conv2d.out");
  op.tensor(int8({3}, {1, 1, 1, 1})).tensor(int8(weights, {1, 3, 3, 2})).optional_tensor(nullptr)
      .ints({1, 1}).ints({1, 1}).ints({1, 1}).integer(2).integer(0).integer(0)
      .tensor(int32({kHalf, kHalf})).tensor(int32({1, 1})).integer(-128).integer(127).tensor(at::zeros({0}, at::kChar))
      .out(at::kChar, {1, 2, 1, 1}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{6, -3}));
}

TEST(CortexMOps, ConvMatchesTheRealNumberReferenceWithinOneStep) {
  std::mt19937_64 rng(test::kernel_test_seed());
  const at::Tensor x = test::random_tensor(rng, {1, 3, 6, 5}, at::kChar, -128, 128);
  const at::Tensor w = test::random_tensor(rng, {4, 3, 3, 3}, at::kChar, -128, 128);  // OHWI
  const at::Tensor bias = test::random_tensor(rng, {4}, at::kInt, -5000, 5000);
  const std::vector<int64_t> mults{1518500250, 1200000000, 2000000000, 1073741824}, shifts{-9, -8, -10, -7};
  OpRunner op("cortex_m::quantized_conv2d.out");
  op.tensor(x.contiguous(at::MemoryFormat::ChannelsLast)).tensor(w).tensor(bias).ints({2, 1}).ints({1, 1})
      .ints({1, 1}).integer(5).integer(-7).tensor(int32(mults)).tensor(int32(shifts)).integer(-128).integer(127)
      .tensor(at::zeros({0}, at::kChar)).out(at::kChar, {1, 4, 3, 5}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(op.run(), "");
  const at::Tensor y = op.result().to(at::kLong);
  const auto xa = x.accessor<int8_t, 4>();
  const auto wa = w.accessor<int8_t, 4>();
  for (int64_t oc = 0; oc < 4; ++oc)
    for (int64_t oh = 0; oh < 3; ++oh)
      for (int64_t ow = 0; ow < 5; ++ow) {
        double acc = bias[oc].item<int32_t>();
        for (int64_t kh = 0; kh < 3; ++kh)
          for (int64_t kw = 0; kw < 3; ++kw)
            for (int64_t ic = 0; ic < 3; ++ic) {
              const int64_t ih = oh * 2 - 1 + kh, iw = ow - 1 + kw;
              if (ih >= 0 && ih < 6 && iw >= 0 && iw < 5) acc += (xa[0][ic][ih][iw] + 5.0) * wa[oc][kh][kw][ic];
            }
        const double real = acc * double(mults[oc]) / 2147483648.0 * std::ldexp(1.0, int(shifts[oc])) - 7;
        const double expected = std::min(127.0, std::max(-128.0, real));
        EXPECT_LE(std::abs(double(y[0][oc][oh][ow].item<int64_t>()) - expected), 1.0) << oc << " " << oh << " " << ow;
      }
}

TEST(CortexMOps, LinearByHand) {
  // x = (1, -1) + 1 -> (2, 0); rows (3, 4) and (1, 1); bias (1, 0): 7, 2;
  // x 1.0: 7, 2; output offset 23: 30, 25.
  OpRunner op("cortex_m::quantized_linear.out");
  op.tensor(int8({1, -1}, {1, 2})).tensor(int8({3, 4, 1, 1}, {2, 2})).tensor(int32({1, 0})).none()
      .integer(1).integer(0).integer(23).ints({kHalf}).ints({1}).integer(127).integer(-128)
      .out(at::kChar, {1, 2}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{30, 25}));
}

TEST(CortexMOps, AvgPoolCountsOnlyInBoundsTaps) {
  // 2x2 windows over [[1, 2], [3, 5]]: 11 / 4 -> 3. With padding 1 and a 2x2
  // window at stride 2, each window holds one element: the input itself.
  OpRunner whole("cortex_m::quantized_avg_pool2d.out");
  whole.tensor(int8({1, 2, 3, 5}, {1, 1, 2, 2})).ints({2, 2}).ints({2, 2}).ints({0, 0}).boolean(false)
      .integer(0).integer(0).integer(0).tensor(at::zeros({0}, at::kChar)).out(at::kChar, {1, 1, 1, 1}).returned();
  ASSERT_EQ(whole.run(), "");
  EXPECT_EQ(values_of(whole.result()), (std::vector<int64_t>{3}));
  OpRunner padded("cortex_m::quantized_avg_pool2d.out");
  padded.tensor(int8({-1, -2, -3, -5}, {1, 1, 2, 2})).ints({2, 2}).ints({2, 2}).ints({1, 1}).boolean(false)
      .integer(0).integer(0).integer(0).tensor(at::zeros({0}, at::kChar)).out(at::kChar, {1, 1, 2, 2}).returned();
  ASSERT_EQ(padded.run(), "");
  EXPECT_EQ(values_of(padded.result()), (std::vector<int64_t>{-1, -2, -3, -5}));
}

TEST(CortexMOps, PadWritesTheValueAroundTheInput) {
  OpRunner op("cortex_m::pad.out");
  op.tensor(int8({1, 2}, {1, 1, 1, 2})).ints({0, 0, 0, 1}).ints({0, 0, 1, 1}).integer(-128)
      .out(at::kChar, {1, 1, 2, 4}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(values_of(op.result()), (std::vector<int64_t>{-128, 1, 2, -128, -128, -128, -128, -128}));
}

TEST(CortexMOps, MisshapenArgumentsFailNamingTheOp) {
  OpRunner op("cortex_m::quantized_conv2d.out");
  op.tensor(int8({1, 2, 3, 4}, {1, 1, 2, 2})).tensor(int8({2}, {1, 1, 1, 1})).tensor(int32({10, 11}))
      .ints({1, 1}).ints({0, 0}).ints({1, 1}).integer(0).integer(0).tensor(int32({kHalf})).tensor(int32({0}))
      .integer(-128).integer(127).tensor(at::zeros({0}, at::kChar)).out(at::kChar, {1, 1, 2, 2}).returned();
  const std::string error = op.run();
  EXPECT_NE(error.find("bias must be 1 int32 values"), std::string::npos) << error;
  EXPECT_NE(error.find("cortex_m::quantized_conv2d.out"), std::string::npos) << error;
}

TEST(CortexMOps, ConvolutionShiftsBeyond31AreRefusedNamingTheChannel) {
  OpRunner op("cortex_m::quantized_conv2d.out");
  op.tensor(int8({1, 2, 3, 4}, {1, 1, 2, 2})).tensor(int8({2}, {1, 1, 1, 1})).tensor(int32({10}))
      .ints({1, 1}).ints({0, 0}).ints({1, 1}).integer(0).integer(0).tensor(int32({kHalf})).tensor(int32({40}))
      .integer(-128).integer(127).tensor(at::zeros({0}, at::kChar)).out(at::kChar, {1, 1, 2, 2}).returned();
  EXPECT_NE(op.run().find("requantize shift 40 (channel 0) is outside [-31, 31]"), std::string::npos);
}

}  // namespace
}  // namespace etkit
