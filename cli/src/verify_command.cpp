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
  std::string etdump;
  std::string debug_level = "none";
  std::string debug_buffer;
  std::vector<std::string> data;
};

int run_verify(const VerifyCliOptions& options) {
  Diagnostics diagnostics;
  auto fail = [&](const Error& error) {
    diagnostics.error(error.message());
    return kExitBadInput;
  };
  auto loaded = load_program(options.bundle, options.data);
  if (!loaded.ok()) return fail(loaded.error());
  if (!(*loaded)->bundle) {
    return fail(Error::make(ErrorCode::kInvalidArgument, "%s: not a bundled program (.bpte)",
                            options.bundle.c_str()));
  }
  MethodOptions method_options = method_options_for(**loaded);
  std::unique_ptr<etdump::ETDumpGen> tracer;
  std::FILE* debug_file = nullptr;
  if (!options.etdump.empty()) {
    auto level = etdump::parse_debug_level(options.debug_level);
    if (!level.ok()) return fail(level.error());
    etdump::ETDumpGenOptions gen_options;
    gen_options.debug_level = *level;
    if (*level != etdump::DebugLevel::kNone) {
      if (options.debug_buffer.empty()) {
        return fail(Error::make(ErrorCode::kInvalidArgument, "--debug-level %s needs --debug-buffer FILE",
                                options.debug_level.c_str()));
      }
      debug_file = std::fopen(options.debug_buffer.c_str(), "wb");
      if (debug_file == nullptr) {
        return fail(Error::make(ErrorCode::kIo, "%s: cannot create", options.debug_buffer.c_str()));
      }
      gen_options.debug_file = debug_file;
    }
    size_t cases = 0;
    for (const auto& suite : (*loaded)->bundle->suites()) cases += suite.cases.size();
    gen_options.event_capacity = (cases + 4) * 4096;
    gen_options.block_capacity = cases + 16;
    tracer = std::make_unique<etdump::ETDumpGen>(gen_options);
    method_options.tracer = tracer.get();
  } else if (options.debug_level != "none" || !options.debug_buffer.empty()) {
    return fail(Error::make(ErrorCode::kInvalidArgument, "--debug-level and --debug-buffer need --etdump"));
  }
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
  if (debug_file != nullptr) std::fclose(debug_file);
  if (!report.ok()) return fail(report.error());
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
  if (tracer) {
    Status written = tracer->write(options.etdump);
    if (!written.ok()) return fail(written.error());
  }
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
  command->add_option("--etdump", options->etdump, "Trace every case (one block per case)");
  command->add_option("--debug-level", options->debug_level, "none, outputs or intermediates")
      ->check(CLI::IsMember({"none", "outputs", "intermediates"}));
  command->add_option("--debug-buffer", options->debug_buffer, "File for logged tensor data");
  command->add_option("--data", options->data, "External constant files (.ptd)");
  command->callback([options, &context] { context.exit_code = run_verify(*options); });
}

}  // namespace etkit::cli
