#include "tracing_options.h"

#include <CLI/CLI.hpp>

#include "option_checks.h"

namespace etkit::cli {

void add_tracing_options(CLI::App& command, session::TracingOptions& options) {
  command.add_option("--etdump", options.etdump, "Write an ETDump trace of the load and every run")
      ->check(writable_path());
  command.add_option("--debug-level", options.debug_level,
                     "Values to log into the trace: none, outputs, intermediates")
      ->check(CLI::IsMember({"none", "outputs", "intermediates"}));
  command.add_option("--debug-buffer", options.debug_buffer, "File for the logged tensor data")
      ->check(writable_path());
  command.add_option("--debug-filter", options.debug_filter,
                     "Log intermediate outputs only of operators matching this (* wildcards)");
  command.add_flag("--trace-allocations", options.trace_allocations,
                   "Also record memory allocation events (upstream's Python Inspector cannot read "
                   "traces that hold them)");
}

}  // namespace etkit::cli
