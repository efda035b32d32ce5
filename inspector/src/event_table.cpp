#include "etkit/inspector/event_table.h"

#include <algorithm>

namespace etkit::inspector {

bool keeps(const EventFilter& filter, const EventBlock& block, const Event& event) {
  if (!filter.block.empty() && block.name != filter.block) return false;
  // As string_views, which compare lengths first: a million events' names
  // compared to a C string byte by byte were a twentieth of `table`'s time.
  if (!filter.include_operator_call && std::string_view(event.name) == std::string_view("OPERATOR_CALL")) return false;
  if (filter.text.empty()) return true;
  if (event.name.find(filter.text) != std::string::npos) return true;
  return std::any_of(event.op_types.begin(), event.op_types.end(),
                     [&](const std::string& op) { return op.find(filter.text) != std::string::npos; });
}

Result<EventOrder> parse_event_order(const std::string& text) {
  static const std::pair<const char*, EventOrder> kNames[] = {
      {"", EventOrder::kTrace},       {"p10", EventOrder::kP10}, {"p50", EventOrder::kP50},
      {"p90", EventOrder::kP90},      {"avg", EventOrder::kAvg}, {"min", EventOrder::kMin},
      {"max", EventOrder::kMax},      {"event_name", EventOrder::kEventName},
      {"event_block_name", EventOrder::kBlockName}};
  for (const auto& [name, order] : kNames) {
    if (text == name) return order;
  }
  return Error::make(ErrorCode::kInvalidArgument,
                     "sort by '%s': one of p10, p50, p90, avg, min, max, event_name, event_block_name",
                     text.c_str());
}

double statistic(const PerfData& perf, EventOrder order) {
  switch (order) {
    case EventOrder::kP10: return perf.p10;
    case EventOrder::kP50: return perf.p50;
    case EventOrder::kP90: return perf.p90;
    case EventOrder::kAvg: return perf.avg;
    case EventOrder::kMin: return perf.min;
    case EventOrder::kMax: return perf.max;
    default: return 0;
  }
}

void sort_events(std::vector<EventRef>& rows, EventOrder order) {
  switch (order) {
    case EventOrder::kTrace:
      return;
    case EventOrder::kEventName:
      std::stable_sort(rows.begin(), rows.end(),
                       [](const EventRef& a, const EventRef& b) { return a.event->name < b.event->name; });
      return;
    case EventOrder::kBlockName:
      std::stable_sort(rows.begin(), rows.end(),
                       [](const EventRef& a, const EventRef& b) { return a.block->name < b.block->name; });
      return;
    default:
      // Slowest first; events without timings (debug-only) last.
      std::stable_sort(rows.begin(), rows.end(), [order](const EventRef& a, const EventRef& b) {
        const double x = a.event->perf_data ? statistic(*a.event->perf_data, order) : -1;
        const double y = b.event->perf_data ? statistic(*b.event->perf_data, order) : -1;
        return x > y;
      });
  }
}

}  // namespace etkit::inspector
