// Shapes from files multiplied out safely: hand-derived limits.

#include "etkit/core/checked_size.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "etkit/core/tensor.h"

namespace etkit {
namespace {

TEST(CheckedSize, MultipliesDimensionsAndElementSize) {
  const std::vector<int64_t> sizes = {2, 3, 4};
  auto bytes = checked_nbytes(Span<const int64_t>(sizes.data(), sizes.size()), 4);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, 96u);
  const std::vector<int64_t> empty = {5, 0, 7};
  EXPECT_EQ(*checked_nbytes(Span<const int64_t>(empty.data(), empty.size()), 8), 0u);
}

TEST(CheckedSize, RefusesNegativeSizesAndProductsBeyondTheCap) {
  CheckedShape negative;
  ASSERT_TRUE(negative.add(3).ok());
  auto refused = negative.add(-1);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.error().message()).find("dimension 1 has negative size -1"), std::string::npos);
  // 2^24 * 2^24 = 2^48 elements is the cap; one more dimension of 2 is not.
  CheckedShape big;
  ASSERT_TRUE(big.add(int64_t{1} << 24).ok());
  ASSERT_TRUE(big.add(int64_t{1} << 24).ok());
  EXPECT_TRUE(big.nbytes(1).ok());
  EXPECT_FALSE(big.nbytes(2).ok());  // 2^49 bytes
  EXPECT_FALSE(big.add(2).ok());
  // A product that would wrap 64 bits is refused, not wrapped.
  CheckedShape wrap;
  ASSERT_TRUE(wrap.add(int64_t{1} << 40).ok());
  EXPECT_FALSE(wrap.add(int64_t{1} << 40).ok());
}

TEST(CheckedSize, AZeroDimensionDoesNotHideHugeOnes) {
  // {0, 2^40, 2^40} has no elements, but its strides would be 2^80: refused
  // (found by the npy_parse fuzz target: a shape of (0, 4, 3, 2, 5...5)).
  CheckedShape shape;
  ASSERT_TRUE(shape.add(0).ok());
  ASSERT_TRUE(shape.add(int64_t{1} << 40).ok());
  EXPECT_FALSE(shape.add(int64_t{1} << 40).ok());
  const std::vector<int64_t> sizes = {0, int64_t{1} << 62, 2};
  EXPECT_FALSE(Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), sizes.size()), {},
                            nullptr, 0)
                   .ok());
}

TEST(CheckedSize, TensorViewsOfFileShapesAreChecked) {
  // A logged tensor or .npy shape of 2^62 x 2^62 elements must not wrap.
  const std::vector<int64_t> sizes = {int64_t{1} << 62, int64_t{1} << 62};
  auto tensor = Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), sizes.size()), {}, nullptr, 0);
  EXPECT_FALSE(tensor.ok());
}

}  // namespace
}  // namespace etkit
