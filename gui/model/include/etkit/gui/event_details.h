#pragma once
/// @file
/// The details panel's view model for a selected event: its statistics and
/// a histogram of its durations across runs (as Tracy's find-zone), where it
/// comes from in the model (module hierarchy, stack traces), its delegate,
/// and a preview of its intermediate outputs.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/event_text.h"
#include "etkit/inspector/trace_diff.h"

namespace etkit::gui {

/// Durations binned over [min, max]: bins.size() equal-width bins, the
/// last closed on the right so max falls in it.
struct Histogram {
  double min = 0, max = 0;
  std::vector<size_t> bins;
  size_t peak() const;  ///< largest bin count
};

/// `values` in `bins` equal bins (at least 1). All equal: one bin.
Histogram histogram(const std::vector<double>& values, size_t bins);
/// `values` in `bins` equal bins over [min, max] (values outside it go to
/// the end bins), so two histograms over one range overlay bin for bin.
Histogram histogram_over(const std::vector<double>& values, double min, double max, size_t bins);
/// NumPy's default bin count for the panel: ceil(sqrt(n)) clamped to [1, 40].
size_t histogram_bins(size_t values);

struct OutputPreview {
  std::string shape;  ///< "float32[1,16,14,14]"
  inspector::TensorStats stats;
  std::vector<double> first_values;  ///< at most kPreviewValues
};
inline constexpr size_t kPreviewValues = 16;

struct NodeOrigin {
  std::string node;                             ///< graph node name
  std::vector<etrecord::ModuleFrame> modules;   ///< outermost first
  std::string stack_trace;
  std::string source_line;                      ///< innermost user frame "file:line"
};

struct EventDetails {
  std::string block;
  std::string name;
  size_t runs = 0;
  int32_t instruction_id = -1;
  std::optional<inspector::PerfData> perf;  ///< target unit
  Histogram durations;
  /// With a baseline trace holding the same event: its durations binned
  /// over the same range as `durations` (Tracy's compare overlay), and the
  /// baseline's statistic.
  std::optional<Histogram> baseline_durations;
  std::optional<double> baseline_p50;
  std::vector<std::string> op_types;
  std::vector<int64_t> debug_handles;
  std::vector<NodeOrigin> origins;
  bool delegated = false;
  std::string delegate_id;  ///< int or string id, as text
  std::string backend;
  std::vector<OutputPreview> outputs;
};

/// `baseline`: the event's row of the trace diff against a baseline, if
/// it has one (Workspace::diff_row_of).
EventDetails event_details(const inspector::EventBlock& block, const inspector::Event& event,
                           const inspector::DebugOutputs& debug, const inspector::DiffRow* baseline = nullptr);

}  // namespace etkit::gui
