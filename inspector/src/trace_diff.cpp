#include "etkit/inspector/trace_diff.h"

#include <algorithm>
#include <map>
#include <regex>
#include <tuple>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_text.h"
#include "etkit/inspector/rank_test.h"
#include "etkit/inspector/source_links.h"

namespace etkit::inspector {
namespace {

using Key = std::tuple<std::string, std::string, size_t>;

constexpr const char* kWholeRunEvent = "Method::execute";

// One side of a row: the statistic, every run, and the names from the record.
struct Side {
  double value = 0;
  std::vector<double> runs;
  std::string module, source;
};

struct SideTable {
  std::map<Key, Side> by_key;
  std::vector<Key> order;  // trace order
  std::optional<Side> total;
  std::string total_block;
};

// Every kept event's side per (block, event, occurrence), and the run total.
Result<SideTable> sides(const etdump::ETDump& trace, const DiffOptions& options, const std::regex* pattern) {
  ETKIT_ASSIGN_OR_RETURN(std::vector<EventBlock> blocks, event_blocks(trace, options.units));
  if (options.record != nullptr) link_etrecord(blocks, *options.record, options.record_method);
  SideTable table;
  bool total_from_execute = false;
  for (const EventBlock& block : blocks) {
    std::map<std::string, size_t> in_block;
    for (const Event& event : block.events) {
      if (!event.perf_data) continue;
      if (!options.include_operator_call && event.name == "OPERATOR_CALL") continue;
      const Side side{stat_value(*event.perf_data, options.stat), event.perf_data->raw, module_text(event),
                      source_text(event, false)};
      if (event.name == kWholeRunEvent) {
        // The whole run is the total row, not an event row (a gate on
        // both would count every slowdown twice): an Execute block's
        // first, else the first block's that has one (generate's Prefill).
        if (!table.total || (!total_from_execute && block.name == "Execute")) {
          table.total = side;
          table.total_block = block.name;
          total_from_execute = block.name == "Execute";
        }
        continue;
      }
      const Key key{block.name, event.name, in_block[event.name]++};
      if (!options.block.empty() && block.name != options.block) continue;
      if (pattern != nullptr && !std::regex_search(event.name, *pattern)) continue;
      if (table.by_key.emplace(key, side).second) table.order.push_back(key);
    }
  }
  return table;
}

DiffRow make_row(const Key& key, const Side* before, const Side* after) {
  DiffRow row{std::get<0>(key), std::get<1>(key), std::get<2>(key)};
  const Side* named = before != nullptr ? before : after;
  row.module = named->module;
  row.source = named->source;
  if (before != nullptr) {
    row.before = before->value;
    row.before_runs = before->runs;
  }
  if (after != nullptr) {
    row.after = after->value;
    row.after_runs = after->runs;
  }
  return row;
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

double DiffRow::p_slower() const {
  if (!before || !after) return 1.0;
  return mann_whitney_greater(after_runs, before_runs);
}

Result<TraceDiff> diff_traces(const etdump::ETDump& before, const etdump::ETDump& after, const DiffOptions& options) {
  std::optional<std::regex> pattern;
  if (!options.event_pattern.empty()) {
    try {
      pattern.emplace(options.event_pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Error::make(ErrorCode::kInvalidArgument, "event pattern '%s' is not a regular expression: %s",
                         options.event_pattern.c_str(), e.what());
    }
  }
  const std::regex* matcher = pattern ? &*pattern : nullptr;
  ETKIT_ASSIGN_OR_RETURN(SideTable a, sides(before, options, matcher));
  ETKIT_ASSIGN_OR_RETURN(SideTable b, sides(after, options, matcher));
  TraceDiff diff;
  diff.stat = options.stat;
  for (const Key& key : a.order) {
    auto it = b.by_key.find(key);
    if (it == b.by_key.end()) ++diff.only_before;
    diff.rows.push_back(make_row(key, &a.by_key.at(key), it == b.by_key.end() ? nullptr : &it->second));
  }
  for (const Key& key : b.order) {
    if (a.by_key.count(key)) continue;
    diff.rows.push_back(make_row(key, nullptr, &b.by_key.at(key)));
    ++diff.only_after;
  }
  if (a.total && b.total) diff.total = make_row({a.total_block, kWholeRunEvent, 0}, &*a.total, &*b.total);
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

bool noise_test_applies(const DiffRow& row, const RegressionGate& gate) {
  return gate.confidence > 0 && smallest_attainable_p(row.after_runs.size(), row.before_runs.size()) < 1.0 - gate.confidence;
}

bool regressed(const DiffRow& row, const RegressionGate& gate) {
  const std::optional<double> percent = row.percent();
  if (!percent || *percent <= gate.threshold_percent || *row.delta() <= gate.min_delta) return false;
  if (!noise_test_applies(row, gate)) return true;
  return row.p_slower() < 1.0 - gate.confidence;
}

size_t count_regressions(const TraceDiff& diff, const RegressionGate& gate) {
  return size_t(std::count_if(diff.rows.begin(), diff.rows.end(),
                              [&](const DiffRow& row) { return regressed(row, gate); }));
}

}  // namespace etkit::inspector
