// Reductions, view-like copies, indexing, creation and quantization
// kernels against libtorch.

#include <gtest/gtest.h>

#include <limits>

#include "op_runner.h"

namespace etkit::test {
namespace {

TEST(Reductions, SumMeanAmaxAminArgmax) {
  std::mt19937_64 rng(kernel_test_seed() + 40);
  at::Tensor f = random_tensor(rng, {3, 4, 5}, at::kFloat);
  at::Tensor i = random_tensor(rng, {3, 4, 5}, at::kInt);
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {-1}, {0, 2}, {1}};
  for (const auto& dims : dim_sets) {
    for (bool keepdim : {false, true}) {
      at::Tensor expected = at::sum(f, dims, keepdim);
      OpRunner sum("aten::sum.IntList_out");
      sum.tensor(f).ints(dims).boolean(keepdim).none().out(at::kFloat, expected.sizes()).returned();
      ASSERT_EQ(sum.run(), "");
      EXPECT_TRUE(tensors_close(sum.result(), expected, 1e-5, 1e-5));
      at::Tensor isum = at::sum(i, dims, keepdim);  // int64 result
      OpRunner int_sum("aten::sum.IntList_out");
      int_sum.tensor(i).ints(dims).boolean(keepdim).none().out(at::kLong, isum.sizes()).returned();
      ASSERT_EQ(int_sum.run(), "");
      EXPECT_TRUE(tensors_close(int_sum.result(), isum));
      at::Tensor mean = at::mean(f, dims, keepdim);
      OpRunner mean_runner("aten::mean.out");
      mean_runner.tensor(f).ints(dims).boolean(keepdim).none().out(at::kFloat, mean.sizes()).returned();
      ASSERT_EQ(mean_runner.run(), "");
      EXPECT_TRUE(tensors_close(mean_runner.result(), mean, 1e-5, 1e-6));
      if (dims.empty()) continue;
      for (bool is_max : {true, false}) {
        at::Tensor ext = is_max ? at::amax(f, dims, keepdim) : at::amin(f, dims, keepdim);
        OpRunner runner(is_max ? "aten::amax.out" : "aten::amin.out");
        runner.tensor(f).ints(dims).boolean(keepdim).out(at::kFloat, ext.sizes()).returned();
        ASSERT_EQ(runner.run(), "");
        EXPECT_TRUE(tensors_close(runner.result(), ext));
      }
    }
  }
  for (bool keepdim : {false, true}) {
    at::Tensor arg = at::argmax(f, 1, keepdim);
    OpRunner runner("aten::argmax.out");
    runner.tensor(f).integer(1).boolean(keepdim).out(at::kLong, arg.sizes()).returned();
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), arg));
  }
  at::Tensor flat_arg = at::argmin(i);
  OpRunner flat("aten::argmin.out");
  flat.tensor(i).none().boolean(false).out(at::kLong, {}).returned();
  ASSERT_EQ(flat.run(), "");
  EXPECT_TRUE(tensors_close(flat.result(), flat_arg));
}

TEST(ShapeOps, ViewPermuteTransposeExpandSqueeze) {
  std::mt19937_64 rng(kernel_test_seed() + 41);
  at::Tensor x = random_tensor(rng, {2, 3, 4}, at::kFloat);
  auto check = [&](OpRunner& runner, const at::Tensor& expected) {
    ASSERT_EQ(runner.run(), "");
    EXPECT_TRUE(tensors_close(runner.result(), expected));
  };
  { OpRunner r("aten::view_copy.out"); r.tensor(x).ints({4, -1}).out(at::kFloat, {4, 6}).returned(); check(r, x.view({4, -1})); }
  { OpRunner r("aten::permute_copy.out"); r.tensor(x).ints({2, 0, 1}).out(at::kFloat, {4, 2, 3}).returned(); check(r, x.permute({2, 0, 1})); }
  { OpRunner r("aten::transpose_copy.int_out"); r.tensor(x).integer(0).integer(-1).out(at::kFloat, {4, 3, 2}).returned(); check(r, x.transpose(0, -1)); }
  at::Tensor col = random_tensor(rng, {3, 1}, at::kInt);
  { OpRunner r("aten::expand_copy.out"); r.tensor(col).ints({2, -1, 5}).boolean(false).out(at::kInt, {2, 3, 5}).returned(); check(r, col.expand({2, -1, 5})); }
  at::Tensor s = random_tensor(rng, {1, 3, 1, 2}, at::kFloat);
  { OpRunner r("aten::squeeze_copy.dims_out"); r.tensor(s).ints({0, 2}).out(at::kFloat, {3, 2}).returned(); check(r, s.squeeze(0).squeeze(1)); }
  { OpRunner r("aten::squeeze_copy.dim_out"); r.tensor(s).integer(2).out(at::kFloat, {1, 3, 2}).returned(); check(r, s.squeeze(2)); }
  { OpRunner r("aten::unsqueeze_copy.out"); r.tensor(x).integer(-1).out(at::kFloat, {2, 3, 4, 1}).returned(); check(r, x.unsqueeze(-1)); }
  // A view of a channels-last tensor reads in logical order.
  at::Tensor cl = random_tensor(rng, {1, 3, 2, 2}, at::kFloat).contiguous(at::MemoryFormat::ChannelsLast);
  { OpRunner r("aten::view_copy.out"); r.tensor(cl).ints({1, 12}).out(at::kFloat, {1, 12}).returned(); check(r, cl.reshape({1, 12})); }
}

TEST(ShapeOps, SliceSelectCatSplit) {
  std::mt19937_64 rng(kernel_test_seed() + 42);
  at::Tensor x = random_tensor(rng, {5, 6}, at::kLong);
  auto check = [&](OpRunner& runner, const at::Tensor& expected, size_t k = 0) {
    EXPECT_TRUE(tensors_close(runner.result(k), expected));
  };
  struct Slice { int64_t dim; c10::optional<int64_t> start, end; int64_t step; };
  for (const Slice& s : std::vector<Slice>{{0, 1, 4, 1}, {1, -4, c10::nullopt, 2}, {1, c10::nullopt, 100, 3},
                                           {0, 7, 9, 1}, {-1, -100, -2, 1}}) {
    at::Tensor expected = at::slice(x, s.dim, s.start, s.end, s.step);
    OpRunner r("aten::slice_copy.Tensor_out");
    r.tensor(x).integer(s.dim);
    if (s.start) r.integer(*s.start); else r.none();
    if (s.end) r.integer(*s.end); else r.none();
    r.integer(s.step).out(at::kLong, {5, 6}).returned();
    ASSERT_EQ(r.run(), "");
    check(r, expected);
  }
  { OpRunner r("aten::select_copy.int_out"); r.tensor(x).integer(1).integer(-2).out(at::kLong, {5}).returned(); ASSERT_EQ(r.run(), ""); check(r, x.select(1, -2)); }
  at::Tensor y = random_tensor(rng, {5, 2}, at::kLong);
  at::Tensor empty = at::empty({0}, at::kLong);
  { OpRunner r("aten::cat.out"); r.tensors({x, empty, y}).integer(1).out(at::kLong, {5, 8}).returned(); ASSERT_EQ(r.run(), ""); check(r, at::cat({x, y}, 1)); }
  auto parts = at::split_with_sizes(x, {1, 3, 2}, 1);
  OpRunner split("aten::split_with_sizes_copy.out");
  split.tensor(x).ints({1, 3, 2}).integer(1);
  split.list_out(at::kLong, {5, 1}).list_out(at::kLong, {5, 3}).list_out(at::kLong, {5, 2});
  split.outs_as_list().returned();  // the op returns nothing: the return slot repeats the out list
  ASSERT_EQ(split.run(), "");
  for (size_t k = 0; k < 3; ++k) check(split, parts[k], k);
}

TEST(ShapeOps, CopiesConvertAndChangeDimOrder) {
  at::Tensor x = at::randn({2, 3, 4, 5});
  OpRunner to_cl("dim_order_ops::_to_dim_order_copy.out");
  to_cl.tensor(x).boolean(false).ints({0, 2, 3, 1})
      .out(at::kFloat, {2, 3, 4, 5}, at::MemoryFormat::ChannelsLast).returned();
  ASSERT_EQ(to_cl.run(), "");
  EXPECT_TRUE(tensors_close(to_cl.result(), x));
  EXPECT_TRUE(to_cl.result().is_contiguous(at::MemoryFormat::ChannelsLast));
  OpRunner to_int("aten::_to_copy.out");
  at::Tensor scaled = x * 100;
  to_int.tensor(scaled).boolean(false).none().out(at::kInt, x.sizes()).returned();
  ASSERT_EQ(to_int.run(), "");
  EXPECT_TRUE(tensors_close(to_int.result(), scaled.to(at::kInt)));
}

TEST(IndexOps, EmbeddingIndexSelectIndexTensor) {
  std::mt19937_64 rng(kernel_test_seed() + 43);
  at::Tensor weight = random_tensor(rng, {10, 4}, at::kFloat);
  at::Tensor ids = random_tensor(rng, {2, 3}, at::kLong, 0, 10);
  OpRunner emb("aten::embedding.out");
  emb.tensor(weight).tensor(ids).integer(-1).boolean(false).boolean(false).out(at::kFloat, {2, 3, 4}).returned();
  ASSERT_EQ(emb.run(), "");
  EXPECT_TRUE(tensors_close(emb.result(), at::embedding(weight, ids)));
  at::Tensor bad = at::full({1}, 10, at::kLong);
  OpRunner out_of_range("aten::embedding.out");
  out_of_range.tensor(weight).tensor(bad).integer(-1).boolean(false).boolean(false).out(at::kFloat, {1, 4}).returned();
  EXPECT_NE(out_of_range.run().find("out of range"), std::string::npos);

  at::Tensor x = random_tensor(rng, {4, 5, 6}, at::kFloat);
  at::Tensor idx = random_tensor(rng, {3}, at::kLong, -5, 5);
  OpRunner sel("aten::index_select.out");
  at::Tensor positive = idx.remainder(5);
  sel.tensor(x).integer(1).tensor(positive).out(at::kFloat, {4, 3, 6}).returned();
  ASSERT_EQ(sel.run(), "");
  EXPECT_TRUE(tensors_close(sel.result(), at::index_select(x, 1, positive)));

  at::Tensor i0 = random_tensor(rng, {2, 1}, at::kLong, -4, 4);
  at::Tensor i1 = random_tensor(rng, {3}, at::kLong, 0, 5);
  at::Tensor expected = at::index(x, {i0, i1});
  OpRunner index("aten::index.Tensor_out");
  index.tensor(x).tensors({i0, i1}).out(at::kFloat, expected.sizes()).returned();
  ASSERT_EQ(index.run(), "");
  EXPECT_TRUE(tensors_close(index.result(), expected));
}

// Index tensors on dims a skipped dim separates (x[i, :, j]): as ATen, the
// broadcast index dims come first, then every dim not indexed; a mask and
// an index on separated dims too; index_put writes through the same plan.
TEST(IndexOps, NonAdjacentIndexTensorsPutTheIndexDimsFirst) {
  std::mt19937_64 rng(kernel_test_seed() + 31);
  const at::Tensor x = random_tensor(rng, {4, 5, 6, 3}, at::kFloat);
  const at::Tensor i0 = random_tensor(rng, {2, 1}, at::kLong, -4, 4);
  const at::Tensor i2 = random_tensor(rng, {7}, at::kLong, 0, 6);
  const at::Tensor mask = random_tensor(rng, {4}, at::kFloat).gt(0);
  const std::vector<std::vector<const at::Tensor*>> lists = {
      {&i0, nullptr, &i2}, {nullptr, &i0, nullptr, &i0}, {&mask, nullptr, nullptr, &i0}, {&i0, &i0}};
  for (const auto& list : lists) {
    c10::List<c10::optional<at::Tensor>> aten_list;
    for (const at::Tensor* t : list) aten_list.push_back(t ? c10::optional<at::Tensor>(*t) : c10::nullopt);
    const at::Tensor expected = at::index(x, aten_list);
    OpRunner index("aten::index.Tensor_out");
    index.tensor(x).optional_tensors(list).out(at::kFloat, expected.sizes()).returned();
    ASSERT_EQ(index.run(), "") << expected.sizes();
    EXPECT_TRUE(at::equal(index.result(), expected)) << expected.sizes();
    const at::Tensor values = random_tensor(rng, expected.sizes().vec(), at::kFloat);
    const at::Tensor put = at::index_put(x, aten_list, values, /*accumulate=*/true);
    OpRunner index_put("aten::index_put.out");
    index_put.tensor(x).optional_tensors(list).tensor(values).boolean(true).out(at::kFloat, x.sizes()).returned();
    ASSERT_EQ(index_put.run(), "");
    EXPECT_TRUE(tensors_close(index_put.result(), put, 1e-6, 1e-6)) << expected.sizes();
  }
}

TEST(CreationOps, FullArangePadRepeatUpsample) {
  OpRunner full("aten::full.out");
  full.ints({2, 3}).real(1.5).out(at::kFloat, {2, 3}).returned();
  ASSERT_EQ(full.run(), "");
  EXPECT_TRUE(tensors_close(full.result(), at::full({2, 3}, 1.5)));
  OpRunner arange("aten::arange.start_out");
  arange.real(-1.0).real(2.0).real(0.25).out(at::kFloat, {12}).returned();
  ASSERT_EQ(arange.run(), "");
  EXPECT_TRUE(tensors_close(arange.result(), at::arange(-1.0, 2.0, 0.25)));
  OpRunner int_arange("aten::arange.out");
  int_arange.integer(7).out(at::kLong, {7}).returned();
  ASSERT_EQ(int_arange.run(), "");
  EXPECT_TRUE(tensors_close(int_arange.result(), at::arange(7)));
  // Lengths beyond any tensor, and infinite bounds, are refused as ATen
  // refuses them (found by fuzzing: the length was cast to int64 unchecked).
  for (const double end : {1e300, std::numeric_limits<double>::infinity()}) {
    OpRunner huge("aten::arange.start_out");
    huge.real(0.0).real(end).real(1.0).out(at::kFloat, {12}).returned();
    EXPECT_NE(huge.run(), "") << end;
    EXPECT_ANY_THROW(at::arange(0.0, end, 1.0)) << end;
  }

  at::Tensor x = at::randn({2, 3, 4});
  OpRunner pad("aten::constant_pad_nd.out");
  pad.tensor(x).ints({1, 2, -1, 1}).real(0.5).out(at::kFloat, {2, 3, 7}).returned();
  ASSERT_EQ(pad.run(), "");
  EXPECT_TRUE(tensors_close(pad.result(), at::constant_pad_nd(x, {1, 2, -1, 1}, 0.5)));
  OpRunner repeat("aten::repeat.out");
  repeat.tensor(x).ints({2, 1, 1, 3}).out(at::kFloat, {2, 2, 3, 12}).returned();
  ASSERT_EQ(repeat.run(), "");
  EXPECT_TRUE(tensors_close(repeat.result(), x.repeat({2, 1, 1, 3})));
  at::Tensor image = at::randn({1, 2, 3, 5});
  OpRunner up("aten::upsample_nearest2d.vec_out");
  up.tensor(image).ints({7, 9}).none().out(at::kFloat, {1, 2, 7, 9}).returned();
  ASSERT_EQ(up.run(), "");
  EXPECT_TRUE(tensors_close(up.result(), at::upsample_nearest2d(image, {7, 9}, c10::nullopt, c10::nullopt)));
}

TEST(PrimOps, ScalarArithmeticAndSymSize) {
  OpRunner add("executorch_prim::floordiv.Scalar");
  add.integer(-7).integer(2).integer(0);
  ASSERT_EQ(add.run(), "");
  EXPECT_EQ(add.arg(2).unchecked_int(), -4);  // Python floor division
  OpRunner div("executorch_prim::truediv.Scalar");
  div.integer(7).integer(2).real(0);
  ASSERT_EQ(div.run(), "");
  EXPECT_DOUBLE_EQ(div.arg(2).unchecked_double(), 3.5);
  at::Tensor t = at::zeros({3, 5});
  OpRunner size("aten::sym_size.int");
  size.tensor(t).integer(-1).integer(0);
  ASSERT_EQ(size.run(), "");
  EXPECT_EQ(size.arg(2).unchecked_int(), 5);
}

}  // namespace
// Found by fuzzing: float -> int64 conversion of values just above int64's
// range was undefined; it gives what ATen gives on x86 (INT64_MIN), as do NaN
// and infinities.
TEST(Copies, FloatToInt64OutsideTheRangeConvertsAsAten) {
  const at::Tensor in = at::tensor({9.25e18, -9.3e18, 9.2e18, std::numeric_limits<double>::quiet_NaN(),
                                    std::numeric_limits<double>::infinity()},
                                   at::kDouble);
  OpRunner copy("aten::_to_copy.out");
  copy.tensor(in).boolean(false).none().out(at::kLong, {5}).returned();
  ASSERT_EQ(copy.run(), "");
  EXPECT_TRUE(at::equal(copy.result(), in.to(at::kLong)));
}

}  // namespace etkit::test

namespace etkit {
namespace {

// The copy engine's fast paths (one run, tiled 2-D transpose, vector
// interleave of 3 planes, few-channel loops) against libtorch's permute,
// over channel counts, sizes that leave tile and vector remainders, and
// element sizes 1, 2, 4 and 8.
TEST(Copies, NchwNhwcPermutesMatchLibtorchOnEveryPath) {
  std::mt19937_64 rng(test::kernel_test_seed());
  for (at::ScalarType type : {at::kByte, at::kShort, at::kFloat, at::kDouble}) {
    for (int64_t channels : {1, 2, 3, 4, 5, 17}) {
      for (auto [h, w] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 7}, {9, 33}, {2, 130}}) {
        for (bool to_nhwc : {true, false}) {
          const std::vector<int64_t> perm = to_nhwc ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 3, 1, 2};
          const at::Tensor x = to_nhwc ? test::random_tensor(rng, {2, channels, h, w}, type, -100, 100)
                                       : test::random_tensor(rng, {2, h, w, channels}, type, -100, 100);
          const at::Tensor expected = x.permute(perm).contiguous();
          test::OpRunner op("aten::permute_copy.out");
          op.tensor(x).ints(perm).out(type, expected.sizes()).returned();
          ASSERT_EQ(op.run(), "");
          EXPECT_TRUE(op.result().equal(expected))
              << at::toString(type) << " C " << channels << " " << h << "x" << w << (to_nhwc ? " to NHWC" : " to NCHW");
        }
      }
    }
  }
}

// 2-D transposes of 4-byte words (a classifier's weight before addmm):
// whole 16 x 16 tiles go through 8 x 8 register blocks, partial ones with
// sides of 8 too, the others element by element; floats and integers
// alike must come through as the same bits.
TEST(Copies, TransposesOfFourByteWordsMatchLibtorchInWholeAndPartialTiles) {
  std::mt19937_64 rng(test::kernel_test_seed());
  for (at::ScalarType type : {at::kFloat, at::kInt}) {
    for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{64, 48}, {40, 24}, {33, 130}, {200, 17}, {8, 8}}) {
      const at::Tensor x = test::random_tensor(rng, {rows, cols}, type, -1000, 1000);
      const at::Tensor expected = x.t().contiguous();
      test::OpRunner op("aten::t_copy.out");
      op.tensor(x).out(type, expected.sizes()).returned();
      ASSERT_EQ(op.run(), "");
      EXPECT_TRUE(op.result().equal(expected)) << at::toString(type) << " " << rows << "x" << cols;
    }
  }
}

}  // namespace
}  // namespace etkit
