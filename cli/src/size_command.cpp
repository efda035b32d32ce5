// etinspect size FILE: every byte of a .pte, .bpte or .ptd attributed to a
// part (inspector/file_size.h; session/file_reports.h loads the files): a tree whose parts add up to the file.

#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/report/printer.h"
#include "etkit/session/file_reports.h"
#include "option_checks.h"

namespace etkit::cli {
namespace {

struct SizeOptions {
  std::string file;
  int depth = 4;
  size_t top = 0;
  bool json = false;
  std::string etrecord;  ///< names the op, module and source line that read each constant
};

int run_size(const SizeOptions& options) {
  Diagnostics diagnostics;
  std::vector<std::string> warnings;
  auto size = session::size_of_file(options.file, options.etrecord, size_t(options.depth), options.top, warnings);
  for (const std::string& warning : warnings) diagnostics.warning(warning);
  if (!size.ok()) return diagnostics.fail(size.error());
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)), *size);
  return kExitOk;
}

}  // namespace

void register_size(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<SizeOptions>();
  CLI::App* command = app.add_subcommand(
      "size", "What makes a file big: every byte of a .pte, .bpte or .ptd attributed, the parts adding up to the file");
  command->add_option("file", options->file, ".pte, .bpte or .ptd")->required();
  command->add_option("--depth", options->depth, "Levels of the tree to print (default 4; --json has them all)")
      ->check(whole_number(1, 64));
  command->add_option("--top", options->top, "Also list the N largest leaf parts")->check(whole_number(1));
  command->add_option("--etrecord", options->etrecord,
                      "Name the op, module and source line that read each constant (program files)");
  command->add_flag("--json", options->json,
                    "{file, file_bytes, parts: [{bytes, share, name, parts: [...]}]}, each node's parts adding up to it");
  command->callback([options, &context] { context.exit_code = run_size(*options); });
}

}  // namespace etkit::cli
