#include "etkit/gui/step_breakdown.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "etkit/gui/workspace.h"

namespace etkit::gui {

StepBreakdown stack_by_key(const std::vector<std::vector<KeyTime>>& per_step, size_t count) {
  std::map<std::string, double> totals;
  for (const auto& step : per_step) {
    for (const KeyTime& k : step) totals[k.key] += k.ns;
  }
  std::vector<KeyTime> ranked;
  for (const auto& [key, ns] : totals) ranked.push_back({key, ns});
  // Largest first; equal totals by key (the map's order), so every run of
  // the view stacks alike.
  std::stable_sort(ranked.begin(), ranked.end(), [](const KeyTime& a, const KeyTime& b) { return a.ns > b.ns; });
  StepBreakdown out;
  std::map<std::string, size_t> slot;
  for (size_t i = 0; i < ranked.size(); ++i) {
    if (i <= count) {  // the count largest, then the one slot of the rest
      out.keys.push_back(i < count ? ranked[i].key : "");
      out.totals.push_back(0);
    }
    const size_t at = std::min(i, count);
    slot[ranked[i].key] = at;
    out.totals[at] += ranked[i].ns;
  }
  out.ns.assign(per_step.size(), std::vector<double>(out.keys.size(), 0));
  for (size_t s = 0; s < per_step.size(); ++s) {
    for (const KeyTime& k : per_step[s]) out.ns[s][slot.at(k.key)] += k.ns;
  }
  return out;
}

std::vector<std::vector<KeyTime>> step_op_times(const Workspace& workspace,
                                                const std::vector<inspector::GenerationStepTiming>& steps) {
  std::unordered_map<size_t, size_t> track_of_block;
  const std::vector<TimelineTrack>& tracks = workspace.timeline().tracks();
  for (size_t t = 0; t < tracks.size(); ++t) track_of_block.emplace(tracks[t].block, t);
  std::vector<std::vector<KeyTime>> out;
  out.reserve(steps.size());
  for (const inspector::GenerationStepTiming& step : steps) {
    const auto it = track_of_block.find(step.trace_block);
    out.push_back(it == track_of_block.end() ? std::vector<KeyTime>{}
                                             : op_time_by_key(workspace, it->second, ColourBy::kOpType));
  }
  return out;
}

}  // namespace etkit::gui
