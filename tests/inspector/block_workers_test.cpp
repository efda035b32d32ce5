// The block workers against the grouping read on one thread: every block
// handed out exactly once and equal to GroupedEvents::block, for any number
// of workers; BlockStream in trace order; stopping early hands out no more.

#include "etkit/inspector/block_workers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>

#include "etkit/core/file_data.h"
#include "etkit/etdump/etdump_gen.h"
#include "etkit/etdump/etdump_reader.h"
#include "support/corpus.h"

namespace etkit::inspector {
namespace {

// A clock that advances 100 ns per reading.
uint64_t ticking(void* context) { return *static_cast<uint64_t*>(context) += 100; }

// `runs` runs, each its own block (a bundled input index apiece), run r
// holding r % 7 + 1 kernel events: blocks of different widths.
// `runs` blocks of run % 7 + 1 events each, or of `events` each when given.
std::vector<uint8_t> trace_of_blocks(int runs, int events = 0) {
  uint64_t ticks = 0;
  etdump::ETDumpGenOptions options;
  options.clock = {ticking, &ticks, 1.0};
  etdump::ETDumpGen gen(options);
  for (int run = 0; run < runs; ++run) {
    gen.create_event_block("Execute");
    gen.set_bundled_input_index(run);
    const int count = events > 0 ? events : run % 7 + 1;
    for (int op = 0; op < count; ++op) gen.end_profiling(gen.start_profiling("native_call_add.out", 0, op));
  }
  return test::checked(gen.serialize(), "serialize");
}

struct Blocks {
  std::unique_ptr<etdump::ETDump> trace;  // the grouping borrows it
  GroupedEvents grouped;
};

Blocks grouped_blocks(int runs, int events = 0) {
  const std::vector<uint8_t> bytes = trace_of_blocks(runs, events);
  auto trace = std::make_unique<etdump::ETDump>(test::checked(
      etdump::ETDump::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "blocks.etdp"), "blocks.etdp"),
      "load"));
  GroupedEvents grouped = test::checked(GroupedEvents::build(*trace), "group");
  return {std::move(trace), std::move(grouped)};
}

// What a block is, compared: names, widths and every event's durations.
void expect_same_block(const EventBlock& actual, const EventBlock& expected) {
  EXPECT_EQ(actual.name, expected.name);
  EXPECT_EQ(actual.bundled_input_index, expected.bundled_input_index);
  ASSERT_EQ(actual.events.size(), expected.events.size());
  for (size_t e = 0; e < actual.events.size(); ++e) {
    EXPECT_EQ(actual.events[e].name, expected.events[e].name);
    ASSERT_EQ(bool(actual.events[e].perf_data), bool(expected.events[e].perf_data));
    if (actual.events[e].perf_data) {
      EXPECT_EQ(actual.events[e].perf_data->raw, expected.events[e].perf_data->raw);
    }
  }
}

TEST(BlockWorkers, EveryBlockOnceAndAsOneThreadReadsItForAnyWorkerCount) {
  const Blocks blocks = grouped_blocks(300);
  ASSERT_EQ(blocks.grouped.block_count(), 300u);
  for (unsigned workers : {1u, 2u, 5u}) {
    SCOPED_TRACE(workers);
    std::vector<EventBlock> seen(300);
    std::vector<int> visits(300, 0);
    std::atomic<size_t> max_worker{0};
    const size_t used = for_each_block(blocks.grouped, {}, {0, size_t(-1), workers}, [&](const BlockJob& job) {
      ++visits[job.index];  // one job per index: no two threads share a slot
      seen[job.index] = job.block;
      if (job.worker > max_worker) max_worker = job.worker;
      return true;
    });
    EXPECT_EQ(used, workers);
    EXPECT_LT(max_worker.load(), workers);
    for (size_t b = 0; b < 300; ++b) {
      ASSERT_EQ(visits[b], 1) << "block " << b;
      expect_same_block(seen[b], blocks.grouped.block(b));
    }
  }
}

TEST(BlockWorkers, RangeAndStopHandOutOnlyWhatIsAsked) {
  const Blocks blocks = grouped_blocks(50);
  std::vector<size_t> indices;
  std::mutex mutex;
  for_each_block(blocks.grouped, {}, {10, 20, 3}, [&](const BlockJob& job) {
    std::lock_guard<std::mutex> lock(mutex);
    indices.push_back(job.index);
    return true;
  });
  std::sort(indices.begin(), indices.end());
  std::vector<size_t> expected;
  for (size_t b = 10; b < 20; ++b) expected.push_back(b);
  EXPECT_EQ(indices, expected);

  // Past the end: clamped; more workers than blocks: as many as blocks.
  EXPECT_EQ(for_each_block(blocks.grouped, {}, {48, 1000, 8}, [](const BlockJob&) { return true; }), 2u);

  // A stop: each worker finishes the block it holds, none takes another.
  std::atomic<size_t> jobs{0};
  for_each_block(blocks.grouped, {}, {0, size_t(-1), 2}, [&](const BlockJob&) {
    ++jobs;
    return false;
  });
  EXPECT_GE(jobs.load(), 1u);
  EXPECT_LE(jobs.load(), 2u);
}

TEST(BlockWorkers, StreamGivesBlocksInTraceOrderAndStopsWhenLeft) {
  const Blocks blocks = grouped_blocks(200);
  for (size_t window : {2u, 3u, 16u}) {
    SCOPED_TRACE(window);
    BlockStream stream(blocks.grouped, {}, 3, window);
    for (size_t b = 0; b < 200; ++b) {
      const StreamedBlock next = stream.next();
      ASSERT_EQ(next.index, b);
      expect_same_block(next.block, blocks.grouped.block(b));
    }
  }
  // Left after two blocks: the destructor stops the workers (no hang).
  BlockStream early(blocks.grouped, {}, 2, 4);
  EXPECT_EQ(early.next().index, 0u);
  EXPECT_EQ(early.next().index, 1u);
}

// The default window holds about 65,536 events ahead, in 8 to 64 blocks:
// 64 of the small blocks above (4 events on average), 65,536 / 4,096 = 16
// of 4,096 events, and 8 (the floor) of 20,000.
TEST(BlockWorkers, StreamWindowHoldsAboutSixtyFourThousandEventsInEightToSixtyFourBlocks) {
  EXPECT_EQ(stream_window(grouped_blocks(200).grouped), 64u);
  EXPECT_EQ(stream_window(grouped_blocks(3, 4096).grouped), 16u);
  EXPECT_EQ(stream_window(grouped_blocks(3, 20000).grouped), 8u);
}

}  // namespace
}  // namespace etkit::inspector
