// etinspect table ETDUMP: per-event statistics across runs, with the rows
// and columns of upstream's Inspector.print_data_tabular.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/core/program_summary.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/source_links.h"
#include "program_loading.h"

namespace etkit::cli {
namespace {

struct TableOptions {
  std::string etdump;
  std::string source_unit = "ns";
  std::string time_unit = "ms";
  std::string block;
  std::string sort;
  size_t top = 0;
  bool include_operator_call = false;
  std::string format = "text";
  std::string program;
  std::string method = "forward";
  std::string etrecord;
  bool source = false;
};

struct Row {
  const inspector::EventBlock* block;
  const inspector::Event* event;
};

const char* kStatColumns[] = {"p10", "p50", "p90", "avg", "min", "max"};

double stat(const inspector::PerfData& p, const std::string& name) {
  if (name == "p10") return p.p10;
  if (name == "p50") return p.p50;
  if (name == "p90") return p.p90;
  if (name == "avg") return p.avg;
  if (name == "min") return p.min;
  return p.max;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

std::string op_types_text(const inspector::Event& e) {
  std::string text = "[";
  for (size_t i = 0; i < e.op_types.size(); ++i) text += (i ? ", " : "") + e.op_types[i];
  return text + "]";
}

// "file:line" of the innermost user frame of each linked node, joined.
std::string source_text(const inspector::Event& e) {
  std::string text;
  for (const auto& [node, trace] : e.stack_traces) {
    const std::string line = etrecord::innermost_source_line(trace);
    if (line.empty() || text.find(line) != std::string::npos) continue;
    text += (text.empty() ? "" : ", ") + line;
  }
  return text;
}

std::string module_text(const inspector::Event& e) {
  std::string text;
  for (const auto& [node, stack] : e.module_hierarchy) {
    const std::string module = inspector::innermost_module(stack);
    if (module.empty() || text.find(module) != std::string::npos) continue;
    text += (text.empty() ? "" : ", ") + module;
  }
  return text;
}

// The printed columns of a row.
std::vector<std::string> cells(const Row& row, bool source_columns) {
  std::vector<std::string> out = {row.block->name, row.event->name};
  for (const char* column : kStatColumns) {
    out.push_back(row.event->perf_data ? number(stat(*row.event->perf_data, column)) : "");
  }
  out.push_back(op_types_text(*row.event));
  out.push_back(row.event->is_delegated_op ? "True" : "False");
  out.push_back(row.event->delegate_backend_name);
  if (source_columns) {
    out.push_back(module_text(*row.event));
    out.push_back(source_text(*row.event));
  }
  return out;
}

void print_separated(const std::vector<std::string>& header, const std::vector<Row>& rows, char separator,
                     bool source_columns) {
  auto quote = [separator](const std::string& cell) {
    if (cell.find(separator) == std::string::npos && cell.find('"') == std::string::npos) return cell;
    std::string quoted = "\"";
    for (char c : cell) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  };
  for (size_t i = 0; i < header.size(); ++i) std::cout << (i ? std::string(1, separator) : "") << quote(header[i]);
  std::cout << "\n";
  for (const Row& row : rows) {
    const auto c = cells(row, source_columns);
    for (size_t i = 0; i < c.size(); ++i) std::cout << (i ? std::string(1, separator) : "") << quote(c[i]);
    std::cout << "\n";
  }
}

void print_aligned(const std::vector<std::string>& header, const std::vector<Row>& rows, bool markdown,
                   bool source_columns) {
  std::vector<std::vector<std::string>> table = {header};
  for (const Row& row : rows) table.push_back(cells(row, source_columns));
  std::vector<size_t> width(header.size(), 0);
  for (const auto& line : table)
    for (size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  auto print_line = [&](const std::vector<std::string>& line) {
    std::string text = markdown ? "| " : "";
    for (size_t i = 0; i < line.size(); ++i) {
      text += line[i] + std::string(width[i] - line[i].size(), ' ');
      text += i + 1 < line.size() ? (markdown ? " | " : "  ") : (markdown ? " |" : "");
    }
    while (!markdown && !text.empty() && text.back() == ' ') text.pop_back();
    std::cout << text << "\n";
  };
  print_line(table[0]);
  if (markdown) {
    std::vector<std::string> rule;
    for (size_t w : width) rule.push_back(std::string(std::max<size_t>(w, 3), '-'));
    for (size_t i = 0; i < rule.size(); ++i) width[i] = std::max(width[i], rule[i].size());
    print_line(rule);
  }
  for (size_t i = 1; i < table.size(); ++i) print_line(table[i]);
}

void print_json(const std::vector<Row>& rows) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Row& row : rows) {
    const inspector::Event& e = *row.event;
    nlohmann::ordered_json item;
    item["event_block_name"] = row.block->name;
    item["event_name"] = e.name;
    item["raw"] = e.perf_data ? nlohmann::ordered_json(e.perf_data->raw) : nlohmann::ordered_json(nullptr);
    for (const char* column : kStatColumns) {
      item[column] = e.perf_data ? nlohmann::ordered_json(stat(*e.perf_data, column)) : nlohmann::ordered_json(nullptr);
    }
    item["op_types"] = e.op_types;
    if (e.delegate_debug_id_int) item["delegate_debug_identifier"] = *e.delegate_debug_id_int;
    else if (e.delegate_debug_id_str) item["delegate_debug_identifier"] = *e.delegate_debug_id_str;
    else item["delegate_debug_identifier"] = nullptr;
    item["debug_handles"] = e.debug_handles;
    item["stack_traces"] = nlohmann::ordered_json::object();
    for (const auto& [node, trace] : e.stack_traces) item["stack_traces"][node] = trace;
    item["module_hierarchy"] = nlohmann::ordered_json::object();
    for (const auto& [node, stack] : e.module_hierarchy) {
      // As upstream's nn_module_stack: key -> [qualified path, type].
      nlohmann::ordered_json frames = nlohmann::ordered_json::object();
      for (const auto& frame : stack) frames[frame.key] = {frame.path, frame.type};
      item["module_hierarchy"][node] = frames;
    }
    item["is_delegated_op"] = e.is_delegated_op;
    item["delegate_backend_name"] = e.delegate_backend_name.empty() ? nlohmann::ordered_json(nullptr)
                                                                    : nlohmann::ordered_json(e.delegate_backend_name);
    item["debug_data"] = nlohmann::ordered_json::array();
    item["start_time"] = e.start_times;
    out.push_back(item);
  }
  std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

int run_table(const TableOptions& options) {
  Diagnostics diagnostics;
  auto fail = [&](const Error& error) {
    diagnostics.error(error.message());
    return kExitBadInput;
  };
  auto source = inspector::parse_time_unit(options.source_unit);
  if (!source.ok()) return fail(source.error());
  auto target = inspector::parse_time_unit(options.time_unit);
  if (!target.ok()) return fail(target.error());
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return fail(trace.error());
  auto blocks = inspector::event_blocks(*trace, {*source, *target});
  if (!blocks.ok()) return fail(blocks.error());
  if (!options.program.empty()) {
    auto loaded = load_program(options.program, {});
    if (!loaded.ok()) return fail(loaded.error());
    bool found = false;
    for (const MethodSummary& method : summarize(*(*loaded)->program).methods) {
      if (method.name != options.method) continue;
      found = true;
      inspector::annotate_backends(*blocks, method);
    }
    if (!found) {
      return fail(Error::make(ErrorCode::kNotFound, "%s: no method '%s'", options.program.c_str(),
                              options.method.c_str()));
    }
  }
  if (!options.etrecord.empty()) {
    auto record = etrecord::Etrecord::load_file(options.etrecord);
    if (!record.ok()) return fail(record.error());
    for (const std::string& warning : record->warnings()) diagnostics.warning(warning);
    if (record->method(options.method) == nullptr) {
      diagnostics.warning(options.etrecord + ": no method '" + options.method +
                          "'; events are not linked to graph nodes");
    }
    const inspector::LinkReport report = inspector::link_etrecord(*blocks, *record, options.method);
    if (report.unmatched > 0) {
      diagnostics.warning(std::to_string(report.unmatched) + " event(s) with an instruction id have no graph node in " +
                          options.etrecord + " (is it the record of this program?)");
    }
  } else if (options.source) {
    return fail(Error::make(ErrorCode::kInvalidArgument, "--source needs --etrecord"));
  }
  std::vector<Row> rows;
  for (const inspector::EventBlock& block : *blocks) {
    if (!options.block.empty() && block.name != options.block) continue;
    for (const inspector::Event& event : block.events) {
      if (!options.include_operator_call && event.name == "OPERATOR_CALL") continue;
      rows.push_back({&block, &event});
    }
  }
  if (!options.sort.empty()) {
    const std::string column = options.sort;
    const bool numeric = std::find(std::begin(kStatColumns), std::end(kStatColumns), column) != std::end(kStatColumns);
    if (!numeric && column != "event_name" && column != "event_block_name") {
      return fail(Error::make(ErrorCode::kInvalidArgument,
                              "--sort %s: sort by p10, p50, p90, avg, min, max, event_name or event_block_name",
                              column.c_str()));
    }
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      if (!numeric) return column == "event_name" ? a.event->name < b.event->name : a.block->name < b.block->name;
      const double x = a.event->perf_data ? stat(*a.event->perf_data, column) : -1;
      const double y = b.event->perf_data ? stat(*b.event->perf_data, column) : -1;
      return x > y;  // slowest first
    });
  }
  if (options.top > 0 && rows.size() > options.top) rows.resize(options.top);
  const std::string unit = std::string(" (") + options.time_unit + ")";
  std::vector<std::string> header = {"event_block_name", "event_name"};
  for (const char* column : kStatColumns) header.push_back(column + unit);
  header.insert(header.end(), {"op_types", "is_delegated_op", "delegate_backend_name"});
  if (options.source) header.insert(header.end(), {"module", "source"});
  if (options.format == "json") print_json(rows);
  else if (options.format == "csv") print_separated(header, rows, ',', options.source);
  else if (options.format == "tsv") print_separated(header, rows, '\t', options.source);
  else print_aligned(header, rows, options.format == "markdown", options.source);
  return kExitOk;
}

}  // namespace

void register_table(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<TableOptions>();
  CLI::App* command = app.add_subcommand("table", "Per-event statistics of a trace, as upstream's Inspector tabulates");
  command->add_option("etdump", options->etdump, ".etdp trace")->required();
  command->add_option("--source-time-unit", options->source_unit, "Unit of the trace's timestamps (default ns)")
      ->check(CLI::IsMember({"s", "ms", "us", "ns", "cycles"}));
  command->add_option("--time-unit", options->time_unit, "Unit of the report (default ms)")
      ->check(CLI::IsMember({"s", "ms", "us", "ns", "cycles"}));
  command->add_option("--block", options->block, "Only event blocks with this name");
  command->add_option("--sort", options->sort, "Sort by a column (statistics descending)");
  command->add_option("--top", options->top, "Keep the first N rows");
  command->add_option("--program", options->program, "The traced program, to name delegate backends");
  command->add_option("--method", options->method, "The traced method (default forward)");
  command->add_option("--etrecord", options->etrecord,
                      "ETRecord of the program: op types, stack traces, module hierarchy");
  command->add_flag("--source", options->source,
                    "Add module and source-line columns to text/csv/tsv/markdown (needs --etrecord)");
  command->add_flag("--include-operator-call", options->include_operator_call, "Keep OPERATOR_CALL rows");
  command->add_option("--format", options->format, "text, csv, tsv, json or markdown")
      ->check(CLI::IsMember({"text", "csv", "tsv", "json", "markdown"}));
  command->callback([options, &context] { context.exit_code = run_table(*options); });
}

}  // namespace etkit::cli
