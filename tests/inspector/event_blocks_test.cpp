// Event blocks and statistics against values derived by hand from the
// corpus traces (timestamps read through Debian's flatc, not our reader)
// with upstream's definitions: duration = end - start, scaled ns -> ms by
// 1e6, percentiles as numpy.percentile's default linear interpolation.

#include "etkit/inspector/event_blocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "etkit/etdump/etdump_reader.h"
#include "support/corpus.h"

namespace etkit::inspector {
namespace {

const std::string kSchema = std::string(ETKIT_SOURCE_DIR) + "/etdump/schema/etdump.fbs";

std::vector<EventBlock> blocks_of(const std::string& relative, EventBlockOptions options = {}) {
  const etdump::ETDump trace = test::checked(etdump::ETDump::load_file(test::corpus(relative)), relative);
  return test::checked(event_blocks(trace, options), "event blocks of " + relative);
}

TEST(EventBlocks, PercentilesFollowNumpyLinearInterpolation) {
  // numpy.percentile([1, 2, 3, 4], q): rank = q/100 * 3.
  EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 10), 1.3);
  EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 90), 3.7);
  EXPECT_DOUBLE_EQ(percentile({7}, 90), 7);
}

TEST(EventBlocks, TutorialTraceHasOneEventPerProfileEvent) {
  std::vector<EventBlock> blocks = blocks_of("upstream/etdump/tutorial_cnn.etdp");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].name, "Default");
  EXPECT_EQ(blocks[1].name, "Execute");
  // 14 instructions x (kernel + OPERATOR_CALL) + Method::execute.
  ASSERT_EQ(blocks[1].events.size(), 29u);
  const Event& conv = blocks[1].events[0];
  EXPECT_EQ(conv.name, "native_call_convolution.out");
  EXPECT_EQ(conv.instruction_id, 0);
  ASSERT_TRUE(conv.perf_data);
  // (971569 - 426786) ns = 0.544783 ms, one run: every statistic equal.
  for (double v : {conv.perf_data->p10, conv.perf_data->p50, conv.perf_data->p90, conv.perf_data->avg,
                   conv.perf_data->min, conv.perf_data->max}) {
    EXPECT_DOUBLE_EQ(v, 0.544783);
  }
  const Event& total = blocks[1].events.back();
  EXPECT_EQ(total.name, "Method::execute");
  EXPECT_DOUBLE_EQ(total.perf_data->p50, (2324134.0 - 425313.0) / 1e6);
  EXPECT_FALSE(total.is_delegated_op);
}

TEST(EventBlocks, RepeatedRunsMergeAndDelegateEventsTakeTheirIds) {
  const std::string path = test::corpus("upstream-runtime/xnn_mlp.etdp");
  const auto json = nlohmann::json::parse(test::flatc_json(kSchema, path, true));
  std::vector<EventBlock> blocks = blocks_of("upstream-runtime/xnn_mlp.etdp", {TimeUnit::kNanoseconds, TimeUnit::kMicroseconds});
  ASSERT_EQ(blocks.size(), 2u);  // Default, and the three Execute runs as one
  EXPECT_EQ(blocks[1].runs, 3u);
  ASSERT_EQ(blocks[1].events.size(), 5u);
  for (size_t e = 0; e < 5; ++e) {
    const Event& event = blocks[1].events[e];
    std::vector<double> durations;
    for (size_t run = 1; run <= 3; ++run) {
      const auto& p = json["run_data"][run]["events"][e]["profile_event"];
      durations.push_back((p.value("end_time", 0.0) - p.value("start_time", 0.0)) / 1e3);
    }
    std::sort(durations.begin(), durations.end());
    ASSERT_TRUE(event.perf_data);
    EXPECT_DOUBLE_EQ(event.perf_data->min, durations[0]);
    EXPECT_DOUBLE_EQ(event.perf_data->p50, durations[1]);
    EXPECT_DOUBLE_EQ(event.perf_data->p90, durations[1] + 0.8 * (durations[2] - durations[1]));
    EXPECT_DOUBLE_EQ(event.perf_data->avg, (durations[0] + durations[1] + durations[2]) / 3);
  }
  EXPECT_EQ(blocks[1].events[0].name, "Fully Connected (NC, F32) GEMM #1");
  EXPECT_TRUE(blocks[1].events[0].is_delegated_op);
  EXPECT_EQ(blocks[1].events[3].name, "DELEGATE_CALL");
  EXPECT_FALSE(blocks[1].events[3].is_delegated_op);
}

// place() and run_block() checked through the raw events: every profile
// event must land on a block event with its own start and duration in the
// run it came from, and every debug event on its instruction's event.
TEST(EventBlocks, EveryTraceEventIsPlacedOnItsOwnRowAndRun) {
  for (const char* relative : {"upstream-runtime/xnn_mlp.etdp", "upstream-runtime/tutorial_cnn_intermediates.etdp",
                               "upstream/etdump/tutorial_cnn.etdp"}) {
    SCOPED_TRACE(relative);
    const etdump::ETDump trace = test::checked(etdump::ETDump::load_file(test::corpus(relative)), relative);
    EventBlockOptions options{TimeUnit::kNanoseconds, TimeUnit::kNanoseconds};
    options.locate_events = true;
    const GroupedEvents grouped = test::checked(GroupedEvents::build(trace, options), "grouping");
    size_t placed = 0;
    for (size_t b = 0; b < trace.block_count(); ++b) {
      const etdump::RunBlock run = trace.block(b);
      for (size_t e = 0; e < run.event_count(); ++e) {
        const etdump::EventView view = run.event(e);
        const std::optional<EventPlace> place = grouped.place(b, e);
        if (view.kind == etdump::EventKind::kAllocation || (view.kind == etdump::EventKind::kDebug && view.debug.is_output)) {
          EXPECT_FALSE(place) << "event " << e << " of run block " << b;
          continue;
        }
        ASSERT_TRUE(place) << "event " << e << " of run block " << b;
        EXPECT_EQ(grouped.run_block(place->block, place->run), b);
        const EventBlock block = grouped.block(place->block);
        ASSERT_LT(place->event, block.events.size());
        const Event& event = block.events[place->event];
        if (view.kind == etdump::EventKind::kProfile) {
          const etdump::ProfileEventView& p = view.profile;
          ASSERT_TRUE(event.perf_data);
          EXPECT_EQ(event.start_times.at(place->run), double(p.start_time));
          EXPECT_EQ(event.perf_data->raw.at(place->run), double(p.end_time - p.start_time));
        } else {
          EXPECT_EQ(event.instruction_id, int32_t(view.debug.chain_index) < 0 ? -1 : view.debug.instruction_id);
        }
        ++placed;
      }
    }
    EXPECT_GT(placed, 0u);
    EXPECT_FALSE(grouped.run_block(grouped.block_count(), 0));
  }
  // Without locate_events nothing is placed.
  const etdump::ETDump trace = test::checked(etdump::ETDump::load_file(test::corpus("upstream/etdump/tutorial_cnn.etdp")), "");
  const GroupedEvents plain = test::checked(GroupedEvents::build(trace), "grouping");
  EXPECT_FALSE(plain.place(0, 0));
}

TEST(EventBlocks, CyclesOnlyConvertToCycles) {
  auto trace = etdump::ETDump::load_file(test::corpus("upstream/etdump/tutorial_cnn.etdp"));
  auto blocks = event_blocks(*trace, {TimeUnit::kCycles, TimeUnit::kMilliseconds});
  ASSERT_FALSE(blocks.ok());
  EXPECT_EQ(std::string(blocks.error().message()).rfind("for time in cycles both the source and the target unit must be cycles", 0), 0u)
      << blocks.error().message();
  auto cycles = event_blocks(*trace, {TimeUnit::kCycles, TimeUnit::kCycles});
  ASSERT_TRUE(cycles.ok());
  EXPECT_DOUBLE_EQ((*cycles)[1].events[0].perf_data->p50, 544783);
  // With the clock's rate cycles are time: 544783 cycles at 100 MHz are 5.44783 ms.
  EventBlockOptions at_100mhz{TimeUnit::kCycles, TimeUnit::kMilliseconds};
  at_100mhz.cycles_per_second = 100e6;
  auto timed = event_blocks(*trace, at_100mhz);
  ASSERT_TRUE(timed.ok()) << timed.error().message();
  EXPECT_NEAR((*timed)[1].events[0].perf_data->p50, 5.44783, 1e-12);
}

}  // namespace
}  // namespace etkit::inspector
