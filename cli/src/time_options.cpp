#include "time_options.h"

#include <CLI/CLI.hpp>

namespace etkit::cli {

void add_time_unit_options(CLI::App& command, TimeUnitOptions& options) {
  const std::vector<std::string> units(std::begin(inspector::kTimeUnitNames), std::end(inspector::kTimeUnitNames));
  command.add_option("--source-time-unit", options.source, "Unit of the trace's timestamps (default ns)")
      ->check(CLI::IsMember(units));
  command.add_option("--time-unit", options.target, "Unit of the report (default ms)")->check(CLI::IsMember(units));
  command
      .add_option("--delegate-time-unit", options.delegate,
                  "Unit of delegate events' timestamps when a backend logs in its own unit (default: the source "
                  "unit)")
      ->check(CLI::IsMember(units));
  command
      .add_option("--clock-hz", options.clock_hz,
                  "The device clock's cycles per second, for a trace in cycles (--source-time-unit cycles): "
                  "durations in real time")
      ->check(CLI::PositiveNumber);
  command.add_flag("--include-warmup", options.include_warmup,
                   "Also show the warm-up runs (run --warmup tags their blocks Warmup; left out by default)");
}

Result<inspector::EventBlockOptions> event_block_options(const TimeUnitOptions& options) {
  ETKIT_ASSIGN_OR_RETURN(inspector::EventBlockOptions units, inspector::parse_time_units(options.source, options.target));
  if (!options.delegate.empty()) {
    ETKIT_ASSIGN_OR_RETURN(inspector::TimeUnit delegate, inspector::parse_time_unit(options.delegate));
    units.delegate_source = delegate;
  }
  units.include_warmup = options.include_warmup;
  if (options.clock_hz > 0 && units.source != inspector::TimeUnit::kCycles) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--clock-hz reads a trace in cycles: it needs --source-time-unit cycles");
  }
  units.cycles_per_second = options.clock_hz;
  return units;
}

}  // namespace etkit::cli
