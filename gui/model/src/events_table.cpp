#include "etkit/gui/events_table.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "etkit/gui/workspace.h"
#include "lowercase.h"
#include "etkit/inspector/event_text.h"

#include <cmath>
#include <iterator>

namespace etkit::gui {
namespace {

using detail::lowercase;

std::string number_text(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

// The change against a baseline beside the names, then the share of the
// run, then the CLI's columns. One column at a time: GCC 12's -O3 takes
// inserting a braced list into a vector for an out-of-bounds copy
// (-Warray-bounds).
std::vector<Column> columns_of(const Workspace& workspace) {
  std::vector<Column> columns;
  const auto add = [&columns](std::initializer_list<Column> more) {
    for (Column column : more) columns.push_back(column);
  };
  add({Column::kBlock, Column::kEvent});
  if (workspace.diff().has_value()) add({Column::kDeltaP50, Column::kDeltaPercent});
  add({Column::kShare, Column::kP10, Column::kP50, Column::kP90, Column::kAvg, Column::kMin, Column::kMax,
       Column::kOpTypes, Column::kDelegated, Column::kBackend});
  if (workspace.record() != nullptr) add({Column::kModule, Column::kSource});
  if (!workspace.debug_outputs().empty()) add({Column::kDebugData});
  return columns;
}

}  // namespace

std::string duration_text(double value, inspector::TimeUnit unit) {
  if (unit == inspector::TimeUnit::kCycles) return number_text(value, 0) + " cycles";
  const double ns = value * inspector::nanoseconds_per(unit);
  const double magnitude = std::abs(ns);
  static const struct {
    double scale;
    const char* name;
  } kUnits[] = {{1, "ns"}, {1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};
  size_t u = 0;
  // The largest unit the value is at least one of (rounded to three figures).
  while (u + 1 < std::size(kUnits) && magnitude >= kUnits[u + 1].scale * 0.9995) ++u;
  const double scaled = ns / kUnits[u].scale;
  const double shown = std::abs(scaled);
  const int decimals = u == 0 ? 0 : shown < 9.995 ? 2 : shown < 99.95 ? 1 : 0;
  return number_text(scaled, decimals) + " " + kUnits[u].name;
}

namespace {

// The statistic a column shows, as EventOrder names it.
std::optional<inspector::EventOrder> stat_order(Column column) {
  switch (column) {
    case Column::kP10: return inspector::EventOrder::kP10;
    case Column::kP50: return inspector::EventOrder::kP50;
    case Column::kP90: return inspector::EventOrder::kP90;
    case Column::kAvg: return inspector::EventOrder::kAvg;
    case Column::kMin: return inspector::EventOrder::kMin;
    case Column::kMax: return inspector::EventOrder::kMax;
    default: return std::nullopt;
  }
}

}  // namespace

EventsTable::EventsTable(const Workspace& workspace, bool include_operator_call) : workspace_(workspace) {
  columns_ = columns_of(workspace);

  inspector::EventFilter filter;
  filter.include_operator_call = include_operator_call;
  const std::vector<inspector::EventBlock>& blocks = workspace.blocks();
  run_p50_.resize(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (const inspector::Event& event : blocks[b].events) {
      if (event.name == "Method::execute" && event.perf_data) run_p50_[b] = event.perf_data->p50;
    }
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    const inspector::EventBlock& block = blocks[b];
    for (size_t e = 0; e < block.events.size(); ++e) {
      const inspector::Event& event = block.events[e];
      if (!inspector::keeps(filter, block, event)) continue;
      if (rows_.empty()) {
        size_t events = 0;
        for (const auto& each : blocks) events += each.events.size();
        rows_.reserve(events);
        places_.reserve(events);
        deltas_.reserve(events);
      }
      rows_.push_back({&block, &event});
      places_.emplace_back(b, e);
      Delta delta;
      if (const inspector::DiffRow* row = workspace.diff_row_of(b, e)) delta = {row->delta(), row->percent()};
      deltas_.push_back(delta);
    }
  }
  apply();
}

std::string EventsTable::header(size_t column) const {
  const std::string unit;  // each time cell carries its own unit
  switch (columns_[column]) {
    case Column::kBlock: return "event_block_name";
    case Column::kEvent: return "event_name";
    case Column::kShare: return "% of run (p50)";
    case Column::kP10: return "p10" + unit;
    case Column::kP50: return "p50" + unit;
    case Column::kP90: return "p90" + unit;
    case Column::kAvg: return "avg" + unit;
    case Column::kMin: return "min" + unit;
    case Column::kMax: return "max" + unit;
    case Column::kOpTypes: return "op_types";
    case Column::kDelegated: return "is_delegated_op";
    case Column::kBackend: return "delegate_backend_name";
    case Column::kModule: return "module";
    case Column::kSource: return "source";
    case Column::kDebugData: return "debug_data";
    case Column::kDeltaP50: return "Δp50" + unit;
    case Column::kDeltaPercent: return "Δp50 (%)";
  }
  return "";
}

bool EventsTable::numeric(size_t column) const {
  const Column c = columns_[column];
  return stat_order(c) || c == Column::kShare || c == Column::kDeltaP50 || c == Column::kDeltaPercent;
}

std::pair<size_t, size_t> EventsTable::place(size_t row) const { return places_[order_[row]]; }

std::optional<size_t> EventsTable::row_of(size_t block, size_t event) const {
  for (size_t row = 0; row < order_.size(); ++row) {
    if (places_[order_[row]] == std::make_pair(block, event)) return row;
  }
  return std::nullopt;
}

std::optional<double> EventsTable::value(size_t index, Column column) const {
  const inspector::Event& event = *rows_[index].event;
  if (const auto order = stat_order(column)) {
    if (!event.perf_data) return std::nullopt;
    return inspector::statistic(*event.perf_data, *order);
  }
  if (column == Column::kShare) {
    const std::optional<double>& run = run_p50_[places_[index].first];
    if (!event.perf_data || !run || !(*run > 0)) return std::nullopt;
    return 100.0 * event.perf_data->p50 / *run;
  }
  if (column == Column::kDeltaP50) return deltas_[index].delta;
  if (column == Column::kDeltaPercent) return deltas_[index].percent;
  return std::nullopt;
}

std::string EventsTable::cell(size_t index, Column column) const {
  const inspector::EventRef& ref = rows_[index];
  const inspector::Event& event = *ref.event;
  switch (column) {
    case Column::kBlock: return ref.block->name;
    case Column::kEvent: return event.name;
    case Column::kOpTypes: return inspector::op_types_text(event);
    case Column::kDelegated: return event.is_delegated_op ? "True" : "False";
    case Column::kBackend: return event.delegate_backend_name;
    case Column::kModule: return inspector::module_text(event);
    case Column::kSource: return inspector::source_text(event, false);
    case Column::kDebugData: return inspector::debug_data_text(event, workspace_.debug_outputs());
    case Column::kDeltaPercent: {
      const auto v = value(index, column);
      return v ? (*v > 0 ? "+" : "") + number_text(*v, 1) : "";
    }
    case Column::kShare: {
      const auto v = value(index, column);
      return v ? number_text(*v, 1) : "";
    }
    default: {
      const auto v = value(index, column);
      if (!v) return "";
      // In the unit its magnitude reads best in ("53.8 µs", "6.29 ms"):
      // the column's numbers (sorting, copying) stay in the table's unit.
      return (column == Column::kDeltaP50 && *v > 0 ? "+" : "") + duration_text(*v, workspace_.request().table_unit);
    }
  }
}

std::string EventsTable::text(size_t row, size_t column) const { return cell(order_[row], columns_[column]); }

std::optional<double> EventsTable::number(size_t row, size_t column) const {
  return value(order_[row], columns_[column]);
}

void EventsTable::set_filter(const std::string& text) {
  filter_ = lowercase(text);
  if (!filter_.empty() && search_text_.empty()) {
    // Built on first use: a million rows' module and source texts cost.
    search_text_.reserve(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i) {
      search_text_.push_back(lowercase(cell(i, Column::kEvent) + "\n" + cell(i, Column::kOpTypes) + "\n" +
                                   cell(i, Column::kModule) + "\n" + cell(i, Column::kSource)));
    }
  }
  apply();
}

void EventsTable::sort(size_t column, bool ascending) {
  sort_ = std::make_pair(column, ascending);
  apply();
}

void EventsTable::apply() {
  order_.clear();
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (filter_.empty() || search_text_[i].find(filter_) != std::string::npos) order_.push_back(i);
  }
  if (!sort_) return;
  const auto [column, ascending] = *sort_;
  const Column c = columns_[column];
  if (numeric(column)) {
    // Empty cells last in either direction.
    std::vector<std::optional<double>> keys(rows_.size());
    for (size_t i : order_) keys[i] = value(i, c);
    std::stable_sort(order_.begin(), order_.end(), [&, asc = ascending](size_t a, size_t b) {
      if (!keys[a] || !keys[b]) return keys[a].has_value() && !keys[b].has_value();
      return asc ? *keys[a] < *keys[b] : *keys[a] > *keys[b];
    });
    return;
  }
  std::vector<std::string> keys(rows_.size());
  for (size_t i : order_) keys[i] = cell(i, c);
  std::stable_sort(order_.begin(), order_.end(), [&, asc = ascending](size_t a, size_t b) {
    return asc ? keys[a] < keys[b] : keys[b] < keys[a];
  });
}

}  // namespace etkit::gui
