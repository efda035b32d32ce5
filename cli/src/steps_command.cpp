// etinspect steps TRACE: the steps of a traced generation (`generate
// --etdump`), each with its phase, the context it ran at and its latency:
// how decode latency grows with the context, and the prefill apart.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/generation_steps.h"
#include "etkit/report/printer.h"

namespace etkit::cli {

namespace {

struct StepsOptions {
  std::string etdump;
  bool json = false;
};

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
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)),
        inspector::StepsReport{steps});
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
