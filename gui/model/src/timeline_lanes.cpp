#include "etkit/gui/timeline_lanes.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace etkit::gui {

void TimelineLanes::set_tracks(std::vector<LaneTrack> tracks, LaneMetrics metrics) {
  tracks_ = std::move(tracks);
  metrics_ = metrics;
  std::vector<std::string> keys;
  for (const LaneTrack& ref : tracks_) keys.push_back((ref.baseline ? "baseline: " : "") + run_base_name(ref.track->name));
  lane_of_ = lane_indices(keys);
  lanes_.assign(lane_of_.empty() ? 0 : lane_of_.back() + 1, {});
  for (size_t t = 0; t < lane_of_.size(); ++t) lanes_[lane_of_[t]].push_back(t);
  collapsed_.assign(lanes_.size(), false);
  scroll_ = 0;
}

void TimelineLanes::collapse_outside(double t0, double t1) {
  for (size_t l = 0; l < lanes_.size(); ++l) {
    bool overlaps = false;
    for (size_t t : lanes_[l]) overlaps = overlaps || (tracks_[t].track->start <= t1 && tracks_[t].track->end >= t0);
    collapsed_[l] = !overlaps;
  }
}

float TimelineLanes::lane_height(size_t lane) const {
  if (collapsed_.at(lane)) return metrics_.header + metrics_.gap;
  int depth = 0;
  for (size_t t : lanes_[lane]) depth = std::max(depth, tracks_[t].track->max_depth);
  return metrics_.header + float(depth + 1) * metrics_.row + metrics_.gap;
}

float TimelineLanes::lane_top(size_t lane) const {
  float y = -scroll_;
  for (size_t l = 0; l < lane; ++l) y += lane_height(l);
  return y;
}

float TimelineLanes::content_height() const {
  float h = 0;
  for (size_t l = 0; l < lanes_.size(); ++l) h += lane_height(l);
  return h;
}

void TimelineLanes::scroll_to(float y, float view_height) {
  scroll_ = std::clamp(y, 0.0f, std::max(0.0f, content_height() - view_height));
}

std::vector<LaneSpan> TimelineLanes::spans(size_t lane, double t0, double t1, double ns_per_pixel,
                                           double min_pixels) const {
  std::vector<LaneSpan> out;
  std::optional<LaneSpan> fold;
  const auto flush = [&] {
    if (fold) out.push_back(*fold);
    fold.reset();
  };
  for (size_t t : lanes_.at(lane)) {
    const TimelineTrack& run = *tracks_[t].track;
    if (run.end < t0 || run.start > t1) continue;
    if ((run.end - run.start) / ns_per_pixel >= min_pixels) {
      flush();
      out.push_back({t, 0, run.start, run.end});
      continue;
    }
    if (fold && (run.start - fold->end) / ns_per_pixel > min_pixels) flush();
    if (!fold) fold = LaneSpan{t, 0, run.start, run.end};
    fold->end = run.end;
    ++fold->runs;
  }
  flush();
  return out;
}

std::optional<LaneHit> TimelineLanes::hit(double time, float y, double ns_per_pixel, double min_pixels) const {
  if (y < 0) return std::nullopt;
  float top = -scroll_;
  for (size_t l = 0; l < lanes_.size(); ++l) {
    const float h = lane_height(l);
    if (y < top || y >= top + h) {
      top += h;
      continue;
    }
    // The lane's run at that time, else the nearest.
    size_t t = lanes_[l].front();
    double best = INFINITY;
    for (size_t candidate : lanes_[l]) {
      const TimelineTrack& c = *tracks_[candidate].track;
      const double distance = time < c.start ? c.start - time : time > c.end ? time - c.end : 0;
      if (distance < best) best = distance, t = candidate;
    }
    LaneHit result{t, y < top + metrics_.header, std::nullopt, std::nullopt};
    if (result.header || collapsed_[l]) return result;
    const int depth = int((y - top - metrics_.header) / metrics_.row);
    const TimelineTrack& track = *tracks_[t].track;
    // What is drawn there: a folded span answers for its events.
    const double half = ns_per_pixel;
    for (const DrawItem& item : layout_track(track, time - half, time + half, ns_per_pixel, min_pixels)) {
      if (item.depth != depth || item.start > time + half || item.end < time - half) continue;
      if (item.folded) result.folded = item;
      else if (time >= item.start - half && time <= item.end + half) result.event = item.first_event;
    }
    if (!result.event && !result.folded) result.event = hit_test(track, time, depth);
    return result;
  }
  return std::nullopt;
}

}  // namespace etkit::gui
