// The Steps view's chart without a display, on hand-made steps: the decode
// summary, the latency axis and where a point falls (hand-derived values).

#include "etkit/gui/steps_chart.h"

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
  EXPECT_DOUBLE_EQ(chart.axis_max(), 11e6);  // 10% above the slowest
  EXPECT_DOUBLE_EQ(chart.height_fraction(5.5e6), 0.5);
  EXPECT_DOUBLE_EQ(chart.height_fraction(20e6), 1.0);
  const std::vector<double> ticks = chart.latency_ticks(4);
  ASSERT_EQ(ticks.size(), 5u);
  EXPECT_DOUBLE_EQ(ticks[1], 2.75e6);
  EXPECT_DOUBLE_EQ(ticks[4], 11e6);
  EXPECT_EQ(chart.step_at(0.0), std::optional<size_t>(0));
  EXPECT_EQ(chart.step_at(0.26), std::optional<size_t>(1));
  EXPECT_EQ(chart.step_at(0.99), std::optional<size_t>(3));
  EXPECT_FALSE(chart.step_at(1.0));
  EXPECT_FALSE(chart.step_at(-0.1));
  EXPECT_EQ(chart.label_every(10, 80), 8u);
  EXPECT_EQ(chart.label_every(100, 80), 1u);
  EXPECT_EQ(chart.title(), "latency per step: 1 prefill (orange), 3 decode (blue), decode median 3.000 ms (red line)");
}

TEST(StepsChart, NoStepsHitNothing) {
  const StepsChart chart;
  EXPECT_TRUE(chart.steps().empty());
  EXPECT_DOUBLE_EQ(chart.axis_max(), 1);
  EXPECT_FALSE(chart.step_at(0.5));
}

}  // namespace
}  // namespace etkit::gui
