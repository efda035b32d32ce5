#pragma once
// ETDump tracing for the front ends that run programs (etinspect run,
// verify and generate; the Python module's traced runs): the trace file,
// debug level, debug buffer, filter and allocation events asked for, and
// the recorder made from them. The messages name etinspect's options
// (--etdump, --debug-level, …), which the Python module's keywords mirror.

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/atomic_file.h"
#include "etkit/core/result.h"
#include "etkit/etdump/etdump_gen.h"

namespace etkit::session {

struct TracingOptions {
  std::string etdump;               ///< trace path; empty: no tracing
  std::string debug_level = "none";
  std::string debug_buffer;         ///< file for logged tensor data
  std::string debug_filter;
  bool trace_allocations = false;   ///< allocation events (upstream's Inspector cannot read them)
};

/// The recorder and the file its tensor data streams to.
struct Tracing {
  std::unique_ptr<etdump::ETDumpGen> gen;
  /// The tensor data, streamed to a temporary file that finish() puts in
  /// place: an interrupted run leaves no half-written buffer behind.
  std::optional<AtomicFile> debug_file;
  Tracing() = default;
  Tracing(const Tracing&) = delete;
  Tracing& operator=(const Tracing&) = delete;
  /// Puts the data file in place and writes the trace (no-op without tracing).
  Status finish(const std::string& etdump_path);
};

/// What a user must hear about a finished trace: events or values that did
/// not fit, and a --debug-filter that matched no operator.
std::vector<std::string> trace_warnings(const TracingOptions& options, const etdump::ETDumpGenStats& stats);

/// The trace options a device runner takes (its --etdump and --debug-buffer
/// are the host's to place), for `--device` runs.
void append_trace_arguments(const TracingOptions& options, std::vector<std::string>& arguments);

/// Creates the recorder when `options.etdump` is set, with room for
/// `events` events and `blocks` run blocks. Fails when debug options are
/// given without a trace, or a level without a buffer file.
Status setup_tracing(const TracingOptions& options, size_t events, size_t blocks, Tracing& tracing);

}  // namespace etkit::session
