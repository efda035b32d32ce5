// etinspect diff A.etdp B.etdp: per-event p50 of two traces of the same
// program, with delta and percentage, worst regressions first; --fail-above
// makes it a CI gate. The join, ranking and gate are the inspector's
// (trace_diff.h); this file parses options and prints.

#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/trace_diff.h"
#include "option_checks.h"
#include "printer.h"
#include "table_rows.h"
#include "time_options.h"

namespace etkit::cli {
namespace {

struct DiffOptions {
  std::string before, after;
  TimeUnitOptions units;
  std::optional<double> fail_above;  ///< percent
  std::string sort = "percent";
  size_t top = 0;  ///< 0: every row
  bool include_operator_call = false;
  bool allow_unmatched = false;
  bool json = false;
};

int run_diff(const DiffOptions& options) {
  Diagnostics diagnostics;
  inspector::DiffOptions diff_options;
  auto units = event_block_options(options.units);
  if (!units.ok()) return diagnostics.fail(units.error());
  diff_options.units = *units;
  diff_options.include_operator_call = options.include_operator_call;
  auto before = etdump::ETDump::load_file(options.before);
  if (!before.ok()) return diagnostics.fail(before.error());
  auto after = etdump::ETDump::load_file(options.after);
  if (!after.ok()) return diagnostics.fail(after.error());
  auto diff = inspector::diff_traces(*before, *after, diff_options);
  if (!diff.ok()) return diagnostics.fail(diff.error());
  if (diff->rows.empty()) {
    return diagnostics.fail(Error::make(ErrorCode::kInvalidArgument, "%s and %s hold no profiled events to compare",
                                        options.before.c_str(), options.after.c_str()));
  }
  // Most events in only one trace mean other programs: a gate over the few
  // they share (Method::execute, ...) would pass on what it never compared,
  // so that takes --allow-unmatched. A few unmatched events are builds or
  // debug levels of one program (a view kernel one of them logs): a warning.
  const size_t unmatched = diff->only_before + diff->only_after;
  if (2 * unmatched > diff->rows.size() && !options.allow_unmatched) {
    return diagnostics.fail(Error::make(
        ErrorCode::kInvalidArgument,
        "%s and %s are not traces of one program: %zu of %zu events appear in only one of them "
        "(%zu only in the first, %zu only in the second); --allow-unmatched compares the %zu they share",
        options.before.c_str(), options.after.c_str(), unmatched, diff->rows.size(), diff->only_before,
        diff->only_after, diff->rows.size() - unmatched));
  }
  if (unmatched > 0) {
    diagnostics.warning(std::to_string(unmatched) + " events appear in only one trace; they are not compared");
  }
  inspector::sort_rows(*diff, *inspector::parse_diff_order(options.sort));
  const size_t regressions = options.fail_above ? inspector::count_regressions(*diff, *options.fail_above) : 0;

  const int decimals = decimals_for(units->source, units->target);
  std::vector<TableColumn> columns = {{"block"}, {"event"}, {"occurrence", 0}, {"p50_before", decimals},
                                      {"p50_after", decimals}, {"delta", decimals}, {"percent", 1}};
  if (options.fail_above) columns.push_back({"regressed"});
  std::vector<std::vector<Cell>> rows;
  for (const inspector::DiffRow& row : diff->rows) {
    if (options.top > 0 && rows.size() == options.top) break;
    rows.push_back({Cell::of(row.block), Cell::of(row.event), Cell::of(int64_t(row.occurrence)),
                    Cell::maybe(row.before), Cell::maybe(row.after), Cell::maybe(row.delta()),
                    Cell::maybe(row.percent())});
    if (options.fail_above) rows.back().push_back(Cell::of(inspector::regressed(row, *options.fail_above) ? "yes" : "no"));
  }
  auto out = options.json ? make_json_printer(std::cout) : make_text_printer(std::cout);
  out->begin_object("");
  out->field("before", options.before);
  out->field("after", options.after);
  out->field("time_unit", options.units.target);
  out->field("sort", options.sort);
  out->table("events", columns, rows);
  if (options.fail_above) {
    out->field("threshold_percent", *options.fail_above);
    out->field("regressions", uint64_t(regressions));
  } else {
    out->null_field("threshold_percent", "none: without --fail-above this diff fails on nothing");
  }
  out->end_object();
  out->finish();
  diagnostics.flush();
  if (regressions > 0) {
    diagnostics.error(std::to_string(regressions) + " events slowed down by more than " +
                      std::to_string(*options.fail_above) + "%");
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

void register_diff(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* command = app.add_subcommand("diff", "Compare per-event p50 of two traces of the same program");
  command->add_option("before", options->before, "Baseline .etdp")->required();
  command->add_option("after", options->after, "New .etdp")->required();
  add_time_unit_options(*command, options->units);
  command->add_option("--fail-above", options->fail_above, "Exit 1 if any event's p50 grows by more than PCT percent")
      ->check(non_negative_number());
  command->add_option("--sort", options->sort, "Row order: percent (default, worst first), delta, before, after, event")
      ->check(CLI::IsMember({"percent", "delta", "before", "after", "event"}));
  command->add_option("--top", options->top, "Only the first N rows")->check(whole_number(1));
  command->add_flag("--include-operator-call", options->include_operator_call, "Keep OPERATOR_CALL events");
  command->add_flag("--allow-unmatched", options->allow_unmatched,
                    "Compare the events two traces share even when others appear in only one");
  command->add_flag("--json", options->json, "Machine-readable output");
  command->callback([options, &context] { context.exit_code = run_diff(*options); });
}

}  // namespace etkit::cli
