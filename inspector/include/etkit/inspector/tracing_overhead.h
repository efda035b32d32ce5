#pragma once
/// @file
/// What tracing costs a run, as the trace itself records it. `etinspect run
/// --etdump` on a method with delegate calls (which a traced run runs node
/// by node) also times as many untraced executions of a second, untraced
/// copy of the method and writes each as a run block named "Untraced"
/// holding its "Method::execute" event. The ratio of the traced to
/// the untraced median is how much the per-node profile distorts the run.

#include <cstddef>
#include <optional>

namespace etkit::etdump {
class ETDump;
}

namespace etkit::inspector {

/// The name of the run block of untraced executions.
inline constexpr const char* kUntracedBlockName = "Untraced";

struct TracingOverhead {
  size_t runs = 0;            ///< untraced executions (and the last as many traced ones)
  double traced_median = 0;   ///< Method::execute, the trace's time units
  double untraced_median = 0;
  double ratio = 0;           ///< traced_median / untraced_median
};

/// From the "Untraced" block and the last as many "Execute" blocks'
/// Method::execute events; nullopt when the trace has no untraced block
/// (or no timed events to compare).
std::optional<TracingOverhead> tracing_overhead(const etdump::ETDump& trace);

}  // namespace etkit::inspector
