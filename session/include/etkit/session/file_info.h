#pragma once
// etinspect info's report: what each file is and holds (inspector's
// FileDescription), with what the runtime adds — the operators no etkit
// op set has a kernel for — or, for a file that could not be read, what is
// still known of it and why.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/file_kind.h"
#include "etkit/core/result.h"
#include "etkit/inspector/file_description.h"

namespace etkit::report {
class Printer;
}

namespace etkit::session {

struct FileInfo {
  std::string path;
  std::optional<inspector::FileDescription> description;  ///< empty: `error` says why
  /// Operators the file's methods call that no etkit op set has a kernel
  /// for, each with the upstream library that provides it.
  std::map<std::string, std::string> missing_kernels;
  std::optional<Error> error;
  std::optional<FileKind> kind;  ///< of an unreadable file, when its magic is known
  std::optional<uint64_t> size;  ///< of an unreadable file, when it exists
  std::vector<std::string> warnings;  ///< e.g. events of a trace that end before they start
};

/// Reads `path`, whatever its kind; never fails (a failure is in the result).
FileInfo describe(const std::string& path);

/// {"files": [one object per file: path, kind, size and the kind's
/// sections, or error and error_kind]}; a JSON document is the list itself.
/// Finishes the printer.
void print(report::Printer& out, const std::vector<FileInfo>& files);

}  // namespace etkit::session
