// etinspect verify BUNDLE.bpte...: run every bundled test case of each
// bundle and compare outputs; exit 0 when all pass, 1 when any fails or
// cannot run, 2 when no case could run at all (no bundle could be read).

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
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
#include "runner_verification.h"
#include "etkit/report/printer.h"
#include "etkit/session/host_verification.h"
#include "etkit/session/loaded_program.h"
#include "etkit/session/verify_report.h"
#include "tracing_options.h"

namespace etkit::cli {
namespace {

using session::BundleVerification;

struct VerifyCliOptions {
  std::vector<std::string> bundles;
  session::VerifyRequest request;  ///< tolerances, case selection, data, threads, tracing
  std::string junit;
  std::string json_file;
  bool json = false;  ///< the JSON report on stdout instead of the text
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

// A progress line on a terminal for bundles of 20 cases or more.
void show_progress(size_t done, size_t total) {
  if (total >= 20) fmt::print(stderr, "\rverifying {}/{}", done, total);
  if (total >= 20 && done == total) fmt::print(stderr, "\r\033[K");
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

// The same verification inside a device. The bundle is read on the host
// first, so one that cannot be read is reported exactly as on the host.
Result<bundled::VerifyReport> verify_on_device(const VerifyCliOptions& options, const std::string& device,
                                               const std::string& bundle, Diagnostics& diagnostics) {
  const session::VerifyRequest& request = options.request;
  // Read on the host first, so a bundle that cannot be read is reported as on the host.
  ETKIT_TRY(session::load_bundle(bundle, request.data));
  session::Tracing checked;  // the trace options are checked as on the host
  ETKIT_TRY(session::setup_tracing(request.tracing, 1, 1, checked));
  DeviceJob job;
  job.command = "verify";
  job.file = bundle;
  job.data = request.data;
  job.etdump = request.tracing.etdump;
  job.debug_buffer = request.tracing.debug_buffer;
  job.arguments = {"--rtol", number_text(request.rtol), "--atol", number_text(request.atol)};
  if (!request.method.empty()) job.arguments.insert(job.arguments.end(), {"--method", request.method});
  if (request.case_index >= 0) job.arguments.insert(job.arguments.end(), {"--case", std::to_string(request.case_index)});
  session::append_trace_arguments(request.tracing, job.arguments);
  ETKIT_ASSIGN_OR_RETURN(bundled::DeviceReport report, run_on_device(options.device, device, job));
  if (report.failed) return Error::make(report.error_code, "%s", report.error_message.c_str());
  if (report.traced) {
    for (const std::string& warning : session::trace_warnings(request.tracing, trace_stats(report.trace))) {
      diagnostics.warning(warning);
    }
  }
  report.verify.ran_on = device;
  return std::move(report.verify);
}

// verify's --json was a file name before it became a flag like every other
// command's: an old call (`verify b.bpte --json out.json`) now passes the
// file as a second bundle; say what changed instead of failing to read it.
Status check_no_report_as_bundle(const VerifyCliOptions& options) {
  for (const std::string& bundle : options.bundles) {
    if (bundle.size() > 5 && bundle.compare(bundle.size() - 5, 5, ".json") == 0) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "'%s' is not a bundle: --json is a flag (the JSON report on stdout, as in every command); "
                         "--json-file FILE writes it to a file",
                         bundle.c_str());
    }
  }
  if (options.bundles.size() > 1 && !options.request.tracing.etdump.empty()) {
    return Error::make(ErrorCode::kInvalidArgument, "--etdump traces one bundle; %zu were given",
                       options.bundles.size());
  }
  if (options.device.targets.size() > 1 && !options.request.tracing.etdump.empty()) {
    return Error::make(ErrorCode::kInvalidArgument, "--etdump traces one device's run; %zu devices were given",
                       options.device.targets.size());
  }
  return Ok{};
}

// Verifies one bundle on one device (empty: the host); its trace is
// written when --etdump asks (one bundle, one device).
BundleVerification verify_bundle(const VerifyCliOptions& options, const std::string& device,
                                 const std::string& bundle, Diagnostics& diagnostics) {
  BundleVerification outcome;
  outcome.file = bundle;
  outcome.rtol = options.request.rtol;
  outcome.atol = options.request.atol;
  outcome.ran_on = device.empty() ? "host" : device;
  std::vector<std::string> warnings;
  auto report = device.empty() ? session::verify_on_host(bundle, options.request, warnings)
                : uses_runner_contract(options.device, device)
                    ? verify_through_runner(options.device, device, bundle, options.request)
                    : verify_on_device(options, device, bundle, diagnostics);
  for (const std::string& warning : warnings) diagnostics.warning(warning);
  if (!report.ok()) {
    outcome.error = report.error().message();
    outcome.exit_code = diagnostics.fail(report.error());
    return outcome;
  }
  // A case that could not run is an error on stderr too.
  for (const bundled::CaseReport& c : report->cases) {
    if (!c.error.empty()) {
      diagnostics.error(bundle + ": " + c.method + " case " + std::to_string(c.case_index) + ": " + c.error);
    }
  }
  outcome.report = std::move(*report);
  return outcome;
}

// One device's verifications of every bundle, and what they said on stderr.
struct DeviceVerifications {
  std::vector<BundleVerification> bundles;
  std::string messages;
};

DeviceVerifications verify_on(const VerifyCliOptions& options, const std::string& device) {
  DeviceVerifications out;
  Diagnostics held(&out.messages);
  for (const std::string& bundle : options.bundles) out.bundles.push_back(verify_bundle(options, device, bundle, held));
  held.flush();
  return out;
}

// A fleet: every device at once (at most --device-jobs), each verifying
// every bundle in turn; one finishing says so on stderr. The results keep
// the order the devices were given in.
std::vector<DeviceVerifications> verify_on_fleet(const VerifyCliOptions& options) {
  const std::vector<std::string>& devices = options.device.targets;
  std::vector<DeviceVerifications> results(devices.size());
  std::atomic<size_t> next{0};
  std::mutex progress;
  const auto work = [&] {
    for (size_t i = next++; i < devices.size(); i = next++) {
      results[i] = verify_on(options, devices[i]);
      const session::VerifyTotals t = session::totals(results[i].bundles);
      const std::lock_guard<std::mutex> lock(progress);
      fmt::print(stderr, "verify: {} done: {} passed, {} failed{} of {} cases\n", devices[i], t.passed, t.failed,
                 t.errors ? fmt::format(", {} could not run", t.errors) : std::string(), t.cases);
    }
  };
  std::vector<std::thread> workers;
  for (size_t w = 0; w < std::min(options.device.jobs, devices.size()); ++w) workers.emplace_back(work);
  for (std::thread& worker : workers) worker.join();
  return results;
}

// Every bundle on every device (the host when none), each bundle's text
// report printed as it comes (a fleet's: device by device, at the end).
std::vector<BundleVerification> verify_all(const VerifyCliOptions& options, Diagnostics& diagnostics) {
  std::vector<BundleVerification> bundles;
  if (options.device.targets.size() > 1) {
    for (DeviceVerifications& device : verify_on_fleet(options)) {
      std::fputs(device.messages.c_str(), stderr);
      for (BundleVerification& b : device.bundles) {
        if (b.report && !options.json) session::write_verify_text(std::cout, b.file, *b.report, use_colour(1));
        bundles.push_back(std::move(b));
      }
    }
    return bundles;
  }
  const std::string device = options.device.on_host() ? std::string() : device_targets(options.device)[0];
  for (const std::string& bundle : options.bundles) {
    bundles.push_back(verify_bundle(options, device, bundle, diagnostics));
    if (bundles.back().report && !options.json) {
      session::write_verify_text(std::cout, bundle, *bundles.back().report, use_colour(1));
    }
  }
  return bundles;
}

int run_verify(const VerifyCliOptions& options) {
  Diagnostics diagnostics;
  if (Status usage = check_no_report_as_bundle(options); !usage.ok()) return diagnostics.fail(usage.error());
  const std::vector<BundleVerification> bundles = verify_all(options, diagnostics);
  const session::VerifyTotals t = session::totals(bundles);
  if (!options.json && bundles.size() > 1) {
    std::cout << fmt::format("all bundles: {} passed, {} failed{} of {} cases in {} bundle{}{}{}\n", t.passed,
                             t.failed, t.errors ? fmt::format(", {} could not run", t.errors) : std::string(), t.cases,
                             options.bundles.size(), options.bundles.size() == 1 ? "" : "s",
                             options.device.targets.size() > 1
                                 ? fmt::format(" on {} devices", options.device.targets.size())
                                 : std::string(),
                             t.unreadable ? fmt::format(" ({} could not be read or run)", t.unreadable) : "");
  }
  if (options.json) print(*report::make_json_printer(std::cout), bundles);
  // Reports are written even when nothing could run: CI then finds a report
  // holding the error instead of a missing file.
  if (!options.json_file.empty()) {
    Status json = write_report(options.json_file, [&](std::ostream& out) { print(*report::make_json_printer(out), bundles); });
    if (!json.ok()) return diagnostics.fail(json.error());
  }
  if (!options.junit.empty()) {
    Status junit = write_report(options.junit, [&](std::ostream& out) { write_verify_junit(out, bundles); });
    if (!junit.ok()) return diagnostics.fail(junit.error());
  }
  // Nothing ran anywhere: bad input, as an unreadable bundle is, or an
  // internal error when that is why (a device's emulator that died).
  size_t ran = 0;
  int worst = kExitBadInput;
  for (const BundleVerification& b : bundles) {
    if (b.report) ran += b.report->cases.size() - b.report->errors;
    worst = std::max(worst, b.exit_code);
  }
  if (ran == 0) return worst;
  if (t.failed == 0 && t.errors == 0) return kExitOk;
  return diagnostics.check_failed(fmt::format("{} of {} cases failed{}{}", t.failed, t.cases,
                                              t.errors ? fmt::format(", {} could not run", t.errors) : std::string(),
                                              (options.bundles.size() > 1
                                                   ? fmt::format(" in {} bundles", options.bundles.size())
                                                   : " in " + bundles[0].file) +
                                                  (options.device.targets.size() > 1
                                                       ? fmt::format(" on {} devices", options.device.targets.size())
                                                       : std::string())));
}

}  // namespace

void register_verify(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<VerifyCliOptions>();
  CLI::App* command = app.add_subcommand("verify", "Run a bundled program's test cases and compare outputs");
  command->add_option("bundles", options->bundles, ".bpte files (each verified in turn)")->required();
  command->add_option("--rtol", options->request.rtol, "Relative tolerance (default 1e-5)")->check(non_negative_number());
  command->add_option("--atol", options->request.atol, "Absolute tolerance (default 1e-8)")->check(non_negative_number());
  command->add_option("--method", options->request.method, "Only this method's test suite");
  command->add_option("--case", options->request.case_index, "Only test case N")->check(whole_number(0));
  command->add_option("--junit", options->junit, "Also write a JUnit XML report")->check(writable_path());
  command->add_flag("--json", options->json, "The JSON report on stdout instead of the text");
  command->add_option("--json-file", options->json_file, "Also write the JSON report to FILE")->check(writable_path());
  add_tracing_options(*command, options->request.tracing);
  command->add_option("--data", options->request.data, "External constant files (.ptd)");
  add_threads_option(*command, options->request.threads);
  add_device_options(*command, options->device, /*fleet=*/true);
  add_runner_option(*command, options->device);
  command->callback([options, &context] {
    if (use_colour(2)) options->request.progress = show_progress;
    context.exit_code = run_verify(*options);
  });
}

}  // namespace etkit::cli
