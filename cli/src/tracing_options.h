#pragma once
// etinspect's tracing options (--etdump, --debug-level, --debug-buffer,
// --debug-filter, --trace-allocations) on the commands that run programs.

#include "etkit/session/tracing.h"

namespace CLI {
class App;
}

namespace etkit::cli {

/// Adds --etdump, --debug-level, --debug-buffer, --debug-filter and
/// --trace-allocations, filling `options`.
void add_tracing_options(CLI::App& command, session::TracingOptions& options);

}  // namespace etkit::cli
