// etinspect table ETDUMP: per-event statistics across runs, with the rows
// and columns of upstream's Inspector.print_data_tabular.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <optional>
#include <thread>

#include "commands.h"
#include "diagnostics.h"
#include "option_checks.h"
#include "record_loading.h"
#include "etkit/core/file_data.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/source_links.h"
#include "program_loading.h"
#include "table_rows.h"
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
  std::string program;
  std::string method = "forward";
  std::string etrecord;
  bool source = false;
  bool full_paths = false;
  bool allow_unlinked = false;
  std::string debug_buffer;
};

int run_table(const TableOptions& options) {
  Diagnostics diagnostics;
  auto units = event_block_options(options.units);
  if (!units.ok()) return diagnostics.fail(units.error());
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  auto grouped = inspector::GroupedEvents::build(*trace, *units);
  if (!grouped.ok()) return diagnostics.fail(grouped.error());
  // Names and cases of the trace's blocks: --block must name one of them,
  // and traces of bundled cases get a column saying which case a row is.
  std::vector<std::string> block_names;
  bool bundled_cases = false;
  for (size_t b = 0; b < trace->block_count(); ++b) {
    const etdump::RunBlock block = trace->block(b);
    bundled_cases |= block.bundled_input_index() >= 0;
    const std::string name(block.name());
    if (std::find(block_names.begin(), block_names.end(), name) == block_names.end()) block_names.push_back(name);
  }
  if (!options.block.empty() &&
      std::find(block_names.begin(), block_names.end(), options.block) == block_names.end()) {
    return diagnostics.fail(unknown_name("--block", options.block, "event block in " + options.etdump, block_names));
  }
  std::optional<MethodSummary> method;
  if (!options.program.empty()) {
    auto loaded = load_program(options.program, {});
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    for (MethodSummary& m : summarize(*(*loaded)->program).methods) {
      if (m.name == options.method) method = std::move(m);
    }
    if (!method) {
      return diagnostics.fail(Error::make(ErrorCode::kNotFound, "%s: no method '%s'", options.program.c_str(),
                              options.method.c_str()));
    }
  }
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
  DebugOutputs debug;
  if (!options.debug_buffer.empty()) {
    auto buffer = FileData::load(options.debug_buffer);
    if (!buffer.ok()) return diagnostics.fail(buffer.error());
    auto outputs = inspector::recorded_outputs(*trace, (*buffer)->bytes());
    if (!outputs.ok()) return diagnostics.fail(outputs.error().with_context("%s", options.debug_buffer.c_str()));
    if (outputs->empty()) {
      diagnostics.warning(options.etdump + " has no intermediate outputs; debug_data stays empty");
    }
    for (auto& output : *outputs) debug[output.instruction_id].push_back(std::move(output));
  }
  const bool numeric_sort =
      std::find(std::begin(kStatColumns), std::end(kStatColumns), options.sort) != std::end(kStatColumns);

  Output out;
  // One block at a time, annotated; blocks are materialized again when a
  // second pass needs them, so memory stays that of one block per worker.
  struct Worker {
    inspector::EventBlock block;  // reused: materialized into, one block at a time
    size_t unmatched = 0;
    std::vector<size_t> width;
    std::string text;
  };
  auto wanted = [&](const inspector::EventBlock& block, const inspector::Event& event) {
    return (options.block.empty() || block.name == options.block) &&
           (options.include_operator_call || event.name != "OPERATOR_CALL");
  };
  // Calls visit(row) for the wanted rows of block `index`.
  auto block_rows = [&](Worker& worker, size_t index, bool count_unmatched, auto&& visit) {
    inspector::EventBlock& block = worker.block;
    grouped->block_into(index, block);
    if (method) inspector::annotate_backends(block, *method);
    if (record) {
      const inspector::LinkReport report = inspector::link_etrecord(block, *record, options.method);
      if (count_unmatched) worker.unmatched += report.unmatched;
    }
    for (const inspector::Event& event : block.events) {
      if (wanted(block, event)) visit(Row{&block, &event});
    }
  };
  // Blocks [begin, end) split in contiguous ranges over the workers (this
  // thread and, on a multi-core machine, one more): output order is kept
  // by the caller concatenating the workers' texts in order.
  std::vector<Worker> workers(std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 2));
  auto in_parallel = [&](size_t begin, size_t end, const std::function<void(Worker&, size_t, size_t)>& work) {
    const size_t per = (end - begin + workers.size() - 1) / workers.size();
    std::vector<std::thread> threads;
    for (size_t w = 1; w < workers.size(); ++w) {
      const size_t b0 = std::min(end, begin + w * per), b1 = std::min(end, b0 + per);
      if (b0 < b1) threads.emplace_back([&, w, b0, b1] { work(workers[w], b0, b1); });
    }
    work(workers[0], begin, std::min(end, begin + per));
    for (std::thread& thread : threads) thread.join();
  };
  // Calls `visit` on every wanted row in order, at most --top rows (one thread).
  auto for_each_row = [&](bool first_pass, const std::function<void(const Row&)>& visit) {
    size_t count = 0;
    for (size_t b = 0; b < grouped->block_count() && (options.top == 0 || count < options.top); ++b) {
      block_rows(workers[0], b, first_pass, [&](const Row& row) {
        if (options.top > 0 && count == options.top) return;
        visit(row);
        ++count;
      });
    }
  };
  // Formats every row (no --top) chunk by chunk on the workers, appending
  // each chunk's text in order.
  auto format_all_rows = [&](bool count_unmatched, const std::function<void(std::string&, const Row&)>& format) {
    constexpr size_t kChunkBlocks = 256;
    for (size_t chunk = 0; chunk < grouped->block_count(); chunk += kChunkBlocks) {
      in_parallel(chunk, std::min(grouped->block_count(), chunk + kChunkBlocks), [&](Worker& worker, size_t b0, size_t b1) {
        worker.text.clear();
        for (size_t b = b0; b < b1; ++b) {
          block_rows(worker, b, count_unmatched, [&](const Row& row) { format(worker.text, row); });
        }
      });
      for (Worker& worker : workers) out.add(worker.text);
    }
  };
  // Every wanted row through `format`, in order: on the workers, or on this
  // thread when --top stops early.
  auto write_rows = [&](bool count_unmatched, const std::function<void(std::string&, const Row&)>& format) {
    if (options.top == 0) {
      format_all_rows(count_unmatched, format);
      return;
    }
    std::string line;
    for_each_row(count_unmatched, [&](const Row& row) {
      line.clear();
      format(line, row);
      out.add(line);
    });
  };

  const std::string unit = std::string(" (") + options.units.target + ")";
  std::vector<std::string> header = {"event_block_name"};
  if (bundled_cases) header.push_back("bundled_input_index");
  header.push_back("event_name");
  for (const char* column : kStatColumns) header.push_back(column + unit);
  header.insert(header.end(), {"op_types", "is_delegated_op", "delegate_backend_name"});
  if (options.source) header.insert(header.end(), {"module", "source"});
  CellFormat extra;
  extra.bundled_case = bundled_cases;
  extra.source = options.source;
  extra.full_paths = options.full_paths;
  extra.decimals = decimals_for(units->source, units->target);
  if (!options.debug_buffer.empty()) {
    extra.debug = &debug;
    header.push_back("debug_data");
  }
  const bool aligned = options.format == "text" || options.format == "markdown";
  const bool markdown = options.format == "markdown";
  const char separator = options.format == "csv" ? ',' : '\t';

  if (!options.sort.empty()) {
    // Sorting needs every row at once.
    std::vector<inspector::EventBlock> blocks;
    for (size_t b = 0; b < grouped->block_count(); ++b) {
      block_rows(workers[0], b, true, [](const Row&) {});
      blocks.push_back(workers[0].block);
    }
    std::vector<Row> rows;
    for (const inspector::EventBlock& block : blocks) {
      for (const inspector::Event& event : block.events) {
        if (wanted(block, event)) rows.push_back({&block, &event});
      }
    }
    const std::string column = options.sort;
    const size_t sort_stat = stat_index(column);
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      if (!numeric_sort) return column == "event_name" ? a.event->name < b.event->name : a.block->name < b.block->name;
      const double x = a.event->perf_data ? stat(*a.event->perf_data, sort_stat) : -1;
      const double y = b.event->perf_data ? stat(*b.event->perf_data, sort_stat) : -1;
      return x > y;  // slowest first
    });
    if (options.top > 0 && rows.size() > options.top) rows.resize(options.top);
    if (options.format == "json") {
      nlohmann::ordered_json items = nlohmann::ordered_json::array();
      for (const Row& row : rows) items.push_back(json_item(row, debug));
      out.add(items.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
    } else if (aligned) {
      std::vector<size_t> width(header.size(), markdown ? 3 : 0);
      for (size_t i = 0; i < header.size(); ++i) width[i] = std::max(width[i], header[i].size());
      for (const Row& row : rows) {
        const auto c = cells(row, extra);
        for (size_t i = 0; i < c.size(); ++i) width[i] = std::max(width[i], c[i].size());
      }
      out.add(aligned_line(header, width, markdown, extra));
      if (markdown) {
        std::vector<std::string> rule;
        for (size_t w : width) rule.push_back(std::string(w, '-'));
        out.add(aligned_line(rule, width, markdown, extra));
      }
      for (const Row& row : rows) out.add(aligned_line(cells(row, extra), width, markdown, extra));
    } else {
      out.add(separated_line(header, separator));
      for (const Row& row : rows) out.add(separated_line(cells(row, extra), separator));
    }
  } else if (options.format == "json") {
    out.add("[");
    bool first = true;
    for_each_row(true, [&](const Row& row) {
      out.add(first ? "\n" : ",\n");
      first = false;
      out.add(json_item(row, debug).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    });
    out.add(first ? "]\n" : "\n]\n");
  } else if (aligned) {
    std::vector<size_t> width(header.size(), markdown ? 3 : 0);
    for (size_t i = 0; i < header.size(); ++i) width[i] = std::max(width[i], header[i].size());
    auto widen = [&](std::vector<size_t>& w, const Row& row) {
      for_each_cell(row, extra, [&](size_t i, std::string_view text) { w[i] = std::max(w[i], text.size()); });
    };
    if (options.top > 0) {
      for_each_row(true, [&](const Row& row) { widen(width, row); });
    } else {
      in_parallel(0, grouped->block_count(), [&](Worker& worker, size_t b0, size_t b1) {
        worker.width.assign(width.size(), 0);
        for (size_t b = b0; b < b1; ++b) block_rows(worker, b, true, [&](const Row& row) { widen(worker.width, row); });
      });
      for (const Worker& worker : workers) {
        for (size_t i = 0; i < worker.width.size(); ++i) width[i] = std::max(width[i], worker.width[i]);
      }
    }
    out.add(aligned_line(header, width, markdown, extra));
    if (markdown) {
      std::vector<std::string> rule;
      for (size_t w : width) rule.push_back(std::string(w, '-'));
      out.add(aligned_line(rule, width, markdown, extra));
    }
    const size_t last = header.size() - 1;
    auto format_line = [&](std::string& text, const Row& row) {
      if (markdown) text += "| ";
      for_each_cell(row, extra, [&](size_t i, std::string_view cell) {
        append_aligned_cell(text, i, cell, width[i], i == last, markdown, extra);
      });
      if (markdown) text += " |";
      else while (!text.empty() && text.back() == ' ') text.pop_back();
      text += '\n';
    };
    write_rows(false, format_line);
  } else {
    out.add(separated_line(header, separator));
    auto format_line = [&](std::string& text, const Row& row) {
      for_each_cell(row, extra, [&](size_t i, std::string_view cell) {
        if (i) text += separator;
        append_separated_cell(text, cell, separator);
      });
      text += '\n';
    };
    write_rows(true, format_line);
  }
  out.flush();
  size_t unmatched = 0;
  for (const Worker& worker : workers) unmatched += worker.unmatched;
  if (unmatched > 0) {
    diagnostics.warning(std::to_string(unmatched) + " event(s) with an instruction id have no graph node in " +
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
  command->add_option("--block", options->block, "Only event blocks with this name");
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
  command->add_option("--format", options->format, "text, csv, tsv, json or markdown")
      ->check(CLI::IsMember({"text", "csv", "tsv", "json", "markdown"}));
  command->callback([options, &context] { context.exit_code = run_table(*options); });
}

}  // namespace etkit::cli
