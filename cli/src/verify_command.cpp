// etinspect verify BUNDLE.bpte: run every bundled test case and compare
// outputs; exit 0 when all pass, 1 when any fails, 2 when the bundle cannot
// be read or run.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/bundled/verify.h"
#include "etkit/etdump/etdump_gen.h"
#include "program_loading.h"
#include "tracing_setup.h"
#include "verify_report.h"

namespace etkit::cli {
namespace {

struct VerifyCliOptions {
  std::string bundle;
  double rtol = 1e-5;
  double atol = 1e-8;
  std::string method;
  int64_t case_index = -1;
  std::string junit;
  std::string json;
  TracingOptions tracing;
  std::vector<std::string> data;
};

int run_verify(const VerifyCliOptions& options) {
  Diagnostics diagnostics;
  auto loaded = load_program(options.bundle, options.data);
  if (!loaded.ok()) return diagnostics.fail(loaded.error());
  if (!(*loaded)->bundle) {
    return diagnostics.fail(Error::make(ErrorCode::kInvalidArgument, "%s: not a bundled program (.bpte)",
                            options.bundle.c_str()));
  }
  MethodOptions method_options = method_options_for(**loaded);
  size_t cases = 0;
  for (const auto& suite : (*loaded)->bundle->suites()) cases += suite.cases.size();
  Tracing tracing;
  Status traced = setup_tracing(options.tracing, (cases + 4) * 4096, cases + 16, tracing);
  if (!traced.ok()) return diagnostics.fail(traced.error());
  method_options.tracer = tracing.gen.get();
  bundled::VerifyOptions verify_options;
  verify_options.rtol = options.rtol;
  verify_options.atol = options.atol;
  verify_options.method = options.method;
  verify_options.case_index = options.case_index;
  const bool terminal = use_colour(2);
  if (terminal) {
    verify_options.progress = [](size_t done, size_t total) {
      if (total >= 20) std::fprintf(stderr, "\rverifying %zu/%zu", done, total);
      if (total >= 20 && done == total) std::fprintf(stderr, "\r\033[K");
    };
  }
  auto report = bundled::verify(*(*loaded)->bundle, *(*loaded)->program, method_options, verify_options);
  if (!report.ok()) return diagnostics.fail(report.error());
  write_verify_text(std::cout, options.bundle, *report, use_colour(1));
  auto write_file = [&](const std::string& path, auto writer) -> bool {
    std::ofstream out(path);
    writer(out);
    if (!out) {
      diagnostics.error(path + ": cannot write");
      return false;
    }
    return true;
  };
  if (!options.json.empty() &&
      !write_file(options.json, [&](std::ostream& out) { write_verify_json(out, options.bundle, *report); })) {
    return kExitBadInput;
  }
  if (!options.junit.empty() &&
      !write_file(options.junit, [&](std::ostream& out) { write_verify_junit(out, options.bundle, *report); })) {
    return kExitBadInput;
  }
  Status written = tracing.finish(options.tracing.etdump);
  if (!written.ok()) return diagnostics.fail(written.error());
  return report->failed == 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace

void register_verify(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<VerifyCliOptions>();
  CLI::App* command = app.add_subcommand("verify", "Run a bundled program's test cases and compare outputs");
  command->add_option("bundle", options->bundle, ".bpte file")->required();
  command->add_option("--rtol", options->rtol, "Relative tolerance (default 1e-5)");
  command->add_option("--atol", options->atol, "Absolute tolerance (default 1e-8)");
  command->add_option("--method", options->method, "Only this method's test suite");
  command->add_option("--case", options->case_index, "Only test case N");
  command->add_option("--junit", options->junit, "Also write a JUnit XML report");
  command->add_option("--json", options->json, "Also write a JSON report");
  add_tracing_options(*command, options->tracing);
  command->add_option("--data", options->data, "External constant files (.ptd)");
  command->callback([options, &context] { context.exit_code = run_verify(*options); });
}

}  // namespace etkit::cli
