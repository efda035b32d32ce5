// etinspect memory FILE: how a program's methods use their planned memory
// (lifetimes, peaks, the size a best-fit re-plan reaches, planning errors),
// or the allocations a trace recorded. The analysis and its report are the
// inspector's (memory_plan.h, memory_report.h); this file loads and prints.

#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/core/file_data.h"
#include "etkit/core/file_kind.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/memory_plan.h"
#include "etkit/inspector/memory_report.h"
#include "option_checks.h"
#include "etkit/report/printer.h"
#include "program_loading.h"

namespace etkit::cli {

namespace {

struct MemoryOptions {
  std::string file;
  std::string method;  ///< empty: every method
  size_t top = 0;      ///< 0: every tensor
  bool json = false;
};

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
  size_t errors = 0;
  for (const auto& memory : methods) errors += memory.errors.size();
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)),
        inspector::ProgramMemoryReport{options.file, std::move(methods), options.top});
  if (errors > 0) {
    return diagnostics.check_failed(options.file + ": " + std::to_string(errors) + " planning error(s)");
  }
  return kExitOk;
}

// Allocation events of a trace, per allocator, for the load block and the runs.
int trace_memory(const MemoryOptions& options, Diagnostics& diagnostics) {
  auto trace = etdump::ETDump::load_file(options.file);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  const inspector::TraceMemoryReport allocations = inspector::trace_allocations(*trace, options.file);
  if (allocations.allocators.empty()) {
    return diagnostics.fail(Error::make(ErrorCode::kNotFound,
                                        "%s has no allocation events (record them with etinspect run "
                                        "--trace-allocations)",
                                        options.file.c_str()));
  }
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)), allocations);
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
