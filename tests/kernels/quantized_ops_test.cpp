// quantized_decomposed:: kernels against values derived by hand from the
// documented formulas (round half to even, clamping, nibble order, the
// choose_qparams rules), and against libtorch composing the same formulas
// from ATen ops on random inputs.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "op_runner.h"

namespace etkit {
namespace {

using test::OpRunner;
using test::tensors_close;

at::Tensor bytes(std::vector<int64_t> values, at::IntArrayRef sizes, at::ScalarType type = at::kByte) {
  return at::tensor(values, at::kLong).to(type).reshape(sizes).contiguous();
}
std::vector<double> doubles_of(const at::Tensor& t) {
  at::Tensor flat = t.contiguous().to(at::kDouble).flatten();
  return std::vector<double>(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel());
}

TEST(QuantizedOps, QuantizePerTensorRoundsHalfToEvenAndClamps) {
  // 0.5, 1.5, 2.5 -> 0, 2, 2 (half to even); +-200 and inf clamp.
  OpRunner q("quantized_decomposed::quantize_per_tensor.out");
  q.tensor(at::tensor({0.5f, 1.5f, 2.5f, -0.5f, 200.f, -200.f, INFINITY})).real(1.0).integer(0).integer(-128)
      .integer(127).integer(int64_t(at::kChar)).out(at::kChar, {7}).returned();
  ASSERT_EQ(q.run(), "");
  EXPECT_EQ(doubles_of(q.result()), (std::vector<double>{0, 2, 2, 0, 127, -128, 127}));
  // uint8, scale 0.5, zero point 10: 1.25 / 0.5 = 2.5 -> 2 -> 12; -5.1 -> -10.2 -> -10 -> 0; 63 -> 126 -> 136.
  for (bool tensor_args : {false, true}) {
    OpRunner u(tensor_args ? "quantized_decomposed::quantize_per_tensor.Tensor_out"
                           : "quantized_decomposed::quantize_per_tensor.out");
    u.tensor(at::tensor({1.25f, -5.1f, 63.f}));
    if (tensor_args) {
      u.tensor(at::tensor({0.5}, at::kDouble)).tensor(at::tensor({int64_t(10)}, at::kLong));
    } else {
      u.real(0.5).integer(10);
    }
    u.integer(0).integer(255).integer(int64_t(at::kByte)).out(at::kByte, {3}).returned();
    ASSERT_EQ(u.run(), "");
    EXPECT_EQ(doubles_of(u.result()), (std::vector<double>{12, 0, 136}));
  }
}

TEST(QuantizedOps, QuantizeRefusesRangesOutsideTheDtypeAndAMismatchedOut) {
  OpRunner q("quantized_decomposed::quantize_per_tensor.out");
  q.tensor(at::ones({2})).real(1.0).integer(0).integer(0).integer(255).integer(int64_t(at::kChar))
      .out(at::kChar, {2}).returned();
  EXPECT_NE(q.run().find("within int8"), std::string::npos);
  OpRunner m("quantized_decomposed::quantize_per_tensor.out");
  m.tensor(at::ones({2})).real(1.0).integer(0).integer(0).integer(255).integer(int64_t(at::kByte))
      .out(at::kChar, {2}).returned();
  EXPECT_NE(m.run().find("dtype says uint8"), std::string::npos);
}

TEST(QuantizedOps, DequantizePerTensorWritesTheRequestedFloatType) {
  // (q - 10) * 0.5: 12 -> 1, 0 -> -5, 255 -> 122.5 (exact in half).
  for (bool tensor_args : {false, true}) {
    OpRunner d(tensor_args ? "quantized_decomposed::dequantize_per_tensor.Tensor_out"
                           : "quantized_decomposed::dequantize_per_tensor.out");
    d.tensor(bytes({12, 0, 255}, {3}));
    if (tensor_args) {
      d.tensor(at::tensor({0.5}, at::kDouble)).tensor(at::tensor({int64_t(10)}, at::kLong));
    } else {
      d.real(0.5).integer(10);
    }
    d.integer(0).integer(255).integer(int64_t(at::kByte)).integer(int64_t(at::kHalf)).out(at::kHalf, {3})
        .returned();
    ASSERT_EQ(d.run(), "");
    EXPECT_TRUE(tensors_close(d.result(), at::tensor({1.f, -5.f, 122.5f}).to(at::kHalf)));
  }
  OpRunner wrong("quantized_decomposed::dequantize_per_tensor.out");
  wrong.tensor(bytes({1}, {1})).real(0.5).integer(0).integer(0).integer(255).integer(int64_t(at::kChar)).none()
      .out(at::kFloat, {1}).returned();
  EXPECT_NE(wrong.run().find("dtype says int8"), std::string::npos);
}

TEST(QuantizedOps, PerTokenQuantizesEachRowWithItsOwnParameters) {
  // Row 0: scale 0.5, zero point 0: [1, 2, 3] -> [2, 4, 6].
  // Row 1: scale 0.25, zero point 1: [-1, -2, -4] -> [-3, -7, -15].
  const at::Tensor x = at::tensor({1.f, 2.f, 3.f, -1.f, -2.f, -4.f}).reshape({2, 3});
  const at::Tensor scales = at::tensor({0.5, 0.25}, at::kDouble).reshape({2, 1});
  const at::Tensor zero_points = at::tensor({int64_t(0), int64_t(1)}, at::kLong).reshape({2, 1});
  OpRunner q("quantized_decomposed::quantize_per_token.out");
  q.tensor(x).tensor(scales).tensor(zero_points).integer(-128).integer(127).integer(int64_t(at::kChar))
      .out(at::kChar, {2, 3}).returned();
  ASSERT_EQ(q.run(), "");
  EXPECT_EQ(doubles_of(q.result()), (std::vector<double>{2, 4, 6, -3, -7, -15}));
  OpRunner d("quantized_decomposed::dequantize_per_token.out");
  d.tensor(q.result()).tensor(scales).tensor(zero_points).integer(-128).integer(127).integer(int64_t(at::kChar))
      .integer(int64_t(at::kFloat)).out(at::kFloat, {2, 3}).returned();
  ASSERT_EQ(d.run(), "");
  EXPECT_TRUE(tensors_close(d.result(), x));
}

TEST(QuantizedOps, PerTensorAndPerChannelMatchTheFormulaInAtenOps) {
  std::mt19937_64 rng(test::kernel_test_seed());
  at::Tensor x = test::random_tensor(rng, {4, 6}, at::kFloat) * 3;
  const double scale = 0.05;
  const int64_t zp = 3;
  at::Tensor expected_q = at::clamp(at::round(x * float(1.0 / scale)) + zp, -128, 127).to(at::kChar);
  OpRunner q("quantized_decomposed::quantize_per_tensor.out");
  q.tensor(x).real(scale).integer(zp).integer(-128).integer(127).integer(int64_t(at::kChar))
      .out(at::kChar, x.sizes()).returned();
  ASSERT_EQ(q.run(), "");
  EXPECT_TRUE(tensors_close(q.result(), expected_q));
  OpRunner dq("quantized_decomposed::dequantize_per_tensor.out");
  dq.tensor(expected_q).real(scale).integer(zp).integer(-128).integer(127)
      .integer(int64_t(at::kChar)).none().out(at::kFloat, x.sizes()).returned();
  ASSERT_EQ(dq.run(), "");
  EXPECT_TRUE(tensors_close(dq.result(), (expected_q.to(at::kFloat) - zp) * float(scale), 1e-6, 1e-7));

  // Per channel along axis 1 (the inner loop is not the channel's).
  at::Tensor scales = at::tensor({0.1, 0.02, 0.5, 0.07, 0.3, 0.01}, at::kDouble);
  at::Tensor zps = at::tensor({0, 2, -1, 5, 0, 1}, at::kLong);
  at::Tensor expected = at::clamp(at::round(x * (1.0 / scales).to(at::kFloat)) + zps, -128, 127).to(at::kChar);
  OpRunner qc("quantized_decomposed::quantize_per_channel.out");
  qc.tensor(x).tensor(scales).tensor(zps).integer(-1).integer(-128).integer(127)
      .integer(int64_t(at::kChar)).out(at::kChar, x.sizes()).returned();
  ASSERT_EQ(qc.run(), "");
  EXPECT_TRUE(tensors_close(qc.result(), expected));
  OpRunner dc("quantized_decomposed::dequantize_per_channel.out");
  dc.tensor(expected).tensor(scales.to(at::kFloat)).none().integer(1).integer(-128).integer(127)
      .integer(int64_t(at::kChar)).none().out(at::kFloat, x.sizes()).returned();
  ASSERT_EQ(dc.run(), "");
  EXPECT_TRUE(tensors_close(dc.result(), expected.to(at::kFloat) * scales.to(at::kFloat), 1e-6, 1e-7));
}

TEST(QuantizedOps, ChooseQparamsByHand) {
  struct Case {
    std::vector<float> input;
    int64_t qmin, qmax;
    double scale;
    int64_t zero_point;
  };
  const Case cases[] = {
      // [-1, 3]: scale 4/255; both ends give -64.25 and the max end's error
      // (127 - 191.25) is the smaller: round(-64.25) = -64.
      {{-1.f, 0.f, 3.f}, -128, 127, 4.0 / 255, -64},
      // All positive: the range is widened to 0; zero point 0.
      {{2.f, 4.f}, 0, 255, 4.0 / 255, 0},
      // All zero: scale 0 becomes 0.1; the max end's error (127) beats the
      // min end's (128), so the zero point is qmax.
      {{0.f, 0.f}, -128, 127, 0.1, 127},
      // A range of 1e-3 over 255 steps is below the smallest scale 6.1e-5.
      {{0.f, 1e-3f}, 0, 255, double(6.1e-5f), 0},
  };
  for (const Case& c : cases) {
    OpRunner op("quantized_decomposed::choose_qparams.Tensor_out");
    op.tensor(at::tensor(c.input)).integer(c.qmin).integer(c.qmax).real(1e-7).integer(int64_t(at::kChar))
        .out(at::kDouble, {1}).out(at::kLong, {1}).outs_as_list();
    ASSERT_EQ(op.run(), "");
    EXPECT_DOUBLE_EQ(op.result(0).item<double>(), c.scale) << c.input[0] << ".." << c.input.back();
    EXPECT_EQ(op.result(1).item<int64_t>(), c.zero_point) << c.input[0] << ".." << c.input.back();
  }
  // Per token: one pair per row, outs shaped [rows, 1].
  OpRunner token("quantized_decomposed::choose_qparams_per_token_asymmetric.out");
  token.tensor(at::tensor({-1.f, 0.f, 3.f, 0.f, 0.f, 0.f}).reshape({2, 3})).integer(int64_t(at::kChar))
      .out(at::kDouble, {2, 1}).out(at::kLong, {2, 1}).outs_as_list();
  ASSERT_EQ(token.run(), "");
  EXPECT_EQ(token.result(0).sizes(), at::IntArrayRef({2, 1}));
  EXPECT_EQ(doubles_of(token.result(0)), (std::vector<double>{4.0 / 255, 0.1}));
  EXPECT_EQ(doubles_of(token.result(1)), (std::vector<double>{-64, 127}));
}

TEST(QuantizedOps, EmbeddingByteDequantizesGroupsOfARow) {
  // Row 2 = [10, 20, 30, 40], groups of 2: scales [0.5, 2], zero points [10, 30]:
  // [(10-10)*0.5, (20-10)*0.5, (30-30)*2, (40-30)*2] = [0, 5, 0, 20].
  const at::Tensor weight = bytes({0, 0, 0, 0, 1, 1, 1, 1, 10, 20, 30, 40}, {3, 4});
  const at::Tensor scales = at::tensor({1.f, 1.f, 1.f, 1.f, 0.5f, 2.f}).reshape({3, 2});
  const at::Tensor zeros = at::tensor({0.f, 0.f, 0.f, 0.f, 10.f, 30.f}).reshape({3, 2});
  OpRunner op("quantized_decomposed::embedding_byte.out");
  op.tensor(weight).tensor(scales).tensor(zeros).integer(0).integer(255)
      .tensor(at::tensor({int64_t(2), int64_t(1)}, at::kLong)).out(at::kFloat, {2, 4}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_EQ(doubles_of(op.result()), (std::vector<double>{0, 5, 0, 20, 1, 1, 1, 1}));
  // dtype overload: float32 scales, half out; an index past the table fails.
  OpRunner half("quantized_decomposed::embedding_byte.dtype_out");
  half.tensor(weight).tensor(scales).none().integer(0).integer(255).tensor(at::tensor({int64_t(2)}, at::kLong))
      .integer(int64_t(at::kHalf)).out(at::kHalf, {1, 4}).returned();
  ASSERT_EQ(half.run(), "");
  EXPECT_EQ(doubles_of(half.result()), (std::vector<double>{5, 10, 60, 80}));
  OpRunner bad("quantized_decomposed::embedding_byte.out");
  bad.tensor(weight).tensor(scales).none().integer(0).integer(255).tensor(at::tensor({int64_t(3)}, at::kLong))
      .out(at::kFloat, {1, 4}).returned();
  EXPECT_NE(bad.run().find("index 3 is out of range"), std::string::npos);
}

TEST(QuantizedOps, EmbeddingSubByteUnpacksInUpstreamsOrder) {
  const std::pair<const char*, const char*> overloads[] = {
      {"quantized_decomposed::embedding_4bit.out", "quantized_decomposed::embedding_2bit.out"},
      {"quantized_decomposed::embedding_4bit.dtype_out", "quantized_decomposed::embedding_2bit.dtype_out"}};
  for (const auto& [four_bit, two_bit] : overloads) {
    const bool dtype = std::string(four_bit).find("dtype") != std::string::npos;
    const std::string overload = four_bit;
    // 4-bit: 0x1F, 0x80 -> high nibble first, minus 8: [1-8, 15-8, 8-8, 0-8] = [-7, 7, 0, -8]; scale 0.5.
    OpRunner four(four_bit);
    four.tensor(bytes({0x1F, 0x80}, {1, 2})).tensor(at::tensor({0.5f})).none().integer(-8).integer(7)
        .tensor(at::tensor({int32_t(0)}, at::kInt));
    if (dtype) four.integer(int64_t(at::kFloat));
    four.out(at::kFloat, {1, 4}).returned();
    ASSERT_EQ(four.run(), "");
    EXPECT_EQ(doubles_of(four.result()), (std::vector<double>{-3.5, 3.5, 0, -4})) << overload;
    // 2-bit: 0xE4 = 0b11'10'01'00 -> lowest bits first, minus 2: [-2, -1, 0, 1];
    // scale 2, zero point 1: [-6, -4, -2, 0].
    OpRunner two(two_bit);
    two.tensor(bytes({0xE4}, {1, 1})).tensor(at::tensor({2.f})).tensor(at::tensor({1.f})).integer(-2).integer(1)
        .tensor(at::tensor({int64_t(0), int64_t(0)}, at::kLong));
    if (dtype) two.none();
    two.out(at::kFloat, {2, 4}).returned();
    ASSERT_EQ(two.run(), "");
    EXPECT_EQ(doubles_of(two.result()), (std::vector<double>{-6, -4, -2, 0, -6, -4, -2, 0})) << overload;
  }
}

TEST(QuantizedOps, MixedMatmulsByHandAndAgainstLibtorch) {
  // mixed_mm: [1, 2] x [[1, -2], [3, 4]] with row scales [0.5, 2]:
  // [1*1*0.5 + 2*3*2, 1*-2*0.5 + 2*4*2] = [12.5, 15].
  OpRunner mm("quantized_decomposed::mixed_mm.out");
  mm.tensor(at::tensor({1.f, 2.f}).reshape({1, 2})).tensor(bytes({1, -2, 3, 4}, {2, 2}, at::kChar))
      .tensor(at::tensor({0.5f, 2.f})).none().out(at::kFloat, {1, 2}).returned();
  ASSERT_EQ(mm.run(), "");
  EXPECT_EQ(doubles_of(mm.result()), (std::vector<double>{12.5, 15}));
  // mixed_linear, groups of 2: (1 + 2) * 0.5 + (3 + 4) * 2 = 15.5.
  OpRunner linear("quantized_decomposed::mixed_linear.out");
  linear.tensor(at::ones({1, 4})).tensor(bytes({1, 2, 3, 4}, {1, 4}, at::kChar))
      .tensor(at::tensor({0.5f, 2.f}).reshape({1, 2})).none().none().out(at::kFloat, {1, 1}).returned();
  ASSERT_EQ(linear.run(), "");
  EXPECT_EQ(doubles_of(linear.result()), (std::vector<double>{15.5}));

  std::mt19937_64 rng(test::kernel_test_seed());
  const at::Tensor x = test::random_tensor(rng, {5, 64}, at::kFloat);
  const at::Tensor w = test::random_tensor(rng, {48, 64}, at::kChar, -128, 128);
  const at::Tensor s = test::random_tensor(rng, {48, 4}, at::kFloat).abs() * 0.01f;
  const at::Tensor dequantized = w.to(at::kFloat) * s.repeat_interleave(16, 1);
  OpRunner grouped("quantized_decomposed::mixed_linear.out");
  grouped.tensor(x).tensor(w).tensor(s).none().integer(int64_t(at::kFloat)).out(at::kFloat, {5, 48}).returned();
  ASSERT_EQ(grouped.run(), "");
  EXPECT_TRUE(tensors_close(grouped.result(), at::linear(x, dequantized), 1e-4, 1e-4));
  const at::Tensor row_scales = s.select(1, 0).contiguous();
  OpRunner big_mm("quantized_decomposed::mixed_mm.out");
  big_mm.tensor(x.slice(1, 0, 48).contiguous()).tensor(w).tensor(row_scales).none().out(at::kFloat, {5, 64})
      .returned();
  ASSERT_EQ(big_mm.run(), "");
  EXPECT_TRUE(tensors_close(big_mm.result(), at::mm(x.slice(1, 0, 48), w.to(at::kFloat) * row_scales.unsqueeze(1)),
                            1e-4, 1e-4));
  // Zero points are refused, as upstream refuses them.
  OpRunner zp("quantized_decomposed::mixed_mm.out");
  const at::Tensor zeros = at::zeros({2});
  zp.tensor(at::ones({1, 2})).tensor(bytes({1, 1, 1, 1}, {2, 2}, at::kChar)).tensor(at::ones({2}))
      .optional_tensor(&zeros).out(at::kFloat, {1, 2}).returned();
  EXPECT_NE(zp.run().find("zero points are not supported"), std::string::npos);
}

TEST(QuantizedOps, AddRequantizesTheRealSum) {
  // a: scale 0.5, zero point 10: [10, 20, 11] -> [0, 5, 0.5];
  // b: scale 0.25, zero point 0: [4, 0, 1] -> [1, 0, 0.25];
  // sum [1, 5, 0.75] / 0.5 = [2, 10, 1.5 -> 2] + 2 = [4, 12, 4]; quant_max 10 clamps 12.
  OpRunner add("quantized_decomposed::add.out");
  add.tensor(bytes({10, 20, 11}, {3})).real(0.5).integer(10).integer(0).integer(255)
      .tensor(bytes({4, 0, 1}, {3})).real(0.25).integer(0).integer(0).integer(255)
      .real(0.5).integer(2).integer(0).integer(10).out(at::kByte, {3}).returned();
  ASSERT_EQ(add.run(), "");
  EXPECT_EQ(doubles_of(add.result()), (std::vector<double>{4, 10, 4}));
}

}  // namespace
}  // namespace etkit
