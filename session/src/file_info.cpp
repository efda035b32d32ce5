#include "etkit/session/file_info.h"

#include <filesystem>
#include <fstream>

#include "etkit/kernels/all_kernels.h"
#include "etkit/kernels/upstream_op_sets.h"
#include "etkit/report/printer.h"
#include "etkit/session/reversed_events.h"

namespace etkit::session {
namespace {

using MissingKernels = std::map<std::string, std::string>;

std::vector<int64_t> widen(const std::vector<uint8_t>& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

void print_tensor_shape(report::Printer& out, const TensorShape& shape) {
  out.field("dtype", to_string(shape.scalar_type));
  out.int_list("sizes", shape.sizes);
  out.int_list("dim_order", widen(shape.dim_order));
  if (shape.dynamism != "static") {
    out.field("dynamism", shape.dynamism);
  }
}

void print_values(report::Printer& out, const char* key, const std::vector<ValueSummary>& values) {
  out.begin_list(key);
  for (const auto& value : values) {
    out.begin_object("");
    out.field("index", value.index);
    out.field("kind", value.kind);
    if (value.kind == "tensor") {
      print_tensor_shape(out, value.tensor);
    } else if (!value.text.empty()) {
      out.field("value", value.text);
    }
    out.end_object();
  }
  out.end_list();
}

void print_method(report::Printer& out, const MethodSummary& method, const MissingKernels& missing) {
  out.begin_object("");
  out.field("name", method.name);
  out.field("value_count", method.value_count);
  out.field("chain_count", method.chain_count);
  out.field("instruction_count", method.instruction_count);
  out.field("kernel_call_count", method.kernel_call_count);
  out.field("delegate_call_count", method.delegate_call_count);
  print_values(out, "inputs", method.inputs);
  print_values(out, "outputs", method.outputs);
  out.string_list("operators", method.operators);
  // Operators no etkit op set has a kernel for, with where upstream gets
  // each from, so a user knows which library the program needs.
  out.begin_list("missing_kernels");
  for (const std::string& op : method.operators) {
    const auto provider = missing.find(op);
    if (provider == missing.end()) continue;
    out.begin_object("");
    out.field("operator", op);
    out.field("provided_by", provider->second);
    out.end_object();
  }
  out.end_list();
  out.begin_list("delegates");
  for (const auto& delegate : method.delegates) {
    out.begin_object("");
    out.field("backend_id", delegate.backend_id);
    out.field("location", delegate.location);
    out.field("index", delegate.index);
    out.field("size", delegate.size);
    out.string_list("compile_spec_keys", delegate.compile_spec_keys);
    out.end_object();
  }
  out.end_list();
  out.int_list("planned_buffer_sizes", method.planned_buffer_sizes);
  out.field("planned_bytes", method.planned_bytes);
  out.end_object();
}

void print_program(report::Printer& out, const ProgramSummary& program, const MissingKernels& missing) {
  out.field("version", program.version);
  out.field("extended_header", program.has_extended_header);
  out.field("flatbuffer_size", program.flatbuffer_size);
  out.field("segment_base_offset", program.segment_base_offset);
  out.begin_list("methods");
  for (const auto& method : program.methods) {
    print_method(out, method, missing);
  }
  out.end_list();
  out.begin_object("constants");
  out.field("storage", program.constant_storage);
  out.field("count", program.constant_count);
  out.field("bytes", program.constant_bytes);
  out.field("segment", program.constant_segment);
  out.end_object();
  out.begin_list("segments");
  for (const auto& segment : program.segments) {
    out.begin_object("");
    out.field("offset", segment.file_offset);
    out.field("size", segment.size);
    out.end_object();
  }
  out.end_list();
  out.begin_list("named_data");
  for (const auto& entry : program.named_data) {
    out.begin_object("");
    out.field("key", entry.key);
    out.field("segment", entry.segment_index);
    out.field("size", entry.size);
    out.end_object();
  }
  out.end_list();
  out.begin_list("external_tensors");
  for (const auto& tensor : program.external_tensors) {
    out.begin_object("");
    out.field("key", tensor.key);
    out.field("method", tensor.method);
    out.field("value_index", tensor.value_index);
    print_tensor_shape(out, tensor.tensor);
    out.end_object();
  }
  out.end_list();
}

void print_bundled(report::Printer& out, const inspector::BundledSummary& bundled, const MissingKernels& missing) {
  out.field("version", bundled.version);
  out.begin_list("test_suites");
  for (const auto& suite : bundled.suites) {
    out.begin_object("");
    out.field("method", suite.method);
    out.field("case_count", suite.case_count);
    out.field("inputs_per_case", suite.input_count);
    out.field("outputs_per_case", suite.output_count);
    out.end_object();
  }
  out.end_list();
  out.begin_object("program");
  out.field("offset", bundled.program_offset);
  out.field("size", bundled.program_size);
  print_program(out, bundled.program, missing);
  out.end_object();
}

void print_etdump(report::Printer& out, const inspector::ETDumpSummary& etdump) {
  out.field("version", etdump.version);
  out.begin_list("run_blocks");
  for (const auto& block : etdump.blocks) {
    out.begin_object("");
    out.field("name", block.name);
    out.field("bundled_input_index", block.bundled_input_index);
    out.field("profile_events", block.profile_events);
    out.field("debug_events", block.debug_events);
    out.field("allocation_events", block.allocation_events);
    out.string_list("allocators", block.allocators);
    if (block.has_times) {
      out.field("first_start", block.first_start);
      out.field("last_end", block.last_end);
      out.field("span", etkit::etdump::elapsed_ticks(block.first_start, block.last_end));
    }
    out.end_object();
  }
  out.end_list();
  if (etdump.tracing_overhead) {
    const inspector::TracingOverhead& overhead = *etdump.tracing_overhead;
    out.begin_object("tracing_overhead");
    out.field("runs", uint64_t(overhead.runs));
    out.field("traced_median", overhead.traced_median);
    out.field("untraced_median", overhead.untraced_median);
    out.field("ratio", overhead.ratio);
    out.end_object();
  }
}

void print_etrecord(report::Printer& out, const inspector::EtrecordSummary& etrecord) {
  out.field("layout", etrecord.layout);
  out.string_list("methods", etrecord.methods);
  out.begin_list("entries");
  for (const auto& entry : etrecord.entries) {
    out.begin_object("");
    out.field("name", entry.name);
    out.field("size", entry.size);
    out.field("kind", entry.kind);
    out.end_object();
  }
  out.end_list();
  out.begin_list("graphs");
  for (const auto& graph : etrecord.graphs) {
    out.begin_object("");
    out.field("method", graph.name);
    out.field("nodes", uint64_t{graph.graph_nodes});
    out.field("nodes_with_debug_handle", uint64_t{graph.nodes_with_handles});
    out.field("mapped_instructions", uint64_t{graph.mapped_instructions});
    out.field("delegate_instructions", uint64_t{graph.delegate_instructions});
    if (graph.handles_inferred) out.field("handles_matched_in_graph_order", true);
    out.end_object();
  }
  out.end_list();
  out.string_list("warnings", etrecord.warnings);
}

void print_flat_tensor(report::Printer& out, const inspector::FlatTensorSummary& data) {
  out.field("version", data.version);
  out.field("segment_count", data.segment_count);
  out.begin_list("entries");
  for (const auto& entry : data.entries) {
    out.begin_object("");
    out.field("key", entry.key);
    out.field("segment", entry.segment_index);
    out.field("size", entry.size);
    if (entry.is_tensor) {
      print_tensor_shape(out, entry.tensor);
    }
    out.end_object();
  }
  out.end_list();
}

void print_delegate_payloads(report::Printer& out, const std::vector<inspector::DelegatePayloadSummary>& payloads) {
  if (payloads.empty()) return;
  out.begin_list("delegate_payloads");
  for (const auto& payload : payloads) {
    out.begin_object("");
    out.field("method", payload.method);
    out.field("delegate", uint64_t(payload.delegate_index));
    out.field("backend_id", payload.backend_id);
    if (!payload.error.empty()) {
      out.field("error", payload.error);
      out.end_object();
      continue;
    }
    out.field("header", payload.has_header);
    out.field("node_count", uint64_t(payload.node_count));
    out.field("value_count", uint64_t(payload.value_count));
    out.field("constant_bytes", uint64_t(payload.constant_bytes));
    out.begin_list("node_types");
    for (const auto& type : payload.node_types) {
      out.begin_object("");
      out.field("kind", type.kind);
      out.field("count", uint64_t(type.count));
      out.field("runs_on", type.runs_on);
      out.end_object();
    }
    out.end_list();
    out.begin_list("value_kinds");
    for (const auto& kind : payload.value_kinds) {
      out.begin_object("");
      out.field("kind", kind.kind);
      out.field("count", uint64_t(kind.count));
      out.end_object();
    }
    out.end_list();
    out.begin_list("portable_nodes");
    for (const auto& node : payload.portable_nodes) {
      out.begin_object("");
      out.field("node", uint64_t(node.index));
      out.field("kind", node.kind);
      out.field("debug_handle", uint64_t(node.debug_handle));
      out.field("kernel", node.kernel);
      out.end_object();
    }
    out.end_list();
    if (!payload.unsupported.empty()) out.field("unsupported", payload.unsupported);
    out.end_object();
  }
  out.end_list();
}

void print_description(report::Printer& out, const inspector::FileDescription& file, const MissingKernels& missing) {
  out.field("kind", to_string(file.kind));
  out.field("size", file.size);
  if (file.program) {
    print_program(out, *file.program, missing);
  } else if (file.bundled) {
    print_bundled(out, *file.bundled, missing);
  } else if (file.etdump) {
    print_etdump(out, *file.etdump);
  } else if (file.etrecord) {
    print_etrecord(out, *file.etrecord);
  } else if (file.flat_tensor) {
    print_flat_tensor(out, *file.flat_tensor);
  }
  print_delegate_payloads(out, file.delegate_payloads);
}

// Operators no etkit op set has a kernel for, with where upstream gets
// each from, so a user knows which library the program needs.
void add_missing_kernels(const ProgramSummary& program, MissingKernels& missing) {
  for (const MethodSummary& method : program.methods) {
    for (const std::string& op : method.operators) {
      if (all_kernels().find(op) == nullptr) missing.emplace(op, upstream_provider(op));
    }
  }
}

// What can still be said of a file that could not be read: its size and,
// when its first bytes carry a known magic, its kind.
void add_failed_file_facts(FileInfo& info) {
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(info.path, error);
  if (error) return;  // missing or not a regular file: the error says so
  info.size = size;
  std::ifstream in(info.path, std::ios::binary);
  uint8_t head[64] = {};
  in.read(reinterpret_cast<char*>(head), sizeof(head));
  const FileKind kind = detect_file_kind(ByteSpan{head, size_t(in.gcount())});
  if (kind != FileKind::kUnknown) info.kind = kind;
}

// Events that end before they start are timed with upstream's 32-bit
// wraparound rule everywhere; say which, since the times may be bogus.
void add_reversed_event_warnings(FileInfo& info) {
  const inspector::ETDumpSummary& etdump = *info.description->etdump;
  for (size_t b = 0; b < etdump.blocks.size(); ++b) {
    const auto& block = etdump.blocks[b];
    if (block.reversed_events == 0) continue;
    info.warnings.push_back(
        reversed_events_warning(info.path, b, block.name, block.reversed_events, block.first_reversed));
  }
}

}  // namespace

FileInfo describe(const std::string& path) {
  FileInfo info;
  info.path = path;
  auto description = inspector::describe_file(path);
  if (!description.ok()) {
    info.error = description.error();
    add_failed_file_facts(info);
    return info;
  }
  info.description = std::move(*description);
  if (info.description->program) add_missing_kernels(*info.description->program, info.missing_kernels);
  if (info.description->bundled) add_missing_kernels(info.description->bundled->program, info.missing_kernels);
  if (info.description->etdump) add_reversed_event_warnings(info);
  return info;
}

void print(report::Printer& out, const std::vector<FileInfo>& files) {
  out.begin_list("files");
  for (const FileInfo& file : files) {
    out.begin_object("");
    out.field("path", file.path);
    if (file.description) {
      print_description(out, *file.description, file.missing_kernels);
    } else {
      // Every input in order, failed ones with what is known and the reason.
      if (file.kind) out.field("kind", to_string(*file.kind));
      if (file.size) out.field("size", *file.size);
      out.field("error", file.error->message());
      out.field("error_kind", to_string(file.error->code()));
    }
    out.end_object();
  }
  out.end_list();
  out.finish();
}

}  // namespace etkit::session
