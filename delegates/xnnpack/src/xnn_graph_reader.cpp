// XNNGraph flatbuffer → XnnGraph: the flatbuffers Verifier first, then our
// own checks of every id, dimension and constant, so nothing downstream
// indexes unchecked bytes.

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "node_params.h"
#include "quant_params_reader.h"
#include "shape_checks.h"
#include "xnnpack_graph_generated.h"

namespace etkit::xnnpack {
namespace fb = etkit_xnnpack_fb;

namespace {

constexpr size_t kMaxDims = 16;  // etkit's tensors' rank limit

size_t element_bits(Datatype type) {
  switch (type) {
    case Datatype::kFp32: case Datatype::kQint32: case Datatype::kQcint32:
    case Datatype::kInt32: case Datatype::kPfp32:
      return 32;
    case Datatype::kFp16: case Datatype::kBf16:
      return 16;
    case Datatype::kQint8: case Datatype::kQuint8: case Datatype::kQcint8:
    case Datatype::kQdint8: case Datatype::kQpint8:
      return 8;
    case Datatype::kQcint4: case Datatype::kQbint4:
      return 4;
    case Datatype::kInvalid:
      break;
  }
  return 0;
}

template <typename T>
size_t length(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? 0 : v->size();
}

struct Reader {
  ByteSpan payload;
  PayloadHeader header;
  const NamedDataLookup& named_data;
  const fb::Graph& root;
  XnnGraph graph;
  std::unordered_map<uint32_t, uint32_t> index_of_id;

  Status read_values();
  ByteSpan keep_aligned(ByteSpan bytes);
  Result<GraphValue> read_value(size_t index, const fb::TensorValue& tensor);
  Result<ByteSpan> constant_of(size_t value_index, uint32_t constant_index);
  Status read_externals();
  Status order_by_external_id();
  Status read_nodes();
  Status check_data_flow();
};

Result<ByteSpan> Reader::constant_of(size_t value_index, uint32_t constant_index) {
  if (const auto* table = root.constant_data(); length(table) > 0) {
    if (constant_index >= table->size()) {
      return Error::make(ErrorCode::kOutOfRange,
                         "value %zu: constant %u is past the %u entries of constant_data",
                         value_index, constant_index, table->size());
    }
    const fb::ConstantDataOffset* entry = table->Get(constant_index);
    if (entry->named_key() != nullptr && entry->named_key()->size() > 0) {
      const std::string key = entry->named_key()->str();
      auto bytes = named_data ? named_data(key)
                              : Result<ByteSpan>(Error::make(ErrorCode::kNotFound, "no named data"));
      if (!bytes.ok()) {
        return Error::make(ErrorCode::kNotFound, "value %zu: named data '%s' not found (%s)",
                           value_index, key.c_str(), bytes.error().message());
      }
      if (bytes->size < entry->size()) {
        return Error::make(ErrorCode::kTruncated,
                           "value %zu: named data '%s' has %zu bytes, the graph says %llu",
                           value_index, key.c_str(), bytes->size,
                           static_cast<unsigned long long>(entry->size()));
      }
      return bytes->sub(0, entry->size());
    }
    const ByteSpan region = payload.sub(header.constant_data_offset, header.constant_data_size);
    if (!region.contains(entry->offset(), entry->size())) {
      return Error::make(ErrorCode::kTruncated,
                         "value %zu: constant %u at offset %llu, %llu bytes, lies outside the "
                         "payload's %zu bytes of constant data",
                         value_index, constant_index,
                         static_cast<unsigned long long>(entry->offset()),
                         static_cast<unsigned long long>(entry->size()), region.size);
    }
    return region.sub(entry->offset(), entry->size());
  }
  const auto* buffers = root.constant_buffer();
  if (constant_index >= length(buffers) || buffers->Get(constant_index)->storage() == nullptr) {
    return Error::make(ErrorCode::kOutOfRange, "value %zu: constant %u does not exist",
                       value_index, constant_index);
  }
  const auto* storage = buffers->Get(constant_index)->storage();
  return ByteSpan{storage->data(), storage->size()};
}

// Constants are read in place as floats and int32s, by XNNPACK and by
// etkit's kernels: one that is not 16-byte aligned (a payload inline in a
// program at any offset, an odd constant offset) is read from a copy.
constexpr uintptr_t kConstantAlignment = 16;

ByteSpan Reader::keep_aligned(ByteSpan bytes) {
  const auto misalignment = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % kConstantAlignment; };
  if (bytes.size == 0 || misalignment(bytes.data) == 0) return bytes;
  // A word-aligned block with a spare 16 bytes holds a 16-byte-aligned copy.
  auto copy = std::make_shared<std::vector<uint64_t>>((bytes.size + kConstantAlignment + 7) / 8);
  uint8_t* start = reinterpret_cast<uint8_t*>(copy->data());
  start += (kConstantAlignment - misalignment(start)) % kConstantAlignment;
  std::memcpy(start, bytes.data, bytes.size);
  graph.owned_storage.push_back(std::move(copy));
  return ByteSpan{start, bytes.size};
}

Result<GraphValue> Reader::read_value(size_t index, const fb::TensorValue& tensor) {
  GraphValue value;
  value.id = tensor.id_out();
  value.datatype = static_cast<Datatype>(tensor.datatype());
  if (static_cast<int>(tensor.datatype()) < 0 || static_cast<int>(tensor.datatype()) > 14) {
    return Error::make(ErrorCode::kMalformed, "value %zu: unknown datatype %d", index,
                       static_cast<int>(tensor.datatype()));
  }
  const size_t rank = length(tensor.dims());
  if (rank != tensor.num_dims() || rank > kMaxDims) {
    return Error::make(ErrorCode::kMalformed, "value %zu: num_dims %u with %zu dims (at most %zu)",
                       index, tensor.num_dims(), rank, kMaxDims);
  }
  uint64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    const uint32_t dim = tensor.dims()->Get(d);
    value.dims.push_back(dim);
    if (dim != 0 && count > (uint64_t(1) << 40) / dim) {
      return Error::make(ErrorCode::kOutOfRange, "value %zu: %zu dims hold too many elements",
                         index, rank);
    }
    count *= dim;
  }
  value.external_input = (tensor.flags() & 1u) != 0;
  value.external_output = (tensor.flags() & 2u) != 0;
  value.external_id = tensor.external_id();
  if (tensor.constant_buffer_idx() != 0) {
    ETKIT_ASSIGN_OR_RETURN(value.constant, constant_of(index, tensor.constant_buffer_idx()));
    value.constant = keep_aligned(value.constant);
    const size_t bits = element_bits(value.datatype);
    if (bits != 0 && value.constant.size * 8 < count * bits) {
      return Error::make(ErrorCode::kTruncated,
                         "value %zu: constant of %zu bytes, its %s dims need %llu", index,
                         value.constant.size, datatype_name(value.datatype),
                         static_cast<unsigned long long>((count * bits + 7) / 8));
    }
  }
  return value;
}

Status Reader::read_values() {
  const auto* values = root.values();
  for (size_t i = 0; i < length(values); ++i) {
    const fb::Value* entry = values->Get(i);
    const fb::TensorValue* tensor = nullptr;
    const fb::QuantizedTensorValue* wrapper = nullptr;
    if (entry->value_type() == fb::ValueUnion::TensorValue) {
      tensor = entry->value_as_TensorValue();
    } else if (entry->value_type() == fb::ValueUnion::QuantizedTensorValue) {
      // A union may name its type and still hold no table.
      wrapper = entry->value_as_QuantizedTensorValue();
      tensor = wrapper != nullptr ? wrapper->tensor_value() : nullptr;
    }
    if (tensor == nullptr) {
      return Error::make(ErrorCode::kMalformed, "value %zu: no tensor value", i);
    }
    ETKIT_ASSIGN_OR_RETURN(GraphValue value, read_value(i, *tensor));
    value.dq_datatype = static_cast<Datatype>(tensor->dq_datatype());
    if (wrapper != nullptr) {
      ETKIT_TRY(read_quant_params(i, *wrapper, [this, i](uint32_t c) { return constant_of(i, c); }, value));
    }
    if (!index_of_id.emplace(value.id, static_cast<uint32_t>(i)).second) {
      return Error::make(ErrorCode::kMalformed, "value %zu: id %u is used twice", i, value.id);
    }
    graph.values.push_back(std::move(value));
  }
  return Ok{};
}

Status Reader::read_externals() {
  const auto resolve = [this](const flatbuffers::Vector<uint32_t>* ids, bool input,
                              std::vector<uint32_t>& out) -> Status {
    for (size_t i = 0; i < length(ids); ++i) {
      auto found = index_of_id.find(ids->Get(i));
      if (found == index_of_id.end()) {
        return Error::make(ErrorCode::kOutOfRange, "%s %zu: value id %u does not exist",
                           input ? "input" : "output", i, ids->Get(i));
      }
      const GraphValue& value = graph.values[found->second];
      if (input ? !value.external_input : !value.external_output) {
        return Error::make(ErrorCode::kMalformed, "%s %zu: value %u is not flagged external %s",
                           input ? "input" : "output", i, found->second,
                           input ? "input" : "output");
      }
      out.push_back(found->second);
    }
    return Ok{};
  };
  ETKIT_TRY(resolve(root.input_ids(), true, graph.inputs));
  ETKIT_TRY(resolve(root.output_ids(), false, graph.outputs));
  return order_by_external_id();
}

// Upstream's runtime binds the delegate call's argument k to the external
// value whose external id is k (it sorts input_ids and output_ids by id, and
// an external value's id is its external id); input_ids need not list them
// in that order (upstream's lowering of a detection head does not). So the
// inputs' external ids must be 0..n-1 and the outputs' n..n+m-1.
Status Reader::order_by_external_id() {
  const auto by_external_id = [this](uint32_t a, uint32_t b) {
    return graph.values[a].external_id < graph.values[b].external_id;
  };
  std::sort(graph.inputs.begin(), graph.inputs.end(), by_external_id);
  std::sort(graph.outputs.begin(), graph.outputs.end(), by_external_id);
  uint32_t expected = 0;
  for (const std::vector<uint32_t>* list : {&graph.inputs, &graph.outputs}) {
    for (uint32_t v : *list) {
      if (graph.values[v].external_id != expected) {
        return Error::make(ErrorCode::kMalformed,
                           "%s value %u has external id %u; the delegate's %zu inputs and %zu outputs need "
                           "external ids 0 to %zu, one each",
                           list == &graph.inputs ? "input" : "output", v, graph.values[v].external_id,
                           graph.inputs.size(), graph.outputs.size(),
                           graph.inputs.size() + graph.outputs.size() - 1);
      }
      ++expected;
    }
  }
  return Ok{};
}

Status Reader::read_nodes() {
  const auto* nodes = root.nodes();
  for (size_t i = 0; i < length(nodes); ++i) {
    const fb::Node* node = nodes->Get(i);
    auto parsed = node_params(*node);
    if (!parsed.ok()) return parsed.error().with_context("node %zu", i);
    GraphNode out = std::move(*parsed);
    out.debug_handle = node->debug_handle();
    if (const auto* range = node->output_min_max()) {
      out.output_min = range->output_min();
      out.output_max = range->output_max();
    }
    // Ids become value indices; kNoValue stays for an absent bias (the
    // third input of fully connected and convolution nodes) only.
    const bool has_bias = out.kind == NodeKind::kFullyConnected || out.kind == NodeKind::kConv2d ||
                          out.kind == NodeKind::kDepthwiseConv2d ||
                          out.kind == NodeKind::kConvTranspose2d ||
                          out.kind == NodeKind::kScaledDotProductAttention;
    for (std::vector<uint32_t>* ids : {&out.inputs, &out.outputs}) {
      for (size_t position = 0; position < ids->size(); ++position) {
        uint32_t& id = (*ids)[position];
        if (id == kNoValue && ids == &out.inputs && has_bias && position >= 2) continue;
        auto found = index_of_id.find(id);
        if (found == index_of_id.end()) {
          return Error::make(ErrorCode::kOutOfRange, "node %zu (%s, debug handle %u): value id %u "
                             "does not exist", i, node_kind_name(out.kind), out.debug_handle, id);
        }
        id = found->second;
      }
    }
    graph.nodes.push_back(std::move(out));
  }
  return Ok{};
}

// Nodes run in their stored order: every input must be a constant, a
// delegate input, or the output of an earlier node; every value is
// written once, and never a constant or a delegate input.
Status Reader::check_data_flow() {
  std::vector<uint8_t> ready(graph.values.size(), 0);
  for (size_t v = 0; v < graph.values.size(); ++v) {
    ready[v] = graph.values[v].constant.size > 0 || graph.values[v].external_input;
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    for (uint32_t v : node.inputs) {
      if (v != kNoValue && !ready[v]) {
        return Error::make(ErrorCode::kMalformed, "node %zu (%s, debug handle %u): input value "
                           "%u is not written before it", i, node_kind_name(node.kind),
                           node.debug_handle, v);
      }
    }
    ETKIT_TRY(check_node_shapes(graph, i));
    for (uint32_t v : node.outputs) {
      if (ready[v]) {
        return Error::make(ErrorCode::kMalformed, "node %zu (%s, debug handle %u): output value "
                           "%u is written twice or is an input or constant", i,
                           node_kind_name(node.kind), node.debug_handle, v);
      }
      ready[v] = 1;
    }
  }
  for (uint32_t v : graph.outputs) {
    if (!ready[v] || graph.values[v].external_input) {
      return Error::make(ErrorCode::kMalformed, "output value %u is never written", v);
    }
  }
  return Ok{};
}

}  // namespace

size_t GraphValue::element_count() const {
  size_t count = 1;
  for (size_t d : dims) count *= d;
  return count;
}

size_t GraphValue::byte_size() const {
  return (element_count() * element_bits(datatype) + 7) / 8;
}

Result<XnnGraph> read_xnn_graph(ByteSpan payload, const NamedDataLookup& named_data) {
  bool has_header = false;
  ETKIT_ASSIGN_OR_RETURN(PayloadHeader header, parse_payload_header(payload, has_header));
  ByteSpan region = payload.sub(header.flatbuffer_offset, header.flatbuffer_size);
  if (!region.starts_with_at(4, "XN01", 4) && !region.starts_with_at(4, "XN00", 4)) {
    return Error::make(ErrorCode::kMalformed,
                       "XNNPACK payload: no XNNGraph (identifier XN01 or XN00) at offset %u",
                       header.flatbuffer_offset);
  }
  // The verifier checks alignment against addresses: a payload stored
  // inline in a program may sit anywhere, so verify an aligned copy, which
  // the graph keeps (inline constant buffers point into it).
  std::shared_ptr<std::vector<uint64_t>> aligned;
  if (reinterpret_cast<uintptr_t>(region.data) % 8 != 0) {
    aligned = std::make_shared<std::vector<uint64_t>>((region.size + 7) / 8);
    std::memcpy(aligned->data(), region.data, region.size);
    region.data = reinterpret_cast<const uint8_t*>(aligned->data());
  }
  flatbuffers::Verifier verifier(region.data, region.size);
  if (!verifier.VerifyBuffer<fb::Graph>(nullptr)) {
    return Error::make(ErrorCode::kMalformed,
                       "XNNPACK payload: the XNNGraph flatbuffer (%zu bytes) fails verification",
                       region.size);
  }
  Reader reader{payload, header, named_data, *flatbuffers::GetRoot<fb::Graph>(region.data), {}, {}};
  reader.graph.has_header = has_header;
  if (aligned) reader.graph.owned_storage.push_back(std::move(aligned));
  if (const auto* version = reader.root.version()) reader.graph.version = version->str();
  ETKIT_TRY(reader.read_values());
  ETKIT_TRY(reader.read_externals());
  ETKIT_TRY(reader.read_nodes());
  ETKIT_TRY(reader.check_data_flow());
  return std::move(reader.graph);
}

}  // namespace etkit::xnnpack
