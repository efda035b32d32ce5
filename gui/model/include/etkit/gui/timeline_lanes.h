#pragma once
/// @file
/// The timeline's vertical layout, decided without a display: which lane
/// each track (run block) is drawn in, lane heights, collapsing, vertical
/// scrolling, which runs of a lane are drawn and which fold together, and
/// what lies under a point. The canvas draws what this says.

#include <cstddef>
#include <optional>
#include <vector>

#include "etkit/gui/timeline_model.h"

namespace etkit::gui {

/// Row geometry in pixels.
struct LaneMetrics {
  float header = 20;  ///< a lane's title strip
  float row = 18;     ///< one nesting depth of events
  float gap = 4;      ///< between lanes
};

/// A track the timeline shows: the primary trace's, or the baseline's.
struct LaneTrack {
  const TimelineTrack* track = nullptr;
  bool baseline = false;
  size_t index = 0;  ///< in its timeline model
};

/// What a lane draws in a time window: one run (`track`), or runs too
/// narrow to draw that fold into one span (`runs` > 0).
struct LaneSpan {
  size_t track = 0;  ///< the run, when runs == 0
  size_t runs = 0;   ///< folded runs
  double start = 0, end = 0;
};

/// What lies under a point of the tracks area: a lane's title, an event,
/// or a folded span of events, in the run nearest the point's time.
struct LaneHit {
  size_t track = 0;
  bool header = false;
  std::optional<size_t> event;
  std::optional<DrawItem> folded;
};

class TimelineLanes {
 public:
  /// Lays out `tracks` (borrowed): consecutive runs of one block share a
  /// lane (one row, no staircase; baseline runs apart), every lane
  /// expanded, scrolled to the top.
  void set_tracks(std::vector<LaneTrack> tracks, LaneMetrics metrics = {});

  size_t track_count() const { return tracks_.size(); }
  const LaneTrack& track(size_t index) const { return tracks_.at(index); }
  size_t lane_count() const { return lanes_.size(); }
  /// The tracks of a lane, in time order.
  const std::vector<size_t>& lane(size_t index) const { return lanes_.at(index); }
  size_t lane_of(size_t track) const { return lane_of_.at(track); }

  bool collapsed(size_t lane) const { return collapsed_.at(lane); }
  void toggle(size_t lane) { collapsed_.at(lane) = !collapsed_.at(lane); }
  void expand(size_t lane) { collapsed_.at(lane) = false; }
  /// Collapses every lane with no run overlapping [t0, t1] and expands the
  /// others: given the framed run's span, the opening view shows its lane
  /// (and a baseline's runs at the same time) without the load and warm-up
  /// lanes' rows.
  void collapse_outside(double t0, double t1);

  /// A collapsed lane is its title only; else title and one row per depth
  /// of its deepest run.
  float lane_height(size_t lane) const;
  /// Where a lane (a track: its lane) starts below the tracks area's top,
  /// scrolled.
  float lane_top(size_t lane) const;
  float track_top(size_t track) const { return lane_top(lane_of(track)); }
  float content_height() const;

  /// Vertical scroll, kept within [0, content height - `view_height`].
  float scroll() const { return scroll_; }
  void scroll_to(float y, float view_height);
  void scroll_by(float dy, float view_height) { scroll_to(scroll_ + dy, view_height); }

  /// The runs of `lane` overlapping [t0, t1]: each at least `min_pixels`
  /// wide at `ns_per_pixel` as itself; narrower neighbours closer than
  /// `min_pixels` fold into one span. In time order.
  std::vector<LaneSpan> spans(size_t lane, double t0, double t1, double ns_per_pixel, double min_pixels) const;

  /// What lies at `time` and `y` (below the tracks area's top) when drawn at
  /// `ns_per_pixel`: the lane there, its run nearest in time (runs of one
  /// lane never overlap), and in it the title, or the event or folded span
  /// within a pixel; nullopt outside every lane.
  std::optional<LaneHit> hit(double time, float y, double ns_per_pixel, double min_pixels) const;

 private:
  std::vector<LaneTrack> tracks_;
  LaneMetrics metrics_;
  std::vector<size_t> lane_of_;             // per track
  std::vector<std::vector<size_t>> lanes_;  // per lane: its tracks
  std::vector<bool> collapsed_;             // per lane
  float scroll_ = 0;
};

}  // namespace etkit::gui
