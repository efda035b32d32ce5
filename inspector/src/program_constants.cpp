// A program's constants with their bytes (file_size.h), for diff-program:
// the constant segment's or legacy inline buffers' tensors, and each
// XNNPACK delegate's constants keyed by the node that reads them.

#include <cstring>
#include <set>

#include "bfbs/bundled_program_bfbs_generated.h"
#include "bundled_program_generated.h"
#include "etkit/inspector/file_size.h"
#include "program_tables.h"

namespace etkit::inspector {

using namespace detail;

namespace {

// The program of a .pte, or the one a .bpte embeds (`name` then says so).
Result<ByteSpan> program_of(ByteSpan file, std::string& name) {
  if (file.size < 8 || std::memcmp(file.data + 4, "BP08", 4) != 0) return file;
  const reflection::Schema& schema = schema_of(bundled_program_flatbuffer::BundledProgramBinarySchema::data());
  if (!verified<bundled_program_flatbuffer::BundledProgram>(file)) {
    return Error::make(ErrorCode::kMalformed, "%s: the bundle does not verify", name.c_str());
  }
  const auto* program =
      flatbuffers::GetFieldAnyV(*flatbuffers::GetAnyRoot(file.data), field_of(*schema.root_table(), "program"));
  if (program == nullptr) return Error::make(ErrorCode::kMalformed, "%s: the bundle holds no program", name.c_str());
  name += " (embedded program)";
  return ByteSpan{program->Data(), program->size()};
}

}  // namespace

Result<std::vector<ValueConstant>> constant_values(ByteSpan file, const std::string& file_name) {
  std::string name = file_name;
  ETKIT_ASSIGN_OR_RETURN(const ByteSpan bytes, program_of(file, name));
  ETKIT_ASSIGN_OR_RETURN(const ProgramFile program, ProgramFile::open(bytes, name));
  std::vector<ValueConstant> out;
  for_each_data_tensor(program, [&](const DataTensor& d) {
    if (!d.planned) out.push_back({d.method, d.value, d.fqn, d.bytes});
  });
  return out;
}

Result<std::vector<ProgramConstant>> program_constants(ByteSpan file, const std::string& file_name) {
  std::string name = file_name;
  ETKIT_ASSIGN_OR_RETURN(const ByteSpan bytes, program_of(file, name));
  ETKIT_ASSIGN_OR_RETURN(const ProgramFile program, ProgramFile::open(bytes, name));
  const SegmentUses uses = segment_uses(program);
  const ByteSpan constant_segment = uses.constant_segment >= 0 ? program.segment(size_t(uses.constant_segment)) : ByteSpan{};
  const auto* inline_buffers =
      flatbuffers::GetFieldAnyV(*program.root, field_of(program.object("executorch_flatbuffer.Program"), "constant_buffer"));
  const reflection::Object& buffer = program.object("executorch_flatbuffer.Buffer");
  std::vector<ProgramConstant> out;
  std::set<std::string> seen;
  for_each_data_tensor(program, [&](const DataTensor& d) {
    if (d.planned) return;  // mutable state, not a constant
    ProgramConstant c{d.fqn.empty() ? d.method + " value " + std::to_string(d.value) : d.fqn, to_string(d.type), d.sizes,
                      d.type == ScalarType::kFloat, {}};
    if (!seen.insert(c.key).second) return;
    const uint32_t i = d.buffer;
    if (constant_segment.size > 0 && i < uses.constant_offsets.size() && uses.constant_offsets[i] <= constant_segment.size &&
        d.bytes <= constant_segment.size - uses.constant_offsets[i]) {
      c.data = ByteSpan{constant_segment.data + uses.constant_offsets[i], size_t(d.bytes)};
    } else if (inline_buffers != nullptr && i < inline_buffers->size()) {
      const auto* b = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(inline_buffers, i);
      const auto* storage = flatbuffers::GetFieldAnyV(*b, field_of(buffer, "storage"));
      if (storage != nullptr && storage->size() >= d.bytes) c.data = ByteSpan{storage->Data(), size_t(d.bytes)};
    }
    out.push_back(std::move(c));
  });
  for_each_xnnpack_constant(program, uses, [&](const XnnpackConstant& x) {
    ProgramConstant c;
    c.key = x.delegate + " node " + std::to_string(x.node) + " " + xnnpack::node_kind_name(x.graph_node->kind) +
            " (debug handle " + std::to_string(x.graph_node->debug_handle) + ") input " + std::to_string(x.input);
    c.type = xnnpack::datatype_name(x.value->datatype);
    c.is_float32 = x.value->datatype == xnnpack::Datatype::kFp32;
    for (size_t d : x.value->dims) c.sizes.push_back(int64_t(d));
    c.data = x.value->constant;
    out.push_back(std::move(c));
  });
  return out;
}

}  // namespace etkit::inspector
