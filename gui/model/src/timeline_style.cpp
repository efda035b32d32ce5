#include "etkit/gui/timeline_style.h"

#include <map>

#include <algorithm>
#include <unordered_map>

#include "etkit/gui/workspace.h"
#include "lowercase.h"
#include "etkit/inspector/event_text.h"

namespace etkit::gui {
namespace {

using detail::lowercase;

// What makes two events the same op in two traces of one program.
std::string op_key(const TimelineTrack& track, const TimelineEvent& event) {
  return track.name_of(event) + "\n" + std::to_string(event.instruction_id);
}

}  // namespace

std::string colour_key(const inspector::Event* event, const std::string& name, ColourBy mode) {
  switch (mode) {
    case ColourBy::kOpType:
      return event != nullptr && !event->op_types.empty() ? event->op_types.front() : name;
    case ColourBy::kModule: {
      const std::string module = event != nullptr ? inspector::module_text(*event) : "";
      return module.empty() ? "(no module)" : module;
    }
    case ColourBy::kBackend:
      return event != nullptr && !event->delegate_backend_name.empty() ? event->delegate_backend_name
                                                                       : "(not delegated)";
  }
  return name;
}

uint32_t palette_index(std::string_view key, uint32_t palette_size) {
  // FNV-1a: std::hash may differ between builds, colours should not.
  uint32_t hash = 2166136261u;
  for (char c : key) hash = (hash ^ uint8_t(c)) * 16777619u;
  return palette_size == 0 ? 0 : hash % palette_size;
}

TimelineStyle::TimelineStyle(const Workspace& workspace, const TimelineModel& timeline)
    : workspace_(workspace), timeline_(timeline) {
  colour_by(ColourBy::kOpType);
}

// Calls `compute(track, event)` once per distinct (name, instruction) —
// what links an event to the model, so op types, module and backend are
// equal for equal pairs in every run — and `store(t, i, slot)` for every
// event with the slot of its result: a million events of a thousand runs
// cost a few hundred computations. Tracks linked to the event table come
// first: a warm-up run (left out of the table) then shares the result of
// the same instruction in a linked run instead of deciding it unlinked.
template <typename Compute, typename Store>
void per_distinct_event(const TimelineModel& timeline, Compute compute, Store store) {
  std::unordered_map<std::string, size_t> slots;
  std::string key;
  size_t next = 0;
  std::vector<size_t> order(timeline.tracks().size());
  for (size_t t = 0; t < order.size(); ++t) order[t] = t;
  std::stable_partition(order.begin(), order.end(), [&](size_t t) { return timeline.tracks()[t].group >= 0; });
  for (size_t t : order) {
    const TimelineTrack& track = timeline.tracks()[t];
    // Per track, its names' slots by (name id, instruction) without strings.
    std::unordered_map<uint64_t, size_t> local;
    for (size_t i = 0; i < track.events.size(); ++i) {
      const TimelineEvent& event = track.events[i];
      const uint64_t local_key = (uint64_t(event.name) << 32) | uint32_t(event.instruction_id);
      auto found = local.find(local_key);
      if (found == local.end()) {
        key = track.name_of(event);
        key += '\n';
        key += std::to_string(event.instruction_id);
        auto [it, added] = slots.try_emplace(key, next);
        if (added) compute(track, event, next++);
        found = local.emplace(local_key, it->second).first;
      }
      store(t, i, found->second);
    }
  }
}

void TimelineStyle::colour_by(ColourBy mode) {
  mode_ = mode;
  colours_.assign(timeline_.tracks().size(), {});
  for (size_t t = 0; t < colours_.size(); ++t) colours_[t].resize(timeline_.tracks()[t].events.size());
  std::vector<size_t> legend_of;  // per slot
  std::unordered_map<std::string, size_t> legend_index;
  std::unordered_map<std::string, uint32_t> colour_of_op;  // "name\ninstruction" -> colour
  legend_.clear();
  per_distinct_event(
      timeline_,
      [&](const TimelineTrack& track, const TimelineEvent& event, size_t) {
        std::string key = colour_key(workspace_.event_of(track, event), track.name_of(event), mode);
        auto [it, added] = legend_index.try_emplace(key, legend_.size());
        if (added) legend_.push_back({key, palette_index(key, kPaletteSize), 0});
        legend_of.push_back(it->second);
        colour_of_op.emplace(op_key(track, event), legend_[it->second].colour);
      },
      [&](size_t t, size_t i, size_t slot) {
        LegendEntry& entry = legend_[legend_of[slot]];
        colours_[t][i] = entry.colour;
        ++entry.events;
      });
  std::stable_sort(legend_.begin(), legend_.end(),
                   [](const LegendEntry& a, const LegendEntry& b) { return a.events > b.events; });
  colour_baseline(colour_of_op);
}

void TimelineStyle::colour_baseline(const std::unordered_map<std::string, uint32_t>& colour_of_op) {
  baseline_colours_.clear();
  const TimelineModel* baseline = workspace_.baseline_timeline();
  if (baseline == nullptr) return;
  for (const TimelineTrack& track : baseline->tracks()) {
    std::vector<uint32_t>& colours = baseline_colours_.emplace_back(track.events.size());
    std::unordered_map<uint64_t, uint32_t> local;  // (name id, instruction) -> colour, per track
    for (size_t i = 0; i < track.events.size(); ++i) {
      const TimelineEvent& event = track.events[i];
      const uint64_t local_key = (uint64_t(event.name) << 32) | uint32_t(event.instruction_id);
      auto found = local.find(local_key);
      if (found == local.end()) {
        const auto op = colour_of_op.find(op_key(track, event));
        const uint32_t colour = op != colour_of_op.end()
                                    ? op->second
                                    : palette_index(colour_key(nullptr, track.name_of(event), mode_), kPaletteSize);
        found = local.emplace(local_key, colour).first;
      }
      colours[i] = found->second;
    }
  }
}

void TimelineStyle::search(const std::string& text) {
  search_ = text;
  matches_.clear();
  match_count_ = 0;
  if (text.empty()) return;
  const std::string needle = lowercase(text);
  matches_.resize(timeline_.tracks().size());
  for (size_t t = 0; t < matches_.size(); ++t) matches_[t].resize(timeline_.tracks()[t].events.size());
  std::vector<bool> slot_matches;
  per_distinct_event(
      timeline_,
      [&](const TimelineTrack& track, const TimelineEvent& event, size_t) {
        std::string haystack = track.name_of(event);
        if (const inspector::Event* e = workspace_.event_of(track, event)) {
          haystack += "\n" + inspector::op_types_text(*e) + "\n" + inspector::module_text(*e);
        }
        slot_matches.push_back(lowercase(haystack).find(needle) != std::string::npos);
      },
      [&](size_t t, size_t i, size_t slot) {
        matches_[t][i] = slot_matches[slot];
        match_count_ += slot_matches[slot];
      });
}

namespace {

// A track's events by start (then by index): the order Enter steps through.
std::vector<size_t> by_start(const TimelineTrack& track) {
  std::vector<size_t> order(track.events.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return track.events[a].start < track.events[b].start; });
  return order;
}

}  // namespace

std::optional<std::pair<size_t, size_t>> TimelineStyle::next_match(
    std::optional<std::pair<size_t, size_t>> after) const {
  if (match_count_ == 0) return std::nullopt;
  std::optional<std::pair<size_t, size_t>> first;
  bool passed = !after;  // past `after` in timeline order
  for (size_t t = 0; t < matches_.size(); ++t) {
    for (size_t i : by_start(timeline_.tracks()[t])) {
      if (after && *after == std::pair<size_t, size_t>{t, i}) {
        passed = true;
        continue;
      }
      if (!matches_[t][i]) continue;
      if (!first) first = std::pair<size_t, size_t>{t, i};
      if (passed) return std::pair<size_t, size_t>{t, i};
    }
  }
  return first;  // wrapped
}

size_t TimelineStyle::match_number(std::pair<size_t, size_t> at) const {
  if (at.first >= matches_.size() || at.second >= matches_[at.first].size() || !matches_[at.first][at.second]) return 0;
  size_t number = 0;
  for (size_t t = 0; t < matches_.size(); ++t) {
    for (size_t i : by_start(timeline_.tracks()[t])) {
      number += matches_[t][i];
      if (t == at.first && i == at.second) return number;
    }
  }
  return 0;
}

std::vector<KeyTime> op_time_by_key(const Workspace& workspace, size_t track, ColourBy mode) {
  std::map<std::string, double> by_key;
  const TimelineTrack& t = workspace.timeline().tracks().at(track);
  for (const TimelineEvent& e : t.events) {
    const std::string& name = t.name_of(e);
    if (!is_op_event(name)) continue;
    by_key[colour_key(workspace.event_of(t, e), name, mode)] += e.end - e.start;
  }
  std::vector<KeyTime> out;
  for (auto& [key, ns] : by_key) out.push_back({key, ns});
  std::stable_sort(out.begin(), out.end(), [](const KeyTime& a, const KeyTime& b) { return a.ns > b.ns; });
  return out;
}

std::vector<KeyShare> top_shares(const std::vector<KeyTime>& keys, size_t count) {
  double total = 0;
  for (const KeyTime& k : keys) total += k.ns;
  const auto percent = [total](double ns) { return total > 0 ? 100 * ns / total : 0.0; };
  std::vector<KeyShare> shares;
  KeyShare other{"", 0, 0, 0};
  for (const KeyTime& k : keys) {
    if (shares.size() < count) {
      shares.push_back({k.key, k.ns, percent(k.ns), 1});
    } else {
      other.ns += k.ns;
      ++other.keys;
    }
  }
  if (other.keys > 0) {
    other.percent = percent(other.ns);
    shares.push_back(other);
  }
  return shares;
}

}  // namespace etkit::gui
