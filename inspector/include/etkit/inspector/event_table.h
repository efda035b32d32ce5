#pragma once
/// @file
/// Which events of the blocks a table shows, and in what order: the rules
/// behind `etinspect table` and the GUI's events table.

#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::inspector {

struct EventFilter {
  std::string block;  ///< only blocks of this name; empty: all
  bool include_operator_call = false;  ///< upstream's tables hide OPERATOR_CALL
  std::string text;   ///< only events whose name or op types contain this; empty: all
};

/// Whether `filter` keeps `event` of `block`.
bool keeps(const EventFilter& filter, const EventBlock& block, const Event& event);

/// Orders: as in the trace, by a statistic (slowest first; events without
/// timings last), or by event or block name.
enum class EventOrder { kTrace, kP10, kP50, kP90, kAvg, kMin, kMax, kEventName, kBlockName };
/// "p10" … "max", "event_name", "event_block_name"; empty: kTrace.
Result<EventOrder> parse_event_order(const std::string& text);

/// A row: an event and its block (both borrowed).
struct EventRef {
  const EventBlock* block = nullptr;
  const Event* event = nullptr;
};

/// Sorts `rows` by `order`, stably.
void sort_events(std::vector<EventRef>& rows, EventOrder order);

/// Statistic `order` (kP10 … kMax) of `perf`.
double statistic(const PerfData& perf, EventOrder order);

}  // namespace etkit::inspector
