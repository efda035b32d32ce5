// The Mann-Whitney U test against values derived by hand (ranks, U, the
// tie-corrected variance and the normal tail written out in the comments);
// scipy.stats.mannwhitneyu(..., alternative="greater", method="asymptotic")
// gives the same numbers.

#include "etkit/inspector/rank_test.h"

#include <gtest/gtest.h>

namespace etkit::inspector {
namespace {

TEST(RankTest, CompleteSeparationOfFiveRunsEach) {
  // U = 25, mean 12.5, variance 5*5*11/12 = 22.917; z = (25 - 12.5 - 0.5) /
  // 4.7871 = 2.5067; P(Z > z) = 0.006093.
  EXPECT_NEAR(mann_whitney_greater({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 0.006093, 1e-6);
  EXPECT_NEAR(smallest_attainable_p(5, 5), 0.006093, 1e-6);
  // The other way round U = 0: z = -2.716, p = 0.9967.
  EXPECT_NEAR(mann_whitney_greater({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.99670, 1e-5);
}

TEST(RankTest, TiesTakeMidRanksAndShrinkTheVariance) {
  // Pooled: 1 2 2 2 3 3 4 5 9 9 with mid-ranks 1, 3, 3, 3, 5.5, 5.5, 7, 8,
  // 9.5, 9.5; the first sample's ranks sum to 1+3+3+8+9.5+9.5 = 34, U = 34 -
  // 21 = 13. Ties (3, 2, 2): sum t^3 - t = 36; variance = 6*4/12 * (11 -
  // 36/90) = 21.2; z = (13 - 12 - 0.5) / 4.6043 = 0.1086; p = 0.45676.
  EXPECT_NEAR(mann_whitney_greater({1, 2, 2, 5, 9, 9}, {2, 3, 3, 4}), 0.45676, 1e-5);
}

TEST(RankTest, NothingToTellApartIsNotEvidence) {
  EXPECT_EQ(mann_whitney_greater({3, 3, 3}, {3, 3}), 1.0);  // zero variance
  EXPECT_EQ(mann_whitney_greater({}, {1, 2}), 1.0);
  EXPECT_EQ(smallest_attainable_p(0, 4), 1.0);
}

TEST(RankTest, RunsNeededForAConfidence) {
  // Complete separation of n runs each: n = 4 gives 0.01519, n = 5 0.006093
  // (so 5 at 99%); n = 2 gives 0.1226, n = 3 0.04043 (so 3 at 95%).
  EXPECT_EQ(runs_needed(0.99), 5u);
  EXPECT_EQ(runs_needed(0.95), 3u);
  EXPECT_NEAR(smallest_attainable_p(4, 4), 0.015191, 1e-6);
  EXPECT_NEAR(smallest_attainable_p(3, 3), 0.040428, 1e-6);
}

}  // namespace
}  // namespace etkit::inspector
