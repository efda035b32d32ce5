#pragma once
/// @file
/// How the timeline colours and highlights events: colour by op type,
/// module or backend (a stable palette index per key), and which events
/// match the search box. Computed once per choice, looked up per drawn item.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "etkit/gui/timeline_model.h"

namespace etkit::inspector {
struct Event;
}

namespace etkit::gui {

class Workspace;

enum class ColourBy { kOpType, kModule, kBackend };
inline constexpr const char* kColourByNames[] = {"op type", "module", "backend"};

/// What `event` (its table event, or null when it has none) is coloured by:
/// its first op type, else its name; its innermost module, else "(no
/// module)"; its backend, else "(not delegated)".
std::string colour_key(const inspector::Event* event, const std::string& name, ColourBy mode);

/// A palette index for `key`: equal keys, equal colours, in every run.
uint32_t palette_index(std::string_view key, uint32_t palette_size);

/// The op time of one run per colour key, largest first: the timeline's
/// summary bar (ops only, not the runtime's wrappers around them).
struct KeyTime {
  std::string key;
  double ns = 0;
};
std::vector<KeyTime> op_time_by_key(const Workspace& workspace, size_t track, ColourBy mode);

/// The summary's legend: the `count` largest of `keys` (largest first, as
/// op_time_by_key gives them) with their percentage of all of them, then
/// the rest as one "other" share (none when nothing is left).
struct KeyShare {
  std::string key;  ///< empty for the other share
  double ns = 0;
  double percent = 0;
  size_t keys = 1;  ///< how many keys it sums (the other share: the rest)
};
std::vector<KeyShare> top_shares(const std::vector<KeyTime>& keys, size_t count = 5);

class TimelineStyle {
 public:
  static constexpr uint32_t kPaletteSize = 16;

  TimelineStyle(const Workspace& workspace, const TimelineModel& timeline);

  void colour_by(ColourBy mode);
  void colour_baseline(const std::unordered_map<std::string, uint32_t>& colour_of_op);
  ColourBy colouring() const { return mode_; }
  /// Palette index of event `index` of track `track`.
  uint32_t colour(size_t track, size_t index) const { return colours_[track][index]; }
  /// Palette index of event `index` of the workspace's baseline track
  /// `track`: the colour of the same op (name and instruction) in the trace,
  /// so both read alike; an op the trace lacks is coloured by its name.
  uint32_t baseline_colour(size_t track, size_t index) const { return baseline_colours_[track][index]; }
  /// The keys in use with their palette index and event count, most used first.
  struct LegendEntry {
    std::string key;
    uint32_t colour = 0;
    size_t events = 0;
  };
  const std::vector<LegendEntry>& legend() const { return legend_; }

  /// Highlights events whose name, op types or module contain `text`
  /// (case-insensitive); empty clears.
  void search(const std::string& text);
  const std::string& search_text() const { return search_; }
  bool matches(size_t track, size_t index) const { return !matches_.empty() && matches_[track][index]; }
  size_t match_count() const { return match_count_; }
  /// The match after (track, index) `after` in timeline order (tracks in
  /// order, events by start within one), wrapping to the first; the first
  /// without `after`; nullopt with no match. Enter in the search box steps
  /// through them.
  std::optional<std::pair<size_t, size_t>> next_match(std::optional<std::pair<size_t, size_t>> after) const;
  /// Which match (1-based) `at` is, 0 when it is none.
  size_t match_number(std::pair<size_t, size_t> at) const;

 private:
  const Workspace& workspace_;
  const TimelineModel& timeline_;
  ColourBy mode_ = ColourBy::kOpType;
  std::vector<std::vector<uint32_t>> colours_;  // per track, per event
  std::vector<std::vector<uint32_t>> baseline_colours_;  // per baseline track, per event
  std::vector<LegendEntry> legend_;
  std::string search_;
  std::vector<std::vector<bool>> matches_;
  size_t match_count_ = 0;
};

}  // namespace etkit::gui
