#pragma once
/// @file
/// Two traces of the same program compared event by event: the join
/// (block, event name, k-th occurrence), a statistic of each side's runs,
/// deltas, ranking, and the regression gate behind `etinspect diff` and the
/// GUI's compare view. The gate is noise-aware: an event regresses only when
/// it slowed down by more than a percentage, by more than a time floor, and
/// by more than its runs' own spread can explain (rank_test.h).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::etdump {
class ETDump;
}
namespace etkit::etrecord {
class Etrecord;
}

namespace etkit::inspector {

struct DiffRow {
  std::string block;
  std::string event;
  size_t occurrence = 0;         ///< the k-th event of that name in its block
  std::optional<double> before;  ///< the statistic, target unit; absent: only in `after`
  std::optional<double> after;   ///< absent: only in `before`
  std::vector<double> before_runs, after_runs;  ///< every run's duration, target unit
  /// With an ETRecord: the innermost module and source line of the event's
  /// graph nodes (event_text.h's module_text and short source_text).
  std::string module, source;
  /// after - before, when both exist.
  std::optional<double> delta() const;
  /// 100 * delta / before, when both exist and before > 0.
  std::optional<double> percent() const;
  /// One-sided Mann-Whitney p-value that `after`'s runs are slower than
  /// `before`'s (1 when the row is only on one side).
  double p_slower() const;
};

struct TraceDiff {
  std::vector<DiffRow> rows;  ///< in `before`'s order, then rows only in `after`
  size_t only_before = 0;
  size_t only_after = 0;
  Stat stat = Stat::kP50;
  /// The whole run: the first "Method::execute" event of an "Execute"
  /// block, else of the first block that has one, when both traces hold
  /// one (before any filter). Method::execute events are not event rows.
  std::optional<DiffRow> total;
};

struct DiffOptions {
  EventBlockOptions units;
  bool include_operator_call = false;
  Stat stat = Stat::kP50;
  /// Only blocks of this name (empty: every block).
  std::string block;
  /// Only events whose name matches this ECMAScript regular expression
  /// (searched, not anchored; empty: every event).
  std::string event_pattern;
  /// Names each event's module and source line from this record's `method`.
  const etrecord::Etrecord* record = nullptr;
  std::string record_method = "forward";
};

/// Joins the chosen statistic of every profiled event of both traces.
/// Blocks repeated with other bundled inputs count once (the first). Fails
/// on an event pattern that is not a regular expression.
Result<TraceDiff> diff_traces(const etdump::ETDump& before, const etdump::ETDump& after,
                              const DiffOptions& options = {});

/// Orders for the rows: worst relative regression first (rows without a
/// percentage last), largest absolute delta first, by the statistic before
/// or after (largest first), or by event name.
enum class DiffOrder { kPercent, kDelta, kBefore, kAfter, kEvent };
Result<DiffOrder> parse_diff_order(const std::string& text);  ///< "percent", "delta", "before", "after", "event"
void sort_rows(TraceDiff& diff, DiffOrder order);

/// When a slowdown counts as a regression.
struct RegressionGate {
  double threshold_percent = 0;  ///< slower by more than this percentage
  double min_delta = 0;          ///< and by more than this much time (target unit)
  /// and with this confidence that the runs are slower, by the one-sided
  /// Mann-Whitney U test; 0 gates on the percentage and floor alone.
  double confidence = 0.99;
};

/// Whether the noise test can decide rows with these runs: false when the
/// runs are too few for any shift to reach the gate's confidence (then the
/// gate falls back to the percentage and floor alone).
bool noise_test_applies(const DiffRow& row, const RegressionGate& gate);
/// Whether `row` slowed down past the gate.
bool regressed(const DiffRow& row, const RegressionGate& gate);
/// Rows that regressed.
size_t count_regressions(const TraceDiff& diff, const RegressionGate& gate);

}  // namespace etkit::inspector
