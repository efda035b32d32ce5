// etinspect memory FILE: how a program's methods use their planned memory
// (lifetimes, peaks, the size a best-fit re-plan reaches, planning errors),
// or the allocations a trace recorded. The analysis and its report are the
// inspector's (memory_plan.h, memory_report.h), made from the file by
// session/file_reports.h; this file prints.

#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/report/printer.h"
#include "etkit/session/file_reports.h"
#include "option_checks.h"

namespace etkit::cli {

namespace {

struct MemoryOptions {
  std::string file;
  std::string method;  ///< empty: every method
  size_t top = 0;      ///< 0: every tensor
  bool json = false;
};

int program_memory(const MemoryOptions& options, Diagnostics& diagnostics) {
  auto memory = session::program_memory(options.file, options.method, options.top);
  if (!memory.ok()) return diagnostics.fail(memory.error());
  size_t errors = 0;
  for (const auto& method : memory->methods) errors += method.errors.size();
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)), *memory);
  if (errors > 0) {
    return diagnostics.check_failed(options.file + ": " + std::to_string(errors) + " planning error(s)");
  }
  return kExitOk;
}

// Allocation events of a trace, per allocator, for the load block and the runs.
int trace_memory(const MemoryOptions& options, Diagnostics& diagnostics) {
  auto allocations = session::trace_memory(options.file);
  if (!allocations.ok()) return diagnostics.fail(allocations.error());
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)), *allocations);
  return kExitOk;
}

int run_memory(const MemoryOptions& options) {
  Diagnostics diagnostics;
  auto kind = session::kind_of_file(options.file);
  if (!kind.ok()) return diagnostics.fail(kind.error());
  if (*kind == FileKind::kETDump) return trace_memory(options, diagnostics);
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
