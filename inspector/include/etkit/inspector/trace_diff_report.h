#pragma once
// What `etinspect diff` reports: two traces' rows (trace_diff.h), the whole
// run's row, and the gates with what they found, printed as text or JSON by
// one function.

#include <cstddef>
#include <optional>
#include <string>

#include "etkit/inspector/trace_diff.h"
#include "etkit/report/printer.h"

namespace etkit::inspector {

struct TraceDiffReport {
  TraceDiff diff;
  std::string before_file, after_file;
  std::string time_unit, sort;
  bool named = false;  ///< rows carry module and source line (an ETRecord linked them)
  int decimals = 6;    ///< of the times in text
  size_t top = 0;      ///< the first rows only; 0 for all
  RegressionGate gate;        ///< per event
  RegressionGate total_gate;  ///< the whole run (Method::execute)
  std::optional<double> threshold_percent;        ///< unset: events are not gated
  std::optional<double> total_threshold_percent;  ///< unset: the whole run is not gated
  bool min_time_given = false;  ///< gate.min_delta was asked for; else 0.1% of the run
  size_t regressions = 0;
  bool total_regressed = false;
};

/// Why the gate said what it said about `row`, in words ("regressed",
/// "within noise", "below the time floor", …).
std::string verdict(const DiffRow& row, const RegressionGate& gate);

/// {before_file, after_file, stat, time_unit, sort, events: [{block, event,
/// occurrence, module?, source?, before, after, delta, percent, runs_before,
/// runs_after, p_slower?, regressed?, verdict?}], total: [one such row] or
/// null, gate: {threshold_percent, total_threshold_percent, min_time,
/// min_time_rule, noise_test, confidence, regressions, total_regressed}}.
void print(report::Printer& out, const TraceDiffReport& diff);

}  // namespace etkit::inspector
