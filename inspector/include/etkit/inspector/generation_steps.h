#pragma once
// The steps of a traced generation (`etinspect generate --etdump`): each
// run of the Prefill and Decode blocks in trace order, with its latency and
// the context it ran at, for a latency-against-context series (the `steps`
// command, the GUI's per-token plot).

#include <cstdint>
#include <vector>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/report/printer.h"

namespace etkit::inspector {

struct GenerationStepTiming {
  bool decode = false;    ///< else a prefill step
  size_t trace_block = 0; ///< the trace's run block
  size_t step = 0;        ///< 0-based over the whole generation
  /// Tokens in context once the step has run, counting one token per step
  /// (how etinspect generate steps a KV-cache program; for a program
  /// without a cache, whose one prefill step feeds the whole prompt, it
  /// counts steps).
  int64_t context = 0;
  /// Method::execute of the run (its whole block span when absent), in the
  /// trace's ticks (ns for etkit's traces) from the trace's first event.
  double start = 0, end = 0;
  double latency() const { return end - start; }
};

/// The generation's steps; empty for a trace of no generation.
std::vector<GenerationStepTiming> generation_steps(const etdump::ETDump& trace);

/// One phase's latencies, in the steps' units (the trace's ticks).
struct PhaseSummary {
  size_t steps = 0;
  double total = 0, median = 0, first = 0, last = 0;
};
/// The decode (or prefill) steps' summary; median is NumPy's.
PhaseSummary summarize_phase(const std::vector<GenerationStepTiming>& steps, bool decode);

/// What `etinspect steps` reports: the steps of a trace whose ticks are ns.
struct StepsReport {
  std::vector<GenerationStepTiming> steps;
};
/// {time_unit: "ms", prefill: {steps, total_ms, median_ms, first_ms,
/// last_ms, steps_per_second}, decode: {…}, steps: [{step, phase, context,
/// start_ms, latency_ms}]}; a phase without steps has only `steps`.
void print(report::Printer& out, const StepsReport& generation);

}  // namespace etkit::inspector
