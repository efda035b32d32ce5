#pragma once
/// @file
/// The Steps view's breakdown by op: each step of a traced generation
/// split into the time its ops took by op type (the timeline summary's
/// op_time_by_key of the step's run), stacked in one order for every step
/// so a reader sees which op grows with the context (attention does, the
/// linears do not).

#include <cstddef>
#include <string>
#include <vector>

#include "etkit/gui/timeline_style.h"
#include "etkit/inspector/generation_steps.h"

namespace etkit::gui {

class Workspace;

struct StepBreakdown {
  /// The stack's order, bottom up: the `count` keys with the most time over
  /// all steps, largest first, then "" for the rest (when there is a rest).
  std::vector<std::string> keys;
  /// Per step, per key: its ops' time (the steps' unit).
  std::vector<std::vector<double>> ns;
  /// Per key: its time over all steps.
  std::vector<double> totals;
};

/// Stacks `per_step` (each step's key times, as op_time_by_key gives them)
/// in one order.
StepBreakdown stack_by_key(const std::vector<std::vector<KeyTime>>& per_step, size_t count = 5);

/// Each step's op time by op type: op_time_by_key of the timeline track of
/// the step's run block (empty for a step whose run has no track).
std::vector<std::vector<KeyTime>> step_op_times(const Workspace& workspace,
                                                const std::vector<inspector::GenerationStepTiming>& steps);

}  // namespace etkit::gui
