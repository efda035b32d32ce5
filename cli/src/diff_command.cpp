// etinspect diff A.etdp B.etdp: per-event p50 of two traces of the same
// program, with delta and ratio, slowest regressions first; --fail-above
// makes it a CI gate.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_blocks.h"
#include "printer.h"

namespace etkit::cli {
namespace {

struct DiffOptions {
  std::string before, after;
  std::string source_unit = "ns";
  std::string time_unit = "ms";
  double fail_above = -1;  ///< percent
  bool include_operator_call = false;
  bool json = false;
};

struct DiffRow {
  std::string block, event;
  size_t occurrence = 0;  // the k-th event of that name in its block
  double before = NAN, after = NAN;
  double delta() const { return after - before; }
  double percent() const { return before > 0 ? 100.0 * (after - before) / before : NAN; }
};

using Key = std::tuple<std::string, std::string, size_t>;

Result<std::map<Key, double>> p50s(const std::string& path, const DiffOptions& options,
                                   std::vector<Key>& order) {
  ETKIT_ASSIGN_OR_RETURN(inspector::EventBlockOptions units,
                         inspector::parse_time_units(options.source_unit, options.time_unit));
  ETKIT_ASSIGN_OR_RETURN(etdump::ETDump trace, etdump::ETDump::load_file(path));
  ETKIT_ASSIGN_OR_RETURN(std::vector<inspector::EventBlock> blocks, inspector::event_blocks(trace, units));
  std::map<Key, double> out;
  std::map<std::pair<std::string, std::string>, size_t> seen;
  for (const inspector::EventBlock& block : blocks) {
    for (const inspector::Event& event : block.events) {
      if (!event.perf_data) continue;
      if (!options.include_operator_call && event.name == "OPERATOR_CALL") continue;
      const size_t k = seen[{block.name, event.name}]++;
      const Key key{block.name, event.name, k};
      // Blocks repeated with other bundled inputs: keep the first.
      if (out.emplace(key, event.perf_data->p50).second) order.push_back(key);
    }
  }
  return out;
}

int run_diff(const DiffOptions& options) {
  Diagnostics diagnostics;
  std::vector<Key> order_a, order_b;
  auto a = p50s(options.before, options, order_a);
  if (!a.ok()) {
    diagnostics.error(a.error().message());
    return kExitBadInput;
  }
  auto b = p50s(options.after, options, order_b);
  if (!b.ok()) {
    diagnostics.error(b.error().message());
    return kExitBadInput;
  }
  std::vector<DiffRow> rows;
  for (const Key& key : order_a) {
    DiffRow row{std::get<0>(key), std::get<1>(key), std::get<2>(key), a->at(key), NAN};
    if (auto it = b->find(key); it != b->end()) row.after = it->second;
    rows.push_back(row);
  }
  size_t only_after = 0;
  for (const Key& key : order_b) {
    if (a->count(key)) continue;
    rows.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), NAN, b->at(key)});
    ++only_after;
  }
  size_t unmatched = only_after;
  for (const DiffRow& row : rows) unmatched += std::isnan(row.after) ? 1 : 0;
  if (unmatched > 0) {
    diagnostics.warning(std::to_string(unmatched) + " events appear in only one trace (different programs or builds?)");
  }
  std::stable_sort(rows.begin(), rows.end(), [](const DiffRow& x, const DiffRow& y) {
    const double px = std::isnan(x.percent()) ? -INFINITY : x.percent();
    const double py = std::isnan(y.percent()) ? -INFINITY : y.percent();
    return px > py;
  });
  size_t failures = 0;
  auto out = options.json ? make_json_printer(std::cout) : make_text_printer(std::cout);
  out->begin_object("");
  out->field("before", options.before);
  out->field("after", options.after);
  out->field("time_unit", options.time_unit);
  out->begin_list("events");
  for (const DiffRow& row : rows) {
    const bool regressed = options.fail_above >= 0 && !std::isnan(row.percent()) && row.percent() > options.fail_above;
    failures += regressed;
    out->begin_object("");
    out->field("block", row.block);
    out->field("event", row.event);
    out->field("occurrence", uint64_t(row.occurrence));
    if (!std::isnan(row.before)) out->field("p50_before", row.before);
    if (!std::isnan(row.after)) out->field("p50_after", row.after);
    if (!std::isnan(row.before) && !std::isnan(row.after)) {
      out->field("delta", row.delta());
      if (!std::isnan(row.percent())) out->field("percent", row.percent());
    }
    if (options.fail_above >= 0) out->field("regressed", regressed);
    out->end_object();
  }
  out->end_list();
  out->field("regressions", uint64_t(failures));
  out->end_object();
  out->finish();
  diagnostics.flush();
  if (failures > 0) {
    diagnostics.error(std::to_string(failures) + " events slowed down by more than " +
                      std::to_string(options.fail_above) + "%");
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
  command->add_option("--source-time-unit", options->source_unit, "Unit of the traces' timestamps (default ns)")
      ->check(CLI::IsMember({"s", "ms", "us", "ns", "cycles"}));
  command->add_option("--time-unit", options->time_unit, "Unit of the report (default ms)")
      ->check(CLI::IsMember({"s", "ms", "us", "ns", "cycles"}));
  command->add_option("--fail-above", options->fail_above, "Exit 1 if any event's p50 grows by more than PCT percent");
  command->add_flag("--include-operator-call", options->include_operator_call, "Keep OPERATOR_CALL events");
  command->add_flag("--json", options->json, "Machine-readable output");
  command->callback([options, &context] { context.exit_code = run_diff(*options); });
}

}  // namespace etkit::cli
