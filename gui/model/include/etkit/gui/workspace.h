#pragma once
/// @file
/// What the GUI has open: one trace with its program, ETRecord and debug
/// buffer, optionally a baseline trace and a numeric-gap reference, and
/// everything the views show, computed once by the inspector library (the
/// same calls the CLI makes). Plain C++: loaded on a worker thread, tested
/// without a display.
///
/// Files are recognised by their magic bytes, never by extension. A file
/// that cannot be read becomes an error naming it; the rest of the
/// workspace stays usable.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/program_summary.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/gui/op_graph.h"
#include "etkit/gui/timeline_model.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/event_text.h"
#include "etkit/inspector/gap_report.h"
#include "etkit/session/gap_files.h"
#include "etkit/inspector/file_size.h"
#include "etkit/inspector/memory_plan.h"
#include "etkit/inspector/trace_diff.h"

namespace etkit::etdump {
class ETDump;
}

namespace etkit::gui {

/// What a file is to the workspace.
enum class FileRole {
  kTrace,
  kProgram,         ///< a .pte, or the program inside a .bpte
  kRecord,          ///< an ETRecord
  kDebugBuffer,     ///< the trace's intermediate outputs (no magic of its own)
  kBaseline,        ///< a second trace to compare with
  kReference,       ///< a folder of .npy or a trace: the gap view's reference
  kReferenceDebugBuffer,
  kReferenceProgram,  ///< the reference trace's program (its delegates' values)
  kReferenceRecord,   ///< the reference's ETRecord: match ops by graph node
  kData,            ///< a .ptd: only needed to run programs
};
const char* to_string(FileRole role);

/// Files to open. `files` are placed by their magic; the named fields are
/// explicit roles (the CLI's flags: --debug-buffer, --etrecord, …).
struct OpenRequest {
  std::vector<std::string> files;
  std::string program;
  std::string etrecord;
  std::string debug_buffer;
  std::string baseline;
  std::string reference;
  std::string reference_debug_buffer;
  std::string reference_program;
  std::string reference_etrecord;
  std::string method = "forward";
  inspector::TimeUnit source_unit = inspector::TimeUnit::kNanoseconds;
  inspector::TimeUnit table_unit = inspector::TimeUnit::kMilliseconds;

  bool empty() const;
  /// `other`'s files and roles added to these (a role given twice: `other`'s).
  void merge(const OpenRequest& other);
};

struct OpenedFile {
  std::string path;
  FileRole role = FileRole::kTrace;
  std::string description;  ///< "ETDump, 2 run blocks, 31 profile events"
};

/// A file that could not be used, and why.
struct FileProblem {
  std::string path;
  std::string message;
};

/// Reports loading progress: fraction done in [0, 1] and the current step.
using Progress = std::function<void(double fraction, const std::string& step)>;

class Workspace {
 public:
  /// Loads everything `request` names. Never fails as a whole: unreadable
  /// files end up in errors().
  static std::unique_ptr<Workspace> load(const OpenRequest& request, const Progress& progress = {});
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const OpenRequest& request() const { return request_; }
  const std::vector<OpenedFile>& files() const { return files_; }
  const std::vector<FileProblem>& errors() const { return errors_; }
  /// Things that work but deserve a look (an ETRecord of another program).
  const std::vector<FileProblem>& warnings() const { return warnings_; }

  const etdump::ETDump* trace() const { return trace_.get(); }
  /// Why the trace given could not be used (empty when it was, or when none
  /// was given): its error, also among errors().
  const std::string& trace_problem() const { return trace_problem_; }
  /// The trace's event blocks, backends named and linked to the ETRecord.
  const std::vector<inspector::EventBlock>& blocks() const { return blocks_; }
  const TimelineModel& timeline() const { return timeline_; }
  const TimelineModel* baseline_timeline() const { return baseline_timeline_ ? &*baseline_timeline_ : nullptr; }
  const std::optional<inspector::TraceDiff>& diff() const { return diff_; }
  /// Event `event` of block `block`'s row of the diff, joined as `etinspect
  /// diff` joins (block name, event name, k-th timed event of that name
  /// other than OPERATOR_CALL; the first block of a name only); null
  /// without a baseline or when the baseline has no such event.
  const inspector::DiffRow* diff_row_of(size_t block, size_t event) const;
  /// With a baseline: the whole run before and after and whether the change
  /// is beyond the runs' noise, in one line (inspector/run_comparison.h);
  /// empty without a baseline or a Method::execute event in both traces.
  std::string comparison_verdict() const;
  const inspector::DebugOutputs& debug_outputs() const { return debug_; }

  const ProgramSummary* program() const { return program_ ? &*program_ : nullptr; }
  /// The request's method in the program, if both exist.
  const MethodSummary* method() const;
  const etrecord::Etrecord* record() const { return record_ ? &*record_ : nullptr; }
  /// The memory analysis of every method of the program.
  const std::vector<inspector::MethodMemory>& memory() const { return memory_; }
  /// Where the program file's bytes go (`etinspect size`), when a program is open.
  const inspector::SizePart* size() const { return size_ ? &*size_ : nullptr; }

  /// The method's op graph, delegate calls collapsed or expanded into their
  /// ops (null when there is no graph; graph_problem() says why). Built and
  /// annotated at load; laid out only when asked (graph_laid_out()): dot
  /// takes a quarter of a second for 1,000 ops, paid by who opens the view.
  const OpGraph* graph(bool collapsed = true) const;
  const std::string& graph_problem() const { return graphs_.problem; }
  bool graph_laid_out() const { return graphs_.collapsed && graphs_.collapsed->laid_out; }
  /// Copies of the graphs for layout_op_graphs() on another thread (they
  /// share nothing with the workspace), then install_graphs() on this one.
  OpGraphs graphs_to_lay_out() const { return graphs_; }
  void install_graphs(OpGraphs graphs) { graphs_ = std::move(graphs); }
  /// Both steps on the calling thread (headless runs, tests).
  void lay_out_graphs_now();

  /// The numeric gap against the reference, when one was given: the one
  /// `etinspect gap` computes from the same files (session/gap_files.h),
  /// each compared row keeping its values (the heat maps).
  const inspector::GapReport* gap() const { return gap_ ? &gap_->report : nullptr; }

  /// The table event a timeline event is, if the trace grouped it.
  const inspector::Event* event_of(const TimelineTrack& track, const TimelineEvent& event) const;
  /// What views label a timeline event with: its op and module
  /// ("convolution · features.3.conv.0", inspector::op_label), or its short
  /// op name when it links to no table event (a baseline's).
  std::string event_label(const TimelineTrack& track, const TimelineEvent& event) const;
  /// The timeline event of table row (block, event) in the block's first
  /// run: (track index, event index).
  std::optional<std::pair<size_t, size_t>> timeline_event_of(size_t block, size_t event) const;

 private:
  Workspace() = default;
  struct Loader;

  OpenRequest request_;
  std::vector<OpenedFile> files_;
  std::vector<FileProblem> errors_;
  std::vector<FileProblem> warnings_;
  OpGraphs graphs_;
  std::unique_ptr<etdump::ETDump> trace_;
  std::string trace_problem_;
  std::unique_ptr<etdump::ETDump> baseline_;
  std::unique_ptr<inspector::GroupedEvents> grouped_;
  std::vector<inspector::EventBlock> blocks_;
  TimelineModel timeline_;
  std::optional<TimelineModel> baseline_timeline_;
  std::optional<inspector::TraceDiff> diff_;
  std::vector<std::vector<const inspector::DiffRow*>> diff_rows_;  ///< per block, per event
  inspector::DebugOutputs debug_;
  std::optional<ProgramSummary> program_;
  std::optional<etrecord::Etrecord> record_;
  std::vector<inspector::MethodMemory> memory_;
  std::optional<inspector::SizePart> size_;
  std::unique_ptr<session::GapComparison> gap_;
};

/// The files of a reference chosen together (File → Reference…), placed by
/// their bytes: a trace, its program, its ETRecord, and a file without
/// magic as the trace's debug buffer; a folder is a reference of .npy.
OpenRequest reference_request(const std::vector<std::string>& paths);

}  // namespace etkit::gui
