#pragma once
// What `etinspect run` reports: the latency of the timed runs, the trace it
// wrote, what tracing cost a delegated method, and the outputs (views of
// the method's, or of a device's outputs read back).

#include <optional>
#include <string>
#include <vector>

#include "etkit/core/value.h"
#include "etkit/etdump/etdump_gen.h"
#include "etkit/report/printer.h"

namespace etkit::session {

struct RunReport {
  std::string program;
  std::string method;
  int64_t iterations = 0;
  std::vector<double> latencies_ms;  ///< the timed runs, at least one
  struct Trace {
    std::string path;
    etdump::ETDumpGenStats stats;
  };
  std::optional<Trace> trace;
  /// Untraced runs of a traced delegated method (the tracing overhead);
  /// empty when there were none.
  std::vector<double> untraced_ms;
  std::vector<Value> outputs;  ///< borrowed views
  size_t preview = 0;          ///< values shown per output tensor
};

/// A value's kind, dtype, sizes, element count and its first `preview`
/// elements in logical order, as numbers.
void print_value(report::Printer& out, const Value& value, size_t preview);

/// Latency as min, median and p90 (NumPy's percentile, as every table).
void print(report::Printer& out, const RunReport& run);

}  // namespace etkit::session
