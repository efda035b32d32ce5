// etinspect diff A.etdp B.etdp: a statistic (p50, min or avg) of every
// event of two traces of the same program, with delta and percentage,
// worst regressions first; --fail-above and --fail-total-above make it a
// CI gate that only fails on slowdowns beyond the runs' own noise. The
// join, statistics and gate are the inspector's (trace_diff.h); this file
// parses options and prints.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/rank_test.h"
#include "etkit/inspector/trace_diff.h"
#include "etkit/inspector/trace_diff_report.h"
#include "option_checks.h"
#include "etkit/report/printer.h"
#include "record_loading.h"
#include "table_rows.h"
#include "time_options.h"

namespace etkit::cli {

namespace {

// Without --min-time, a regression must add at least this share of the
// whole run (Method::execute before): two processes running one program
// differ systematically by fractions of a microsecond on tiny kernels (a
// real shift the rank test rightly sees, and no regression worth a failed
// build).
constexpr double kDefaultFloorShare = 0.001;

struct DiffOptions {
  std::string before, after;
  TimeUnitOptions units;
  std::optional<double> fail_above;        ///< percent, per event
  std::optional<double> fail_total_above;  ///< percent, Method::execute
  std::optional<double> min_time;          ///< target unit; unset: kDefaultFloorShare of the run
  double confidence = 0.99;
  bool percent_only = false;
  std::string stat = "p50";
  std::string block;
  std::string event;
  std::string etrecord;
  std::string method = "forward";
  bool allow_unlinked = false;
  std::string sort = "percent";
  size_t top = 0;  ///< 0: every row
  bool include_operator_call = false;
  bool allow_unmatched = false;
  bool json = false;
};

std::string plain(double value) { return fmt::format("{:g}", value); }

Status check_block(const inspector::TraceDiff& diff, const DiffOptions& options) {
  if (options.block.empty() || !diff.rows.empty()) return Ok{};
  return Error::make(ErrorCode::kInvalidArgument, "--block '%s': no timed event of that block in %s or %s",
                     options.block.c_str(), options.before.c_str(), options.after.c_str());
}

// Whether the two traces can be compared at all (and the total gated):
// every refusal is bad input, exit 2.
Status check_comparable(const inspector::TraceDiff& diff, const DiffOptions& options, Diagnostics& diagnostics) {
  ETKIT_TRY(check_block(diff, options));
  if (diff.rows.empty()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s and %s hold no profiled events to compare%s",
                       options.before.c_str(), options.after.c_str(),
                       options.event.empty() ? "" : " whose name matches --event");
  }
  // Most events in only one trace mean other programs: a gate over the few
  // they share (Method::execute, ...) would pass on what it never compared,
  // so that takes --allow-unmatched. A few unmatched events are builds or
  // debug levels of one program (a view kernel one of them logs): a warning.
  const size_t unmatched = diff.only_before + diff.only_after;
  if (2 * unmatched > diff.rows.size() && !options.allow_unmatched) {
    return Error::make(
        ErrorCode::kInvalidArgument,
        "%s and %s are not traces of one program: %zu of %zu events appear in only one of them "
        "(%zu only in the first, %zu only in the second); --allow-unmatched compares the %zu they share",
        options.before.c_str(), options.after.c_str(), unmatched, diff.rows.size(), diff.only_before,
        diff.only_after, diff.rows.size() - unmatched);
  }
  if (unmatched > 0) {
    diagnostics.warning(std::to_string(unmatched) + " events appear in only one trace; they are not compared");
  }
  if (options.fail_total_above && !diff.total) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--fail-total-above: %s and %s do not both hold a Method::execute event "
                       "(the whole run's time)",
                       options.before.c_str(), options.after.c_str());
  }
  return Ok{};
}

// Names the events the noise test cannot decide (too few runs), which the
// gate then judges on the percentage and floor alone.
void warn_untestable(const inspector::TraceDiff& diff, const inspector::RegressionGate& gate,
                     const DiffOptions& options, Diagnostics& diagnostics) {
  const size_t needed = inspector::runs_needed(options.confidence);
  {
    std::vector<std::string> few;  // "Default/Method::init"
    bool only_loading = true;      // the Default block: load and init, once per process
    for (const inspector::DiffRow& row : diff.rows) {
      if (!row.before || !row.after || inspector::noise_test_applies(row, gate)) continue;
      few.push_back(row.block + "/" + row.event);
      only_loading = only_loading && row.block == "Default";
    }
    if (!few.empty()) {
      std::string names = few[0];
      for (size_t i = 1; i < few.size() && i < 3; ++i) names += ", " + few[i];
      if (few.size() > 3) names += fmt::format(" and {} more", few.size() - 3);
      const std::string why = only_loading ? "loading happens once per trace"
                                           : fmt::format("it takes {} runs per trace: run --iterations {}", needed, needed);
      diagnostics.warning(fmt::format(
          "{} event(s) ({}) have too few runs for the noise test at {}% confidence ({}); they are gated on the "
          "percentage and --min-time alone",
          few.size(), names, plain(100 * options.confidence), why));
    }
  }
}

// The failed gate's one line on stderr, and exit 1; exit 0 when it held.
int gate_result(const inspector::TraceDiffReport& verdicts, const DiffOptions& options, Diagnostics& diagnostics) {
  if (verdicts.regressions > 0 || verdicts.total_regressed) {
    std::vector<std::string> what;
    if (verdicts.regressions > 0) {
      what.push_back(fmt::format("{} event(s) slowed down by more than {}%{}", verdicts.regressions, plain(*options.fail_above),
                                 options.percent_only ? "" : " beyond their runs' noise"));
    }
    if (verdicts.total_regressed) {
      what.push_back(fmt::format("the whole run (Method::execute) slowed down by {}%, more than {}%",
                                 plain(*verdicts.diff.total->percent()), plain(*options.fail_total_above)));
    }
    return diagnostics.check_failed(what.size() == 1 ? what[0] : what[0] + "; " + what[1]);
  }
  return kExitOk;
}


// The report: the rows sorted and judged by the gates the options set
// (warning of the rows the noise test cannot decide).
inspector::TraceDiffReport judged(inspector::TraceDiff diff, const DiffOptions& options, bool named, int decimals,
                                  Diagnostics& diagnostics) {
  inspector::TraceDiffReport verdicts;
  inspector::RegressionGate& gate = verdicts.gate;
  gate.min_delta = options.min_time.value_or(diff.total && diff.total->before
                                                 ? kDefaultFloorShare * *diff.total->before
                                                 : 0.0);
  gate.confidence = options.percent_only ? 0.0 : options.confidence;
  gate.threshold_percent = options.fail_above.value_or(0);
  if ((options.fail_above || options.fail_total_above) && !options.percent_only) {
    warn_untestable(diff, gate, options, diagnostics);
  }
  inspector::sort_rows(diff, *inspector::parse_diff_order(options.sort));
  verdicts.regressions = options.fail_above ? inspector::count_regressions(diff, gate) : 0;
  verdicts.total_gate = gate;
  verdicts.total_gate.threshold_percent = options.fail_total_above.value_or(0);
  verdicts.total_regressed = options.fail_total_above && inspector::regressed(*diff.total, verdicts.total_gate);
  verdicts.diff = std::move(diff);
  verdicts.before_file = options.before;
  verdicts.after_file = options.after;
  verdicts.time_unit = options.units.target;
  verdicts.sort = options.sort;
  verdicts.named = named;
  verdicts.decimals = decimals;
  verdicts.top = options.top;
  verdicts.threshold_percent = options.fail_above;
  verdicts.total_threshold_percent = options.fail_total_above;
  verdicts.min_time_given = options.min_time.has_value();
  return verdicts;
}

int run_diff(const DiffOptions& options) {
  Diagnostics diagnostics;
  inspector::DiffOptions diff_options;
  auto units = event_block_options(options.units);
  if (!units.ok()) return diagnostics.fail(units.error());
  diff_options.units = *units;
  diff_options.include_operator_call = options.include_operator_call;
  diff_options.stat = *inspector::parse_stat(options.stat);
  diff_options.block = options.block;
  diff_options.event_pattern = options.event;
  auto before = etdump::ETDump::load_file(options.before);
  if (!before.ok()) return diagnostics.fail(before.error());
  auto after = etdump::ETDump::load_file(options.after);
  if (!after.ok()) return diagnostics.fail(after.error());
  std::optional<etrecord::Etrecord> record;
  if (!options.etrecord.empty()) {
    auto loaded = load_etrecord(options.etrecord, options.method, diagnostics);
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    record.emplace(std::move(*loaded));
    auto grouped = inspector::GroupedEvents::build(*before, *units);
    if (!grouped.ok()) return diagnostics.fail(grouped.error().with_context("%s", options.before.c_str()));
    Status fits = check_record_fits(*grouped, *record, options.etrecord, options.method, options.allow_unlinked,
                                    diagnostics);
    if (!fits.ok()) return diagnostics.fail(fits.error());
    diff_options.record = &*record;
    diff_options.record_method = options.method;
  }
  auto diff = inspector::diff_traces(*before, *after, diff_options);
  if (!diff.ok()) return diagnostics.fail(diff.error());
  if (Status comparable = check_comparable(*diff, options, diagnostics); !comparable.ok()) {
    return diagnostics.fail(comparable.error());
  }
  inspector::TraceDiffReport verdicts =
      judged(std::move(*diff), options, record.has_value(), decimals_for(units->source, units->target), diagnostics);
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)), verdicts);
  diagnostics.flush();
  return gate_result(verdicts, options, diagnostics);
}

}  // namespace

void register_diff(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* command = app.add_subcommand("diff", "Compare the events of two traces of the same program");
  command->add_option("before", options->before, "Baseline .etdp")->required();
  command->add_option("after", options->after, "New .etdp")->required();
  add_time_unit_options(*command, options->units);
  command->add_option("--fail-above", options->fail_above,
                      "Exit 1 if an event slows down by more than PCT percent, beyond its runs' noise")
      ->check(non_negative_number());
  command->add_option("--fail-total-above", options->fail_total_above,
                      "Exit 1 if the whole run (Method::execute) slows down by more than PCT percent")
      ->check(non_negative_number());
  command->add_option("--min-time", options->min_time,
                      "A regression must also add more than this much time (in --time-unit; default 0.1% of the "
                      "whole run)")
      ->check(non_negative_number());
  command->add_option("--confidence", options->confidence,
                      "Confidence the noise test needs that the runs are slower (default 0.99)")
      ->check(number_in(0.5, 0.9999));
  command->add_flag("--percent-only", options->percent_only,
                    "Gate on the percentage (and --min-time) alone, without the noise test");
  command->add_option("--stat", options->stat, "Statistic of each event's runs: p50 (default), min, avg")
      ->check(CLI::IsMember({"p50", "min", "avg"}));
  command->add_option("--block", options->block, "Only events of this block (e.g. Execute, Decode)");
  command->add_option("--event", options->event, "Only events whose name matches this regular expression");
  command->add_option("--etrecord", options->etrecord, "ETRecord naming each event's module and source line");
  command->add_option("--method", options->method, "Method of the ETRecord (default forward)");
  add_allow_unlinked(*command, options->allow_unlinked);
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
