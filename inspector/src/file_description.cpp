#include "etkit/inspector/file_description.h"

#include <algorithm>

#include "etkit/bundled/bundled_program.h"
#include "etkit/core/file_data.h"
#include "etkit/core/flat_tensor.h"
#include "etkit/core/program.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"

namespace etkit::inspector {
namespace {

using FilePtr = std::shared_ptr<const FileData>;

Result<ProgramSummary> describe_program(FilePtr file, std::vector<DelegatePayloadSummary>& payloads) {
  const ByteSpan bytes = file->bytes();
  const std::string path = file->path();
  ETKIT_ASSIGN_OR_RETURN(Program program, Program::load(std::move(file), bytes, path));
  ProgramSummary summary = summarize(program);
  payloads = summarize_delegate_payloads(program, summary);
  return summary;
}

Result<BundledSummary> describe_bundled(FilePtr file, std::vector<DelegatePayloadSummary>& payloads) {
  const std::string path = file->path();
  ETKIT_ASSIGN_OR_RETURN(auto bundle,
                         bundled::BundledProgram::load(std::move(file), path));
  BundledSummary summary;
  summary.version = bundle.version();
  for (const auto& suite : bundle.suites()) {
    BundledSuiteSummary out{suite.method_name, suite.cases.size(), 0, 0};
    if (!suite.cases.empty()) {
      out.input_count = suite.cases[0].inputs.size();
      out.output_count = suite.cases[0].expected_outputs.size();
    }
    summary.suites.push_back(std::move(out));
  }
  summary.program_offset = bundle.program_offset();
  summary.program_size = bundle.program_bytes().size;
  ETKIT_ASSIGN_OR_RETURN(Program program, bundle.load_program());
  summary.program = summarize(program);
  payloads = summarize_delegate_payloads(program, summary.program);
  return summary;
}

Result<ETDumpSummary> describe_etdump(FilePtr file) {
  const std::string path = file->path();
  ETKIT_ASSIGN_OR_RETURN(auto trace, etdump::ETDump::load(std::move(file), path));
  ETDumpSummary summary;
  summary.version = trace.version();
  summary.size = trace.size();
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    const etdump::RunBlockStats stats = block.stats();
    RunBlockSummary out;
    out.name = std::string(block.name());
    out.bundled_input_index = block.bundled_input_index();
    for (size_t a = 0; a < block.allocator_count(); ++a) {
      out.allocators.emplace_back(block.allocator_name(a));
    }
    out.profile_events = stats.profile_events;
    out.allocation_events = stats.allocation_events;
    out.debug_events = stats.debug_events;
    out.has_times = stats.has_times;
    out.first_start = stats.first_start;
    out.last_end = stats.last_end;
    out.reversed_events = stats.reversed_events;
    if (stats.reversed_events > 0) {
      const etdump::EventView event = block.event(stats.first_reversed);
      out.first_reversed = "event " + std::to_string(stats.first_reversed) + " '" +
                           std::string(event.profile.name) + "'";
    }
    summary.blocks.push_back(std::move(out));
  }
  summary.tracing_overhead = tracing_overhead(trace);
  return summary;
}

Result<EtrecordSummary> describe_etrecord(FilePtr file) {
  const std::string path = file->path();
  // Decoding the graphs and maps turns damage into warnings, so only an
  // unreadable archive is an error here.
  ETKIT_ASSIGN_OR_RETURN(auto record, etrecord::Etrecord::load(std::move(file), path));
  const etrecord::EtrecordArchive& archive = record.archive();
  EtrecordSummary summary;
  summary.layout = etrecord::to_string(archive.layout());
  summary.methods = archive.methods();
  for (const auto& entry : archive.entries()) {
    summary.entries.push_back({entry.name, entry.size, etrecord::to_string(entry.kind)});
  }
  for (const auto& [name, method] : record.methods()) {
    EtrecordMethodSummary m;
    m.name = name;
    m.graph_nodes = method.graph.nodes.size();
    m.nodes_with_handles = size_t(std::count_if(method.graph.nodes.begin(), method.graph.nodes.end(),
                                                [](const etrecord::GraphNode& n) { return n.debug_handle >= 0; }));
    m.mapped_instructions = method.handles_by_instruction.size();
    m.delegate_instructions = method.delegates_by_instruction.size();
    m.handles_inferred = method.handles_inferred;
    summary.graphs.push_back(std::move(m));
  }
  summary.warnings = record.warnings();
  return summary;
}

Result<FlatTensorSummary> describe_flat_tensor(FilePtr file) {
  const std::string path = file->path();
  ETKIT_ASSIGN_OR_RETURN(FlatTensor data, FlatTensor::load(std::move(file), path));
  FlatTensorSummary summary;
  summary.version = data.version();
  summary.segment_count = data.segment_count();
  for (const auto& entry : data.entries()) {
    NamedDataEntrySummary out;
    out.key = entry.key;
    out.segment_index = entry.segment_index;
    out.size = entry.data.size;
    out.is_tensor = entry.has_layout;
    out.tensor.scalar_type = entry.scalar_type;
    out.tensor.sizes.assign(entry.sizes.begin(), entry.sizes.end());
    out.tensor.dim_order = entry.dim_order;
    out.tensor.dynamism = "static";
    summary.entries.push_back(std::move(out));
  }
  return summary;
}

}  // namespace

Result<FileDescription> describe_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(FilePtr file, FileData::load(path));
  FileDescription description;
  description.path = path;
  description.size = file->bytes().size;
  description.kind = detect_file_kind(file->bytes());
  switch (description.kind) {
    case FileKind::kProgram: {
      ETKIT_ASSIGN_OR_RETURN(description.program, describe_program(file, description.delegate_payloads));
      break;
    }
    case FileKind::kBundledProgram: {
      ETKIT_ASSIGN_OR_RETURN(description.bundled, describe_bundled(file, description.delegate_payloads));
      break;
    }
    case FileKind::kETDump: {
      ETKIT_ASSIGN_OR_RETURN(description.etdump, describe_etdump(file));
      break;
    }
    case FileKind::kZip: {
      ETKIT_ASSIGN_OR_RETURN(description.etrecord, describe_etrecord(file));
      break;
    }
    case FileKind::kFlatTensor: {
      ETKIT_ASSIGN_OR_RETURN(description.flat_tensor, describe_flat_tensor(file));
      break;
    }
    case FileKind::kUnknown:
      if (description.size == 0) {
        return Error::make(ErrorCode::kMalformed, "%s: file is empty", path.c_str());
      }
      return Error::make(ErrorCode::kMalformed,
                         "%s: unrecognised file: no ExecuTorch magic (program "
                         "'ET12' or bundle 'BP08' at byte 4, ETDump 'ED00' at "
                         "byte 8, '.ptd' 'FT01'+'FH01', or a zip ETRecord)",
                         path.c_str());
  }
  return description;
}

}  // namespace etkit::inspector
