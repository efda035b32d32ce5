// etinspect modules ETDUMP --etrecord R: time per module of the model's
// hierarchy, inclusive, as a tree with each module's share of the run.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "diagnostics.h"
#include "option_checks.h"
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
// else of the time attributed or not (text and JSON use this one rule).
double share(const inspector::ModuleTree& tree, double total) {
  const double whole = tree.run_total > 0 ? tree.run_total : tree.attributed + tree.unattributed;
  return whole > 0 ? total / whole : 0.0;
}

void print_tree(const inspector::ModuleTree& tree, const ModulesOptions& options) {
  std::printf("%-60s %12s %7s %6s\n", "module", ("total (" + options.units.target + ")").c_str(), "share", "ops");
  for (const inspector::ModuleTotal& m : tree.modules) {
    if (options.depth > 0 && m.depth >= options.depth) continue;
    std::string label = std::string(2 * m.depth, ' ') + (m.path.empty() ? "<root>" : m.path) + " (" +
                        short_type(m.type) + ")";
    std::printf("%-60s %12.6g %6.2f%% %6zu\n", label.c_str(), m.total, 100.0 * share(tree, m.total), m.op_events);
  }
  std::printf("\nrun total (Method::execute avg): %.6g %s; attributed to modules: %.6g %s (%.2f%%)",
              tree.run_total, options.units.target.c_str(), tree.attributed, options.units.target.c_str(),
              100.0 * share(tree, tree.attributed));
  if (tree.unattributed > 0) std::printf("; without module: %.6g %s", tree.unattributed, options.units.target.c_str());
  std::printf("\n");
}

void print_json(const inspector::ModuleTree& tree, const ModulesOptions& options) {
  nlohmann::ordered_json out;
  out["time_unit"] = options.units.target;
  out["run_total"] = tree.run_total;
  out["attributed"] = tree.attributed;
  out["unattributed"] = tree.unattributed;
  out["modules"] = nlohmann::ordered_json::array();
  for (const inspector::ModuleTotal& m : tree.modules) {
    out["modules"].push_back({{"path", m.path},
                              {"type", m.type},
                              {"depth", m.depth},
                              {"total", m.total},
                              {"share", share(tree, m.total)},
                              {"op_events", m.op_events},
                              {"children", m.children}});
  }
  std::cout << out.dump(2) << "\n";
}

int run_modules(const ModulesOptions& options) {
  Diagnostics diagnostics;
  auto units = event_block_options(options.units);
  if (!units.ok()) return diagnostics.fail(units.error());
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
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
  if (options.json) print_json(tree, options);
  else print_tree(tree, options);
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
  command->add_option("--block", options->block, "Event block to total (default Execute)");
  add_time_unit_options(*command, options->units);
  command->add_option("--depth", options->depth, "Show modules up to this depth (default: all)")
      ->check(whole_number(1));
  command->add_flag("--json", options->json, "JSON instead of the tree");
  add_allow_unlinked(*command, options->allow_unlinked);
  command->callback([options, &context] { context.exit_code = run_modules(*options); });
}

}  // namespace etkit::cli
