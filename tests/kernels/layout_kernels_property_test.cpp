// The layout kernels (permute, transpose, t, clone, _clone_dim_order,
// copy, cat, stack, expand, repeat, narrow, slice) against libtorch over
// every element size the copy engine moves (1, 2, 4, 8 and 16 bytes), on
// random shapes with odd, prime, size-1 and zero sizes, inputs in other
// dim orders than the default, and outs in channels-last. Each kernel's
// word copies, tiled transposes and vector interleaves are reached by
// some case; the test is built with AddressSanitizer in the test command,
// so a copy that strays outside its tensors fails here (issue #38: a
// one-byte tensor copied as 4-byte words). The seed is ETKIT_TEST_SEED's
// (printed on failure); the number of cases is printed at the end.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "op_runner.h"

namespace etkit::test {
namespace {

// One dtype per element size, and a second of the same size (bytes are
// bytes to a copy, but a kernel may dispatch on the dtype).
const std::vector<at::ScalarType> kTypes = {at::kByte,  at::kChar,   at::kShort, at::kHalf,          at::kFloat,
                                            at::kInt,   at::kDouble, at::kLong,  at::kComplexDouble, at::kBool};

class ShapeSource {
 public:
  explicit ShapeSource(uint64_t seed) : rng_(seed) {}
  int64_t size() {
    static const int64_t kSizes[] = {1, 2, 3, 4, 5, 7, 13, 17, 1, 3, 31, 0};
    return kSizes[pick(pick(8) == 0 ? 12 : 11)];
  }
  std::vector<int64_t> shape(int64_t rank, int64_t max_numel = 20000) {
    std::vector<int64_t> sizes(size_t(rank), 1);
    int64_t numel = 1;
    for (int64_t& s : sizes) {
      s = size();
      if (s > 0 && numel * s > max_numel) s = 1;
      numel *= std::max<int64_t>(s, 1);
    }
    return sizes;
  }
  std::vector<int64_t> permutation(int64_t rank) {
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng_);
    return perm;
  }
  /// A random tensor of `type`, dense but, half of the time, in another
  /// dim order than the default (a permuted view of a contiguous tensor).
  at::Tensor tensor(at::ScalarType type, const std::vector<int64_t>& sizes) {
    if (!coin() || sizes.size() < 2) return random_tensor(rng_, sizes, type, -100, 100);
    const std::vector<int64_t> perm = permutation(int64_t(sizes.size()));
    std::vector<int64_t> stored(sizes.size());
    for (size_t i = 0; i < perm.size(); ++i) stored[size_t(perm[i])] = sizes[i];
    // base.permute(perm) has size stored[perm[i]] = sizes[i] in dim i.
    return random_tensor(rng_, stored, type, -100, 100).permute(perm);
  }
  int64_t pick(int64_t n) { return int64_t(rng_() % uint64_t(n)); }
  bool coin() { return (rng_() & 1) != 0; }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

struct Counter {
  int cases = 0;
  ~Counter() { std::printf("layout kernel property cases: %d\n", cases); }
};
Counter& counter() {
  static Counter c;
  return c;
}

// Runs `op`, then checks its out against `expected` (values, shape, dtype).
void expect_equal(OpRunner& op, const at::Tensor& expected, const std::string& what) {
  ++counter().cases;
  const std::string error = op.run();
  ASSERT_EQ(error, "") << what;
  const at::Tensor actual = op.result();
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  EXPECT_TRUE(actual.equal(expected.contiguous())) << what << " (seed " << kernel_test_seed() << ")";
}

std::string describe(const char* op, at::ScalarType type, const at::Tensor& x) {
  std::string text = std::string(op) + " " + at::toString(type) + " [";
  for (int64_t s : x.sizes()) text += std::to_string(s) + ",";
  text += "] strides [";
  for (int64_t s : x.strides()) text += std::to_string(s) + ",";
  return text + "]";
}

constexpr int kShapesPerType = 40;

TEST(LayoutKernelProperty, PermuteTransposeAndTMatchLibtorch) {
  ShapeSource src(kernel_test_seed());
  for (at::ScalarType type : kTypes) {
    for (int i = 0; i < kShapesPerType; ++i) {
      const int64_t rank = 1 + src.pick(5);
      const at::Tensor x = src.tensor(type, src.shape(rank));
      const std::vector<int64_t> perm = src.permutation(rank);
      const at::Tensor permuted = x.permute(perm);
      const at::MemoryFormat format =
          rank == 4 && src.coin() ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
      OpRunner p("aten::permute_copy.out");
      p.tensor(x).ints(perm).out(type, permuted.sizes(), format).returned();
      expect_equal(p, permuted, describe("permute_copy", type, x));
      const int64_t d0 = src.pick(rank) - (src.coin() ? rank : 0), d1 = src.pick(rank);
      OpRunner t("aten::transpose_copy.int_out");
      t.tensor(x).integer(d0).integer(d1).out(type, x.transpose(d0, d1).sizes()).returned();
      expect_equal(t, x.transpose(d0, d1), describe("transpose_copy", type, x));
      if (rank <= 2) {
        OpRunner tc("aten::t_copy.out");
        tc.tensor(x).out(type, x.t().sizes()).returned();
        expect_equal(tc, x.t(), describe("t_copy", type, x));
      }
    }
  }
}

TEST(LayoutKernelProperty, ClonesAndCopiesIntoEveryDimOrderMatchLibtorch) {
  ShapeSource src(kernel_test_seed() + 1);
  for (at::ScalarType type : kTypes) {
    for (int i = 0; i < kShapesPerType; ++i) {
      const int64_t rank = 1 + src.pick(5);
      const at::Tensor x = src.tensor(type, src.shape(rank));
      const at::MemoryFormat format =
          rank == 4 && src.coin() ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
      OpRunner clone("aten::clone.out");
      clone.tensor(x).none().out(type, x.sizes(), format).returned();
      expect_equal(clone, x, describe("clone", type, x));
      const bool unambiguous = std::all_of(x.sizes().begin(), x.sizes().end(), [](int64_t s) { return s > 1; });
      if (rank == 4 && unambiguous) {
        // _clone_dim_order to channels-last: the out's dim order is asked
        // for. (The out is an ATen channels-last tensor whose dim order is
        // read back from its strides, which size-1 dims leave ambiguous.)
        OpRunner to_nhwc("dim_order_ops::_clone_dim_order.out");
        to_nhwc.tensor(x).boolean(false).ints({0, 2, 3, 1}).out(type, x.sizes(), at::MemoryFormat::ChannelsLast)
            .returned();
        expect_equal(to_nhwc, x, describe("_clone_dim_order", type, x));
      }
      if (at::isComplexType(type)) continue;  // copy.out takes real, half and bool types, as upstream's
      const at::Tensor destination = src.tensor(type, x.sizes().vec());
      OpRunner copy("aten::copy.out");
      copy.tensor(destination).tensor(x).boolean(false).out(type, x.sizes(), format).returned();
      expect_equal(copy, x, describe("copy", type, x));
    }
  }
}

TEST(LayoutKernelProperty, CatAndStackMatchLibtorch) {
  ShapeSource src(kernel_test_seed() + 2);
  for (at::ScalarType type : kTypes) {
    for (int i = 0; i < kShapesPerType; ++i) {
      const int64_t rank = 1 + src.pick(4);
      const std::vector<int64_t> shape = src.shape(rank, 4000);
      const int64_t dim = src.pick(rank) - (src.coin() ? rank : 0);
      std::vector<at::Tensor> parts;
      const int64_t count = 1 + src.pick(4);
      for (int64_t k = 0; k < count; ++k) {
        std::vector<int64_t> sizes = shape;
        sizes[size_t(dim < 0 ? dim + rank : dim)] = src.size();
        parts.push_back(src.tensor(type, sizes));
      }
      const at::Tensor expected = at::cat(parts, dim);
      OpRunner cat("aten::cat.out");
      cat.tensors(parts).integer(dim).out(type, expected.sizes()).returned();
      expect_equal(cat, expected, describe("cat", type, parts[0]));
      std::vector<at::Tensor> same;
      for (int64_t k = 0; k < count; ++k) same.push_back(src.tensor(type, shape));
      const int64_t stack_dim = src.pick(rank + 1);
      const at::Tensor stacked = at::stack(same, stack_dim);
      OpRunner stack("aten::stack.out");
      stack.tensors(same).integer(stack_dim).out(type, stacked.sizes()).returned();
      expect_equal(stack, stacked, describe("stack", type, same[0]));
    }
  }
}

TEST(LayoutKernelProperty, ExpandRepeatNarrowAndSliceMatchLibtorch) {
  ShapeSource src(kernel_test_seed() + 3);
  for (at::ScalarType type : kTypes) {
    for (int i = 0; i < kShapesPerType; ++i) {
      const int64_t rank = 1 + src.pick(4);
      std::vector<int64_t> shape = src.shape(rank, 2000);
      for (int64_t& s : shape) s = src.coin() ? 1 : s;  // size-1 dims expand
      const at::Tensor x = src.tensor(type, shape);
      std::vector<int64_t> target = shape;
      for (int64_t& s : target) s = s == 1 ? src.size() : (src.coin() ? -1 : s);
      if (src.coin()) target.insert(target.begin(), 1 + src.pick(3));  // a new leading dim
      const at::Tensor expanded = x.expand(target);
      OpRunner expand("aten::expand_copy.out");
      expand.tensor(x).ints(target).boolean(false).out(type, expanded.sizes()).returned();
      expect_equal(expand, expanded, describe("expand_copy", type, x));

      std::vector<int64_t> repeats(size_t(rank + src.pick(2)));
      for (int64_t& r : repeats) r = src.pick(4);
      const at::Tensor repeated = x.repeat(repeats);
      OpRunner repeat("aten::repeat.out");
      repeat.tensor(x).ints(repeats).out(type, repeated.sizes()).returned();
      expect_equal(repeat, repeated, describe("repeat", type, x));

      const at::Tensor y = src.tensor(type, src.shape(rank));
      const int64_t dim = src.pick(rank);
      const int64_t size = y.size(dim), start = size == 0 ? 0 : src.pick(size);
      const int64_t length = size - start == 0 ? 0 : src.pick(size - start + 1);
      OpRunner narrow("aten::narrow_copy.out");
      narrow.tensor(y).integer(dim).integer(start).integer(length).out(type, y.narrow(dim, start, length).sizes())
          .returned();
      expect_equal(narrow, y.narrow(dim, start, length), describe("narrow_copy", type, y));
      const int64_t step = 1 + src.pick(3);
      const at::Tensor sliced = y.slice(dim, start, start + length, step);
      OpRunner slice("aten::slice_copy.Tensor_out");
      slice.tensor(y).integer(dim).integer(start).integer(start + length).integer(step).out(type, sliced.sizes())
          .returned();
      expect_equal(slice, sliced, describe("slice_copy", type, y));
    }
  }
}

}  // namespace
}  // namespace etkit::test
