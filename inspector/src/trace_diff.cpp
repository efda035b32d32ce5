#include "etkit/inspector/trace_diff.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "etkit/etdump/etdump_reader.h"

namespace etkit::inspector {
namespace {

using Key = std::tuple<std::string, std::string, size_t>;

// p50 per (block, event, occurrence), with the keys in trace order.
Result<std::map<Key, double>> p50s(const etdump::ETDump& trace, const DiffOptions& options, std::vector<Key>& order) {
  ETKIT_ASSIGN_OR_RETURN(std::vector<EventBlock> blocks, event_blocks(trace, options.units));
  std::map<Key, double> out;
  std::map<std::pair<std::string, std::string>, size_t> seen;
  for (const EventBlock& block : blocks) {
    std::map<std::string, size_t> in_block;
    for (const Event& event : block.events) {
      if (!event.perf_data) continue;
      if (!options.include_operator_call && event.name == "OPERATOR_CALL") continue;
      const Key key{block.name, event.name, in_block[event.name]++};
      if (out.emplace(key, event.perf_data->p50).second) order.push_back(key);
    }
  }
  return out;
}

// The sort key of a row under `order`; rows without one go last.
std::optional<double> sort_value(const DiffRow& row, DiffOrder order) {
  switch (order) {
    case DiffOrder::kPercent: return row.percent();
    case DiffOrder::kDelta: return row.delta();
    case DiffOrder::kBefore: return row.before;
    case DiffOrder::kAfter: return row.after;
    case DiffOrder::kEvent: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> DiffRow::delta() const {
  if (!before || !after) return std::nullopt;
  return *after - *before;
}

std::optional<double> DiffRow::percent() const {
  if (!before || !after || *before <= 0) return std::nullopt;
  return 100.0 * (*after - *before) / *before;
}

Result<TraceDiff> diff_traces(const etdump::ETDump& before, const etdump::ETDump& after, const DiffOptions& options) {
  std::vector<Key> order_a, order_b;
  ETKIT_ASSIGN_OR_RETURN(auto a, p50s(before, options, order_a));
  ETKIT_ASSIGN_OR_RETURN(auto b, p50s(after, options, order_b));
  TraceDiff diff;
  for (const Key& key : order_a) {
    DiffRow row{std::get<0>(key), std::get<1>(key), std::get<2>(key), a.at(key), std::nullopt};
    if (auto it = b.find(key); it != b.end()) row.after = it->second;
    else ++diff.only_before;
    diff.rows.push_back(std::move(row));
  }
  for (const Key& key : order_b) {
    if (a.count(key)) continue;
    diff.rows.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::nullopt, b.at(key)});
    ++diff.only_after;
  }
  return diff;
}

Result<DiffOrder> parse_diff_order(const std::string& text) {
  if (text == "percent") return DiffOrder::kPercent;
  if (text == "delta") return DiffOrder::kDelta;
  if (text == "before") return DiffOrder::kBefore;
  if (text == "after") return DiffOrder::kAfter;
  if (text == "event") return DiffOrder::kEvent;
  return Error::make(ErrorCode::kInvalidArgument, "order '%s' is not one of percent, delta, before, after, event",
                     text.c_str());
}

void sort_rows(TraceDiff& diff, DiffOrder order) {
  std::stable_sort(diff.rows.begin(), diff.rows.end(), [order](const DiffRow& x, const DiffRow& y) {
    if (order == DiffOrder::kEvent) return x.event < y.event;
    const std::optional<double> vx = sort_value(x, order), vy = sort_value(y, order);
    if (vx.has_value() != vy.has_value()) return vx.has_value();
    return vx && *vx > *vy;
  });
}

bool regressed(const DiffRow& row, double threshold_percent) {
  const std::optional<double> percent = row.percent();
  return percent && *percent > threshold_percent;
}

size_t count_regressions(const TraceDiff& diff, double threshold_percent) {
  return size_t(std::count_if(diff.rows.begin(), diff.rows.end(),
                              [&](const DiffRow& row) { return regressed(row, threshold_percent); }));
}

}  // namespace etkit::inspector
