// Grouping a trace's runs on several threads: a trace of 640 run blocks
// whose run signatures change every 50 runs and recur across the ranges the
// workers take. The blocks must be the signatures in first-seen order with
// their run counts derived by hand from how the trace was written, the same
// for every worker count, and every profile event must be placed on its
// own run with its own start and duration (read back through the trace).

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "etkit/core/file_data.h"
#include "etkit/etdump/etdump_gen.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_blocks.h"
#include "support/corpus.h"

namespace etkit::inspector {
namespace {

constexpr int kRuns = 640;

// A clock whose readings step by 100 to 112 ns, so durations differ.
uint64_t uneven(void* context) {
  uint64_t& ticks = *static_cast<uint64_t*>(context);
  ticks += 100 + ticks % 13;
  return ticks;
}

bool warmup(int run) { return run % 10 == 9; }
int width(int run) { return 1 + (run / 50) % 3; }
// Every fourth run of each 50 is a bundled case: a block of its own kind.
int bundled_index(int run) { return run % 4 == 0 ? 2 : -1; }

std::vector<uint8_t> trace_bytes() {
  uint64_t ticks = 0;
  etdump::ETDumpGenOptions options;
  options.clock = {uneven, &ticks, 1.0};
  etdump::ETDumpGen gen(options);
  for (int run = 0; run < kRuns; ++run) {
    gen.create_event_block(warmup(run) ? kWarmupBlockName : "Execute");
    if (bundled_index(run) >= 0) gen.set_bundled_input_index(bundled_index(run));
    for (int op = 0; op < width(run); ++op) gen.end_profiling(gen.start_profiling("native_call_add.out", 0, op));
  }
  return test::checked(gen.serialize(), "serialize");
}

struct Expected {
  std::string name;
  int bundled;
  int width;
  size_t runs;
};

// The blocks by the rule the trace was written with: one per (name,
// bundled index, width), in the order each first appears.
std::vector<Expected> expected_blocks() {
  std::vector<Expected> blocks;
  std::map<std::tuple<std::string, int, int>, size_t> index;
  for (int run = 0; run < kRuns; ++run) {
    const std::string name = warmup(run) ? kWarmupBlockName : "Execute";
    const auto key = std::make_tuple(name, bundled_index(run), width(run));
    auto [it, added] = index.try_emplace(key, blocks.size());
    if (added) blocks.push_back({name, bundled_index(run), width(run), 0});
    ++blocks[it->second].runs;
  }
  return blocks;
}

TEST(RunGrouping, SameBlocksAndPlacesForAnyWorkerCount) {
  const std::vector<uint8_t> bytes = trace_bytes();
  const etdump::ETDump trace = test::checked(
      etdump::ETDump::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "runs.etdp"), "runs.etdp"), "load");
  const std::vector<Expected> expected = expected_blocks();
  // Execute plain and bundled, Warmup plain (warm-ups are odd runs, cases
  // even ones), each in three widths.
  ASSERT_EQ(expected.size(), 9u);
  for (unsigned workers : {1u, 2u, 3u, 7u}) {
    SCOPED_TRACE(workers);
    EventBlockOptions options{TimeUnit::kNanoseconds, TimeUnit::kNanoseconds};
    options.locate_events = true;
    options.include_warmup = true;
    options.grouping_workers = workers;
    const GroupedEvents grouped = test::checked(GroupedEvents::build(trace, options), "grouping");
    ASSERT_EQ(grouped.block_count(), expected.size());
    std::vector<EventBlock> blocks;
    for (size_t b = 0; b < expected.size(); ++b) {
      blocks.push_back(grouped.block(b));
      EXPECT_EQ(blocks[b].name, expected[b].name) << "block " << b;
      EXPECT_EQ(blocks[b].bundled_input_index, expected[b].bundled) << "block " << b;
      EXPECT_EQ(blocks[b].runs, expected[b].runs) << "block " << b;
      ASSERT_EQ(blocks[b].events.size(), size_t(expected[b].width)) << "block " << b;
    }
    // Run r of a block is its r-th run block in the trace, holding that
    // run's own start times and durations.
    std::vector<size_t> next_run(expected.size(), 0);
    for (size_t b = 0; b < trace.block_count(); ++b) {
      const etdump::RunBlock run = trace.block(b);
      for (size_t e = 0; e < run.event_count(); ++e) {
        const std::optional<EventPlace> place = grouped.place(b, e);
        ASSERT_TRUE(place) << "event " << e << " of run block " << b;
        ASSERT_LT(place->block, blocks.size());
        if (e == 0) {
          EXPECT_EQ(place->run, next_run[place->block]++) << "run block " << b;
        }
        EXPECT_EQ(grouped.run_block(place->block, place->run), b);
        EXPECT_EQ(place->event, e);
        const Event& event = blocks[place->block].events[e];
        const etdump::ProfileEventView& p = run.event(e).profile;
        EXPECT_EQ(event.start_times.at(place->run), double(p.start_time));
        EXPECT_EQ(event.perf_data->raw.at(place->run), double(p.end_time - p.start_time));
      }
    }
    for (size_t b = 0; b < expected.size(); ++b) EXPECT_EQ(next_run[b], expected[b].runs) << "block " << b;
  }
}

}  // namespace
}  // namespace etkit::inspector
