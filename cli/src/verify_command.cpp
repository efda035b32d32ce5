// etinspect verify BUNDLE.bpte: run every bundled test case and compare
// outputs; exit 0 when all pass, 1 when any fails, 2 when the bundle cannot
// be read or run.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "etkit/core/atomic_file.h"
#include "diagnostics.h"
#include "option_checks.h"
#include "etkit/bundled/verify.h"
#include "etkit/etdump/etdump_gen.h"
#include "device_target.h"
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
  int threads = 1;
  DeviceOptions device;
};

// Writes a report file, with the system's reason when it cannot.
template <typename Writer>
Status write_report(const std::string& path, Writer writer) {
  std::ostringstream out;
  writer(out);
  const std::string text = out.str();
  return write_file_atomically(path, ByteSpan{reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

// The verification itself; fails when it cannot run (reports are the
// caller's).
Result<bundled::VerifyReport> verify(const VerifyCliOptions& options, Tracing& tracing) {
  ETKIT_ASSIGN_OR_RETURN(std::unique_ptr<LoadedProgram> loaded, load_program(options.bundle, options.data));
  if (!loaded->bundle) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: not a bundled program (.bpte)", options.bundle.c_str());
  }
  MethodOptions method_options = method_options_for(*loaded, options.threads);
  size_t cases = 0;
  for (const auto& suite : loaded->bundle->suites()) cases += suite.cases.size();
  ETKIT_TRY(setup_tracing(options.tracing, (cases + 4) * 4096, cases + 16, tracing));
  method_options.tracer = tracing.gen.get();
  bundled::VerifyOptions verify_options;
  verify_options.rtol = options.rtol;
  verify_options.atol = options.atol;
  verify_options.method = options.method;
  verify_options.case_index = options.case_index;
  if (use_colour(2)) {
    verify_options.progress = [](size_t done, size_t total) {
      if (total >= 20) fmt::print(stderr, "\rverifying {}/{}", done, total);
      if (total >= 20 && done == total) fmt::print(stderr, "\r\033[K");
    };
  }
  return bundled::verify(*loaded->bundle, *loaded->program, method_options, verify_options);
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

// The same verification inside a device. The bundle is read on the host
// first, so one that cannot be read is reported exactly as on the host.
Result<bundled::VerifyReport> verify_on_device(const VerifyCliOptions& options, Diagnostics& diagnostics) {
  ETKIT_ASSIGN_OR_RETURN(std::unique_ptr<LoadedProgram> loaded, load_program(options.bundle, options.data));
  if (!loaded->bundle) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: not a bundled program (.bpte)", options.bundle.c_str());
  }
  Tracing checked;  // the trace options are checked as on the host
  ETKIT_TRY(setup_tracing(options.tracing, 1, 1, checked));
  DeviceJob job;
  job.command = "verify";
  job.file = options.bundle;
  job.data = options.data;
  job.etdump = options.tracing.etdump;
  job.debug_buffer = options.tracing.debug_buffer;
  job.arguments = {"--rtol", number_text(options.rtol), "--atol", number_text(options.atol)};
  if (!options.method.empty()) job.arguments.insert(job.arguments.end(), {"--method", options.method});
  if (options.case_index >= 0) job.arguments.insert(job.arguments.end(), {"--case", std::to_string(options.case_index)});
  append_trace_arguments(options.tracing, job.arguments);
  ETKIT_ASSIGN_OR_RETURN(bundled::DeviceReport report, run_on_device(options.device, job));
  if (report.failed) return Error::make(report.error_code, "%s", report.error_message.c_str());
  if (report.traced) {
    for (const std::string& warning : trace_warnings(options.tracing, trace_stats(report.trace))) {
      diagnostics.warning(warning);
    }
  }
  report.verify.ran_on = options.device.target;
  return std::move(report.verify);
}

int run_verify(const VerifyCliOptions& options) {
  Diagnostics diagnostics;
  Tracing tracing;
  auto report = options.device.target.empty() ? verify(options, tracing) : verify_on_device(options, diagnostics);
  Status json = Ok{}, junit = Ok{};
  if (!report.ok()) {
    // CI reads the reports: they say why nothing was verified.
    const std::string message = report.error().message();
    if (!options.json.empty()) {
      json = write_report(options.json, [&](std::ostream& out) {
        write_verify_error_json(out, options.bundle, message, options.rtol, options.atol);
      });
    }
    if (!options.junit.empty()) {
      junit = write_report(options.junit, [&](std::ostream& out) { write_verify_error_junit(out, options.bundle, message); });
    }
    if (!json.ok()) diagnostics.error(json.error().message());
    if (!junit.ok()) diagnostics.error(junit.error().message());
    return diagnostics.fail(report.error());
  }
  write_verify_text(std::cout, options.bundle, *report, use_colour(1));
  if (!options.json.empty()) {
    json = write_report(options.json, [&](std::ostream& out) { write_verify_json(out, options.bundle, *report); });
  }
  if (!options.junit.empty()) {
    junit = write_report(options.junit, [&](std::ostream& out) { write_verify_junit(out, options.bundle, *report); });
  }
  if (!json.ok()) return diagnostics.fail(json.error());
  if (!junit.ok()) return diagnostics.fail(junit.error());
  Status written = tracing.finish(options.tracing.etdump);
  if (!written.ok()) return diagnostics.fail(written.error());
  if (tracing.gen) {
    for (const std::string& warning : trace_warnings(options.tracing, tracing.gen->stats())) {
      diagnostics.warning(warning);
    }
  }
  // A case that could not run is an error on stderr too; when none ran,
  // nothing was checked: bad input for this program (exit 2), as an
  // unreadable bundle is.
  for (const bundled::CaseReport& c : report->cases) {
    if (!c.error.empty()) diagnostics.error(options.bundle + ": " + c.method + " case " + std::to_string(c.case_index) + ": " + c.error);
  }
  if (report->errors > 0 && report->errors == report->cases.size()) return kExitBadInput;
  return report->failed == 0 && report->errors == 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace

void register_verify(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<VerifyCliOptions>();
  CLI::App* command = app.add_subcommand("verify", "Run a bundled program's test cases and compare outputs");
  command->add_option("bundle", options->bundle, ".bpte file")->required();
  command->add_option("--rtol", options->rtol, "Relative tolerance (default 1e-5)")->check(non_negative_number());
  command->add_option("--atol", options->atol, "Absolute tolerance (default 1e-8)")->check(non_negative_number());
  command->add_option("--method", options->method, "Only this method's test suite");
  command->add_option("--case", options->case_index, "Only test case N")->check(whole_number(0));
  command->add_option("--junit", options->junit, "Also write a JUnit XML report")->check(writable_path());
  command->add_option("--json", options->json, "Also write a JSON report")->check(writable_path());
  add_tracing_options(*command, options->tracing);
  command->add_option("--data", options->data, "External constant files (.ptd)");
  add_threads_option(*command, options->threads);
  add_device_options(*command, options->device);
  command->callback([options, &context] { context.exit_code = run_verify(*options); });
}

}  // namespace etkit::cli
