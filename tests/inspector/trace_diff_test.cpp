// Trace diff on traces recorded with a fake clock, so every duration, and
// so every delta and percentage, is known by hand.

#include <gtest/gtest.h>

#include "etkit/core/file_data.h"
#include "etkit/etdump/etdump_gen.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/trace_diff.h"
#include "support/corpus.h"

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
  EXPECT_EQ(count_regressions(*diff, 49.0), 1u);
  EXPECT_EQ(count_regressions(*diff, 50.0), 0u);

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

}  // namespace
}  // namespace etkit::inspector
