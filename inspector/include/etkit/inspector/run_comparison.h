#pragma once
/// @file
/// The one-line answer to "is the new trace faster?": the whole run's
/// statistic before and after (Method::execute, as `etinspect diff`'s total
/// row) and whether the change is beyond the runs' own noise, by the same
/// one-sided Mann-Whitney test the diff gate uses, asked both ways. The
/// GUI's comparison shows it above the timeline.

#include <cstddef>
#include <optional>
#include <string>

#include "etkit/inspector/trace_diff.h"

namespace etkit::inspector {

struct RunComparison {
  enum class Verdict {
    kSlower,      ///< the runs are slower, beyond their noise
    kFaster,      ///< faster, beyond their noise
    kWithinNoise, ///< no shift the test can tell from the runs' spread
    kTooFewRuns,  ///< too few runs for any shift to reach the confidence
  };
  Stat stat = Stat::kP50;
  double before = 0, after = 0;  ///< the statistic, the diff's target unit
  double percent = 0;            ///< 100 * (after - before) / before; 0 when before is 0
  size_t runs_before = 0, runs_after = 0;
  double p_slower = 1, p_faster = 1;  ///< one-sided p-values of each direction
  double confidence = 0.99;
  Verdict verdict = Verdict::kWithinNoise;
};

/// The whole-run comparison of `diff` (its total row), or nothing when the
/// traces do not both hold a Method::execute event.
std::optional<RunComparison> compare_whole_runs(const TraceDiff& diff, double confidence = 0.99);

/// "whole run (Method::execute p50): 6.412 -> 6.118 ms (-4.6%), faster beyond
/// the runs' noise (p = 0.002; 10 and 10 runs)", the numbers with
/// `decimals` decimals in `unit`.
std::string verdict_line(const RunComparison& comparison, const std::string& unit, int decimals);

}  // namespace etkit::inspector
