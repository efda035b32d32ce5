// Trace diff on traces recorded with a fake clock, so every duration, and
// so every delta and percentage, is known by hand.

#include <gtest/gtest.h>

#include "etkit/core/file_data.h"
#include "etkit/etdump/etdump_gen.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/trace_diff.h"
#include "support/corpus.h"
#include "support/timed_trace.h"

namespace etkit::inspector {
namespace {

struct StepClock {
  uint64_t now = 1000;
  std::vector<uint64_t> steps;  // consumed two reads at a time
  size_t reads = 0;
};
uint64_t step(void* context) {
  auto* clock = static_cast<StepClock*>(context);
  const uint64_t advance = clock->steps[(clock->reads++ / 2) % clock->steps.size()];
  return clock->now += advance;
}

// One Execute block: events `names` lasting `durations` ns each.
etdump::ETDump trace(const std::string& file, const std::vector<std::string>& names,
                     const std::vector<uint64_t>& durations) {
  StepClock clock;
  clock.steps = durations;
  etdump::ETDumpGenOptions options;
  options.clock = etdump::TickSource{&step, &clock, 1.0};
  etdump::ETDumpGen gen(options);
  gen.create_event_block("Execute");
  for (size_t i = 0; i < names.size(); ++i) gen.end_profiling(gen.start_profiling(names[i].c_str(), 0, int32_t(i)));
  return test::checked(etdump::ETDump::load_file(test::write_temp(file, test::checked(gen.serialize(), "serialize"))),
                       file);
}

TEST(TraceDiff, JoinsByBlockNameAndOccurrence) {
  const auto before = trace("diff_a.etdp", {"native_call_add.out", "native_call_mul.out", "native_call_add.out"},
                            {1000, 2000, 4000});
  const auto after = trace("diff_b.etdp", {"native_call_add.out", "native_call_mul.out", "native_call_relu.out"},
                           {1500, 1000, 10});
  DiffOptions options;
  options.units.target = TimeUnit::kMicroseconds;
  auto diff = diff_traces(before, after, options);
  ASSERT_TRUE(diff.ok());
  ASSERT_EQ(diff->rows.size(), 4u);
  EXPECT_EQ(diff->rows[0].event, "native_call_add.out");
  EXPECT_DOUBLE_EQ(*diff->rows[0].before, 1.0);
  EXPECT_DOUBLE_EQ(*diff->rows[0].after, 1.5);
  EXPECT_DOUBLE_EQ(*diff->rows[0].delta(), 0.5);
  EXPECT_DOUBLE_EQ(*diff->rows[0].percent(), 50.0);
  EXPECT_DOUBLE_EQ(*diff->rows[1].percent(), -50.0);
  EXPECT_EQ(diff->rows[2].occurrence, 1u);  // the second add: only before
  EXPECT_FALSE(diff->rows[2].after.has_value());
  EXPECT_FALSE(diff->rows[2].percent().has_value());
  EXPECT_EQ(diff->rows[3].event, "native_call_relu.out");  // only after
  EXPECT_EQ(diff->only_before, 1u);
  EXPECT_EQ(diff->only_after, 1u);
  // One run a side: the noise test cannot decide, the percentage does.
  RegressionGate gate;
  gate.threshold_percent = 49.0;
  EXPECT_FALSE(noise_test_applies(diff->rows[0], gate));
  EXPECT_EQ(count_regressions(*diff, gate), 1u);
  gate.threshold_percent = 50.0;
  EXPECT_EQ(count_regressions(*diff, gate), 0u);
  gate.threshold_percent = 10.0;
  gate.min_delta = 0.5;  // the add's +0.5 us is not more than the floor
  EXPECT_EQ(count_regressions(*diff, gate), 0u);

  sort_rows(*diff, DiffOrder::kPercent);
  EXPECT_DOUBLE_EQ(*diff->rows[0].percent(), 50.0);
  EXPECT_DOUBLE_EQ(*diff->rows[1].percent(), -50.0);
  EXPECT_FALSE(diff->rows[2].percent().has_value());
  sort_rows(*diff, DiffOrder::kBefore);
  EXPECT_DOUBLE_EQ(*diff->rows[0].before, 4.0);
  sort_rows(*diff, DiffOrder::kEvent);
  EXPECT_EQ(diff->rows[3].event, "native_call_relu.out");
  EXPECT_FALSE(parse_diff_order("fastest").ok());
}

etdump::ETDump timed(const std::string& file, const std::vector<std::string>& names,
                     const std::vector<std::vector<uint64_t>>& runs) {
  return test::checked(etdump::ETDump::load_file(test::write_temp(file, test::timed_trace(names, runs))), file);
}

// Twenty runs a side with a log-normal spread of 25% and one duration in
// twenty doubled: medians of such runs differ by ~10% from run to run, so a
// gate on the percentage alone fails two traces of one program; the noise
// test does not, and still catches one event made 1.5x slower.
TEST(TraceDiff, TheGateTellsASlowdownFromTheRunsNoise) {
  const std::vector<std::string> names = {"native_call_convolution.out", "native_call_relu.out",
                                          "native_call_add.out",         "native_call_mean.out",
                                          "native_call_addmm.out",       "native_call_softmax.out",
                                          "native_call_mul.out",         "native_call_permute_copy.out"};
  const std::vector<uint64_t> base = {40000, 900, 600, 3000, 12000, 2500, 700, 1500};
  std::vector<uint64_t> slower = base;
  slower[4] = base[4] * 3 / 2;  // addmm
  const auto before = timed("gate_before.etdp", names, test::noisy_runs(base, 20, 0.25, 0.05, 1));
  const auto again = timed("gate_again.etdp", names, test::noisy_runs(base, 20, 0.25, 0.05, 2));
  const auto slowed = timed("gate_slowed.etdp", names, test::noisy_runs(slower, 20, 0.25, 0.05, 2));
  DiffOptions options;
  options.units.target = TimeUnit::kMicroseconds;
  RegressionGate gate;
  gate.threshold_percent = 10;
  RegressionGate percent_only = gate;
  percent_only.confidence = 0;

  auto same = test::checked(diff_traces(before, again, options), "diff");
  ASSERT_EQ(same.rows.size(), names.size());
  EXPECT_EQ(same.rows[0].before_runs.size(), 20u);
  EXPECT_TRUE(noise_test_applies(same.rows[0], gate));
  EXPECT_EQ(count_regressions(same, gate), 0u);
  EXPECT_GT(count_regressions(same, percent_only), 0u);  // noise a naive gate would fail on

  auto diff = test::checked(diff_traces(before, slowed, options), "diff");
  ASSERT_EQ(count_regressions(diff, gate), 1u);
  for (const DiffRow& row : diff.rows) EXPECT_EQ(regressed(row, gate), row.event == "native_call_addmm.out") << row.event;
  // The whole run: Method::execute, the sum of the events of each run.
  ASSERT_TRUE(diff.total.has_value());
  EXPECT_EQ(diff.total->event, "Method::execute");
  EXPECT_EQ(diff.total->after_runs.size(), 20u);

  options.event_pattern = "add";
  auto adds = test::checked(diff_traces(before, slowed, options), "diff");
  ASSERT_EQ(adds.rows.size(), 2u);  // addmm and add
  EXPECT_TRUE(adds.total.has_value());  // the total is the run's, before any filter
  options.event_pattern = "(";
  EXPECT_FALSE(diff_traces(before, slowed, options).ok());
}

TEST(TraceDiff, StatisticIsChosen) {
  const std::vector<std::vector<uint64_t>> runs = {{1000}, {3000}, {8000}};  // min 1, p50 3, avg 4 us
  const auto trace_a = timed("stat_a.etdp", {"native_call_add.out"}, runs);
  DiffOptions options;
  options.units.target = TimeUnit::kMicroseconds;
  for (auto [stat, expected] : {std::pair{Stat::kMin, 1.0}, {Stat::kP50, 3.0}, {Stat::kAvg, 4.0}}) {
    options.stat = stat;
    auto diff = test::checked(diff_traces(trace_a, trace_a, options), "diff");
    ASSERT_EQ(diff.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(*diff.rows[0].before, expected) << to_string(stat);
  }
  EXPECT_FALSE(parse_stat("p99").ok());
}

}  // namespace
}  // namespace etkit::inspector
