#pragma once
/// @file
/// Two traces of the same program compared event by event on their p50:
/// the join (block, event name, k-th occurrence), deltas, ranking and the
/// regression gate behind `etinspect diff` and the GUI's compare view.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/inspector/event_blocks.h"

namespace etkit::etdump {
class ETDump;
}

namespace etkit::inspector {

struct DiffRow {
  std::string block;
  std::string event;
  size_t occurrence = 0;         ///< the k-th event of that name in its block
  std::optional<double> before;  ///< p50, target unit; absent: only in `after`
  std::optional<double> after;   ///< absent: only in `before`
  /// after - before, when both exist.
  std::optional<double> delta() const;
  /// 100 * delta / before, when both exist and before > 0.
  std::optional<double> percent() const;
};

struct TraceDiff {
  std::vector<DiffRow> rows;  ///< in `before`'s order, then rows only in `after`
  size_t only_before = 0;
  size_t only_after = 0;
};

struct DiffOptions {
  EventBlockOptions units;
  bool include_operator_call = false;
};

/// Joins the p50 of every profiled event of both traces. Blocks repeated
/// with other bundled inputs count once (the first).
Result<TraceDiff> diff_traces(const etdump::ETDump& before, const etdump::ETDump& after,
                              const DiffOptions& options = {});

/// Orders for the rows: worst relative regression first (rows without a
/// percentage last), largest absolute delta first, by p50 before or after
/// (largest first), or by event name.
enum class DiffOrder { kPercent, kDelta, kBefore, kAfter, kEvent };
Result<DiffOrder> parse_diff_order(const std::string& text);  ///< "percent", "delta", "before", "after", "event"
void sort_rows(TraceDiff& diff, DiffOrder order);

/// Whether `row` slowed down by more than `threshold_percent`.
bool regressed(const DiffRow& row, double threshold_percent);
/// Rows that regressed by more than `threshold_percent`.
size_t count_regressions(const TraceDiff& diff, double threshold_percent);

}  // namespace etkit::inspector
