// etinspect diff-program OLD NEW: what changed between two programs (.pte,
// or the program inside a .bpte) and what it cost (inspector/program_diff.h);
// --fail-above BYTES exits 1 when the new file grew by more, for CI gates.

#include <CLI/CLI.hpp>
#include <limits>
#include <fmt/format.h>

#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/report/printer.h"
#include "etkit/session/file_reports.h"
#include "option_checks.h"

namespace etkit::cli {
namespace {

struct DiffProgramOptions {
  std::string old_path, new_path;
  int64_t fail_above = -1;
  size_t top = 20;
  bool json = false;
};

int run_diff_program(const DiffProgramOptions& options) {
  Diagnostics diagnostics;
  auto diff = session::diff_program_files(options.old_path, options.new_path, options.top);
  if (!diff.ok()) return diagnostics.fail(diff.error());
  const int64_t growth = diff->diff.new_file_bytes - diff->diff.old_file_bytes;
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)), *diff);
  if (options.fail_above >= 0 && growth > options.fail_above) {
    return diagnostics.check_failed(fmt::format("{} grew by {} bytes, more than --fail-above-bytes {}",
                                                options.new_path, growth, options.fail_above));
  }
  return kExitOk;
}

}  // namespace

void register_diff_program(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DiffProgramOptions>();
  CLI::App* command = app.add_subcommand(
      "diff-program", "What changed between two programs (methods, ops, delegation, constants) and the size it cost");
  command->add_option("old", options->old_path, "The old .pte (or .bpte)")->required();
  command->add_option("new", options->new_path, "The new .pte (or .bpte)")->required();
  command->add_option("--fail-above-bytes", options->fail_above, "Exit 1 when the new file is more than BYTES larger")
      ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
  add_renamed_option(*command, "--fail-above", "--fail-above-bytes", "a size in bytes; diff's --fail-above is a percentage");
  command->add_option("--top", options->top, "Operators and constants listed per section (default 20)")
      ->check(whole_number(1));
  command->add_flag("--json", options->json, "Every change as JSON");
  command->callback([options, &context] { context.exit_code = run_diff_program(*options); });
}

}  // namespace etkit::cli
