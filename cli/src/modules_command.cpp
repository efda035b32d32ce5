// etinspect modules ETDUMP --etrecord R: time per module of the model's
// hierarchy, inclusive, as a tree with each module's share of the run.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "reversed_events.h"
#include "option_checks.h"
#include "etkit/report/printer.h"
#include "record_loading.h"
#include "time_options.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/module_totals.h"
#include "etkit/inspector/modules_report.h"
#include "etkit/inspector/source_links.h"

namespace etkit::cli {

namespace {

struct ModulesOptions {
  std::string etdump;
  std::string etrecord;
  std::string method = "forward";
  std::string block = "Execute";
  TimeUnitOptions units;
  size_t depth = 0;  // 0: every level
  std::string stat = "p50";
  std::string sort = "tree";
  size_t top = 0;  // 0: every row
  bool json = false;
  bool allow_unlinked = false;
};

int run_modules(const ModulesOptions& options) {
  Diagnostics diagnostics;
  auto units = event_block_options(options.units);
  if (!units.ok()) return diagnostics.fail(units.error());
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  warn_reversed_events(diagnostics, options.etdump, *trace);
  auto blocks = inspector::event_blocks(*trace, *units);
  if (!blocks.ok()) return diagnostics.fail(blocks.error());
  auto record = load_etrecord(options.etrecord, options.method, diagnostics);
  if (!record.ok()) return diagnostics.fail(record.error());
  std::vector<std::string> names;
  for (const inspector::EventBlock& block : *blocks) {
    if (std::find(names.begin(), names.end(), block.name) == names.end()) names.push_back(block.name);
  }
  if (std::find(names.begin(), names.end(), options.block) == names.end()) {
    return diagnostics.fail(unknown_name("--block", options.block, "event block in " + options.etdump, names));
  }
  auto grouped = inspector::GroupedEvents::build(*trace, *units);
  if (!grouped.ok()) return diagnostics.fail(grouped.error());
  Status fits = check_record_fits(*grouped, *record, options.etrecord, options.method, options.allow_unlinked,
                                  diagnostics);
  if (!fits.ok()) return diagnostics.fail(fits.error());
  inspector::link_etrecord(*blocks, *record, options.method);
  inspector::ModuleTree tree = inspector::module_totals(*blocks, options.block, *inspector::parse_stat(options.stat));
  if (tree.modules.empty()) {
    diagnostics.warning("no event of block '" + options.block + "' links to a module stack in " + options.etrecord);
  }
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)),
        inspector::ModulesReport{std::move(tree), options.units.target, options.stat, options.sort == "total",
                                 options.depth, options.top});
  diagnostics.flush();
  return kExitOk;
}

}  // namespace

void register_modules(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ModulesOptions>();
  CLI::App* command = app.add_subcommand("modules", "Time per module of the model hierarchy (needs an ETRecord)");
  command->add_option("etdump", options->etdump, ".etdp trace")->required();
  command->add_option("--etrecord", options->etrecord, "ETRecord with nn_module_stack metadata")->required();
  command->add_option("--method", options->method, "The traced method (default forward)");
  auto* block = command->add_option("--block", options->block, "Event block to total (default Execute)");
  // generate's traces: each step a run of block Prefill or Decode.
  add_phase_option(*command, std::shared_ptr<std::string>(options, &options->block), block);
  add_time_unit_options(*command, options->units);
  command->add_option("--depth", options->depth, "Show modules up to this depth (default: all)")
      ->check(whole_number(1));
  command->add_option("--stat", options->stat,
                      "Statistic of each event's runs summed per module: p50 (default; an outlier run moves it "
                      "little), avg (upstream's find_total_for_module), min")
      ->check(CLI::IsMember({"p50", "avg", "min"}));
  command->add_option("--sort", options->sort, "tree (default: the hierarchy) or total (flat, largest first)")
      ->check(CLI::IsMember({"tree", "total"}));
  command->add_option("--top", options->top, "Only the first N rows")->check(whole_number(1));
  command->add_flag("--json", options->json, "JSON instead of the tree");
  add_allow_unlinked(*command, options->allow_unlinked);
  command->callback([options, &context] { context.exit_code = run_modules(*options); });
}

}  // namespace etkit::cli
