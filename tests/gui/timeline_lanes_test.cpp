// The timeline's lanes without a display: which runs share a lane, lane
// heights and scrolling (hand-derived from the metrics), folding of narrow
// runs, and what a point hits.

#include "etkit/gui/timeline_lanes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace etkit::gui {
namespace {

// A run from `start` to `end` ns: one outer event, and `depth` more nested
// events each 10 ns inside the previous one.
TimelineTrack run(const std::string& name, double start, double end, int depth) {
  TimelineTrack track;
  track.name = name;
  track.start = start;
  track.end = end;
  track.max_depth = depth;
  for (int d = 0; d <= depth; ++d) {
    TimelineEvent event;
    event.start = start + 10 * d;
    event.end = end - 10 * d;
    event.depth = d;
    event.name = track.intern("level" + std::to_string(d));
    track.events.push_back(event);
    track.by_depth.push_back({size_t(d)});
  }
  return track;
}

std::vector<LaneTrack> refs(const std::vector<TimelineTrack>& tracks, bool baseline = false) {
  std::vector<LaneTrack> out;
  for (size_t i = 0; i < tracks.size(); ++i) out.push_back({&tracks[i], baseline, i});
  return out;
}

constexpr LaneMetrics kMetrics{20, 18, 4};

TEST(TimelineLanes, ConsecutiveRunsOfOneBlockShareALane) {
  const std::vector<TimelineTrack> tracks = {run("Program::load_method", 0, 100, 1), run("Execute #1", 200, 300, 2),
                                             run("Execute #2", 400, 500, 3), run("Warmup", 600, 700, 0)};
  std::vector<TimelineTrack> baseline = {run("Execute #1", 0, 100, 0)};
  std::vector<LaneTrack> all = refs(tracks);
  for (const LaneTrack& ref : refs(baseline, true)) all.push_back(ref);
  TimelineLanes lanes;
  lanes.set_tracks(all, kMetrics);
  ASSERT_EQ(lanes.lane_count(), 4u);  // load, Execute (two runs), Warmup, the baseline's Execute
  EXPECT_EQ(lanes.lane(1), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(lanes.lane_of(4), 3u);
  // Height: title + one row per depth of the deepest run + gap.
  EXPECT_FLOAT_EQ(lanes.lane_height(0), 20 + 2 * 18 + 4);
  EXPECT_FLOAT_EQ(lanes.lane_height(1), 20 + 4 * 18 + 4);  // Execute #2 is 3 deep
  EXPECT_FLOAT_EQ(lanes.lane_top(2), 60 + 96);
  lanes.toggle(1);
  EXPECT_TRUE(lanes.collapsed(1));
  EXPECT_FLOAT_EQ(lanes.lane_height(1), 20 + 4);
  EXPECT_FLOAT_EQ(lanes.content_height(), 60 + 24 + 42 + 42);
}

TEST(TimelineLanes, TheOpeningViewCollapsesLanesWithNothingInIt) {
  const std::vector<TimelineTrack> tracks = {run("Program::load_method", 0, 100, 1), run("Warmup", 150, 190, 2),
                                             run("Execute #1", 200, 300, 2), run("Execute #2", 400, 500, 3)};
  std::vector<TimelineTrack> baseline = {run("Execute #1", 250, 350, 0)};
  std::vector<LaneTrack> all = refs(tracks);
  for (const LaneTrack& ref : refs(baseline, true)) all.push_back(ref);
  TimelineLanes lanes;
  lanes.set_tracks(all, kMetrics);
  lanes.collapse_outside(390, 520);  // Execute #2 framed; the baseline's run ended at 350
  EXPECT_TRUE(lanes.collapsed(0));
  EXPECT_TRUE(lanes.collapsed(1));
  EXPECT_FALSE(lanes.collapsed(2));  // Execute's lane holds the framed run
  EXPECT_TRUE(lanes.collapsed(3));
  // Titles of the load and warm-up lanes above it: 2 x (20 + 4).
  EXPECT_FLOAT_EQ(lanes.lane_top(2), 48);
  lanes.collapse_outside(300, 320);  // a window with the baseline's run: its lane opens again
  EXPECT_FALSE(lanes.collapsed(3));
}

TEST(TimelineLanes, ScrollStaysWithinTheContent) {
  const std::vector<TimelineTrack> tracks = {run("A", 0, 100, 0), run("B", 200, 300, 0), run("C", 400, 500, 0)};
  TimelineLanes lanes;
  lanes.set_tracks(refs(tracks), kMetrics);  // three lanes of 42 px: 126
  lanes.scroll_by(1000, 100);
  EXPECT_FLOAT_EQ(lanes.scroll(), 26);
  EXPECT_FLOAT_EQ(lanes.lane_top(0), -26);
  lanes.scroll_by(-50, 100);
  EXPECT_FLOAT_EQ(lanes.scroll(), 0);
  lanes.scroll_to(10, 500);  // everything fits: no scroll
  EXPECT_FLOAT_EQ(lanes.scroll(), 0);
}

TEST(TimelineLanes, RunsNarrowerThanAFewPixelsFoldTogether) {
  std::vector<TimelineTrack> tracks;
  for (int i = 0; i < 10; ++i) tracks.push_back(run("Execute #" + std::to_string(i), i * 20, i * 20 + 10, 0));
  tracks.push_back(run("Execute #10", 1000, 2000, 0));
  TimelineLanes lanes;
  lanes.set_tracks(refs(tracks), kMetrics);
  ASSERT_EQ(lanes.lane_count(), 1u);
  // 10 ns per pixel: the 10-ns runs are 1 px wide, 1 px apart; the last is 100 px.
  const std::vector<LaneSpan> spans = lanes.spans(0, 0, 3000, 10, 3);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].runs, 10u);
  EXPECT_DOUBLE_EQ(spans[0].start, 0);
  EXPECT_DOUBLE_EQ(spans[0].end, 190);
  EXPECT_EQ(spans[1].runs, 0u);
  EXPECT_EQ(spans[1].track, 10u);
  // Zoomed in to 1 ns per pixel, each run is itself; outside the window, none.
  EXPECT_EQ(lanes.spans(0, 0, 3000, 1, 3).size(), 11u);
  EXPECT_TRUE(lanes.spans(0, 2100, 3000, 1, 3).empty());
}

TEST(TimelineLanes, APointHitsTheTitleTheEventOrTheNearestRun) {
  const std::vector<TimelineTrack> tracks = {run("Execute #1", 0, 100, 2), run("Execute #2", 200, 300, 2),
                                             run("Warmup", 0, 50, 0)};
  TimelineLanes lanes;
  lanes.set_tracks(refs(tracks), kMetrics);
  // Lane 0: title [0, 20), depths 0..2 at [20, 74), gap to 78.
  auto h = lanes.hit(250, 5, 1, 3);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->header);
  EXPECT_EQ(h->track, 1u);
  h = lanes.hit(250, 20 + 18 + 5, 1, 3);  // depth 1 of Execute #2: its event 1
  ASSERT_TRUE(h);
  EXPECT_FALSE(h->header);
  EXPECT_EQ(h->track, 1u);
  EXPECT_EQ(h->event, std::optional<size_t>(1));
  h = lanes.hit(140, 25, 1, 3);  // between the runs: the nearer one (Execute #1 ends at 100)
  ASSERT_TRUE(h);
  EXPECT_EQ(h->track, 0u);
  EXPECT_FALSE(h->event);
  h = lanes.hit(25, 78 + 25, 1, 3);  // lane 1: Warmup
  ASSERT_TRUE(h);
  EXPECT_EQ(h->track, 2u);
  EXPECT_EQ(h->event, std::optional<size_t>(0));
  EXPECT_FALSE(lanes.hit(25, 78 + 42 + 1, 1, 3));  // below every lane
  EXPECT_FALSE(lanes.hit(25, -1, 1, 3));
  lanes.toggle(0);  // a collapsed lane answers with its run, no event
  h = lanes.hit(250, 21, 1, 3);
  ASSERT_TRUE(h);
  EXPECT_FALSE(h->header);
  EXPECT_FALSE(h->event);
}

}  // namespace
}  // namespace etkit::gui
