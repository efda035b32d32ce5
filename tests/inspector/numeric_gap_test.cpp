// Gap metrics against values derived by hand.

#include "etkit/inspector/numeric_gap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace etkit::inspector {
namespace {

TEST(NumericGap, MetricsOfASmallExample) {
  // reference r = [1, 2, 3, 4], actual a = r + [0, 0.5, 0, -0.5]:
  // diff^2 = [0, .25, 0, .25] -> MSE 0.5 / 4 = 0.125; L1 = 1.0 (a sum);
  // SNR = 10 log10(sum r^2 / sum d^2) = 10 log10(30 / 0.5) = 17.7815 dB;
  // cosine = a.r / (|a||r|) = (1 + 5 + 9 + 14) / (sqrt(30) sqrt(1 + 6.25 + 9 + 12.25)).
  const GapMetrics m = compare_values({1, 2.5, 3, 3.5}, {1, 2, 3, 4});
  EXPECT_EQ(m.count, 4);
  EXPECT_DOUBLE_EQ(m.mse, 0.125);
  EXPECT_DOUBLE_EQ(m.l1, 1.0);
  EXPECT_NEAR(m.snr_db, 17.781512503836435, 1e-12);
  EXPECT_NEAR(m.cosine, 29.0 / (std::sqrt(30.0) * std::sqrt(28.5)), 1e-15);
  EXPECT_DOUBLE_EQ(m.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(m.max_abs_reference, 4.0);
}

TEST(NumericGap, IdenticalValuesIncludingMaskedInfinities) {
  const double inf = std::numeric_limits<double>::infinity();
  const GapMetrics m = compare_values({-inf, 1, 2}, {-inf, 1, 2});
  EXPECT_EQ(m.mse, 0);
  EXPECT_EQ(m.max_abs, 0);
  EXPECT_TRUE(std::isinf(m.snr_db));
  EXPECT_DOUBLE_EQ(m.cosine, 1.0);
  const GapMetrics off = compare_values({-inf, 1}, {0, 1});
  EXPECT_TRUE(std::isinf(off.max_abs));
}

TEST(NumericGap, AllZerosAreSimilar) {
  EXPECT_DOUBLE_EQ(compare_values({0, 0}, {0, 0}).cosine, 1.0);
  EXPECT_DOUBLE_EQ(compare_values({1, 0}, {0, 0}).cosine, 0.0);
}

}  // namespace
}  // namespace etkit::inspector
