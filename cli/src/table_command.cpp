// etinspect table ETDUMP: per-event statistics across runs, with the rows
// and columns of upstream's Inspector.print_data_tabular.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <optional>

#include "commands.h"
#include "etkit/inspector/event_blocks.h"
#include "diagnostics.h"
#include "reversed_events.h"
#include "option_checks.h"
#include "record_loading.h"
#include "etkit/core/file_data.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/source_links.h"
#include "etkit/session/loaded_program.h"
#include "table_rows.h"
#include "table_source.h"
#include "table_writers.h"
#include "time_options.h"

namespace etkit::cli {
namespace {

struct TableOptions {
  std::string etdump;
  TimeUnitOptions units;
  std::string block;
  std::string sort;
  size_t top = 0;
  bool include_operator_call = false;
  std::string format = "text";
  bool json = false;  ///< --json: format "json"
  std::string program;
  std::string method = "forward";
  std::string etrecord;
  bool source = false;
  bool full_paths = false;
  bool allow_unlinked = false;
  std::string debug_buffer;
};

// The trace's block names, and whether any block ran a bundled case.
struct BlockFacts {
  std::vector<std::string> names;
  bool bundled_cases = false;
};
BlockFacts block_facts(const etdump::ETDump& trace) {
  BlockFacts facts;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    facts.bundled_cases |= block.bundled_input_index() >= 0;
    const std::string name(block.name());
    if (std::find(facts.names.begin(), facts.names.end(), name) == facts.names.end()) facts.names.push_back(name);
  }
  return facts;
}

Result<std::optional<MethodSummary>> program_method(const TableOptions& options) {
  if (options.program.empty()) return std::optional<MethodSummary>();
  ETKIT_ASSIGN_OR_RETURN(auto loaded, session::load_program(options.program, {}));
  std::vector<std::string> names;
  for (MethodSummary& m : summarize(*loaded->program).methods) {
    if (m.name == options.method) return std::optional<MethodSummary>(std::move(m));
    names.push_back(m.name);
  }
  return unknown_name("--method", options.method, "method in " + options.program, names);
}

// Intermediate outputs by instruction, from --debug-buffer.
Result<DebugOutputs> debug_outputs(const TableOptions& options, const etdump::ETDump& trace,
                                   Diagnostics& diagnostics) {
  if (options.debug_buffer.empty()) return DebugOutputs();
  ETKIT_ASSIGN_OR_RETURN(auto buffer, FileData::load(options.debug_buffer));
  auto outputs = inspector::recorded_outputs(trace, buffer->bytes());
  if (!outputs.ok()) return outputs.error().with_context("%s", options.debug_buffer.c_str());
  if (outputs->empty()) diagnostics.warning(options.etdump + " has no intermediate outputs; debug_data stays empty");
  return inspector::by_instruction(std::move(*outputs));
}

TableLayout layout_of(const TableOptions& options, const BlockFacts& facts, const inspector::EventBlockOptions& units,
                      const DebugOutputs& debug) {
  TableLayout layout;
  layout.format = options.format;
  layout.debug = &debug;
  layout.cells.bundled_case = facts.bundled_cases;
  layout.cells.source = options.source;
  layout.cells.full_paths = options.full_paths;
  layout.cells.decimals = decimals_for(units.source, units.target);
  const std::string unit = " (" + options.units.target + ")";
  layout.header = {"event_block_name"};
  if (facts.bundled_cases) layout.header.push_back("bundled_input_index");
  layout.header.push_back("event_name");
  for (const char* column : kStatColumns) layout.header.push_back(column + unit);
  layout.header.insert(layout.header.end(), {"op_types", "is_delegated_op", "delegate_backend_name"});
  if (options.source) layout.header.insert(layout.header.end(), {"module", "source"});
  if (!options.debug_buffer.empty()) {
    layout.cells.debug = &debug;
    layout.header.push_back("debug_data");
  }
  return layout;
}

// Loads what the options name, checks it against the trace, then prints.
int run_table(const TableOptions& options) {
  Diagnostics diagnostics;
  auto units = event_block_options(options.units);
  if (!units.ok()) return diagnostics.fail(units.error());
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  warn_reversed_events(diagnostics, options.etdump, *trace);
  auto grouped = inspector::GroupedEvents::build(*trace, *units);
  if (!grouped.ok()) return diagnostics.fail(grouped.error());
  const BlockFacts facts = block_facts(*trace);
  if (!options.block.empty() && std::find(facts.names.begin(), facts.names.end(), options.block) == facts.names.end()) {
    return diagnostics.fail(unknown_name("--block", options.block, "event block in " + options.etdump, facts.names));
  }
  auto method = program_method(options);
  if (!method.ok()) return diagnostics.fail(method.error());
  std::optional<etrecord::Etrecord> record;
  if (!options.etrecord.empty()) {
    auto loaded = load_etrecord(options.etrecord, options.method, diagnostics);
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    Status fits = check_record_fits(*grouped, *loaded, options.etrecord, options.method, options.allow_unlinked,
                                    diagnostics);
    if (!fits.ok()) return diagnostics.fail(fits.error());
    record.emplace(std::move(*loaded));
  } else if (options.source) {
    return diagnostics.fail(Error::make(ErrorCode::kInvalidArgument, "--source needs --etrecord"));
  }
  auto debug = debug_outputs(options, *trace, diagnostics);
  if (!debug.ok()) return diagnostics.fail(debug.error());
  const auto order = inspector::parse_event_order(options.sort);
  if (!order.ok()) return diagnostics.fail(order.error());

  const inspector::EventFilter filter{options.block, options.include_operator_call, {}};
  TableSource source(*grouped, *method ? &**method : nullptr, record ? &*record : nullptr, options.method, filter,
                     options.top);
  const TableLayout layout = layout_of(options, facts, *units, *debug);
  Output out;
  if (*order == inspector::EventOrder::kTrace) {
    write_streamed(source, layout, out);
  } else {
    std::vector<inspector::EventBlock> blocks;  // what the sorted rows point into
    std::vector<Row> rows = source.all_rows(blocks);
    inspector::sort_events(rows, *order);
    if (options.top > 0 && rows.size() > options.top) rows.resize(options.top);
    write_rows(rows, layout, out);
  }
  out.flush();
  if (source.unmatched() > 0) {
    diagnostics.warning(std::to_string(source.unmatched()) + " event(s) with an instruction id have no graph node in " +
                        options.etrecord + " (is it the record of this program?)");
  }
  return kExitOk;
}

}  // namespace

void register_table(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<TableOptions>();
  CLI::App* command = app.add_subcommand("table", "Per-event statistics of a trace, as upstream's Inspector tabulates");
  command->add_option("etdump", options->etdump, ".etdp trace")->required();
  add_time_unit_options(*command, options->units);
  auto* block = command->add_option("--block", options->block, "Only event blocks with this name");
  // generate's traces: each step a run of block Prefill or Decode.
  add_phase_option(*command, std::shared_ptr<std::string>(options, &options->block), block);
  command->add_option("--sort", options->sort, "Sort by a column (statistics descending)")
      ->check(CLI::IsMember({"p10", "p50", "p90", "avg", "min", "max", "event_name", "event_block_name"}));
  command->add_option("--top", options->top, "Keep the first N rows")->check(whole_number(1));
  command->add_option("--program", options->program, "The traced program, to name delegate backends");
  command->add_option("--method", options->method, "The traced method (default forward)");
  command->add_option("--etrecord", options->etrecord,
                      "ETRecord of the program: op types, stack traces, module hierarchy");
  command->add_flag("--source", options->source,
                    "Add module and source-line columns to text/csv/tsv/markdown (needs --etrecord)");
  command->add_flag("--full-paths", options->full_paths, "Source paths whole (default: last folder and file)");
  add_allow_unlinked(*command, options->allow_unlinked);
  command->add_option("--debug-buffer", options->debug_buffer,
                      "Debug buffer of the trace: a debug_data column (dtypes and shapes of each "
                      "instruction's outputs; values and statistics in --format json)");
  command->add_flag("--include-operator-call", options->include_operator_call, "Keep OPERATOR_CALL rows");
  auto* format = command->add_option("--format", options->format, "text, csv, tsv, json or markdown")
                     ->check(CLI::IsMember({"text", "csv", "tsv", "json", "markdown"}));
  // --json as in every command: the same as --format json.
  command->add_flag("--json", options->json, "Machine-readable output (the same as --format json)")->excludes(format);
  command->callback([options, &context] {
    if (options->json) options->format = "json";
    context.exit_code = run_table(*options);
  });
}

}  // namespace etkit::cli
