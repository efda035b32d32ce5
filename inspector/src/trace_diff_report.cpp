#include "etkit/inspector/trace_diff_report.h"

#include <vector>

namespace etkit::inspector {
namespace {

using report::Cell;
using report::TableColumn;

// A diff table's columns: names when an ETRecord gave them, the gate's
// when that row set is gated.
std::vector<TableColumn> diff_columns(bool named, int decimals, bool gated) {
  std::vector<TableColumn> list = {{"block"}, {"event"}, {"occurrence", 0}};
  if (named) list.insert(list.end(), {{"module"}, {"source"}});
  list.insert(list.end(), {{"before", decimals}, {"after", decimals}, {"delta", decimals}, {"percent", 1},
                           {"runs_before", 0}, {"runs_after", 0}});
  if (gated) list.insert(list.end(), {{"p_slower", -1}, {"regressed"}, {"verdict"}});
  return list;
}

std::vector<Cell> diff_cells(const DiffRow& row, const RegressionGate& gate, bool named, bool gated) {
  std::vector<Cell> list = {Cell::of(row.block), Cell::of(row.event), Cell::of(int64_t(row.occurrence))};
  if (named) list.insert(list.end(), {Cell::of(row.module), Cell::of(row.source)});
  list.insert(list.end(), {Cell::maybe(row.before), Cell::maybe(row.after), Cell::maybe(row.delta()),
                           Cell::maybe(row.percent()), Cell::of(int64_t(row.before_runs.size())),
                           Cell::of(int64_t(row.after_runs.size()))});
  if (gated) {
    const bool tested = row.before && row.after && noise_test_applies(row, gate);
    list.insert(list.end(), {tested ? Cell::of(row.p_slower()) : Cell::empty(),
                             Cell::yes_no(regressed(row, gate)), Cell::of(verdict(row, gate))});
  }
  return list;
}

// The gates' settings and what they found.
void print_gate(report::Printer& out, const TraceDiffReport& diff) {
  out.begin_object("gate");
  if (diff.threshold_percent) out.field("threshold_percent", *diff.threshold_percent);
  else out.null_field("threshold_percent", "none: without --fail-above no event fails this diff");
  if (diff.total_threshold_percent) out.field("total_threshold_percent", *diff.total_threshold_percent);
  else out.null_field("total_threshold_percent", "none: without --fail-total-above the whole run fails nothing");
  out.field("min_time", diff.gate.min_delta);
  out.field("min_time_rule", std::string(diff.min_time_given ? "--min-time" : "0.1% of the run (Method::execute before)"));
  if (diff.gate.confidence <= 0) {
    out.null_field("noise_test", "none: --percent-only");
  } else {
    out.field("noise_test", std::string("one-sided Mann-Whitney U, after slower than before"));
    out.field("confidence", diff.gate.confidence);
  }
  out.field("regressions", uint64_t(diff.regressions));
  out.field("total_regressed", diff.total_regressed);
  out.end_object();
}

}  // namespace

std::string verdict(const DiffRow& row, const RegressionGate& gate) {
  const std::optional<double> percent = row.percent();
  if (!percent) return row.before ? "only before" : "only after";
  if (regressed(row, gate)) return "regressed";
  if (*percent <= gate.threshold_percent) return "within threshold";
  if (*row.delta() <= gate.min_delta) return "below the time floor";
  return "within noise";
}

void print(report::Printer& out, const TraceDiffReport& diff) {
  const bool gated = diff.threshold_percent.has_value(), total_gated = diff.total_threshold_percent.has_value();
  std::vector<std::vector<Cell>> rows;
  for (const DiffRow& row : diff.diff.rows) {
    if (diff.top > 0 && rows.size() == diff.top) break;
    rows.push_back(diff_cells(row, diff.gate, diff.named, gated));
  }
  out.begin_object("");
  out.field("before_file", diff.before_file);
  out.field("after_file", diff.after_file);
  out.field("stat", std::string(to_string(diff.diff.stat)));
  out.field("time_unit", diff.time_unit);
  out.field("sort", diff.sort);
  out.table("events", diff_columns(diff.named, diff.decimals, gated), rows);
  if (diff.diff.total) {
    out.table("total", diff_columns(diff.named, diff.decimals, total_gated),
              {diff_cells(*diff.diff.total, diff.total_gate, diff.named, total_gated)});
  } else {
    out.null_field("total", "none: no Method::execute event in both traces");
  }
  print_gate(out, diff);
  out.end_object();
  out.finish();
}

}  // namespace etkit::inspector
