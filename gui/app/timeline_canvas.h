#pragma once
// The timeline: one track per run block, nested events as rows, drawn with
// ImGui from the timeline view model. Interaction (zoom, pan, select,
// range select, collapse) is handled in Qt's event handlers so no click is
// lost between frames; ImGui draws and shows tooltips.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "etkit/gui/timeline_lanes.h"
#include "etkit/gui/timeline_model.h"
#include "etkit/gui/timeline_style.h"
#include "imgui_canvas.h"

namespace etkit::gui {

class Workspace;

/// An event of the timeline: track index (primary tracks first, then the
/// baseline's) and event index in the track.
using EventId = std::pair<size_t, size_t>;

class TimelineCanvas : public ImGuiCanvas {
  Q_OBJECT
 public:
  explicit TimelineCanvas(QWidget* parent = nullptr);

  /// Shows `workspace`'s timeline coloured by `style` (both borrowed; null
  /// clears), fitted to the whole trace.
  void set_workspace(const Workspace* workspace, const TimelineStyle* style);
  void set_show_baseline(bool show);
  void fit_all();
  /// How many lanes the tracks are drawn in, and the tracks of one.
  size_t lane_count() const { return lanes_.lane_count(); }
  const std::vector<size_t>& lane(size_t index) const { return lanes_.lane(index); }
  /// The run the opening view frames (a track index), if the trace has one.
  std::optional<size_t> typical_run_track() const { return typical_; }
  /// Event labels the last frame drew (tests: the opening view is readable).
  size_t labels_drawn() const { return labels_drawn_; }
  /// Selects an event of the primary tracks; with `frame`, zooms to it and
  /// scrolls its track into view.
  void select(std::optional<EventId> event, bool frame);
  std::optional<EventId> selection() const { return selection_; }
  const Viewport& viewport() const { return viewport_; }
  /// Where an event is drawn, in widget coordinates (null when its track is
  /// collapsed or scrolled away).
  std::optional<QRectF> event_rect(EventId event) const;
  /// The range selection and its aggregate, if one is made.
  std::optional<std::pair<double, double>> range() const { return range_; }
  const std::vector<RangeAggregate>& range_aggregate() const { return aggregate_; }
  void select_range(double t0, double t1);
  /// Frames the primary run that spans [t0, t1] (its outermost event) and
  /// selects the range: a step clicked in the per-token view.
  void show_span(double t0, double t1);
  /// What hovering `event` shows: name, duration, instruction, op types,
  /// module, source line, delegate id and backend (the lines it has).
  std::vector<std::string> tooltip_lines(EventId event) const;

 signals:
  void event_selected(size_t track, size_t index);

 protected:
  void draw() override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  std::vector<LaneTrack> visible_tracks() const;
  /// The height below the ruler and summary strips, where lanes scroll.
  float view_height() const;
  /// What lies under widget point (x, y).
  std::optional<LaneHit> hit(float x, float y) const;
  void draw_ruler();
  void draw_lane_header(size_t lane, float top);
  void draw_folded_runs(double start, double end, size_t runs, float top);
  void draw_track(const LaneTrack& ref, size_t track, float top);
  void draw_tooltip(const LaneHit& hit);
  void draw_range();
  void draw_summary();
  /// Computes summary_ for the run the strip summarizes; false without one.
  bool update_summary();
  void frame_typical_run();

  const Workspace* workspace_ = nullptr;
  const TimelineStyle* style_ = nullptr;
  bool show_baseline_ = true;
  TimelineLanes lanes_;                         // tracks in lanes, collapsing, vertical scroll
  std::optional<size_t> typical_;               // the run the opening view frames
  bool opening_view_ = false;                   // until the user moves: resizes re-frame the typical run
  size_t labels_drawn_ = 0;
  Viewport viewport_;
  bool fitted_ = true;  // showing everything: a resize re-fits instead of cropping
  std::optional<EventId> selection_;
  std::optional<std::pair<double, double>> range_;
  std::vector<RangeAggregate> aggregate_;
  // The summary strip's op time per colour key, kept while its run and the
  // colouring stay (a typical run's events every frame cost a map per key).
  struct SummaryShares {
    size_t run = 0;
    ColourBy mode = ColourBy::kOpType;
    std::vector<KeyTime> keys;
  };
  std::optional<SummaryShares> summary_;
  // Dragging: pan, or shift-drag a range.
  std::optional<QPointF> press_;
  bool dragged_ = false;
  bool range_drag_ = false;
  double range_anchor_ = 0;
};

}  // namespace etkit::gui
