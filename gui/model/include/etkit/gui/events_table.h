#pragma once
/// @file
/// The events table's view model: the rows and columns of `etinspect table`
/// (the same filter, the same cell texts from the inspector library), plus
/// the Δp50 of `etinspect diff` when a baseline is open; sorting by any
/// column and a text filter. The Qt table model only forwards to it.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "etkit/inspector/event_table.h"

namespace etkit::gui {

class Workspace;

/// A duration in `unit` as the table shows it: in ns, µs, ms or s by its
/// magnitude, three significant figures ("912 ns", "53.8 µs", "6.29 ms");
/// cycles as a count.
std::string duration_text(double value, inspector::TimeUnit unit);

enum class Column {
  kBlock,
  kEvent,
  kShare,  ///< p50 as a share of the block's Method::execute p50 (%)
  kP10,
  kP50,
  kP90,
  kAvg,
  kMin,
  kMax,
  kOpTypes,
  kDelegated,
  kBackend,
  kModule,
  kSource,
  kDebugData,
  kDeltaP50,    ///< with a baseline
  kDeltaPercent,
};

class EventsTable {
 public:
  /// Every event of the workspace's blocks that `etinspect table` shows
  /// (OPERATOR_CALL hidden unless `include_operator_call`), in trace order.
  explicit EventsTable(const Workspace& workspace, bool include_operator_call = false);

  const std::vector<Column>& columns() const { return columns_; }
  /// The header `etinspect table` prints, the unit left to the cells ("p50",
  /// "op_types", …).
  std::string header(size_t column) const;
  bool numeric(size_t column) const;

  size_t row_count() const { return order_.size(); }
  /// The event shown at `row` (after sorting and filtering).
  inspector::EventRef event(size_t row) const { return rows_[order_[row]]; }
  /// Block and event index of the event at `row`.
  std::pair<size_t, size_t> place(size_t row) const;
  /// The row showing event `event` of block `block`, if visible.
  std::optional<size_t> row_of(size_t block, size_t event) const;

  std::string text(size_t row, size_t column) const;
  /// The number a numeric cell sorts by (nullopt: empty cell).
  std::optional<double> number(size_t row, size_t column) const;

  /// Keeps rows whose event name, op types, module or source contains
  /// `text` (case-insensitive); empty keeps all. Keeps the current order.
  void set_filter(const std::string& text);
  /// Sorts stably by `column` (numbers as numbers); empty cells last.
  void sort(size_t column, bool ascending);

 private:
  struct Delta {
    std::optional<double> delta, percent;
  };
  std::string cell(size_t index, Column column) const;
  std::optional<double> value(size_t index, Column column) const;
  void apply();

  const Workspace& workspace_;
  std::vector<Column> columns_;
  std::vector<inspector::EventRef> rows_;  // trace order
  std::vector<std::pair<size_t, size_t>> places_;
  std::vector<Delta> deltas_;               // per row, with a baseline
  std::vector<std::optional<double>> run_p50_;  // per block: its Method::execute p50
  std::vector<std::string> search_text_;    // per row, lower case
  std::string filter_;
  std::optional<std::pair<size_t, bool>> sort_;
  std::vector<size_t> order_;               // shown rows, indices into rows_
};

}  // namespace etkit::gui
