// etinspect modules ETDUMP --etrecord R: time per module of the model's
// hierarchy, inclusive, as a tree with each module's share of the run.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "diagnostics.h"
#include "record_loading.h"
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
  std::string time_unit = "ms";
  std::string source_unit = "ns";
  size_t depth = 0;
  bool json = false;
};

std::string short_type(const std::string& type) {
  const size_t dot = type.rfind('.');
  return dot == std::string::npos ? type : type.substr(dot + 1);
}

void print_tree(const inspector::ModuleTree& tree, const ModulesOptions& options) {
  const double whole = tree.run_total > 0 ? tree.run_total : tree.attributed + tree.unattributed;
  std::printf("%-60s %12s %7s %6s\n", "module", ("total (" + options.time_unit + ")").c_str(), "share", "ops");
  for (const inspector::ModuleTotal& m : tree.modules) {
    if (options.depth > 0 && m.depth >= options.depth) continue;
    std::string label = std::string(2 * m.depth, ' ') + (m.path.empty() ? "<root>" : m.path) + " (" +
                        short_type(m.type) + ")";
    std::printf("%-60s %12.6g %6.2f%% %6zu\n", label.c_str(), m.total,
                whole > 0 ? 100.0 * m.total / whole : 0.0, m.op_events);
  }
  std::printf("\nrun total (Method::execute avg): %.6g %s; attributed to modules: %.6g %s (%.2f%%)",
              tree.run_total, options.time_unit.c_str(), tree.attributed, options.time_unit.c_str(),
              whole > 0 ? 100.0 * tree.attributed / whole : 0.0);
  if (tree.unattributed > 0) std::printf("; without module: %.6g %s", tree.unattributed, options.time_unit.c_str());
  std::printf("\n");
}

void print_json(const inspector::ModuleTree& tree, const ModulesOptions& options) {
  nlohmann::ordered_json out;
  out["time_unit"] = options.time_unit;
  out["run_total"] = tree.run_total;
  out["attributed"] = tree.attributed;
  out["unattributed"] = tree.unattributed;
  out["modules"] = nlohmann::ordered_json::array();
  for (const inspector::ModuleTotal& m : tree.modules) {
    out["modules"].push_back({{"path", m.path},
                              {"type", m.type},
                              {"depth", m.depth},
                              {"total", m.total},
                              {"share", tree.run_total > 0 ? m.total / tree.run_total : 0.0},
                              {"op_events", m.op_events},
                              {"children", m.children}});
  }
  std::cout << out.dump(2) << "\n";
}

int run_modules(const ModulesOptions& options) {
  Diagnostics diagnostics;
  auto units = inspector::parse_time_units(options.source_unit, options.time_unit);
  if (!units.ok()) return diagnostics.fail(units.error());
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  auto blocks = inspector::event_blocks(*trace, *units);
  if (!blocks.ok()) return diagnostics.fail(blocks.error());
  auto record = load_etrecord(options.etrecord, options.method, diagnostics);
  if (!record.ok()) return diagnostics.fail(record.error());
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
  command->add_option("--time-unit", options->time_unit, "Unit of the report (default ms)")
      ->check(CLI::IsMember({"s", "ms", "us", "ns"}));
  command->add_option("--source-time-unit", options->source_unit, "Unit of the trace's timestamps (default ns)")
      ->check(CLI::IsMember({"s", "ms", "us", "ns"}));
  command->add_option("--depth", options->depth, "Show modules up to this depth (0: all)");
  command->add_flag("--json", options->json, "JSON instead of the tree");
  command->callback([options, &context] { context.exit_code = run_modules(*options); });
}

}  // namespace etkit::cli
