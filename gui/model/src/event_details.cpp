#include "etkit/gui/event_details.h"

#include <algorithm>
#include <cmath>

#include "etkit/etrecord/edge_graph.h"

namespace etkit::gui {

size_t Histogram::peak() const { return bins.empty() ? 0 : *std::max_element(bins.begin(), bins.end()); }

Histogram histogram_over(const std::vector<double>& values, double min, double max, size_t bins) {
  Histogram h;
  h.min = min;
  h.max = max;
  const size_t count = max > min ? std::max<size_t>(1, bins) : 1;
  h.bins.assign(count, 0);
  const double width = (max - min) / double(count);
  for (double v : values) {
    const double at = width > 0 ? std::max(0.0, (v - min) / width) : 0;
    ++h.bins[std::min(size_t(at), count - 1)];
  }
  return h;
}

Histogram histogram(const std::vector<double>& values, size_t bins) {
  if (values.empty()) return {};
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  return histogram_over(values, *min, *max, bins);
}

size_t histogram_bins(size_t values) {
  return std::clamp<size_t>(size_t(std::ceil(std::sqrt(double(values)))), 1, 40);
}

EventDetails event_details(const inspector::EventBlock& block, const inspector::Event& event,
                           const inspector::DebugOutputs& debug, const inspector::DiffRow* baseline) {
  EventDetails d;
  d.block = block.name;
  d.name = event.name;
  d.runs = block.runs;
  d.instruction_id = event.instruction_id;
  d.perf = event.perf_data;
  if (event.perf_data) d.durations = histogram(event.perf_data->raw, histogram_bins(event.perf_data->raw.size()));
  if (event.perf_data && !event.perf_data->raw.empty() && baseline != nullptr && !baseline->before_runs.empty()) {
    // One range for both, so the bars of a slower trace sit right of the
    // baseline's.
    const std::vector<double>& now = event.perf_data->raw;
    const std::vector<double>& before = baseline->before_runs;
    const double min = std::min(*std::min_element(now.begin(), now.end()), *std::min_element(before.begin(), before.end()));
    const double max = std::max(*std::max_element(now.begin(), now.end()), *std::max_element(before.begin(), before.end()));
    const size_t bins = histogram_bins(std::max(now.size(), before.size()));
    d.durations = histogram_over(now, min, max, bins);
    d.baseline_durations = histogram_over(before, min, max, bins);
    d.baseline_p50 = baseline->before;
  }
  d.op_types = event.op_types;
  d.debug_handles = event.debug_handles;
  for (const auto& [node, trace] : event.stack_traces) {
    NodeOrigin origin{node, {}, trace, etrecord::innermost_source_line(trace)};
    d.origins.push_back(std::move(origin));
  }
  for (const auto& [node, frames] : event.module_hierarchy) {
    auto it = std::find_if(d.origins.begin(), d.origins.end(), [&](const NodeOrigin& o) { return o.node == node; });
    if (it == d.origins.end()) it = d.origins.insert(d.origins.end(), NodeOrigin{node, {}, {}, {}});
    it->modules = frames;
  }
  d.delegated = event.is_delegated_op;
  if (event.delegate_debug_id_int) d.delegate_id = std::to_string(*event.delegate_debug_id_int);
  else if (event.delegate_debug_id_str) d.delegate_id = *event.delegate_debug_id_str;
  d.backend = event.delegate_backend_name;
  if (const auto* outputs = inspector::outputs_of(event, debug)) {
    for (const inspector::RecordedOutput& output : *outputs) {
      OutputPreview preview{inspector::shape_text(output), inspector::tensor_stats(output.values), {}};
      const size_t n = std::min(kPreviewValues, output.values.size());
      preview.first_values.assign(output.values.begin(), output.values.begin() + long(n));
      d.outputs.push_back(std::move(preview));
    }
  }
  return d;
}

}  // namespace etkit::gui
