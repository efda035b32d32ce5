#pragma once
// What `etinspect size` reports: a file's byte breakdown (file_size.h) and,
// when asked, its largest leaves; printed as text or JSON by one function.

#include <cstddef>
#include <string>
#include <vector>

#include "etkit/inspector/file_size.h"
#include "etkit/report/printer.h"

namespace etkit::inspector {

struct SizeReport {
  std::string file;
  SizePart root;                ///< named after the file; its parts are printed
  size_t text_levels = 4;       ///< levels of the tree the text shows (JSON: all)
  std::vector<SizeLeaf> largest;  ///< empty unless asked for
};

/// `top` > 0 also lists that many of the largest leaves.
SizeReport size_report(std::string file, SizePart root, size_t text_levels, size_t top);

/// Text: the file, its size and the tree as a table (bytes, share of the
/// file, part indented by level, "<- op" for linked constants), then the
/// largest leaves. JSON: {file, file_bytes, parts: [{bytes, name, detail?,
/// parts}], largest?: [{path, bytes, detail?}]}.
void print(report::Printer& out, const SizeReport& size);

}  // namespace etkit::inspector
