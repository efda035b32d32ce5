#pragma once
// What differs between the targets the runner is built for: the clock that
// times events and runs. Everything else is the same code on every device.

#include "etkit/etdump/etdump_gen.h"

namespace etkit::device {

/// The clock ETDump events are stamped with.
etdump::TickSource trace_clock();
/// Seconds since an arbitrary start, for run latencies.
double seconds_now();

}  // namespace etkit::device
