#pragma once
/// @file
/// The numeric gap of a traced run against a reference, op by op in
/// execution order, with the first divergence: the analysis behind
/// `etinspect gap` and the GUI's gap view.
///
/// References come from a folder of .npy files (named by debug handle, as
/// the sample exporter's --references writes them, optionally with an
/// index.json naming each handle's instruction) or from a second trace.
/// An op of the reference that the runtime runs as several instructions
/// (linear -> permute_copy + addmm share one debug handle) is compared where
/// the last of them writes; one instruction that fuses several reference ops
/// (several handles) is compared with the last op's reference.

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/program_summary.h"
#include "etkit/core/result.h"
#include "etkit/inspector/numeric_gap.h"
#include "etkit/report/printer.h"

namespace etkit::etrecord {
class Etrecord;
}

namespace etkit::inspector {

/// A reference tensor's shape and values.
struct ReferenceValue {
  std::vector<int64_t> sizes;
  std::vector<double> values;
  bool nhwc = false;  ///< an NHWC activation of a delegate (compared as NCHW)
};

/// Where reference values come from.
class ReferenceSource {
 public:
  virtual ~ReferenceSource() = default;
  /// The reference of the op with `handles` (debug handles; empty without
  /// an ETRecord) at `instruction_id`; nullopt when there is none, with the
  /// keys looked for appended to `tried`. Fails when a reference exists but
  /// cannot be read.
  virtual Result<std::optional<ReferenceValue>> find(int32_t instruction_id, const std::vector<int64_t>& handles,
                                                     std::string& tried) const = 0;
  /// Debug handles of `instruction_id` the source itself knows (a folder's
  /// index.json); empty when it knows none.
  virtual std::vector<int64_t> handles_of(int32_t instruction_id) const { (void)instruction_id; return {}; }
  /// How many reference values the source holds (0 makes a gap vacuous).
  virtual size_t size() const = 0;
};

/// A folder of <key>.npy files; reads <dir>/index.json when present
/// ({"<handle>": {"instruction_id": N, ...}}). Fails when the folder does
/// not exist or its index is unreadable.
Result<std::unique_ptr<ReferenceSource>> folder_reference(const std::string& dir);
/// The intermediate outputs of a second trace, by instruction id (first
/// output of each instruction).
std::unique_ptr<ReferenceSource> trace_reference(const std::vector<RecordedOutput>& outputs);
/// The intermediate outputs of a trace of another program exported from
/// the same model (the float program as the reference of its quantized
/// export), matched by graph node name: `reference_record` names the
/// reference's ops (instructions and delegate nodes alike), `record` the
/// compared trace's. A fused op holds the result of its last node; a
/// convolution or linear whose following batch norm and activation left no
/// value of their own in `compared_outputs` (folded into it by the
/// compared program's backend) is compared with the reference's value
/// after them.
std::unique_ptr<ReferenceSource> graph_reference(const std::vector<RecordedOutput>& outputs,
                                                 const etrecord::Etrecord& reference_record,
                                                 const std::vector<RecordedOutput>& compared_outputs,
                                                 const etrecord::Etrecord& record, const std::string& method);

/// True when outputs[i] is the value a gap row compares: an instruction's
/// first output, or the last value a delegate logged for one node in a
/// row (a node's final result; the same node's earlier values are the
/// steps that feed it, such as an entry transpose).
bool is_compared_output(const std::vector<RecordedOutput>& outputs, size_t i);

enum class GapStatus {
  kOk,
  kDiverged,
  kShapeMismatch,
  kNoReference,
  kFolded,  ///< an earlier instruction of an op compared at its last one
};
const char* to_string(GapStatus status);

struct GapRow {
  int32_t instruction_id = -1;
  int64_t delegate_debug_id = -1;  ///< a delegate node's value; -1 for an instruction's output
  std::string op;                ///< graph node target with an ETRecord, else the kernel
  std::string node;              ///< graph node name (the last of a fused op's), with an ETRecord
  std::vector<int64_t> handles;  ///< debug handles
  std::vector<int64_t> sizes;
  GapStatus status = GapStatus::kNoReference;
  std::string detail;  ///< what was looked for, the reference's shape, the instruction compared at
  GapMetrics metrics;  ///< set for kOk and kDiverged
  std::string source;  ///< innermost user source line
  /// RMS error over RMS reference (10^(-SNR/20)); NaN when not compared.
  double relative_error = std::numeric_limits<double>::quiet_NaN();
  /// relative_error minus the largest relative error among the op's graph
  /// inputs (through ops without a compared row; graph inputs count 0):
  /// the error this op adds. NaN without an ETRecord graph.
  double error_growth = std::numeric_limits<double>::quiet_NaN();
  /// A dequantized value's quantization step (0 otherwise), and its max
  /// abs error in steps (NaN when not compared or not quantized).
  double quantum = 0;
  double error_quanta = std::numeric_limits<double>::quiet_NaN();
  /// The compared values (NCHW), with GapOptions::keep_values: for callers
  /// that measure the gap their own way (the Python module's comparators).
  std::vector<double> actual_values;
  std::vector<int64_t> actual_sizes;
  std::vector<double> reference_values;
  std::vector<int64_t> reference_sizes;
};

struct GapOptions {
  double atol = 1e-5;  ///< divergence: max abs error > atol + rtol * max |reference|
  double rtol = 1e-4;
  /// When > 0, a quantized value diverges when its max abs error exceeds
  /// this many quantization steps (its scale), instead of atol/rtol: a
  /// quantized program against the float one is judged in its own units.
  double quanta = 0;
  std::string method = "forward";
  /// Operator of each instruction of chain 0 (from the program), naming
  /// rows when there is no ETRecord: value events carry no names.
  std::vector<std::string> instruction_ops;
  /// Keep each compared row's values (GapRow::actual_values, …).
  bool keep_values = false;
};

struct GapReport {
  std::vector<GapRow> rows;  ///< execution order
  std::optional<size_t> first_divergence;  ///< index into rows
  std::optional<size_t> largest_growth;    ///< the row with the largest positive error_growth
  size_t compared = 0;          ///< rows ok or diverged
  size_t missing = 0;           ///< rows without a reference
  size_t shape_mismatches = 0;  ///< rows whose reference has another shape: not compared
};

/// The operator of each instruction of chain 0 of `method`, by instruction
/// index: GapOptions::instruction_ops.
std::vector<std::string> instruction_ops(const MethodSummary& method);

/// Compares the first output of every recorded instruction with its
/// reference. `record` (may be null) gives debug handles, op names and
/// source lines. Fails when a reference cannot be read, or when nothing
/// at all could be compared (a gap over no outputs proves nothing).
Result<GapReport> numeric_gap(const std::vector<RecordedOutput>& outputs, const ReferenceSource& reference,
                              const etrecord::Etrecord* record, const GapOptions& options);

/// The divergence rule, applied to every compared row of `report` (again):
/// a row diverges when its max abs error exceeds atol + rtol * max
/// |reference|, or, with `options.quanta` > 0 and a quantized value,
/// quanta of its quantization steps; first_divergence follows. numeric_gap
/// applies it; a view that lets the user change the tolerances re-applies it.
void judge(GapReport& report, const GapOptions& options);

/// What `etinspect gap` prints: {atol, rtol, quanta, rows: [{instruction_id,
/// delegate_debug_id, op, node, sizes, mse, l1, snr_db, cosine, max_abs,
/// rel_error, growth, quantum, error_quanta, status, detail, source}],
/// compared, missing_references, shape_mismatches, first_divergence,
/// largest_error_growth}; metrics only for compared rows.
void print(report::Printer& out, const GapReport& gap, const GapOptions& options);

}  // namespace etkit::inspector
