// The Steps view's chart without a display, on hand-made steps: the decode
// summary, the latency axis and where a point falls (hand-derived values).

#include "etkit/gui/steps_chart.h"

#include "etkit/gui/step_breakdown.h"

#include <gtest/gtest.h>

namespace etkit::gui {
namespace {

inspector::GenerationStepTiming step(size_t index, bool decode, double start_ms, double latency_ms) {
  inspector::GenerationStepTiming s;
  s.step = index;
  s.decode = decode;
  s.context = int64_t(index) + 1;
  s.start = start_ms * 1e6;
  s.end = (start_ms + latency_ms) * 1e6;
  return s;
}

TEST(StepsChart, AxisSummaryAndHitsOfAPrefillAndThreeDecodeSteps) {
  // Latencies 10 ms (prefill), then 2, 4 and 3 ms.
  const StepsChart chart({step(0, false, 0, 10), step(1, true, 10, 2), step(2, true, 12, 4), step(3, true, 16, 3)});
  EXPECT_EQ(chart.prefill_steps(), 1u);
  EXPECT_EQ(chart.decode().steps, 3u);
  EXPECT_DOUBLE_EQ(chart.decode().median, 3e6);
  // 10% above the slowest is 11 ms; a sixth of that, 1.83 ms, rounds to a
  // 2 ms step, and the axis ends at the first tick past 11 ms.
  EXPECT_DOUBLE_EQ(chart.tick_step(), 2e6);
  EXPECT_DOUBLE_EQ(chart.axis_max(), 12e6);
  EXPECT_DOUBLE_EQ(chart.height_fraction(6e6), 0.5);
  EXPECT_DOUBLE_EQ(chart.height_fraction(20e6), 1.0);
  const std::vector<double> ticks = chart.latency_ticks();
  ASSERT_EQ(ticks.size(), 7u);
  EXPECT_DOUBLE_EQ(ticks[1], 2e6);
  EXPECT_DOUBLE_EQ(ticks[6], 12e6);
  EXPECT_EQ(chart.step_at(0.0), std::optional<size_t>(0));
  EXPECT_EQ(chart.step_at(0.26), std::optional<size_t>(1));
  EXPECT_EQ(chart.step_at(0.99), std::optional<size_t>(3));
  EXPECT_FALSE(chart.step_at(1.0));
  EXPECT_FALSE(chart.step_at(-0.1));
  EXPECT_EQ(chart.label_every(10, 80), 8u);
  EXPECT_EQ(chart.label_every(100, 80), 1u);
  EXPECT_EQ(chart.title(), "latency per step: 1 prefill (orange), 3 decode (blue), decode median 3.000 ms (red)");
}

TEST(StepsChart, TicksAreRoundForAnySlowestStep) {
  // Decode steps of 3.3 ms with one of 3.9 ms: 4.29 ms / 6 = 0.715 ms -> 1 ms
  // ticks to 5 ms; a 0.05 ms step: 0.055 / 6 -> 0.01 ms ticks to 0.06 ms.
  const StepsChart llm({step(0, true, 0, 3.3), step(1, true, 3.3, 3.9)});
  EXPECT_DOUBLE_EQ(llm.tick_step(), 1e6);
  EXPECT_DOUBLE_EQ(llm.axis_max(), 5e6);
  const StepsChart fast({step(0, true, 0, 0.05)});
  EXPECT_NEAR(fast.tick_step(), 1e4, 1e-6);
  EXPECT_NEAR(fast.axis_max(), 6e4, 1e-6);
  EXPECT_EQ(fast.latency_ticks().size(), 7u);
}

// Two preempted steps (20 ms) among 3-4 ms ones: over three times the
// 75th percentile they are clipped, and the axis follows the rest.
TEST(StepsChart, OutliersAreClippedSoTheRestStayReadable) {
  std::vector<inspector::GenerationStepTiming> steps;
  double start = 0;
  for (size_t i = 0; i < 40; ++i) {
    const double ms = i == 10 || i == 30 ? 20.0 : (i % 2 ? 3.0 : 4.0);
    steps.push_back(step(i, true, start, ms));
    start += ms;
  }
  const StepsChart chart(std::move(steps));
  // NumPy's 75th percentile of 20 threes, 18 fours and two 20s: rank 29.25
  // of 0..39 is among the fours: 4, so the limit is 12 ms. The tallest step
  // under it, 4 ms: 1.1 * 4 = 4.4 in 1 ms ticks (4.4 / 6 = 0.73 -> 1): 5 ms.
  EXPECT_DOUBLE_EQ(chart.axis_max(), 5e6);
  EXPECT_EQ(chart.clipped_steps(), 2u);
  EXPECT_TRUE(chart.clipped(20e6));
  EXPECT_FALSE(chart.clipped(4e6));
  EXPECT_NE(chart.title().find("; 2 clipped (^, up to 20.000 ms)"), std::string::npos) << chart.title();
  // No outliers: nothing clipped, the axis above the slowest (the first test).
  const StepsChart even({step(0, true, 0, 3), step(1, true, 3, 4)});
  EXPECT_EQ(even.clipped_steps(), 0u);
  EXPECT_EQ(even.title().find("clipped"), std::string::npos);
}

TEST(StepsChart, NoStepsHitNothing) {
  const StepsChart chart;
  EXPECT_TRUE(chart.steps().empty());
  EXPECT_DOUBLE_EQ(chart.axis_max(), 1);
  EXPECT_FALSE(chart.step_at(0.5));
}

// Three steps' ops by key: the two largest keys over all steps are named
// (sdpa 9 + 1 = 10, linear 3 x 2 = 6), the other three (4 in all) summed.
TEST(StepBreakdown, StacksTheLargestKeysInOneOrderAndSumsTheRest) {
  const std::vector<std::vector<KeyTime>> per_step = {
      {{"linear", 2}, {"sdpa", 1}, {"rms_norm", 1}},
      {{"sdpa", 4}, {"linear", 2}, {"embedding", 1}},
      {{"sdpa", 5}, {"linear", 2}, {"add", 1}, {"rms_norm", 1}},
  };
  const StepBreakdown stack = stack_by_key(per_step, 2);
  EXPECT_EQ(stack.keys, (std::vector<std::string>{"sdpa", "linear", ""}));
  EXPECT_EQ(stack.totals, (std::vector<double>{10, 6, 4}));
  ASSERT_EQ(stack.ns.size(), 3u);
  EXPECT_EQ(stack.ns[0], (std::vector<double>{1, 2, 1}));
  EXPECT_EQ(stack.ns[1], (std::vector<double>{4, 2, 1}));
  EXPECT_EQ(stack.ns[2], (std::vector<double>{5, 2, 2}));
  // Keys that fit: no rest slot. A step without ops: zeros.
  const StepBreakdown all = stack_by_key({{{"sdpa", 1}}, {}}, 5);
  EXPECT_EQ(all.keys, std::vector<std::string>{"sdpa"});
  EXPECT_EQ(all.ns[1], std::vector<double>{0});
  EXPECT_TRUE(stack_by_key({}).keys.empty());
}

}  // namespace
}  // namespace etkit::gui
