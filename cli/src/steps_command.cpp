// etinspect steps TRACE: the steps of a traced generation (`generate
// --etdump`), each with its phase, the context it ran at and its latency:
// how decode latency grows with the context, and the prefill apart.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/generation_steps.h"
#include "etkit/report/printer.h"

namespace etkit::cli {

using report::Cell;

namespace {

struct StepsOptions {
  std::string etdump;
  bool json = false;
};

void phase_summary(report::Printer& out, const char* key, const std::vector<double>& latencies_ms) {
  out.begin_object(key);
  out.field("steps", uint64_t(latencies_ms.size()));
  if (!latencies_ms.empty()) {
    double total = 0;
    for (double v : latencies_ms) total += v;
    out.field("total_ms", total);
    out.field("median_ms", inspector::percentile(latencies_ms, 50));
    out.field("first_ms", latencies_ms.front());
    out.field("last_ms", latencies_ms.back());
    out.field("steps_per_second", total > 0 ? double(latencies_ms.size()) / total * 1000 : 0.0);
  }
  out.end_object();
}

int run_steps(const StepsOptions& options) {
  Diagnostics diagnostics;
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  const std::vector<inspector::GenerationStepTiming> steps = inspector::generation_steps(*trace);
  if (steps.empty()) {
    return diagnostics.fail(Error::make(ErrorCode::kInvalidArgument,
                                        "%s: no Prefill or Decode runs (trace a generation with `etinspect generate "
                                        "--etdump`)",
                                        options.etdump.c_str()));
  }
  std::vector<std::vector<Cell>> rows;
  std::vector<double> prefill, decode;
  for (const auto& step : steps) {
    const double latency = step.latency() / 1e6;
    (step.decode ? decode : prefill).push_back(latency);
    rows.push_back({Cell::of(int64_t(step.step)), Cell::of(step.decode ? "decode" : "prefill"),
                    Cell::of(step.context), Cell::of(step.start / 1e6), Cell::of(latency)});
  }
  std::unique_ptr<report::Printer> out = options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout);
  out->begin_object("");
  out->field("time_unit", "ms");
  phase_summary(*out, "prefill", prefill);
  phase_summary(*out, "decode", decode);
  out->table("steps", {{"step"}, {"phase"}, {"context"}, {"start_ms", 3}, {"latency_ms", 4}}, rows);
  out->end_object();
  out->finish();
  return kExitOk;
}

}  // namespace

void register_steps(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<StepsOptions>();
  CLI::App* command = app.add_subcommand(
      "steps", "Per-step latency of a traced generation (generate --etdump): prefill and decode, by context length");
  command->add_option("etdump", options->etdump, ".etdp trace of `etinspect generate`")->required();
  command->add_flag("--json", options->json, "JSON instead of the table");
  command->callback([options, &context] { context.exit_code = run_steps(*options); });
}

}  // namespace etkit::cli
