// The timeline view model without a display: nesting depths of the
// upstream tutorial trace (hand-derived from the corpus README), folding
// invariants, hit-testing at boundaries and zoom around the cursor.

#include "etkit/gui/timeline_model.h"

#include <gtest/gtest.h>

#include <map>

#include "etkit/etdump/etdump_reader.h"
#include "support/corpus.h"

namespace etkit::gui {
namespace {

TEST(TimelineModel, TutorialTraceNestsAsUpstreamRecordsIt) {
  const auto trace = test::checked(etdump::ETDump::load_file(test::corpus("upstream/etdump/tutorial_cnn.etdp")),
                                   "tutorial_cnn.etdp");
  const TimelineModel model =
      test::checked(TimelineModel::build(trace, inspector::TimeUnit::kCycles), "timeline of tutorial_cnn.etdp");
  ASSERT_EQ(model.tracks().size(), 2u);
  EXPECT_EQ(model.event_count(), 2u + 29u);
  // Default: Program::load_method encloses Method::init.
  const TimelineTrack& load = model.tracks()[0];
  ASSERT_EQ(load.events.size(), 2u);
  EXPECT_EQ(load.name_of(load.events[0]), "Program::load_method");
  EXPECT_EQ(load.events[0].depth, 0);
  EXPECT_EQ(load.name_of(load.events[1]), "Method::init");
  EXPECT_EQ(load.events[1].depth, 1);
  // Execute: Method::execute, 14 OPERATOR_CALLs inside it, a kernel in each.
  const TimelineTrack& run = model.tracks()[1];
  EXPECT_EQ(run.name, "Execute #1");
  EXPECT_EQ(run.max_depth, 2);
  size_t calls = 0, kernels = 0;
  for (const TimelineEvent& event : run.events) {
    const std::string& name = run.name_of(event);
    if (name == "Method::execute") {
      EXPECT_EQ(event.depth, 0);
    }
    if (name == "OPERATOR_CALL") {
      EXPECT_EQ(event.depth, 1);
      ++calls;
    }
    if (name.rfind("native_call_", 0) == 0) {
      EXPECT_EQ(event.depth, 2) << name;
      ++kernels;
    }
  }
  EXPECT_EQ(calls, 14u);
  EXPECT_EQ(kernels, 14u);
  EXPECT_EQ(run.by_depth[1].size(), 14u);
}

// Folded, each op is its kernel's row: the tutorial run's 14 OPERATOR_CALLs
// each hold one kernel event, so the run keeps Method::execute and the 14
// kernels, one level under it.
TEST(TimelineModel, OperatorCallsFoldIntoTheirKernelsRow) {
  const auto trace = test::checked(etdump::ETDump::load_file(test::corpus("upstream/etdump/tutorial_cnn.etdp")),
                                   "tutorial_cnn.etdp");
  const TimelineModel model = test::checked(TimelineModel::build(trace, inspector::TimeUnit::kCycles, nullptr, true),
                                            "folded timeline of tutorial_cnn.etdp");
  EXPECT_EQ(model.event_count(), 2u + 15u);
  const TimelineTrack& run = model.tracks()[1];
  EXPECT_EQ(run.max_depth, 1);
  size_t kernels = 0;
  for (const TimelineEvent& event : run.events) {
    const std::string& name = run.name_of(event);
    EXPECT_NE(name, "OPERATOR_CALL");
    if (name.rfind("native_call_", 0) == 0) {
      EXPECT_EQ(event.depth, 1) << name;
      ++kernels;
    }
  }
  EXPECT_EQ(kernels, 14u);
  EXPECT_EQ(model.tracks()[0].events.size(), 2u);  // the load block has no OPERATOR_CALL
}

// 100 events of 1 ns, 1 ns apart, then one of 1000 ns, then 10 more small.
TimelineTrack synthetic_track() {
  TimelineTrack track;
  double t = 0;
  auto add = [&](double length) {
    TimelineEvent event;
    event.start = t;
    event.end = t + length;
    event.name = track.intern("e" + std::to_string(track.events.size()));
    track.events.push_back(event);
    t += length + 1;
  };
  for (int i = 0; i < 100; ++i) add(1);
  add(1000);
  for (int i = 0; i < 10; ++i) add(1);
  track.by_depth = {{}};
  for (size_t i = 0; i < track.events.size(); ++i) track.by_depth[0].push_back(i);
  return track;
}

TEST(TimelineLayout, NarrowEventsFoldIntoSpansThatCoverExactlyThem) {
  const TimelineTrack track = synthetic_track();
  // 10 ns per pixel: 1-ns events are narrower than 3 px, the 1000-ns one is not.
  const auto items = layout_track(track, 0, 2000, 10);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_TRUE(items[0].folded);
  EXPECT_EQ(items[0].count, 100u);
  EXPECT_EQ(items[0].first_event, 0u);
  EXPECT_DOUBLE_EQ(items[0].start, track.events[0].start);
  EXPECT_DOUBLE_EQ(items[0].end, track.events[99].end);
  EXPECT_FALSE(items[1].folded);
  EXPECT_EQ(items[1].first_event, 100u);
  EXPECT_EQ(items[2].count, 10u);
  size_t total = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    total += items[i].count;
    if (i > 0) {
      EXPECT_LE(items[i - 1].end, items[i].start);  // no overlap
    }
  }
  EXPECT_EQ(total, track.events.size());  // counts add up
  // Zoomed in (0.1 ns per pixel) every event is wide enough to stand alone.
  const auto zoomed = layout_track(track, 0, 50, 0.1);
  for (const DrawItem& item : zoomed) EXPECT_FALSE(item.folded);
  EXPECT_EQ(zoomed.size(), 26u);  // events starting in [0, 50], both ends included: 0, 2, ..., 50
}

TEST(TimelineLayout, HitTestingAtBoundaries) {
  const TimelineTrack track = synthetic_track();
  EXPECT_EQ(hit_test(track, 0.0, 0), 0u);    // the first event's start
  EXPECT_EQ(hit_test(track, 1.0, 0), 0u);    // its end, inclusive
  EXPECT_FALSE(hit_test(track, 1.5, 0));     // the gap after it
  EXPECT_EQ(hit_test(track, 2.0, 0), 1u);    // the next start
  EXPECT_FALSE(hit_test(track, 0.5, 1));     // no such depth
  EXPECT_FALSE(hit_test(track, -1.0, 0));
}

// The whole trace selected: counts and totals per name equal the event
// tables' durations of the same events (inspector event blocks, one run).
TEST(RangeAggregate, WholeTraceEqualsTheEventTable) {
  const auto trace = test::checked(etdump::ETDump::load_file(test::corpus("upstream/etdump/tutorial_cnn.etdp")),
                                   "tutorial_cnn.etdp");
  const TimelineModel model =
      test::checked(TimelineModel::build(trace, inspector::TimeUnit::kCycles), "timeline of tutorial_cnn.etdp");
  const auto aggregates = aggregate_range(model.tracks(), 0, model.end());
  inspector::EventBlockOptions units;
  units.source = units.target = inspector::TimeUnit::kCycles;
  const auto blocks = test::checked(inspector::event_blocks(trace, units), "event blocks");
  std::map<std::string, std::pair<size_t, double>> expected;  // name -> (count, total)
  for (const auto& block : blocks) {
    for (const auto& event : block.events) {
      if (!event.perf_data) continue;
      auto& [count, total] = expected[event.name];
      for (double raw : event.perf_data->raw) {
        ++count;
        total += raw;
      }
    }
  }
  ASSERT_EQ(aggregates.size(), expected.size());
  for (const RangeAggregate& aggregate : aggregates) {
    SCOPED_TRACE(aggregate.name);
    EXPECT_EQ(aggregate.count, expected.at(aggregate.name).first);
    EXPECT_DOUBLE_EQ(aggregate.total_ns, expected.at(aggregate.name).second);
    EXPECT_LE(aggregate.self_ns, aggregate.total_ns);
  }
  // Method::execute's self time is what its OPERATOR_CALLs leave.
  double execute_total = 0, calls_total = 0, execute_self = 0;
  for (const RangeAggregate& aggregate : aggregates) {
    if (aggregate.name == "Method::execute") {
      execute_total = aggregate.total_ns;
      execute_self = aggregate.self_ns;
    }
    if (aggregate.name == "OPERATOR_CALL") calls_total = aggregate.total_ns;
  }
  EXPECT_DOUBLE_EQ(execute_self, execute_total - calls_total);
}

TEST(Ruler, TicksAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(tick_step(1, 80), 100);      // 80 ns -> 100
  EXPECT_DOUBLE_EQ(tick_step(1, 100), 100);     // exactly
  EXPECT_DOUBLE_EQ(tick_step(2, 80), 200);      // 160 -> 200
  EXPECT_DOUBLE_EQ(tick_step(3, 80), 500);      // 240 -> 500
  EXPECT_DOUBLE_EQ(tick_step(7, 80), 1000);     // 560 -> 1000
  EXPECT_DOUBLE_EQ(tick_step(1e6, 80), 1e8);    // 80 ms -> 100 ms
  EXPECT_DOUBLE_EQ(tick_step(0.01, 80), 1);     // 0.8 ns -> 1
}

// Zoomed into a run 19.5 ms from the trace's start, ticks 10 µs apart were
// all "19.5 ms"; the labels carry the decimals their step needs.
TEST(Ruler, NeighbouringLabelsDifferAtEveryZoom) {
  EXPECT_EQ(tick_label(19.50e6, 1e4), "19.50 ms");
  EXPECT_EQ(tick_label(19.51e6, 1e4), "19.51 ms");
  EXPECT_EQ(tick_label(19.512e6, 2e3), "19.512 ms");
  EXPECT_EQ(tick_label(19.512005e6, 5), "19.512005 ms");
  EXPECT_EQ(tick_label(0, 1e4), "0 µs");
  EXPECT_EQ(tick_label(2e9, 5e8), "2.0 s");
  EXPECT_EQ(tick_label(750, 50), "750 ns");
  EXPECT_EQ(tick_label(3e5, 1e5), "300 µs");
  EXPECT_EQ(tick_label(1e6, 1e5), "1.0 ms");
}

// The ruler counts from the run under the view's middle, else from the last
// run that started before it, else from the trace's start.
TEST(TimelineModel, RulerCountsFromTheRunInView) {
  std::vector<TimelineTrack> tracks(3);
  const double spans[3][2] = {{0, 100}, {200, 300}, {500, 700}};
  for (size_t i = 0; i < 3; ++i) {
    TimelineEvent event;
    event.start = spans[i][0];
    event.end = spans[i][1];
    tracks[i].events.push_back(event);
    tracks[i].start = spans[i][0];
    tracks[i].end = spans[i][1];
  }
  RulerOrigin origin = ruler_origin(tracks, 210, 260);  // middle 235: the second run
  EXPECT_EQ(origin.ns, 200);
  EXPECT_EQ(origin.track, 1u);
  origin = ruler_origin(tracks, 300, 500);  // middle 400: between runs, after the second
  EXPECT_EQ(origin.ns, 200);
  EXPECT_EQ(origin.track, 1u);
  origin = ruler_origin(tracks, 520, 1000);  // middle 760: past the last run
  EXPECT_EQ(origin.ns, 500);
  EXPECT_EQ(origin.track, 2u);
  tracks[0].start = 50;  // nothing starts before the middle
  origin = ruler_origin(tracks, 0, 60);
  EXPECT_EQ(origin.ns, 0);
  EXPECT_FALSE(origin.track);
}

TEST(Viewport, ZoomKeepsTheTimeUnderTheCursor) {
  Viewport view;
  view.fit(1000, 5000, 800);  // 5 ns per pixel
  EXPECT_DOUBLE_EQ(view.ns_per_pixel, 5.0);
  const double x = 300, before = view.time_at(x);
  view.zoom_at(x, 4);
  EXPECT_DOUBLE_EQ(view.ns_per_pixel, 1.25);
  EXPECT_DOUBLE_EQ(view.time_at(x), before);
  view.zoom_at(x, 0.5);
  EXPECT_NEAR(view.time_at(x), before, 1e-9);
  view.pan(10);
  EXPECT_NEAR(view.time_at(x), before + 10 * view.ns_per_pixel, 1e-9);
}

}  // namespace
}  // namespace etkit::gui

namespace etkit::gui {
namespace {

TimelineTrack run_of(const std::string& name, double start, std::vector<double> op_durations) {
  TimelineTrack track;
  track.name = name;
  track.start = start;
  double t = start;
  const uint32_t op = track.intern("native_call_add.out"), wrapper = track.intern("OPERATOR_CALL");
  for (double d : op_durations) {
    track.events.push_back({t, t + d, 0, wrapper, -1, 0, -1});
    track.events.push_back({t, t + d, 1, op, -1, 0, -1});
    t += d;
  }
  track.end = t;
  return track;
}

TEST(TimelineLanes, RunBaseNamesGiveConsecutiveRunsOfOneBlockOneLaneIndex) {
  EXPECT_EQ(run_base_name("Execute #12"), "Execute");
  EXPECT_EQ(run_base_name("Prefill #3"), "Prefill");
  EXPECT_EQ(run_base_name("Default #0"), "Default");
  EXPECT_EQ(run_base_name("odd #name"), "odd #name");
  EXPECT_EQ(lane_indices({"Default", "Warmup", "Warmup", "Execute", "Execute", "Execute", "Untraced", "Execute"}),
            (std::vector<size_t>{0, 1, 1, 2, 2, 2, 3, 4}));
  EXPECT_TRUE(lane_indices({}).empty());
}

TEST(TimelineLanes, TheTypicalRunIsTheMedianOfTheMostRepeatedBlock) {
  std::vector<TimelineTrack> tracks = {run_of("Default #0", 0, {5}), run_of("Warmup #1", 10, {50, 50, 50}),
                                       run_of("Execute #2", 200, {10, 10}), run_of("Execute #3", 300, {10, 30}),
                                       run_of("Execute #4", 400, {10, 20}), run_of("Other #5", 500, {1})};
  // Execute runs last 20, 40 and 30: the median is #4; warm-ups never count.
  EXPECT_EQ(typical_run(tracks), std::optional<size_t>(4));
  EXPECT_EQ(typical_run({run_of("Default #0", 0, {5})}), std::nullopt);
}

TEST(TimelineLanes, TheOpeningViewFramesTheWholeRunWithItsMargins) {
  // A run of 100 + 10 x 10 ns from t = 500: 200 ns, 4 pixels of margin
  // either side of 100 px leave 92 px for it.
  const TimelineTrack track = run_of("Execute #1", 500, {100, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10});
  const Viewport view = frame_run(track, 100, 4);
  EXPECT_DOUBLE_EQ(view.ns_per_pixel, (track.end - track.start) / 92);
  EXPECT_NEAR(view.x_of(track.start), 4, 1e-9);
  EXPECT_NEAR(view.x_of(track.end), 96, 1e-9);
  // A canvas narrower than its margins still shows the run (in one pixel).
  const Viewport narrow = frame_run(track, 6, 4);
  EXPECT_NEAR(narrow.x_of(track.end) - narrow.x_of(track.start), 1, 1e-9);
}

TEST(TimelineLanes, OpEventsAreKernelsAndDelegatedOps) {
  EXPECT_FALSE(is_op_event("OPERATOR_CALL"));
  EXPECT_FALSE(is_op_event("Method::execute"));
  EXPECT_TRUE(is_op_event("native_call_add.out"));
  EXPECT_TRUE(is_op_event("7"));  // a delegated op, named by its id
}

}  // namespace
}  // namespace etkit::gui
