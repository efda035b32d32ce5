#pragma once
// The reports of etinspect size, memory and diff-program made from file
// paths: the files loaded, the inspector's analysis run, its report
// returned for a front end to print (etinspect, the Python module).

#include <string>
#include <vector>

#include "etkit/core/file_kind.h"
#include "etkit/core/result.h"
#include "etkit/inspector/memory_report.h"
#include "etkit/inspector/program_diff_report.h"
#include "etkit/inspector/size_report.h"

namespace etkit::session {

/// The kind of the file at `path`, by its magic bytes (memory reads a
/// program's plan or a trace's allocations).
Result<FileKind> kind_of_file(const std::string& path);

/// Every byte of a .pte, .bpte or .ptd attributed. With `etrecord` (may be
/// empty), each constant names the op, module and source line that read
/// it; what the ETRecord could not link is appended to `warnings`.
Result<inspector::SizeReport> size_of_file(const std::string& path, const std::string& etrecord, size_t text_levels,
                                           size_t top, std::vector<std::string>& warnings);

/// The planned memory of a program's methods (`method` only, or all when
/// empty), the `top` largest tensors each (all when 0).
Result<inspector::ProgramMemoryReport> program_memory(const std::string& path, const std::string& method,
                                                      size_t top);

/// The allocation events a trace recorded; fails when it has none.
Result<inspector::TraceMemoryReport> trace_memory(const std::string& path);

/// What changed between two programs and what it cost, `top` operators and
/// constants per section.
Result<inspector::ProgramDiffReport> diff_program_files(const std::string& old_path, const std::string& new_path,
                                                        size_t top);

}  // namespace etkit::session
