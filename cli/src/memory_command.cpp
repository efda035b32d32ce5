// etinspect memory FILE: how a program's methods use their planned memory
// (lifetimes, peaks, the size a best-fit re-plan reaches, planning errors),
// or the allocations a trace recorded. The analysis is the inspector's
// (memory_plan.h); this file loads and prints.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/core/file_data.h"
#include "etkit/core/file_kind.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/memory_plan.h"
#include "option_checks.h"
#include "etkit/report/printer.h"
#include "program_loading.h"

namespace etkit::cli {

using report::Cell;

namespace {

struct MemoryOptions {
  std::string file;
  std::string method;  ///< empty: every method
  size_t top = 0;      ///< 0: every tensor
  bool json = false;
};

Cell optional_step(const std::optional<size_t>& step) { return step ? Cell::of(int64_t(*step)) : Cell::empty(); }

void print_method(report::Printer& out, const inspector::MethodMemory& memory, size_t top) {
  out.begin_object("");
  out.field("name", memory.name);
  out.field("instructions", uint64_t(memory.instructions));
  std::vector<std::vector<Cell>> arenas;
  for (const inspector::ArenaUse& a : memory.arenas) {
    arenas.push_back({Cell::of(int64_t(a.id)), Cell::of(int64_t(a.size)), Cell::of(int64_t(a.peak_live_bytes)),
                      Cell::of(int64_t(a.peak_step)), Cell::of(a.utilization), Cell::of(int64_t(a.best_fit_bytes))});
  }
  out.table("arenas", {{"id"}, {"size"}, {"peak_live_bytes"}, {"peak_step"}, {"utilization", 3}, {"best_fit_bytes"}},
            arenas);
  // Largest first: the tensors worth looking at.
  std::vector<const inspector::TensorLifetime*> tensors;
  for (const auto& t : memory.tensors) tensors.push_back(&t);
  std::stable_sort(tensors.begin(), tensors.end(),
                   [](const auto* a, const auto* b) { return a->planned.bytes > b->planned.bytes; });
  if (top > 0 && tensors.size() > top) tensors.resize(top);
  std::vector<std::vector<Cell>> rows;
  for (const inspector::TensorLifetime* t : tensors) {
    std::string consumers;
    for (const std::string& c : t->consumers) consumers += (consumers.empty() ? "" : " ") + c;
    rows.push_back({Cell::of(int64_t(t->planned.value)), Cell::of(int64_t(t->planned.arena)),
                    Cell::of(int64_t(t->planned.offset)), Cell::of(int64_t(t->planned.bytes)), optional_step(t->first),
                    optional_step(t->last), Cell::of(to_string(t->planned.tensor.scalar_type)), Cell::of(std::vector<int64_t>(t->planned.tensor.sizes.begin(), t->planned.tensor.sizes.end())),
                    t->producer ? Cell::of(*t->producer) : Cell::empty(), Cell::of(consumers),
                    Cell::of(t->planned.initial_state ? "mutable buffer" : "")});
  }
  out.table("tensors", {{"value"}, {"arena"}, {"offset"}, {"bytes"}, {"first"}, {"last"}, {"dtype"}, {"sizes"},
                        {"producer"}, {"consumers"}, {"state"}},
            rows);
  out.string_list("errors", memory.errors);
  out.end_object();
}

int program_memory(const MemoryOptions& options, Diagnostics& diagnostics) {
  auto loaded = load_program(options.file, {});
  if (!loaded.ok()) return diagnostics.fail(loaded.error());
  const ProgramSummary summary = summarize(*(*loaded)->program);
  std::vector<std::string> names;
  std::vector<inspector::MethodMemory> methods;
  for (const MethodSummary& method : summary.methods) {
    names.push_back(method.name);
    if (options.method.empty() || method.name == options.method) methods.push_back(inspector::analyze_memory(method));
  }
  if (methods.empty()) return diagnostics.fail(unknown_name("--method", options.method, "method in " + options.file, names));
  auto out = options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout);
  out->begin_object("");
  out->field("program", options.file);
  out->begin_list("methods");
  size_t errors = 0;
  for (const auto& memory : methods) {
    print_method(*out, memory, options.top);
    errors += memory.errors.size();
  }
  out->end_list();
  out->end_object();
  out->finish();
  if (errors > 0) {
    return diagnostics.check_failed(options.file + ": " + std::to_string(errors) + " planning error(s)");
  }
  return kExitOk;
}

// Allocation events of a trace, per allocator, for the load block and the runs.
int trace_memory(const MemoryOptions& options, Diagnostics& diagnostics) {
  auto trace = etdump::ETDump::load_file(options.file);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  struct Totals {
    uint64_t total = 0, count = 0, largest = 0;
  };
  std::map<std::pair<std::string, std::string>, Totals> totals;  // (phase, allocator)
  for (size_t b = 0; b < trace->block_count(); ++b) {
    const etdump::RunBlock block = trace->block(b);
    const std::string phase = block.name() == "Default" ? "load" : "runs";
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind != etdump::EventKind::kAllocation) continue;
      const size_t id = size_t(std::max(event.allocation.allocator_id, 0));
      const std::string allocator =
          id < block.allocator_count() ? std::string(block.allocator_name(id)) : "allocator " + std::to_string(id);
      Totals& t = totals[{phase, allocator}];
      t.total += event.allocation.allocation_size;
      ++t.count;
      t.largest = std::max(t.largest, event.allocation.allocation_size);
    }
  }
  if (totals.empty()) {
    return diagnostics.fail(Error::make(ErrorCode::kNotFound,
                                        "%s has no allocation events (record them with etinspect run "
                                        "--trace-allocations)",
                                        options.file.c_str()));
  }
  std::vector<std::vector<Cell>> rows;
  for (const auto& [key, t] : totals) {
    rows.push_back({Cell::of(key.first), Cell::of(key.second), Cell::of(int64_t(t.total)), Cell::of(int64_t(t.count)),
                    Cell::of(int64_t(t.largest))});
  }
  auto out = options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout);
  out->begin_object("");
  out->field("trace", options.file);
  out->table("allocators", {{"phase"}, {"allocator"}, {"total"}, {"count"}, {"largest"}}, rows);
  out->end_object();
  out->finish();
  return kExitOk;
}

int run_memory(const MemoryOptions& options) {
  Diagnostics diagnostics;
  auto file = FileData::load(options.file);
  if (!file.ok()) return diagnostics.fail(file.error());
  if (detect_file_kind((*file)->bytes()) == FileKind::kETDump) return trace_memory(options, diagnostics);
  return program_memory(options, diagnostics);
}

}  // namespace

void register_memory(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<MemoryOptions>();
  CLI::App* command =
      app.add_subcommand("memory", "Planned memory of a program (lifetimes, peaks, best-fit size) or a trace's allocations");
  command->add_option("file", options->file, ".pte, .bpte or .etdp")->required();
  command->add_option("--method", options->method, "Only this method (default: all)");
  command->add_option("--top", options->top, "Only the N largest tensors")->check(whole_number(1));
  command->add_flag("--json", options->json, "Machine-readable output");
  command->callback([options, &context] { context.exit_code = run_memory(*options); });
}

}  // namespace etkit::cli
