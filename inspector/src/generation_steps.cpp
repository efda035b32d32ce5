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

}  // namespace etkit::inspector
