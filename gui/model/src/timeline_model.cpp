#include "etkit/gui/timeline_model.h"

#include <algorithm>
#include <unordered_map>
#include <cmath>
#include <cstdio>
#include <map>

#include "etkit/etdump/etdump_reader.h"

namespace etkit::gui {
namespace {

// Depths by nesting: sorted by start (longer first on ties), an event's
// depth is the number of still-open events that contain it.
void assign_depths(TimelineTrack& track) {
  std::stable_sort(track.events.begin(), track.events.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<double> open_ends;
  for (TimelineEvent& event : track.events) {
    while (!open_ends.empty() && open_ends.back() <= event.start) open_ends.pop_back();
    // An event that outlasts its would-be parent (clock skew) starts a new level under it anyway.
    event.depth = int32_t(open_ends.size());
    open_ends.push_back(event.end);
    track.max_depth = std::max(track.max_depth, event.depth);
  }
  track.by_depth.assign(size_t(track.max_depth) + 1, {});
  for (size_t i = 0; i < track.events.size(); ++i) track.by_depth[size_t(track.events[i].depth)].push_back(i);
}

// Drops each OPERATOR_CALL whose instruction has exactly one other event
// in the run (its kernel) and one OPERATOR_CALL.
void fold_operator_calls(TimelineTrack& track) {
  const auto found = std::find(track.names.begin(), track.names.end(), "OPERATOR_CALL");
  if (found == track.names.end()) return;
  const auto call_name = uint32_t(found - track.names.begin());
  std::map<int32_t, std::pair<size_t, size_t>> per_instruction;  // (calls, kernels)
  for (const TimelineEvent& event : track.events) {
    if (event.instruction_id < 0) continue;
    auto& [calls, kernels] = per_instruction[event.instruction_id];
    (event.name == call_name ? calls : kernels) += 1;
  }
  const auto folded = [&](const TimelineEvent& event) {
    if (event.name != call_name || event.instruction_id < 0) return false;
    const auto& [calls, kernels] = per_instruction[event.instruction_id];
    return calls == 1 && kernels == 1;
  };
  track.events.erase(std::remove_if(track.events.begin(), track.events.end(), folded), track.events.end());
}

}  // namespace

uint32_t TimelineTrack::intern(std::string_view text) {
  // A run has few distinct names: a linear search beats hashing here.
  for (size_t i = names.size(); i-- > 0;) {
    if (names[i] == text) return uint32_t(i);
  }
  names.emplace_back(text);
  return uint32_t(names.size() - 1);
}

std::optional<size_t> TimelineTrack::find_row(int32_t row) const {
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].row == row) return i;
  }
  return std::nullopt;
}

Result<TimelineModel> TimelineModel::build(const etdump::ETDump& trace, inspector::TimeUnit source,
                                           const inspector::GroupedEvents* grouped, bool fold_operator_calls) {
  const double ns_per_tick = source == inspector::TimeUnit::kCycles ? 1.0 : inspector::nanoseconds_per(source);
  const uint64_t origin = trace.first_start();
  TimelineModel model;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    TimelineTrack track;
    track.name = std::string(block.name()) + " #" + std::to_string(b);
    track.block = b;
    track.bundled_input_index = block.bundled_input_index();
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind != etdump::EventKind::kProfile) continue;
      const etdump::ProfileEventView& p = event.profile;
      TimelineEvent item;
      item.start = double(p.start_time - origin) * ns_per_tick;
      item.end = double(std::max(p.end_time, p.start_time) - origin) * ns_per_tick;
      // The table's name for it (an XNNPACK event's operator name, not its id).
      item.name = track.intern(inspector::event_display_name(p.name, p.delegate_debug_id_int, p.delegate_debug_id_str));
      item.instruction_id = p.chain_index < 0 ? -1 : p.instruction_id;
      item.event_index = uint32_t(e);
      if (grouped != nullptr) {
        if (const std::optional<inspector::EventPlace> place = grouped->place(b, e)) {
          track.group = int32_t(place->block);
          track.run = int32_t(place->run);
          item.row = int32_t(place->event);
        }
      }
      model.end_ = std::max(model.end_, item.end);
      track.events.push_back(std::move(item));
    }
    if (fold_operator_calls) gui::fold_operator_calls(track);
    assign_depths(track);
    for (size_t i = 0; i < track.events.size(); ++i) {
      track.start = i == 0 ? track.events[i].start : std::min(track.start, track.events[i].start);
      track.end = std::max(track.end, track.events[i].end);
    }
    model.tracks_.push_back(std::move(track));
  }
  return model;
}

size_t TimelineModel::event_count() const {
  size_t count = 0;
  for (const TimelineTrack& track : tracks_) count += track.events.size();
  return count;
}

void TimelineModel::align_runs_to(const TimelineModel& reference) {
  std::unordered_map<std::string, double> start_of;
  for (const TimelineTrack& track : reference.tracks_) start_of.emplace(track.name, track.start);
  double shift = 0;
  end_ = 0;
  for (TimelineTrack& track : tracks_) {
    // A run the reference has starts where its run does; one it lacks moves
    // with the run before it, so the order of runs stays.
    if (const auto found = start_of.find(track.name); found != start_of.end()) shift = found->second - track.start;
    track.start += shift;
    track.end += shift;
    for (TimelineEvent& event : track.events) {
      event.start += shift;
      event.end += shift;
    }
    end_ = std::max(end_, track.end);
  }
}

std::vector<DrawItem> layout_track(const TimelineTrack& track, double t0, double t1, double ns_per_pixel,
                                   double min_pixels) {
  std::vector<DrawItem> items;
  const double min_ns = min_pixels * ns_per_pixel;
  for (size_t depth = 0; depth < track.by_depth.size(); ++depth) {
    const std::vector<size_t>& row = track.by_depth[depth];
    // Events of one depth do not overlap, so ends are sorted like starts:
    // the first visible one is the first ending after t0.
    auto first = std::lower_bound(row.begin(), row.end(), t0,
                                  [&](size_t i, double t) { return track.events[i].end < t; });
    std::optional<DrawItem> fold;
    auto flush = [&] {
      if (fold) items.push_back(*fold);
      fold.reset();
    };
    for (auto it = first; it != row.end() && track.events[*it].start <= t1; ++it) {
      const TimelineEvent& event = track.events[*it];
      const bool narrow = event.end - event.start < min_ns;
      if (narrow && fold && event.start - fold->end < min_ns) {
        fold->end = std::max(fold->end, event.end);
        ++fold->count;
        fold->folded = true;
        continue;
      }
      flush();
      DrawItem item{event.start, event.end, int(depth), *it, 1, false};
      if (narrow) fold = item;  // may gather the next narrow ones
      else items.push_back(item);
    }
    flush();
  }
  return items;
}

std::optional<size_t> hit_test(const TimelineTrack& track, double time, int depth) {
  if (depth < 0 || size_t(depth) >= track.by_depth.size()) return std::nullopt;
  const std::vector<size_t>& row = track.by_depth[size_t(depth)];
  // The last event starting at or before `time`.
  auto it = std::upper_bound(row.begin(), row.end(), time, [&](double t, size_t i) { return t < track.events[i].start; });
  if (it == row.begin()) return std::nullopt;
  const size_t index = *(it - 1);
  if (time <= track.events[index].end) return index;
  return std::nullopt;
}

std::string run_base_name(const std::string& track_name) {
  const size_t hash = track_name.rfind(" #");
  if (hash == std::string::npos || hash + 2 >= track_name.size()) return track_name;
  for (size_t i = hash + 2; i < track_name.size(); ++i) {
    if (track_name[i] < '0' || track_name[i] > '9') return track_name;
  }
  return track_name.substr(0, hash);
}

std::vector<size_t> lane_indices(const std::vector<std::string>& keys) {
  std::vector<size_t> lanes;
  for (size_t i = 0; i < keys.size(); ++i) {
    const bool same = i > 0 && keys[i] == keys[i - 1];
    lanes.push_back(i == 0 ? 0 : same ? lanes.back() : lanes.back() + 1);
  }
  return lanes;
}

std::optional<size_t> typical_run(const std::vector<TimelineTrack>& tracks) {
  std::map<std::string, std::vector<size_t>> runs;
  for (size_t t = 0; t < tracks.size(); ++t) {
    const std::string base = run_base_name(tracks[t].name);
    if (base == "Default" || base == inspector::kWarmupBlockName || tracks[t].events.empty()) continue;
    runs[base].push_back(t);
  }
  const std::vector<size_t>* most = nullptr;
  for (const auto& [base, list] : runs) {
    if (most == nullptr || list.size() > most->size()) most = &list;
  }
  if (most == nullptr) return std::nullopt;
  std::vector<size_t> by_duration = *most;
  std::sort(by_duration.begin(), by_duration.end(), [&](size_t a, size_t b) {
    return tracks[a].end - tracks[a].start < tracks[b].end - tracks[b].start;
  });
  return by_duration[(by_duration.size() - 1) / 2];
}

bool is_op_event(const std::string& name) {
  return name != "OPERATOR_CALL" && name != "DELEGATE_CALL" && name.rfind("Method::", 0) != 0 &&
         name.rfind("Program::", 0) != 0;
}

Viewport frame_run(const TimelineTrack& track, double width, double margin_pixels) {
  const double usable = std::max(1.0, width - 2 * margin_pixels);
  Viewport view;
  view.ns_per_pixel = std::max(1.0, track.end - track.start) / usable;
  view.t0 = track.start - margin_pixels * view.ns_per_pixel;
  return view;
}

std::vector<RangeAggregate> aggregate_range(const std::vector<TimelineTrack>& tracks, double t0, double t1) {
  std::vector<RangeAggregate> out;
  std::map<std::string, size_t> index;
  for (const TimelineTrack& track : tracks) {
    // Child time per event: events are in start order, so a stack of open
    // ancestors finds each event's parent.
    std::vector<double> child_ns(track.events.size(), 0);
    std::vector<size_t> open;
    for (size_t i = 0; i < track.events.size(); ++i) {
      const TimelineEvent& event = track.events[i];
      while (!open.empty() && track.events[open.back()].depth >= event.depth) open.pop_back();
      if (!open.empty()) child_ns[open.back()] += event.end - event.start;
      open.push_back(i);
    }
    for (size_t i = 0; i < track.events.size(); ++i) {
      const TimelineEvent& event = track.events[i];
      if (event.start < t0 || event.end > t1) continue;
      const std::string& name = track.name_of(event);
      auto [it, added] = index.try_emplace(name, out.size());
      if (added) out.push_back({name, 0, 0, 0});
      RangeAggregate& aggregate = out[it->second];
      ++aggregate.count;
      aggregate.total_ns += event.end - event.start;
      aggregate.self_ns += event.end - event.start - child_ns[i];
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RangeAggregate& a, const RangeAggregate& b) { return a.total_ns > b.total_ns; });
  return out;
}

double tick_step(double ns_per_pixel, double min_pixels) {
  const double min_ns = std::max(ns_per_pixel * min_pixels, 1e-3);
  double decade = std::pow(10.0, std::floor(std::log10(min_ns)));
  for (;;) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * decade >= min_ns * (1 - 1e-12)) return m * decade;
    }
    decade *= 10;
  }
}

RulerOrigin ruler_origin(const std::vector<TimelineTrack>& tracks, double t0, double t1) {
  const double middle = (t0 + t1) / 2;
  RulerOrigin origin;
  for (size_t i = 0; i < tracks.size(); ++i) {
    const TimelineTrack& track = tracks[i];
    if (track.events.empty() || track.start > middle) continue;
    if (middle < track.end) return {track.start, i};  // the run under the middle
    if (!origin.track || track.start > origin.ns) origin = {track.start, i};
  }
  return origin;
}

std::string tick_label(double ns, double step_ns) {
  const double magnitude = std::max(std::abs(ns), std::abs(step_ns));
  double scale = 1;
  const char* unit = "ns";
  if (magnitude >= 1e9) scale = 1e9, unit = "s";
  else if (magnitude >= 1e6) scale = 1e6, unit = "ms";
  else if (magnitude >= 1e3) scale = 1e3, unit = "µs";
  // A step of 0.01 units needs two decimals (the epsilon keeps log10's
  // rounding of exact powers of ten from asking for one more).
  const double step = step_ns / scale;
  const int decimals = step > 0 ? std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 9) : 0;
  char text[48];
  std::snprintf(text, sizeof(text), "%.*f %s", decimals, ns / scale, unit);
  return text;
}

void Viewport::zoom_at(double x, double factor) {
  const double anchor = time_at(x);
  ns_per_pixel /= factor;
  t0 = anchor - x * ns_per_pixel;
}

void Viewport::fit(double begin, double end, double width) {
  t0 = begin;
  ns_per_pixel = width > 0 && end > begin ? (end - begin) / width : 1;
}

}  // namespace etkit::gui
