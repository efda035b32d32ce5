#pragma once
/// @file
/// A trace in Chrome's Trace Event Format (Perfetto, chrome://tracing):
/// complete events in microseconds from the first event, nested by time,
/// one track per run block or all runs on one track; event args carry the
/// block, instruction, delegate id and, with a program and an ETRecord, the
/// operator, backend, op types, module and source line (through the same
/// linking as the event tables).

#include <string>

#include "etkit/core/program_summary.h"
#include "etkit/core/result.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::etdump {
class ETDump;
}
namespace etkit::etrecord {
class Etrecord;
}

namespace etkit::inspector {

struct ChromeTraceOptions {
  TimeUnit source = TimeUnit::kNanoseconds;  ///< cycles are shown as nanoseconds
  bool track_per_block = true;               ///< false: every run on one track
  std::string method = "forward";
  const MethodSummary* program_method = nullptr;  ///< names ops and backends
  const etrecord::Etrecord* record = nullptr;     ///< op types, module, source
};

/// The JSON document and what it holds. Timestamps are exact decimals of
/// the source unit (no float noise: 12345 ns is 12.345 us).
struct ChromeTrace {
  std::string json;
  size_t events = 0;  ///< complete ("X") events: the trace's profiling events
  size_t tracks = 0;  ///< one per run block, or 1 when every run shares one
  size_t blocks = 0;  ///< the trace's run blocks
};

ChromeTrace chrome_trace(const etdump::ETDump& trace, const ChromeTraceOptions& options);

}  // namespace etkit::inspector
