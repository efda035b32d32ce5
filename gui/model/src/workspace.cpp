#include "etkit/gui/workspace.h"

#include "etkit/inspector/event_text.h"
#include "etkit/inspector/run_comparison.h"

#include "etkit/gui/gap_view.h"

#include "etkit/inspector/file_size.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "etkit/bundled/bundled_program.h"
#include "etkit/core/file_data.h"
#include "etkit/core/file_kind.h"
#include "etkit/core/program.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/block_workers.h"
#include "etkit/inspector/source_links.h"

namespace etkit::gui {
namespace {

// Each event's row of the diff, joined as `etinspect diff` joins: (block,
// event, k-th timed event of that name other than OPERATOR_CALL), the
// first block of a name only. The table's deltas and the details'
// histograms read the same join.
std::vector<std::vector<const inspector::DiffRow*>> join_diff_rows(const std::vector<inspector::EventBlock>& blocks,
                                                                   const inspector::TraceDiff& diff) {
  using Key = std::tuple<std::string, std::string, size_t>;
  std::map<Key, const inspector::DiffRow*> rows;
  for (const inspector::DiffRow& row : diff.rows) rows[{row.block, row.event, row.occurrence}] = &row;
  std::vector<std::vector<const inspector::DiffRow*>> joined(blocks.size());
  std::set<std::string> blocks_seen;
  for (size_t b = 0; b < blocks.size(); ++b) {
    joined[b].assign(blocks[b].events.size(), nullptr);
    if (!blocks_seen.insert(blocks[b].name).second) continue;
    std::map<std::string, size_t> in_block;
    for (size_t e = 0; e < blocks[b].events.size(); ++e) {
      const inspector::Event& event = blocks[b].events[e];
      if (!event.perf_data || event.name == "OPERATOR_CALL") continue;
      const auto it = rows.find({blocks[b].name, event.name, in_block[event.name]++});
      if (it != rows.end()) joined[b][e] = it->second;
    }
  }
  return joined;
}

}  // namespace

const char* to_string(FileRole role) {
  switch (role) {
    case FileRole::kTrace: return "trace";
    case FileRole::kProgram: return "program";
    case FileRole::kRecord: return "ETRecord";
    case FileRole::kDebugBuffer: return "debug buffer";
    case FileRole::kBaseline: return "baseline trace";
    case FileRole::kReference: return "reference";
    case FileRole::kReferenceDebugBuffer: return "reference debug buffer";
    case FileRole::kReferenceProgram: return "reference program";
    case FileRole::kReferenceRecord: return "reference ETRecord";
    case FileRole::kData: return "named data";
  }
  return "?";
}

bool OpenRequest::empty() const {
  return files.empty() && program.empty() && etrecord.empty() && debug_buffer.empty() && baseline.empty() &&
         reference.empty() && reference_debug_buffer.empty() && reference_program.empty() &&
         reference_etrecord.empty();
}

void OpenRequest::merge(const OpenRequest& other) {
  files.insert(files.end(), other.files.begin(), other.files.end());
  auto take = [](std::string& mine, const std::string& theirs) {
    if (!theirs.empty()) mine = theirs;
  };
  take(program, other.program);
  take(etrecord, other.etrecord);
  take(debug_buffer, other.debug_buffer);
  take(baseline, other.baseline);
  take(reference, other.reference);
  take(reference_debug_buffer, other.reference_debug_buffer);
  take(reference_program, other.reference_program);
  take(reference_etrecord, other.reference_etrecord);
}

OpenRequest reference_request(const std::vector<std::string>& paths) {
  OpenRequest request;
  for (const std::string& path : paths) {
    if (std::filesystem::is_directory(path)) {
      request.reference = path;
      continue;
    }
    auto file = FileData::load(path);
    const FileKind kind = file.ok() ? detect_file_kind((*file)->bytes()) : FileKind::kUnknown;
    switch (kind) {
      case FileKind::kETDump: request.reference = path; break;
      case FileKind::kProgram:
      case FileKind::kBundledProgram: request.reference_program = path; break;
      case FileKind::kZip: request.reference_etrecord = path; break;
      default: request.reference_debug_buffer = path; break;  // a debug buffer has no magic (or the load says why)
    }
  }
  return request;
}

// The steps of loading, in order; each adds what it made to the workspace
// or a problem naming the file.
struct Workspace::Loader {
  Workspace& ws;
  const Progress& progress;
  std::shared_ptr<const FileData> trace_file, program_file, record_file, debug_file, baseline_file;
  std::string reference_path, reference_buffer_path, reference_program_path, reference_record_path;
  bool debug_guessed = false;  // an unrecognised file taken as the debug buffer

  void report(double fraction, const std::string& step) const {
    if (progress) progress(fraction, step);
  }
  void fail(const std::string& path, const std::string& message) { ws.errors_.push_back({path, message}); }
  void fail(const std::string& path, const Error& error) { fail(path, error.message()); }

  std::shared_ptr<const FileData> read(const std::string& path) {
    auto file = FileData::load(path);
    if (!file.ok()) {
      fail(path, file.error());
      return nullptr;
    }
    return std::move(*file);
  }

  // Puts `file` in `slot` unless the slot is taken (one trace, one program,
  // one record per workspace).
  void place(std::shared_ptr<const FileData>& slot, std::shared_ptr<const FileData> file, const char* what) {
    if (slot) {
      fail(file->path(), std::string("a workspace holds one ") + what + "; " + slot->path() + " is already open" +
                             (std::string(what) == "trace" ? " (compare two traces with --baseline or File → Compare "
                                                             "with Baseline)"
                                                           : ""));
      return;
    }
    slot = std::move(file);
  }

  void classify(const OpenRequest& request) {
    std::vector<std::shared_ptr<const FileData>> unknown;
    for (const std::string& path : request.files) {
      auto file = read(path);
      if (!file) continue;
      switch (detect_file_kind(file->bytes())) {
        case FileKind::kETDump: place(trace_file, std::move(file), "trace"); break;
        case FileKind::kProgram:
        case FileKind::kBundledProgram: place(program_file, std::move(file), "program"); break;
        case FileKind::kZip: place(record_file, std::move(file), "ETRecord"); break;
        case FileKind::kFlatTensor:
          ws.files_.push_back({path, FileRole::kData, "named data (.ptd): only needed to run the program"});
          break;
        case FileKind::kUnknown: unknown.push_back(std::move(file)); break;
      }
    }
    explicit_file(request.program, program_file, {FileKind::kProgram, FileKind::kBundledProgram}, "a program");
    explicit_file(request.etrecord, record_file, {FileKind::kZip}, "an ETRecord");
    explicit_file(request.baseline, baseline_file, {FileKind::kETDump}, "an ETDump trace");
    if (!request.debug_buffer.empty()) {
      if (auto file = read(request.debug_buffer)) debug_file = std::move(file);
    }
    // A debug buffer has no magic of its own: an unrecognised file is one
    // when there is a trace for it to belong to.
    for (auto& file : unknown) {
      if (trace_file && !debug_file) {
        debug_file = std::move(file);
        debug_guessed = true;
      } else {
        fail(file->path(), trace_file ? "not an ExecuTorch file (no known magic), and the trace already has a debug buffer"
                                      : "not an ExecuTorch file (no known magic); a debug buffer needs a trace to "
                                        "belong to");
      }
    }
    reference_path = request.reference;
    reference_buffer_path = request.reference_debug_buffer;
    reference_program_path = request.reference_program;
    reference_record_path = request.reference_etrecord;
  }

  void explicit_file(const std::string& path, std::shared_ptr<const FileData>& slot, std::vector<FileKind> kinds,
                     const char* what) {
    if (path.empty()) return;
    auto file = read(path);
    if (!file) return;
    const FileKind kind = detect_file_kind(file->bytes());
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      fail(path, std::string("not ") + what + " (its magic says " + to_string(kind) + ")");
      return;
    }
    slot = std::move(file);
  }

  void load_program(const std::string& method) {
    if (!program_file) return;
    const std::string path = program_file->path();
    Result<ProgramSummary> summary = [&]() -> Result<ProgramSummary> {
      if (detect_file_kind(program_file->bytes()) == FileKind::kBundledProgram) {
        ETKIT_ASSIGN_OR_RETURN(auto bundle, bundled::BundledProgram::load(program_file, path));
        ETKIT_ASSIGN_OR_RETURN(Program program, bundle.load_program());
        return summarize(program);
      }
      ETKIT_ASSIGN_OR_RETURN(Program program, Program::load(program_file, program_file->bytes(), path));
      return summarize(program);
    }();
    if (!summary.ok()) return fail(path, summary.error());
    ws.program_ = std::move(*summary);
    for (const MethodSummary& m : ws.program_->methods) ws.memory_.push_back(inspector::analyze_memory(m));
    ws.files_.push_back({path, FileRole::kProgram, std::to_string(ws.program_->methods.size()) + " method(s)"});
    if (ws.method() == nullptr) fail(path, "the program has no method '" + method + "'");
    // Where its bytes go, for the size view (a program that loaded has one).
    if (auto size = inspector::file_size_breakdown(program_file->bytes(), path); size.ok()) ws.size_ = std::move(*size);
  }

  void load_record(const std::string& method) {
    if (!record_file) return;
    const std::string path = record_file->path();
    auto record = etrecord::Etrecord::load(record_file, path);
    if (!record.ok()) return fail(path, record.error());
    for (const std::string& warning : record->warnings()) ws.warnings_.push_back({path, warning});
    if (record->method(method) == nullptr) return fail(path, "the ETRecord has no method '" + method + "'");
    ws.record_.emplace(std::move(*record));
    ws.files_.push_back({path, FileRole::kRecord, std::to_string(ws.record_->methods().size()) + " method(s)"});
    // The size view's constants name the ops that read them (and select them).
    if (ws.size_ && ws.program_) inspector::link_constants(*ws.size_, *ws.program_, *ws.record_);
  }

  void load_trace(const OpenRequest& request) {
    if (!trace_file) return;
    const std::string path = trace_file->path();
    auto trace = etdump::ETDump::load(trace_file, path);
    if (!trace.ok()) {
      ws.trace_problem_ = trace.error().message();
      return fail(path, trace.error());
    }
    ws.trace_ = std::make_unique<etdump::ETDump>(std::move(*trace));
    report(0.15, "grouping events");
    inspector::EventBlockOptions units{request.source_unit, request.table_unit};
    units.locate_events = true;
    auto grouped = inspector::GroupedEvents::build(*ws.trace_, units);
    if (!grouped.ok()) {
      ws.trace_.reset();
      ws.trace_problem_ = grouped.error().message();
      return fail(path, grouped.error());
    }
    ws.grouped_ = std::make_unique<inspector::GroupedEvents>(std::move(*grouped));
    const inspector::BlockContext context{ws.method(), ws.record(), request.method};
    // Blocks materialized on the inspector's block workers (a million events
    // in per-run blocks are a million allocations' worth of work); the
    // timeline is built meanwhile by whichever worker takes it first.
    const size_t count = ws.grouped_->block_count();
    ws.blocks_.resize(count);
    std::atomic<size_t> done{0};
    std::atomic<bool> timeline_taken{false};
    Result<TimelineModel> timeline = Error::make(ErrorCode::kInternal, "timeline not built");
    auto build_timeline = [&] {
      if (!timeline_taken.exchange(true)) timeline = TimelineModel::build(*ws.trace_, request.source_unit, ws.grouped_.get(), true);
    };
    inspector::for_each_block(*ws.grouped_, context, {}, [&](const inspector::BlockJob& job) {
      build_timeline();
      std::swap(ws.blocks_[job.index], job.block);
      if (++done % 64 == 0 && job.worker == 0) report(0.25 + 0.5 * double(done) / double(count), "event blocks");
      return true;
    });
    build_timeline();  // a trace without blocks
    // As the CLI judges it: kernels linked to nodes of other ops count as unmatched.
    const inspector::LinkReport links =
        ws.record_ ? inspector::record_fit(*ws.grouped_, *ws.record_, request.method) : inspector::LinkReport{};
    if (ws.record_ && links.unmatched > links.linked) {
      ws.warnings_.push_back({record_file->path(), "does not belong to this trace: " + std::to_string(links.unmatched) +
                                                       " of " + std::to_string(links.linked + links.unmatched) +
                                                       " events have no graph node"});
    }
    if (!timeline.ok()) return fail(path, timeline.error());
    ws.timeline_ = std::move(*timeline);
    ws.files_.push_back({path, FileRole::kTrace,
                         std::to_string(ws.trace_->block_count()) + " run block(s), " +
                             std::to_string(ws.timeline_.event_count()) + " profile events"});
  }

  void load_debug_buffer() {
    if (!debug_file) return;
    const std::string path = debug_file->path();
    if (!ws.trace_) {
      return fail(path, debug_guessed ? "not an ExecuTorch file (no known magic), and no readable trace for it to "
                                        "be the debug buffer of"
                                      : "a debug buffer needs a readable trace");
    }
    auto outputs = inspector::recorded_outputs(*ws.trace_, debug_file->bytes());
    if (!outputs.ok()) return fail(path, outputs.error());
    const size_t count = outputs->size();
    ws.debug_ = inspector::by_instruction(std::move(*outputs));
    ws.files_.push_back({path, FileRole::kDebugBuffer, std::to_string(count) + " intermediate output(s)"});
  }

  void load_baseline(const OpenRequest& request) {
    if (!baseline_file) return;
    const std::string path = baseline_file->path();
    if (!ws.trace_) return fail(path, "a baseline needs a trace to compare with");
    auto baseline = etdump::ETDump::load(baseline_file, path);
    if (!baseline.ok()) return fail(path, baseline.error());
    ws.baseline_ = std::make_unique<etdump::ETDump>(std::move(*baseline));
    inspector::DiffOptions options;
    options.units = {request.source_unit, request.table_unit};
    auto diff = inspector::diff_traces(*ws.baseline_, *ws.trace_, options);
    if (!diff.ok()) return fail(path, diff.error());
    ws.diff_ = std::move(*diff);
    ws.diff_rows_ = join_diff_rows(ws.blocks_, *ws.diff_);
    auto timeline = TimelineModel::build(*ws.baseline_, request.source_unit, nullptr, true);
    if (timeline.ok()) {
      timeline->align_runs_to(ws.timeline_);  // drawn under the trace run to run
      ws.baseline_timeline_ = std::move(*timeline);
    }
    ws.files_.push_back({path, FileRole::kBaseline, std::to_string(ws.diff_->rows.size()) + " events joined"});
  }

  // The op graph, collapsed, and with every delegate call's ops when there
  // are any; laid out later, when the graph view is first opened.
  void load_graph(const OpenRequest& request) {
    const double unit_ms = inspector::nanoseconds_per(request.table_unit) / 1e6;
    std::vector<inspector::ValueConstant> constants;
    if (program_file) {
      if (auto found = inspector::constant_values(program_file->bytes(), "program"); found.ok()) constants = std::move(*found);
    }
    for (bool collapse : {true, false}) {
      auto graph = build_op_graph(ws.method(), ws.record(), request.method, collapse);
      if (!graph.ok()) {
        ws.graphs_.problem = graph.error().message();
        return;
      }
      annotate_op_graph(*graph, ws.method(), ws.blocks_, unit_ms, ws.gap(), constants);
      (collapse ? ws.graphs_.collapsed : ws.graphs_.expanded) = std::move(*graph);
      const bool any_delegate = std::any_of(ws.graphs_.collapsed->nodes.begin(), ws.graphs_.collapsed->nodes.end(),
                                            [](const OpNode& n) { return n.members > 1; });
      if (!any_delegate) return;  // nothing to expand
    }
  }

  // The gap etinspect gap computes from the same files.
  void load_reference(const OpenRequest& request) {
    if (reference_path.empty()) return;
    if (!trace_file || !debug_file) {
      return fail(reference_path, "a reference needs a trace with intermediate outputs and its debug buffer");
    }
    session::GapFiles files;
    files.etdump = trace_file->path();
    files.debug_buffer = debug_file->path();
    files.program = program_file ? program_file->path() : "";
    files.etrecord = ws.record_ ? record_file->path() : "";
    files.reference = reference_path;
    files.reference_debug_buffer = reference_buffer_path;
    files.reference_program = reference_program_path;
    files.reference_etrecord = reference_record_path;
    inspector::GapOptions options;
    options.method = request.method;
    options.keep_values = true;
    std::vector<std::string> warnings;
    auto gap = session::compare_gap_files(files, options, warnings);
    for (const std::string& warning : warnings) ws.warnings_.push_back({reference_path, warning});
    if (!gap.ok()) return fail(reference_path, gap.error());
    ws.gap_ = std::move(*gap);
    ws.files_.push_back({reference_path, FileRole::kReference, gap_status_line(ws.gap_->report)});
    if (!reference_program_path.empty()) ws.files_.push_back({reference_program_path, FileRole::kReferenceProgram, ""});
    if (!reference_record_path.empty()) ws.files_.push_back({reference_record_path, FileRole::kReferenceRecord, ""});
  }
};

const inspector::DiffRow* Workspace::diff_row_of(size_t block, size_t event) const {
  if (block >= diff_rows_.size() || event >= diff_rows_[block].size()) return nullptr;
  return diff_rows_[block][event];
}

std::unique_ptr<Workspace> Workspace::load(const OpenRequest& request, const Progress& progress) {
  std::unique_ptr<Workspace> ws(new Workspace());
  ws->request_ = request;
  Loader loader{*ws, progress, {}, {}, {}, {}, {}, {}, {}};
  loader.report(0, "reading files");
  loader.classify(request);
  loader.report(0.1, "program and ETRecord");
  loader.load_program(request.method);
  loader.load_record(request.method);
  loader.load_trace(request);
  loader.report(0.8, "debug buffer and baseline");
  loader.load_debug_buffer();
  loader.load_baseline(request);
  loader.report(0.9, "numeric gap");
  loader.load_reference(request);
  loader.report(0.95, "op graph");
  loader.load_graph(request);
  loader.report(1, "done");
  return ws;
}

Workspace::~Workspace() = default;

const OpGraph* Workspace::graph(bool collapsed) const {
  if (!collapsed && graphs_.expanded) return &*graphs_.expanded;
  return graphs_.collapsed ? &*graphs_.collapsed : nullptr;
}

void Workspace::lay_out_graphs_now() {
  if (graph_laid_out()) return;
  layout_op_graphs(graphs_, nullptr);
}

const MethodSummary* Workspace::method() const {
  if (!program_) return nullptr;
  for (const MethodSummary& m : program_->methods) {
    if (m.name == request_.method) return &m;
  }
  return nullptr;
}

const inspector::Event* Workspace::event_of(const TimelineTrack& track, const TimelineEvent& event) const {
  if (track.group < 0 || event.row < 0 || size_t(track.group) >= blocks_.size()) return nullptr;
  const inspector::EventBlock& block = blocks_[size_t(track.group)];
  return size_t(event.row) < block.events.size() ? &block.events[size_t(event.row)] : nullptr;
}

std::string Workspace::event_label(const TimelineTrack& track, const TimelineEvent& event) const {
  if (const inspector::Event* linked = event_of(track, event)) return inspector::op_label(*linked);
  return inspector::short_op_name(track.name_of(event));
}

std::optional<std::pair<size_t, size_t>> Workspace::timeline_event_of(size_t block, size_t event) const {
  if (!grouped_) return std::nullopt;
  const std::optional<size_t> run_block = grouped_->run_block(block, 0);
  if (!run_block) return std::nullopt;
  // Tracks are in run-block order, one per block.
  if (*run_block >= timeline_.tracks().size()) return std::nullopt;
  const std::optional<size_t> index = timeline_.tracks()[*run_block].find_row(int32_t(event));
  if (!index) return std::nullopt;
  return std::make_pair(*run_block, *index);
}

std::string Workspace::comparison_verdict() const {
  if (!diff_) return {};
  const auto comparison = inspector::compare_whole_runs(*diff_);
  if (!comparison) return {};
  return inspector::verdict_line(*comparison, inspector::to_string(request_.table_unit),
                                 inspector::decimals_for(request_.source_unit, request_.table_unit));
}

}  // namespace etkit::gui
