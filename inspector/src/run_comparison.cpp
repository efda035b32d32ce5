#include "etkit/inspector/run_comparison.h"

#include <cstdio>

#include "etkit/inspector/rank_test.h"

namespace etkit::inspector {

std::optional<RunComparison> compare_whole_runs(const TraceDiff& diff, double confidence) {
  if (!diff.total || !diff.total->before || !diff.total->after) return std::nullopt;
  const DiffRow& total = *diff.total;
  RunComparison c;
  c.stat = diff.stat;
  c.before = *total.before;
  c.after = *total.after;
  c.percent = total.percent().value_or(0.0);
  c.runs_before = total.before_runs.size();
  c.runs_after = total.after_runs.size();
  c.confidence = confidence;
  c.p_slower = total.p_slower();  // the diff gate's test; the other direction below
  c.p_faster = mann_whitney_greater(total.before_runs, total.after_runs);
  const double alpha = 1.0 - confidence;
  if (smallest_attainable_p(c.runs_after, c.runs_before) >= alpha) {
    c.verdict = RunComparison::Verdict::kTooFewRuns;
  } else if (c.p_slower < alpha) {
    c.verdict = RunComparison::Verdict::kSlower;
  } else if (c.p_faster < alpha) {
    c.verdict = RunComparison::Verdict::kFaster;
  } else {
    c.verdict = RunComparison::Verdict::kWithinNoise;
  }
  return c;
}

namespace {

template <typename... Args>
std::string format(const char* pattern, Args... args) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, args...);
  return text;
}

}  // namespace

std::string verdict_line(const RunComparison& c, const std::string& unit, int decimals) {
  const std::string line = format("whole run (Method::execute %s): %.*f -> %.*f %s (%+.1f%%), ", to_string(c.stat),
                                  decimals, c.before, decimals, c.after, unit.c_str(), c.percent);
  const std::string runs = format("%zu and %zu runs", c.runs_before, c.runs_after);
  switch (c.verdict) {
    case RunComparison::Verdict::kSlower:
      return line + format("slower beyond the runs' noise (p = %.3g; %s)", c.p_slower, runs.c_str());
    case RunComparison::Verdict::kFaster:
      return line + format("faster beyond the runs' noise (p = %.3g; %s)", c.p_faster, runs.c_str());
    case RunComparison::Verdict::kWithinNoise:
      return line + format("within the runs' noise (p slower %.2f, faster %.2f; %s)", c.p_slower, c.p_faster,
                           runs.c_str());
    case RunComparison::Verdict::kTooFewRuns:
      break;
  }
  return line + format("too few runs to tell a change from noise (%s; %zu each at %g%% confidence)", runs.c_str(),
                       runs_needed(c.confidence), 100 * c.confidence);
}

}  // namespace etkit::inspector
