// The whole-run verdict against hand-computed Mann-Whitney p-values (normal
// approximation with continuity correction: U's mean n*m/2, variance
// n*m*(n+m+1)/12, no ties).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "etkit/inspector/run_comparison.h"

namespace etkit::inspector {
namespace {

TraceDiff with_total(std::vector<double> before, std::vector<double> after, double before_stat, double after_stat) {
  TraceDiff diff;
  DiffRow total;
  total.block = "Execute";
  total.event = "Method::execute";
  total.before = before_stat;
  total.after = after_stat;
  total.before_runs = std::move(before);
  total.after_runs = std::move(after);
  diff.total = total;
  return diff;
}

TEST(RunComparison, SlowerFasterNoiseAndTooFewRuns) {
  // Every after run above every before run, 5 and 5: U = 25, mean 12.5,
  // sd sqrt(25 * 11 / 12) = 4.787, z = (25 - 12.5 - 0.5) / 4.787 = 2.507,
  // p = 0.00609 < 0.01.
  const auto slower = compare_whole_runs(with_total({10, 11, 12, 13, 14}, {20, 21, 22, 23, 24}, 12, 22));
  ASSERT_TRUE(slower);
  EXPECT_EQ(slower->verdict, RunComparison::Verdict::kSlower);
  EXPECT_NEAR(slower->p_slower, 0.00609, 5e-5);
  EXPECT_NEAR(slower->percent, 100.0 * 10 / 12, 1e-9);
  EXPECT_EQ(verdict_line(*slower, "ms", 3),
            "whole run (Method::execute p50): 12.000 -> 22.000 ms (+83.3%), slower beyond the runs' noise "
            "(p = 0.00609; 5 and 5 runs)");
  // The same runs the other way round.
  const auto faster = compare_whole_runs(with_total({20, 21, 22, 23, 24}, {10, 11, 12, 13, 14}, 22, 12));
  ASSERT_TRUE(faster);
  EXPECT_EQ(faster->verdict, RunComparison::Verdict::kFaster);
  EXPECT_NEAR(faster->p_faster, 0.00609, 5e-5);
  // Interleaved: U = 1 + 2 + 3 + 4 + 5 = 15, z = (15 - 13) / 4.787 = 0.418,
  // p slower 0.338; the other way U = 10, z = -0.627, p 0.735.
  const auto noise = compare_whole_runs(with_total({10, 12, 14, 16, 18}, {11, 13, 15, 17, 19}, 14, 15));
  ASSERT_TRUE(noise);
  EXPECT_EQ(noise->verdict, RunComparison::Verdict::kWithinNoise);
  EXPECT_NEAR(noise->p_slower, 0.338, 1e-3);
  EXPECT_NEAR(noise->p_faster, 0.735, 1e-3);
  EXPECT_NE(verdict_line(*noise, "ms", 1).find("within the runs' noise (p slower 0.34, faster 0.73"),
            std::string::npos)
      << verdict_line(*noise, "ms", 1);
  // Two runs each: the most extreme split gives p = 0.123 (U = 4, z = 1.162),
  // never below 0.01, however far apart the runs are.
  const auto few = compare_whole_runs(with_total({1, 2}, {100, 200}, 1.5, 150));
  ASSERT_TRUE(few);
  EXPECT_EQ(few->verdict, RunComparison::Verdict::kTooFewRuns);
  EXPECT_NE(verdict_line(*few, "ms", 1).find("too few runs to tell a change from noise (2 and 2 runs;"),
            std::string::npos);
  // No whole run in one of the traces: no verdict.
  TraceDiff without;
  EXPECT_FALSE(compare_whole_runs(without));
}

}  // namespace
}  // namespace etkit::inspector
