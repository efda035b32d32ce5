// etinspect gap ETDUMP --debug-buffer B --reference DIR|ETDUMP2: numeric gap
// per op between the runtime's intermediate outputs and a reference, in
// execution order, with the first divergence called out. The matching and
// the divergence rule are the inspector's (gap_report.h).

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <iostream>
#include <optional>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/inspector/gap_report.h"
#include "etkit/report/printer.h"
#include "etkit/session/gap_files.h"
#include "option_checks.h"

namespace etkit::cli {

namespace {

struct GapCliOptions {
  std::string etdump;
  std::string debug_buffer;
  std::string reference;
  std::string reference_debug_buffer;
  std::string etrecord;
  std::string program;
  std::string reference_etrecord;
  std::string reference_program;
  std::string method = "forward";
  std::optional<size_t> block;
  double atol = 1e-5;
  double rtol = 1e-4;
  double quanta = 0;  ///< > 0: quantized values diverge past this many steps
  bool json = false;
};

int run_gap(const GapCliOptions& options) {
  Diagnostics diagnostics;
  session::GapFiles files;
  files.etdump = options.etdump;
  files.debug_buffer = options.debug_buffer;
  files.run_block = options.block;
  files.program = options.program;
  files.etrecord = options.etrecord;
  files.reference = options.reference;
  files.reference_debug_buffer = options.reference_debug_buffer;
  files.reference_program = options.reference_program;
  files.reference_etrecord = options.reference_etrecord;
  inspector::GapOptions gap_options;
  gap_options.atol = options.atol;
  gap_options.rtol = options.rtol;
  gap_options.quanta = options.quanta;
  gap_options.method = options.method;
  std::vector<std::string> warnings;
  auto compared = session::compare_gap_files(files, gap_options, warnings);
  for (const std::string& warning : warnings) diagnostics.warning(warning);
  if (!compared.ok()) return diagnostics.fail(compared.error());
  const inspector::GapReport* gap = &(*compared)->report;
  print(*(options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout)), *gap,
        gap_options);
  if (gap->missing > 0) diagnostics.warning(std::to_string(gap->missing) + " output(s) had no reference value");
  if (gap->shape_mismatches > 0) {
    diagnostics.warning(std::to_string(gap->shape_mismatches) +
                        " output(s) have another shape than their reference (another layout, or another program's "
                        "value): not compared");
  }
  diagnostics.flush();
  if (!gap->first_divergence) return kExitOk;
  const inspector::GapRow& first = gap->rows[*gap->first_divergence];
  size_t diverged = 0;
  for (const inspector::GapRow& row : gap->rows) diverged += row.status == inspector::GapStatus::kDiverged;
  const std::string bound =
      options.quanta > 0 && first.quantum > 0
          ? fmt::format("= {:.2f} quantization steps of {:g} > --quanta {:g}", first.error_quanta, first.quantum,
                        options.quanta)
          : fmt::format("> atol {:g} + rtol {:g} * max |reference| {:.4g}", options.atol, options.rtol,
                        first.metrics.max_abs_reference);
  return diagnostics.check_failed(fmt::format(
      "{} of {} compared outputs diverged; the first is {} (instruction {}{}): max abs error {:.4g} {}{}", diverged,
      gap->compared, first.op.empty() ? "an output" : first.op, first.instruction_id,
      first.node.empty() ? "" : ", node " + first.node, first.metrics.max_abs, bound,
      first.source.empty() ? "" : ", at " + first.source));
}

}  // namespace

void register_gap(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<GapCliOptions>();
  CLI::App* command = app.add_subcommand("gap", "Numeric gap per op between intermediate outputs and a reference");
  command->add_option("etdump", options->etdump, ".etdp trace recorded with --debug-level intermediates")->required();
  command->add_option("--debug-buffer", options->debug_buffer, "The trace's debug buffer")->required();
  command->add_option("--reference", options->reference,
                      "Folder of .npy (named by debug handle; index.json maps handles to instructions) or a "
                      "second .etdp")
      ->required();
  command->add_option("--reference-debug-buffer", options->reference_debug_buffer,
                      "Debug buffer of a reference trace");
  command->add_option("--etrecord", options->etrecord, "ETRecord: debug handles, op names, source lines");
  command->add_option("--program", options->program,
                      "The traced program: names ops without an ETRecord; dequantizes delegates' int8 values and "
                      "reads their NHWC layout");
  command->add_option("--reference-etrecord", options->reference_etrecord,
                      "ETRecord of the reference trace's program: match ops by graph node name (a quantized "
                      "export against the float one)");
  command->add_option("--reference-program", options->reference_program,
                      "The reference trace's program (for its delegates' values, as --program)");
  command->add_option("--method", options->method, "The traced method (default forward)");
  command->add_option("--run-block", options->block,
                      "Index of the trace's run block whose outputs to compare (default: the first with any)")
      ->check(whole_number(0));
  add_renamed_option(*command, "--block", "--run-block",
                     "an index into the trace's run blocks; --block elsewhere is a block's name");
  command->add_option("--atol", options->atol, "Divergence: max abs error above atol + rtol * max |ref| (1e-5)")
      ->check(non_negative_number());
  command->add_option("--rtol", options->rtol, "See --atol (1e-4)")->check(non_negative_number());
  command->add_option("--quanta", options->quanta,
                      "A dequantized (int8) value diverges past K of its quantization steps, instead of --atol/--rtol")
      ->check(non_negative_number());
  command->add_flag("--json", options->json, "JSON report");
  command->callback([options, &context] { context.exit_code = run_gap(*options); });
}

}  // namespace etkit::cli
