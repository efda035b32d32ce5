// etinspect modules ETDUMP --etrecord R: time per module of the model's
// hierarchy, inclusive, as a tree with each module's share of the run.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
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
#include "etkit/inspector/source_links.h"

namespace etkit::cli {

using report::Cell;
using report::TableColumn;

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
// gives path, type and depth as fields. --sort total lists the modules
// flat, largest first; --top keeps the first rows.
void print_tree(const inspector::ModuleTree& tree, const ModulesOptions& options) {
  const std::vector<TableColumn> columns = {{"path"},          {"type", 0, true},  {"depth", 0, true},
                                            {"total", 6},      {"share", 4},       {"op_events", 0},
                                            {"call_sites", 0, true}, {"all_sites_total", 6, true},
                                            {"children", 0, true}};
  std::vector<size_t> shown;  // module indices, in printed order
  for (size_t i = 0; i < tree.modules.size(); ++i) {
    if (options.depth == 0 || tree.modules[i].depth < options.depth) shown.push_back(i);
  }
  const bool flat = options.sort == "total";
  if (flat) {
    std::stable_sort(shown.begin(), shown.end(),
                     [&](size_t a, size_t b) { return tree.modules[a].total > tree.modules[b].total; });
  }
  if (options.top > 0 && shown.size() > options.top) shown.resize(options.top);
  // Children are row numbers of the printed rows (--depth and --top leave some out).
  std::vector<int64_t> row_of(tree.modules.size(), -1);
  for (size_t r = 0; r < shown.size(); ++r) row_of[shown[r]] = int64_t(r);
  std::vector<std::vector<Cell>> rows;
  for (size_t i : shown) {
    const inspector::ModuleTotal& m = tree.modules[i];
    std::string label = std::string(flat ? 0 : 2 * m.depth, ' ') + (m.path.empty() ? "<root>" : m.path) + " (" +
                        short_type(m.type) + ")";
    if (m.call_sites > 1) {
      label += fmt::format(" [shared: {} call sites, {:.6f} in all]", m.call_sites, m.all_sites_total);
    }
    std::vector<int64_t> children;
    for (size_t child : m.children) {
      if (row_of[child] >= 0) children.push_back(row_of[child]);
    }
    rows.push_back({Cell::of(m.path).shown_as(label), Cell::of(m.type), Cell::of(int64_t(m.depth)),
                    Cell::of(m.total), Cell::of(share(tree, m.total)), Cell::of(int64_t(m.op_events)),
                    Cell::of(int64_t(m.call_sites)), Cell::of(m.all_sites_total), Cell::of(std::move(children))});
  }
  auto out = options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout);
  out->begin_object("");
  out->field("time_unit", options.units.target);
  out->field("stat", options.stat);
  out->field("sort", options.sort);
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
  const inspector::ModuleTree tree = inspector::module_totals(*blocks, options.block, *inspector::parse_stat(options.stat));
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
