#include "program_tables.h"

#include <cstring>
#include <set>

#include "bfbs/program_bfbs_generated.h"
#include "program_generated.h"

namespace etkit::inspector::detail {
namespace {

std::vector<uint64_t> u64_vector(const flatbuffers::VectorOfAny* v) {
  std::vector<uint64_t> out;
  for (size_t i = 0; v != nullptr && i < v->size(); ++i) out.push_back(uint64_t(flatbuffers::GetAnyVectorElemI(v, BaseType::ULong, i)));
  return out;
}

const flatbuffers::Table* element(const flatbuffers::VectorOfAny* v, size_t i) {
  return flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(v, i);
}

}  // namespace

Result<ProgramFile> ProgramFile::open(ByteSpan file, const std::string& name) {
  if (file.size < 8 || std::memcmp(file.data + 4, "ET", 2) != 0) {
    return Error::make(ErrorCode::kMalformed, "%s: not an ExecuTorch program (no ETxx identifier)", name.c_str());
  }
  ProgramFile program;
  program.file = file;
  ETKIT_ASSIGN_OR_RETURN(program.header, ExtendedHeader::parse(file));
  program.flatbuffer_end = program.header.present ? std::min<uint64_t>(program.header.program_size, file.size) : file.size;
  program.schema = &schema_of(executorch_flatbuffer::ProgramBinarySchema::data());
  if (!verified<executorch_flatbuffer::Program>({file.data, size_t(program.flatbuffer_end)})) {
    return Error::make(ErrorCode::kMalformed, "%s: the program flatbuffer does not verify", name.c_str());
  }
  program.root = flatbuffers::GetAnyRoot(file.data);
  return program;
}

size_t ProgramFile::segment_count() const {
  const auto* segments = flatbuffers::GetFieldAnyV(*root, field_of(object("executorch_flatbuffer.Program"), "segments"));
  return header.present && segments != nullptr ? segments->size() : 0;
}

std::pair<uint64_t, uint64_t> ProgramFile::segment_range(size_t i) const {
  if (i >= segment_count()) return {0, 0};
  const auto* segments = flatbuffers::GetFieldAnyV(*root, field_of(object("executorch_flatbuffer.Program"), "segments"));
  const reflection::Object& data_segment = object("executorch_flatbuffer.DataSegment");
  const uint64_t offset = flatbuffers::GetFieldI<uint64_t>(*element(segments, i), field_of(data_segment, "offset"));
  const uint64_t size = flatbuffers::GetFieldI<uint64_t>(*element(segments, i), field_of(data_segment, "size"));
  const uint64_t begin = header.segment_base_offset + offset;
  if (begin < header.segment_base_offset || begin >= file.size) return {0, 0};  // overflowing or outside
  return {begin, begin + std::min<uint64_t>(size, file.size - begin)};
}

ByteSpan ProgramFile::segment(size_t i) const {
  const auto [begin, end] = segment_range(i);
  return {file.data + begin, size_t(end - begin)};
}

std::string DataTensor::shape() const {
  std::string text = to_string(type) + std::string("[");
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

void for_each_data_tensor(const ProgramFile& program, const std::function<void(const DataTensor&)>& visit) {
  const reflection::Object& plan = program.object("executorch_flatbuffer.ExecutionPlan");
  const reflection::Object& evalue = program.object("executorch_flatbuffer.EValue");
  const reflection::Object& tensor = program.object("executorch_flatbuffer.Tensor");
  const reflection::Object& extra = program.object("executorch_flatbuffer.ExtraTensorInfo");
  const reflection::Field& val = field_of(evalue, "val");
  const reflection::Enum& kinds = *program.schema->enums()->Get(val.type()->index());
  const auto* plans = flatbuffers::GetFieldAnyV(*program.root, field_of(program.object("executorch_flatbuffer.Program"), "execution_plan"));
  for (size_t p = 0; plans != nullptr && p < plans->size(); ++p) {
    const flatbuffers::Table& pt = *element(plans, p);
    const std::string method = string_field(plan, pt, "name");
    const auto* values = flatbuffers::GetFieldAnyV(pt, field_of(plan, "values"));
    for (size_t v = 0; values != nullptr && v < values->size(); ++v) {
      const flatbuffers::Table& ev = *element(values, v);
      const reflection::EnumVal* kind = kinds.values()->LookupByKey(flatbuffers::GetFieldI<uint8_t>(ev, field_of(evalue, "val_type")));
      if (kind == nullptr || kind->name()->str() != "Tensor") continue;
      const flatbuffers::Table* t = flatbuffers::GetFieldT(ev, val);
      if (t == nullptr) continue;
      DataTensor d;
      d.buffer = flatbuffers::GetFieldI<uint32_t>(*t, field_of(tensor, "data_buffer_idx"));
      if (d.buffer == 0) continue;
      d.method = method;
      d.value = v;
      d.tensor = t;
      d.planned = flatbuffers::GetFieldT(*t, field_of(tensor, "allocation_info")) != nullptr;
      if (const flatbuffers::Table* info = flatbuffers::GetFieldT(*t, field_of(tensor, "extra_tensor_info"))) {
        d.fqn = string_field(extra, *info, "fully_qualified_name");
        d.mutable_table = flatbuffers::GetFieldI<uint64_t>(*info, field_of(extra, "mutable_data_segments_idx"));
      }
      d.type = static_cast<ScalarType>(flatbuffers::GetFieldI<int8_t>(*t, field_of(tensor, "scalar_type")));
      uint64_t count = 1;
      const auto* sizes = flatbuffers::GetFieldAnyV(*t, field_of(tensor, "sizes"));
      for (size_t i = 0; sizes != nullptr && i < sizes->size(); ++i) {
        d.sizes.push_back(flatbuffers::GetAnyVectorElemI(sizes, BaseType::Int, i));
        count *= uint64_t(std::max<int64_t>(0, d.sizes.back()));
      }
      d.bytes = count * element_size(d.type);
      visit(d);
    }
  }
}

SegmentUses segment_uses(const ProgramFile& program) {
  SegmentUses uses;
  const flatbuffers::Table& root = *program.root;
  const reflection::Object& p = program.object("executorch_flatbuffer.Program");
  const reflection::Object& subsegment = program.object("executorch_flatbuffer.SubsegmentOffsets");
  if (const flatbuffers::Table* cs = flatbuffers::GetFieldT(root, field_of(p, "constant_segment"))) {
    uses.constant_segment = flatbuffers::GetFieldI<uint32_t>(*cs, field_of(subsegment, "segment_index"));
    uses.constant_offsets = u64_vector(flatbuffers::GetFieldAnyV(*cs, field_of(subsegment, "offsets")));
  }
  std::vector<uint32_t> mutable_segment_of;  // mutable_data_segments index -> segment
  if (const auto* ms = flatbuffers::GetFieldAnyV(root, field_of(p, "mutable_data_segments"))) {
    for (size_t i = 0; i < ms->size(); ++i) {
      const uint32_t segment = flatbuffers::GetFieldI<uint32_t>(*element(ms, i), field_of(subsegment, "segment_index"));
      mutable_segment_of.push_back(segment);
      uses.mutable_offsets[segment] = u64_vector(flatbuffers::GetFieldAnyV(*element(ms, i), field_of(subsegment, "offsets")));
    }
  }
  for_each_data_tensor(program, [&](const DataTensor& d) {
    const std::string name = (d.fqn.empty() ? "" : d.fqn + " ") + d.shape() + " (method " + d.method + ", value " +
                             std::to_string(d.value) + ")";
    if (!d.planned) {
      uses.constants.emplace(d.buffer, std::make_pair(name, d.bytes));  // its first user names it
    } else if (d.mutable_table < mutable_segment_of.size()) {
      uses.mutable_states[mutable_segment_of[d.mutable_table]].emplace(d.buffer, std::make_pair(name, d.bytes));
    }
  });
  const reflection::Object& plan = program.object("executorch_flatbuffer.ExecutionPlan");
  const reflection::Object& delegate = program.object("executorch_flatbuffer.BackendDelegate");
  const reflection::Object& reference = program.object("executorch_flatbuffer.BackendDelegateDataReference");
  const auto* plans = flatbuffers::GetFieldAnyV(root, field_of(p, "execution_plan"));
  for (size_t i = 0; plans != nullptr && i < plans->size(); ++i) {
    const std::string method = string_field(plan, *element(plans, i), "name");
    const auto* delegates = flatbuffers::GetFieldAnyV(*element(plans, i), field_of(plan, "delegates"));
    for (size_t d = 0; delegates != nullptr && d < delegates->size(); ++d) {
      const flatbuffers::Table* ref = flatbuffers::GetFieldT(*element(delegates, d), field_of(delegate, "processed"));
      if (ref == nullptr || flatbuffers::GetFieldI<int8_t>(*ref, field_of(reference, "location")) != 1) continue;  // SEGMENT
      const uint32_t index = flatbuffers::GetFieldI<uint32_t>(*ref, field_of(reference, "index"));
      const std::string id = string_field(delegate, *element(delegates, d), "id");
      uses.delegates.emplace(index, "delegate " + id + " (method " + method + ", delegate " + std::to_string(d) + ")");
      uses.backends.emplace(index, id);
    }
  }
  const reflection::Object& named = program.object("executorch_flatbuffer.NamedData");
  if (const auto* entries = flatbuffers::GetFieldAnyV(root, field_of(p, "named_data"))) {
    for (size_t i = 0; i < entries->size(); ++i) {
      uses.named.emplace(flatbuffers::GetFieldI<uint32_t>(*element(entries, i), field_of(named, "segment_index")),
                         string_field(named, *element(entries, i), "key"));
    }
  }
  return uses;
}

std::string XnnpackConstant::describe() const {
  std::string dims;
  for (size_t d = 0; d < value->dims.size(); ++d) dims += (d ? ", " : "") + std::to_string(value->dims[d]);
  return "node " + std::to_string(node) + " " + xnnpack::node_kind_name(graph_node->kind) + " (debug handle " +
         std::to_string(graph_node->debug_handle) + ") input " + std::to_string(input) +
         (value->quantized() ? std::string(" ") + xnnpack::quant_kind_name(value->quant.kind) : "") + " [" + dims + "]";
}

void for_each_xnnpack_constant(const ProgramFile& program, const SegmentUses& uses,
                               const std::function<void(const XnnpackConstant&)>& visit) {
  std::map<std::string, uint32_t> segment_of_key;
  for (const auto& [segment, key] : uses.named) segment_of_key.emplace(key, segment);
  const auto lookup = [&](const std::string& key) -> Result<ByteSpan> {
    const auto it = segment_of_key.find(key);
    if (it == segment_of_key.end()) return Error::make(ErrorCode::kNotFound, "no named data '%s'", key.c_str());
    return program.segment(it->second);
  };
  for (const auto& [segment, backend] : uses.backends) {
    if (backend != "XnnpackBackend") continue;
    auto graph = xnnpack::read_xnn_graph(program.segment(segment), lookup);
    if (!graph.ok()) continue;
    std::set<const uint8_t*> seen;
    for (size_t n = 0; n < graph->nodes.size(); ++n) {
      const xnnpack::GraphNode& g = graph->nodes[n];
      for (size_t k = 0; k < g.inputs.size(); ++k) {
        if (g.inputs[k] >= graph->values.size()) continue;
        const xnnpack::GraphValue& value = graph->values[g.inputs[k]];
        if (value.constant.size == 0 || !seen.insert(value.constant.data).second) continue;
        visit(XnnpackConstant{uses.delegates.at(segment), n, &g, k, &value});
      }
    }
  }
}

}  // namespace etkit::inspector::detail
