#include "etkit/session/run_report.h"

#include <algorithm>

#include "etkit/core/tensor_access.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::session {

void print_value(report::Printer& out, const Value& value, size_t preview) {
  out.field("kind", to_string(value.tag()));
  if (value.is_tensor()) {
    const Tensor& t = value.unchecked_tensor();
    out.field("dtype", to_string(t.scalar_type()));
    out.int_list("sizes", std::vector<int64_t>(t.sizes().begin(), t.sizes().end()));
    out.field("numel", t.numel());
    if (preview > 0) {
      const int64_t count = std::min<int64_t>(t.numel(), int64_t(preview));
      std::vector<double> values(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) values[size_t(i)] = element_as_double(t, i);
      out.double_list("values", values, size_t(t.numel()));
    }
  } else if (value.tag() == ValueTag::kInt) {
    out.field("value", value.unchecked_int());
  } else if (value.tag() == ValueTag::kDouble) {
    out.field("value", value.unchecked_double());
  } else if (value.tag() == ValueTag::kBool) {
    out.field("value", value.unchecked_bool());
  }
}

void print(report::Printer& out, const RunReport& run) {
  const std::vector<double>& latencies = run.latencies_ms;
  out.begin_object("");
  out.field("program", run.program);
  out.field("method", run.method);
  out.field("iterations", run.iterations);
  out.begin_object("latency_ms");
  out.field("min", latencies.empty() ? 0.0 : *std::min_element(latencies.begin(), latencies.end()));
  out.field("median", inspector::percentile(latencies, 50));
  out.field("p90", inspector::percentile(latencies, 90));
  out.end_object();
  if (run.trace) {
    const etdump::ETDumpGenStats& stats = run.trace->stats;
    out.begin_object("etdump");
    out.field("path", run.trace->path);
    out.field("blocks", uint64_t(stats.blocks));
    out.field("events", uint64_t(stats.events));
    out.field("dropped_events", uint64_t(stats.dropped_events));
    out.field("debug_bytes", uint64_t(stats.debug_bytes));
    out.end_object();
  }
  if (!run.untraced_ms.empty()) {
    const double traced_median = inspector::percentile(latencies, 50);
    const double untraced_median = inspector::percentile(run.untraced_ms, 50);
    out.begin_object("tracing_overhead");
    out.field("traced_median_ms", traced_median);
    out.field("untraced_median_ms", untraced_median);
    out.field("ratio", traced_median / untraced_median);
    out.end_object();
  }
  out.begin_list("outputs");
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    out.begin_object("");
    out.field("index", uint64_t(i));
    print_value(out, run.outputs[i], run.preview);
    out.end_object();
  }
  out.end_list();
  out.end_object();
}

}  // namespace etkit::session
