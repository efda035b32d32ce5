// etinspect trace ETDUMP -o trace.json: the trace in Chrome's Trace Event
// Format (Perfetto, chrome://tracing): complete events nested by time, one
// track per run block or all runs on one track.

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "commands.h"
#include "etkit/core/atomic_file.h"
#include "diagnostics.h"
#include "reversed_events.h"
#include "record_loading.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/chrome_trace.h"
#include "etkit/report/printer.h"
#include "option_checks.h"
#include "etkit/session/loaded_program.h"

namespace etkit::cli {
namespace {

struct TraceOptions {
  std::string etdump;
  std::string output;
  std::string layout = "blocks";
  std::string source_unit = "ns";
  std::string program;
  std::string method = "forward";
  std::string etrecord;
  bool allow_unlinked = false;
  bool json = false;
};

// What was written, so a script need not parse the file to know it holds
// the events it expected.
void print_written(const TraceOptions& options, const inspector::ChromeTrace& written) {
  auto out = options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout);
  out->begin_object("");
  out->field("etdump", options.etdump);
  out->field("output", options.output);
  out->field("layout", options.layout);
  out->field("events", uint64_t(written.events));
  out->field("tracks", uint64_t(written.tracks));
  out->field("run_blocks", uint64_t(written.blocks));
  out->field("bytes", uint64_t(written.json.size()));
  out->end_object();
  out->finish();
}

int run_trace(const TraceOptions& options) {
  Diagnostics diagnostics;
  inspector::ChromeTraceOptions chrome;
  auto unit = inspector::parse_time_unit(options.source_unit);
  if (!unit.ok()) return diagnostics.fail(unit.error());
  chrome.source = *unit;
  chrome.track_per_block = options.layout == "blocks";
  chrome.method = options.method;
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  warn_reversed_events(diagnostics, options.etdump, *trace);
  std::optional<MethodSummary> method;
  if (!options.program.empty()) {
    auto loaded = session::load_program(options.program, {});
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    std::vector<std::string> names;
    for (MethodSummary& m : summarize(*(*loaded)->program).methods) {
      names.push_back(m.name);
      if (m.name == options.method) method = std::move(m);
    }
    if (!method) return diagnostics.fail(unknown_name("--method", options.method, "method in " + options.program, names));
    chrome.program_method = &*method;
  }
  std::optional<etrecord::Etrecord> record;
  if (!options.etrecord.empty()) {
    auto loaded = load_etrecord(options.etrecord, options.method, diagnostics);
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    auto grouped = inspector::GroupedEvents::build(*trace);
    if (!grouped.ok()) return diagnostics.fail(grouped.error());
    Status fits = check_record_fits(*grouped, *loaded, options.etrecord, options.method, options.allow_unlinked,
                                    diagnostics);
    if (!fits.ok()) return diagnostics.fail(fits.error());
    record.emplace(std::move(*loaded));
    chrome.record = &*record;
  }
  const inspector::ChromeTrace chrome_trace = inspector::chrome_trace(*trace, chrome);
  const std::string& json = chrome_trace.json;
  Status written = write_file_atomically(
      options.output, ByteSpan{reinterpret_cast<const uint8_t*>(json.data()), json.size()});
  if (!written.ok()) return diagnostics.fail(written.error());
  print_written(options, chrome_trace);
  return kExitOk;
}

}  // namespace

void register_trace(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<TraceOptions>();
  CLI::App* command = app.add_subcommand("trace", "Export a trace in Chrome Trace Event Format (Perfetto)");
  command->add_option("etdump", options->etdump, ".etdp trace")->required();
  command->add_option("-o,--output", options->output, "Output .json")->required()->check(writable_path());
  command->add_option("--layout", options->layout, "blocks (a track per run block) or sequence (one track)")
      ->check(CLI::IsMember({"blocks", "sequence"}));
  command->add_option("--source-time-unit", options->source_unit, "Unit of the trace's timestamps (default ns)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(inspector::kTimeUnitNames),
                                                     std::end(inspector::kTimeUnitNames))));
  command->add_option("--program", options->program, "The traced program, for op and backend names");
  command->add_option("--method", options->method, "The traced method (default forward)");
  command->add_option("--etrecord", options->etrecord, "ETRecord: debug handles, op types, module and source line");
  add_allow_unlinked(*command, options->allow_unlinked);
  command->add_flag("--json", options->json, "What was written (events, tracks, bytes) as JSON");
  command->callback([options, &context] { context.exit_code = run_trace(*options); });
}

}  // namespace etkit::cli
