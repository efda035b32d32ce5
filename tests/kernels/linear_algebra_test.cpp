// mm, addmm, bmm, linear and convolution against libtorch on shapes that cross the
// GEMM's block boundaries, and real CNN layer shapes.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "etkit/kernels/conv_columns.h"
#include "op_runner.h"

namespace etkit::test {
namespace {

// Sums of k products in a different order: allow ~k ulps relative error.
double gemm_tolerance(at::ScalarType dtype, int64_t k) {
  return (dtype == at::kFloat ? 2e-6 : 1e-14) * std::sqrt(double(k) + 1) * 4;
}

TEST(LinearAlgebra, MmAcrossBlockBoundaries) {
  std::mt19937_64 rng(kernel_test_seed() + 20);
  const std::vector<std::array<int64_t, 3>> shapes = {
      {1, 1, 1}, {1, 300, 517}, {7, 5, 3}, {6, 16, 256}, {73, 300, 517}, {128, 64, 33}, {0, 4, 5}, {3, 0, 4}};
  for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
    for (const auto& [m, k, n] : shapes) {
      at::Tensor a = random_tensor(rng, {m, k}, dtype);
      at::Tensor b = random_tensor(rng, {k, n}, dtype);
      at::Tensor expected = at::mm(a, b);
      OpRunner runner("aten::mm.out");
      runner.tensor(a).tensor(b).out(dtype, {m, n}).returned();
      ASSERT_EQ(runner.run(), "");
      EXPECT_TRUE(tensors_close(runner.result(), expected, gemm_tolerance(dtype, k),
                                gemm_tolerance(dtype, k)))
          << m << "x" << k << "x" << n << " " << dtype;
    }
  }
}

TEST(LinearAlgebra, AddmmWithBroadcastBiasAndTransposedWeight) {
  std::mt19937_64 rng(kernel_test_seed() + 21);
  // The edge dialect lowers linear to permute_copy + addmm(bias, x, w^T);
  // here the transposed operand is a strided view, as upstream passes it.
  at::Tensor x = random_tensor(rng, {10, 33}, at::kFloat);
  at::Tensor w = random_tensor(rng, {20, 33}, at::kFloat);
  at::Tensor bias = random_tensor(rng, {20}, at::kFloat);
  at::Tensor wt = w.t().contiguous();
  for (const auto& [beta, alpha] : std::vector<std::pair<double, double>>{{1, 1}, {0.5, 2}, {0, 1}}) {
    at::Tensor expected = at::addmm(bias, x, wt, beta, alpha);
    OpRunner runner("aten::addmm.out");
    runner.tensor(bias).tensor(x).tensor(wt).real(beta).real(alpha).out(at::kFloat, {10, 20}).returned();
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-5, 1e-5)) << beta << " " << alpha;
  }
  // A batch-1 linear layer takes the row-times-matrix path.
  at::Tensor one = random_tensor(rng, {1, 33}, at::kFloat);
  at::Tensor expected_one = at::addmm(bias, one, wt, 0.5, 2);
  OpRunner row("aten::addmm.out");
  row.tensor(bias).tensor(one).tensor(wt).real(0.5).real(2).out(at::kFloat, {1, 20}).returned();
  ASSERT_EQ(row.run(), "");
  EXPECT_TRUE(tensors_close(row.result(), expected_one, 1e-5, 1e-5));
  // beta = 0 ignores NaN in self, as ATen documents.
  at::Tensor nan_bias = at::full({20}, NAN);
  OpRunner runner("aten::addmm.out");
  runner.tensor(nan_bias).tensor(x).tensor(wt).integer(0).integer(1).out(at::kFloat, {10, 20}).returned();
  ASSERT_EQ(runner.run(), "");
  EXPECT_TRUE(tensors_close(runner.result(), at::addmm(nan_bias, x, wt, 0, 1), 1e-5, 1e-5));
}

// linear as upstream's LLM export leaves it: [batch, seq, features] inputs,
// with and without bias, a 1-D input, a transposed (strided) input, integers.
TEST(LinearAlgebra, LinearOverLeadingDimsWithAndWithoutBias) {
  std::mt19937_64 rng(kernel_test_seed() + 24);
  const at::Tensor w = random_tensor(rng, {20, 33}, at::kFloat);
  const at::Tensor bias = random_tensor(rng, {20}, at::kFloat);
  const std::vector<at::Tensor> inputs = {random_tensor(rng, {2, 5, 33}, at::kFloat), random_tensor(rng, {33}, at::kFloat),
                                          random_tensor(rng, {33, 7}, at::kFloat).t(),
                                          random_tensor(rng, {3, 1, 4, 33}, at::kFloat), random_tensor(rng, {0, 33}, at::kFloat)};
  for (const at::Tensor& x : inputs) {
    for (bool with_bias : {true, false}) {
      const at::Tensor expected = with_bias ? at::linear(x, w, bias) : at::linear(x, w);
      OpRunner runner("aten::linear.out");
      runner.tensor(x).tensor(w);
      if (with_bias) {
        runner.tensor(bias);
      } else {
        runner.none();
      }
      runner.out(at::kFloat, expected.sizes().vec()).returned();
      ASSERT_EQ(runner.run(), "") << x.sizes();
      EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-5, 1e-5)) << x.sizes() << " bias " << with_bias;
    }
  }
  const at::Tensor xi = at::randint(-9, 9, {3, 6}, at::kLong), wi = at::randint(-9, 9, {4, 6}, at::kLong);
  OpRunner integers("aten::linear.out");
  integers.tensor(xi).tensor(wi).none().out(at::kLong, {3, 4}).returned();
  ASSERT_EQ(integers.run(), "");
  EXPECT_TRUE(at::equal(integers.result(), at::linear(xi, wi)));
  OpRunner mismatched("aten::linear.out");
  mismatched.tensor(random_tensor(rng, {2, 32}, at::kFloat)).tensor(w).none().out(at::kFloat, {2, 20}).returned();
  EXPECT_NE(mismatched.run().find("in-features"), std::string::npos);
}

TEST(LinearAlgebra, Bmm) {
  std::mt19937_64 rng(kernel_test_seed() + 22);
  at::Tensor a = random_tensor(rng, {4, 17, 32}, at::kFloat);
  at::Tensor b = random_tensor(rng, {4, 32, 9}, at::kFloat);
  at::Tensor expected = at::bmm(a, b);
  OpRunner runner("aten::bmm.out");
  runner.tensor(a).tensor(b).out(at::kFloat, {4, 17, 9}).returned();
  ASSERT_EQ(runner.run(), "");
  EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-5, 1e-5));
  OpRunner mismatch("aten::bmm.out");
  mismatch.tensor(a).tensor(a).out(at::kFloat, {4, 17, 32}).returned();
  EXPECT_NE(mismatch.run().find("do not match"), std::string::npos);
}

struct ConvCase {
  std::vector<int64_t> input, weight;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool transposed;
  std::vector<int64_t> output_padding;
  bool bias;
};

// etkit's convolution.out of `c` on these tensors, the output in `format`.
at::Tensor run_convolution(const ConvCase& c, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                           at::IntArrayRef out_sizes, at::MemoryFormat format) {
  OpRunner runner("aten::convolution.out");
  runner.tensor(input).tensor(weight);
  if (c.bias) runner.tensor(bias); else runner.none();
  runner.ints(c.stride).ints(c.padding).ints(c.dilation).boolean(c.transposed)
      .ints(c.output_padding).integer(c.groups)
      .out(input.scalar_type(), out_sizes, c.input.size() == 4 ? format : at::MemoryFormat::Contiguous)
      .returned();
  const std::string error = runner.run();
  EXPECT_EQ(error, "");
  return error.empty() ? runner.result() : at::Tensor();
}

// `weight_format` ChannelsLast: a weight not contiguous along (ic, kh, kw),
// which im2col's products read through a direct loop.
void check_convolution(const ConvCase& c, at::ScalarType dtype, at::MemoryFormat format,
                       std::mt19937_64& rng, at::MemoryFormat weight_format = at::MemoryFormat::Contiguous) {
  at::Tensor input = random_tensor(rng, c.input, dtype);
  if (c.input.size() == 4) input = input.contiguous(format);
  at::Tensor weight = random_tensor(rng, c.weight, dtype);
  if (c.weight.size() == 4) weight = weight.contiguous(weight_format);
  const int64_t out_channels = c.transposed ? c.weight[1] * c.groups : c.weight[0];
  at::Tensor bias = random_tensor(rng, {out_channels}, dtype);
  at::Tensor expected = at::convolution(input, weight, c.bias ? c10::optional<at::Tensor>(bias) : c10::nullopt,
                                        c.stride, c.padding, c.dilation, c.transposed,
                                        c.output_padding, c.groups);
  const at::Tensor result = run_convolution(c, input, weight, bias, expected.sizes(), format);
  ASSERT_TRUE(result.defined());
  int64_t k = c.weight[1];
  for (size_t d = 2; d < c.weight.size(); ++d) k *= c.weight[d];
  EXPECT_TRUE(tensors_close(result, expected, gemm_tolerance(dtype, k) * 4,
                            gemm_tolerance(dtype, k) * 4))
      << "input " << at::IntArrayRef(c.input) << " weight " << at::IntArrayRef(c.weight)
      << " groups " << c.groups << " transposed " << c.transposed << " " << dtype << " weight " << weight_format;
}

TEST(Convolution, MatchesAtenOnStridesPaddingsDilationsGroups) {
  std::mt19937_64 rng(kernel_test_seed() + 23);
  const std::vector<ConvCase> cases = {
      // ResNet-18 stem and a 3x3 body layer, MobileNetV2 depthwise and
      // pointwise layers (reduced spatial size).
      {{1, 3, 32, 32}, {16, 3, 7, 7}, {2, 2}, {3, 3}, {1, 1}, 1, false, {0, 0}, false},
      {{1, 16, 14, 14}, {16, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, {0, 0}, true},
      {{2, 32, 12, 12}, {32, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 32, false, {0, 0}, true},
      // Depthwise rows in registers: stride 1 and 2 over widths that leave
      // a remainder after whole eight-column blocks, padding wider than
      // the kernel's reach, dilation, two outputs per input channel.
      {{1, 24, 17, 19}, {24, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 24, false, {0, 0}, true},
      {{1, 16, 23, 37}, {32, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, 16, false, {0, 0}, false},
      {{2, 8, 20, 41}, {8, 1, 3, 3}, {1, 1}, {3, 2}, {2, 2}, 8, false, {0, 0}, true},
      {{1, 4, 6, 5}, {4, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 4, false, {0, 0}, true},
      {{1, 32, 10, 10}, {24, 32, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, false, {0, 0}, true},
      {{1, 8, 11, 9}, {12, 4, 3, 2}, {2, 1}, {1, 0}, {2, 3}, 2, false, {0, 0}, true},
      // The profiling tutorial's CNN layer.
      {{1, 1, 28, 28}, {16, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, {0, 0}, true},
      // 1-D and transposed.
      {{2, 6, 20}, {8, 3, 5}, {2}, {2}, {1}, 2, false, {0}, true},
      {{1, 4, 5, 5}, {4, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, true, {1, 1}, true},
      {{2, 4, 7}, {4, 2, 3}, {3}, {0}, {2}, 2, true, {1}, false},
  };
  for (const ConvCase& c : cases) {
    for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
      check_convolution(c, dtype, at::MemoryFormat::Contiguous, rng);
    }
    if (c.input.size() == 4 && !c.transposed) {
      check_convolution(c, at::kFloat, at::MemoryFormat::ChannelsLast, rng);
      check_convolution(c, at::kFloat, at::MemoryFormat::Contiguous, rng, at::MemoryFormat::ChannelsLast);
    }
  }
}

// Float depthwise convolutions: each output is its bias (zero without one)
// with w * x added tap by tap, kh then kw, the padding's taps skipped
// (convolution.cpp) — fused into one rounding on cores with AVX2 and FMA,
// product then sum elsewhere — whatever the build's optimization, so Debug
// and Release give the same bits. The specification written out here over
// the NCHW tensors, through every tile of the vector path
// (depthwise_rows.cpp): heights that leave one to three rows after tiles of
// four, widths with two- and one-vector interior tiles, an interior tail
// short of a vector under a tile laid over columns already done (padding
// 3 on a 3 x 3, at either lane width), rows too narrow for any unmasked
// tile, the 3 x 3 tiles at row stride 1 and 2 against column stride 2 and
// 1 and column dilation,
// the general tiles (5 x 5, 1 x 7, row dilation, row stride 3), and a
// column stride of 3, which the vector path leaves to the generic stencil;
// in 16-lane tiles (cores with AVX-512) and in 8-lane ones.
struct DepthwiseCase {
  int64_t channels, height, width, kernel_h, kernel_w, stride_h, stride_w, padding_h, padding_w, dilation_h,
      dilation_w;
  bool bias;
};

// How many outputs of etkit's depthwise convolution of `c` differ from the
// rule written out: fused multiply-adds where `fused`, else product then sum.
size_t depthwise_mismatches(const DepthwiseCase& c, bool fused, std::mt19937_64& rng) {
  at::Tensor input = random_tensor(rng, {1, c.channels, c.height, c.width}, at::kFloat);
  at::Tensor weight = random_tensor(rng, {c.channels, 1, c.kernel_h, c.kernel_w}, at::kFloat);
  at::Tensor bias = random_tensor(rng, {c.channels}, at::kFloat);
  const int64_t out_h = (c.height + 2 * c.padding_h - c.dilation_h * (c.kernel_h - 1) - 1) / c.stride_h + 1;
  const int64_t out_w = (c.width + 2 * c.padding_w - c.dilation_w * (c.kernel_w - 1) - 1) / c.stride_w + 1;
  OpRunner runner("aten::convolution.out");
  runner.tensor(input).tensor(weight);
  if (c.bias) runner.tensor(bias); else runner.none();
  runner.ints({c.stride_h, c.stride_w}).ints({c.padding_h, c.padding_w}).ints({c.dilation_h, c.dilation_w})
      .boolean(false).ints({0, 0}).integer(c.channels).out(at::kFloat, {1, c.channels, out_h, out_w}).returned();
  EXPECT_EQ(runner.run(), "");
  const at::Tensor result = runner.result().contiguous();
  const float* x = input.data_ptr<float>();
  const float* w = weight.data_ptr<float>();
  const float* out = result.data_ptr<float>();
  size_t mismatches = 0;
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        float acc = c.bias ? bias.data_ptr<float>()[ch] : 0.0f;
        for (int64_t kh = 0; kh < c.kernel_h; ++kh) {
          const int64_t ih = oh * c.stride_h - c.padding_h + kh * c.dilation_h;
          if (ih < 0 || ih >= c.height) continue;
          for (int64_t kw = 0; kw < c.kernel_w; ++kw) {
            const int64_t iw = ow * c.stride_w - c.padding_w + kw * c.dilation_w;
            if (iw < 0 || iw >= c.width) continue;
            const float tap = w[(ch * c.kernel_h + kh) * c.kernel_w + kw];
            const float value = x[(ch * c.height + ih) * c.width + iw];
            if (fused) {
              acc = std::fma(tap, value, acc);
            } else {
              const volatile float product = tap * value;  // volatile: never contracted into an fma
              acc = acc + product;
            }
          }
        }
        mismatches += out[(ch * out_h + oh) * out_w + ow] != acc;
      }
    }
  }
  return mismatches;
}

TEST(Convolution, DepthwiseOutputsAreTheirTapsAddedInOrder) {
#if defined(__x86_64__)
  const bool fused = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");  // the kernel's own test
#else
  const bool fused = false;
#endif
  std::mt19937_64 rng(kernel_test_seed() + 29);
  const std::vector<DepthwiseCase> cases = {
      {6, 9, 29, 3, 3, 1, 1, 1, 1, 1, 1, true},      {4, 12, 35, 3, 3, 2, 2, 1, 1, 1, 1, true},
      {3, 8, 26, 5, 5, 1, 1, 4, 4, 2, 2, true},      {2, 5, 3, 3, 3, 2, 2, 2, 2, 1, 1, true},
      {3, 14, 56, 3, 3, 1, 1, 1, 1, 1, 1, false},    {2, 23, 111, 3, 3, 2, 2, 1, 1, 1, 1, true},
      {2, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, true},     {2, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, true},
      {3, 9, 29, 3, 3, 1, 1, 3, 3, 1, 1, true},      {2, 11, 40, 3, 3, 2, 1, 1, 1, 1, 1, true},
      {2, 10, 40, 3, 3, 1, 2, 1, 0, 1, 1, false},    {2, 13, 33, 3, 3, 1, 1, 1, 2, 1, 2, true},
      {2, 9, 30, 1, 7, 1, 1, 0, 3, 1, 1, true},      {2, 17, 30, 3, 3, 3, 1, 1, 1, 2, 1, true},
      {2, 9, 31, 3, 3, 1, 3, 1, 1, 1, 1, true},      {2, 9, 45, 3, 3, 1, 1, 3, 3, 1, 1, true},
  };
  for (const bool wide : {true, false}) {
    etkit::kernels::conv_allow_wide_depthwise_tiles(wide);
    for (const DepthwiseCase& c : cases) {
      EXPECT_EQ(depthwise_mismatches(c, fused, rng), 0u)
          << c.channels << "x" << c.height << "x" << c.width << " kernel " << c.kernel_h << "x" << c.kernel_w
          << " stride " << c.stride_h << "," << c.stride_w << " padding " << c.padding_h << "," << c.padding_w
          << " dilation " << c.dilation_h << "," << c.dilation_w << (c.bias ? "" : " no bias")
          << (wide ? ", 16-lane tiles" : ", 8-lane tiles");
    }
  }
  etkit::kernels::conv_allow_wide_depthwise_tiles(true);
}

// Float convolutions pack the gemm's column panels straight from the image
// (conv_columns.h); each panel holds what im2col would have copied there,
// so the bits are the im2col path's. Panels that cross output rows, outputs
// narrower than a panel, strides, padding past the kernel's reach,
// dilation, groups, channels-last input and output, 1-D, the widest kernel
// the packer takes (16), kernels of more taps than it plans (8 x 7), a
// stride of 3, outputs of fewer columns than a panel's rows, and products
// longer than one 256-row block; each through every way of copying a row.
TEST(Convolution, ColumnsPackedFromTheImageGiveTheBitsOfIm2col) {
  std::mt19937_64 rng(kernel_test_seed() + 31);
  const std::vector<ConvCase> cases = {
      {{1, 16, 21, 23}, {24, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, {0, 0}, true},
      {{2, 8, 15, 5}, {12, 8, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, false, {0, 0}, false},
      {{1, 3, 40, 37}, {16, 3, 7, 7}, {2, 2}, {3, 3}, {1, 1}, 1, false, {0, 0}, true},
      {{1, 8, 11, 9}, {12, 4, 3, 2}, {2, 1}, {4, 3}, {2, 3}, 2, false, {0, 0}, true},
      {{1, 40, 9, 9}, {8, 40, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, {0, 0}, true},
      {{1, 6, 7, 40}, {5, 6, 1, 16}, {1, 1}, {0, 7}, {1, 1}, 1, false, {0, 0}, true},
      {{1, 4, 12, 12}, {6, 4, 1, 1}, {2, 2}, {0, 0}, {1, 1}, 1, false, {0, 0}, true},
      {{2, 6, 50}, {8, 3, 5}, {2}, {2}, {1}, 2, false, {0}, true},
      {{1, 2, 13, 11}, {4, 2, 8, 7}, {1, 2}, {3, 2}, {1, 1}, 1, false, {0, 0}, true},
      {{1, 4, 9, 40}, {6, 4, 3, 3}, {1, 3}, {1, 1}, {1, 1}, 1, false, {0, 0}, true},
      {{1, 3, 5, 3}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, {0, 0}, true},
  };
  for (const ConvCase& c : cases) {
    for (at::MemoryFormat format : {at::MemoryFormat::Contiguous, at::MemoryFormat::ChannelsLast}) {
      if (format == at::MemoryFormat::ChannelsLast && c.input.size() != 4) continue;
      at::Tensor input = random_tensor(rng, c.input, at::kFloat);
      if (c.input.size() == 4) input = input.contiguous(format);
      const at::Tensor weight = random_tensor(rng, c.weight, at::kFloat);
      const at::Tensor bias = random_tensor(rng, {c.weight[0]}, at::kFloat);
      const auto sizes = at::convolution(input, weight, c10::nullopt, c.stride, c.padding, c.dilation, false,
                                         c.output_padding, c.groups).sizes().vec();
      kernels::conv_allow_column_packer(false);
      const at::Tensor im2col = run_convolution(c, input, weight, bias, sizes, format).contiguous();
      kernels::conv_allow_column_packer(true);
      ASSERT_TRUE(im2col.defined());
      for (kernels::ColumnRowCopy copy :
           {kernels::ColumnRowCopy::kBest, kernels::ColumnRowCopy::kAvx2, kernels::ColumnRowCopy::kPlain}) {
        kernels::conv_choose_column_row_copy(copy);
        const at::Tensor packed = run_convolution(c, input, weight, bias, sizes, format).contiguous();
        kernels::conv_choose_column_row_copy(kernels::ColumnRowCopy::kBest);
        ASSERT_TRUE(packed.defined());
        EXPECT_EQ(std::memcmp(packed.data_ptr(), im2col.data_ptr(), size_t(packed.nbytes())), 0)
            << "input " << at::IntArrayRef(c.input) << " weight " << at::IntArrayRef(c.weight) << " format "
            << format << " row copy " << int(copy);
      }
    }
  }
}

TEST(Convolution, RejectsBadShapesWithMessages) {
  at::Tensor input = at::randn({1, 3, 5, 5});
  at::Tensor weight = at::randn({4, 2, 3, 3});
  OpRunner runner("aten::convolution.out");
  runner.tensor(input).tensor(weight).none().ints({1, 1}).ints({0, 0}).ints({1, 1})
      .boolean(false).ints({0, 0}).integer(1).out(at::kFloat, {1, 4, 3, 3}).returned();
  EXPECT_NE(runner.run().find("weight expects 2 input channels"), std::string::npos);
}

}  // namespace
}  // namespace etkit::test
