#include "etkit/session/file_reports.h"

#include <memory>
#include <utility>

#include "etkit/core/file_data.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/file_size.h"
#include "etkit/inspector/memory_plan.h"
#include "etkit/inspector/program_diff.h"
#include "etkit/session/loaded_program.h"

namespace etkit::session {

Result<FileKind> kind_of_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto data, FileData::load(path));
  return detect_file_kind(data->bytes());
}

Result<inspector::SizeReport> size_of_file(const std::string& path, const std::string& etrecord, size_t text_levels,
                                           size_t top, std::vector<std::string>& warnings) {
  ETKIT_ASSIGN_OR_RETURN(auto data, FileData::load(path));
  ETKIT_ASSIGN_OR_RETURN(inspector::SizePart root, inspector::file_size_breakdown(data->bytes(), path));
  if (!etrecord.empty()) {
    ETKIT_ASSIGN_OR_RETURN(auto program, load_program(path, {}));
    ETKIT_ASSIGN_OR_RETURN(auto record, etrecord::Etrecord::load_file(etrecord));
    for (const std::string& warning : record.warnings()) warnings.push_back(etrecord + ": " + warning);
    if (inspector::link_constants(root, summarize(*program->program), record) == 0) {
      warnings.push_back(etrecord + ": no constant of " + path + " was linked to a graph node");
    }
  }
  return inspector::size_report(path, std::move(root), text_levels, top);
}

Result<inspector::ProgramMemoryReport> program_memory(const std::string& path, const std::string& method,
                                                      size_t top) {
  ETKIT_ASSIGN_OR_RETURN(auto loaded, load_program(path, {}));
  const ProgramSummary summary = summarize(*loaded->program);
  std::string names;
  std::vector<inspector::MethodMemory> methods;
  for (const MethodSummary& m : summary.methods) {
    names += (names.empty() ? "" : ", ") + m.name;
    if (method.empty() || m.name == method) methods.push_back(inspector::analyze_memory(m));
  }
  if (methods.empty()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s has no method '%s' (its methods: %s)", path.c_str(),
                       method.c_str(), names.empty() ? "none" : names.c_str());
  }
  return inspector::ProgramMemoryReport{path, std::move(methods), top};
}

Result<inspector::TraceMemoryReport> trace_memory(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto trace, etdump::ETDump::load_file(path));
  inspector::TraceMemoryReport allocations = inspector::trace_allocations(trace, path);
  if (allocations.allocators.empty()) {
    return Error::make(ErrorCode::kNotFound,
                       "%s has no allocation events (record them with etinspect run --trace-allocations)",
                       path.c_str());
  }
  return allocations;
}

namespace {

// One program of a diff with what the comparison reads of it.
struct DiffSide {
  std::shared_ptr<const FileData> file;
  ProgramSummary summary;
  inspector::SizePart size;
  std::vector<inspector::ProgramConstant> constants;
};

Result<DiffSide> load_diff_side(const std::string& path) {
  DiffSide side;
  ETKIT_ASSIGN_OR_RETURN(auto loaded, load_program(path, {}));
  side.summary = summarize(*loaded->program);
  ETKIT_ASSIGN_OR_RETURN(side.file, FileData::load(path));
  ETKIT_ASSIGN_OR_RETURN(side.size, inspector::file_size_breakdown(side.file->bytes(), path));
  ETKIT_ASSIGN_OR_RETURN(side.constants, inspector::program_constants(side.file->bytes(), path));
  return side;
}

}  // namespace

Result<inspector::ProgramDiffReport> diff_program_files(const std::string& old_path, const std::string& new_path,
                                                        size_t top) {
  ETKIT_ASSIGN_OR_RETURN(DiffSide old_side, load_diff_side(old_path));
  ETKIT_ASSIGN_OR_RETURN(DiffSide new_side, load_diff_side(new_path));
  inspector::ProgramDiff diff = inspector::diff_programs({&old_side.summary, &old_side.size, &old_side.constants},
                                                         {&new_side.summary, &new_side.size, &new_side.constants});
  return inspector::ProgramDiffReport{old_path, new_path, std::move(diff), top};
}

}  // namespace etkit::session
