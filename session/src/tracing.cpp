#include "etkit/session/tracing.h"

namespace etkit::session {

Status Tracing::finish(const std::string& etdump_path) {
  if (debug_file) {
    Status placed = debug_file->commit();
    debug_file.reset();
    ETKIT_TRY(placed);
  }
  return gen ? gen->write(etdump_path) : Status(Ok{});
}

std::vector<std::string> trace_warnings(const TracingOptions& options, const etdump::ETDumpGenStats& stats) {
  std::vector<std::string> warnings;
  if (stats.dropped_events + stats.dropped_values > 0) {
    warnings.push_back(options.etdump + ": " + std::to_string(stats.dropped_events) + " events and " +
                       std::to_string(stats.dropped_values) + " values did not fit and were dropped");
  }
  if (!options.debug_filter.empty() && stats.intermediate_values == 0) {
    warnings.push_back("--debug-filter " + options.debug_filter +
                       " matched no operator: the trace holds no intermediate outputs");
  }
  return warnings;
}

void append_trace_arguments(const TracingOptions& options, std::vector<std::string>& arguments) {
  if (options.etdump.empty()) return;
  arguments.insert(arguments.end(), {"--debug-level", options.debug_level});
  if (!options.debug_filter.empty()) arguments.insert(arguments.end(), {"--debug-filter", options.debug_filter});
  if (options.trace_allocations) arguments.push_back("--trace-allocations");
}

Status setup_tracing(const TracingOptions& options, size_t events, size_t blocks, Tracing& tracing) {
  if (options.etdump.empty()) {
    if (options.debug_level != "none" || !options.debug_buffer.empty() || options.trace_allocations ||
        !options.debug_filter.empty()) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "--debug-level, --debug-buffer, --debug-filter and --trace-allocations need --etdump");
    }
    return Ok{};
  }
  ETKIT_ASSIGN_OR_RETURN(etdump::DebugLevel level, etdump::parse_debug_level(options.debug_level));
  if (!options.debug_filter.empty() && level != etdump::DebugLevel::kIntermediateOutputs) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--debug-filter %s selects intermediate outputs: it needs --debug-level intermediates",
                       options.debug_filter.c_str());
  }
  etdump::ETDumpGenOptions gen_options;
  gen_options.debug_level = level;
  gen_options.op_filter = options.debug_filter;
  gen_options.event_capacity = events;
  gen_options.block_capacity = blocks;
  gen_options.track_allocations = options.trace_allocations;
  if (level != etdump::DebugLevel::kNone) {
    if (options.debug_buffer.empty()) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "--debug-level %s needs --debug-buffer FILE for the tensor data",
                         options.debug_level.c_str());
    }
    auto file = AtomicFile::create(options.debug_buffer);
    if (!file.ok()) {
      return Error::make(ErrorCode::kIo, "%s: cannot create the debug buffer file: %s", options.debug_buffer.c_str(),
                         file.error().message());
    }
    tracing.debug_file.emplace(std::move(file).value());
    gen_options.debug_file = tracing.debug_file->file();
  }
  tracing.gen = std::make_unique<etdump::ETDumpGen>(gen_options);
  return Ok{};
}

}  // namespace etkit::session
