#include "etkit/inspector/tracing_overhead.h"

#include <string_view>
#include <vector>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::inspector {
namespace {

// Durations of the block's top-level "Method::execute" events.
void execute_times(const etdump::RunBlock& block, std::vector<double>& out) {
  for (size_t e = 0; e < block.event_count(); ++e) {
    const etdump::EventView event = block.event(e);
    if (event.kind != etdump::EventKind::kProfile || event.profile.name != "Method::execute") continue;
    if (event.profile.end_time < event.profile.start_time) continue;
    out.push_back(double(etdump::elapsed_ticks(event.profile.start_time, event.profile.end_time)));
  }
}

}  // namespace

std::optional<TracingOverhead> tracing_overhead(const etdump::ETDump& trace) {
  std::vector<double> untraced;
  std::vector<std::vector<double>> traced_blocks;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    if (block.name() == std::string_view(kUntracedBlockName)) {
      execute_times(block, untraced);
    } else if (block.name() == std::string_view("Execute")) {
      execute_times(block, traced_blocks.emplace_back());
    }
  }
  if (untraced.empty()) return std::nullopt;
  // The traced runs that match: the last as many, after any warm-ups.
  std::vector<double> traced;
  for (size_t b = traced_blocks.size(); b-- > 0 && traced.size() < untraced.size();) {
    traced.insert(traced.end(), traced_blocks[b].begin(), traced_blocks[b].end());
  }
  if (traced.empty()) return std::nullopt;
  TracingOverhead overhead;
  overhead.runs = untraced.size();
  overhead.traced_median = percentile(traced, 50);
  overhead.untraced_median = percentile(untraced, 50);
  if (overhead.untraced_median <= 0) return std::nullopt;
  overhead.ratio = overhead.traced_median / overhead.untraced_median;
  return overhead;
}

}  // namespace etkit::inspector
