#pragma once
/// @file
/// The timeline's view model: plain C++ (no Qt, no ImGui), so the GUI only
/// draws what it decides and tests need no display.
///
/// A track per run block holds its profile events with their nesting depth
/// (Method::execute → OPERATOR_CALL → kernel → delegate-internal events);
/// layout_track() turns the visible part of a track into draw items,
/// folding runs of events narrower than a few pixels into one "N events"
/// span as Tracy does, so a million events stay interactive.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::etdump {
class ETDump;
}

namespace etkit::gui {

// Kept small (40 bytes): a timeline holds one per profile event, millions
// of them.
struct TimelineEvent {
  double start = 0;  ///< ns from the trace's first event
  double end = 0;
  int32_t depth = 0;  ///< 0 for events nothing encloses
  uint32_t name = 0;  ///< into the track's names
  int32_t instruction_id = -1;
  uint32_t event_index = 0;  ///< in its run block
  int32_t row = -1;          ///< the event's index in its event block (see TimelineTrack::group); -1: unknown
};

struct TimelineTrack {
  std::string name;  ///< "Execute #3"
  size_t block = 0;  ///< the trace's run block
  int32_t bundled_input_index = -1;
  /// The event block (inspector::GroupedEvents) this run was grouped into,
  /// and which of its runs it is; -1 when built without grouping.
  int32_t group = -1;
  int32_t run = -1;
  int max_depth = 0;
  double start = 0, end = 0;  ///< first start and last end of its events
  std::vector<std::string> names;     ///< distinct event names (delegate ids for delegate events)
  std::vector<TimelineEvent> events;  ///< by start time (ties: the longer first)
  /// Per depth, indices into `events` in start order (for visible-range
  /// lookups by binary search).
  std::vector<std::vector<size_t>> by_depth;

  const std::string& name_of(const TimelineEvent& event) const { return names[event.name]; }
  /// The id of `text` in `names`, added when new.
  uint32_t intern(std::string_view text);
  /// The index in `events` of the event with `row`, if this run has one.
  std::optional<size_t> find_row(int32_t row) const;
};

class TimelineModel {
 public:
  /// Tracks of every run block; `source` is the trace's time unit (cycles
  /// count as nanoseconds). With `grouped` (built on the same trace with
  /// `locate_events`), each event knows its event-table row. With
  /// `fold_operator_calls`, an OPERATOR_CALL that holds its instruction's
  /// only kernel event is left out, so each op is one row (its kernel's, as
  /// the table shows it) instead of two; an OPERATOR_CALL without a kernel
  /// event, or of an instruction that runs more than once in the run, stays.
  static Result<TimelineModel> build(const etdump::ETDump& trace,
                                     inspector::TimeUnit source = inspector::TimeUnit::kNanoseconds,
                                     const inspector::GroupedEvents* grouped = nullptr,
                                     bool fold_operator_calls = false);
  const std::vector<TimelineTrack>& tracks() const { return tracks_; }
  double end() const { return end_; }  ///< last event's end (the first starts at 0)
  /// Moves each run to where the run of the same name ("Execute #4") starts
  /// in `reference`, runs it lacks with the run before them: a baseline
  /// drawn under a trace compares run to run, op under op.
  void align_runs_to(const TimelineModel& reference);
  size_t event_count() const;

 private:
  std::vector<TimelineTrack> tracks_;
  double end_ = 0;
};

/// One thing to draw: an event, or a folded run of narrow events at one
/// depth covering exactly them (first start to last end).
struct DrawItem {
  double start = 0;
  double end = 0;
  int depth = 0;
  size_t first_event = 0;  ///< index into the track's events
  size_t count = 1;        ///< > 1 or `folded`: a folded span of this many events
  bool folded = false;
};

/// The draw items of `track` visible in [t0, t1] at `ns_per_pixel`: events
/// at least `min_pixels` wide as themselves; narrower neighbours at one
/// depth whose gaps are below `min_pixels` fold into one item. Items of one
/// depth never overlap and are in time order.
std::vector<DrawItem> layout_track(const TimelineTrack& track, double t0, double t1, double ns_per_pixel,
                                   double min_pixels = 3);

/// The innermost event of `track` at `time` on row `depth`, if any.
std::optional<size_t> hit_test(const TimelineTrack& track, double time, int depth);

/// The aggregate of one event name over a selected time range (Perfetto's
/// area selection): how many events, their total and their self time
/// (total minus the time of the events nested directly in them).
struct RangeAggregate {
  std::string name;
  size_t count = 0;
  double total_ns = 0;
  double self_ns = 0;
};

/// Every event of `tracks` lying wholly inside [t0, t1], aggregated by
/// name, largest total first.
std::vector<RangeAggregate> aggregate_range(const std::vector<TimelineTrack>& tracks, double t0, double t1);

/// "Execute" for a track named "Execute #7": the block name its runs share.
std::string run_base_name(const std::string& track_name);

/// Lanes: each track's lane index, where consecutive tracks with the same
/// key (their base name, and whether they are baseline tracks) share one
/// lane, so ten runs of a method make one row instead of a staircase.
std::vector<size_t> lane_indices(const std::vector<std::string>& keys);

/// The typical run: among the tracks of the block name with the most runs
/// (load and warm-up blocks excluded), the one of median duration; nullopt
/// for a trace with no such run.
std::optional<size_t> typical_run(const std::vector<TimelineTrack>& tracks);

/// Events that are operators (kernels, delegated ops), not the runtime's
/// wrappers (OPERATOR_CALL, DELEGATE_CALL, Method::…).
bool is_op_event(const std::string& name);

/// The ruler's tick spacing: the smallest 1, 2 or 5 × 10^k ns that puts
/// ticks at least `min_pixels` apart.
double tick_step(double ns_per_pixel, double min_pixels = 80);

/// A ruler label for the tick at `ns`, ticks `step_ns` apart: in the unit of
/// the larger of the two (ns, µs, ms, s), with the decimals the step needs,
/// so neighbouring labels differ however far in a run one zooms
/// ("19.51 ms", "19.52 ms", not "19.5 ms" twice).
std::string tick_label(double ns, double step_ns);

/// Where the ruler counts from when the view shows [t0, t1): the start of
/// the run (track) holding the view's middle, else of the last run that
/// started before it, else the trace's start (0). Labels then read "0.5 ms
/// into this run", not "248.5 ms into the trace".
struct RulerOrigin {
  double ns = 0;
  std::optional<size_t> track;  ///< into `tracks`; none: the trace's start
};
RulerOrigin ruler_origin(const std::vector<TimelineTrack>& tracks, double t0, double t1);

/// What part of time a canvas shows: its left edge and scale.
struct Viewport {
  double t0 = 0;            ///< ns at the left edge
  double ns_per_pixel = 1;  ///< > 0
  double time_at(double x) const { return t0 + x * ns_per_pixel; }
  double x_of(double time) const { return (time - t0) / ns_per_pixel; }
  /// Zooms by `factor` (> 1 zooms in) keeping the time under `x` in place.
  void zoom_at(double x, double factor);
  /// Moves the view by `dx` pixels (positive: later times come in from the right).
  void pan(double dx) { t0 += dx * ns_per_pixel; }
  /// Shows [begin, end] across `width` pixels.
  void fit(double begin, double end, double width);
};

/// The opening view of a run: the whole of `track` across `width` pixels,
/// `margin_pixels` left free on either side, so the first screen shows
/// where all of a typical run's time goes (zooming in reads the labels).
Viewport frame_run(const TimelineTrack& track, double width, double margin_pixels = 8);

}  // namespace etkit::gui
