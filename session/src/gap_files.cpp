#include "etkit/session/gap_files.h"

#include <filesystem>

#include "etkit/core/program_summary.h"
#include "etkit/inspector/recorded_outputs_file.h"
#include "etkit/session/loaded_program.h"

namespace etkit::session {
namespace {

// The intermediate outputs of a trace: of `block`, or of the first block
// that has any; delegates' quantized, NHWC values put in the graph's terms
// with the program.
Result<std::vector<inspector::RecordedOutput>> outputs_of(const std::string& trace_path, const std::string& buffer_path,
                                                          std::optional<size_t> block, const std::string& program_path,
                                                          const LoadedProgram* program, const GapFiles& files,
                                                          const std::string& method, std::vector<std::string>& warnings) {
  auto outputs = inspector::load_recorded_outputs(trace_path, buffer_path, block, program ? &*program->program : nullptr,
                                                  program_path, method, warnings);
  if (!outputs.ok()) {
    if (block && outputs.error().code() == ErrorCode::kOutOfRange) return outputs.error().with_context("--run-block");
    return outputs.error();
  }
  if (outputs->empty() && block) {
    return Error::make(ErrorCode::kNotFound, "--run-block %zu: run block %zu of %s has no intermediate outputs", *block,
                       *block, trace_path.c_str());
  }
  if (outputs->empty()) {
    return Error::make(ErrorCode::kNotFound, "%s has no intermediate outputs; %s", trace_path.c_str(),
                       files.how_to_record.c_str());
  }
  return outputs;
}

// The record at `path`, its warnings appended; fails without `method`.
Result<etrecord::Etrecord> record_of(const std::string& path, const std::string& method,
                                     std::vector<std::string>& warnings) {
  ETKIT_ASSIGN_OR_RETURN(etrecord::Etrecord record, etrecord::Etrecord::load_file(path));
  for (const std::string& warning : record.warnings()) warnings.push_back(path + ": " + warning);
  if (record.method(method) == nullptr) {
    std::string names;
    for (const auto& entry : record.methods()) names += (names.empty() ? "" : ", ") + entry.first;
    return Error::make(ErrorCode::kNotFound, "--method '%s' is not a method in %s (it has: %s)", method.c_str(),
                       path.c_str(), names.c_str());
  }
  return record;
}

// A folder of .npy; a second trace matched by instruction; or, with the
// reference's ETRecord, a trace of another export matched by node name.
Status read_reference(const GapFiles& files, const std::string& method, GapComparison& gap,
                      std::vector<std::string>& warnings) {
  const bool by_node = !files.reference_etrecord.empty();
  if (std::filesystem::is_directory(files.reference)) {
    if (by_node) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "--reference-etrecord matches a second trace by node name; %s is a folder",
                         files.reference.c_str());
    }
    ETKIT_ASSIGN_OR_RETURN(gap.reference, inspector::folder_reference(files.reference));
    return Ok{};
  }
  if (files.reference_debug_buffer.empty()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--reference %s is not a folder: as a trace it needs --reference-debug-buffer",
                       files.reference.c_str());
  }
  std::unique_ptr<LoadedProgram> program;
  if (!files.reference_program.empty()) {
    ETKIT_ASSIGN_OR_RETURN(program, load_program(files.reference_program, {}));
  }
  ETKIT_ASSIGN_OR_RETURN(gap.reference_outputs, outputs_of(files.reference, files.reference_debug_buffer, std::nullopt,
                                                           files.reference_program, program.get(), files, method,
                                                           warnings));
  if (!by_node) {
    gap.reference = inspector::trace_reference(gap.reference_outputs);
    return Ok{};
  }
  if (!gap.record) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--reference-etrecord matches ops by graph node name: the compared trace needs --etrecord too");
  }
  ETKIT_ASSIGN_OR_RETURN(etrecord::Etrecord loaded, record_of(files.reference_etrecord, method, warnings));
  gap.reference_record.emplace(std::move(loaded));
  gap.reference = inspector::graph_reference(gap.reference_outputs, *gap.reference_record, gap.outputs, *gap.record,
                                             method);
  return Ok{};
}

// The operator of each instruction of chain 0, from the program.
Result<std::vector<std::string>> instruction_ops(const std::string& path, const LoadedProgram* program,
                                                 const std::string& method) {
  if (program == nullptr) return std::vector<std::string>{};
  std::string names;
  for (const MethodSummary& summary : summarize(*program->program).methods) {
    if (summary.name == method) return inspector::instruction_ops(summary);
    names += (names.empty() ? "" : ", ") + summary.name;
  }
  return Error::make(ErrorCode::kNotFound, "--method '%s' is not a method in %s (it has: %s)", method.c_str(),
                     path.c_str(), names.c_str());
}

}  // namespace

Result<std::unique_ptr<GapComparison>> compare_gap_files(const GapFiles& files, inspector::GapOptions options,
                                                         std::vector<std::string>& warnings) {
  auto gap = std::make_unique<GapComparison>();
  std::unique_ptr<LoadedProgram> program;
  if (!files.program.empty()) {
    ETKIT_ASSIGN_OR_RETURN(program, load_program(files.program, {}));
  }
  ETKIT_ASSIGN_OR_RETURN(options.instruction_ops, instruction_ops(files.program, program.get(), options.method));
  ETKIT_ASSIGN_OR_RETURN(gap->outputs, outputs_of(files.etdump, files.debug_buffer, files.run_block, files.program,
                                                  program.get(), files, options.method, warnings));
  if (!files.etrecord.empty()) {
    ETKIT_ASSIGN_OR_RETURN(etrecord::Etrecord loaded, record_of(files.etrecord, options.method, warnings));
    gap->record.emplace(std::move(loaded));
  }
  ETKIT_TRY(read_reference(files, options.method, *gap, warnings));
  auto report = inspector::numeric_gap(gap->outputs, *gap->reference, gap->record ? &*gap->record : nullptr, options);
  if (!report.ok()) return report.error().with_context("%s", files.reference.c_str());
  gap->report = std::move(*report);
  return gap;
}

}  // namespace etkit::session
