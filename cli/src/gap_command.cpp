// etinspect gap ETDUMP --debug-buffer B --reference DIR|ETDUMP2: numeric gap
// per op between the runtime's intermediate outputs and a reference, in
// execution order, with the first divergence called out. The matching and
// the divergence rule are the inspector's (gap_report.h).

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.h"
#include "diagnostics.h"
#include "etkit/core/program_summary.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/gap_report.h"
#include "etkit/inspector/recorded_outputs_file.h"
#include "option_checks.h"
#include "etkit/report/printer.h"
#include "etkit/session/loaded_program.h"
#include "record_loading.h"

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

// The trace's intermediate outputs: of run block --run-block, or of the first
// block that has any.
Result<std::vector<inspector::RecordedOutput>> outputs_of(const std::string& trace_path, const std::string& buffer_path,
                                                          std::optional<size_t> block, const std::string& program,
                                                          const std::string& method, Diagnostics& diagnostics) {
  std::unique_ptr<session::LoadedProgram> loaded;  // delegates' quantized, NHWC values in the graph's terms
  if (!program.empty()) {
    ETKIT_ASSIGN_OR_RETURN(loaded, session::load_program(program, {}));
  }
  std::vector<std::string> warnings;
  auto outputs = inspector::load_recorded_outputs(trace_path, buffer_path, block, loaded ? &*loaded->program : nullptr,
                                                  program, method, warnings);
  for (const std::string& warning : warnings) diagnostics.warning(warning);
  if (!outputs.ok()) {
    if (block && outputs.error().code() == ErrorCode::kOutOfRange) return outputs.error().with_context("--run-block");
    return outputs.error();
  }
  if (outputs->empty() && block) {
    return Error::make(ErrorCode::kNotFound, "--run-block %zu: run block %zu of %s has no intermediate outputs", *block,
                       *block, trace_path.c_str());
  }
  if (outputs->empty()) {
    return Error::make(ErrorCode::kNotFound,
                       "%s has no intermediate outputs; record them with etinspect run --debug-level "
                       "intermediates --debug-buffer FILE",
                       trace_path.c_str());
  }
  return outputs;
}

// A folder of .npy; a second trace matched by instruction; or, with
// --reference-etrecord, a trace of another export of the model matched by
// graph node name.
Result<std::unique_ptr<inspector::ReferenceSource>> reference_of(const GapCliOptions& options,
                                                                 const std::vector<inspector::RecordedOutput>& compared,
                                                                 const etrecord::Etrecord* record,
                                                                 std::optional<etrecord::Etrecord>& reference_record,
                                                                 Diagnostics& diagnostics) {
  const bool by_node = !options.reference_etrecord.empty();
  if (std::filesystem::is_directory(options.reference)) {
    if (by_node) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "--reference-etrecord matches a second trace by node name; %s is a folder",
                         options.reference.c_str());
    }
    return inspector::folder_reference(options.reference);
  }
  if (options.reference_debug_buffer.empty()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--reference %s is not a folder: as a trace it needs --reference-debug-buffer",
                       options.reference.c_str());
  }
  ETKIT_ASSIGN_OR_RETURN(auto outputs, outputs_of(options.reference, options.reference_debug_buffer, std::nullopt,
                                                  options.reference_program, options.method, diagnostics));
  if (!by_node) return inspector::trace_reference(outputs);
  if (record == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--reference-etrecord matches ops by graph node name: the compared trace needs --etrecord too");
  }
  ETKIT_ASSIGN_OR_RETURN(etrecord::Etrecord loaded, load_etrecord(options.reference_etrecord, options.method,
                                                                   diagnostics));
  reference_record.emplace(std::move(loaded));
  return inspector::graph_reference(outputs, *reference_record, compared, *record, options.method);
}

// The operator of each instruction of chain 0, from --program.
Result<std::vector<std::string>> instruction_ops(const GapCliOptions& options) {
  std::vector<std::string> ops;
  if (options.program.empty()) return ops;
  ETKIT_ASSIGN_OR_RETURN(auto loaded, session::load_program(options.program, {}));
  std::vector<std::string> names;
  for (const MethodSummary& method : summarize(*loaded->program).methods) {
    if (method.name == options.method) return inspector::instruction_ops(method);
    names.push_back(method.name);
  }
  return unknown_name("--method", options.method, "method in " + options.program, names);
}

int run_gap(const GapCliOptions& options) {
  Diagnostics diagnostics;
  auto outputs = outputs_of(options.etdump, options.debug_buffer, options.block, options.program, options.method,
                            diagnostics);
  if (!outputs.ok()) return diagnostics.fail(outputs.error());
  std::optional<etrecord::Etrecord> record;
  if (!options.etrecord.empty()) {
    auto loaded = load_etrecord(options.etrecord, options.method, diagnostics);
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    record.emplace(std::move(*loaded));
  }
  std::optional<etrecord::Etrecord> reference_record;
  auto reference = reference_of(options, *outputs, record ? &*record : nullptr, reference_record, diagnostics);
  if (!reference.ok()) return diagnostics.fail(reference.error());
  inspector::GapOptions gap_options;
  gap_options.atol = options.atol;
  gap_options.rtol = options.rtol;
  gap_options.quanta = options.quanta;
  gap_options.method = options.method;
  auto ops = instruction_ops(options);
  if (!ops.ok()) return diagnostics.fail(ops.error());
  gap_options.instruction_ops = std::move(*ops);
  auto gap = inspector::numeric_gap(*outputs, **reference, record ? &*record : nullptr, gap_options);
  if (!gap.ok()) return diagnostics.fail(gap.error().with_context("%s", options.reference.c_str()));
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
