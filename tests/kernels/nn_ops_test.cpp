// Pooling, softmax and normalization kernels against libtorch.

#include <gtest/gtest.h>

#include "op_runner.h"

namespace etkit::test {
namespace {

// Against ATen on values of few levels (ties keep the first position), NaNs
// (the last one wins) and infinities. Float rows take eight windows at a
// time inside the image and one at a time at its edges: widths that leave
// columns after whole eights, strides 1 to 3, dilation, padding, ceil mode,
// channels-last input, a 3-D input and the default stride.
TEST(Pooling, MaxPoolWithIndicesMatchesAtenOnTiesNansAndInfinities) {
  std::mt19937_64 rng(kernel_test_seed() + 30);
  struct Case {
    std::vector<int64_t> input, kernel, stride, padding, dilation;
    bool ceil;
  };
  const std::vector<Case> cases = {
      {{1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false},  // corpus maxpool2d.pte
      {{2, 3, 9, 10}, {2, 3}, {2, 1}, {1, 1}, {1, 2}, true},     {{3, 8, 7}, {3, 3}, {}, {0, 0}, {1, 1}, true},
      {{1, 4, 30, 45}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false},   {{2, 3, 17, 29}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, false},
      {{1, 2, 20, 61}, {2, 3}, {3, 3}, {1, 1}, {2, 2}, true},    {{1, 3, 9, 40}, {3, 5}, {1, 2}, {0, 2}, {1, 1}, true},
      {{1, 2, 8, 23}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false},
  };
  for (const Case& c : cases) {
    for (at::MemoryFormat format : {at::MemoryFormat::Contiguous, at::MemoryFormat::ChannelsLast}) {
      if (format == at::MemoryFormat::ChannelsLast && c.input.size() != 4) continue;
      at::Tensor in = at::floor(random_tensor(rng, c.input, at::kFloat) * 2.0);
      at::Tensor flat = in.view({-1});
      for (int64_t i = 3; i < flat.numel(); i += 37) flat[i] = NAN;
      for (int64_t i = 11; i < flat.numel(); i += 53) flat[i] = -INFINITY;
      for (int64_t i = 19; i < flat.numel(); i += 71) flat[i] = INFINITY;
      in = in.contiguous(format);
      auto [values, indices] = at::max_pool2d_with_indices(in, c.kernel, c.stride, c.padding, c.dilation, c.ceil);
      OpRunner runner("aten::max_pool2d_with_indices.out");
      runner.tensor(in).ints(c.kernel).ints(c.stride).ints(c.padding).ints(c.dilation)
          .boolean(c.ceil).out(at::kFloat, values.sizes()).out(at::kLong, indices.sizes())
          .outs_as_list();
      ASSERT_EQ(runner.run(), "");
      EXPECT_TRUE(at::equal(runner.result(1).contiguous(), indices.contiguous()))
          << "input " << at::IntArrayRef(c.input) << " format " << format;
      const at::Tensor ours = runner.result(0).contiguous(), theirs = values.contiguous();
      EXPECT_TRUE(at::equal(at::isnan(ours), at::isnan(theirs)) &&
                  at::equal(at::nan_to_num(ours, 0.0), at::nan_to_num(theirs, 0.0)))
          << "input " << at::IntArrayRef(c.input) << " format " << format;
    }
  }
}

TEST(Pooling, AvgPoolAndAdaptive) {
  std::mt19937_64 rng(kernel_test_seed() + 31);
  at::Tensor in = random_tensor(rng, {2, 4, 11, 9}, at::kFloat);
  for (bool ceil : {false, true}) {
    for (bool include_pad : {false, true}) {
      for (int64_t divisor : {0, 5}) {
        at::Tensor expected = at::avg_pool2d(in, {3, 2}, {2, 2}, {1, 1}, ceil, include_pad,
                                             divisor ? c10::optional<int64_t>(divisor) : c10::nullopt);
        OpRunner runner("aten::avg_pool2d.out");
        runner.tensor(in).ints({3, 2}).ints({2, 2}).ints({1, 1}).boolean(ceil).boolean(include_pad);
        if (divisor) runner.integer(divisor); else runner.none();
        runner.out(at::kFloat, expected.sizes()).returned();
        ASSERT_EQ(runner.run(), "");
        EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-6, 1e-6));
      }
    }
  }
  at::Tensor expected = at::_adaptive_avg_pool2d(in, {3, 4});
  OpRunner adaptive("aten::_adaptive_avg_pool2d.out");
  adaptive.tensor(in).ints({3, 4}).out(at::kFloat, {2, 4, 3, 4}).returned();
  ASSERT_EQ(adaptive.run(), "");
  EXPECT_TRUE(tensors_close(adaptive.result(), expected, 1e-6, 1e-6));
}

TEST(Softmax, SoftmaxAndLogSoftmaxOverEveryDim) {
  std::mt19937_64 rng(kernel_test_seed() + 32);
  at::Tensor in = random_tensor(rng, {3, 4, 5}, at::kFloat) * 10;
  for (int64_t dim : {0, 1, 2, -1}) {
    for (bool log : {false, true}) {
      at::Tensor expected = log ? at::_log_softmax(in, dim, false) : at::_softmax(in, dim, false);
      OpRunner runner(log ? "aten::_log_softmax.out" : "aten::_softmax.out");
      runner.tensor(in).integer(dim).boolean(false).out(at::kFloat, in.sizes()).returned();
      ASSERT_EQ(runner.run(), "");
      EXPECT_TRUE(tensors_close(runner.result(), expected, 1e-5, 1e-6)) << dim << " " << log;
    }
  }
}

TEST(Norms, LayerNormGroupNormBatchNorm) {
  std::mt19937_64 rng(kernel_test_seed() + 33);
  at::Tensor in = random_tensor(rng, {2, 7, 16}, at::kFloat) * 3 + 1;
  at::Tensor weight = random_tensor(rng, {16}, at::kFloat);
  at::Tensor bias = random_tensor(rng, {16}, at::kFloat);
  auto [y, mean, rstd] = at::native_layer_norm(in, {16}, weight, bias, 1e-5);
  OpRunner layer("aten::native_layer_norm.out");
  layer.tensor(in).ints({16}).tensor(weight).tensor(bias).real(1e-5)
      .out(at::kFloat, in.sizes()).out(at::kFloat, mean.sizes()).out(at::kFloat, rstd.sizes())
      .outs_as_list();
  ASSERT_EQ(layer.run(), "");
  EXPECT_TRUE(tensors_close(layer.result(0), y, 1e-5, 1e-5));
  EXPECT_TRUE(tensors_close(layer.result(1), mean, 1e-5, 1e-6));
  EXPECT_TRUE(tensors_close(layer.result(2), rstd, 1e-5, 1e-6));

  at::Tensor image = random_tensor(rng, {2, 6, 4, 5}, at::kFloat);
  at::Tensor gw = random_tensor(rng, {6}, at::kFloat), gb = random_tensor(rng, {6}, at::kFloat);
  auto [gy, gmean, grstd] = at::native_group_norm(image, gw, gb, 2, 6, 20, 3, 1e-5);
  OpRunner group("aten::native_group_norm.out");
  group.tensor(image).tensor(gw).tensor(gb).integer(2).integer(6).integer(20).integer(3).real(1e-5)
      .out(at::kFloat, gy.sizes()).out(at::kFloat, gmean.sizes()).out(at::kFloat, grstd.sizes())
      .outs_as_list();
  ASSERT_EQ(group.run(), "");
  EXPECT_TRUE(tensors_close(group.result(0), gy, 1e-5, 1e-5));
  EXPECT_TRUE(tensors_close(group.result(1), gmean, 1e-5, 1e-6));

  // Batch norm with non-trivial statistics, contiguous and channels-last.
  at::Tensor rm = random_tensor(rng, {6}, at::kFloat);
  at::Tensor rv = random_tensor(rng, {6}, at::kFloat).abs() + 0.5;
  for (auto format : {at::MemoryFormat::Contiguous, at::MemoryFormat::ChannelsLast}) {
    at::Tensor x = image.contiguous(format);
    // libtorch 1.13 predates _native_batch_norm_legit_no_training; inference
    // native_batch_norm is the same computation.
    auto [by, bm, bs] = at::native_batch_norm(x, gw, gb, rm, rv, false, 0.1, 1e-5);
    OpRunner batch("aten::_native_batch_norm_legit_no_training.out");
    batch.tensor(x).tensor(gw).tensor(gb).tensor(rm).tensor(rv).real(0.1).real(1e-5)
        .out(at::kFloat, x.sizes(), format).out(at::kFloat, {0}).out(at::kFloat, {0})
        .outs_as_list();
    ASSERT_EQ(batch.run(), "");
    EXPECT_TRUE(tensors_close(batch.result(0), by, 1e-5, 1e-6));
    EXPECT_EQ(batch.result(1).numel(), bm.numel());
  }
}

// Found by fuzzing: statistics and weights of another dtype than the input
// were read as the input's type, past their end. ATen refuses them.
TEST(Norms, ParametersOfAnotherDtypeThanTheInputAreRefusedAsAtenDoes) {
  const at::Tensor x = at::randn({2, 3, 4}, at::kDouble);
  const at::Tensor ones = at::ones({3}), zeros = at::zeros({3});
  EXPECT_ANY_THROW(at::native_batch_norm(x, {}, {}, zeros, ones, false, 0.1, 1e-5));
  OpRunner batch("aten::_native_batch_norm_legit_no_training.out");
  batch.tensor(x).none().none().tensor(zeros).tensor(ones).real(0.1).real(1e-5)
      .out(at::kDouble, x.sizes()).out(at::kDouble, {0}).out(at::kDouble, {0}).outs_as_list();
  EXPECT_NE(batch.run().find("expected float64 tensors like the input, got float32"), std::string::npos);

  const at::Tensor w4 = at::ones({4});
  EXPECT_ANY_THROW(at::native_layer_norm(x, {4}, w4, {}, 1e-5));
  OpRunner layer("aten::native_layer_norm.out");
  layer.tensor(x).ints({4}).tensor(w4).none().real(1e-5)
      .out(at::kDouble, x.sizes()).out(at::kDouble, {2, 3, 1}).out(at::kDouble, {2, 3, 1})
      .outs_as_list();
  EXPECT_NE(layer.run(), "");

  EXPECT_ANY_THROW(at::native_group_norm(x, ones, {}, 2, 3, 4, 3, 1e-5));
  OpRunner group("aten::native_group_norm.out");
  group.tensor(x).tensor(ones).none().integer(2).integer(3).integer(4).integer(3).real(1e-5)
      .out(at::kDouble, x.sizes()).out(at::kDouble, {2, 3}).out(at::kDouble, {2, 3}).outs_as_list();
  EXPECT_NE(group.run(), "");
  // A weight with fewer entries than channels is refused too.
  OpRunner short_weight("aten::native_group_norm.out");
  short_weight.tensor(x).tensor(at::ones({2}, at::kDouble)).none().integer(2).integer(3).integer(4)
      .integer(3).real(1e-5).out(at::kDouble, x.sizes()).out(at::kDouble, {2, 3})
      .out(at::kDouble, {2, 3}).outs_as_list();
  EXPECT_NE(short_weight.run().find("weight must have 3 entries"), std::string::npos);
}

// Found by fuzzing: adaptive average pooling wrote float32 results into an
// int8 out, past its end. ATen refuses such an out, as every pooling does now.
TEST(Pooling, AnOutOfAnotherDtypeIsRefusedAsAtenDoes) {
  const at::Tensor in = at::randn({1, 2, 4, 4});
  at::Tensor int8_out = at::empty({1, 2, 2, 2}, at::kChar);
  EXPECT_ANY_THROW(at::adaptive_avg_pool2d_out(int8_out, in, {2, 2}));
  OpRunner adaptive("aten::_adaptive_avg_pool2d.out");
  adaptive.tensor(in).ints({2, 2}).out(at::kChar, {1, 2, 2, 2}).returned();
  EXPECT_NE(adaptive.run().find("out dtype must match input"), std::string::npos);
}

}  // namespace
}  // namespace etkit::test
