// etinspect modules ETDUMP --etrecord R: time per module of the model's
// hierarchy, inclusive, as a tree with each module's share of the run.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "reversed_events.h"
#include "option_checks.h"
#include "printer.h"
#include "record_loading.h"
#include "time_options.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/module_totals.h"
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
  bool json = false;
  bool allow_unlinked = false;
};

std::string short_type(const std::string& type) {
  const size_t dot = type.rfind('.');
  return dot == std::string::npos ? type : type.substr(dot + 1);
}

// A module's share of the run: of Method::execute when the trace has it,
// else of the time attributed or not (one rule for text and JSON).
double share(const inspector::ModuleTree& tree, double total) {
  const double whole = tree.run_total > 0 ? tree.run_total : tree.attributed + tree.unattributed;
  return whole > 0 ? total / whole : 0.0;
}

// The tree as one table: text shows each module indented by depth, JSON
// gives path, type and depth as fields.
void print_tree(const inspector::ModuleTree& tree, const ModulesOptions& options) {
  const std::vector<TableColumn> columns = {{"path"},          {"type", 0, true},  {"depth", 0, true},
                                            {"total", 6},      {"share", 4},       {"op_events", 0},
                                            {"children", 0, true}};
  // Children are row numbers of the printed rows (--depth leaves some out).
  std::vector<int64_t> row_of(tree.modules.size(), -1);
  int64_t printed = 0;
  for (size_t i = 0; i < tree.modules.size(); ++i) {
    if (options.depth == 0 || tree.modules[i].depth < options.depth) row_of[i] = printed++;
  }
  std::vector<std::vector<Cell>> rows;
  for (const inspector::ModuleTotal& m : tree.modules) {
    if (options.depth > 0 && m.depth >= options.depth) continue;
    const std::string label =
        std::string(2 * m.depth, ' ') + (m.path.empty() ? "<root>" : m.path) + " (" + short_type(m.type) + ")";
    std::vector<int64_t> children;
    for (size_t child : m.children) {
      if (row_of[child] >= 0) children.push_back(row_of[child]);
    }
    rows.push_back({Cell::of(m.path).shown_as(label), Cell::of(m.type), Cell::of(int64_t(m.depth)),
                    Cell::of(m.total), Cell::of(share(tree, m.total)), Cell::of(int64_t(m.op_events)),
                    Cell::of(std::move(children))});
  }
  auto out = options.json ? make_json_printer(std::cout) : make_text_printer(std::cout);
  out->begin_object("");
  out->field("time_unit", options.units.target);
  out->table("modules", columns, rows);
  out->field("run_total", tree.run_total);
  out->field("attributed", tree.attributed);
  out->field("attributed_share", share(tree, tree.attributed));
  out->field("unattributed", tree.unattributed);
  out->end_object();
  out->finish();
}

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
  const inspector::ModuleTree tree = inspector::module_totals(*blocks, options.block);
  if (tree.modules.empty()) {
    diagnostics.warning("no event of block '" + options.block + "' links to a module stack in " + options.etrecord);
  }
  print_tree(tree, options);
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
  command->add_flag("--json", options->json, "JSON instead of the tree");
  add_allow_unlinked(*command, options->allow_unlinked);
  command->callback([options, &context] { context.exit_code = run_modules(*options); });
}

}  // namespace etkit::cli
