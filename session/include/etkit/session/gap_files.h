#pragma once
// A numeric gap from files, as `etinspect gap`, the GUI's gap view and
// Python's calculate_numeric_gap all ask for it: the compared trace's
// intermediate outputs (delegates' values decoded with its program), a
// reference (a folder of .npy, a second trace matched by instruction, or,
// with the reference's ETRecord, a trace of another export matched by
// graph node), and the inspector's numeric_gap over them.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/gap_report.h"
#include "etkit/inspector/numeric_gap.h"

namespace etkit::session {

/// The files; empty strings are absent. Messages name them by the CLI's
/// options (the GUI takes the same ones).
struct GapFiles {
  std::string etdump;
  std::string debug_buffer;
  std::optional<size_t> run_block;  ///< default: the first block with intermediate outputs
  std::string program;              ///< names ops without an ETRecord; decodes delegates' values
  std::string etrecord;
  std::string reference;            ///< a folder of .npy or a second .etdp
  std::string reference_debug_buffer;
  std::string reference_program;
  std::string reference_etrecord;   ///< match by graph node name (needs `etrecord`)
  /// The hint when the trace holds no intermediate outputs, in the
  /// caller's terms (how to record them).
  std::string how_to_record =
      "record them with etinspect run --debug-level intermediates --debug-buffer FILE";
};

/// The gap and what its rows point into, kept together.
struct GapComparison {
  std::vector<inspector::RecordedOutput> outputs;
  std::vector<inspector::RecordedOutput> reference_outputs;  ///< of a reference trace
  std::optional<etrecord::Etrecord> record;
  std::optional<etrecord::Etrecord> reference_record;
  std::unique_ptr<inspector::ReferenceSource> reference;
  inspector::GapReport report;
};

/// Reads the files and compares. `options.method` is the method compared;
/// its instruction_ops are filled from the program. Warnings (the records',
/// delegate decoding's) are appended to `warnings`.
Result<std::unique_ptr<GapComparison>> compare_gap_files(const GapFiles& files, inspector::GapOptions options,
                                                         std::vector<std::string>& warnings);

}  // namespace etkit::session
