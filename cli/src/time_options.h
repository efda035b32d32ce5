#pragma once
// The options of the commands that report durations (table, diff,
// modules): --source-time-unit, --time-unit, --delegate-time-unit,
// --clock-hz and --include-warmup, declared once so every command spells and checks them
// the same way.

#include <string>

#include "etkit/core/result.h"
#include "etkit/inspector/event_blocks.h"

namespace CLI {
class App;
}

namespace etkit::cli {

struct TimeUnitOptions {
  std::string source = "ns";  ///< unit of the trace's timestamps
  std::string target = "ms";  ///< unit of the report
  std::string delegate;       ///< unit of delegate events' timestamps; empty: the source unit
  bool include_warmup = false;  ///< keep the "Warmup" run blocks
  double clock_hz = 0;          ///< --clock-hz: cycles per second of a trace in cycles
};

/// Adds the five options to `command`.
void add_time_unit_options(CLI::App& command, TimeUnitOptions& options);

/// The inspector's options for these units.
Result<inspector::EventBlockOptions> event_block_options(const TimeUnitOptions& options);

}  // namespace etkit::cli
