#include "etkit/inspector/generation_steps.h"

#include <algorithm>
#include <limits>

#include "etkit/inspector/event_blocks.h"

namespace etkit::inspector {

std::vector<GenerationStepTiming> generation_steps(const etdump::ETDump& trace) {
  std::vector<GenerationStepTiming> steps;
  const double origin = double(trace.first_start());
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    const bool prefill = block.name() == kPrefillBlockName, decode = block.name() == kDecodeBlockName;
    if (!prefill && !decode) continue;
    GenerationStepTiming step;
    step.decode = decode;
    step.trace_block = b;
    step.step = steps.size();
    step.context = int64_t(steps.size()) + 1;
    double first = std::numeric_limits<double>::infinity(), last = -first;
    bool execute_found = false;
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind != etdump::EventKind::kProfile) continue;
      const etdump::ProfileEventView& profile = event.profile;
      first = std::min(first, double(profile.start_time));
      last = std::max(last, double(profile.end_time));
      if (profile.name == "Method::execute" && !execute_found) {
        execute_found = true;
        step.start = double(profile.start_time) - origin;
        step.end = double(profile.end_time) - origin;
      }
    }
    if (!execute_found) {
      if (first > last) continue;  // no timed event: nothing to plot
      step.start = first - origin;
      step.end = last - origin;
    }
    steps.push_back(step);
  }
  return steps;
}

PhaseSummary summarize_phase(const std::vector<GenerationStepTiming>& steps, bool decode) {
  std::vector<double> latencies;
  for (const GenerationStepTiming& step : steps) {
    if (step.decode == decode) latencies.push_back(step.latency());
  }
  PhaseSummary summary;
  summary.steps = latencies.size();
  if (latencies.empty()) return summary;
  for (double v : latencies) summary.total += v;
  summary.median = percentile(latencies, 50);
  summary.first = latencies.front();
  summary.last = latencies.back();
  return summary;
}

namespace {

constexpr double kNsPerMs = 1e6;

void print_phase(report::Printer& out, const char* key, const PhaseSummary& phase) {
  out.begin_object(key);
  out.field("steps", uint64_t(phase.steps));
  if (phase.steps > 0) {
    out.field("total_ms", phase.total / kNsPerMs);
    out.field("median_ms", phase.median / kNsPerMs);
    out.field("first_ms", phase.first / kNsPerMs);
    out.field("last_ms", phase.last / kNsPerMs);
    out.field("steps_per_second", phase.total > 0 ? double(phase.steps) / phase.total * 1e9 : 0.0);
  }
  out.end_object();
}

}  // namespace

void print(report::Printer& out, const StepsReport& generation) {
  using report::Cell;
  std::vector<std::vector<Cell>> rows;
  for (const GenerationStepTiming& step : generation.steps) {
    rows.push_back({Cell::of(int64_t(step.step)), Cell::of(step.decode ? "decode" : "prefill"), Cell::of(step.context),
                    Cell::of(step.start / kNsPerMs), Cell::of(step.latency() / kNsPerMs)});
  }
  out.begin_object("");
  out.field("time_unit", "ms");
  print_phase(out, "prefill", summarize_phase(generation.steps, false));
  print_phase(out, "decode", summarize_phase(generation.steps, true));
  out.table("steps", {{"step"}, {"phase"}, {"context"}, {"start_ms", 3}, {"latency_ms", 4}}, rows);
  out.end_object();
  out.finish();
}

}  // namespace etkit::inspector
