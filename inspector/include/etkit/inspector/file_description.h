#pragma once
/// @file
/// Describes any ExecuTorch artifact: detects its kind by magic bytes, loads
/// it with the owning library's verified reader, and summarizes it as plain
/// data for `etinspect info` and the GUI.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/file_kind.h"
#include "etkit/core/program_summary.h"
#include "etkit/core/result.h"
#include "etkit/inspector/delegate_payloads.h"
#include "etkit/inspector/tracing_overhead.h"

namespace etkit::inspector {

struct BundledSuiteSummary {
  std::string method;
  size_t case_count = 0;
  size_t input_count = 0;   ///< Inputs per case (of the first case).
  size_t output_count = 0;  ///< Expected outputs per case (first case).
};

struct BundledSummary {
  uint32_t version = 0;
  std::vector<BundledSuiteSummary> suites;
  uint64_t program_offset = 0;
  uint64_t program_size = 0;
  ProgramSummary program;
};

struct RunBlockSummary {
  std::string name;
  int32_t bundled_input_index = -1;
  std::vector<std::string> allocators;
  size_t profile_events = 0;
  size_t allocation_events = 0;
  size_t debug_events = 0;
  bool has_times = false;
  uint64_t first_start = 0;
  uint64_t last_end = 0;
  size_t reversed_events = 0;  ///< profile events that end before they start
  std::string first_reversed;  ///< "event <index> '<name>'" of the first of them
};

struct ETDumpSummary {
  uint32_t version = 0;
  uint64_t size = 0;
  std::vector<RunBlockSummary> blocks;
  std::optional<TracingOverhead> tracing_overhead;  ///< when the trace holds untraced runs
};

struct EtrecordEntrySummary {
  std::string name;
  uint64_t size = 0;
  std::string kind;  ///< etrecord::EntryKind name
};

/// What the decoded record holds for one method.
struct EtrecordMethodSummary {
  std::string name;
  size_t graph_nodes = 0;         ///< nodes of the edge graph (0: no graph)
  size_t nodes_with_handles = 0;  ///< nodes carrying a debug_handle
  size_t mapped_instructions = 0; ///< debug_handle_map entries
  size_t delegate_instructions = 0;
  bool handles_inferred = false;  ///< no map entries: matched in graph order
};

struct EtrecordSummary {
  std::string layout;  ///< "legacy", "per_method", "no_edge_program"
  std::vector<std::string> methods;
  std::vector<EtrecordEntrySummary> entries;
  std::vector<EtrecordMethodSummary> graphs;
  std::vector<std::string> warnings;  ///< damaged entries, dangling handles
};

struct NamedDataEntrySummary {
  std::string key;
  uint32_t segment_index = 0;
  uint64_t size = 0;
  bool is_tensor = false;
  TensorShape tensor;
};

struct FlatTensorSummary {
  uint32_t version = 0;
  size_t segment_count = 0;
  std::vector<NamedDataEntrySummary> entries;
};

/// The summary of one file; exactly the member matching `kind` is set.
struct FileDescription {
  std::string path;
  uint64_t size = 0;
  FileKind kind = FileKind::kUnknown;
  std::optional<ProgramSummary> program;
  std::optional<BundledSummary> bundled;
  std::optional<ETDumpSummary> etdump;
  std::optional<EtrecordSummary> etrecord;
  std::optional<FlatTensorSummary> flat_tensor;
  /// XNNPACK payloads of a program or bundled program's delegates.
  std::vector<DelegatePayloadSummary> delegate_payloads;
};

/// Reads and verifies `path`, whatever its kind. Errors name the file.
Result<FileDescription> describe_file(const std::string& path);

}  // namespace etkit::inspector
