// etinspect info FILE...: a summary of any ExecuTorch artifact (the report
// is session/file_info.h's; this file describes and prints).

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/report/printer.h"
#include "etkit/session/file_info.h"

namespace etkit::cli {
namespace {

int run_info(const std::vector<std::string>& paths, bool json) {
  Diagnostics diagnostics;
  std::vector<session::FileInfo> files;
  for (const std::string& path : paths) {
    files.push_back(session::describe(path));
    if (files.back().error) diagnostics.error(files.back().error->message());
    for (const std::string& warning : files.back().warnings) diagnostics.warning(warning);
  }
  print(*(json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)), files);
  diagnostics.flush();
  return diagnostics.error_count() == 0 ? kExitOk : kExitBadInput;
}

}  // namespace

void register_info(CLI::App& app, CommandContext& context) {
  CLI::App* command = app.add_subcommand(
      "info", "Summarize programs, bundles, traces, ETRecords and .ptd files");
  auto paths = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  command->add_option("files", *paths, "Files to describe (kind found by magic bytes)")
      ->required();
  command->add_flag("--json", *json, "Write a JSON array, one object per file");
  command->callback([paths, json, &context] {
    context.exit_code = run_info(*paths, *json);
  });
}

}  // namespace etkit::cli
