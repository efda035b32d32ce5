// The details, memory, gap and style view models against hand-derived
// values and the corpus.

#include <gtest/gtest.h>

#include <optional>
#include <set>

#include <cmath>

#include "etkit/core/program.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/gui/event_details.h"
#include "etkit/gui/gap_view.h"
#include "etkit/gui/memory_view.h"
#include "etkit/gui/size_treemap.h"
#include "etkit/gui/timeline_style.h"
#include "etkit/gui/workspace.h"
#include "support/cli.h"
#include "support/program_builder.h"

namespace etkit::gui {
namespace {

TEST(SizeTreemap, AreasFollowBytesAndTileTheBoundsWithoutOverlap) {
  // 6, 6, 4, 3, 2, 2, 1 in a 6 x 4 box (the squarified paper's example): each
  // cell's area is its share of the 24 square units, and together they tile it.
  inspector::SizePart root{"file", 24, {}};
  for (uint64_t bytes : {6, 6, 4, 3, 2, 2, 1}) root.parts.push_back({"part" + std::to_string(bytes), bytes, {}});
  const std::vector<TreemapCell> cells = layout_treemap(root, {0, 0, 6, 4}, 1);
  ASSERT_EQ(cells.size(), 7u);
  double total = 0;
  for (const TreemapCell& c : cells) {
    EXPECT_NEAR(c.rect.area(), double(c.part->bytes), 1e-9) << c.path;
    EXPECT_GE(c.rect.x, -1e-9);
    EXPECT_GE(c.rect.y, -1e-9);
    EXPECT_LE(c.rect.x + c.rect.w, 6 + 1e-9);
    EXPECT_LE(c.rect.y + c.rect.h, 4 + 1e-9);
    total += c.rect.area();
    for (const TreemapCell& d : cells) {
      if (&c == &d) continue;
      const double w = std::min(c.rect.x + c.rect.w, d.rect.x + d.rect.w) - std::max(c.rect.x, d.rect.x);
      const double h = std::min(c.rect.y + c.rect.h, d.rect.y + d.rect.h) - std::max(c.rect.y, d.rect.y);
      EXPECT_FALSE(w > 1e-9 && h > 1e-9) << c.path << " overlaps " << d.path;
    }
  }
  EXPECT_NEAR(total, 24, 1e-9);
  // The first row of the paper: the two 6s side by side, 3 wide and 2 high.
  EXPECT_NEAR(cells[0].rect.w, 3, 1e-9);
  EXPECT_NEAR(cells[0].rect.h, 2, 1e-9);
}

TEST(SizeTreemap, NestedPartsLieInsideTheirParentAndPathsFindThem) {
  inspector::SizePart root{"file", 10, {{"segments", 8, {{"constants", 5, {}}, {"named data", 3, {}}}}, {"headers", 2, {}}}};
  const std::vector<TreemapCell> cells = layout_treemap(root, {0, 0, 100, 50}, 2);
  ASSERT_EQ(cells.size(), 4u);
  const TreemapCell* segments = nullptr;
  for (const TreemapCell& c : cells) {
    if (c.path == "segments") segments = &c;
  }
  ASSERT_NE(segments, nullptr);
  for (const TreemapCell& c : cells) {
    if (c.depth != 2) continue;
    EXPECT_EQ(c.path.rfind("segments/", 0), 0u) << c.path;
    EXPECT_GE(c.rect.x, segments->rect.x);
    EXPECT_LE(c.rect.x + c.rect.w, segments->rect.x + segments->rect.w + 1e-9);
  }
  EXPECT_EQ(find_part(root, "segments/named data")->bytes, 3u);
  EXPECT_EQ(find_part(root, "")->bytes, 10u);
  EXPECT_EQ(find_part(root, "segments/nope"), nullptr);
}

TEST(Histogram, BinsByHand) {
  // Width (10 - 1) / 3 = 3: [1, 4) holds 1, 2, 2, 3; [4, 7) nothing; [7, 10] the 10.
  const Histogram h = histogram({1, 2, 2, 3, 10}, 3);
  EXPECT_EQ(h.bins, (std::vector<size_t>{4, 0, 1}));
  EXPECT_EQ(h.peak(), 4u);
  EXPECT_EQ(histogram({5, 5, 5}, 8).bins, std::vector<size_t>{3});  // all equal: one bin
  EXPECT_TRUE(histogram({}, 4).bins.empty());
  EXPECT_EQ(histogram_bins(10), 4u);  // ceil(sqrt(10))
  EXPECT_EQ(histogram_bins(1), 1u);
  EXPECT_EQ(histogram_bins(1000000), 40u);
}

TEST(Histogram, OverAGivenRangeEndValuesOutsideItInTheEndBins) {
  // [0, 10] in 5 bins of 2: 1 -> 0, 3 -> 1, 9 and 10 -> 4; -3 and 12 clamp to the ends.
  const Histogram h = histogram_over({1, 3, 9, 10, -3, 12}, 0, 10, 5);
  EXPECT_EQ(h.bins, (std::vector<size_t>{2, 1, 0, 0, 3}));
  EXPECT_EQ(h.min, 0);
  EXPECT_EQ(h.max, 10);
}

// With a baseline the event's durations and the baseline's share one range
// and bin count, so the slower trace's bars sit to the right.
TEST(EventDetails, BaselineDurationsOverlayOnTheSameBins) {
  inspector::EventBlock block{"Execute", -1, 4, {}};
  inspector::Event event;
  event.name = "native_call_convolution.out";
  event.perf_data = inspector::PerfData{{3, 4, 4, 5}, 3.3, 4, 4.7, 4, 3, 5};
  block.events.push_back(event);
  inspector::DiffRow baseline;
  baseline.before_runs = {1, 1, 2, 2, 3, 3, 3, 3, 3};
  baseline.before = 2.5;
  const EventDetails d = event_details(block, block.events[0], {}, &baseline);
  // Range [1, 5], ceil(sqrt(9)) = 3 bins of 4/3: [1, 2.33) [2.33, 3.67) [3.67, 5].
  ASSERT_TRUE(d.baseline_durations.has_value());
  EXPECT_EQ(d.durations.min, 1);
  EXPECT_EQ(d.durations.max, 5);
  EXPECT_EQ(d.durations.bins, (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(d.baseline_durations->bins, (std::vector<size_t>{4, 5, 0}));
  EXPECT_EQ(d.baseline_p50, 2.5);
  // Without a baseline (or one without runs) the event's own range.
  const EventDetails alone = event_details(block, block.events[0], {});
  EXPECT_FALSE(alone.baseline_durations.has_value());
  EXPECT_EQ(alone.durations.min, 3);
  inspector::DiffRow empty;
  EXPECT_FALSE(event_details(block, block.events[0], {}, &empty).baseline_durations.has_value());
}

// The upstream XNNPACK trace with its program: delegated events name their
// backend (the program's delegate instruction), their ids and runs.
TEST(EventDetails, DelegatedEventOfTheXnnpackTrace) {
  OpenRequest request;
  request.files = {test::corpus("upstream-runtime/xnn_mlp.etdp"), test::corpus("upstream-runtime/xnn_mlp.pte")};
  const auto ws = Workspace::load(request);
  ASSERT_TRUE(ws->errors().empty()) << ws->errors()[0].message;
  const inspector::EventBlock& block = ws->blocks().at(1);
  const EventDetails d = event_details(block, block.events.at(0), ws->debug_outputs());
  EXPECT_EQ(d.name, "Fully Connected (NC, F32) GEMM #1");
  EXPECT_TRUE(d.delegated);
  EXPECT_EQ(d.backend, "XnnpackBackend");
  EXPECT_EQ(d.runs, 3u);
  ASSERT_TRUE(d.perf);
  size_t binned = 0;
  for (size_t count : d.durations.bins) binned += count;
  EXPECT_EQ(binned, 3u);
  EXPECT_EQ(d.durations.min, d.perf->min);
  EXPECT_EQ(d.durations.max, d.perf->max);
}

// The tutorial trace with its debug buffer and ETRecord: a convolution's
// details show where it comes from and its output.
TEST(EventDetails, OriginAndOutputPreview) {
  OpenRequest request;
  request.files = {test::corpus("upstream-runtime/tutorial_cnn_intermediates.etdp"),
                   test::corpus("upstream-runtime/tutorial_cnn_intermediates.bin"),
                   test::corpus_program("tutorial_cnn.etrecord")};
  const auto ws = Workspace::load(request);
  ASSERT_TRUE(ws->errors().empty()) << ws->errors()[0].message;
  const inspector::EventBlock* execute = nullptr;
  for (const auto& block : ws->blocks()) {
    if (block.name == "Execute") execute = &block;
  }
  ASSERT_NE(execute, nullptr);
  const inspector::Event* conv = nullptr;
  for (const auto& event : execute->events) {
    if (event.name == "native_call_convolution.out") {
      conv = &event;
      break;
    }
  }
  ASSERT_NE(conv, nullptr);
  const EventDetails d = event_details(*execute, *conv, ws->debug_outputs());
  ASSERT_FALSE(d.origins.empty());
  EXPECT_FALSE(d.origins[0].modules.empty());
  EXPECT_NE(d.origins[0].source_line.find(".py:"), std::string::npos) << d.origins[0].source_line;
  ASSERT_EQ(d.outputs.size(), 1u);
  // The recorded output, resolved independently through the reader.
  const auto& recorded = ws->debug_outputs().at(conv->instruction_id).at(0);
  EXPECT_EQ(d.outputs[0].shape, inspector::shape_text(recorded));
  ASSERT_EQ(d.outputs[0].first_values.size(), kPreviewValues);
  for (size_t i = 0; i < kPreviewValues; ++i) EXPECT_EQ(d.outputs[0].first_values[i], recorded.values[i]);
  double min = recorded.values[0], max = recorded.values[0];
  for (double v : recorded.values) {
    min = std::min(min, v);
    max = std::max(max, v);
  }
  EXPECT_EQ(d.outputs[0].stats.min, min);
  EXPECT_EQ(d.outputs[0].stats.max, max);
}

TEST(TimelineStyle, ColoursFollowTheKeyAndSearchCountsMatches) {
  OpenRequest request;
  request.files = {test::corpus("upstream/etdump/tutorial_cnn.etdp"), test::sample("tutorial_cnn/tutorial_cnn.etrecord")};
  const auto ws = Workspace::load(request);
  TimelineStyle style(*ws, ws->timeline());
  const TimelineTrack& run = ws->timeline().tracks().at(1);
  // Colour by op type: two events with the same first op type share a colour.
  std::map<std::string, uint32_t> colour_of;
  size_t relus = 0;
  for (size_t i = 0; i < run.events.size(); ++i) {
    const std::string key = colour_key(ws->event_of(run, run.events[i]), run.name_of(run.events[i]), ColourBy::kOpType);
    EXPECT_EQ(style.colour(1, i), palette_index(key, TimelineStyle::kPaletteSize));
    auto [it, added] = colour_of.try_emplace(key, style.colour(1, i));
    EXPECT_EQ(it->second, style.colour(1, i));
    relus += run.name_of(run.events[i]).find("relu") != std::string::npos;
  }
  size_t legend_events = 0;
  for (const auto& entry : style.legend()) legend_events += entry.events;
  EXPECT_EQ(legend_events, ws->timeline().event_count());
  style.colour_by(ColourBy::kBackend);
  ASSERT_EQ(style.legend().size(), 1u);  // nothing delegated in the tutorial
  EXPECT_EQ(style.legend()[0].key, "(not delegated)");

  style.search("ReLU");
  ASSERT_GT(relus, 0u);
  // Matches: events whose name, op types or module mention relu, in any case
  // (the OPERATOR_CALL around a relu kernel links to the same node).
  size_t expected = 0;
  for (size_t t = 0; t < ws->timeline().tracks().size(); ++t) {
    const TimelineTrack& track = ws->timeline().tracks()[t];
    for (size_t i = 0; i < track.events.size(); ++i) {
      bool mentions = track.name_of(track.events[i]).find("relu") != std::string::npos;
      if (const inspector::Event* e = ws->event_of(track, track.events[i])) {
        for (const std::string& op : e->op_types) mentions |= op.find("relu") != std::string::npos;
        for (const auto& [node, frames] : e->module_hierarchy) {
          for (const auto& frame : frames) mentions |= frame.path.find("relu") != std::string::npos;
        }
      }
      EXPECT_EQ(style.matches(t, i), mentions) << track.name_of(track.events[i]);
      expected += mentions;
    }
  }
  EXPECT_GE(expected, relus);
  EXPECT_EQ(style.match_count(), expected);
  // Enter steps through every match once, in time order within a track,
  // then wraps; numbers count them 1..N.
  std::vector<std::pair<size_t, size_t>> visited;
  std::optional<std::pair<size_t, size_t>> at;
  for (size_t step = 0; step < expected; ++step) {
    at = style.next_match(at);
    ASSERT_TRUE(at);
    EXPECT_TRUE(style.matches(at->first, at->second));
    EXPECT_EQ(style.match_number(*at), step + 1);
    if (!visited.empty() && visited.back().first == at->first) {
      const TimelineTrack& track = ws->timeline().tracks()[at->first];
      EXPECT_LE(track.events[visited.back().second].start, track.events[at->second].start);
    }
    visited.push_back(*at);
  }
  const std::set<std::pair<size_t, size_t>> distinct(visited.begin(), visited.end());
  EXPECT_EQ(distinct.size(), expected);
  EXPECT_EQ(style.next_match(at), visited.front());  // wraps
  style.search("");
  EXPECT_FALSE(style.next_match(std::nullopt));
  EXPECT_EQ(style.match_count(), 0u);
  EXPECT_FALSE(style.matches(1, 0));
}

TEST(TimelineStyle, TopSharesNameTheLargestKeysAndSumTheRest) {
  // 50 + 20 + 10 + 10 + 5 + 3 + 2 = 100 ns over seven keys: five named,
  // the last two one "other" share of 5%.
  const std::vector<KeyTime> keys = {{"conv", 50}, {"bn", 20}, {"relu", 10}, {"add", 10},
                                     {"mean", 5},  {"mm", 3},  {"cat", 2}};
  const std::vector<KeyShare> shares = top_shares(keys);
  ASSERT_EQ(shares.size(), 6u);
  EXPECT_EQ(shares[0].key, "conv");
  EXPECT_DOUBLE_EQ(shares[0].percent, 50);
  EXPECT_EQ(shares[4].key, "mean");
  EXPECT_DOUBLE_EQ(shares[4].percent, 5);
  EXPECT_EQ(shares[5].key, "");
  EXPECT_EQ(shares[5].keys, 2u);
  EXPECT_DOUBLE_EQ(shares[5].ns, 5);
  EXPECT_DOUBLE_EQ(shares[5].percent, 5);
  // Five keys or fewer: no other share; nothing at all: no shares.
  EXPECT_EQ(top_shares({{"conv", 3}, {"bn", 1}}).size(), 2u);
  EXPECT_DOUBLE_EQ(top_shares({{"conv", 3}, {"bn", 1}})[1].percent, 25);
  EXPECT_TRUE(top_shares({}).empty());
  EXPECT_EQ(top_shares(keys, 2).back().keys, 5u);
}

// test::two_step_program: x (input, 0) -> a = x + x (16) -> b = a * a (at 0):
// x lives at step 0, a at 0-1, b at 1; 16 bytes each.
TEST(MemoryView, RectanglesFromLifetimes) {
  const Program program = test::checked(test::two_step_program(0, 32).load(), "built program");
  const inspector::MethodMemory memory = inspector::analyze_memory(summarize(program).methods.at(0));
  const MemoryViewModel model(memory);
  ASSERT_EQ(model.arenas().size(), 1u);
  const ArenaPicture& arena = model.arenas()[0];
  EXPECT_EQ(arena.size, 32u);
  ASSERT_EQ(arena.planned.size(), 3u);
  struct Expected {
    size_t first, last;
    uint64_t offset;
  } expected[] = {{0, 0, 0}, {0, 1, 16}, {1, 1, 0}};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(arena.planned[i].first, expected[i].first) << i;
    EXPECT_EQ(arena.planned[i].last, expected[i].last) << i;
    EXPECT_EQ(arena.planned[i].offset, expected[i].offset) << i;
    EXPECT_EQ(arena.planned[i].bytes, 16u) << i;
  }
  EXPECT_EQ(arena.live_bytes, (std::vector<uint64_t>{32, 32}));
  // Hover: x at step 0 bytes 0-15, b at step 1 bytes 0-15, a at 16-31 both steps.
  EXPECT_EQ(model.hit_test(arena, 0.5, 0, false), 0u);
  EXPECT_EQ(model.hit_test(arena, 0.999, 15.9, false), 0u);
  EXPECT_EQ(model.hit_test(arena, 1.0, 15, false), 2u);  // the step boundary belongs to the next step
  EXPECT_EQ(model.hit_test(arena, 1.5, 16, false), 1u);
  EXPECT_FALSE(model.hit_test(arena, 2.0, 0, false));    // past the last step
  EXPECT_FALSE(model.hit_test(arena, 0.5, 32, false));   // past the arena
  // The peak: 32 bytes from step 0 (the first step reaching it).
  EXPECT_EQ(arena.peak_step, 0u);
  // The legend: each producer's bytes (16 each: the input, the add, the
  // mul), largest first, ties in name order.
  ASSERT_EQ(model.legend().size(), 3u);
  EXPECT_EQ(model.legend()[0].producer, "(input)");
  for (const MemoryLegendEntry& entry : model.legend()) EXPECT_EQ(entry.bytes, 16u) << entry.producer;
  EXPECT_EQ(model.legend()[0].colour, arena.planned[0].colour);  // the input's rectangle
  // Colours by legend rank: the three producers take three different ones.
  EXPECT_EQ(model.legend()[0].colour, 0u);
  EXPECT_EQ(model.legend()[1].colour, 1u);
  EXPECT_EQ(model.legend()[2].colour, 2u);
  // Step ticks: two steps in 1-step ticks.
  EXPECT_EQ(model.step_ticks(8), (std::vector<size_t>{0, 1, 2}));
}

TEST(MemoryView, StepTicksAreRoundAndThePeakIsTheFirstHighest) {
  // 153 steps in about 8 ticks: 153 / 8 = 19.1 -> 20.
  inspector::MethodMemory memory;
  memory.instructions = 153;
  const MemoryViewModel model(memory);
  const std::vector<size_t> ticks = model.step_ticks(8);
  ASSERT_EQ(ticks.size(), 8u);
  EXPECT_EQ(ticks[1], 20u);
  EXPECT_EQ(ticks.back(), 140u);
  EXPECT_TRUE(model.legend().empty());
}

// Every sample's best-fit plan: tensors alive together never share bytes,
// and its extent is the best-fit size the analysis reports.
TEST(MemoryView, BestFitPlansOfEverySampleAreValid) {
  for (const char* sample : {"tutorial_cnn/tutorial_cnn.pte", "mobilenet_v2/mobilenet_v2.pte",
                             "resnet18/resnet18.pte", "nano_gpt/nano_gpt.pte", "tiny/affine.pte"}) {
    SCOPED_TRACE(sample);
    const Program program = test::checked(Program::load_file(test::sample(sample)), sample);
    for (const MethodSummary& method : summarize(program).methods) {
      const inspector::MethodMemory memory = inspector::analyze_memory(method);
      const MemoryViewModel model(memory);
      for (size_t a = 0; a < model.arenas().size(); ++a) {
        const ArenaPicture& arena = model.arenas()[a];
        uint64_t extent = 0;
        for (const MemoryRect& r : arena.best_fit_plan) extent = std::max(extent, r.offset + r.bytes);
        EXPECT_EQ(extent, memory.arenas[a].best_fit_bytes);
        EXPECT_GE(extent, arena.peak);
        const auto& rects = arena.best_fit_plan;
        for (size_t i = 0; i < rects.size(); ++i) {
          for (size_t j = i + 1; j < rects.size(); ++j) {
            const bool together = rects[i].first <= rects[j].last && rects[j].first <= rects[i].last;
            const bool share = rects[i].offset < rects[j].offset + rects[j].bytes &&
                               rects[j].offset < rects[i].offset + rects[i].bytes;
            EXPECT_FALSE(together && share) << "tensors " << rects[i].tensor << " and " << rects[j].tensor;
          }
        }
        uint64_t peak = 0;
        for (uint64_t live : arena.live_bytes) peak = std::max(peak, live);
        EXPECT_EQ(peak, memory.arenas[a].peak_live_bytes);
      }
    }
  }
}

inspector::GapRow gap_row(int32_t id, inspector::GapStatus status, double max_abs, double max_ref) {
  inspector::GapRow row;
  row.instruction_id = id;
  row.status = status;
  row.metrics.max_abs = max_abs;
  row.metrics.max_abs_reference = max_ref;
  row.metrics.mse = max_abs * max_abs;
  row.metrics.cosine = 1 - max_abs;
  row.metrics.snr_db = max_abs == 0 ? INFINITY : 20;
  return row;
}

TEST(GapView, SeriesThresholdAndFirstDivergence) {
  inspector::GapReport report;
  report.rows = {gap_row(0, inspector::GapStatus::kOk, 0, 1), gap_row(1, inspector::GapStatus::kNoReference, 0, 0),
                 gap_row(2, inspector::GapStatus::kOk, 1e-6, 2), gap_row(3, inspector::GapStatus::kDiverged, 0.5, 1)};
  report.first_divergence = 3;
  const GapSeries series = gap_series(report, GapMetric::kMaxAbs, 1e-5, 1e-4);
  ASSERT_EQ(series.points.size(), 3u);  // the row without a reference is no point
  EXPECT_EQ(series.points[1].row, 2u);
  EXPECT_EQ(series.first_divergence, 2u);
  EXPECT_TRUE(series.points[2].diverged);
  EXPECT_DOUBLE_EQ(*series.points[1].threshold, 1e-5 + 1e-4 * 2);
  // Log range in whole decades, one below the smallest positive value
  // (1e-6) and up to the largest (0.5 -> 1).
  EXPECT_TRUE(series.log_scale);
  EXPECT_DOUBLE_EQ(series.low, 1e-7);
  EXPECT_DOUBLE_EQ(series.high, 1);
  EXPECT_EQ(gap_fraction(series, 0), 0);  // an exact match sits at the floor
  EXPECT_NEAR(gap_fraction(series, 1e-6), 1.0 / 7, 1e-12);
  EXPECT_EQ(gap_fraction(series, 1), 1);
  EXPECT_EQ(nearest_point(series, 0.9), 0u);  // row 0 is 0.9 away, row 2 is 1.1
  EXPECT_EQ(nearest_point(series, 1.4), 1u);
  EXPECT_EQ(nearest_point(series, 9), 2u);
  const GapSeries cosine = gap_series(report, GapMetric::kCosine);
  EXPECT_DOUBLE_EQ(cosine.points[2].value, 0.5);  // plotted as 1 - cosine
  const GapSeries snr = gap_series(report, GapMetric::kSnrDb);
  EXPECT_FALSE(snr.log_scale);
  EXPECT_EQ(gap_fraction(snr, INFINITY), 1);  // identical outputs at the top
}

TEST(GapView, StatusLineCountsEveryStatusItHas) {
  inspector::GapReport report;
  report.rows = {gap_row(0, inspector::GapStatus::kOk, 0, 1), gap_row(1, inspector::GapStatus::kDiverged, 1, 1),
                 gap_row(2, inspector::GapStatus::kFolded, 0, 0), gap_row(3, inspector::GapStatus::kShapeMismatch, 0, 0)};
  report.compared = 2;
  report.missing = 0;
  report.shape_mismatches = 1;
  EXPECT_EQ(gap_status_line(report),
            "2 compared (1 diverged), 1 of another shape (a layout change or another program's value: not compared), "
            "1 folded into a later op");
  report.rows.resize(1);
  report.compared = 1;
  report.missing = 3;
  report.shape_mismatches = 0;
  EXPECT_EQ(gap_status_line(report), "1 compared (0 diverged), 3 without reference");
}

// Re-judging in quantization steps (the gap view's control) is the
// library's rule: a quantized row within K steps passes, a float one keeps
// its tolerance; the threshold drawn follows.
TEST(GapView, QuantizedRowsJudgedInTheirSteps) {
  inspector::GapReport report;
  report.rows = {gap_row(0, inspector::GapStatus::kOk, 0.3, 10), gap_row(1, inspector::GapStatus::kOk, 0.5, 1),
                 gap_row(2, inspector::GapStatus::kOk, 0.04, 1)};
  report.rows[0].quantum = 0.1;  // 3 steps
  report.rows[0].error_quanta = 3;
  report.rows[2].quantum = 0.02;  // 2 steps
  report.rows[2].error_quanta = 2;
  inspector::GapOptions options;
  inspector::judge(report, options);  // float tolerances: every row is far past 1e-5 + 1e-4 * max |reference|
  EXPECT_EQ(report.first_divergence, std::optional<size_t>(0));
  options.quanta = 2.5;
  inspector::judge(report, options);
  EXPECT_EQ(report.rows[0].status, inspector::GapStatus::kDiverged);  // 3 steps > 2.5
  EXPECT_EQ(report.rows[1].status, inspector::GapStatus::kDiverged);  // not quantized: 0.5 > 1e-5 + 1e-4
  EXPECT_EQ(report.rows[2].status, inspector::GapStatus::kOk);        // 2 steps
  const auto summary = quanta_summary(report);
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->rows, 2u);
  EXPECT_DOUBLE_EQ(summary->median, 2.5);
  EXPECT_DOUBLE_EQ(summary->max, 3);
  const GapSeries series = gap_series(report, GapMetric::kMaxAbs, 1e-5, 1e-4, 2.5);
  EXPECT_DOUBLE_EQ(*series.points[0].threshold, 0.25);
  EXPECT_DOUBLE_EQ(*series.points[1].threshold, 1e-5 + 1e-4 * 1);
}

TEST(GapView, RowLabelsNameTheDelegateNodeAndGraphNode) {
  inspector::GapRow row = gap_row(5, inspector::GapStatus::kOk, 0, 1);
  row.op = "aten.addmm.default";
  EXPECT_EQ(gap_row_label(row), "instruction 5: aten.addmm.default");
  row.instruction_id = 0;
  row.delegate_debug_id = 113;
  row.op = "aten.convolution.default";
  row.node = "aten_convolution_default_3";
  EXPECT_EQ(gap_row_label(row), "instruction 0, delegate node 113: aten.convolution.default (aten_convolution_default_3)");
}

TEST(GapView, TensorImagesTileChannels) {
  // [2, 2]: as is.
  const auto plain = tensor_image({1, 2, 3, 4}, {1, 2, 3, 5}, {2, 2});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->width, 2u);
  EXPECT_EQ(plain->height, 2u);
  EXPECT_EQ(plain->difference, (std::vector<float>{0, 0, 0, 1}));
  EXPECT_EQ(plain->max_difference, 1);
  EXPECT_EQ(plain->min_value, 1);
  EXPECT_EQ(plain->max_value, 5);
  // [1, 3, 1, 2]: three channels in a 2 x 2 grid of 1 x 2 tiles; the fourth tile is padding.
  std::vector<double> actual = {1, 2, 3, 4, 5, 6};
  const auto tiled = tensor_image(actual, actual, {1, 3, 1, 2});
  ASSERT_TRUE(tiled);
  EXPECT_EQ(tiled->width, 4u);
  EXPECT_EQ(tiled->height, 2u);
  EXPECT_EQ(tiled->actual[0], 1);
  EXPECT_EQ(tiled->actual[3], 4);  // channel 1 right of channel 0
  EXPECT_EQ(tiled->actual[4], 5);  // channel 2 below
  EXPECT_TRUE(std::isnan(tiled->actual[6]));
  // Shrunk: 4 x 4 into 2 x 2 keeps each block's largest magnitude.
  const auto shrunk = tensor_image({1, 2, 3, 4, 5, 6, 7, 8, -9, 0, 0, 0, 0, 0, 0, 1},
                                   std::vector<double>(16, 0), {4, 4}, 2);
  ASSERT_TRUE(shrunk);
  EXPECT_EQ(shrunk->width, 2u);
  EXPECT_EQ(shrunk->actual, (std::vector<float>{6, 8, -9, 1}));
  // [1, 5]: a row vector wraps into 3 columns, row by row; the sixth cell is padding.
  const auto row = tensor_image({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}, {1, 5});
  ASSERT_TRUE(row);
  EXPECT_EQ(row->width, 3u);
  EXPECT_EQ(row->height, 2u);
  EXPECT_EQ(row->actual[2], 3);
  EXPECT_EQ(row->actual[3], 4);
  EXPECT_TRUE(std::isnan(row->actual[5]));
  EXPECT_FALSE(tensor_image({1, 2}, {1}, {2}));  // sizes differ
  EXPECT_FALSE(tensor_image({1, 2}, {1, 2}, {2}));  // 1-D is no image
}

}  // namespace
}  // namespace etkit::gui
